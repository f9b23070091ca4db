/* The FMI 3.0 functions no test FMU offers (clocks, serialization, partial derivatives,
 * Scheduled Execution). An importer looks them up by name; each answers fmi3Error (3), or no
 * instance for Scheduled Execution. They ignore their arguments, so they are declared here
 * without the standard's prototypes. A test FMU with clocks compiles this file with
 * OFFERS_CLOCKS defined and has its own clock functions.
 */
#define UNSUPPORTED(name) \
    int name(void) { return 3; }

void *fmi3InstantiateScheduledExecution(void) { return 0; }

#ifndef OFFERS_CLOCKS /* defined by a test FMU with clocks, which has these */
UNSUPPORTED(fmi3GetClock)
UNSUPPORTED(fmi3SetClock)
UNSUPPORTED(fmi3GetIntervalDecimal)
UNSUPPORTED(fmi3GetShiftDecimal)
#endif
UNSUPPORTED(fmi3GetNumberOfVariableDependencies)
UNSUPPORTED(fmi3GetVariableDependencies)
UNSUPPORTED(fmi3SerializedFMUStateSize)
UNSUPPORTED(fmi3SerializeFMUState)
UNSUPPORTED(fmi3DeserializeFMUState)
UNSUPPORTED(fmi3GetDirectionalDerivative)
UNSUPPORTED(fmi3GetAdjointDerivative)
UNSUPPORTED(fmi3GetIntervalFraction)
UNSUPPORTED(fmi3GetShiftFraction)
UNSUPPORTED(fmi3SetIntervalDecimal)
UNSUPPORTED(fmi3SetIntervalFraction)
UNSUPPORTED(fmi3SetShiftDecimal)
UNSUPPORTED(fmi3SetShiftFraction)
UNSUPPORTED(fmi3EvaluateDiscreteStates)
UNSUPPORTED(fmi3GetOutputDerivatives)
UNSUPPORTED(fmi3ActivateModelPartition)
