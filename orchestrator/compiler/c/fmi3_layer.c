/* FMI 3.0 Model Exchange and Co-Simulation interface of a murcosim model (model_core.h).
 * Float64, Int32, Boolean and enumeration (read and set as Int64, FMI 3.0 Sec. 2.2.6.2)
 * variables, each by the functions of its type only; calls for other types succeed for zero
 * variables.
 */
#include <stdlib.h>
#include <string.h>

#include "fmi3Functions.h"
#include "model_core.h"

#define CORE(instance) ((Core*)(instance))
#define STATUS(expression) ((fmi3Status)(expression))

typedef struct {
    fmi3InstanceEnvironment environment;
    fmi3LogMessageCallback log_message;
} Fmi3Logger;

static void log3(void* environment, const char* instance, CoreStatus status, const char* text) {
    Fmi3Logger* logger = (Fmi3Logger*)environment;
    (void)instance;
    if (logger->log_message)
        logger->log_message(logger->environment, (fmi3Status)status,
                            status == CORE_WARNING ? "logStatusWarning" : "logStatusError", text);
}

static fmi3Instance instantiate(fmi3String name, fmi3String token, fmi3Boolean logging_on,
                                fmi3InstanceEnvironment environment,
                                fmi3LogMessageCallback log_message, int co_simulation) {
    Core* m;
    Fmi3Logger* logger;
    if (token && strcmp(token, INSTANTIATION_TOKEN) != 0) {
        if (log_message)
            log_message(environment, fmi3Error, "logStatusError",
                        "instantiation token does not match this model");
        return NULL;
    }
    logger = (Fmi3Logger*)malloc(sizeof(Fmi3Logger));
    if (!logger) return NULL;
    logger->environment = environment;
    logger->log_message = log_message;
    m = core_new(name, logger, log3, logging_on, co_simulation);
    if (!m) free(logger);
    return m;
}

const char* fmi3GetVersion(void) { return fmi3Version; }

fmi3Status fmi3SetDebugLogging(fmi3Instance instance, fmi3Boolean loggingOn, size_t nCategories,
                               const fmi3String categories[]) {
    (void)nCategories;
    (void)categories;
    CORE(instance)->logging_on = loggingOn;
    return fmi3OK;
}

fmi3Instance fmi3InstantiateModelExchange(fmi3String instanceName,
                                          fmi3String instantiationToken,
                                          fmi3String resourcePath, fmi3Boolean visible,
                                          fmi3Boolean loggingOn,
                                          fmi3InstanceEnvironment instanceEnvironment,
                                          fmi3LogMessageCallback logMessage) {
    (void)resourcePath;
    (void)visible;
    return instantiate(instanceName, instantiationToken, loggingOn, instanceEnvironment,
                       logMessage, 0);
}

fmi3Instance fmi3InstantiateCoSimulation(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath,
    fmi3Boolean visible, fmi3Boolean loggingOn, fmi3Boolean eventModeUsed,
    fmi3Boolean earlyReturnAllowed, const fmi3ValueReference requiredIntermediateVariables[],
    size_t nRequiredIntermediateVariables, fmi3InstanceEnvironment instanceEnvironment,
    fmi3LogMessageCallback logMessage, fmi3IntermediateUpdateCallback intermediateUpdate) {
    (void)resourcePath;
    (void)visible;
    (void)eventModeUsed;
    (void)earlyReturnAllowed;
    (void)requiredIntermediateVariables;
    (void)nRequiredIntermediateVariables;
    (void)intermediateUpdate;
    return instantiate(instanceName, instantiationToken, loggingOn, instanceEnvironment,
                       logMessage, 1);
}

fmi3Instance fmi3InstantiateScheduledExecution(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath,
    fmi3Boolean visible, fmi3Boolean loggingOn, fmi3InstanceEnvironment instanceEnvironment,
    fmi3LogMessageCallback logMessage, fmi3ClockUpdateCallback clockUpdate,
    fmi3LockPreemptionCallback lockPreemption, fmi3UnlockPreemptionCallback unlockPreemption) {
    (void)instanceName;
    (void)instantiationToken;
    (void)resourcePath;
    (void)visible;
    (void)loggingOn;
    (void)clockUpdate;
    (void)lockPreemption;
    (void)unlockPreemption;
    if (logMessage)
        logMessage(instanceEnvironment, fmi3Error, "logStatusError",
                   "Scheduled Execution is not provided");
    return NULL;
}

