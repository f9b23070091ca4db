/* The spring-mass of spring_mass_model.h as an FMI 2.0 FMU (Model Exchange and Co-Simulation
 * in one binary). Used by the tests as an FMU that murcosim did not build. The state can be
 * saved and restored (roll back).
 */
#include <stdlib.h>
#include <string.h>

#include "fmi2Functions.h"
#include "spring_mass_model.h"

typedef struct {
    State s;
    fmi2Boolean co_simulation;
} Model;

/* -- common functions ------------------------------------------------------------------ */

const char *fmi2GetTypesPlatform(void) { return fmi2TypesPlatform; }
const char *fmi2GetVersion(void) { return fmi2Version; }

fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean on, size_t n, const fmi2String c_[]) {
    return fmi2OK;
}

fmi2Component fmi2Instantiate(fmi2String name, fmi2Type type, fmi2String guid,
                              fmi2String resources, const fmi2CallbackFunctions *functions,
                              fmi2Boolean visible, fmi2Boolean logging) {
    Model *model = calloc(1, sizeof(Model));
    model->s.r[M] = 1.0;
    model->co_simulation = type == fmi2CoSimulation;
    evaluate(&model->s);
    return model;
}

void fmi2FreeInstance(fmi2Component c) { free(c); }

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean has_tolerance, fmi2Real tolerance,
                               fmi2Real start, fmi2Boolean has_stop, fmi2Real stop) {
    ((Model *)c)->s.time = start;
    return fmi2OK;
}

fmi2Status fmi2EnterInitializationMode(fmi2Component c) { return fmi2OK; }
fmi2Status fmi2ExitInitializationMode(fmi2Component c) {
    evaluate(&((Model *)c)->s);
    return fmi2OK;
}
fmi2Status fmi2Terminate(fmi2Component c) { return fmi2OK; }
fmi2Status fmi2Reset(fmi2Component c) { return fmi2Error; }

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                       fmi2Real value[]) {
    Model *model = c;
    evaluate(&model->s);
    for (size_t i = 0; i < n; i++) {
        if (vr[i] >= N_VARIABLES) return fmi2Error;
        value[i] = model->s.r[vr[i]];
    }
    return fmi2OK;
}

fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                       const fmi2Real value[]) {
    Model *model = c;
    for (size_t i = 0; i < n; i++) {
        if (vr[i] >= N_VARIABLES) return fmi2Error;
        model->s.r[vr[i]] = value[i];
    }
    return fmi2OK;
}

fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                          fmi2Integer v[]) {
    return n ? fmi2Error : fmi2OK;
}
fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                          fmi2Boolean v[]) {
    return n ? fmi2Error : fmi2OK;
}
fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                         fmi2String v[]) {
    return n ? fmi2Error : fmi2OK;
}
fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                          const fmi2Integer v[]) {
    return n ? fmi2Error : fmi2OK;
}
fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                          const fmi2Boolean v[]) {
    return n ? fmi2Error : fmi2OK;
}
fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                         const fmi2String v[]) {
    return n ? fmi2Error : fmi2OK;
}

fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *state) {
    if (*state == NULL) *state = malloc(sizeof(State));
    memcpy(*state, &((Model *)c)->s, sizeof(State));
    return fmi2OK;
}
fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate state) {
    memcpy(&((Model *)c)->s, state, sizeof(State));
    return fmi2OK;
}
fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *state) {
    free(*state);
    *state = NULL;
    return fmi2OK;
}
fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate s, size_t *size) {
    return fmi2Error;
}
fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate s, fmi2Byte b[], size_t n) {
    return fmi2Error;
}
fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte b[], size_t n,
                                   fmi2FMUstate *s) {
    return fmi2Error;
}
fmi2Status fmi2GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference u[], size_t nu,
                                        const fmi2ValueReference z[], size_t nz,
                                        const fmi2Real dv[], fmi2Real dz[]) {
    return fmi2Error;
}

/* -- Model Exchange -------------------------------------------------------------------- */

fmi2Status fmi2EnterEventMode(fmi2Component c) { return fmi2OK; }
fmi2Status fmi2NewDiscreteStates(fmi2Component c, fmi2EventInfo *info) {
    memset(info, 0, sizeof(*info));
    return fmi2OK;
}
fmi2Status fmi2EnterContinuousTimeMode(fmi2Component c) { return fmi2OK; }
fmi2Status fmi2CompletedIntegratorStep(fmi2Component c, fmi2Boolean no_set_state,
                                       fmi2Boolean *enter_event_mode,
                                       fmi2Boolean *terminate) {
    *enter_event_mode = fmi2False;
    *terminate = fmi2False;
    return fmi2OK;
}
fmi2Status fmi2SetTime(fmi2Component c, fmi2Real time) {
    ((Model *)c)->s.time = time;
    return fmi2OK;
}
fmi2Status fmi2SetContinuousStates(fmi2Component c, const fmi2Real x[], size_t n) {
    Model *model = c;
    model->s.r[X] = x[0];
    model->s.r[V] = x[1];
    return fmi2OK;
}
fmi2Status fmi2GetDerivatives(fmi2Component c, fmi2Real dx[], size_t n) {
    Model *model = c;
    evaluate(&model->s);
    dx[0] = model->s.r[DER_X];
    dx[1] = model->s.r[DER_V];
    return fmi2OK;
}
fmi2Status fmi2GetEventIndicators(fmi2Component c, fmi2Real z[], size_t n) { return fmi2OK; }
fmi2Status fmi2GetContinuousStates(fmi2Component c, fmi2Real x[], size_t n) {
    Model *model = c;
    x[0] = model->s.r[X];
    x[1] = model->s.r[V];
    return fmi2OK;
}
fmi2Status fmi2GetNominalsOfContinuousStates(fmi2Component c, fmi2Real x[], size_t n) {
    x[0] = x[1] = 1.0;
    return fmi2OK;
}

/* -- Co-Simulation --------------------------------------------------------------------- */

fmi2Status fmi2DoStep(fmi2Component c, fmi2Real t, fmi2Real step, fmi2Boolean no_set_state) {
    integrate(&((Model *)c)->s, t, step);
    return fmi2OK;
}

fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                                       const fmi2Integer order[], const fmi2Real value[]) {
    return fmi2Error;
}
fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                                        const fmi2Integer order[], fmi2Real value[]) {
    return fmi2Error;
}
fmi2Status fmi2CancelStep(fmi2Component c) { return fmi2Error; }
fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind s, fmi2Status *value) {
    return fmi2Error;
}
fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real *value) {
    return fmi2Error;
}
fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind s, fmi2Integer *value) {
    return fmi2Error;
}
fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind s, fmi2Boolean *value) {
    return fmi2Error;
}
fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind s, fmi2String *value) {
    return fmi2Error;
}
