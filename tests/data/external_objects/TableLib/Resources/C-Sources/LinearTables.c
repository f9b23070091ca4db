/* A table of rows (u, y1, y2, ...) interpolated linearly in u: the external object of
 * TableLib.LinearTable, with the C interface of the MSL's 1-D tables; the library
 * "LinearTables", which the build compiles from this file (there is no prebuilt one). Messages
 * through ModelicaUtilities: construction and destruction (when verbose), and an error outside
 * the table where the table allows no extrapolation. */
#include <stdlib.h>

#include "linear_table.h"

#include "ModelicaUtilities.h"

typedef struct {
    int rows;
    int columns;      /* interpolated columns */
    double* u;        /* rows abscissae */
    double* y;        /* rows x columns, row-major */
    int extrapolate;  /* 0: an error outside the table */
    int verbose;
} LinearTable;

void* ModelicaStandardTables_CombiTable1D_init2(const char* fileName, const char* tableName,
                                                const double* table, size_t nRow, size_t nColumn,
                                                const int* columns, size_t nCols, int smoothness,
                                                int extrapolation, int verbose) {
    LinearTable* t;
    size_t i, k;
    if (nRow < 2 || smoothness != 1) {
        ModelicaFormatError("LinearTable: needs 2 rows or more and smoothness 1, not %d and %d",
                            (int)nRow, smoothness);
    }
    t = (LinearTable*)calloc(1, sizeof(LinearTable));
    t->rows = (int)nRow;
    t->columns = (int)nCols;
    t->u = (double*)malloc(nRow * sizeof(double));
    t->y = (double*)malloc(nRow * nCols * sizeof(double));
    for (i = 0; i < nRow; i++) {
        t->u[i] = table[i * nColumn];
        for (k = 0; k < nCols; k++) t->y[i * nCols + k] = table[i * nColumn + columns[k] - 1];
    }
    t->extrapolate = extrapolation != 4; /* NoExtrapolation */
    t->verbose = verbose;
    if (verbose) ModelicaFormatMessage("LinearTable of %d rows: constructed", t->rows);
    return t;
}

void ModelicaStandardTables_CombiTable1D_close(void* object) {
    LinearTable* t = (LinearTable*)object;
    if (t->verbose) ModelicaFormatMessage("LinearTable of %d rows: destructed", t->rows);
    free(t->u);
    free(t->y);
    free(t);
}

double linear_table_value(void* object, int k, double u) {
    LinearTable* t = (LinearTable*)object;
    int i = 0;
    double s;
    if (!t->extrapolate && (u < t->u[0] || u > t->u[t->rows - 1])) {
        ModelicaFormatError("LinearTable: u = %g outside [%g, %g]", u, t->u[0],
                            t->u[t->rows - 1]);
    }
    while (i < t->rows - 2 && u > t->u[i + 1]) i++;
    s = (u - t->u[i]) / (t->u[i + 1] - t->u[i]);
    return (1 - s) * t->y[i * t->columns + k - 1] + s * t->y[(i + 1) * t->columns + k - 1];
}

