/* Fault injection around one FMI function of the spring-mass test FMUs.
 *
 * Compiled next to spring_mass.c (FMI 2.0) or spring_mass_fmi3.c (FMI 3.0), which are built
 * with -D<function>=healthy_<function> so that the FMU exports this file's <function> instead.
 * Chosen at compile time:
 *   -DFMI3                      the FMI 3.0 signatures (else FMI 2.0)
 *   -DFAULT_<function>          the function that fails, e.g. -DFAULT_fmi2GetDerivatives
 *   -DFAULT_KIND=<k>            SEGV, ABORT, EXIT, HANG, ERROR (status Error) or NAN_VALUES (NaN in
 *                               every Float64 the call returns; a state derivative or output)
 *   -DFAULT_AFTER=<n>           calls that succeed before the fault (0: the first call fails)
 *   -DFAULT_ABOVE=<value>       derivative calls only: fail only while the first derivative
 *                               (the speed v, m/s) exceeds <value>
 */
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

enum { SEGV = 1, ABORT, EXIT, HANG, ERROR, NAN_VALUES };

#ifdef FMI3
#include "fmi3Functions.h"
typedef fmi3Status Status;
typedef fmi3Instance Instance;
#define STATUS_ERROR fmi3Error
#else
#include "fmi2Functions.h"
typedef fmi2Status Status;
typedef fmi2Component Instance;
#define STATUS_ERROR fmi2Error
#endif

static long calls = 0;

/* The fault, when this call is the one; 1 if the call must return an error. */
static int fault_now(void) {
    if (calls++ < FAULT_AFTER) return 0;
    switch (FAULT_KIND) {
        case SEGV: raise(SIGSEGV); break;
        case ABORT: abort();
        case EXIT: exit(3);
        case HANG: for (;;) sleep(1);
        case ERROR: return 1;
    }
    return 0;
}

#ifdef FAULT_ABOVE
#define TRIGGERED(derivatives) ((derivatives)[0] > FAULT_ABOVE)
#else
#define TRIGGERED(derivatives) 1
#endif

/* NaN in every value a failing call returns. */
static void fill_nan(double *values, size_t n) {
    if (FAULT_KIND == NAN_VALUES && calls > FAULT_AFTER)
        for (size_t i = 0; i < n; i++) values[i] = nan("");
}

#ifndef FMI3
#ifdef FAULT_fmi2GetDerivatives
Status healthy_fmi2GetDerivatives(Instance c, fmi2Real dx[], size_t n);
Status fmi2GetDerivatives(Instance c, fmi2Real dx[], size_t n) {
    Status status = healthy_fmi2GetDerivatives(c, dx, n);
    if (TRIGGERED(dx) && fault_now()) return STATUS_ERROR;
    fill_nan(dx, n);
    return status;
}
#endif
#ifdef FAULT_fmi2GetReal
Status healthy_fmi2GetReal(Instance c, const fmi2ValueReference vr[], size_t n, fmi2Real v[]);
Status fmi2GetReal(Instance c, const fmi2ValueReference vr[], size_t n, fmi2Real v[]) {
    if (fault_now()) return STATUS_ERROR;
    Status status = healthy_fmi2GetReal(c, vr, n, v);
    fill_nan(v, n);
    return status;
}
#endif
#ifdef FAULT_fmi2SetReal
Status healthy_fmi2SetReal(Instance c, const fmi2ValueReference vr[], size_t n,
                           const fmi2Real v[]);
Status fmi2SetReal(Instance c, const fmi2ValueReference vr[], size_t n, const fmi2Real v[]) {
    if (fault_now()) return STATUS_ERROR;
    return healthy_fmi2SetReal(c, vr, n, v);
}
#endif
#ifdef FAULT_fmi2SetContinuousStates
Status healthy_fmi2SetContinuousStates(Instance c, const fmi2Real x[], size_t n);
Status fmi2SetContinuousStates(Instance c, const fmi2Real x[], size_t n) {
    if (fault_now()) return STATUS_ERROR;
    return healthy_fmi2SetContinuousStates(c, x, n);
}
#endif
#ifdef FAULT_fmi2SetTime
Status healthy_fmi2SetTime(Instance c, fmi2Real time);
Status fmi2SetTime(Instance c, fmi2Real time) {
    if (fault_now()) return STATUS_ERROR;
    return healthy_fmi2SetTime(c, time);
}
#endif
#ifdef FAULT_fmi2CompletedIntegratorStep
Status healthy_fmi2CompletedIntegratorStep(Instance c, fmi2Boolean no_set, fmi2Boolean *event,
                                           fmi2Boolean *terminate);
