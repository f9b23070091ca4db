/* A staircase, the time-event test model: a counter that goes up by one at every whole second
 * after the start (time events at t = 1, 2, 3, ... s for a start at 0), and its integral,
 *
 *   count := count + 1 at each time event,   der(x) = count,
 *
 * count (1) a discrete output, x (s) the one continuous state. A time event is handled when
 * the time is within TIME_RESOLUTION of it (a master's clock may carry round-off). A
 * Co-Simulation step ends its substeps at each event time.
 */
#ifndef STAIRCASE_H
#define STAIRCASE_H

enum { X, DER_X, COUNT, N_VARIABLES };
enum { N_STATES = 1, N_INDICATORS = 0 };
static const int STATE[N_STATES] = {X}, DERIVATIVE[N_STATES] = {DER_X};

#include "event_model.h"

#define TIME_RESOLUTION 1e-9 /* s */

static void defaults(Model *m) {}

static void begin(Model *m) { m->next_time = floor(m->time) + 1; }

static void evaluate(Model *m) { m->r[DER_X] = m->r[COUNT]; }

static void indicators(const Model *m, double z[]) {}

static int update(Model *m) {
    if (m->time >= m->next_time - TIME_RESOLUTION) {
        m->r[COUNT] += 1;
        m->next_time += 1;
    }
    return 0;
}

static void do_step(Model *m, double t_end) {
    while (m->time < t_end) {
        rk4(m, fmin(fmin(t_end, m->time + SUBSTEP), m->next_time));
        update(m);
    }
}

#endif
