/* The FMI 2.0 functions the hand-written test FMUs do not offer (other variable types, FMU
 * state, partial derivatives, input derivatives, asynchronous steps, status). An importer looks
 * them up by name; each answers fmi2Error (3). They ignore their arguments, so they are declared
 * here without the standard's prototypes, and weak: an FMU's own definition of one replaces it.
 */
#define UNSUPPORTED(name) \
    __attribute__((weak)) int name(void) { return 3; }

UNSUPPORTED(fmi2GetInteger)
UNSUPPORTED(fmi2GetBoolean)
UNSUPPORTED(fmi2GetString)
UNSUPPORTED(fmi2SetInteger)
UNSUPPORTED(fmi2SetBoolean)
UNSUPPORTED(fmi2SetString)
UNSUPPORTED(fmi2GetFMUstate)
UNSUPPORTED(fmi2SetFMUstate)
UNSUPPORTED(fmi2FreeFMUstate)
UNSUPPORTED(fmi2SerializedFMUstateSize)
UNSUPPORTED(fmi2SerializeFMUstate)
UNSUPPORTED(fmi2DeSerializeFMUstate)
UNSUPPORTED(fmi2GetDirectionalDerivative)
UNSUPPORTED(fmi2SetRealInputDerivatives)
UNSUPPORTED(fmi2GetRealOutputDerivatives)
UNSUPPORTED(fmi2CancelStep)
UNSUPPORTED(fmi2GetStatus)
UNSUPPORTED(fmi2GetRealStatus)
UNSUPPORTED(fmi2GetIntegerStatus)
UNSUPPORTED(fmi2GetBooleanStatus)
UNSUPPORTED(fmi2GetStringStatus)
