/* The C interface of TableLib's LinearTable (library "LinearTables"). */
#ifndef LINEAR_TABLE_H
#define LINEAR_TABLE_H

#include <stddef.h>

void* ModelicaStandardTables_CombiTable1D_init2(const char* fileName, const char* tableName,
                                                const double* table, size_t nRow, size_t nColumn,
                                                const int* columns, size_t nCols, int smoothness,
                                                int extrapolation, int verbose);
void ModelicaStandardTables_CombiTable1D_close(void* object);
double linear_table_value(void* object, int k, double u);

#endif
