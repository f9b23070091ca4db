/* A linear state-space model with FMI 3.0 array variables, Model Exchange and Co-Simulation in
 * one binary:
 *   der(x) = A x + B u,  y = x,  P = x u^T  (P[i,j] = x[i] u[j], a 3 x 3 output)
 * with x(0) = x0; A, B (3 x 3) and x0 (3) are fixed parameters, u (3) a continuous input.
 * Value references: see the VR_* constants; the model description is written by the tests.
 * Every call is checked against the states FMI 3.0 allows it in (strict_fmi3.h), and every
 * array is read and written whole: nValues must be the number of elements of the variables
 * asked for. Co-Simulation integrates with the classical Runge-Kutta scheme in steps of at most
 * 1e-3 s. The functions this FMU does not offer are in fmi3_unsupported.c and
 * fmi3_float64_only.c, besides the FMU state (no roll back), here.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fmi3Functions.h"
#include "strict_fmi3.h"

#define N 3
enum { VR_TIME, VR_A, VR_B, VR_X0, VR_U, VR_X, VR_DX, VR_Y, VR_P, N_VR };
static const int SIZE[N_VR] = {1, N * N, N * N, N, N, N, N, N, N * N};

typedef struct {
    State state;
    fmi3Boolean co_simulation;
    double time, A[N * N], B[N * N], x0[N], u[N], x[N], dx[N], y[N], P[N * N];
} Model;

static void derivatives(const Model *m, const double *x, double *dx) {
    for (int i = 0; i < N; i++) {
        dx[i] = 0;
        for (int j = 0; j < N; j++) dx[i] += m->A[N * i + j] * x[j] + m->B[N * i + j] * m->u[j];
    }
}

static void evaluate(Model *m) {
    derivatives(m, m->x, m->dx);
    for (int i = 0; i < N; i++) {
        m->y[i] = m->x[i];
        for (int j = 0; j < N; j++) m->P[N * i + j] = m->x[i] * m->u[j];
    }
}

static double *variable(Model *m, fmi3ValueReference vr) {
    double *at[N_VR] = {&m->time, m->A, m->B, m->x0, m->u, m->x, m->dx, m->y, m->P};
    return vr < N_VR ? at[vr] : 0;
}

fmi3Status fmi3GetFMUState(fmi3Instance c, fmi3FMUState *s) { return fmi3Error; }
fmi3Status fmi3SetFMUState(fmi3Instance c, fmi3FMUState s) { return fmi3Error; }
fmi3Status fmi3FreeFMUState(fmi3Instance c, fmi3FMUState *s) { return fmi3Error; }
const char *fmi3GetVersion(void) { return "3.0"; }
fmi3Status fmi3SetDebugLogging(fmi3Instance c, fmi3Boolean on, size_t n, const fmi3String c_[]) {
    return fmi3OK;
}

static fmi3Instance instantiate(fmi3Boolean co_simulation) {
    Model *m = calloc(1, sizeof(Model));
    m->state = INSTANTIATED;
    m->co_simulation = co_simulation;
    for (int i = 0; i < N; i++) m->A[4 * i] = m->B[4 * i] = 1; /* the start values */
    m->u[0] = 1, m->u[1] = 2, m->u[2] = 3;
    return m;
}

fmi3Instance fmi3InstantiateModelExchange(fmi3String name, fmi3String token, fmi3String resources,
                                          fmi3Boolean visible, fmi3Boolean logging,
                                          fmi3InstanceEnvironment environment,
                                          fmi3LogMessageCallback log) {
    return instantiate(fmi3False);
}

fmi3Instance fmi3InstantiateCoSimulation(fmi3String name, fmi3String token, fmi3String resources,
                                         fmi3Boolean visible, fmi3Boolean logging,
                                         fmi3Boolean event_mode, fmi3Boolean early_return,
                                         const fmi3ValueReference required[], size_t n_required,
                                         fmi3InstanceEnvironment environment,
                                         fmi3LogMessageCallback log,
                                         fmi3IntermediateUpdateCallback update) {
    return instantiate(fmi3True);
}

void fmi3FreeInstance(fmi3Instance c) { free(c); }

