/* An FMI 2.0 Co-Simulation FMU that refuses every fmi2SetReal and fmi2SetInteger the standard
 * does not allow in the FMU's state (FMI 2.0.4, Sec. 4.2.4): in Instantiated only variables
 * with initial exact or approx (here the parameter k), in Initialization Mode those and the
 * inputs (u, n), from then on the inputs. Values below the declared minimum (0) of u and n are
 * refused too. y = k u + n. Value references: Real k 0, u 1, y 2; Integer n 0. The functions
 * it does not offer are in fmi2_unsupported.c.
 */
#include <stdlib.h>

#include "fmi2Functions.h"

enum { K, U, Y, N_REALS };
enum { N, N_INTEGERS };
typedef enum { INSTANTIATED, INITIALIZATION, STEPPING } Phase;

typedef struct {
    double r[N_REALS];
    int i[N_INTEGERS];
    Phase phase;
} Model;

/* Whether the variable may be set in the model's phase: a parameter before stepping, an input
 * from Initialization Mode on. */
static int settable(const Model *m, int input) {
    return input ? m->phase != INSTANTIATED : m->phase != STEPPING;
}

const char *fmi2GetTypesPlatform(void) { return fmi2TypesPlatform; }
const char *fmi2GetVersion(void) { return fmi2Version; }

fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean on, size_t n, const fmi2String c_[]) {
    return fmi2OK;
}

fmi2Component fmi2Instantiate(fmi2String name, fmi2Type type, fmi2String guid,
                              fmi2String resources, const fmi2CallbackFunctions *functions,
                              fmi2Boolean visible, fmi2Boolean logging) {
    Model *m = calloc(1, sizeof(Model));
    m->r[K] = 1.0;
    return m;
}

void fmi2FreeInstance(fmi2Component c) { free(c); }

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean has_tolerance, fmi2Real tolerance,
                               fmi2Real start, fmi2Boolean has_stop, fmi2Real stop) {
    return fmi2OK;
}

fmi2Status fmi2EnterInitializationMode(fmi2Component c) {
    ((Model *)c)->phase = INITIALIZATION;
    return fmi2OK;
}

fmi2Status fmi2ExitInitializationMode(fmi2Component c) {
    ((Model *)c)->phase = STEPPING;
    return fmi2OK;
}

fmi2Status fmi2Terminate(fmi2Component c) { return fmi2OK; }
fmi2Status fmi2Reset(fmi2Component c) { return fmi2Error; }

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                       fmi2Real value[]) {
    Model *m = c;
    m->r[Y] = m->r[K] * m->r[U] + m->i[N];
    for (size_t j = 0; j < n; j++) {
        if (vr[j] >= N_REALS) return fmi2Error;
        value[j] = m->r[vr[j]];
    }
    return fmi2OK;
}

fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                       const fmi2Real value[]) {
    Model *m = c;
    for (size_t j = 0; j < n; j++) {
        if (vr[j] == Y || vr[j] >= N_REALS || !settable(m, vr[j] == U)) return fmi2Error;
        if (vr[j] == U && value[j] < 0) return fmi2Error;
        m->r[vr[j]] = value[j];
    }
    return fmi2OK;
}

fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                          fmi2Integer value[]) {
    for (size_t j = 0; j < n; j++) {
        if (vr[j] >= N_INTEGERS) return fmi2Error;
        value[j] = ((Model *)c)->i[vr[j]];
    }
    return fmi2OK;
}

fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                          const fmi2Integer value[]) {
    Model *m = c;
    for (size_t j = 0; j < n; j++) {
        if (vr[j] >= N_INTEGERS || !settable(m, 1) || value[j] < 0) return fmi2Error;
        m->i[vr[j]] = value[j];
    }
    return fmi2OK;
}

fmi2Status fmi2DoStep(fmi2Component c, fmi2Real t, fmi2Real step, fmi2Boolean no_set_state) {
    return fmi2OK;
}
