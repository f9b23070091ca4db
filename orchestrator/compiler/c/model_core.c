/* Instance life cycle, variable access, FMU state and the embedded Dormand-Prince 5(4)
 * integrator of a murcosim model; see model_core.h. No FMI types here: the FMI 2.0 and 3.0
 * layers map their calls onto these functions.
 */
#include "model_core.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

#define STATE_MAGIC 0x4d435331u /* "MCS1" */
#define MAX_STEPS_PER_CALL 1000000L
#ifndef NTIME
#define NTIME 0 /* relations on time alone (model_time_events), given where a model has them */
#endif
#define HAS_TIME_EVENTS (NSAMPLE > 0 || NTIME > 0)
#define TIME_EVENT_SLACK 1e-12 /* relative: as events.py's, within which a time event is due */

static const double START[N_VALUES] = START_VALUES;
#if NG > 0
static const double GUESS[NG] = GUESS_STARTS;
#endif
#if NCHANGE > 0
/* the memories of change() and pre() before the first event update: start values */
static const double CHANGE_START[NCHANGE] = CHANGE_STARTS;
#endif
static const unsigned char SETTABLE[N_VALUES] = SETTABLE_VALUES;
/* The computed variables whose values must be finite, by value reference and Modelica name:
 * the derivatives and event indicators, checked at each evaluation, and the outputs, checked
 * where they are read. */
static const unsigned int CHECKED[N_CHECKED > 0 ? N_CHECKED : 1] = CHECKED_VRS;
static const char* const CHECKED_NAME[N_CHECKED > 0 ? N_CHECKED : 1] = CHECKED_NAMES;
static const unsigned char CHECK[N_VALUES] = CHECKED_VALUES; /* 1: checked, by reference */

/* CasADi's work arrays: scratch memory that a model function uses only while it runs, so they
 * live on the stack of the call that needs them (a few KB: SZ_W doubles), not in the instance,
 * which keeps only its own values; the stack's top stays in the caches for every instance. */
typedef struct {
    const double* arg[SZ_ARG];
    double* res[SZ_RES];
    long long iw[SZ_IW > 0 ? SZ_IW : 1];
    double w[SZ_W > 0 ? SZ_W : 1];
} Work;

void core_log(Core* m, CoreStatus status, const char* format, ...) {
    char message[512];
    va_list args;
    if (!m->logger || (status == CORE_OK && !m->logging_on)) return;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    m->logger(m->environment, m->instance_name, status, message);
}

__thread Core* core_running = NULL;

void core_release_objects(Core* m) {
    int k;
    core_running = m; /* the destructors' messages are the instance's */
    for (k = 0; k < m->n_objects; k++) {
        CoreObject* slot = &m->objects[k];
        if (slot->object && slot->destruct) slot->destruct(slot->object);
        free(slot->arguments);
    }
    free(m->objects);
    m->objects = NULL;
    m->n_objects = 0;
}

void core_reset(Core* m) {
    core_release_objects(m);
    memcpy(m->s.v, START, sizeof START);
    memset(m->s.memory, 0, sizeof m->s.memory);
#if NDELAY > 0
    memset(m->s.delay, 0, sizeof m->s.delay);
#endif
#ifdef ASSERT_WARNINGS
    memset(m->s.warned, 0, sizeof m->s.warned);
#endif
#if NG > 0
    memcpy(m->s.memory + NC, GUESS, sizeof GUESS);
#endif
#if NCHANGE > 0
    memcpy(m->s.memory + NC + NG, CHANGE_START, sizeof CHANGE_START);
#endif
    m->s.h_internal = 0.0;
    m->s.up_to_date = 0;
    m->s.mode = MODE_INSTANTIATED;
    m->parameters_changed = 1;
}

Core* core_new(const char* instance_name, void* environment, CoreLogger logger, int logging_on,
               int co_simulation) {
    Core* m = (Core*)calloc(1, sizeof(Core));
    if (!m) return NULL;
    snprintf(m->instance_name, sizeof m->instance_name, "%s", instance_name ? instance_name : "");
    m->environment = environment;
    m->logger = logger;
    m->logging_on = logging_on;
    m->co_simulation = co_simulation;
    core_reset(m);
    return m;
}

void core_free(Core* m) {
    core_release_objects(m);
    core_running = NULL;
    free(m);
}

/* The model functions' arguments (t, x, u, p) and, with events, the discrete states and the
 * relation memories after them. */
static void arguments(Work* work, Core* m, const double* t, const double* x) {
    core_running = m;
    work->arg[0] = t;
    work->arg[1] = x;
    work->arg[2] = &m->s.v[VR_U];
    work->arg[3] = &m->s.v[VR_P];
#if HAS_EVENTS
    work->arg[4] = &m->s.v[VR_D];
    work->arg[5] = m->s.memory;
#endif
}

#if NDELAY > 0
/* The delays' delay times, their expressions' values now and their bounds, at (t, x). */
static int delay_terms(Core* m, double t, const double* x, double* delay_time, double* value,
                       double* bound) {
    Work work;
    arguments(&work, m, &t, x);
    work.res[0] = delay_time;
    work.res[1] = value;
    work.res[2] = bound;
    return model_delay(work.arg, work.res, work.iw, work.w, 0);
}

/* Point i (0: the oldest) of a history. */
#define AT(h, a, i) ((h)->a[((h)->first + (i)) % DELAY_POINTS])

/* The delayed value at time t of a delay with delay time tau and its expression's value now:
 * the history read by linear interpolation at t - tau, its first point (the value at the
 * start) before it, extrapolated from its last point to (t, value) after it (tau shorter
 * than the last step). 1 when the history no longer reaches back to t - tau. */
static int delayed(const DelayHistory* h, double t, double tau, double value, double* y) {
    double at = t - tau;
    int low = 0, high;
    if (tau == 0.0 || h->count == 0) { /* no delay, or no history before the start */
        *y = value;
        return 0;
    }
    high = h->count - 1;
    if (at >= AT(h, time, high)) {
        double t_last = AT(h, time, high), v_last = AT(h, value, high);
        *y = t > t_last ? v_last + (value - v_last) * (at - t_last) / (t - t_last) : value;
        return 0;
    }
    if (at < AT(h, time, 0)) {
        *y = AT(h, value, 0);
        return h->overwritten;
    }
    while (high - low > 1) { /* AT(time, low) <= at < AT(time, high) */
        int mid = (low + high) / 2;
        if (AT(h, time, mid) <= at) low = mid;
        else high = mid;
    }
    *y = AT(h, value, low) + (AT(h, value, high) - AT(h, value, low)) * (at - AT(h, time, low)) /
                                 (AT(h, time, high) - AT(h, time, low));
    return 0;
}

/* The delays' values at (t, x) into the memory, where the equations read them. A delay of a
 * delay reads the other's new value: NDELAY passes settle any chain of them. */