fmi3Status fmi3EnterInitializationMode(fmi3Instance c, fmi3Boolean has_tolerance,
                                       fmi3Float64 tolerance, fmi3Float64 start,
                                       fmi3Boolean has_stop, fmi3Float64 stop) {
    Model *m = c;
    ALLOWED(&m->state, INSTANTIATED, "fmi3EnterInitializationMode");
    m->state = INITIALIZATION;
    m->time = start;
    memcpy(m->x, m->x0, sizeof m->x);
    evaluate(m);
    return fmi3OK;
}

fmi3Status fmi3ExitInitializationMode(fmi3Instance c) {
    Model *m = c;
    ALLOWED(&m->state, INITIALIZATION, "fmi3ExitInitializationMode");
    m->state = m->co_simulation ? STEP : EVENT;
    return fmi3OK;
}

fmi3Status fmi3EnterEventMode(fmi3Instance c) {
    Model *m = c;
    ALLOWED(&m->state, CONTINUOUS, "fmi3EnterEventMode");
    m->state = EVENT;
    return fmi3OK;
}

fmi3Status fmi3Terminate(fmi3Instance c) {
    Model *m = c;
    ALLOWED(&m->state, RUNNING, "fmi3Terminate");
    m->state = TERMINATED;
    return fmi3OK;
}

fmi3Status fmi3Reset(fmi3Instance c) {
    Model *m = c, *fresh = instantiate(m->co_simulation);
    *m = *fresh;
    free(fresh);
    return fmi3OK;
}

/* The number of values of the variables vr[0..n-1], or -1 for an unknown one. */
static long values_of(const fmi3ValueReference vr[], size_t n) {
    long total = 0;
    for (size_t i = 0; i < n; i++) {
        if (vr[i] >= N_VR) return -1;
        total += SIZE[vr[i]];
    }
    return total;
}

fmi3Status fmi3GetFloat64(fmi3Instance c, const fmi3ValueReference vr[], size_t n,
                          fmi3Float64 v[], size_t n_values) {
    Model *m = c;
    ALLOWED(&m->state, READABLE, "fmi3GetFloat64");
    if (values_of(vr, n) != (long)n_values)
        return illegal(&m->state, "fmi3GetFloat64", "nValues is not the number of elements");
    evaluate(m);
    for (size_t i = 0; i < n; i++) {
        memcpy(v, variable(m, vr[i]), SIZE[vr[i]] * sizeof(double));
        v += SIZE[vr[i]];
    }
    return fmi3OK;
}

fmi3Status fmi3SetFloat64(fmi3Instance c, const fmi3ValueReference vr[], size_t n,
                          const fmi3Float64 v[], size_t n_values) {
    Model *m = c;
    if (values_of(vr, n) != (long)n_values)
        return illegal(&m->state, "fmi3SetFloat64", "nValues is not the number of elements");
    for (size_t i = 0; i < n; i++) {
        if (vr[i] == VR_A || vr[i] == VR_B || vr[i] == VR_X0)
            ALLOWED(&m->state, INSTANTIATED, "fmi3SetFloat64 (a fixed parameter)");
        else if (vr[i] == VR_U)
            ALLOWED(&m->state, INSTANTIATED | INITIALIZATION | RUNNING, "fmi3SetFloat64 (u)");
        else
            return illegal(&m->state, "fmi3SetFloat64", "not a parameter or an input");
        memcpy(variable(m, vr[i]), v, SIZE[vr[i]] * sizeof(double));
        v += SIZE[vr[i]];
    }
    return fmi3OK;
}

/* -- Model Exchange -------------------------------------------------------------------- */

fmi3Status fmi3UpdateDiscreteStates(fmi3Instance c, fmi3Boolean *update_needed,
                                    fmi3Boolean *terminate, fmi3Boolean *nominals_changed,
                                    fmi3Boolean *states_changed, fmi3Boolean *next_time_defined,
                                    fmi3Float64 *next_time) {
    Model *m = c;
    ALLOWED(&m->state, EVENT, "fmi3UpdateDiscreteStates");
    *update_needed = *terminate = *nominals_changed = *states_changed = fmi3False;
    *next_time_defined = fmi3False;
    *next_time = 0;
    return fmi3OK;
}

fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance c) {
    Model *m = c;
    ALLOWED(&m->state, EVENT, "fmi3EnterContinuousTimeMode");
    m->state = CONTINUOUS;
    return fmi3OK;
}

fmi3Status fmi3CompletedIntegratorStep(fmi3Instance c, fmi3Boolean no_set_state,
                                       fmi3Boolean *enter_event_mode, fmi3Boolean *terminate) {
    Model *m = c;
    ALLOWED(&m->state, CONTINUOUS, "fmi3CompletedIntegratorStep");
    *enter_event_mode = *terminate = fmi3False;
    return fmi3OK;
}

fmi3Status fmi3SetTime(fmi3Instance c, fmi3Float64 time) {
    Model *m = c;
    ALLOWED(&m->state, EVENT | CONTINUOUS, "fmi3SetTime");
    m->time = time;
    return fmi3OK;
}

fmi3Status fmi3SetContinuousStates(fmi3Instance c, const fmi3Float64 x[], size_t n) {
    Model *m = c;
    ALLOWED(&m->state, CONTINUOUS, "fmi3SetContinuousStates");
    if (n != N) return illegal(&m->state, "fmi3SetContinuousStates", "not 3 states");
    memcpy(m->x, x, sizeof m->x);
    return fmi3OK;
}

fmi3Status fmi3GetContinuousStates(fmi3Instance c, fmi3Float64 x[], size_t n) {
    Model *m = c;
    ALLOWED(&m->state, INITIALIZATION | EVENT | CONTINUOUS | TERMINATED,
            "fmi3GetContinuousStates");
    if (n != N) return illegal(&m->state, "fmi3GetContinuousStates", "not 3 states");
    memcpy(x, m->x, sizeof m->x);
    return fmi3OK;
}

fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance c, fmi3Float64 dx[], size_t n) {
    Model *m = c;
    ALLOWED(&m->state, INITIALIZATION | EVENT | CONTINUOUS | TERMINATED,
            "fmi3GetContinuousStateDerivatives");
    if (n != N) return illegal(&m->state, "fmi3GetContinuousStateDerivatives", "not 3 states");
    evaluate(m);
    memcpy(dx, m->dx, sizeof m->dx);
    return fmi3OK;
}

fmi3Status fmi3GetNominalsOfContinuousStates(fmi3Instance c, fmi3Float64 x[], size_t n) {
    for (size_t i = 0; i < n; i++) x[i] = 1.0;
    return fmi3OK;
}

fmi3Status fmi3GetEventIndicators(fmi3Instance c, fmi3Float64 z[], size_t n) {
    return n == 0 ? fmi3OK : fmi3Error;
}

fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance c, size_t *n) {
    *n = 0;
    return fmi3OK;
}

fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance c, size_t *n) {
    *n = N;
    return fmi3OK;
}

/* -- Co-Simulation --------------------------------------------------------------------- */

fmi3Status fmi3EnterStepMode(fmi3Instance c) {
    Model *m = c;
    return illegal(&m->state, "fmi3EnterStepMode", "no event mode was asked for");
}

fmi3Status fmi3DoStep(fmi3Instance c, fmi3Float64 t, fmi3Float64 step, fmi3Boolean no_set_state,
                      fmi3Boolean *event_handling_needed, fmi3Boolean *terminate,
                      fmi3Boolean *early_return, fmi3Float64 *last_successful_time) {
    Model *m = c;
    ALLOWED(&m->state, STEP, "fmi3DoStep");
    int n = (int)ceil(step / 1e-3 - 1e-9);
    double h = step / (n > 0 ? n : 1), k[4][N], x[N];
    for (int s = 0; s < n; s++) {
        for (int stage = 0; stage < 4; stage++) {
            double a = stage == 0 ? 0 : stage == 3 ? h : h / 2;
            for (int i = 0; i < N; i++) x[i] = m->x[i] + (stage ? a * k[stage - 1][i] : 0);
            derivatives(m, x, k[stage]);
        }
        for (int i = 0; i < N; i++)
            m->x[i] += h / 6 * (k[0][i] + 2 * k[1][i] + 2 * k[2][i] + k[3][i]);
    }
    m->time = t + step;
    *event_handling_needed = *terminate = *early_return = fmi3False;
    *last_successful_time = m->time;
    return fmi3OK;
}
