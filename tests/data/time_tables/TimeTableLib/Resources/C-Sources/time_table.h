/* The C interface of TimeTableLib's TimeTable (library "TimeTables"). */
#ifndef TIME_TABLE_H
#define TIME_TABLE_H

#include <stddef.h>

void* ModelicaStandardTables_CombiTimeTable_init2(const char* fileName, const char* tableName,
                                                  const double* table, size_t nRow,
                                                  size_t nColumn, double startTime,
                                                  const int* columns, size_t nCols,
                                                  int smoothness, int extrapolation,
                                                  double shiftTime, int timeEvents, int verbose);
void ModelicaStandardTables_CombiTimeTable_close(void* object);
double time_table_next_event(void* object, double t);
double time_table_value(void* object, int k, double t, double nextTimeEvent,
                        double preNextTimeEvent);

#endif