static int delays_at(Core* m, double t, const double* x) {
    double delay_time[NDELAY], value[NDELAY], bound[NDELAY];
    int pass, k;
    for (pass = 0; pass < NDELAY; pass++) {
        if (delay_terms(m, t, x, delay_time, value, bound)) return 1;
        for (k = 0; k < NDELAY; k++) {
            if (!(delay_time[k] >= 0.0 && delay_time[k] <= bound[k])) {
                core_log(m, CORE_ERROR,
                         "delay %d: delay time %g s at t = %g s is outside [0, %g s] (delayMax)",
                         k + 1, delay_time[k], t, bound[k]);
                return 1;
            }
            if (delayed(&m->s.delay[k], t, delay_time[k], value[k],
                        &m->s.memory[DELAY_VALUES + k])) {
                core_log(m, CORE_ERROR,
                         "delay %d: its history of %d points no longer reaches back to t = %g s",
                         k + 1, DELAY_POINTS, t - delay_time[k]);
                return 1;
            }
        }
    }
    return 0;
}

/* Append (t, value) to a history: a point at the time of the last one only where the value
 * jumps (an event), and in place of the last point where that one lies closer than spacing
 * to the point before it; points later than t (a restart from an earlier time) are dropped. */
static void append(DelayHistory* h, double t, double value, double spacing) {
    int last;
    while (h->count > 0 && AT(h, time, h->count - 1) > t) h->count--;
    last = h->count - 1;
    if (last >= 0 && AT(h, time, last) == t && AT(h, value, last) == value) return;
    if (last >= 1 && AT(h, time, last) < t && AT(h, time, last) > AT(h, time, last - 1) &&
        AT(h, time, last) - AT(h, time, last - 1) < spacing) {
        h->count--;
    } else if (h->count == DELAY_POINTS) {
        h->first = (h->first + 1) % DELAY_POINTS;
        h->count--;
        h->overwritten = 1;
    }
    AT(h, time, h->count) = t;
    AT(h, value, h->count) = value;
    h->count++;
}

static CoreStatus update(Core* m);

/* The delays' expressions at the instance's time and states appended to their histories. */
static CoreStatus record_delays(Core* m) {
    double delay_time[NDELAY], value[NDELAY], bound[NDELAY];
    const double t = m->s.v[VR_TIME];
    int k;
    if (update(m) != CORE_OK) return CORE_ERROR; /* the delays' values, for delays of delays */
    if (delay_terms(m, t, &m->s.v[VR_X], delay_time, value, bound)) {
        core_log(m, CORE_ERROR, "evaluation of the delayed expressions failed");
        return CORE_ERROR;
    }
    for (k = 0; k < NDELAY; k++)
        append(&m->s.delay[k], t, value[k], bound[k] / (DELAY_POINTS - 2));
    return CORE_OK;
}
#endif

/* arguments() with, for a model with delays, their values at (t, x) in the memory first. */
static int knowns(Work* work, Core* m, const double* t, const double* x) {
#if NDELAY > 0
    if (delays_at(m, *t, x)) return 1;
#endif
    arguments(work, m, t, x);
    return 0;
}

/* dx/dt at (t, x) with the instance's inputs and parameters; w when w_out is not NULL; the
 * nonlinear loops' solution in m->loop_solution. q is computed again first when a parameter
 * may have changed. */
static int evaluate(Core* m, double t, const double* x, double* dx, double* w_out) {
    Work work;
    if (m->parameters_changed) {
        core_running = m;
        work.arg[0] = &m->s.v[VR_P];
        work.res[0] = m->q;
        if (model_parametric(work.arg, work.res, work.iw, work.w, 0)) return 1;
        m->parameters_changed = 0;
    }
    if (knowns(&work, m, &t, x)) return 1;
    work.arg[HAS_EVENTS ? 6 : 4] = m->q;
    work.res[0] = dx;
    work.res[1] = w_out;
#if NG > 0
    work.res[2] = m->loop_solution;
#endif
    return model_eval(work.arg, work.res, work.iw, work.w, 0);
}

#if NC > 0
static int indicators(Core* m, double t, const double* x, double* z) {
    Work work;
    if (knowns(&work, m, &t, x)) return 1;
    work.res[0] = z;
    return model_zc(work.arg, work.res, work.iw, work.w, 0);
}
#endif

#if NASSERT > 0
static const char* const ASSERTS[NASSERT] = ASSERT_MESSAGES;
#ifdef ASSERT_WARNINGS
static const unsigned char WARNING[NASSERT] = ASSERT_WARNINGS; /* 1: AssertionLevel.warning */
#define IS_ERROR(i) (!WARNING[i])
#define HAS_WARNINGS 1
#else
#define IS_ERROR(i) 1
#define HAS_WARNINGS 0
#endif

static CoreStatus check_asserts(Core* m) {
    Work work;
    double ok[NASSERT];
    int i, k;
    if (knowns(&work, m, &m->s.v[VR_TIME], &m->s.v[VR_X])) return CORE_ERROR;
    work.res[0] = ok;
    if (model_assert(work.arg, work.res, work.iw, work.w, 0)) return CORE_ERROR;
    /* the nonlinear loops' convergence (the last NLOOP) first: a loop that did not converge
     * leaves NaN in its unknowns, which fails the model's own asserts on them */
    for (k = 0; k < NASSERT; k++) {
        i = (k + NASSERT - NLOOP) % NASSERT;
        if (!(ok[i] > 0.5) && IS_ERROR(i)) {
            core_log(m, CORE_ERROR, "assert failed at t = %g s: %s", m->s.v[VR_TIME], ASSERTS[i]);
            return CORE_ERROR;
        }
    }
    return CORE_OK;
}
#else
#define HAS_WARNINGS 0
#endif

#if HAS_WARNINGS
/* The warning-level asserts at a completed step or event: one that fails here and did not at
 * the last is logged with a warning status (once per interval in which it fails); the run
 * goes on. */
static CoreStatus check_warnings(Core* m) {
    Work work;
    double ok[NASSERT];
    int i;
    if (knowns(&work, m, &m->s.v[VR_TIME], &m->s.v[VR_X])) return CORE_ERROR;
    work.res[0] = ok;
    if (model_assert(work.arg, work.res, work.iw, work.w, 0)) return CORE_ERROR;
    for (i = 0; i < NASSERT; i++) {
        const unsigned char failing = WARNING[i] && !(ok[i] > 0.5);
        if (failing && !m->s.warned[i])
            core_log(m, CORE_WARNING, "assert warning at t = %.10g s: %s", m->s.v[VR_TIME],
                     ASSERTS[i]);
        m->s.warned[i] = failing;
    }
    return CORE_OK;
}
#endif