void fmi3FreeInstance(fmi3Instance instance) {
    void* logger;
    if (!instance) return;
    logger = CORE(instance)->environment; /* the destructors of external objects may log */
    core_free(CORE(instance));
    free(logger);
}

fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean toleranceDefined,
                                       fmi3Float64 tolerance, fmi3Float64 startTime,
                                       fmi3Boolean stopTimeDefined, fmi3Float64 stopTime) {
    (void)toleranceDefined;
    (void)tolerance;
    (void)stopTimeDefined;
    (void)stopTime;
    CORE(instance)->s.mode = MODE_INITIALIZATION;
    return STATUS(core_set_time(CORE(instance), startTime));
}

fmi3Status fmi3ExitInitializationMode(fmi3Instance instance) {
    Core* m = CORE(instance);
    int moved, defined;
    double next;
    CoreStatus status = core_initialize(m);
    if (status == CORE_OK) status = core_homotopy(m);
    if (status == CORE_OK) status = core_event_update(m, 1, &moved, &defined, &next);
    m->s.mode = m->co_simulation ? MODE_STEP : MODE_EVENT;
    return STATUS(status);
}

fmi3Status fmi3EnterEventMode(fmi3Instance instance) {
    CORE(instance)->s.mode = MODE_EVENT;
    return fmi3OK;
}

fmi3Status fmi3Terminate(fmi3Instance instance) {
    return STATUS(core_terminate(CORE(instance)));
}

fmi3Status fmi3Reset(fmi3Instance instance) {
    core_reset(CORE(instance));
    return fmi3OK;
}

fmi3Status fmi3GetFloat64(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                          size_t nValueReferences, fmi3Float64 values[], size_t nValues) {
    if (nValues < nValueReferences) return fmi3Error;
    return STATUS(core_get_typed(CORE(instance), valueReferences, nValueReferences, TYPE_REAL,
                                 "Float64", values));
}

fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                          size_t nValueReferences, const fmi3Float64 values[], size_t nValues) {
    if (nValues < nValueReferences) return fmi3Error;
    return STATUS(core_set_typed(CORE(instance), valueReferences, nValueReferences, TYPE_REAL,
                                 "Float64", values));
}

/* Getters and setters of the types the model holds as doubles besides Float64 (model_core.h):
 * `accepted` types, `from` a double to the FMI type and `to` a double from it. */
#define TYPED_GETTER(function, type, accepted, name, from)                                 \
    fmi3Status function(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, \
                        type values[], size_t nValues) {                                  \
        double* buffer = (double*)malloc((nvr ? nvr : 1) * sizeof(double));                \
        CoreStatus status = CORE_ERROR;                                                   \
        size_t i;                                                                         \
        if (nValues < nvr || !buffer) {                                                   \
            free(buffer);                                                                 \
            return fmi3Error;                                                             \
        }                                                                                 \
        status = core_get_typed(CORE(instance), vr, nvr, accepted, name, buffer);         \
        for (i = 0; status == CORE_OK && i < nvr; i++) values[i] = from(buffer[i]);       \
        free(buffer);                                                                     \
        return STATUS(status);                                                            \
    }
#define TYPED_SETTER(function, type, accepted, name, to)                                  \
    fmi3Status function(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, \
                        const type values[], size_t nValues) {                            \
        double* buffer = (double*)malloc((nvr ? nvr : 1) * sizeof(double));                \
        CoreStatus status = CORE_ERROR;                                                   \
        size_t i;                                                                         \
        if (nValues < nvr || !buffer) {                                                   \
            free(buffer);                                                                 \
            return fmi3Error;                                                             \
        }                                                                                 \
        for (i = 0; i < nvr; i++) buffer[i] = to(values[i]);                              \
        status = core_set_typed(CORE(instance), vr, nvr, accepted, name, buffer);         \
        free(buffer);                                                                     \
        return STATUS(status);                                                            \
    }
