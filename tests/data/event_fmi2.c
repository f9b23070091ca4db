/* A test model with events (MODEL, a header such as "bouncing_ball.h", given to the compiler)
 * as an FMI 2.0 FMU with Model Exchange and Co-Simulation in one binary. In Model Exchange the
 * importer handles the events (event mode, fmi2NewDiscreteStates); in Co-Simulation fmi2DoStep
 * handles them itself, and returns fmi2Discard where the model asks to end the run
 * (fmi2GetBooleanStatus(fmi2Terminated) is then true, fmi2GetRealStatus(fmi2LastSuccessfulTime)
 * the time reached). The functions this FMU does not offer are in fmi2_unsupported.c.
 */
#include <stdlib.h>
#include <string.h>

#include "fmi2Functions.h"
#include MODEL

typedef struct {
    Model m;
    fmi2Boolean co_simulation;
} Instance;

/* -- common functions ------------------------------------------------------------------ */

const char *fmi2GetTypesPlatform(void) { return fmi2TypesPlatform; }
const char *fmi2GetVersion(void) { return fmi2Version; }

fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean on, size_t n, const fmi2String c_[]) {
    return fmi2OK;
}

fmi2Component fmi2Instantiate(fmi2String name, fmi2Type type, fmi2String guid,
                              fmi2String resources, const fmi2CallbackFunctions *functions,
                              fmi2Boolean visible, fmi2Boolean logging) {
    Instance *instance = calloc(1, sizeof(Instance));
    instance->co_simulation = type == fmi2CoSimulation;
    defaults(&instance->m);
    return instance;
}

void fmi2FreeInstance(fmi2Component c) { free(c); }

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean has_tolerance, fmi2Real tolerance,
                               fmi2Real start, fmi2Boolean has_stop, fmi2Real stop) {
    ((Instance *)c)->m.time = start;
    return fmi2OK;
}

fmi2Status fmi2EnterInitializationMode(fmi2Component c) {
    begin(&((Instance *)c)->m);
    return fmi2OK;
}

fmi2Status fmi2ExitInitializationMode(fmi2Component c) {
    Instance *instance = c;
    evaluate(&instance->m);
    if (instance->co_simulation) update(&instance->m); /* the initial event iteration */
    return fmi2OK;
}

fmi2Status fmi2Terminate(fmi2Component c) { return fmi2OK; }

fmi2Status fmi2Reset(fmi2Component c) {
    Instance *instance = c;
    memset(&instance->m, 0, sizeof(Model));
    defaults(&instance->m);
    return fmi2OK;
}

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                       fmi2Real value[]) {
    Model *m = &((Instance *)c)->m;
    evaluate(m);
    for (size_t i = 0; i < n; i++) {
        if (vr[i] >= N_VARIABLES) return fmi2Error;
        value[i] = m->r[vr[i]];
    }
    return fmi2OK;
}

fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                       const fmi2Real value[]) {
    Model *m = &((Instance *)c)->m;
    for (size_t i = 0; i < n; i++) {
        if (vr[i] >= N_VARIABLES) return fmi2Error;
        m->r[vr[i]] = value[i];
    }
    return fmi2OK;
}

/* -- Model Exchange -------------------------------------------------------------------- */

fmi2Status fmi2EnterEventMode(fmi2Component c) { return fmi2OK; }

fmi2Status fmi2NewDiscreteStates(fmi2Component c, fmi2EventInfo *info) {
    Model *m = &((Instance *)c)->m;
    info->newDiscreteStatesNeeded = fmi2False;
    info->nominalsOfContinuousStatesChanged = fmi2False;
    info->valuesOfContinuousStatesChanged = update(m) ? fmi2True : fmi2False;
    info->terminateSimulation = m->terminate == TERMINATE_IN_UPDATE ? fmi2True : fmi2False;
    info->nextEventTimeDefined = isfinite(m->next_time) ? fmi2True : fmi2False;
    info->nextEventTime = m->next_time;
    return fmi2OK;
}

fmi2Status fmi2EnterContinuousTimeMode(fmi2Component c) { return fmi2OK; }

fmi2Status fmi2CompletedIntegratorStep(fmi2Component c, fmi2Boolean no_set_state,
                                       fmi2Boolean *enter_event_mode,
                                       fmi2Boolean *terminate) {
    *enter_event_mode = fmi2False;
    *terminate = ((Instance *)c)->m.terminate == TERMINATE_AFTER_STEP ? fmi2True : fmi2False;
    return fmi2OK;
}

fmi2Status fmi2SetTime(fmi2Component c, fmi2Real time) {
    ((Instance *)c)->m.time = time;
    return fmi2OK;
}

fmi2Status fmi2SetContinuousStates(fmi2Component c, const fmi2Real x[], size_t n) {
    if (n != N_STATES) return fmi2Error;
    set_states(&((Instance *)c)->m, x);
    return fmi2OK;
}

fmi2Status fmi2GetContinuousStates(fmi2Component c, fmi2Real x[], size_t n) {
    if (n != N_STATES) return fmi2Error;
    get_states(&((Instance *)c)->m, x);
    return fmi2OK;
}

fmi2Status fmi2GetDerivatives(fmi2Component c, fmi2Real dx[], size_t n) {
    Model *m = &((Instance *)c)->m;
    if (n != N_STATES) return fmi2Error;
    evaluate(m);
    for (int i = 0; i < N_STATES; i++) dx[i] = m->r[DERIVATIVE[i]];
    return fmi2OK;
}

fmi2Status fmi2GetEventIndicators(fmi2Component c, fmi2Real z[], size_t n) {
    if (n != N_INDICATORS) return fmi2Error;
    indicators(&((Instance *)c)->m, z);
    return fmi2OK;
}

fmi2Status fmi2GetNominalsOfContinuousStates(fmi2Component c, fmi2Real x[], size_t n) {
    for (size_t i = 0; i < n; i++) x[i] = 1.0;
    return fmi2OK;
}

/* -- Co-Simulation --------------------------------------------------------------------- */

fmi2Status fmi2DoStep(fmi2Component c, fmi2Real t, fmi2Real step, fmi2Boolean no_set_state) {
    Model *m = &((Instance *)c)->m;
    m->time = t;
    do_step(m, t + step);
    return m->terminate != NO_REQUEST ? fmi2Discard : fmi2OK;
}

fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind kind, fmi2Boolean *value) {
    if (kind != fmi2Terminated) return fmi2Discard;
    *value = ((Instance *)c)->m.terminate != NO_REQUEST ? fmi2True : fmi2False;
    return fmi2OK;
}

fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind kind, fmi2Real *value) {
    if (kind != fmi2LastSuccessfulTime) return fmi2Discard;
    *value = ((Instance *)c)->m.time;
    return fmi2OK;
}