/* CORE_ERROR, logged with the variable's name and the time t, when value (that of variable
 * vr, a checked one) is NaN or infinite: a division by zero or a function outside its domain
 * in the model, which an importer would otherwise integrate or record without notice. */
static CoreStatus check_finite(Core* m, double t, unsigned int vr, double value) {
    int i = 0;
    if (!CHECK[vr] || isfinite(value)) return CORE_OK;
    while (CHECKED[i] != vr) i++;
    core_log(m, CORE_ERROR, "%s = %g at t = %g s: not a finite number", CHECKED_NAME[i], value,
             t);
    return CORE_ERROR;
}

/* check_finite over the derivatives dx computed at time t. */
static CoreStatus check_derivatives(Core* m, double t, const double* dx) {
    int i;
    for (i = 0; i < NX; i++)
        if (check_finite(m, t, VR_DX + i, dx[i]) != CORE_OK) return CORE_ERROR;
    return CORE_OK;
}

static CoreStatus update(Core* m) {
#if NC > 0
    int i;
#endif
    if (m->s.up_to_date) return CORE_OK;
    if (evaluate(m, m->s.v[VR_TIME], &m->s.v[VR_X], &m->s.v[VR_DX], &m->s.v[VR_W])) {
        core_log(m, CORE_ERROR, "evaluation of the model equations failed");
        return CORE_ERROR;
    }
#if NC > 0
    if (indicators(m, m->s.v[VR_TIME], &m->s.v[VR_X], &m->s.v[VR_Z])) {
        core_log(m, CORE_ERROR, "evaluation of the event indicators failed");
        return CORE_ERROR;
    }
#endif
#if NASSERT > 0
    if (check_asserts(m) != CORE_OK) return CORE_ERROR;
#endif
    /* after the asserts: a model's own assert, or a loop that did not converge, names the
     * cause of a NaN better; the outputs are checked where they are read (core_get) */
    if (check_derivatives(m, m->s.v[VR_TIME], &m->s.v[VR_DX]) != CORE_OK) return CORE_ERROR;
#if NC > 0
    for (i = 0; i < NC; i++)
        if (check_finite(m, m->s.v[VR_TIME], VR_Z + i, m->s.v[VR_Z + i]) != CORE_OK)
            return CORE_ERROR;
#endif
    m->s.up_to_date = 1;
    return CORE_OK;
}

CoreStatus core_get_event_indicators(Core* m, double* z, size_t n) {
    if (n != (size_t)NC) {
        core_log(m, CORE_ERROR, "the model has %d event indicators, not %zu", NC, n);
        return CORE_ERROR;
    }
    if (update(m) != CORE_OK) return CORE_ERROR;
    if (n) memcpy(z, &m->s.v[VR_Z], n * sizeof(double));
    return CORE_OK;
}

/* Copy new into old; 1 when any value differs. */
static int take(double* old, const double* new_values, int n) {
    int i, changed = 0;
    for (i = 0; i < n; i++) {
        if (old[i] != new_values[i]) changed = 1;
        old[i] = new_values[i];
    }
    return changed;
}

#if HAS_EVENTS
/* One pass of the event iteration at the instance's time and states into x_new, d_new and
 * memory_new; initial, terminal: 1 in the update on leaving initialization mode, on
 * termination; settling: 1 in the passes after the first (relations decided with memory). */
static CoreStatus event_pass(Core* m, double initial, double terminal, double settling,
                             double* x_new, double* d_new, double* memory_new) {
    Work work;
    if (knowns(&work, m, &m->s.v[VR_TIME], &m->s.v[VR_X])) {
        core_log(m, CORE_ERROR, "evaluation of the delays failed");
        return CORE_ERROR;
    }
    work.arg[6] = m->s.memory + N_CMEM;
    work.arg[7] = m->s.memory + N_CMEM + NWHEN;
    work.arg[8] = &initial;
    work.arg[9] = &terminal;
    work.arg[10] = &settling;
    work.res[0] = x_new;
    work.res[1] = d_new;
    work.res[2] = memory_new;
    work.res[3] = memory_new + N_CMEM;
    work.res[4] = memory_new + N_CMEM + NWHEN;
    if (model_event(work.arg, work.res, work.iw, work.w, 0)) {
        core_log(m, CORE_ERROR, "evaluation of the event update failed");
        return CORE_ERROR;
    }
    return CORE_OK;
}

/* The next time event after the instance's time: the earliest of the samples' next times and
 * of the switching times of the relations on time alone still ahead (more than the slack of
 * events.py past now: one within it has switched at this event). */
static CoreStatus next_event_time(Core* m, int* defined, double* next) {
    int i;
    *defined = NSAMPLE > 0;
    *next = INFINITY;
    for (i = 0; i < NSAMPLE; i++) *next = fmin(*next, m->s.memory[N_CMEM + NWHEN + i]);
#if NTIME > 0
    {
        const double t = m->s.v[VR_TIME];
        double times[NTIME];
        Work work;
        if (knowns(&work, m, &m->s.v[VR_TIME], &m->s.v[VR_X])) return CORE_ERROR;
        work.res[0] = times;
        if (model_time_events(work.arg, work.res, work.iw, work.w, 0)) {
            core_log(m, CORE_ERROR, "evaluation of the time events failed");
            return CORE_ERROR;
        }
        for (i = 0; i < NTIME; i++)
            if (times[i] > t + TIME_EVENT_SLACK * fmax(1.0, fabs(t))) {
                *next = fmin(*next, times[i]);
                *defined = 1;
            }
    }
#endif
    if (!*defined) *next = 0.0;
    return CORE_OK;
}
#endif

/* The event iteration of core_event_update; terminal: the update on termination. The first
 * pass decides each relation by the sign of its zero-crossing function; the passes after it
 * by the sign of its event indicator, so that a relation keeps the value the pass before gave
 * it unless it has passed its switching point by more than the indicators' hysteresis the
 * other way (events.py). A state that truly cycles ends at the limit of passes. */
