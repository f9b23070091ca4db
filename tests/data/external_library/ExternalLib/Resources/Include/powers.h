/* x to an integer power, through the C library's pow (linked with Library = "m"). */
#ifndef EXTERNAL_LIB_POWERS_H
#define EXTERNAL_LIB_POWERS_H
#include <math.h>
static double integer_power(double x, int n) { return pow(x, (double) n); }
#endif