Status fmi2CompletedIntegratorStep(Instance c, fmi2Boolean no_set, fmi2Boolean *event,
                                   fmi2Boolean *terminate) {
    if (fault_now()) return STATUS_ERROR;
    return healthy_fmi2CompletedIntegratorStep(c, no_set, event, terminate);
}
#endif
#ifdef FAULT_fmi2ExitInitializationMode
Status healthy_fmi2ExitInitializationMode(Instance c);
Status fmi2ExitInitializationMode(Instance c) {
    if (fault_now()) return STATUS_ERROR;
    return healthy_fmi2ExitInitializationMode(c);
}
#endif
#ifdef FAULT_fmi2DoStep
Status healthy_fmi2DoStep(Instance c, fmi2Real t, fmi2Real step, fmi2Boolean no_set);
Status fmi2DoStep(Instance c, fmi2Real t, fmi2Real step, fmi2Boolean no_set) {
    if (fault_now()) return STATUS_ERROR;
    return healthy_fmi2DoStep(c, t, step, no_set);
}
#endif
#else
#ifdef FAULT_fmi3GetContinuousStateDerivatives
Status healthy_fmi3GetContinuousStateDerivatives(Instance c, fmi3Float64 dx[], size_t n);
Status fmi3GetContinuousStateDerivatives(Instance c, fmi3Float64 dx[], size_t n) {
    Status status = healthy_fmi3GetContinuousStateDerivatives(c, dx, n);
    if (TRIGGERED(dx) && fault_now()) return STATUS_ERROR;
    fill_nan(dx, n);
    return status;
}
#endif
#ifdef FAULT_fmi3GetFloat64
Status healthy_fmi3GetFloat64(Instance c, const fmi3ValueReference vr[], size_t n,
                              fmi3Float64 v[], size_t nv);
Status fmi3GetFloat64(Instance c, const fmi3ValueReference vr[], size_t n, fmi3Float64 v[],
                      size_t nv) {
    if (fault_now()) return STATUS_ERROR;
    Status status = healthy_fmi3GetFloat64(c, vr, n, v, nv);
    fill_nan(v, nv);
    return status;
}
#endif
#ifdef FAULT_fmi3SetFloat64
Status healthy_fmi3SetFloat64(Instance c, const fmi3ValueReference vr[], size_t n,
                              const fmi3Float64 v[], size_t nv);
Status fmi3SetFloat64(Instance c, const fmi3ValueReference vr[], size_t n, const fmi3Float64 v[],
                      size_t nv) {
    if (fault_now()) return STATUS_ERROR;
    return healthy_fmi3SetFloat64(c, vr, n, v, nv);
}
#endif
#ifdef FAULT_fmi3SetContinuousStates
Status healthy_fmi3SetContinuousStates(Instance c, const fmi3Float64 x[], size_t n);
Status fmi3SetContinuousStates(Instance c, const fmi3Float64 x[], size_t n) {
    if (fault_now()) return STATUS_ERROR;
    return healthy_fmi3SetContinuousStates(c, x, n);
}
#endif
#ifdef FAULT_fmi3SetTime
Status healthy_fmi3SetTime(Instance c, fmi3Float64 time);
Status fmi3SetTime(Instance c, fmi3Float64 time) {
    if (fault_now()) return STATUS_ERROR;
    return healthy_fmi3SetTime(c, time);
}
#endif
#ifdef FAULT_fmi3CompletedIntegratorStep
Status healthy_fmi3CompletedIntegratorStep(Instance c, fmi3Boolean no_set, fmi3Boolean *event,
                                           fmi3Boolean *terminate);
Status fmi3CompletedIntegratorStep(Instance c, fmi3Boolean no_set, fmi3Boolean *event,
                                   fmi3Boolean *terminate) {
    if (fault_now()) return STATUS_ERROR;
    return healthy_fmi3CompletedIntegratorStep(c, no_set, event, terminate);
}
#endif
#ifdef FAULT_fmi3ExitInitializationMode
Status healthy_fmi3ExitInitializationMode(Instance c);
Status fmi3ExitInitializationMode(Instance c) {
    if (fault_now()) return STATUS_ERROR;
    return healthy_fmi3ExitInitializationMode(c);
}
#endif
#ifdef FAULT_fmi3DoStep
Status healthy_fmi3DoStep(Instance c, fmi3Float64 t, fmi3Float64 step, fmi3Boolean no_set,
                          fmi3Boolean *event, fmi3Boolean *terminate, fmi3Boolean *early,
                          fmi3Float64 *last);
Status fmi3DoStep(Instance c, fmi3Float64 t, fmi3Float64 step, fmi3Boolean no_set,
                  fmi3Boolean *event, fmi3Boolean *terminate, fmi3Boolean *early,
                  fmi3Float64 *last) {
    if (fault_now()) return STATUS_ERROR;
    return healthy_fmi3DoStep(c, t, step, no_set, event, terminate, early, last);
}
#endif
#endif
