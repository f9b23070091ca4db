/* Laws of the ExternalLib test library, in C. */
#ifndef EXTERNAL_LIB_LAWS_C
#define EXTERNAL_LIB_LAWS_C
#include <math.h>

/* Quadratic drag k v |v| (N) of a body at velocity v (m/s), k in kg/m. */
static double quadratic_drag(double v, double k) { return k * v * fabs(v); }

/* k u^3 and its derivative 3 k u^2 du for a constant k. */
static double cubic(double u, double k) { return k * u * u * u; }
static double cubic_derivative(double u, double k, double du) { return 3.0 * k * u * u * du; }

/* The scalar product of a and b, n elements each. */
static double vector_dot(const double* a, const double* b, int n) {
    double sum = 0.0;
    for (int i = 0; i < n; i++) sum += a[i] * b[i];
    return sum;
}

/* The sum of a[i] w[i], n elements each; w an Integer array (C int). */
static double weighted_sum(const double* a, const int* w, int n) {
    double sum = 0.0;
    for (int i = 0; i < n; i++) sum += a[i] * w[i];
    return sum;
}

/* y = k a, n elements. */
static void vector_scale(const double* a, double k, double* y, int n) {
    for (int i = 0; i < n; i++) y[i] = k * a[i];
}

/* y = A x, A of rows x columns in row-major order. */
static void matrix_vector(const double* A, int rows, int columns, const double* x, double* y) {
    for (int i = 0; i < rows; i++) {
        y[i] = 0.0;
        for (int j = 0; j < columns; j++) y[i] += A[i * columns + j] * x[j];
    }
}
#endif
