/* An FMI 3.0 Model Exchange FMU (stateless) with one input and one output of every variable
 * type of the standard, and arrays sized by a structural parameter. Used by the tests as an
 * FMU that murcosim did not build. Outputs, from the inputs:
 *   numbers:      y = u + 1          Boolean:   y = not u
 *   String:       y = u + "!"        Binary:    y = u followed by the byte 0xff
 *   Enumeration:  y = 3 - u (items 1 and 2 swapped)
 *   arrays:       y_arr[i] = gain[i] u_arr[i] (i = 1..n),  r_u = R u_arr (R 3 x 3, n = 3)
 * Value references: see the VR_* constants; the model description is written by the tests.
 * The functions no test FMU offers are in fmi3_unsupported.c.
 * Call order is checked: the structural parameter n is settable only in Configuration Mode,
 * the other parameters only before Initialization Mode; the start and stop times given to
 * fmi3EnterInitializationMode are readable as t_start and t_stop. A negative gain[1] makes
 * the initialization fail.
 */
#include <stdlib.h>
#include <string.h>

#include "fmi3Functions.h"

#define N_TYPES 14
#define MAX_N 8
#define TEXT 64

/* value references: input of type k is 10 + 2k, its output 11 + 2k */
enum { VR_TIME = 0, VR_T_START = 1, VR_T_STOP = 2 };
enum { VR_N = 100, VR_GAIN = 101, VR_U_ARR = 102, VR_Y_ARR = 103, VR_R = 104, VR_R_U = 105 };
enum { F32, F64, I8, U8, I16, U16, I32, U32, I64, U64, BOOL, STR, BIN, ENUM };

typedef enum { INSTANTIATED, CONFIGURATION, INITIALIZATION, RUNNING } Mode;

typedef struct {
    Mode mode;
    double time, t_start, t_stop;
    union {
        float f32;
        double f64;
        int8_t i8;
        uint8_t u8;
        int16_t i16;
        uint16_t u16;
        int32_t i32;
        uint32_t u32;
        int64_t i64;
        uint64_t u64;
        bool b;
    } u[N_TYPES], y[N_TYPES];
    char u_text[TEXT], y_text[TEXT];
    uint8_t u_bytes[TEXT], y_bytes[TEXT + 1];
    size_t u_size, y_size;
    uint64_t n;
    double gain[MAX_N], u_arr[MAX_N], y_arr[MAX_N], R[9], r_u[3];
} Model;

static void evaluate(Model *m) {
    m->y[F32].f32 = m->u[F32].f32 + 1;
    m->y[F64].f64 = m->u[F64].f64 + 1;
    m->y[I8].i8 = m->u[I8].i8 + 1;
    m->y[U8].u8 = m->u[U8].u8 + 1;
    m->y[I16].i16 = m->u[I16].i16 + 1;
    m->y[U16].u16 = m->u[U16].u16 + 1;
    m->y[I32].i32 = m->u[I32].i32 + 1;
    m->y[U32].u32 = m->u[U32].u32 + 1;
    m->y[I64].i64 = m->u[I64].i64 + 1;
    m->y[U64].u64 = m->u[U64].u64 + 1;
    m->y[BOOL].b = !m->u[BOOL].b;
    m->y[ENUM].i64 = 3 - m->u[ENUM].i64;
    strncpy(m->y_text, m->u_text, TEXT - 2);
    m->y_text[TEXT - 2] = 0;
    strcat(m->y_text, "!");
    memcpy(m->y_bytes, m->u_bytes, m->u_size);
    m->y_bytes[m->u_size] = 0xff;
    m->y_size = m->u_size + 1;
    for (uint64_t i = 0; i < m->n; i++) m->y_arr[i] = m->gain[i] * m->u_arr[i];
    for (int i = 0; i < 3; i++) {
        m->r_u[i] = 0;
        for (int j = 0; j < 3; j++) m->r_u[i] += m->R[3 * i + j] * (j < (int)m->n ? m->u_arr[j] : 0);
    }
}

const char *fmi3GetVersion(void) { return "3.0"; }
fmi3Status fmi3SetDebugLogging(fmi3Instance c, fmi3Boolean on, size_t n, const fmi3String c_[]) {
    return fmi3OK;
}

