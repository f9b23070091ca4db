/* An FMI 3.0 Model Exchange FMU with clocks (compiled with OFFERS_CLOCKS; the model
 * description is written by the tests):
 *   x          continuous state, der(x) = 1 (so x = t from x(0) = 0), an output;
 *   tick       input clock, constant, interval 0.25 s: ticks += 1, sample := x,
 *              total += u (u a clocked input), and every 4th tick activates
 *   fourth     output clock (triggered): fourth_time := time;
 *   slow       input clock, fixed, no interval in the model description: interval `period`,
 *              shift `delay` (parameters, 0.4 s and 0.1 s), told by fmi3GetIntervalDecimal and
 *              fmi3GetShiftDecimal: slow_ticks += 1;
 *   countdown  input clock, countdown: first activation 0.1 s after the start, the n-th
 *              activation announces the next one 0.1 (n + 1) s later: countdowns += 1.
 * Clocked variables are read and set only while one of their clocks is active (or in
 * Initialization Mode); every clock must be activated exactly at its times, in Event Mode, and
 * none may be missed (time set past a due activation). Every call out of sequence is an error
 * recorded by strict_fmi3.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fmi3Functions.h"
#include "strict_fmi3.h"

enum { VR_TIME, VR_X, VR_DX, VR_TICKS, VR_SAMPLE, VR_U, VR_TOTAL, VR_SLOW_TICKS, VR_COUNTDOWNS,
       VR_FOURTH_TIME, N_REAL };
enum { VR_TICK = 10, VR_SLOW = 11, VR_COUNTDOWN = 12, VR_FOURTH = 13 };
enum { VR_PERIOD = 20, VR_DELAY = 21 };
enum { TICK, SLOW, COUNTDOWN, FOURTH, N_CLOCKS };
#define TICK_INTERVAL 0.25
#define CLOSE 1e-9

/* the clocks of each clocked variable (bit k: clock k), 0 for the others */
static const int CLOCKED[N_REAL] = {0, 0, 0, 1 << TICK, 1 << TICK, 1 << TICK, 1 << TICK,
                                    1 << SLOW, 1 << COUNTDOWN, 1 << FOURTH};

typedef struct {
    State state;
    double time, r[N_REAL], previous[N_REAL], period, delay;
    fmi3Boolean active[N_CLOCKS];
    double due[N_CLOCKS - 1]; /* next activation of each input clock (s) */
    int countdowns, countdown_told;
} Model;

static int clock_index(fmi3ValueReference vr) {
    return vr >= VR_TICK && vr <= VR_FOURTH ? (int)(vr - VR_TICK) : -1;
}

/* The active partitions from the values of the last update (repeatable: the same inputs give
 * the same values). */
static void evaluate(Model *m) {
    double u = m->r[VR_U];
    memcpy(m->r + VR_TICKS, m->previous + VR_TICKS, (N_REAL - VR_TICKS) * sizeof(double));
    m->r[VR_U] = u;
    m->r[VR_DX] = 1;
    m->active[FOURTH] = fmi3False;
    if (m->active[TICK]) {
        m->r[VR_TICKS] += 1;
        m->r[VR_SAMPLE] = m->r[VR_X];
        m->r[VR_TOTAL] += m->r[VR_U];
        m->active[FOURTH] = fmod(m->r[VR_TICKS], 4) == 0;
    }
    if (m->active[FOURTH]) m->r[VR_FOURTH_TIME] = m->time;
    if (m->active[SLOW]) m->r[VR_SLOW_TICKS] += 1;
    if (m->active[COUNTDOWN]) m->r[VR_COUNTDOWNS] += 1;
}

/* Whether clocked variable vr may be read or set now. */
static int accessible(const Model *m, fmi3ValueReference vr) {
    if (!CLOCKED[vr] || m->state == INITIALIZATION) return 1;
    if (m->state != EVENT) return 0;
    for (int k = 0; k < N_CLOCKS; k++)
        if ((CLOCKED[vr] >> k & 1) && m->active[k]) return 1;
    return 0;
}

