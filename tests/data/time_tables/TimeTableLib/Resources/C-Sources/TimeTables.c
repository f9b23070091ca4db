/* A table of rows (t, y1, y2, ...) read at time t, which keeps its event interval itself, as
 * the MSL's time tables do: the external object of TimeTableLib.TimeTable, the library
 * "TimeTables" (compiled by the build from this file).
 *
 * Rows of the same abscissa make a jump. A segment starts at the last row of an abscissa and
 * ends at the next abscissa; ConstantSegments (smoothness 2) holds the starting row's values
 * over it, LinearSegments (smoothness 1) joins them linearly to those of the next row. After
 * the last row the last values hold.
 *
 * The segment is the object's own state: time_table_next_event, called at the time events the
 * model's when-equation makes, moves it to the next segment at each call at a later time (as
 * an event is expected there: a call at a time that is no event moves it all the same), keeps
 * it at a call at the same time and finds it again from the table at an earlier time (a
 * restart). time_table_value reads the segment it holds. */
#include <stdlib.h>

#include "time_table.h"

#include "ModelicaUtilities.h"

#define NO_EVENT 1e60 /* the next event time after the last row (Modelica.Constants.inf) */

typedef struct {
    int rows;
    int columns;    /* interpolated columns */
    double* t;      /* abscissae, s, non-decreasing */
    double* y;      /* rows x columns, row-major */
    int constant;   /* 1: ConstantSegments, 0: LinearSegments */
    int segment;    /* the row starting the current segment; -1 before the first event */
    double called;  /* time of the last call of time_table_next_event, s */
    double next;    /* what that call returned, s */
} TimeTable;

void* ModelicaStandardTables_CombiTimeTable_init2(const char* fileName, const char* tableName,
                                                  const double* table, size_t nRow,
                                                  size_t nColumn, double startTime,
                                                  const int* columns, size_t nCols,
                                                  int smoothness, int extrapolation,
                                                  double shiftTime, int timeEvents, int verbose) {
    TimeTable* tt;
    size_t i, k;
    if (nRow < 2 || (smoothness != 1 && smoothness != 2) || startTime != 0.0 ||
        shiftTime != 0.0 || extrapolation != 1 || timeEvents != 1) {
        ModelicaFormatError("TimeTable: needs 2 rows or more, smoothness 1 or 2, start and "
                            "shift time 0, extrapolation and time events 1");
    }
    tt = (TimeTable*)calloc(1, sizeof(TimeTable));
    tt->rows = (int)nRow;
    tt->columns = (int)nCols;
    tt->t = (double*)malloc(nRow * sizeof(double));
    tt->y = (double*)malloc(nRow * nCols * sizeof(double));
    for (i = 0; i < nRow; i++) {
        tt->t[i] = table[i * nColumn];
        for (k = 0; k < nCols; k++) tt->y[i * nCols + k] = table[i * nColumn + columns[k] - 1];
    }
    tt->constant = smoothness == 2;
    tt->segment = -1;
    return tt;
}

void ModelicaStandardTables_CombiTimeTable_close(void* object) {
    TimeTable* tt = (TimeTable*)object;
    free(tt->t);
    free(tt->y);
    free(tt);
}

/* The row starting the segment after the one row i starts: the last row of the next
 * abscissa (the last row itself after the last segment). */
static int after(const TimeTable* tt, int i) {
    int j = i + 1 < tt->rows ? i + 1 : i;
    while (j + 1 < tt->rows && tt->t[j + 1] == tt->t[j]) j++;
    return j;
}

/* The row starting the segment that holds time t. */
static int located(const TimeTable* tt, double t) {
    int s = 0;
    while (s + 1 < tt->rows && tt->t[s + 1] == tt->t[s]) s++;
    while (s + 1 < tt->rows && tt->t[s + 1] <= t) s = after(tt, s);
    return s;
}

double time_table_next_event(void* object, double t) {
    TimeTable* tt = (TimeTable*)object;
    if (tt->segment >= 0 && t == tt->called) return tt->next;
    if (tt->segment < 0 || t < tt->called) {
        tt->segment = located(tt, t);
    } else {
        do tt->segment = after(tt, tt->segment);
        while (tt->segment + 1 < tt->rows && tt->t[tt->segment + 1] <= t);
    }
    tt->called = t;
    tt->next = tt->segment + 1 < tt->rows ? tt->t[tt->segment + 1] : NO_EVENT;
    return tt->next;
}

double time_table_value(void* object, int k, double t, double nextTimeEvent,
                        double preNextTimeEvent) {
    TimeTable* tt = (TimeTable*)object;
    int s = tt->segment >= 0 ? tt->segment : located(tt, t);
    const double* y = tt->y + (k - 1);
    if (nextTimeEvent == preNextTimeEvent && t >= nextTimeEvent) {
        t = nextTimeEvent; /* an event due and not yet handled: the segment's end */
    }
    if (tt->constant || s + 1 == tt->rows) return y[s * tt->columns];
    return y[s * tt->columns] + (y[(s + 1) * tt->columns] - y[s * tt->columns]) *
                                    (t - tt->t[s]) / (tt->t[s + 1] - tt->t[s]);
}