static CoreStatus event_iteration(Core* m, int initial, int terminal, int* states_changed,
                                  int* next_defined, double* next_time) {
#if HAS_EVENTS
    double x_new[NX > 0 ? NX : 1], d_new[ND > 0 ? ND : 1], memory_new[N_MEMORY > 0 ? N_MEMORY : 1];
    double flag = initial ? 1.0 : 0.0, final_flag = terminal ? 1.0 : 0.0;
    int pass, changed = 1;
    *states_changed = 0;
    for (pass = 0; pass < 100 && changed; pass++) {
        if (event_pass(m, flag, final_flag, pass > 0, x_new, d_new, memory_new) != CORE_OK)
            return CORE_ERROR;
        if (take(&m->s.v[VR_X], x_new, NX)) *states_changed = 1;
        changed = take(&m->s.v[VR_D], d_new, ND) | take(m->s.memory, memory_new, N_MEMORY);
        changed |= pass == 0 && initial; /* one more pass once the start is settled */
        flag = final_flag = 0.0;
        m->s.up_to_date = 0;
    }
    if (changed) {
        core_log(m, CORE_ERROR, "event iteration at t = %g s did not settle in 100 passes",
                 m->s.v[VR_TIME]);
        return CORE_ERROR;
    }
    if (next_event_time(m, next_defined, next_time) != CORE_OK) return CORE_ERROR;
#if HAS_WARNINGS
    if (NG == 0 && NDELAY == 0 && check_warnings(m) != CORE_OK) return CORE_ERROR;
#endif
    return NG > 0 || NDELAY > 0 ? core_completed_step(m) : update(m);
#else
    (void)initial;
    (void)terminal;
    *states_changed = 0;
    *next_defined = 0;
    *next_time = 0.0;
    return update(m);
#endif
}

CoreStatus core_event_update(Core* m, int initial, int* states_changed, int* next_defined,
                             double* next_time) {
    return event_iteration(m, initial, 0, states_changed, next_defined, next_time);
}

CoreStatus core_terminate(Core* m) {
    int moved, defined;
    double next;
    CoreStatus status = CORE_OK;
    if (HAS_EVENTS && m->s.mode != MODE_INSTANTIATED && m->s.mode != MODE_INITIALIZATION &&
        m->s.mode != MODE_TERMINATED)
        status = event_iteration(m, 0, 1, &moved, &defined, &next);
    m->s.mode = MODE_TERMINATED;
    return status;
}

CoreStatus core_initialize(Core* m) {
#if HAS_INIT
    Work work;
    double x0[NX > 0 ? NX : 1];
    double residual = 0.0;
    work.arg[0] = &m->s.v[VR_TIME];
    work.arg[1] = &m->s.v[VR_X];
    work.arg[2] = &m->s.v[VR_U];
    work.arg[3] = &m->s.v[VR_P];
    work.res[0] = x0;
    work.res[1] = &residual;
    core_running = m;
    if (model_init(work.arg, work.res, work.iw, work.w, 0)) {
        core_log(m, CORE_ERROR, "evaluation of the initial conditions failed");
        return CORE_ERROR;
    }
    if (!(residual <= INIT_TOLERANCE)) {
        core_log(m, CORE_ERROR,
                 "initialization failed: the initial conditions hold only to %g (tolerance %g)",
                 residual, INIT_TOLERANCE);
        return CORE_ERROR;
    }
    memcpy(&m->s.v[VR_X], x0, NX * sizeof(double));
    m->s.up_to_date = 0;
#else
    (void)m;
#endif
    return CORE_OK;
}

CoreStatus core_completed_step(Core* m) {
#if NG > 0
    int i;
    m->s.up_to_date = 0;
    if (update(m) != CORE_OK) return CORE_ERROR;
    for (i = 0; i < NG; i++)
        if (isfinite(m->loop_solution[i])) m->s.memory[NC + i] = m->loop_solution[i];
#endif
#if NDELAY > 0
    if (record_delays(m) != CORE_OK) return CORE_ERROR;
#endif
#if HAS_WARNINGS
    if (check_warnings(m) != CORE_OK) return CORE_ERROR;
#endif
    (void)m;
    return CORE_OK;
}

#if HAS_HOMOTOPY
#define HOMOTOPY_STEPS 10      /* lambda from 0 to 1 in this many equal steps at first */
#define HOMOTOPY_MIN_STEP 1e-4 /* a step that fails is halved down to this */
#define N_HOMOTOPY N_CMEM

/* Relations and loop guesses at lambda, passes repeated until the relations settle; 0 when
 * every loop converged, else the number (from 1) of a loop that did not. */
static int homotopy_at(Core* m, double lambda, double* c, int* failed) {
    Work work;
    double c_new[N_HOMOTOPY > 0 ? N_HOMOTOPY : 1], converged[NLOOP > 0 ? NLOOP : 1];
    int pass, i, changed = 1;
    *failed = 0;
    for (pass = 0; pass < 100 && changed; pass++) {
        if (knowns(&work, m, &m->s.v[VR_TIME], &m->s.v[VR_X])) {
            *failed = 1;
            return 0;
        }
        work.arg[5] = c;
        work.arg[6] = &lambda;
        work.res[0] = c_new;
        work.res[1] = converged;
        if (model_homotopy(work.arg, work.res, work.iw, work.w, 0)) {
            *failed = 1;
            return 0;
        }
        for (i = 0; i < NLOOP; i++)
            if (!(converged[i] > 0.5)) return i + 1;
        changed = take(c, c_new, NC);
        memcpy(c + NC, c_new + NC, NG * sizeof(double));
    }
    if (changed) *failed = 1;
    return 0;
}
#endif

CoreStatus core_homotopy(Core* m) {
#if HAS_HOMOTOPY
    double c[N_HOMOTOPY], trial[N_HOMOTOPY];
    double lambda = 0.0, step = 1.0 / HOMOTOPY_STEPS;
    int failed, loop;
    memcpy(c, m->s.memory, sizeof c);
    loop = homotopy_at(m, 0.0, c, &failed);
    while (!failed && !loop && lambda < 1.0) {
        double next = fmin(1.0, lambda + step);
        memcpy(trial, c, sizeof c);
        loop = homotopy_at(m, next, trial, &failed);
        if (!failed && !loop) {
            memcpy(c, trial, sizeof c);
            lambda = next;
        } else if (step > HOMOTOPY_MIN_STEP) {
            step *= 0.5;
            failed = loop = 0;
        } else {
            lambda = next;
        }
    }
#if NLOOP > 0
    if (loop) {
        core_log(m, CORE_ERROR, "initialization by homotopy failed at lambda = %g: %s", lambda,
                 ASSERTS[NASSERT - NLOOP + loop - 1]);
        return CORE_ERROR;
    }
#endif
    if (failed) {
        core_log(m, CORE_ERROR,
                 "initialization by homotopy failed at lambda = %g: the relations did not "
                 "settle in 100 passes", lambda);
        return CORE_ERROR;
    }
    memcpy(m->s.memory, c, sizeof c);
    m->s.up_to_date = 0;
#else
    (void)m;
#endif
    return CORE_OK;
}

CoreStatus core_get(Core* m, const unsigned int* vr, size_t n, double* values) {
    size_t i;
    if (n && update(m) != CORE_OK) return CORE_ERROR;
    for (i = 0; i < n; i++) {
        if (vr[i] >= N_VALUES) {
            core_log(m, CORE_ERROR, "no Float64 variable has value reference %u", vr[i]);
            return CORE_ERROR;
        }
        values[i] = m->s.v[vr[i]];
        if (check_finite(m, m->s.v[VR_TIME], vr[i], values[i]) != CORE_OK) return CORE_ERROR;
    }
    return CORE_OK;
}