#define WHOLE_INT32(value) ((fmi3Int32)core_whole(value))
#define WHOLE_INT64(value) ((fmi3Int64)core_whole(value))
#define TRUTH(value) ((value) != 0.0 ? fmi3True : fmi3False)
#define NUMBER(value) ((double)(value))
#define ZERO_ONE(value) ((value) ? 1.0 : 0.0)

TYPED_GETTER(fmi3GetInt32, fmi3Int32, TYPE_INTEGER, "Int32", WHOLE_INT32)
TYPED_GETTER(fmi3GetInt64, fmi3Int64, TYPE_ENUMERATION, "Int64 (an enumeration)", WHOLE_INT64)
TYPED_GETTER(fmi3GetBoolean, fmi3Boolean, TYPE_BOOLEAN, "Boolean", TRUTH)
TYPED_SETTER(fmi3SetInt32, fmi3Int32, TYPE_INTEGER, "Int32", NUMBER)
TYPED_SETTER(fmi3SetInt64, fmi3Int64, TYPE_ENUMERATION, "Int64 (an enumeration)", NUMBER)
TYPED_SETTER(fmi3SetBoolean, fmi3Boolean, TYPE_BOOLEAN, "Boolean", ZERO_ONE)

/* Types the model does not have: only calls for no variables succeed. */
#define NO_VARIABLES(instance, n)                                                   \
    do {                                                                            \
        if (n) {                                                                    \
            core_log(CORE(instance), CORE_ERROR, "the model has no variables of this type"); \
            return fmi3Error;                                                       \
        }                                                                           \
        return fmi3OK;                                                              \
    } while (0)

#define ABSENT_GETTER(function, type)                                                     \
    fmi3Status function(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, \
                        type values[], size_t nValues) {                                 \
        (void)vr;                                                                         \
        (void)values;                                                                     \
        (void)nValues;                                                                    \
        NO_VARIABLES(instance, nvr);                                                      \
    }
#define ABSENT_SETTER(function, type)                                                     \
    fmi3Status function(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, \
                        const type values[], size_t nValues) {                           \
        (void)vr;                                                                         \
        (void)values;                                                                     \
        (void)nValues;                                                                    \
        NO_VARIABLES(instance, nvr);                                                      \
    }

ABSENT_GETTER(fmi3GetFloat32, fmi3Float32)
ABSENT_GETTER(fmi3GetInt8, fmi3Int8)
ABSENT_GETTER(fmi3GetUInt8, fmi3UInt8)
ABSENT_GETTER(fmi3GetInt16, fmi3Int16)
ABSENT_GETTER(fmi3GetUInt16, fmi3UInt16)
ABSENT_GETTER(fmi3GetUInt32, fmi3UInt32)
ABSENT_GETTER(fmi3GetUInt64, fmi3UInt64)
ABSENT_GETTER(fmi3GetString, fmi3String)
ABSENT_SETTER(fmi3SetFloat32, fmi3Float32)
ABSENT_SETTER(fmi3SetInt8, fmi3Int8)
ABSENT_SETTER(fmi3SetUInt8, fmi3UInt8)
ABSENT_SETTER(fmi3SetInt16, fmi3Int16)
ABSENT_SETTER(fmi3SetUInt16, fmi3UInt16)
ABSENT_SETTER(fmi3SetUInt32, fmi3UInt32)
ABSENT_SETTER(fmi3SetUInt64, fmi3UInt64)
ABSENT_SETTER(fmi3SetString, fmi3String)

fmi3Status fmi3GetBinary(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                         size_t valueSizes[], fmi3Binary values[], size_t nValues) {
    (void)vr;
    (void)valueSizes;
    (void)values;
    (void)nValues;
    NO_VARIABLES(instance, nvr);
}

fmi3Status fmi3SetBinary(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                         const size_t valueSizes[], const fmi3Binary values[], size_t nValues) {
    (void)vr;
    (void)valueSizes;
    (void)values;
    (void)nValues;
    NO_VARIABLES(instance, nvr);
}

