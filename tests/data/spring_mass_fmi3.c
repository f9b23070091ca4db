/* The spring-mass of spring_mass_model.h as an FMI 3.0 FMU (Model Exchange and Co-Simulation
 * in one binary). Used by the tests as an FMI 3.0 FMU that murcosim did not build. The state
 * can be saved and restored (roll back). Value reference N_VARIABLES is the independent
 * variable time. The functions of the standard this FMU does not offer are in
 * fmi3_unsupported.c.
 */
#include <stdlib.h>
#include <string.h>

#include "fmi3Functions.h"
#include "spring_mass_model.h"

#define TIME N_VARIABLES

typedef fmi3Instance Instance;

const char *fmi3GetVersion(void) { return "3.0"; }

fmi3Status fmi3SetDebugLogging(Instance c, fmi3Boolean on, size_t n, const fmi3String c_[]) {
    return fmi3OK;
}

static Instance instantiate(void) {
    State *s = calloc(1, sizeof(State));
    s->r[M] = 1.0;
    evaluate(s);
    return s;
}

fmi3Instance fmi3InstantiateModelExchange(fmi3String name, fmi3String token, fmi3String resources,
                                          fmi3Boolean visible, fmi3Boolean logging,
                                          fmi3InstanceEnvironment environment,
                                          fmi3LogMessageCallback log) {
    return instantiate();
}

fmi3Instance fmi3InstantiateCoSimulation(fmi3String name, fmi3String token, fmi3String resources,
                                         fmi3Boolean visible, fmi3Boolean logging,
                                         fmi3Boolean event_mode, fmi3Boolean early_return,
                                         const fmi3ValueReference required[], size_t n_required,
                                         fmi3InstanceEnvironment environment,
                                         fmi3LogMessageCallback log,
                                         fmi3IntermediateUpdateCallback update) {
    return instantiate();
}

void fmi3FreeInstance(Instance c) { free(c); }

fmi3Status fmi3EnterInitializationMode(Instance c, fmi3Boolean has_tolerance,
                                       fmi3Float64 tolerance, fmi3Float64 start,
                                       fmi3Boolean has_stop, fmi3Float64 stop) {
    ((State *)c)->time = start;
    return fmi3OK;
}

fmi3Status fmi3ExitInitializationMode(Instance c) {
    evaluate(c);
    return fmi3OK;
}
fmi3Status fmi3EnterEventMode(Instance c) { return fmi3OK; }
fmi3Status fmi3Terminate(Instance c) { return fmi3OK; }
fmi3Status fmi3Reset(Instance c) { return fmi3Error; }

fmi3Status fmi3GetFloat64(Instance c, const fmi3ValueReference vr[], size_t n, fmi3Float64 v[],
                          size_t n_values) {
    State *s = c;
    evaluate(s);
    for (size_t i = 0; i < n; i++) {
        if (vr[i] > TIME) return fmi3Error;
        v[i] = vr[i] == TIME ? s->time : s->r[vr[i]];
    }
    return fmi3OK;
}

fmi3Status fmi3SetFloat64(Instance c, const fmi3ValueReference vr[], size_t n,
                          const fmi3Float64 v[], size_t n_values) {
    State *s = c;
    for (size_t i = 0; i < n; i++) {
        if (vr[i] >= N_VARIABLES) return fmi3Error;
        s->r[vr[i]] = v[i];
    }
    return fmi3OK;
}

fmi3Status fmi3GetFMUState(Instance c, fmi3FMUState *state) {
    if (*state == NULL) *state = malloc(sizeof(State));
    memcpy(*state, c, sizeof(State));
    return fmi3OK;
}
fmi3Status fmi3SetFMUState(Instance c, fmi3FMUState state) {
    memcpy(c, state, sizeof(State));
    return fmi3OK;
}
fmi3Status fmi3FreeFMUState(Instance c, fmi3FMUState *state) {
    free(*state);
    *state = NULL;
    return fmi3OK;
}

/* -- Model Exchange -------------------------------------------------------------------- */

fmi3Status fmi3UpdateDiscreteStates(Instance c, fmi3Boolean *update, fmi3Boolean *terminate,
                                    fmi3Boolean *nominals_changed, fmi3Boolean *states_changed,
                                    fmi3Boolean *next_time_defined, fmi3Float64 *next_time) {
    *update = *terminate = *nominals_changed = *states_changed = *next_time_defined = fmi3False;
    return fmi3OK;
}
fmi3Status fmi3EnterContinuousTimeMode(Instance c) { return fmi3OK; }
fmi3Status fmi3CompletedIntegratorStep(Instance c, fmi3Boolean no_set_state,
                                       fmi3Boolean *enter_event_mode, fmi3Boolean *terminate) {
    *enter_event_mode = *terminate = fmi3False;
    return fmi3OK;
}
fmi3Status fmi3SetTime(Instance c, fmi3Float64 time) {
    ((State *)c)->time = time;
    return fmi3OK;
}
fmi3Status fmi3SetContinuousStates(Instance c, const fmi3Float64 x[], size_t n) {
    State *s = c;
    s->r[X] = x[0];
    s->r[V] = x[1];
    return fmi3OK;
}
fmi3Status fmi3GetContinuousStateDerivatives(Instance c, fmi3Float64 dx[], size_t n) {
    State *s = c;
    evaluate(s);
    dx[0] = s->r[DER_X];
    dx[1] = s->r[DER_V];
    return fmi3OK;
}
fmi3Status fmi3GetContinuousStates(Instance c, fmi3Float64 x[], size_t n) {
    State *s = c;
    x[0] = s->r[X];
    x[1] = s->r[V];
    return fmi3OK;
}
fmi3Status fmi3GetNominalsOfContinuousStates(Instance c, fmi3Float64 x[], size_t n) {
    x[0] = x[1] = 1.0;
    return fmi3OK;
}
fmi3Status fmi3GetEventIndicators(Instance c, fmi3Float64 z[], size_t n) { return fmi3OK; }
fmi3Status fmi3GetNumberOfEventIndicators(Instance c, size_t *n) {
    *n = 0;
    return fmi3OK;
}
fmi3Status fmi3GetNumberOfContinuousStates(Instance c, size_t *n) {
    *n = 2;
    return fmi3OK;
}

/* -- Co-Simulation --------------------------------------------------------------------- */

fmi3Status fmi3EnterStepMode(Instance c) { return fmi3OK; }

fmi3Status fmi3DoStep(Instance c, fmi3Float64 t, fmi3Float64 step, fmi3Boolean no_set_state,
                      fmi3Boolean *event_handling_needed, fmi3Boolean *terminate,
                      fmi3Boolean *early_return, fmi3Float64 *last_successful_time) {
    integrate(c, t, step);
    *event_handling_needed = *terminate = *early_return = fmi3False;
    *last_successful_time = t + step;
    return fmi3OK;
}