CoreStatus core_set(Core* m, const unsigned int* vr, size_t n, const double* values) {
    size_t i;
    int parameter_set = 0;
    for (i = 0; i < n; i++) {
        if (vr[i] >= N_VALUES || !SETTABLE[vr[i]]) {
            core_log(m, CORE_ERROR, "variable with value reference %u cannot be set", vr[i]);
            return CORE_ERROR;
        }
        /* 2: a fixed parameter, which only the initialization reads */
        if (SETTABLE[vr[i]] == 2 && m->s.mode != MODE_INSTANTIATED &&
            m->s.mode != MODE_INITIALIZATION) {
            core_log(m, CORE_ERROR,
                     "parameter with value reference %u is fixed: it can be set before "
                     "initialization only",
                     vr[i]);
            return CORE_ERROR;
        }
    }
    for (i = 0; i < n; i++) {
        m->s.v[vr[i]] = values[i];
        if (vr[i] >= VR_P && vr[i] < VR_P + NP) m->parameters_changed = parameter_set = 1;
    }
    if (n) m->s.up_to_date = 0;
#if HAS_EVENTS
    /* a tunable parameter set between communication points: the relations and when-conditions
     * it enters are decided again at once, as a Model Exchange importer has them decided in
     * Event Mode */
    if (parameter_set && m->co_simulation && m->s.mode == MODE_STEP) {
        int moved, defined;
        double next;
        return core_event_update(m, 0, &moved, &defined, &next);
    }
#endif
    return CORE_OK;
}

CoreStatus core_set_time(Core* m, double time) {
    m->s.v[VR_TIME] = time;
    m->s.up_to_date = 0;
    return CORE_OK;
}

static CoreStatus check_states(Core* m, size_t n) {
    if (n != NX) {
        core_log(m, CORE_ERROR, "the model has %d continuous states, not %zu", NX, n);
        return CORE_ERROR;
    }
    return CORE_OK;
}

CoreStatus core_set_states(Core* m, const double* x, size_t n) {
    if (check_states(m, n) != CORE_OK) return CORE_ERROR;
    if (n) memcpy(&m->s.v[VR_X], x, n * sizeof(double));
    m->s.up_to_date = 0;
    return CORE_OK;
}

CoreStatus core_get_states(Core* m, double* x, size_t n) {
    if (check_states(m, n) != CORE_OK) return CORE_ERROR;
    if (n) memcpy(x, &m->s.v[VR_X], n * sizeof(double));
    return CORE_OK;
}

CoreStatus core_get_derivatives(Core* m, double* dx, size_t n) {
    if (check_states(m, n) != CORE_OK || update(m) != CORE_OK) return CORE_ERROR;
    if (n) memcpy(dx, &m->s.v[VR_DX], n * sizeof(double));
    return CORE_OK;
}

CoreStatus core_get_nominals(Core* m, double* nominals, size_t n) {
    size_t i;
    if (check_states(m, n) != CORE_OK) return CORE_ERROR;
    for (i = 0; i < n; i++) nominals[i] = 1.0;
    return CORE_OK;
}

/* Seed vector over (t, p, u, x) in value-reference order; the sensitivity is read from the
 * directional derivative of (dx/dt, w). States, inputs, parameters and time are knowns; the
 * delays' values are held at those of (t, x), as the memories are. */
CoreStatus core_directional(Core* m, const unsigned int* unknowns, size_t n_unknowns,
                            const unsigned int* knowns, size_t n_knowns, const double* seed,
                            double* sensitivity) {
    Work work;
    double d_in[VR_DX];
    double d_out[N_VALUES - VR_DX];
    size_t i;
    memset(d_in, 0, sizeof d_in);
    for (i = 0; i < n_knowns; i++) {
        if (knowns[i] >= VR_DX) {
            core_log(m, CORE_ERROR, "value reference %u is not a known of the model", knowns[i]);
            return CORE_ERROR;
        }
        d_in[knowns[i]] = seed[i];
    }
    for (i = 0; i < n_unknowns; i++) {
        if (unknowns[i] >= N_VALUES || unknowns[i] == VR_TIME) {
            core_log(m, CORE_ERROR, "value reference %u is not an unknown", unknowns[i]);
            return CORE_ERROR;
        }
    }
#if NDELAY > 0
    if (delays_at(m, m->s.v[VR_TIME], &m->s.v[VR_X])) return CORE_ERROR;
#endif
    work.arg[0] = &m->s.v[VR_TIME];
    work.arg[1] = &m->s.v[VR_X];
    work.arg[2] = &m->s.v[VR_U];
    work.arg[3] = &m->s.v[VR_P];
    work.arg[4] = &d_in[VR_TIME];
    work.arg[5] = &d_in[VR_X];
    work.arg[6] = &d_in[VR_U];
    work.arg[7] = &d_in[VR_P];
#if HAS_EVENTS
    work.arg[8] = &m->s.v[VR_D];
    work.arg[9] = m->s.memory;
#endif
    work.res[0] = d_out;
    work.res[1] = d_out + NX;
    core_running = m;
    if (model_jvp(work.arg, work.res, work.iw, work.w, 0)) {
        core_log(m, CORE_ERROR, "evaluation of the directional derivative failed");
        return CORE_ERROR;
    }
    for (i = 0; i < n_unknowns; i++) {
        unsigned int r = unknowns[i];
        /* Unknowns that are states, inputs or parameters are knowns themselves. */
        sensitivity[i] = r >= VR_DX ? (r < VR_TOLERANCE ? d_out[r - VR_DX] : 0.0) : d_in[r];
    }
    return CORE_OK;
}

/* Dormand-Prince 5(4) coefficients: J. R. Dormand, P. J. Prince, "A family of embedded
 * Runge-Kutta formulae", J. Comput. Appl. Math. 6(1), 1980. */
static const double C[7] = {0.0, 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9, 1.0, 1.0};
static const double A[7][6] = {
    {0, 0, 0, 0, 0, 0},
    {1.0 / 5, 0, 0, 0, 0, 0},
    {3.0 / 40, 9.0 / 40, 0, 0, 0, 0},
    {44.0 / 45, -56.0 / 15, 32.0 / 9, 0, 0, 0},
    {19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729, 0, 0},
    {9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176, -5103.0 / 18656, 0},
    {35.0 / 384, 0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84}};
/* Difference between the 5th order weights (row 6 of A) and the embedded 4th order ones. */
static const double E[7] = {71.0 / 57600,      0, -71.0 / 16695, 71.0 / 1920,
                            -17253.0 / 339200, 22.0 / 525, -1.0 / 40};