fmi3Status fmi3GetClock(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                        fmi3Clock values[]) {
    (void)vr;
    (void)values;
    NO_VARIABLES(instance, nvr);
}

fmi3Status fmi3SetClock(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                        const fmi3Clock values[]) {
    (void)vr;
    (void)values;
    NO_VARIABLES(instance, nvr);
}

fmi3Status fmi3GetNumberOfVariableDependencies(fmi3Instance instance,
                                               fmi3ValueReference valueReference,
                                               size_t* nDependencies) {
    (void)valueReference;
    (void)nDependencies;
    core_log(CORE(instance), CORE_ERROR, "variable dependencies are in modelDescription.xml");
    return fmi3Error;
}

fmi3Status fmi3GetVariableDependencies(fmi3Instance instance, fmi3ValueReference dependent,
                                       size_t elementIndicesOfDependent[],
                                       fmi3ValueReference independents[],
                                       size_t elementIndicesOfIndependents[],
                                       fmi3DependencyKind dependencyKinds[],
                                       size_t nDependencies) {
    (void)dependent;
    (void)elementIndicesOfDependent;
    (void)independents;
    (void)elementIndicesOfIndependents;
    (void)dependencyKinds;
    (void)nDependencies;
    core_log(CORE(instance), CORE_ERROR, "variable dependencies are in modelDescription.xml");
    return fmi3Error;
}

fmi3Status fmi3GetFMUState(fmi3Instance instance, fmi3FMUState* FMUState) {
    CoreSnapshot* state = core_save(CORE(instance));
    if (!state) return fmi3Error;
    if (*FMUState) free(*FMUState);
    *FMUState = state;
    return fmi3OK;
}

fmi3Status fmi3SetFMUState(fmi3Instance instance, fmi3FMUState FMUState) {
    return STATUS(core_restore(CORE(instance), (const CoreSnapshot*)FMUState));
}

fmi3Status fmi3FreeFMUState(fmi3Instance instance, fmi3FMUState* FMUState) {
    (void)instance;
    if (FMUState && *FMUState) {
        free(*FMUState);
        *FMUState = NULL;
    }
    return fmi3OK;
}

fmi3Status fmi3SerializedFMUStateSize(fmi3Instance instance, fmi3FMUState FMUState,
                                      size_t* size) {
    (void)instance;
    (void)FMUState;
    *size = core_serialized_size();
    return fmi3OK;
}

fmi3Status fmi3SerializeFMUState(fmi3Instance instance, fmi3FMUState FMUState,
                                 fmi3Byte serializedState[], size_t size) {
    (void)instance;
    return STATUS(core_serialize((const CoreSnapshot*)FMUState, serializedState, size));
}

fmi3Status fmi3DeserializeFMUState(fmi3Instance instance, const fmi3Byte serializedState[],
                                   size_t size, fmi3FMUState* FMUState) {
    return STATUS(
        core_deserialize(CORE(instance), serializedState, size, (CoreSnapshot**)FMUState));
}

fmi3Status fmi3GetDirectionalDerivative(fmi3Instance instance,
                                        const fmi3ValueReference unknowns[], size_t nUnknowns,
                                        const fmi3ValueReference knowns[], size_t nKnowns,
                                        const fmi3Float64 seed[], size_t nSeed,
                                        fmi3Float64 sensitivity[], size_t nSensitivity) {
    if (nSeed != nKnowns || nSensitivity != nUnknowns) return fmi3Error;
    return STATUS(core_directional(CORE(instance), unknowns, nUnknowns, knowns, nKnowns, seed,
                                   sensitivity));
}

fmi3Status fmi3GetAdjointDerivative(fmi3Instance instance, const fmi3ValueReference unknowns[],
                                    size_t nUnknowns, const fmi3ValueReference knowns[],
                                    size_t nKnowns, const fmi3Float64 seed[], size_t nSeed,
                                    fmi3Float64 sensitivity[], size_t nSensitivity) {
    (void)unknowns;
    (void)nUnknowns;
    (void)knowns;
    (void)nKnowns;
    (void)seed;
    (void)nSeed;
    (void)sensitivity;
    (void)nSensitivity;
    core_log(CORE(instance), CORE_ERROR, "adjoint derivatives are not provided");
    return fmi3Error;
}

