/* A test model with events (MODEL, a header such as "bouncing_ball.h", given to the compiler)
 * as an FMI 3.0 FMU with Model Exchange and Co-Simulation in one binary. In Model Exchange the
 * importer handles the events (event mode, fmi3UpdateDiscreteStates); in Co-Simulation
 * fmi3DoStep handles them itself (it has no event mode and never returns early; a step stopped
 * where the model asks to end the run reports terminateSimulation and the time it reached).
 * Value reference N_VARIABLES is the independent variable time. The functions this FMU does not
 * offer are in fmi3_unsupported.c, besides the FMU state (no roll back), here.
 */
#include <stdlib.h>
#include <string.h>

#include "fmi3Functions.h"
#include MODEL

#define TIME N_VARIABLES

typedef struct {
    Model m;
    fmi3Boolean co_simulation;
} Instance;

fmi3Status fmi3GetFMUState(fmi3Instance c, fmi3FMUState *state) { return fmi3Error; }
fmi3Status fmi3SetFMUState(fmi3Instance c, fmi3FMUState state) { return fmi3Error; }
fmi3Status fmi3FreeFMUState(fmi3Instance c, fmi3FMUState *state) { return fmi3Error; }

const char *fmi3GetVersion(void) { return "3.0"; }

fmi3Status fmi3SetDebugLogging(fmi3Instance c, fmi3Boolean on, size_t n,
                               const fmi3String c_[]) {
    return fmi3OK;
}

static fmi3Instance instantiate(fmi3Boolean co_simulation) {
    Instance *instance = calloc(1, sizeof(Instance));
    instance->co_simulation = co_simulation;
    defaults(&instance->m);
    return instance;
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
    Model *m = &((Instance *)c)->m;
    m->time = start;
    begin(m);
    return fmi3OK;
}

fmi3Status fmi3ExitInitializationMode(fmi3Instance c) {
    Instance *instance = c;
    evaluate(&instance->m);
    if (instance->co_simulation) update(&instance->m); /* the initial event iteration */
    return fmi3OK;
}

fmi3Status fmi3EnterEventMode(fmi3Instance c) { return fmi3OK; }
fmi3Status fmi3Terminate(fmi3Instance c) { return fmi3OK; }

fmi3Status fmi3Reset(fmi3Instance c) {
    Instance *instance = c;
    memset(&instance->m, 0, sizeof(Model));
    defaults(&instance->m);
    return fmi3OK;
}

fmi3Status fmi3GetFloat64(fmi3Instance c, const fmi3ValueReference vr[], size_t n,
                          fmi3Float64 v[], size_t n_values) {
    Model *m = &((Instance *)c)->m;
    evaluate(m);
    for (size_t i = 0; i < n; i++) {
        if (vr[i] > TIME) return fmi3Error;
        v[i] = vr[i] == TIME ? m->time : m->r[vr[i]];
    }
    return fmi3OK;
}

fmi3Status fmi3SetFloat64(fmi3Instance c, const fmi3ValueReference vr[], size_t n,
                          const fmi3Float64 v[], size_t n_values) {
    Model *m = &((Instance *)c)->m;
    for (size_t i = 0; i < n; i++) {
        if (vr[i] >= N_VARIABLES) return fmi3Error;
        m->r[vr[i]] = v[i];
    }
    return fmi3OK;
}

/* -- Model Exchange -------------------------------------------------------------------- */

fmi3Status fmi3UpdateDiscreteStates(fmi3Instance c, fmi3Boolean *update_needed,
                                    fmi3Boolean *terminate, fmi3Boolean *nominals_changed,
                                    fmi3Boolean *states_changed, fmi3Boolean *next_time_defined,
                                    fmi3Float64 *next_time) {
    Model *m = &((Instance *)c)->m;
    *update_needed = *nominals_changed = fmi3False;
    *states_changed = update(m) ? fmi3True : fmi3False;
    *terminate = m->terminate == TERMINATE_IN_UPDATE ? fmi3True : fmi3False;
    *next_time_defined = isfinite(m->next_time) ? fmi3True : fmi3False;
    *next_time = m->next_time;
    return fmi3OK;
}

fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance c) { return fmi3OK; }

fmi3Status fmi3CompletedIntegratorStep(fmi3Instance c, fmi3Boolean no_set_state,
                                       fmi3Boolean *enter_event_mode, fmi3Boolean *terminate) {
    *enter_event_mode = fmi3False;
    *terminate = ((Instance *)c)->m.terminate == TERMINATE_AFTER_STEP ? fmi3True : fmi3False;
    return fmi3OK;
}

fmi3Status fmi3SetTime(fmi3Instance c, fmi3Float64 time) {
    ((Instance *)c)->m.time = time;
    return fmi3OK;
}

fmi3Status fmi3SetContinuousStates(fmi3Instance c, const fmi3Float64 x[], size_t n) {
    if (n != N_STATES) return fmi3Error;
    set_states(&((Instance *)c)->m, x);
    return fmi3OK;
}

fmi3Status fmi3GetContinuousStates(fmi3Instance c, fmi3Float64 x[], size_t n) {
    if (n != N_STATES) return fmi3Error;
    get_states(&((Instance *)c)->m, x);
    return fmi3OK;
}

fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance c, fmi3Float64 dx[], size_t n) {
    Model *m = &((Instance *)c)->m;
    if (n != N_STATES) return fmi3Error;
    evaluate(m);
    for (int i = 0; i < N_STATES; i++) dx[i] = m->r[DERIVATIVE[i]];
    return fmi3OK;
}

fmi3Status fmi3GetNominalsOfContinuousStates(fmi3Instance c, fmi3Float64 x[], size_t n) {
    for (size_t i = 0; i < n; i++) x[i] = 1.0;
    return fmi3OK;
}

fmi3Status fmi3GetEventIndicators(fmi3Instance c, fmi3Float64 z[], size_t n) {
    if (n != N_INDICATORS) return fmi3Error;
    indicators(&((Instance *)c)->m, z);
    return fmi3OK;
}

fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance c, size_t *n) {
    *n = N_INDICATORS;
    return fmi3OK;
}

fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance c, size_t *n) {
    *n = N_STATES;
    return fmi3OK;
}

/* -- Co-Simulation --------------------------------------------------------------------- */

fmi3Status fmi3EnterStepMode(fmi3Instance c) { return fmi3OK; }

fmi3Status fmi3DoStep(fmi3Instance c, fmi3Float64 t, fmi3Float64 step, fmi3Boolean no_set_state,
                      fmi3Boolean *event_handling_needed, fmi3Boolean *terminate,
                      fmi3Boolean *early_return, fmi3Float64 *last_successful_time) {
    Model *m = &((Instance *)c)->m;
    m->time = t;
    do_step(m, t + step);
    *event_handling_needed = *early_return = fmi3False;
    *terminate = m->terminate != NO_REQUEST ? fmi3True : fmi3False;
    *last_successful_time = m->time;
    return fmi3OK;
}