/* One trial step of size h from (t, x) with k[0] = f(t, x); x_trial and the error norm
 * (weighted RMS, tolerance on relative and absolute error alike) are the result. With event
 * indicators, z_stage[s] (s = 1 ... 6) gets them at the stage states, at t + C[s] h:
 * z_stage[5] at the state from which k[5] is computed, z_stage[6] at the step's end. */
static int dopri_trial(Core* m, double t, const double* x, double h, double tol, double* norm,
                       double (*z_stage)[NC > 0 ? NC : 1]) {
    int s, j, i;
    double sum = 0.0;
    for (s = 1; s < 7; s++) {
        for (i = 0; i < NX; i++) {
            double acc = x[i];
            for (j = 0; j < s; j++) acc += h * A[s][j] * m->k[j][i];
            m->x_trial[i] = acc;
        }
#if NC > 0
        if (indicators(m, t + C[s] * h, m->x_trial, z_stage[s])) return 1;
#else
        (void)z_stage;
#endif
        if (evaluate(m, t + C[s] * h, m->x_trial, m->k[s], NULL)) return 1;
    }
    for (i = 0; i < NX; i++) {
        double err = 0.0, scale;
        for (s = 0; s < 7; s++) err += h * E[s] * m->k[s][i];
        scale = tol + tol * fmax(fabs(x[i]), fabs(m->x_trial[i]));
        sum += (err / scale) * (err / scale);
    }
    *norm = sqrt(sum / (NX > 0 ? NX : 1));
    return 0;
}

#if NC > 0
/* Dense output of the Dormand-Prince pair: L. F. Shampine, "Some practical Runge-Kutta
 * formulas", Math. Comp. 46(173), 1986, in the form of E. Hairer, S. P. Norsett, G. Wanner,
 * "Solving Ordinary Differential Equations I", 2nd ed., Springer 1993, Sec. II.6. */
static const double D[7] = {-12715105075.0 / 11282082432, 0, 87487479700.0 / 32700410799,
                            -10690763975.0 / 1880347072, 701980252875.0 / 199316789632,
                            -1453857185.0 / 822651844,   69997945.0 / 29380423};

/* The state at fraction theta of the trial step from x of size h whose stages are in m->k and
 * whose end is m->x_trial: a polynomial of degree 4 in theta, of 4th order. */
static void dense_output(const Core* m, const double* x, double h, double theta, double* out) {
    int i, s;
    for (i = 0; i < NX; i++) {
        double change = m->x_trial[i] - x[i], first = h * m->k[0][i] - change, d = 0.0;
        for (s = 0; s < 7; s++) d += D[s] * m->k[s][i];
        out[i] = x[i] + theta * (change + (1.0 - theta) *
                                              (first + theta * (change - h * m->k[6][i] - first +
                                                                (1.0 - theta) * h * d)));
    }
}

/* 1 when a finite indicator of z has another sign than in z0. */
static int crossed(const double* z, const double* z0) {
    int i;
    for (i = 0; i < NC; i++)
        if (isfinite(z[i]) && (z[i] > 0.0) != (z0[i] > 0.0)) return 1;
    return 0;
}

/* The earliest zero, on the line from (a, z_a) to (b, z_b), of the indicators that have
 * another sign at b than in z0 (z_a has z0's signs): regula falsi. */
static double regula_falsi(double a, const double* z_a, double b, const double* z_b,
                           const double* z0) {
    double at = b;
    int i;
    for (i = 0; i < NC; i++)
        if (isfinite(z_b[i]) && (z_b[i] > 0.0) != (z0[i] > 0.0))
            at = fmin(at, a + (b - a) * z_a[i] / (z_a[i] - z_b[i]));
    return at;
}

/* Where an indicator crosses zero in time: no indicator differs in sign from z0 at lo (the
 * instance's time), one does at hi. The values z_hi weigh the regula falsi; the Illinois
 * variant halves those of the end that stayed when the other moved twice in a row
 * (M. Dowell, P. Jarratt, "A modified regula falsi method for computing the root of an
 * equation", BIT 11, 1971). */
typedef struct {
    int open;      /* 1 while a crossing is bracketed */
    double hi;     /* s */
    double guess;  /* s, the next point to step to, in (lo, hi) */
    int side;      /* -1: lo moved last, +1: hi moved last */
    double z_hi[NC];
} Bracket;

/* The bracket's next point from (lo, z_lo), (hi, b->z_hi) or the given one, kept resolution
 * / 2 away from both ends. */
static void next_guess(Bracket* b, double lo, double guess, double resolution) {
    b->guess = fmin(fmax(guess, lo + 0.5 * resolution), b->hi - 0.5 * resolution);
}

/* A crossing seen in the trial step from (t, x) of size h (stage indicators z_stage, z_stage[0]
 * those at t): the bracket narrowed to it. Where the step was accepted and only its end
 * crossed, the crossing is located on the dense output (Illinois to the resolution, indicators
 * only); otherwise between the last stage before the crossing and the first after it, which
 * the next trial steps towards. 1 when an evaluation of the indicators failed. */
static int narrow(Core* m, Bracket* b, double t, const double* x, double h, int accepted,
                  double (*z_stage)[NC], double resolution) {
    int s = 1, before;
    while (!crossed(z_stage[s], z_stage[0])) s++;
    if (accepted && C[s] == 1.0 && crossed(z_stage[6], z_stage[0])) {
        double lo = 0.0, hi = 1.0, z_lo[NC], z[NC], x_theta[NX > 0 ? NX : 1];
        int side = 0, pass, i;
        memcpy(z_lo, z_stage[0], sizeof z_lo);
        memcpy(b->z_hi, z_stage[6], sizeof z);
        for (pass = 0; pass < 200 && (hi - lo) * h > resolution; pass++) {
            double theta = regula_falsi(lo, z_lo, hi, b->z_hi, z_stage[0]);
            theta = fmin(fmax(theta, lo + 0.25 * resolution / h), hi - 0.25 * resolution / h);
            dense_output(m, x, h, theta, x_theta);
            if (indicators(m, t + theta * h, x_theta, z)) return 1;
            if (crossed(z, z_stage[0])) {
                hi = theta;
                memcpy(b->z_hi, z, sizeof z);
                if (side > 0)
                    for (i = 0; i < NC; i++) z_lo[i] *= 0.5;
                side = 1;
            } else {
                lo = theta;
                memcpy(z_lo, z, sizeof z);
                if (side < 0)
                    for (i = 0; i < NC; i++) b->z_hi[i] *= 0.5;
                side = -1;
            }
        }
        /* step again to the point before the crossing, so that no stage of the step that
         * reaches the event lies past it */
        b->hi = t + hi * h;
        next_guess(b, t, t + lo * h, resolution);
    } else {
        for (before = s - 1; before > 0 && C[before] == C[s]; before--) {
        }
        b->hi = t + C[s] * h;
        memcpy(b->z_hi, z_stage[s], sizeof b->z_hi);
        next_guess(b, t,
                   regula_falsi(t + C[before] * h, z_stage[before], b->hi, z_stage[s],
                                z_stage[0]),
                   resolution);
    }
    b->open = 1;
    b->side = 1;
    return 0;
}
#endif

