/* The FMI 3.0 functions the spring-mass and event test FMUs do not offer besides those of
 * fmi3_unsupported.c: variable types other than Float64, Configuration Mode. Each answers
 * fmi3Error (3); declared without the standard's prototypes as they ignore their arguments.
 */
#define UNSUPPORTED(name) \
    int name(void) { return 3; }

UNSUPPORTED(fmi3GetFloat32)
UNSUPPORTED(fmi3GetInt8)
UNSUPPORTED(fmi3GetUInt8)
UNSUPPORTED(fmi3GetInt16)
UNSUPPORTED(fmi3GetUInt16)
UNSUPPORTED(fmi3GetInt32)
UNSUPPORTED(fmi3GetUInt32)
UNSUPPORTED(fmi3GetInt64)
UNSUPPORTED(fmi3GetUInt64)
UNSUPPORTED(fmi3GetBoolean)
UNSUPPORTED(fmi3GetString)
UNSUPPORTED(fmi3GetBinary)
UNSUPPORTED(fmi3SetFloat32)
UNSUPPORTED(fmi3SetInt8)
UNSUPPORTED(fmi3SetUInt8)
UNSUPPORTED(fmi3SetInt16)
UNSUPPORTED(fmi3SetUInt16)
UNSUPPORTED(fmi3SetInt32)
UNSUPPORTED(fmi3SetUInt32)
UNSUPPORTED(fmi3SetInt64)
UNSUPPORTED(fmi3SetUInt64)
UNSUPPORTED(fmi3SetBoolean)
UNSUPPORTED(fmi3SetString)
UNSUPPORTED(fmi3SetBinary)
UNSUPPORTED(fmi3EnterConfigurationMode)
UNSUPPORTED(fmi3ExitConfigurationMode)
