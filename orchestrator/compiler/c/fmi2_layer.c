/* FMI 2.0 Model Exchange and Co-Simulation interface of a murcosim model (model_core.h).
 * Real, Integer (enumerations too) and Boolean variables, each read and set by the functions
 * of its type only; no String variables, whose calls succeed for zero variables.
 */
#include <stdlib.h>
#include <string.h>

#include "fmi2Functions.h"
#include "model_core.h"

#define CORE(c) ((Core*)(c))
#define STATUS(expression) ((fmi2Status)(expression))

typedef struct {
    fmi2CallbackLogger logger;
    fmi2ComponentEnvironment environment;
} Fmi2Logger;

static void log2(void* environment, const char* instance, CoreStatus status, const char* text) {
    Fmi2Logger* logger = (Fmi2Logger*)environment;
    if (logger->logger)
        logger->logger(logger->environment, instance, (fmi2Status)status,
                       status == CORE_WARNING ? "logStatusWarning" : "logStatusError", "%s",
                       text);
}

const char* fmi2GetTypesPlatform(void) { return fmi2TypesPlatform; }

const char* fmi2GetVersion(void) { return fmi2Version; }

fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn, size_t nCategories,
                               const fmi2String categories[]) {
    (void)nCategories;
    (void)categories;
    CORE(c)->logging_on = loggingOn;
    return fmi2OK;
}

fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                              fmi2String fmuResourceLocation,
                              const fmi2CallbackFunctions* functions, fmi2Boolean visible,
                              fmi2Boolean loggingOn) {
    Fmi2Logger* logger;
    Core* m;
    (void)fmuResourceLocation;
    (void)visible;
    if (!functions || !functions->logger) return NULL;
    if (fmuGUID && strcmp(fmuGUID, INSTANTIATION_TOKEN) != 0) {
        functions->logger(functions->componentEnvironment, instanceName, fmi2Error,
                          "logStatusError", "GUID does not match this model");
        return NULL;
    }
    logger = (Fmi2Logger*)malloc(sizeof(Fmi2Logger));
    if (!logger) return NULL;
    logger->logger = functions->logger;
    logger->environment = functions->componentEnvironment;
    m = core_new(instanceName, logger, log2, loggingOn, fmuType == fmi2CoSimulation);
    if (!m) free(logger);
    return m;
}

void fmi2FreeInstance(fmi2Component c) {
    void* logger;
    if (!c) return;
    logger = CORE(c)->environment; /* the destructors of external objects may log */
    core_free(CORE(c));
    free(logger);
}

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined,
                               fmi2Real tolerance, fmi2Real startTime,
                               fmi2Boolean stopTimeDefined, fmi2Real stopTime) {
    (void)toleranceDefined;
    (void)tolerance;
    (void)stopTimeDefined;
    (void)stopTime;
    return STATUS(core_set_time(CORE(c), startTime));
}

fmi2Status fmi2EnterInitializationMode(fmi2Component c) {
    CORE(c)->s.mode = MODE_INITIALIZATION;
    return fmi2OK;
}

fmi2Status fmi2ExitInitializationMode(fmi2Component c) {
    Core* m = CORE(c);
    int moved, defined;
    double next;
    CoreStatus status = core_initialize(m);
    if (status == CORE_OK) status = core_homotopy(m);
    if (status == CORE_OK) status = core_event_update(m, 1, &moved, &defined, &next);
    m->s.mode = m->co_simulation ? MODE_STEP : MODE_EVENT;
    return STATUS(status);
}

fmi2Status fmi2Terminate(fmi2Component c) { return STATUS(core_terminate(CORE(c))); }

fmi2Status fmi2Reset(fmi2Component c) {
    core_reset(CORE(c));
    return fmi2OK;
}

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                       fmi2Real value[]) {
    return STATUS(core_get_typed(CORE(c), vr, nvr, TYPE_REAL, "Real", value));
}

fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                       const fmi2Real value[]) {
    return STATUS(core_set_typed(CORE(c), vr, nvr, TYPE_REAL, "Real", value));
}

/* Room for the doubles of nvr Integer or Boolean values; NULL (logged) without memory. */
static double* doubles(fmi2Component c, size_t nvr) {
    double* buffer = (double*)malloc((nvr ? nvr : 1) * sizeof(double));
    if (!buffer) core_log(CORE(c), CORE_ERROR, "out of memory");
    return buffer;
}

fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          fmi2Integer value[]) {
    const int accepted = TYPE_INTEGER | TYPE_ENUMERATION;
    double* buffer = doubles(c, nvr);
    CoreStatus status = CORE_ERROR;
    size_t i;
    if (buffer) status = core_get_typed(CORE(c), vr, nvr, accepted, "Integer", buffer);
    for (i = 0; status == CORE_OK && i < nvr; i++) value[i] = (fmi2Integer)core_whole(buffer[i]);
    free(buffer);
    return STATUS(status);
}

fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          fmi2Boolean value[]) {
    double* buffer = doubles(c, nvr);
    CoreStatus status = CORE_ERROR;
    size_t i;
    if (buffer) status = core_get_typed(CORE(c), vr, nvr, TYPE_BOOLEAN, "Boolean", buffer);
    for (i = 0; status == CORE_OK && i < nvr; i++)
        value[i] = buffer[i] != 0.0 ? fmi2True : fmi2False;
    free(buffer);
    return STATUS(status);
}

/* String variables the model does not have: only calls for no variables succeed. */
static fmi2Status no_variables(fmi2Component c, size_t nvr) {
    if (!nvr) return fmi2OK;
    core_log(CORE(c), CORE_ERROR, "the model has no String variables");
    return fmi2Error;
}

fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                         fmi2String value[]) {
    (void)vr;
    (void)value;
    return no_variables(c, nvr);
}

fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          const fmi2Integer value[]) {
    const int accepted = TYPE_INTEGER | TYPE_ENUMERATION;
    double* buffer = doubles(c, nvr);
    CoreStatus status = CORE_ERROR;
    size_t i;
    if (!buffer) return fmi2Error;
    for (i = 0; i < nvr; i++) buffer[i] = (double)value[i];
    status = core_set_typed(CORE(c), vr, nvr, accepted, "Integer", buffer);
    free(buffer);
    return STATUS(status);
}

fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          const fmi2Boolean value[]) {
    double* buffer = doubles(c, nvr);
    CoreStatus status = CORE_ERROR;
    size_t i;
    if (!buffer) return fmi2Error;
    for (i = 0; i < nvr; i++) buffer[i] = value[i] ? 1.0 : 0.0;
    status = core_set_typed(CORE(c), vr, nvr, TYPE_BOOLEAN, "Boolean", buffer);
    free(buffer);
    return STATUS(status);
}

fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                         const fmi2String value[]) {
    (void)vr;
    (void)value;
    return no_variables(c, nvr);
}

fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate* FMUstate) {
    CoreSnapshot* state = core_save(CORE(c));
    if (!state) return fmi2Error;
    if (*FMUstate) free(*FMUstate);
    *FMUstate = state;
    return fmi2OK;
}

fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate FMUstate) {
    return STATUS(core_restore(CORE(c), (const CoreSnapshot*)FMUstate));
}

fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate* FMUstate) {
    (void)c;
    if (FMUstate && *FMUstate) {
        free(*FMUstate);
        *FMUstate = NULL;
    }
    return fmi2OK;
}

fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate FMUstate, size_t* size) {
    (void)c;
    (void)FMUstate;
    *size = core_serialized_size();
    return fmi2OK;
}

fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate FMUstate, fmi2Byte serializedState[],
                                 size_t size) {
    (void)c;
    return STATUS(
        core_serialize((const CoreSnapshot*)FMUstate, (unsigned char*)serializedState, size));
}

fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte serializedState[], size_t size,
                                   fmi2FMUstate* FMUstate) {
    return STATUS(core_deserialize(CORE(c), (const unsigned char*)serializedState, size,
                                   (CoreSnapshot**)FMUstate));
}

fmi2Status fmi2GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference vUnknown_ref[],
                                        size_t nUnknown, const fmi2ValueReference vKnown_ref[],
                                        size_t nKnown, const fmi2Real dvKnown[],
                                        fmi2Real dvUnknown[]) {
    return STATUS(
        core_directional(CORE(c), vUnknown_ref, nUnknown, vKnown_ref, nKnown, dvKnown, dvUnknown));
}

/* Model Exchange */

fmi2Status fmi2EnterEventMode(fmi2Component c) {
    CORE(c)->s.mode = MODE_EVENT;
    return fmi2OK;
}