fmi3Status fmi3GetFMUState(fmi3Instance c, fmi3FMUState *s) { return fmi3Error; }
fmi3Status fmi3SetFMUState(fmi3Instance c, fmi3FMUState s) { return fmi3Error; }
fmi3Status fmi3FreeFMUState(fmi3Instance c, fmi3FMUState *s) { return fmi3Error; }
const char *fmi3GetVersion(void) { return "3.0"; }
fmi3Status fmi3SetDebugLogging(fmi3Instance c, fmi3Boolean on, size_t n, const fmi3String c_[]) {
    return fmi3OK;
}

static Model *defaults(void) {
    Model *m = calloc(1, sizeof(Model));
    m->state = INSTANTIATED;
    m->period = 0.4, m->delay = 0.1;
    m->r[VR_U] = 2;
    m->r[VR_FOURTH_TIME] = -1;
    memcpy(m->previous, m->r, sizeof m->r);
    return m;
}

fmi3Instance fmi3InstantiateModelExchange(fmi3String name, fmi3String token, fmi3String resources,
                                          fmi3Boolean visible, fmi3Boolean logging,
                                          fmi3InstanceEnvironment environment,
                                          fmi3LogMessageCallback log) {
    return defaults();
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

fmi3Status fmi3Reset(fmi3Instance c) {
    Model *fresh = defaults();
    *(Model *)c = *fresh;
    free(fresh);
    return fmi3OK;
}

fmi3Status fmi3EnterInitializationMode(fmi3Instance c, fmi3Boolean has_tolerance,
                                       fmi3Float64 tolerance, fmi3Float64 start,
                                       fmi3Boolean has_stop, fmi3Float64 stop) {
    Model *m = c;
    ALLOWED(&m->state, INSTANTIATED, "fmi3EnterInitializationMode");
    m->state = INITIALIZATION;
    m->time = start;
    m->due[TICK] = start;
    m->due[SLOW] = start + m->delay;
    m->due[COUNTDOWN] = start + 0.1;
    evaluate(m);
    return fmi3OK;
}

fmi3Status fmi3ExitInitializationMode(fmi3Instance c) {
    Model *m = c;
    ALLOWED(&m->state, INITIALIZATION, "fmi3ExitInitializationMode");
    memcpy(m->previous, m->r, sizeof m->r);
    m->state = EVENT;
    return fmi3OK;
}

fmi3Status fmi3EnterEventMode(fmi3Instance c) {
    Model *m = c;
    ALLOWED(&m->state, CONTINUOUS, "fmi3EnterEventMode");
    m->state = EVENT;
    return fmi3OK;
}

fmi3Status fmi3Terminate(fmi3Instance c) {
    Model *m = c;
    ALLOWED(&m->state, RUNNING, "fmi3Terminate");
    m->state = TERMINATED;
    return fmi3OK;
}

fmi3Status fmi3GetFloat64(fmi3Instance c, const fmi3ValueReference vr[], size_t n,
                          fmi3Float64 v[], size_t n_values) {
    Model *m = c;
    ALLOWED(&m->state, READABLE, "fmi3GetFloat64");
    if (n != n_values) return illegal(&m->state, "fmi3GetFloat64", "nValues is not nValueReferences");
    evaluate(m);
    for (size_t i = 0; i < n; i++) {
        if (vr[i] == VR_PERIOD || vr[i] == VR_DELAY) {
            v[i] = vr[i] == VR_PERIOD ? m->period : m->delay;
            continue;
        }
        if (vr[i] >= N_REAL) return illegal(&m->state, "fmi3GetFloat64", "unknown variable");
        if (!accessible(m, vr[i]))
            return illegal(&m->state, "fmi3GetFloat64", "a clocked variable while its clock is inactive");
        v[i] = vr[i] == VR_TIME ? m->time : m->r[vr[i]];
    }
    return fmi3OK;
}

fmi3Status fmi3SetFloat64(fmi3Instance c, const fmi3ValueReference vr[], size_t n,
                          const fmi3Float64 v[], size_t n_values) {
    Model *m = c;
    for (size_t i = 0; i < n; i++) {
        if (vr[i] == VR_PERIOD || vr[i] == VR_DELAY) {
            ALLOWED(&m->state, INSTANTIATED, "fmi3SetFloat64 (a fixed parameter)");
            *(vr[i] == VR_PERIOD ? &m->period : &m->delay) = v[i];
        } else if (vr[i] == VR_U) {
            ALLOWED(&m->state, INSTANTIATED | INITIALIZATION | EVENT, "fmi3SetFloat64 (u)");
            if (m->state != INSTANTIATED && !accessible(m, VR_U))
                return illegal(&m->state, "fmi3SetFloat64", "u while its clock is inactive");
            m->r[VR_U] = v[i];
            if (m->state == INSTANTIATED) m->previous[VR_U] = v[i];
        } else {
            return illegal(&m->state, "fmi3SetFloat64", "not a parameter or an input");
        }
    }
    return fmi3OK;
}

/* -- clocks ---------------------------------------------------------------------------- */

fmi3Status fmi3SetClock(fmi3Instance c, const fmi3ValueReference vr[], size_t n,
                        const fmi3Clock values[]) {
    Model *m = c;
    ALLOWED(&m->state, EVENT, "fmi3SetClock");
    for (size_t i = 0; i < n; i++) {
        int k = clock_index(vr[i]);
        if (k < 0 || k == FOURTH) return illegal(&m->state, "fmi3SetClock", "not an input clock");
        if (!values[i]) return illegal(&m->state, "fmi3SetClock", "deactivated (canBeDeactivated is false)");
        if (fabs(m->time - m->due[k]) > CLOSE)
            return illegal(&m->state, "fmi3SetClock", "a clock activated when it is not due");
        m->active[k] = fmi3True;
    }
    return fmi3OK;
}

fmi3Status fmi3GetClock(fmi3Instance c, const fmi3ValueReference vr[], size_t n,
                        fmi3Clock values[]) {
    Model *m = c;
    ALLOWED(&m->state, EVENT, "fmi3GetClock");
    evaluate(m);
    for (size_t i = 0; i < n; i++) {
        if (clock_index(vr[i]) != FOURTH) return illegal(&m->state, "fmi3GetClock", "not an output clock");
        values[i] = m->active[FOURTH];
    }
    return fmi3OK;
}

fmi3Status fmi3GetIntervalDecimal(fmi3Instance c, const fmi3ValueReference vr[], size_t n,
                                  fmi3Float64 intervals[], fmi3IntervalQualifier qualifiers[]) {
    Model *m = c;
    ALLOWED(&m->state, INITIALIZATION | EVENT, "fmi3GetIntervalDecimal");
    for (size_t i = 0; i < n; i++) {
        int k = clock_index(vr[i]);
        qualifiers[i] = fmi3IntervalUnchanged;
        if (k == TICK) {
            intervals[i] = TICK_INTERVAL;
        } else if (k == SLOW) {
            intervals[i] = m->period;
            if (m->state == INITIALIZATION) qualifiers[i] = fmi3IntervalChanged;
        } else if (k == COUNTDOWN) {
            intervals[i] = m->due[COUNTDOWN] - m->time;
            if (!m->countdown_told) qualifiers[i] = fmi3IntervalChanged;
            m->countdown_told = 1;
        } else {
            return illegal(&m->state, "fmi3GetIntervalDecimal", "not an input clock");
        }
    }
    return fmi3OK;
}

fmi3Status fmi3GetShiftDecimal(fmi3Instance c, const fmi3ValueReference vr[], size_t n,
                               fmi3Float64 shifts[]) {
    Model *m = c;
    ALLOWED(&m->state, INITIALIZATION, "fmi3GetShiftDecimal");
    for (size_t i = 0; i < n; i++) {
        if (clock_index(vr[i]) != SLOW) return illegal(&m->state, "fmi3GetShiftDecimal", "not the fixed clock");
        shifts[i] = m->delay;
    }
    return fmi3OK;
}

/* -- Model Exchange -------------------------------------------------------------------- */

fmi3Status fmi3UpdateDiscreteStates(fmi3Instance c, fmi3Boolean *update_needed,
                                    fmi3Boolean *terminate, fmi3Boolean *nominals_changed,
                                    fmi3Boolean *states_changed, fmi3Boolean *next_time_defined,
                                    fmi3Float64 *next_time) {
    Model *m = c;
    ALLOWED(&m->state, EVENT, "fmi3UpdateDiscreteStates");
    evaluate(m);
    memcpy(m->previous, m->r, sizeof m->r);
    if (m->active[TICK]) m->due[TICK] = (round(m->time / TICK_INTERVAL) + 1) * TICK_INTERVAL;
    if (m->active[SLOW]) m->due[SLOW] += m->period;
    if (m->active[COUNTDOWN]) {
        m->countdowns += 1;
        m->due[COUNTDOWN] = m->time + 0.1 * (m->countdowns + 1);
        m->countdown_told = 0;
    }
    memset(m->active, 0, sizeof m->active);
    *update_needed = *terminate = *nominals_changed = *states_changed = fmi3False;
    *next_time_defined = fmi3False;
    *next_time = 0;
    return fmi3OK;
}

fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance c) {
    Model *m = c;
    ALLOWED(&m->state, EVENT, "fmi3EnterContinuousTimeMode");
    m->state = CONTINUOUS;
    return fmi3OK;
}