fmi3Instance fmi3InstantiateModelExchange(fmi3String name, fmi3String token, fmi3String resources,
                                          fmi3Boolean visible, fmi3Boolean logging,
                                          fmi3InstanceEnvironment environment,
                                          fmi3LogMessageCallback log) {
    Model *m = calloc(1, sizeof(Model));
    m->n = 3;
    for (int i = 0; i < MAX_N; i++) m->gain[i] = i + 1;
    for (int i = 0; i < 3; i++) m->R[4 * i] = 1;
    /* the start values of the model description */
    m->u[F32].f32 = 0.5f;
    m->u[F64].f64 = 0.25;
    m->u[I8].i8 = -8;
    m->u[U8].u8 = 8;
    m->u[I16].i16 = -16;
    m->u[U16].u16 = 16;
    m->u[I32].i32 = -32;
    m->u[U32].u32 = 32;
    m->u[I64].i64 = -64;
    m->u[U64].u64 = 64;
    m->u[BOOL].b = true;
    strcpy(m->u_text, "abc");
    m->u_bytes[0] = 0x0a;
    m->u_bytes[1] = 0x0b;
    m->u_size = 2;
    m->u[ENUM].i64 = 1;
    evaluate(m);
    return m;
}
fmi3Instance fmi3InstantiateCoSimulation(fmi3String name, fmi3String token, fmi3String resources,
                                         fmi3Boolean visible, fmi3Boolean logging,
                                         fmi3Boolean event_mode, fmi3Boolean early_return,
                                         const fmi3ValueReference required[], size_t n_required,
                                         fmi3InstanceEnvironment environment,
                                         fmi3LogMessageCallback log,
                                         fmi3IntermediateUpdateCallback update) {
    return NULL;
}
void fmi3FreeInstance(fmi3Instance c) { free(c); }

fmi3Status fmi3EnterConfigurationMode(fmi3Instance c) {
    Model *m = c;
    if (m->mode != INSTANTIATED) return fmi3Error;
    m->mode = CONFIGURATION;
    return fmi3OK;
}
fmi3Status fmi3ExitConfigurationMode(fmi3Instance c) {
    Model *m = c;
    if (m->mode != CONFIGURATION) return fmi3Error;
    m->mode = INSTANTIATED;
    return fmi3OK;
}
fmi3Status fmi3EnterInitializationMode(fmi3Instance c, fmi3Boolean has_tolerance,
                                       fmi3Float64 tolerance, fmi3Float64 start,
                                       fmi3Boolean has_stop, fmi3Float64 stop) {
    Model *m = c;
    if (m->mode != INSTANTIATED) return fmi3Error;
    m->mode = INITIALIZATION;
    m->time = m->t_start = start;
    m->t_stop = has_stop ? stop : -1;
    return fmi3OK;
}
fmi3Status fmi3ExitInitializationMode(fmi3Instance c) {
    Model *m = c;
    if (m->mode != INITIALIZATION || m->gain[0] < 0) return fmi3Error;
    m->mode = RUNNING;
    evaluate(m);
    return fmi3OK;
}
fmi3Status fmi3EnterEventMode(fmi3Instance c) { return fmi3OK; }
fmi3Status fmi3Terminate(fmi3Instance c) { return fmi3OK; }
fmi3Status fmi3Reset(fmi3Instance c) { return fmi3Error; }

/* -- variables ------------------------------------------------------------------------------ */

/* Where value reference vr of type k lives, and how many elements it has; NULL if vr is not a
 * variable of that type. Inputs and parameters may be written only where is_input says. */
static void *locate(Model *m, fmi3ValueReference vr, int k, size_t *count, int *settable) {
    *count = 1;
    *settable = 0;
    if (vr >= 10 && vr < 10 + 2 * N_TYPES && (vr - 10) / 2 == (fmi3ValueReference)k &&
        k != STR && k != BIN) {
        *settable = vr % 2 == 0;
        return *settable ? (void *)&m->u[k] : (void *)&m->y[k];
    }
    if (k == F64) {
        switch (vr) {
            case VR_TIME: return &m->time;
            case VR_T_START: return &m->t_start;
            case VR_T_STOP: return &m->t_stop;
            case VR_GAIN: *count = m->n; *settable = m->mode == INSTANTIATED; return m->gain;
            case VR_U_ARR: *count = m->n; *settable = 1; return m->u_arr;
            case VR_Y_ARR: *count = m->n; return m->y_arr;
            case VR_R: *count = 9; *settable = m->mode == INSTANTIATED; return m->R;
            case VR_R_U: *count = 3; return m->r_u;
        }
    }
    if (k == U64 && vr == VR_N) {
        *settable = m->mode == CONFIGURATION;
        return &m->n;
    }
    return NULL;
}