#if NC > 0 || NSAMPLE > 0
/* The event update at the instance's time (a crossing located or a sample time reached) and
 * the integrator restarted there: k[0], the indicators z0 and the next sample time anew. */
static CoreStatus step_event(Core* m, double* z0, double* next_sample) {
    const double t = m->s.v[VR_TIME];
    int moved, defined;
#if NDELAY > 0
    /* the values before the event: where a delayed expression jumps, its history holds both
     * sides */
    if (record_delays(m) != CORE_OK) return CORE_ERROR;
#endif
    if (core_event_update(m, 0, &moved, &defined, next_sample) != CORE_OK) return CORE_ERROR;
    if (!defined) *next_sample = INFINITY;
    memcpy(z0, &m->s.v[VR_Z], NC * sizeof(double));
    if (evaluate(m, t, &m->s.v[VR_X], m->k[0], NULL) ||
        check_derivatives(m, t, m->k[0]) != CORE_OK)
        return CORE_ERROR;
    return CORE_OK;
}

/* An event closer than CHATTER_SPACING max(1, |t|) to the one before, CHATTER_EVENTS times in
 * a row, ends the step with an error: the model switches back and forth without time passing
 * (a Zeno point, or a discontinuity it crosses at every step). */
#define CHATTER_EVENTS 100
#define CHATTER_SPACING 1e-8
#endif

CoreStatus core_do_step(Core* m, double t0, double h) {
    double* x = &m->s.v[VR_X];
    const double tol = m->s.v[VR_TOLERANCE];
    const double max_step = m->s.v[VR_MAX_STEP];
    const double t_end = t0 + h;
    double t = t0, step, norm = 0.0;
    double z_stage[7][NC > 0 ? NC : 1]; /* indicators at a trial's stages */
    long n_steps = 0;
    int i;
#if NC > 0 || NSAMPLE > 0
    double z0[NC > 0 ? NC : 1];
    double next_sample = INFINITY, last_event = -INFINITY; /* s: the next time event */
    int close_events = 0, defined;
#endif
#if NC > 0
    Bracket bracket;
    memset(&bracket, 0, sizeof bracket); /* open = 0: no crossing bracketed */
#endif
    if (!m->co_simulation || m->s.mode != MODE_STEP) {
        core_log(m, CORE_ERROR, "doStep: needs a Co-Simulation instance after initialization");
        return CORE_ERROR;
    }
    if (!(h >= 0.0) || !(tol > 0.0) || !(max_step > 0.0)) {
        core_log(m, CORE_ERROR, "doStep: need h >= 0, solver tolerance > 0, max step > 0");
        return CORE_ERROR;
    }
    if ((NX == 0 && NC == 0 && NSAMPLE == 0 && NDELAY == 0) || h == 0.0) {
        core_set_time(m, t_end);
        return update(m);
    }
#if NC > 0 || NSAMPLE > 0
    core_set_time(m, t);
    if (update(m) != CORE_OK) return CORE_ERROR;
    memcpy(z0, &m->s.v[VR_Z], NC * sizeof(double));
    if (next_event_time(m, &defined, &next_sample) != CORE_OK) return CORE_ERROR;
    if (!defined) next_sample = INFINITY;
#endif
    if (evaluate(m, t, x, m->k[0], NULL) || check_derivatives(m, t, m->k[0]) != CORE_OK)
        return CORE_ERROR;
    step = m->s.h_internal > 0.0 ? m->s.h_internal : fmin(h, max_step);
    while (t < t_end) {
        double trial = fmin(step, max_step);
        int last = 0, towards_event = 0;
#if NC > 0 || NSAMPLE > 0
        int event = 0;
#endif
#if NC > 0
        const double resolution = 1e-12 * fmax(1.0, fabs(t)); /* s, of located crossings */
        if (bracket.open && bracket.hi - t <= resolution) {
            /* the crossing located: the state there from the one before by an Euler step of
             * at most 1e-12 s (no stage past the crossing) */
            for (i = 0; i < NX; i++) x[i] += (bracket.hi - t) * m->k[0][i];
            t = bracket.hi >= t_end - 1e-12 * fmax(1.0, fabs(t_end)) ? t_end : bracket.hi;
            bracket.open = 0;
            core_set_time(m, t);
            if (indicators(m, t, x, z_stage[6])) {
                core_log(m, CORE_ERROR, "doStep: event indicators failed at t = %g s", t);
                return CORE_ERROR;
            }
            if (!crossed(z_stage[6], z0)) { /* a stage's state was off: no event yet */
                memcpy(z0, z_stage[6], sizeof z0);
                if (evaluate(m, t, x, m->k[0], NULL) || core_completed_step(m) != CORE_OK)
                    return CORE_ERROR;
                continue;
            }
            event = 1;
        } else if (bracket.open && bracket.guess - t < trial) {
            trial = bracket.guess - t;
            towards_event = 1;
        }
        if (!event) {
#endif
#if HAS_TIME_EVENTS
            if (next_sample > t && t + trial > next_sample) trial = next_sample - t;
#endif
            if (!towards_event && t + trial >= t_end - 1e-12 * fmax(1.0, fabs(t_end))) {
                trial = t_end - t; /* never past the communication point */
                last = 1;
            }
            if (++n_steps > MAX_STEPS_PER_CALL ||
                dopri_trial(m, t, x, trial, tol, &norm, z_stage)) {
                core_log(m, CORE_ERROR, "doStep: integration failed at t = %g s", t);
                return CORE_ERROR;
            }
            if (!isfinite(norm)) norm = 1e10;
#if NC > 0
            memcpy(z_stage[0], z0, sizeof z0);
            for (i = 1; i < 7 && !crossed(z_stage[i], z0); i++) {
            }
            if (i < 7) { /* an indicator crossed: the trial stops short of the crossing */
                if (narrow(m, &bracket, t, x, trial, norm <= 1.0, z_stage, resolution)) {
                    core_log(m, CORE_ERROR, "doStep: event location failed at t = %g s", t);
                    return CORE_ERROR;
                }
                continue;
            }
        }
#endif
#if NC > 0 || NSAMPLE > 0
        if (!event && !towards_event && norm <= 1.0 && HAS_TIME_EVENTS &&
            t + trial >= next_sample - 1e-12 * fmax(1.0, fabs(next_sample))) {
            /* a step that ends at a sample time ends there */
            for (i = 0; i < NX; i++) x[i] = m->x_trial[i];
            t = last ? t_end : t + trial;
            core_set_time(m, t);
            event = 1;
        }
        if (event) {
            if (t - last_event < CHATTER_SPACING * fmax(1.0, fabs(t))) close_events++;
            else close_events = 0;
            last_event = t;
            if (close_events >= CHATTER_EVENTS) {
                core_log(m, CORE_ERROR,
                         "doStep: %d events in a row less than %g s apart up to t = %.10g s: "
                         "the model chatters (switches back at each event)",
                         CHATTER_EVENTS, CHATTER_SPACING * fmax(1.0, fabs(t)), t);
                return CORE_ERROR;
            }
            if (step_event(m, z0, &next_sample) != CORE_OK) return CORE_ERROR;
#if NC > 0
            bracket.open = 0; /* the event changed what the indicators measure */
#endif
            continue;
        }
#endif
        if (norm <= 1.0) {
            for (i = 0; i < NX; i++) x[i] = m->x_trial[i];
            t = last ? t_end : t + trial;
            memcpy(m->k[0], m->k[6], sizeof m->k[0]); /* first same as last */
#if NC > 0
            memcpy(z0, z_stage[6], sizeof z0);
            if (bracket.open) { /* the crossing still ahead: the bracket's lower end moved */
                if (bracket.side < 0)
                    for (i = 0; i < NC; i++) bracket.z_hi[i] *= 0.5;
                bracket.side = -1;
                next_guess(&bracket, t, regula_falsi(t, z0, bracket.hi, bracket.z_hi, z0),
                           1e-12 * fmax(1.0, fabs(t)));
            }
#endif
#if NG > 0 || NDELAY > 0 || HAS_WARNINGS
            core_set_time(m, t);
            if (core_completed_step(m) != CORE_OK) return CORE_ERROR;
#endif
            if (!towards_event && (!last || trial >= step))
                step = trial * fmin(5.0, fmax(0.2, 0.9 * pow(fmax(norm, 1e-10), -0.2)));
        } else {
            step = trial * fmax(0.2, 0.9 * pow(norm, -0.2));
            if (step < 1e-14 * fmax(1.0, fabs(t))) {
                core_log(m, CORE_ERROR, "doStep: step size underflow at t = %g s", t);
                return CORE_ERROR;
            }
        }
    }
    m->s.h_internal = step;
    core_set_time(m, t_end);
    return update(m);
}