fmi3Status fmi3CompletedIntegratorStep(fmi3Instance c, fmi3Boolean no_set_state,
                                       fmi3Boolean *enter_event_mode, fmi3Boolean *terminate) {
    Model *m = c;
    ALLOWED(&m->state, CONTINUOUS, "fmi3CompletedIntegratorStep");
    *enter_event_mode = *terminate = fmi3False;
    return fmi3OK;
}

fmi3Status fmi3SetTime(fmi3Instance c, fmi3Float64 time) {
    Model *m = c;
    ALLOWED(&m->state, EVENT | CONTINUOUS, "fmi3SetTime");
    for (int k = 0; k < N_CLOCKS - 1; k++)
        if (time > m->due[k] + CLOSE) return illegal(&m->state, "fmi3SetTime", "past a clock activation that was missed");
    m->time = time;
    return fmi3OK;
}

fmi3Status fmi3SetContinuousStates(fmi3Instance c, const fmi3Float64 x[], size_t n) {
    Model *m = c;
    ALLOWED(&m->state, CONTINUOUS, "fmi3SetContinuousStates");
    if (n != 1) return illegal(&m->state, "fmi3SetContinuousStates", "not 1 state");
    m->r[VR_X] = m->previous[VR_X] = x[0];
    return fmi3OK;
}

