/* A bouncing ball, the state-event test model: height h (m) above the ground, upward speed v
 * (m/s), gravity g (m/s^2), coefficient of restitution e (1),
 *
 *   der(h) = v,   der(v) = -g,   when h < 0 (falling): v := -e v,
 *
 * one event indicator z = h. At a bounce the ball is put on the ground at h = DBL_MIN, so that
 * z > 0 right after it (no second crossing at the same instant). The bounces accumulate at a
 * finite time (for h = 1 m, v = 0, e = 0.7: 3.46 s); simulate less than that.
 * A Co-Simulation step finds each landing exactly: between bounces h is a quadratic in time.
 */
#ifndef BOUNCING_BALL_H
#define BOUNCING_BALL_H

#include <float.h>

enum { H, V, DER_H, DER_V, G, E, N_VARIABLES };
enum { N_STATES = 2, N_INDICATORS = 1 };
static const int STATE[N_STATES] = {H, V}, DERIVATIVE[N_STATES] = {DER_H, DER_V};

#include "event_model.h"

static void defaults(Model *m) {
    m->r[H] = 1.0;
    m->r[G] = 9.81;
    m->r[E] = 0.7;
}

static void begin(Model *m) { m->next_time = INFINITY; }

static void evaluate(Model *m) {
    m->r[DER_H] = m->r[V];
    m->r[DER_V] = -m->r[G];
}

static void indicators(const Model *m, double z[]) { z[0] = m->r[H]; }

static int update(Model *m) {
    if (m->r[H] > 0 || m->r[V] >= 0) return 0;
    m->r[H] = DBL_MIN;
    m->r[V] *= -m->r[E];
    return 1;
}

/* Time (s) until a ball at h >= 0 lands, falling; INFINITY if it rests on the ground. */
static double time_to_landing(const Model *m) {
    double h = m->r[H], v = m->r[V], g = m->r[G], w = sqrt(v * v + 2 * g * h);
    if (!(w > 0)) return INFINITY;
    /* the later root of h + v t - g t^2 / 2, not before now if round-off left h below 0 */
    return fmax(0.0, v < 0 ? 2 * h / (w - v) : (v + w) / g);
}

static void do_step(Model *m, double t_end) {
    while (m->time < t_end) {
        double target = fmin(t_end, m->time + SUBSTEP), landing = m->time + time_to_landing(m);
        if (landing < target) {
            rk4(m, landing);
            m->r[H] = 0.0; /* exactly on the ground: RK4 is exact on a quadratic up to round-off */
            update(m);
        } else {
            rk4(m, target);
        }
    }
}

#endif