fmi3Status fmi3EnterConfigurationMode(fmi3Instance instance) {
    core_log(CORE(instance), CORE_ERROR, "the model has no structural parameters");
    return fmi3Error;
}

fmi3Status fmi3ExitConfigurationMode(fmi3Instance instance) {
    core_log(CORE(instance), CORE_ERROR, "the model has no structural parameters");
    return fmi3Error;
}

/* The model has no clocks. */
#define NO_CLOCKS(instance)                                              \
    do {                                                                 \
        core_log(CORE(instance), CORE_ERROR, "the model has no clocks"); \
        return fmi3Error;                                                \
    } while (0)

fmi3Status fmi3GetIntervalDecimal(fmi3Instance instance, const fmi3ValueReference vr[],
                                  size_t nvr, fmi3Float64 intervals[],
                                  fmi3IntervalQualifier qualifiers[]) {
    (void)vr;
    (void)nvr;
    (void)intervals;
    (void)qualifiers;
    NO_CLOCKS(instance);
}

fmi3Status fmi3GetIntervalFraction(fmi3Instance instance, const fmi3ValueReference vr[],
                                   size_t nvr, fmi3UInt64 counters[], fmi3UInt64 resolutions[],
                                   fmi3IntervalQualifier qualifiers[]) {
    (void)vr;
    (void)nvr;
    (void)counters;
    (void)resolutions;
    (void)qualifiers;
    NO_CLOCKS(instance);
}

fmi3Status fmi3GetShiftDecimal(fmi3Instance instance, const fmi3ValueReference vr[],
                               size_t nvr, fmi3Float64 shifts[]) {
    (void)vr;
    (void)nvr;
    (void)shifts;
    NO_CLOCKS(instance);
}

fmi3Status fmi3GetShiftFraction(fmi3Instance instance, const fmi3ValueReference vr[],
                                size_t nvr, fmi3UInt64 counters[], fmi3UInt64 resolutions[]) {
    (void)vr;
    (void)nvr;
    (void)counters;
    (void)resolutions;
    NO_CLOCKS(instance);
}

fmi3Status fmi3SetIntervalDecimal(fmi3Instance instance, const fmi3ValueReference vr[],
                                  size_t nvr, const fmi3Float64 intervals[]) {
    (void)vr;
    (void)nvr;
    (void)intervals;
    NO_CLOCKS(instance);
}

fmi3Status fmi3SetIntervalFraction(fmi3Instance instance, const fmi3ValueReference vr[],
                                   size_t nvr, const fmi3UInt64 counters[],
                                   const fmi3UInt64 resolutions[]) {
    (void)vr;
    (void)nvr;
    (void)counters;
    (void)resolutions;
    NO_CLOCKS(instance);
}

fmi3Status fmi3SetShiftDecimal(fmi3Instance instance, const fmi3ValueReference vr[],
                               size_t nvr, const fmi3Float64 shifts[]) {
    (void)vr;
    (void)nvr;
    (void)shifts;
    NO_CLOCKS(instance);
}

fmi3Status fmi3SetShiftFraction(fmi3Instance instance, const fmi3ValueReference vr[],
                                size_t nvr, const fmi3UInt64 counters[],
                                const fmi3UInt64 resolutions[]) {
    (void)vr;
    (void)nvr;
    (void)counters;
    (void)resolutions;
    NO_CLOCKS(instance);
}

fmi3Status fmi3EvaluateDiscreteStates(fmi3Instance instance) {
    (void)instance;
    return fmi3OK;
}

fmi3Status fmi3UpdateDiscreteStates(fmi3Instance instance, fmi3Boolean* discreteStatesNeedUpdate,
                                    fmi3Boolean* terminateSimulation,
                                    fmi3Boolean* nominalsOfContinuousStatesChanged,
                                    fmi3Boolean* valuesOfContinuousStatesChanged,
                                    fmi3Boolean* nextEventTimeDefined,
                                    fmi3Float64* nextEventTime) {
    int moved, defined;
    CoreStatus status = core_event_update(CORE(instance), 0, &moved, &defined, nextEventTime);
    *discreteStatesNeedUpdate = fmi3False;
    *terminateSimulation = fmi3False;
    *nominalsOfContinuousStatesChanged = fmi3False;
    *valuesOfContinuousStatesChanged = moved ? fmi3True : fmi3False;
    *nextEventTimeDefined = defined ? fmi3True : fmi3False;
    return STATUS(status);
}

fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance instance) {
    CORE(instance)->s.mode = MODE_CONTINUOUS_TIME;
    return fmi3OK;
}

fmi3Status fmi3CompletedIntegratorStep(fmi3Instance instance,
                                       fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi3Boolean* enterEventMode,
                                       fmi3Boolean* terminateSimulation) {
    (void)noSetFMUStatePriorToCurrentPoint;
    *enterEventMode = fmi3False;
    *terminateSimulation = fmi3False;
    return STATUS(core_completed_step(CORE(instance)));
}

fmi3Status fmi3SetTime(fmi3Instance instance, fmi3Float64 time) {
    return STATUS(core_set_time(CORE(instance), time));
}

fmi3Status fmi3SetContinuousStates(fmi3Instance instance,
                                   const fmi3Float64 continuousStates[],
                                   size_t nContinuousStates) {
    return STATUS(core_set_states(CORE(instance), continuousStates, nContinuousStates));
}

fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance instance, fmi3Float64 derivatives[],
                                             size_t nContinuousStates) {
    return STATUS(core_get_derivatives(CORE(instance), derivatives, nContinuousStates));
}

fmi3Status fmi3GetEventIndicators(fmi3Instance instance, fmi3Float64 eventIndicators[],
                                  size_t nEventIndicators) {
    return STATUS(core_get_event_indicators(CORE(instance), eventIndicators, nEventIndicators));
}

fmi3Status fmi3GetContinuousStates(fmi3Instance instance, fmi3Float64 continuousStates[],
                                   size_t nContinuousStates) {
    return STATUS(core_get_states(CORE(instance), continuousStates, nContinuousStates));
}

fmi3Status fmi3GetNominalsOfContinuousStates(fmi3Instance instance, fmi3Float64 nominals[],
                                             size_t nContinuousStates) {
    return STATUS(core_get_nominals(CORE(instance), nominals, nContinuousStates));
}

fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance instance, size_t* nEventIndicators) {
    (void)instance;
    *nEventIndicators = NC;
    return fmi3OK;
}

fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance instance, size_t* nContinuousStates) {
    (void)instance;
    *nContinuousStates = NX;
    return fmi3OK;
}

fmi3Status fmi3EnterStepMode(fmi3Instance instance) {
    CORE(instance)->s.mode = MODE_STEP;
    return fmi3OK;
}

fmi3Status fmi3GetOutputDerivatives(fmi3Instance instance, const fmi3ValueReference vr[],
                                    size_t nvr, const fmi3Int32 orders[], fmi3Float64 values[],
                                    size_t nValues) {
    (void)vr;
    (void)orders;
    (void)values;
    (void)nValues;
    NO_VARIABLES(instance, nvr);
}

fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 currentCommunicationPoint,
                      fmi3Float64 communicationStepSize,
                      fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                      fmi3Boolean* eventHandlingNeeded, fmi3Boolean* terminateSimulation,
                      fmi3Boolean* earlyReturn, fmi3Float64* lastSuccessfulTime) {
    Core* m = CORE(instance);
    fmi3Status status;
    (void)noSetFMUStatePriorToCurrentPoint;
    status = STATUS(core_do_step(m, currentCommunicationPoint, communicationStepSize));
    *eventHandlingNeeded = fmi3False;
    *terminateSimulation = fmi3False;
    *earlyReturn = fmi3False;
    *lastSuccessfulTime = m->s.v[VR_TIME];
    return status;
}

fmi3Status fmi3ActivateModelPartition(fmi3Instance instance, fmi3ValueReference clockReference,
                                      fmi3Float64 activationTime) {
    (void)clockReference;
    (void)activationTime;
    core_log(CORE(instance), CORE_ERROR, "Scheduled Execution is not provided");
    return fmi3Error;
}