fmi3Status fmi3GetContinuousStates(fmi3Instance c, fmi3Float64 x[], size_t n) {
    Model *m = c;
    ALLOWED(&m->state, INITIALIZATION | EVENT | CONTINUOUS | TERMINATED, "fmi3GetContinuousStates");
    x[0] = m->r[VR_X];
    return fmi3OK;
}

fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance c, fmi3Float64 dx[], size_t n) {
    Model *m = c;
    ALLOWED(&m->state, INITIALIZATION | EVENT | CONTINUOUS | TERMINATED,
            "fmi3GetContinuousStateDerivatives");
    dx[0] = 1;
    return fmi3OK;
}

fmi3Status fmi3GetNominalsOfContinuousStates(fmi3Instance c, fmi3Float64 x[], size_t n) {
    for (size_t i = 0; i < n; i++) x[i] = 1.0;
    return fmi3OK;
}

fmi3Status fmi3GetEventIndicators(fmi3Instance c, fmi3Float64 z[], size_t n) {
    return n == 0 ? fmi3OK : fmi3Error;
}

fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance c, size_t *n) {
    *n = 0;
    return fmi3OK;
}

fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance c, size_t *n) {
    *n = 1;
    return fmi3OK;
}

fmi3Status fmi3EnterStepMode(fmi3Instance c) { return fmi3Error; }

fmi3Status fmi3DoStep(fmi3Instance c, fmi3Float64 t, fmi3Float64 step, fmi3Boolean no_set_state,
                      fmi3Boolean *event_handling_needed, fmi3Boolean *terminate,
                      fmi3Boolean *early_return, fmi3Float64 *last_successful_time) {
    return fmi3Error;
}
