/* A staircase, the time-event test model: a counter that goes up by one at every whole second
 * after the start (time events at t = 1, 2, 3, ... s for a start at 0), and its integral,
 *
 *   count := count + 1 at each time event,   der(x) = count,
 *
 * count (1) a discrete output, x (s) the one continuous state, clock (s) the time as a
 * continuous output that depends on no state or input. A time event is handled when
 * the time is within TIME_RESOLUTION of it (a master's clock may carry round-off). A
 * Co-Simulation step ends its substeps at each event time. Compiled with STATELESS, the
 * counter alone: a Model Exchange FMU with time events and no continuous state.
 *
 * With the parameter limit >= 0 (default -1: never) the model asks to end the run once count
 * reaches limit (checked at every event update, the initial one too): in that event update
 * (ask = 0) or in the next completedIntegratorStep (ask = 1); a Co-Simulation step stops there.
 */
#ifndef STAIRCASE_H
#define STAIRCASE_H

#ifdef STATELESS
enum { COUNT, CLOCK, LIMIT, ASK, N_VARIABLES };
enum { N_STATES = 0, N_INDICATORS = 0 };
static const int STATE[1] = {0}, DERIVATIVE[1] = {0};
#else
enum { X, DER_X, COUNT, CLOCK, LIMIT, ASK, N_VARIABLES };
enum { N_STATES = 1, N_INDICATORS = 0 };
static const int STATE[N_STATES] = {X}, DERIVATIVE[N_STATES] = {DER_X};
#endif

#include "event_model.h"

#define TIME_RESOLUTION 1e-9 /* s */

static void defaults(Model *m) { m->r[LIMIT] = -1; }

static void begin(Model *m) { m->next_time = floor(m->time) + 1; }

static void evaluate(Model *m) {
    m->r[CLOCK] = m->time;
#ifndef STATELESS
    m->r[DER_X] = m->r[COUNT];
#endif
}

static void indicators(const Model *m, double z[]) {}

static int update(Model *m) {
    if (m->time >= m->next_time - TIME_RESOLUTION) {
        m->r[COUNT] += 1;
        m->next_time += 1;
    }
    if (m->r[LIMIT] >= 0 && m->r[COUNT] >= m->r[LIMIT])
        m->terminate = m->r[ASK] != 0 ? TERMINATE_AFTER_STEP : TERMINATE_IN_UPDATE;
    return 0;
}

static void do_step(Model *m, double t_end) {
    while (m->time < t_end && m->terminate == NO_REQUEST) {
#ifdef STATELESS
        m->time = fmin(t_end, m->next_time); /* nothing to integrate */
#else
        rk4(m, fmin(fmin(t_end, m->time + SUBSTEP), m->next_time));
#endif
        update(m);
    }
}

#endif
