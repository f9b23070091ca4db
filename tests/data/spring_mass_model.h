/* The physics shared by the FMI 2.0 and FMI 3.0 spring-mass test FMUs: a point mass on a
 * spring to a neighbour,
 *
 *   der(x) = v,   m der(v) = F + k (x_other - x),   F_other = k (x - x_other)
 *
 * x (m), v (m/s), F and F_other (N). A Co-Simulation step integrates with fixed-step RK4 of
 * at most 1 ms, inputs held over the step. The index of each variable is its value reference.
 */
#ifndef SPRING_MASS_MODEL_H
#define SPRING_MASS_MODEL_H

#include <math.h>

enum { M, K, X, V, DER_X, DER_V, F, X_OTHER, F_OTHER, N_VARIABLES };

typedef struct {
    double r[N_VARIABLES];
    double time;
} State;

static void evaluate(State *s) {
    s->r[DER_X] = s->r[V];
    s->r[DER_V] = (s->r[F] + s->r[K] * (s->r[X_OTHER] - s->r[X])) / s->r[M];
    s->r[F_OTHER] = s->r[K] * (s->r[X] - s->r[X_OTHER]);
}

static void derivative(State *s, const double y[2], double dy[2]) {
    s->r[X] = y[0];
    s->r[V] = y[1];
    evaluate(s);
    dy[0] = s->r[DER_X];
    dy[1] = s->r[DER_V];
}

/* Advance the state from t by step (s) with RK4 substeps of at most 1 ms. */
static void integrate(State *s, double t, double step) {
    int n = (int)ceil(step / 1e-3 - 1e-9);
    double h = step / (n > 0 ? n : 1), y[2] = {s->r[X], s->r[V]}, k[4][2], z[2];
    for (int i = 0; i < n; i++) {
        derivative(s, y, k[0]);
        for (int j = 0; j < 2; j++) z[j] = y[j] + h / 2 * k[0][j];
        derivative(s, z, k[1]);
        for (int j = 0; j < 2; j++) z[j] = y[j] + h / 2 * k[1][j];
        derivative(s, z, k[2]);
        for (int j = 0; j < 2; j++) z[j] = y[j] + h * k[2][j];
        derivative(s, z, k[3]);
        for (int j = 0; j < 2; j++) y[j] += h / 6 * (k[0][j] + 2 * k[1][j] + 2 * k[2][j] + k[3][j]);
    }
    s->r[X] = y[0];
    s->r[V] = y[1];
    s->time = t + step;
    evaluate(s);
}

#endif