static fmi3Status get(Model *m, int k, size_t size, const fmi3ValueReference vr[], size_t nvr,
                      void *values, size_t n_values) {
    size_t at = 0, count;
    int settable;
    if (m->mode == RUNNING) evaluate(m);
    for (size_t i = 0; i < nvr; i++) {
        void *where = locate(m, vr[i], k, &count, &settable);
        if (!where || at + count > n_values) return fmi3Error;
        memcpy((char *)values + at * size, where, count * size);
        at += count;
    }
    return at == n_values ? fmi3OK : fmi3Error;
}

static fmi3Status set(Model *m, int k, size_t size, const fmi3ValueReference vr[], size_t nvr,
                      const void *values, size_t n_values) {
    size_t at = 0, count;
    int settable;
    for (size_t i = 0; i < nvr; i++) {
        void *where = locate(m, vr[i], k, &count, &settable);
        if (!where || !settable || at + count > n_values) return fmi3Error;
        if (vr[i] == VR_N && *(const uint64_t *)values > MAX_N) return fmi3Error;
        memcpy(where, (const char *)values + at * size, count * size);
        at += count;
    }
    return at == n_values ? fmi3OK : fmi3Error;
}

#define ACCESS(Type, k)                                                                         \
    fmi3Status fmi3Get##Type(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,         \
                             fmi3##Type v[], size_t n) {                                        \
        return get(c, k, sizeof(fmi3##Type), vr, nvr, v, n);                                    \
    }                                                                                           \
    fmi3Status fmi3Set##Type(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,         \
                             const fmi3##Type v[], size_t n) {                                  \
        return set(c, k, sizeof(fmi3##Type), vr, nvr, v, n);                                    \
    }

ACCESS(Float32, F32)
ACCESS(Float64, F64)
ACCESS(Int8, I8)
ACCESS(UInt8, U8)
ACCESS(Int16, I16)
ACCESS(UInt16, U16)
ACCESS(Int32, I32)
ACCESS(UInt32, U32)
ACCESS(UInt64, U64)
ACCESS(Boolean, BOOL)

/* Int64 serves Int64 and the enumeration (value references of both) */
fmi3Status fmi3GetInt64(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr, fmi3Int64 v[],
                        size_t n) {
    Model *m = c;
    if (m->mode == RUNNING) evaluate(m);
    for (size_t i = 0; i < nvr; i++) {
        int k = vr[i] == 10 + 2 * ENUM || vr[i] == 11 + 2 * ENUM ? ENUM : I64;
        if (get(m, k, sizeof(fmi3Int64), &vr[i], 1, &v[i], 1)) return fmi3Error;
    }
    return nvr == n ? fmi3OK : fmi3Error;
}
fmi3Status fmi3SetInt64(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                        const fmi3Int64 v[], size_t n) {
    for (size_t i = 0; i < nvr; i++) {
        int k = vr[i] == 10 + 2 * ENUM ? ENUM : I64;
        if (k == ENUM && (v[i] < 1 || v[i] > 2)) return fmi3Error;
        if (set(c, k, sizeof(fmi3Int64), &vr[i], 1, &v[i], 1)) return fmi3Error;
    }
    return nvr == n ? fmi3OK : fmi3Error;
}

fmi3Status fmi3GetString(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                         fmi3String v[], size_t n) {
    Model *m = c;
    evaluate(m);
    for (size_t i = 0; i < nvr; i++) {
        if (vr[i] == 10 + 2 * STR) v[i] = m->u_text;
        else if (vr[i] == 11 + 2 * STR) v[i] = m->y_text;
        else return fmi3Error;
    }
    return nvr == n ? fmi3OK : fmi3Error;
}
fmi3Status fmi3SetString(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                         const fmi3String v[], size_t n) {
    Model *m = c;
    if (nvr != 1 || vr[0] != 10 + 2 * STR || strlen(v[0]) >= TEXT - 2) return fmi3Error;
    strcpy(m->u_text, v[0]);
    return fmi3OK;
}
fmi3Status fmi3GetBinary(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                         size_t sizes[], fmi3Binary v[], size_t n) {
    Model *m = c;
    evaluate(m);
    for (size_t i = 0; i < nvr; i++) {
        if (vr[i] == 10 + 2 * BIN) v[i] = m->u_bytes, sizes[i] = m->u_size;
        else if (vr[i] == 11 + 2 * BIN) v[i] = m->y_bytes, sizes[i] = m->y_size;
        else return fmi3Error;
    }
    return nvr == n ? fmi3OK : fmi3Error;
}
fmi3Status fmi3SetBinary(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                         const size_t sizes[], const fmi3Binary v[], size_t n) {
    Model *m = c;
    if (nvr != 1 || vr[0] != 10 + 2 * BIN || sizes[0] >= TEXT) return fmi3Error;
    memcpy(m->u_bytes, v[0], sizes[0]);
    m->u_size = sizes[0];
    return fmi3OK;
}

/* -- Model Exchange (no states) ----------------------------------------------------------- */

fmi3Status fmi3UpdateDiscreteStates(fmi3Instance c, fmi3Boolean *update, fmi3Boolean *terminate,
                                    fmi3Boolean *nominals_changed, fmi3Boolean *states_changed,
                                    fmi3Boolean *next_time_defined, fmi3Float64 *next_time) {
    *update = *terminate = *nominals_changed = *states_changed = *next_time_defined = fmi3False;
    return fmi3OK;
}
fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance c) { return fmi3OK; }
fmi3Status fmi3CompletedIntegratorStep(fmi3Instance c, fmi3Boolean no_set_state,
                                       fmi3Boolean *enter_event_mode, fmi3Boolean *terminate) {
    *enter_event_mode = *terminate = fmi3False;
    return fmi3OK;
}
fmi3Status fmi3SetTime(fmi3Instance c, fmi3Float64 time) {
    ((Model *)c)->time = time;
    return fmi3OK;
}
fmi3Status fmi3SetContinuousStates(fmi3Instance c, const fmi3Float64 x[], size_t n) {
    return n ? fmi3Error : fmi3OK;
}
fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance c, fmi3Float64 dx[], size_t n) {
    return n ? fmi3Error : fmi3OK;
}
fmi3Status fmi3GetContinuousStates(fmi3Instance c, fmi3Float64 x[], size_t n) {
    return n ? fmi3Error : fmi3OK;
}
fmi3Status fmi3GetNominalsOfContinuousStates(fmi3Instance c, fmi3Float64 x[], size_t n) {
    return n ? fmi3Error : fmi3OK;
}
fmi3Status fmi3GetEventIndicators(fmi3Instance c, fmi3Float64 z[], size_t n) { return fmi3OK; }
fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance c, size_t *n) {
    *n = 0;
    return fmi3OK;
}
fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance c, size_t *n) {
    *n = 0;
    return fmi3OK;
}

/* -- not offered here (the rest is in fmi3_unsupported.c) ----------------------------- */

fmi3Status fmi3GetFMUState(fmi3Instance c, fmi3FMUState *state) { return fmi3Error; }
fmi3Status fmi3SetFMUState(fmi3Instance c, fmi3FMUState state) { return fmi3Error; }
fmi3Status fmi3FreeFMUState(fmi3Instance c, fmi3FMUState *state) { return fmi3Error; }
fmi3Status fmi3EnterStepMode(fmi3Instance c) { return fmi3Error; }
fmi3Status fmi3DoStep(fmi3Instance c, fmi3Float64 t, fmi3Float64 step, fmi3Boolean no_set_state,
                      fmi3Boolean *event_handling_needed, fmi3Boolean *terminate,
                      fmi3Boolean *early_return, fmi3Float64 *last_successful_time) {
    return fmi3Error;
}