size_t core_serialized_size(void) { return 2 * sizeof(unsigned int) + sizeof(CoreSnapshot); }

CoreSnapshot* core_save(Core* m) {
    CoreSnapshot* state = (CoreSnapshot*)malloc(sizeof(CoreSnapshot));
    if (state) *state = m->s;
    else core_log(m, CORE_ERROR, "out of memory for an FMU state");
    return state;
}

/* After an FMU state is restored, its external objects meet the restored time: the
 * when-equations that fire at initial() (the MSL's time tables' among them) are evaluated once
 * at the restored time and states, their results dropped, so that the external calls they
 * make see that time. An object keeping its own event interval (the MSL's CombiTimeTable, which
 * finds it again from the table when called at an earlier time than before) then holds the
 * interval of the restored state, not the one of a later time it had reached. */
static CoreStatus objects_at_restored_time(Core* m) {
#if HAS_EVENTS
    double x_new[NX > 0 ? NX : 1], d_new[ND > 0 ? ND : 1], memory_new[N_MEMORY > 0 ? N_MEMORY : 1];
    if (m->n_objects == 0 || m->s.mode == MODE_INSTANTIATED ||
        m->s.mode == MODE_INITIALIZATION || m->s.mode == MODE_TERMINATED)
        return CORE_OK; /* no objects yet, or the initial event update still to come */
    return event_pass(m, 1.0, 0.0, 0.0, x_new, d_new, memory_new);
#else
    (void)m;
    return CORE_OK;
#endif
}

CoreStatus core_restore(Core* m, const CoreSnapshot* state) {
    if (!state) return CORE_ERROR;
    m->s = *state; /* its parameters may differ from the instance's */
    m->parameters_changed = 1;
    return objects_at_restored_time(m);
}

CoreStatus core_serialize(const CoreSnapshot* state, unsigned char* bytes, size_t size) {
    const unsigned int header[2] = {STATE_MAGIC, (unsigned int)N_VALUES};
    if (!state || size < core_serialized_size()) return CORE_ERROR;
    memcpy(bytes, header, sizeof header);
    memcpy(bytes + sizeof header, state, sizeof(CoreSnapshot));
    return CORE_OK;
}

CoreStatus core_deserialize(Core* m, const unsigned char* bytes, size_t size,
                            CoreSnapshot** state) {
    unsigned int header[2];
    if (size != core_serialized_size()) {
        core_log(m, CORE_ERROR, "serialized FMU state has %zu bytes, expected %zu", size,
                 core_serialized_size());
        return CORE_ERROR;
    }
    memcpy(header, bytes, sizeof header);
    if (header[0] != STATE_MAGIC || header[1] != N_VALUES) {
        core_log(m, CORE_ERROR, "serialized FMU state belongs to another model");
        return CORE_ERROR;
    }
    if (!*state) *state = (CoreSnapshot*)malloc(sizeof(CoreSnapshot));
    if (!*state) return CORE_ERROR;
    memcpy(*state, bytes + sizeof header, sizeof(CoreSnapshot));
    return CORE_OK;
}

#ifdef VALUE_TYPES
static const unsigned char VALUE_TYPE[N_VALUES] = VALUE_TYPES;
#endif

CoreStatus core_check_types(Core* m, const unsigned int* vr, size_t n, int accepted,
                            const char* type) {
    size_t i;
#ifndef VALUE_TYPES
    if (accepted & TYPE_REAL) return CORE_OK; /* every variable is Real */
#endif
    for (i = 0; i < n; i++) {
        int bit = TYPE_REAL;
#ifdef VALUE_TYPES
        if (vr[i] < N_VALUES) bit = 1 << VALUE_TYPE[vr[i]];
#endif
        if (vr[i] < N_VALUES && !(bit & accepted)) {
            core_log(m, CORE_ERROR, "variable with value reference %u is not of type %s", vr[i],
                     type);
            return CORE_ERROR;
        }
    }
    return CORE_OK;
}

CoreStatus core_get_typed(Core* m, const unsigned int* vr, size_t n, int accepted,
                          const char* type, double* values) {
    if (core_check_types(m, vr, n, accepted, type) != CORE_OK) return CORE_ERROR;
    return core_get(m, vr, n, values);
}

CoreStatus core_set_typed(Core* m, const unsigned int* vr, size_t n, int accepted,
                          const char* type, const double* values) {
    if (core_check_types(m, vr, n, accepted, type) != CORE_OK) return CORE_ERROR;
    return core_set(m, vr, n, values);
}
