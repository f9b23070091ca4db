/* What the FMI 2.0 and FMI 3.0 wrappers (event_fmi2.c, event_fmi3.c) need from a test model
 * with events, and the fixed-step RK4 its Co-Simulation step shares.
 *
 * A model header (bouncing_ball.h, staircase.h) defines, before including this file:
 *   N_VARIABLES                 number of real variables; the index of each is its value
 *                               reference (FMI 3: value reference N_VARIABLES is time);
 *   N_STATES, STATE, DERIVATIVE the continuous states and their derivatives, as indices;
 *   N_INDICATORS                the number of event indicators;
 * and, after it, the functions
 *   defaults(m)        the start values;
 *   begin(m)           the first time event, once m->time holds the start time (s);
 *   evaluate(m)        derivatives and outputs from states, parameters and time;
 *   indicators(m, z)   the event indicators (an event where one changes sign);
 *   update(m)          the discrete update of event mode at m->time (state, time or step
 *                      event), which sets m->next_time, and m->terminate when the model asks
 *                      to end the run; returns whether it changed states;
 *   do_step(m, t_end)  a Co-Simulation step from m->time to t_end (s) that handles its own
 *                      events exactly, with substeps of at most SUBSTEP, and stops where the
 *                      model asks to end the run.
 *
 * A request to end the run (FMI terminateSimulation) is reported by the event update
 * (TERMINATE_IN_UPDATE) or by the next completedIntegratorStep (TERMINATE_AFTER_STEP) in Model
 * Exchange, and by the step that stopped there in Co-Simulation (fmi3DoStep's
 * terminateSimulation; fmi2DoStep's fmi2Discard with fmi2Terminated).
 */
#ifndef EVENT_MODEL_H
#define EVENT_MODEL_H

#include <math.h>

#define SUBSTEP 1e-3 /* s, longest RK4 substep of a Co-Simulation step */

enum { NO_REQUEST, TERMINATE_IN_UPDATE, TERMINATE_AFTER_STEP };

typedef struct {
    double r[N_VARIABLES]; /* values by value reference, SI units */
    double time;           /* s */
    double next_time;      /* s, the next time event, INFINITY if none is scheduled */
    int terminate;         /* NO_REQUEST, or where the model asks to end the run */
} Model;

static void evaluate(Model *m);

static void get_states(const Model *m, double x[]) {
    for (int i = 0; i < N_STATES; i++) x[i] = m->r[STATE[i]];
}

static void set_states(Model *m, const double x[]) {
    for (int i = 0; i < N_STATES; i++) m->r[STATE[i]] = x[i];
}

/* The derivatives dx at states x and time t (s). */
static void slope(Model *m, double t, const double x[], double dx[]) {
    m->time = t;
    set_states(m, x);
    evaluate(m);
    for (int i = 0; i < N_STATES; i++) dx[i] = m->r[DERIVATIVE[i]];
}

/* One classical Runge-Kutta step from m->time to exactly t_end (s), discrete values held. */
static void rk4(Model *m, double t_end) {
    double t = m->time, h = t_end - t, x[N_STATES], k[4][N_STATES], z[N_STATES];
    get_states(m, x);
    slope(m, t, x, k[0]);
    for (int i = 0; i < N_STATES; i++) z[i] = x[i] + h / 2 * k[0][i];
    slope(m, t + h / 2, z, k[1]);
    for (int i = 0; i < N_STATES; i++) z[i] = x[i] + h / 2 * k[1][i];
    slope(m, t + h / 2, z, k[2]);
    for (int i = 0; i < N_STATES; i++) z[i] = x[i] + h * k[2][i];
    slope(m, t_end, z, k[3]);
    for (int i = 0; i < N_STATES; i++) x[i] += h / 6 * (k[0][i] + 2 * k[1][i] + 2 * k[2][i] + k[3][i]);
    m->time = t_end;
    set_states(m, x);
    evaluate(m);
}

#endif