fmi2Status fmi2NewDiscreteStates(fmi2Component c, fmi2EventInfo* eventInfo) {
    int moved, defined;
    double next;
    CoreStatus status = core_event_update(CORE(c), 0, &moved, &defined, &next);
    eventInfo->newDiscreteStatesNeeded = fmi2False;
    eventInfo->terminateSimulation = fmi2False;
    eventInfo->nominalsOfContinuousStatesChanged = fmi2False;
    eventInfo->valuesOfContinuousStatesChanged = moved ? fmi2True : fmi2False;
    eventInfo->nextEventTimeDefined = defined ? fmi2True : fmi2False;
    eventInfo->nextEventTime = next;
    return STATUS(status);
}

fmi2Status fmi2EnterContinuousTimeMode(fmi2Component c) {
    CORE(c)->s.mode = MODE_CONTINUOUS_TIME;
    return fmi2OK;
}

fmi2Status fmi2CompletedIntegratorStep(fmi2Component c,
                                       fmi2Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi2Boolean* enterEventMode,
                                       fmi2Boolean* terminateSimulation) {
    (void)noSetFMUStatePriorToCurrentPoint;
    *enterEventMode = fmi2False;
    *terminateSimulation = fmi2False;
    return STATUS(core_completed_step(CORE(c)));
}

fmi2Status fmi2SetTime(fmi2Component c, fmi2Real time) {
    return STATUS(core_set_time(CORE(c), time));
}

fmi2Status fmi2SetContinuousStates(fmi2Component c, const fmi2Real x[], size_t nx) {
    return STATUS(core_set_states(CORE(c), x, nx));
}

fmi2Status fmi2GetDerivatives(fmi2Component c, fmi2Real derivatives[], size_t nx) {
    return STATUS(core_get_derivatives(CORE(c), derivatives, nx));
}

fmi2Status fmi2GetEventIndicators(fmi2Component c, fmi2Real eventIndicators[], size_t ni) {
    return STATUS(core_get_event_indicators(CORE(c), eventIndicators, ni));
}

fmi2Status fmi2GetContinuousStates(fmi2Component c, fmi2Real x[], size_t nx) {
    return STATUS(core_get_states(CORE(c), x, nx));
}

fmi2Status fmi2GetNominalsOfContinuousStates(fmi2Component c, fmi2Real x_nominal[], size_t nx) {
    return STATUS(core_get_nominals(CORE(c), x_nominal, nx));
}

/* Co-Simulation */

fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[],
                                       size_t nvr, const fmi2Integer order[],
                                       const fmi2Real value[]) {
    (void)vr;
    (void)order;
    (void)value;
    if (!nvr) return fmi2OK;
    core_log(CORE(c), CORE_ERROR, "input derivatives are not used: inputs are held");
    return fmi2Error;
}

fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[],
                                        size_t nvr, const fmi2Integer order[],
                                        fmi2Real value[]) {
    (void)vr;
    (void)order;
    (void)value;
    if (!nvr) return fmi2OK;
    core_log(CORE(c), CORE_ERROR, "output derivatives are not provided");
    return fmi2Error;
}

fmi2Status fmi2DoStep(fmi2Component c, fmi2Real currentCommunicationPoint,
                      fmi2Real communicationStepSize, fmi2Boolean noSetFMUStatePriorToCurrentPoint) {
    (void)noSetFMUStatePriorToCurrentPoint;
    return STATUS(core_do_step(CORE(c), currentCommunicationPoint, communicationStepSize));
}

fmi2Status fmi2CancelStep(fmi2Component c) {
    core_log(CORE(c), CORE_ERROR, "doStep is synchronous: there is no step to cancel");
    return fmi2Error;
}

/* doStep never returns fmi2Pending, so there is no asynchronous status to report. */
fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind s, fmi2Status* value) {
    (void)s;
    (void)value;
    core_log(CORE(c), CORE_ERROR, "no asynchronous status: doStep is synchronous");
    return fmi2Discard;
}

fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real* value) {
    if (s != fmi2LastSuccessfulTime) return fmi2GetStatus(c, s, NULL);
    *value = CORE(c)->s.v[VR_TIME];
    return fmi2OK;
}

fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind s, fmi2Integer* value) {
    (void)value;
    return fmi2GetStatus(c, s, NULL);
}

fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind s, fmi2Boolean* value) {
    (void)value;
    return fmi2GetStatus(c, s, NULL);
}

fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind s, fmi2String* value) {
    (void)value;
    return fmi2GetStatus(c, s, NULL);
}
