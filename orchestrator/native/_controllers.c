/*
 * Compiled step functions of the built-in controllers (``_controllers.c``): the vehicle PD
 * (``orchestrator.controllers.vehicle_pd``), the joint PID with joint-space and task-space
 * references (``joint_control``, the inverse kinematics of ``arm_kinematics``), the
 * pseudo-inverse thrust allocation with its thrust-to-PWM map (``allocation``) and the depth,
 * heading and surge-speed autopilot (``autopilot``); those modules' docstrings state the
 * equations. The joint PID and the autopilot share one PID loop. ``step_laws`` steps many laws
 * (a swarm's vehicles) in one call. A ``LawGroup`` samples several laws in one call: it reads
 * their inputs from the state vector and the signal bus, writes their outputs to the bus and
 * to the FMU input buffers of their port batches, and holds a law's previous outputs when its
 * step fails.
 *
 * Every expression keeps the order of operations the Python statement of the law had, so a
 * run gives the same numbers bit for bit; the matrix-vector product of the allocation goes
 * through the same BLAS routine NumPy's ``@`` uses (dgemv, transposed), handed over by
 * ``use_dgemv``.
 *
 * A law's settings are one float64 array, laid out as below (a reference is n, then per term
 * start, stop (s), angular frequency (rad/s), phase (rad), offset, slope (per s), amplitude);
 * its state is a second array the Python side owns and may read or write.
 *
 * VEHICLE_PD      settings: kp (6), kd (6), references of x, y, z, roll, pitch, yaw
 *                 inputs: p (3, NED, m), q (4), nu (6, body); outputs: tau (6, body, N, N.m)
 *                 state: none
 * JOINT_PID       settings: n loops, sample time (s), per loop kp, ki, kd, integral bound
 *                 divided by ki (0 without ki); n references; n feedforwards; the number of
 *                 task-space paths, per path its three loops, upper arm, forearm (m), elbow
 *                 down (1 or 0), references of x, y, z (m)
 *                 inputs: angle, rate per loop; outputs: torques (n, N.m), references (n, rad)
 *                 state: the n integrals
 * PSEUDO_INVERSE  settings: m thrusters, bias (N), the number of balanced groups, the m
 *                 thrust limits (N), the groups (m entries each), per thruster -K_L, K_L^2,
 *                 4 K_Q, 2 K_Q, the offset just outside the dead zone (us), half the thrust
 *                 there (N), the dead zone (us), the neutral PWM (us)
 *                 inputs: commands (6 each, summed); outputs: PWM (m, us)
 *                 state: the pseudo-inverse of the available thrusters' columns (m x 6,
 *                 row-major), then m flags (1 available, 0 failed)
 * AUTOPILOT       settings: sample time (s), per loop (depth, surge, sway, roll, pitch,
 *                 heading) kp, ki, kd, integral bound divided by ki (0 without ki); the set
 *                 points depth (m), heading (deg), surge speed (m/s); the number of changes,
 *                 per change in time order its time (s) and the set points from then on
 *                 inputs: p (3, NED, m), q (4), nu (6, body); outputs: tau (6, body, N, N.m),
 *                 the set points depth (m), heading (deg), surge speed (m/s)
 *                 state: the 6 integrals
 */
#include "_controllers.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

enum { VEHICLE_PD = 0, JOINT_PID, PSEUDO_INVERSE, AUTOPILOT, KINDS };

/* what a step returns: done, or why it gave no outputs */
enum { DONE = 0, OUT_OF_REACH, AT_EDGE, NOT_FINITE };

#define TERM 7 /* numbers per reference term */
#define PWM_CONSTANTS 8
#define LOOP_GAINS 4 /* kp, ki, kd, integral bound / ki */
#define AUTOPILOT_LOOPS 6
#define SET_POINTS 3 /* depth, heading, surge speed */

typedef struct {
    int n;
    const double *terms;
} Reference;

typedef struct {
    int loops[3];
    double upper_arm, forearm;
    bool elbow_down;
    Reference axes[3];
} Path;

typedef struct {
    PyObject_HEAD
    int kind;
    Py_ssize_t n_inputs, n_outputs;
    PyObject *settings_array, *state_array;
    double *state;
    /* VEHICLE_PD */
    const double *kp, *kd;
    Reference pose[6];
    /* JOINT_PID (and AUTOPILOT: sample_time, gains) */
    int loops, n_paths;
    double sample_time;
    const double *gains;
    Reference *references, *feedforwards;
    Path *paths;
    /* PSEUDO_INVERSE */
    int thrusters, groups;
    double bias;
    const double *limits, *group, *pwm;
    double *thrusts; /* work */
    /* AUTOPILOT */
    const double *set_points, *changes; /* the initial ones; per change its time and them */
    int n_changes;
    int path;        /* the path of the last step that found no joint angles */
    double point[3]; /* and its end-effector point (m) */
} Law;

typedef void (*Dgemv)(char *, int *, int *, double *, double *, int *, double *, int *,
                      double *, double *, int *);
static Dgemv dgemv;

/* ---- the laws ---- */

/* Value and rate of a reference at ``time`` (orchestrator.controllers.reference). */
static void reference(const Reference *r, double time, double *value, double *rate)
{
    double v = 0.0, d = 0.0;
    for (int k = 0; k < r->n; k++) {
        const double *t = r->terms + TERM * k;
        double start = t[0], stop = t[1], omega = t[2], phase = t[3];
        double offset = t[4], slope = t[5], amplitude = t[6];
        if (!(start < time && time <= stop))
            continue;
        double angle = omega * time + phase;
        v += offset + slope * time + amplitude * sin(angle);
        d += slope + amplitude * omega * cos(angle);
    }
    *value = v;
    *rate = d;
}

/* Python's float remainder a % b: the sign of b. */
static double remainder_of(double a, double b)
{
    double mod = fmod(a, b);
    if (mod != 0.0) {
        if ((b < 0) != (mod < 0))
            mod += b;
    } else {
        mod = copysign(0.0, b);
    }
    return mod;
}

/* angle wrapped into [-pi, pi) (kinematics.wrap_angle) */
static double wrap_angle(double angle)
{
    return remainder_of(angle + M_PI, 2 * M_PI) - M_PI;
}

/* sqrt(x^2 + y^2) as Python's math.hypot gives it (correctly rounded but in rare cases): the
 * sum of squares carried in two parts by fused multiply-adds, the root corrected once. */
static double hypot2(double x, double y)
{
    x = fabs(x);
    y = fabs(y);
    if (x == 0.0 || y == 0.0 || !isfinite(x) || !isfinite(y))
        return x == 0.0 ? y : y == 0.0 ? x : hypot(x, y);
    double a = x * x, b = y * y;
    double sum = a + b, b_part = sum - a;
    double low = ((a - (sum - b_part)) + (b - b_part)) + (fma(x, x, -a) + fma(y, y, -b));
    double h = sqrt(sum);
    double square = h * h;
    double residual = ((sum - square) - fma(h, h, -square)) + low;
    return h + residual / (2.0 * h);
}

/* x ** 2 as Python computes it: by the C library's pow, which the compiler would otherwise
 * fold into x * x (the two differ in the last bit for about one argument in a thousand) */
static double (*volatile power)(double, double) = pow;

static double squared(double x)
{
    return power(x, 2.0);
}

/* Joint angles (rad) and, with ``velocity``, rates (rad/s) of a 3-DOF arm whose end effector
 * is at ``point`` (m) moving at ``velocity`` (m/s) (arm_kinematics.inverse_motion). */
static int arm_inverse(const double *point, const double *velocity, double upper,
                       double fore, bool elbow_down, double *angles, double *rates)
{
    double x = point[0], y = point[1], z = point[2];
    double reach = hypot2(x, y);
    double cosine =
        (squared(reach) + squared(z) - squared(upper) - squared(fore)) / (2 * upper * fore);
    if (fabs(cosine) > 1.0)
        return OUT_OF_REACH;
    double sign = elbow_down ? 1.0 : -1.0;
    double bend = acos(cosine) * sign;
    double shoulder =
        atan2(reach, z) - atan2(fore * sin(bend), upper + fore * cos(bend));
    angles[0] = reach > 0 ? atan2(y, x) : 0.0;
    angles[1] = -shoulder;
    angles[2] = -bend;
    if (velocity == NULL)
        return DONE;
    if (1.0 - fabs(cosine) < 1e-12)
        return AT_EDGE;
    double vx = velocity[0], vy = velocity[1], vz = velocity[2];
    double reach_rate = reach > 0 ? (x * vx + y * vy) / reach : hypot2(vx, vy);
    double yaw_rate = reach > 0 ? (x * vy - y * vx) / squared(reach) : 0.0;
    double cosine_rate = (reach * reach_rate + z * vz) / (upper * fore);
    double bend_rate = -sign * cosine_rate / sqrt(1.0 - squared(cosine));
    double u = fore * sin(bend), v = upper + fore * cos(bend);
    double shoulder_rate = (z * reach_rate - reach * vz) / (squared(reach) + squared(z)) -
                           fore * (upper * cos(bend) + fore) * bend_rate / (u * u + v * v);
    rates[0] = yaw_rate;
    rates[1] = -shoulder_rate;
    rates[2] = -bend_rate;
    return DONE;
}

/* Rotation matrix body to NED of a scalar-first quaternion (kinematics.rotation_rows) */
static void rotation_rows(const double *q, double R[3][3])
{
    double eta = q[0], e1 = q[1], e2 = q[2], e3 = q[3];
    R[0][0] = 1 - 2 * (e2 * e2 + e3 * e3);
    R[0][1] = 2 * (e1 * e2 - e3 * eta);
    R[0][2] = 2 * (e1 * e3 + e2 * eta);
    R[1][0] = 2 * (e1 * e2 + e3 * eta);
    R[1][1] = 1 - 2 * (e1 * e1 + e3 * e3);
    R[1][2] = 2 * (e2 * e3 - e1 * eta);
    R[2][0] = 2 * (e1 * e3 - e2 * eta);
    R[2][1] = 2 * (e2 * e3 + e1 * eta);
    R[2][2] = 1 - 2 * (e1 * e1 + e2 * e2);
}

/* Roll, pitch, yaw (rad, zyx) of a rotation matrix (kinematics.euler_from_rows) */
static void euler_from_rows(const double R[3][3], double *attitude)
{
    double sine_pitch = R[2][0] < -1.0 ? -1.0 : R[2][0];
    sine_pitch = 1.0 < sine_pitch ? 1.0 : sine_pitch;
    attitude[0] = atan2(R[2][1], R[2][2]);
    attitude[1] = -asin(sine_pitch);
    attitude[2] = atan2(R[1][0], R[0][0]);
}

/* One PID loop's action kp e + ki I + kd e' (``gains``: kp, ki, kd, the integral's bound
 * divided by ki), the integral I first advanced by e dt and clamped to the bound when ki is
 * not zero. */
static double pid(const double *gains, double dt, double *integral, double error,
                  double error_rate)
{
    double kp = gains[0], ki = gains[1], kd = gains[2], limit = gains[3];
    if (ki != 0.0) {
        double sum = *integral + error * dt;
        *integral = sum < -limit ? -limit : sum > limit ? limit : sum;
    }
    return kp * error + ki * *integral + kd * error_rate;
}

/* A v and A' v of a 3 x 3 matrix (rows) and a 3-vector */
static void times3(const double A[3][3], const double *v, double *out)
{
    for (int i = 0; i < 3; i++)
        out[i] = A[i][0] * v[0] + A[i][1] * v[1] + A[i][2] * v[2];
}

static void transpose_times3(const double A[3][3], const double *v, double *out)
{
    for (int i = 0; i < 3; i++)
        out[i] = A[0][i] * v[0] + A[1][i] * v[1] + A[2][i] * v[2];
}

static int vehicle_pd(Law *law, double time, const double *in, double *out)
{
    const double *p = in, *velocity = in + 7, *angular = in + 10;
    double R[3][3], attitude[3];
    rotation_rows(in + 3, R);
    euler_from_rows((const double(*)[3])R, attitude);
    double sr = sin(attitude[0]), cr = cos(attitude[0]);
    double tp = tan(attitude[1]), cp = cos(attitude[1]);
    const double T[3][3] = {{1.0, sr * tp, cr * tp}, {0.0, cr, -sr}, {0.0, sr / cp, cr / cp}};
    double eta_d[6], rate_d[6], error[6], rate[6], command[6];
    for (int i = 0; i < 6; i++)
        reference(&law->pose[i], time, &eta_d[i], &rate_d[i]);
    for (int i = 0; i < 3; i++) {
        error[i] = eta_d[i] - p[i];
        error[3 + i] = wrap_angle(eta_d[3 + i] - attitude[i]);
    }
    times3((const double(*)[3])R, velocity, rate);
    times3(T, angular, rate + 3);
    for (int i = 0; i < 6; i++)
        command[i] = law->kp[i] * error[i] + law->kd[i] * (rate_d[i] - rate[i]);
    transpose_times3((const double(*)[3])R, command, out);
    transpose_times3(T, command + 3, out + 3);
    return DONE;
}

static int joint_pid(Law *law, double time, const double *in, double *out)
{
    int n = law->loops;
    double *angle_d = out + n, rate_d[n > 0 ? n : 1];
    for (int k = 0; k < n; k++) {
        angle_d[k] = rate_d[k] = 0.0;
        if (law->references[k].n)
            reference(&law->references[k], time, &angle_d[k], &rate_d[k]);
    }
    for (int p = 0; p < law->n_paths; p++) {
        const Path *path = &law->paths[p];
        double velocity[3], angles[3], rates[3];
        for (int i = 0; i < 3; i++)
            reference(&path->axes[i], time, &law->point[i], &velocity[i]);
        int status = arm_inverse(law->point, velocity, path->upper_arm, path->forearm,
                                 path->elbow_down, angles, rates);
        if (status != DONE) {
            law->path = p;
            return status;
        }
        for (int i = 0; i < 3; i++) {
            angle_d[path->loops[i]] = angles[i];
            rate_d[path->loops[i]] = rates[i];
        }
    }
    for (int k = 0; k < n; k++) {
        out[k] = pid(law->gains + LOOP_GAINS * k, law->sample_time, &law->state[k],
                     angle_d[k] - in[2 * k], rate_d[k] - in[2 * k + 1]);
        if (law->feedforwards[k].n) {
            double value, rate;
            reference(&law->feedforwards[k], time, &value, &rate);
            out[k] += value;
        }
    }
    return DONE;
}

/* PWM command (us) giving ``thrust`` (N): the inverse static map with dead zone
 * (ThrusterModel.pwm); ``c``: the thruster's PWM constants. */
static double thrust_pwm(const double *c, double thrust)
{
    double minus_k_l = c[0], k_l_squared = c[1], four_k_q = c[2], two_k_q = c[3];
    double edge = c[4], half_thrust = c[5], dead_zone = c[6], neutral = c[7];
    double magnitude = fabs(thrust);
    double offset = (minus_k_l + sqrt(k_l_squared + four_k_q * magnitude)) / two_k_q;
    if (offset <= dead_zone)
        offset = magnitude < half_thrust ? 0.0 : edge;
    return neutral + copysign(offset, thrust);
}

int blas_times(const double *A, int rows, int columns, const double *x, double *y)
{
    if (columns == 0 || rows == 0) { /* no product to take: BLAS need not be bound */
        memset(y, 0, (size_t)rows * sizeof(double));
        return 0;
    }
    if (dgemv == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "no BLAS dgemv (use_dgemv first)");
        return -1;
    }
    int one = 1;
    double alpha = 1.0, beta = 0.0;
    /* the row-major matrix is the transpose of a column-major (columns x rows) one */
    dgemv("T", &columns, &rows, &alpha, (double *)A, &columns, (double *)x, &one, &beta, y, &one);
    return 0;
}

static int pseudo_inverse(Law *law, double time, const double *in, double *out)
{
    (void)time;
    int m = law->thrusters;
    double tau[6], *thrusts = law->thrusts;
    const double *available = law->state + 6 * m;
    memcpy(tau, in, sizeof tau);
    for (Py_ssize_t c = 6; c < law->n_inputs; c += 6)
        for (int i = 0; i < 6; i++)
            tau[i] += in[c + i];
    blas_times(law->state, m, 6, tau, thrusts); /* the pseudo-inverse times tau */
    for (int g = 0; g < law->groups; g++) { /* thrust biasing along a balanced group */
        const double *group = law->group + m * g;
        bool any = false;
        double raise_by = 0.0;
        for (int j = 0; j < m; j++) {
            if (!(group[j] > 0 && available[j] != 0.0))
                continue;
            double need = (law->bias - thrusts[j]) / group[j];
            raise_by = !any || need > raise_by ? need : raise_by;
            any = true;
        }
        if (any && raise_by > 0)
            for (int j = 0; j < m; j++)
                thrusts[j] = thrusts[j] + raise_by * group[j] * available[j];
    }
    double peak = 0.0;
    for (int j = 0; j < m; j++) {
        double ratio = fabs(thrusts[j]) / law->limits[j];
        peak = j == 0 || ratio > peak ? ratio : peak;
    }
    for (int j = 0; j < m; j++) {
        const double *c = law->pwm + PWM_CONSTANTS * j;
        double thrust = peak > 1.0 ? thrusts[j] / peak : thrusts[j];
        out[j] = available[j] != 0.0 ? thrust_pwm(c, thrust) : c[7]; /* c[7]: neutral */
    }
    return DONE;
}

/* degrees to radians as Python's math.radians: one product by the rounded pi / 180 */
static const double radians_per_degree = M_PI / 180.0;

static int autopilot(Law *law, double time, const double *in, double *out)
{
    double R[3][3], attitude[3];
    rotation_rows(in + 3, R);
    euler_from_rows((const double(*)[3])R, attitude);
    const double *down = R[2]; /* NED z in body axes (R' [0, 0, 1]) */
    double u = in[7], v = in[8], w = in[9], p = in[10], q = in[11], r = in[12];
    double heave_rate = down[0] * u + down[1] * v + down[2] * w;
    /* the set points of the last change at or before the time (changes in time order) */
    const double *set = law->set_points;
    for (int k = 0; k < law->n_changes; k++) {
        const double *change = law->changes + (1 + SET_POINTS) * k;
        if (!(change[0] <= time + 1e-12))
            break;
        set = change + 1;
    }
    double depth = set[0], heading = set[1], speed = set[2];
    const double *g = law->gains;
    double dt = law->sample_time, *integral = law->state;
    double force_down = pid(g, dt, &integral[0], depth - in[2], -heave_rate);
    out[0] = down[0] * force_down + pid(g + 4, dt, &integral[1], speed - u, 0.0);
    out[1] = down[1] * force_down + pid(g + 8, dt, &integral[2], 0.0, -v);
    out[2] = down[2] * force_down;
    out[3] = pid(g + 12, dt, &integral[3], -attitude[0], -p);
    out[4] = pid(g + 16, dt, &integral[4], -attitude[1], -q);
    out[5] = pid(g + 20, dt, &integral[5],
                 wrap_angle(heading * radians_per_degree - attitude[2]), -r);
    out[6] = depth;
    out[7] = heading;
    out[8] = speed;
    return DONE;
}

static int law_step(Law *law, double time, const double *in, double *out)
{
    switch (law->kind) {
    case VEHICLE_PD:
        return vehicle_pd(law, time, in, out);
    case JOINT_PID:
        return joint_pid(law, time, in, out);
    case PSEUDO_INVERSE:
        return pseudo_inverse(law, time, in, out);
    default:
        return autopilot(law, time, in, out);
    }
}

/* ---- the Law type ---- */

static double *float64_data(PyObject *array, Py_ssize_t *n, bool writable, const char *what)
{
    Py_buffer view;
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(array, &view, flags) < 0)
        return NULL;
    bool ok = view.itemsize == sizeof(double) && view.format != NULL &&
              strcmp(view.format, "d") == 0 && (*n < 0 || view.len == *n * (Py_ssize_t)8);
    double *data = view.buf;
    *n = view.len / (Py_ssize_t)sizeof(double);
    PyBuffer_Release(&view); /* the caller keeps the array alive and never resizes it */
    if (!ok) {
        PyErr_Format(PyExc_ValueError, "%s: expected a contiguous float64 array", what);
        return NULL;
    }
    return data;
}

/* Reads settings in order; a read past the end sets ``short_`` and gives 0. */
typedef struct {
    const double *at, *end;
    bool short_;
} Cursor;

static const double *take(Cursor *c, Py_ssize_t n)
{
    if (n < 0 || c->end - c->at < n) {
        c->short_ = true;
        return NULL;
    }
    const double *at = c->at;
    c->at += n;
    return at;
}

static int count(Cursor *c)
{
    const double *v = take(c, 1);
    if (v == NULL || !(*v >= 0 && *v < 1e6)) {
        c->short_ = true;
        return 0;
    }
    return (int)*v;
}

static void take_reference(Cursor *c, Reference *r)
{
    r->n = count(c);
    r->terms = take(c, (Py_ssize_t)TERM * r->n);
}

static void Law_dealloc(Law *self)
{
    Py_XDECREF(self->settings_array);
    Py_XDECREF(self->state_array);
    PyMem_Free(self->references);
    PyMem_Free(self->paths);
    PyMem_Free(self->thrusts);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int parse_settings(Law *self, Cursor *c)
{
    switch (self->kind) {
    case VEHICLE_PD:
        self->kp = take(c, 6);
        self->kd = take(c, 6);
        for (int i = 0; i < 6; i++)
            take_reference(c, &self->pose[i]);
        return 0;
    case JOINT_PID: {
        int n = self->loops = count(c);
        const double *dt = take(c, 1);
        self->sample_time = dt ? *dt : 0.0;
        self->gains = take(c, LOOP_GAINS * (Py_ssize_t)n);
        self->references = PyMem_Calloc(2 * (size_t)n + 1, sizeof(Reference));
        if (self->references == NULL)
            return -1;
        self->feedforwards = self->references + n;
        for (int k = 0; k < 2 * n; k++)
            take_reference(c, &self->references[k]);
        self->n_paths = count(c);
        self->paths = PyMem_Calloc((size_t)self->n_paths + 1, sizeof(Path));
        if (self->paths == NULL)
            return -1;
        for (int p = 0; p < self->n_paths && !c->short_; p++) {
            Path *path = &self->paths[p];
            for (int i = 0; i < 3; i++) {
                path->loops[i] = count(c);
                if (path->loops[i] >= n)
                    c->short_ = true;
            }
            const double *arm = take(c, 3);
            if (arm != NULL) {
                path->upper_arm = arm[0];
                path->forearm = arm[1];
                path->elbow_down = arm[2] != 0.0;
            }
            for (int i = 0; i < 3; i++)
                take_reference(c, &path->axes[i]);
        }
        return 0;
    }
    case AUTOPILOT: {
        const double *dt = take(c, 1);
        self->sample_time = dt ? *dt : 0.0;
        self->gains = take(c, LOOP_GAINS * AUTOPILOT_LOOPS);
        self->set_points = take(c, SET_POINTS);
        self->n_changes = count(c);
        self->changes = take(c, (Py_ssize_t)(1 + SET_POINTS) * self->n_changes);
        return 0;
    }
    default: {
        int m = self->thrusters = count(c);
        const double *bias = take(c, 1);
        self->bias = bias ? *bias : 0.0;
        self->groups = count(c);
        self->limits = take(c, m);
        self->group = take(c, (Py_ssize_t)m * self->groups);
        self->pwm = take(c, (Py_ssize_t)PWM_CONSTANTS * m);
        self->thrusts = PyMem_Calloc((size_t)m + 1, sizeof(double));
        return self->thrusts == NULL ? -1 : 0;
    }
    }
}

/* Law(kind, settings, state, n_inputs, n_outputs): the arrays as the header lists them,
 * kept alive; ``state`` is read and written in place. */
static int Law_init(Law *self, PyObject *args, PyObject *kwds)
{
    (void)kwds;
    PyObject *settings, *state;
    if (self->settings_array != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Law: already initialised");
        return -1;
    }
    if (!PyArg_ParseTuple(args, "iOOnn", &self->kind, &settings, &state, &self->n_inputs,
                          &self->n_outputs))
        return -1;
    if (self->kind < 0 || self->kind >= KINDS) {
        PyErr_Format(PyExc_ValueError, "Law: no kind %d", self->kind);
        return -1;
    }
    Py_ssize_t n_settings = -1, n_state = -1;
    const double *data = float64_data(settings, &n_settings, false, "Law: settings");
    if (data == NULL || (self->state = float64_data(state, &n_state, true, "Law: state")) == NULL)
        return -1;
    Py_INCREF(settings);
    Py_INCREF(state);
    self->settings_array = settings;
    self->state_array = state;
    Cursor c = {data, data + n_settings, false};
    if (parse_settings(self, &c) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t inputs[KINDS] = {13, 2 * (Py_ssize_t)self->loops, self->n_inputs, 13};
    Py_ssize_t outputs[KINDS] = {6, 2 * (Py_ssize_t)self->loops, self->thrusters,
                                 6 + SET_POINTS};
    Py_ssize_t states[KINDS] = {0, self->loops, 7 * (Py_ssize_t)self->thrusters,
                                AUTOPILOT_LOOPS};
    int k = self->kind;
    bool commands = k != PSEUDO_INVERSE || (self->n_inputs > 0 && self->n_inputs % 6 == 0);
    if (c.short_ || c.at != c.end || !commands || self->n_inputs != inputs[k] ||
        self->n_outputs != outputs[k] || n_state != states[k]) {
        PyErr_Format(PyExc_ValueError,
                     "Law: settings (%zd numbers), state (%zd), inputs (%zd) or outputs (%zd) "
                     "do not match the layout of kind %d",
                     n_settings, n_state, self->n_inputs, self->n_outputs, k);
        return -1;
    }
    if (k == PSEUDO_INVERSE && dgemv == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Law: no BLAS dgemv (use_dgemv first)");
        return -1;
    }
    return 0;
}

static int ready(Law *self)
{
    if (self->settings_array == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Law: not initialised");
        return -1;
    }
    return 0;
}

/* law.step(time, inputs, outputs) -> status (0: done; the outputs are written only then) */
static PyObject *Law_step(Law *self, PyObject *args)
{
    double time;
    PyObject *inputs, *outputs;
    if (ready(self) < 0 || !PyArg_ParseTuple(args, "dOO", &time, &inputs, &outputs))
        return NULL;
    Py_ssize_t n_in = self->n_inputs, n_out = self->n_outputs;
    const double *in = float64_data(inputs, &n_in, false, "Law.step: inputs");
    double *out = in ? float64_data(outputs, &n_out, true, "Law.step: outputs") : NULL;
    if (out == NULL)
        return NULL;
    double result[n_out > 0 ? n_out : 1];
    int status = law_step(self, time, in, result);
    if (status == DONE)
        memcpy(out, result, (size_t)n_out * sizeof(double));
    return PyLong_FromLong(status);
}

static PyObject *Law_fault(Law *self, void *closure)
{
    (void)closure;
    return Py_BuildValue("(i(ddd))", self->path, self->point[0], self->point[1], self->point[2]);
}

static PyMethodDef Law_methods[] = {
    {"step", (PyCFunction)Law_step, METH_VARARGS,
     "step(time, inputs, outputs) -> status: 0, or 1 (a target out of reach) or 2 (at the "
     "edge of reach) with the outputs left as they were"},
    {NULL, NULL, 0, NULL},
};

static PyObject *Law_state(Law *self, void *closure)
{
    (void)closure;
    if (ready(self) < 0)
        return NULL;
    Py_INCREF(self->state_array);
    return self->state_array;
}

static PyGetSetDef Law_getset[] = {
    {"state", (getter)Law_state, NULL, "the state array (read and written in place)", NULL},
    {"fault", (getter)Law_fault, NULL,
     "(path, end-effector point (m)) of the last step that found no joint angles", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject LawType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "orchestrator.native._kernel.Law",
    .tp_doc = PyDoc_STR("The compiled step of a built-in controller"),
    .tp_basicsize = sizeof(Law),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Law_init,
    .tp_dealloc = (destructor)Law_dealloc,
    .tp_methods = Law_methods,
    .tp_getset = Law_getset,
};

/* ---- a group of laws sampled together ---- */

typedef struct {
    Law *law;
    Py_ssize_t *sources;   /* per input: k >= 0 state entry k, k < 0 bus slot -1 - k */
    Py_ssize_t *slots;     /* per output: bus slot, or -1 */
    Py_ssize_t *positions; /* per output: entry of the FMU buffer, or -1 */
    double *inputs, *outputs, *held, *fmu;
    PyObject *arrays[4];
    int status;
} Member;

typedef struct {
    PyObject_HEAD
    Py_ssize_t n_states, n_bus, count;
    Member *members;
} LawGroup;

static void LawGroup_dealloc(LawGroup *self)
{
    for (Py_ssize_t k = 0; k < self->count; k++) {
        Member *m = &self->members[k];
        Py_XDECREF(m->law);
        PyMem_Free(m->sources);
        PyMem_Free(m->slots);
        PyMem_Free(m->positions);
        for (int a = 0; a < 4; a++)
            Py_XDECREF(m->arrays[a]);
    }
    PyMem_Free(self->members);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int LawGroup_init(LawGroup *self, PyObject *args, PyObject *kwds)
{
    (void)kwds;
    if (!PyArg_ParseTuple(args, "nn", &self->n_states, &self->n_bus))
        return -1;
    return 0;
}

/* A list of ints of length n, each in [low, high), into a new array; NULL with an error. */
static Py_ssize_t *indices(PyObject *list, Py_ssize_t n, Py_ssize_t low, Py_ssize_t high,
                           const char *what)
{
    PyObject *seq = PySequence_Fast(list, what);
    if (seq == NULL)
        return NULL;
    Py_ssize_t *out = NULL;
    if (PySequence_Fast_GET_SIZE(seq) != n) {
        PyErr_Format(PyExc_ValueError, "LawGroup.add: %s: expected %zd entries", what, n);
        goto done;
    }
    if ((out = PyMem_Calloc((size_t)n + 1, sizeof(Py_ssize_t))) == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        out[i] = PyLong_AsSsize_t(PySequence_Fast_GET_ITEM(seq, i));
        if (out[i] == -1 && PyErr_Occurred())
            break;
        if (out[i] < low || out[i] >= high) {
            PyErr_Format(PyExc_ValueError, "LawGroup.add: %s: entry %zd out of range", what,
                         out[i]);
            break;
        }
    }
    if (PyErr_Occurred()) {
        PyMem_Free(out);
        out = NULL;
    }
done:
    Py_DECREF(seq);
    return out;
}

/* group.add(law, sources, slots, positions, fmu, inputs, outputs, held): a member sampled after
 * the ones added before it. ``sources``: per input a state entry k >= 0 or a bus slot as
 * -1 - slot; ``slots`` and ``positions``: per output its bus slot and its entry in ``fmu``
 * (the FMU input buffer, an array), -1 for none; ``inputs``, ``outputs``: buffers of the
 * member's gathered inputs and last computed outputs; ``held``: the outputs applied. */
static PyObject *LawGroup_add(LawGroup *self, PyObject *args)
{
    Law *law;
    PyObject *sources, *slots, *positions, *fmu, *inputs, *outputs, *held;
    if (!PyArg_ParseTuple(args, "O!OOOOOOO", &LawType, &law, &sources, &slots, &positions,
                          &fmu, &inputs, &outputs, &held) ||
        ready(law) < 0)
        return NULL;
    Member m = {.law = law, .arrays = {fmu, inputs, outputs, held}};
    Py_ssize_t n_in = law->n_inputs, n_out = law->n_outputs, n_fmu = -1;
    if ((m.fmu = float64_data(fmu, &n_fmu, true, "LawGroup.add: fmu")) == NULL ||
        (m.inputs = float64_data(inputs, &n_in, true, "LawGroup.add: inputs")) == NULL ||
        (m.outputs = float64_data(outputs, &n_out, true, "LawGroup.add: outputs")) == NULL ||
        (m.held = float64_data(held, &n_out, true, "LawGroup.add: held")) == NULL)
        return NULL;
    m.sources = indices(sources, n_in, -self->n_bus, self->n_states, "sources");
    m.slots = m.sources ? indices(slots, n_out, -1, self->n_bus, "slots") : NULL;
    m.positions = m.slots ? indices(positions, n_out, -1, n_fmu, "positions") : NULL;
    Member *grown = m.positions
                        ? PyMem_Realloc(self->members, (size_t)(self->count + 1) * sizeof(Member))
                        : NULL;
    if (grown == NULL) {
        PyMem_Free(m.sources);
        PyMem_Free(m.slots);
        PyMem_Free(m.positions);
        return PyErr_Occurred() ? NULL : PyErr_NoMemory();
    }
    Py_INCREF(law);
    for (int a = 0; a < 4; a++)
        Py_INCREF(m.arrays[a]);
    self->members = grown;
    self->members[self->count++] = m;
    Py_RETURN_NONE;
}

/* group.sample(time, x, bus) -> the number of members that failed: every member in turn
 * gathers its inputs from the state ``x`` and the ``bus`` (as the members before it left
 * it), steps, and puts its outputs (or, when it failed or gave a non-finite value, the ones
 * it held) on the bus and in its FMU buffer. */
static PyObject *LawGroup_sample(LawGroup *self, PyObject *args)
{
    double time;
    PyObject *state, *bus_array;
    if (!PyArg_ParseTuple(args, "dOO", &time, &state, &bus_array))
        return NULL;
    Py_ssize_t n_states = self->n_states, n_bus = self->n_bus;
    const double *x = float64_data(state, &n_states, false, "LawGroup.sample: x");
    double *bus = x ? float64_data(bus_array, &n_bus, true, "LawGroup.sample: bus") : NULL;
    if (bus == NULL)
        return NULL;
    long faults = 0;
    for (Py_ssize_t k = 0; k < self->count; k++) {
        Member *m = &self->members[k];
        Py_ssize_t n_in = m->law->n_inputs, n_out = m->law->n_outputs;
        for (Py_ssize_t i = 0; i < n_in; i++) {
            Py_ssize_t s = m->sources[i];
            m->inputs[i] = s >= 0 ? x[s] : bus[-1 - s];
        }
        m->status = law_step(m->law, time, m->inputs, m->outputs);
        double sum = 0.0;
        for (Py_ssize_t i = 0; i < n_out && m->status == DONE; i++) {
            sum += m->outputs[i];
            if (!isfinite(m->outputs[i]) || !isfinite(sum))
                m->status = NOT_FINITE;
        }
        if (m->status == DONE)
            memcpy(m->held, m->outputs, (size_t)n_out * sizeof(double));
        else
            faults++;
        for (Py_ssize_t i = 0; i < n_out; i++) {
            if (m->slots[i] >= 0)
                bus[m->slots[i]] = m->held[i];
            if (m->positions[i] >= 0)
                m->fmu[m->positions[i]] = m->held[i];
        }
    }
    return PyLong_FromLong(faults);
}

static PyObject *LawGroup_statuses(LawGroup *self, PyObject *unused)
{
    (void)unused;
    PyObject *out = PyList_New(self->count);
    for (Py_ssize_t k = 0; out != NULL && k < self->count; k++)
        PyList_SET_ITEM(out, k, PyLong_FromLong(self->members[k].status));
    return out;
}

static PyMethodDef LawGroup_methods[] = {
    {"add", (PyCFunction)LawGroup_add, METH_VARARGS,
     "add(law, sources, slots, positions, fmu, inputs, outputs, held): a member"},
    {"sample", (PyCFunction)LawGroup_sample, METH_VARARGS,
     "sample(time, x, bus) -> the number of members that failed (their outputs held)"},
    {"statuses", (PyCFunction)LawGroup_statuses, METH_NOARGS,
     "statuses() -> each member's status at the last sample (0 done, 1 out of reach, 2 at "
     "the edge of reach, 3 not finite)"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject LawGroupType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "orchestrator.native._kernel.LawGroup",
    .tp_doc = PyDoc_STR("Laws sampled in one call on the state vector and the signal bus"),
    .tp_basicsize = sizeof(LawGroup),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)LawGroup_init,
    .tp_dealloc = (destructor)LawGroup_dealloc,
    .tp_methods = LawGroup_methods,
};

/* ---- module functions ---- */

/* arm_inverse(point, velocity or None, upper_arm, forearm, elbow_down)
 *   -> (status, angles, rates or None) */
static PyObject *arm_inverse_function(PyObject *module, PyObject *args)
{
    (void)module;
    double point[3], velocity[3], upper, fore, angles[3] = {0}, rates[3] = {0};
    PyObject *moving;
    int elbow_down;
    if (!PyArg_ParseTuple(args, "(ddd)Oddp", &point[0], &point[1], &point[2], &moving, &upper,
                          &fore, &elbow_down))
        return NULL;
    bool with_rates = moving != Py_None;
    if (with_rates && !PyArg_ParseTuple(moving, "ddd", &velocity[0], &velocity[1],
                                        &velocity[2]))
        return NULL;
    int status = arm_inverse(point, with_rates ? velocity : NULL, upper, fore, elbow_down,
                             angles, rates);
    if (!with_rates)
        return Py_BuildValue("(i(ddd)O)", status, angles[0], angles[1], angles[2], Py_None);
    return Py_BuildValue("(i(ddd)(ddd))", status, angles[0], angles[1], angles[2], rates[0],
                         rates[1], rates[2]);
}

/* thrust_pwm(constants, thrust) -> PWM (us); ``constants`` as a thruster's in the header */
static PyObject *thrust_pwm_function(PyObject *module, PyObject *args)
{
    (void)module;
    double c[PWM_CONSTANTS], thrust;
    if (!PyArg_ParseTuple(args, "(dddddddd)d", &c[0], &c[1], &c[2], &c[3], &c[4], &c[5], &c[6],
                          &c[7], &thrust))
        return NULL;
    return PyFloat_FromDouble(thrust_pwm(c, thrust));
}

/* thrust_pwm_many(constants, thrusts, available, pwm): per thruster j the PWM command (us)
 * giving thrusts[j] (N) with the j-th 8 of ``constants``, or its neutral command where
 * available[j] is 0 (all float64 arrays) */
static PyObject *thrust_pwm_many_function(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *constants, *thrusts, *available, *pwm;
    if (!PyArg_ParseTuple(args, "OOOO", &constants, &thrusts, &available, &pwm))
        return NULL;
    Py_ssize_t m = -1, n_constants = -1;
    const double *u = float64_data(thrusts, &m, false, "thrust_pwm_many: thrusts");
    const double *c = u ? float64_data(constants, &n_constants, false, "thrust_pwm_many: "
                                                                        "constants")
                        : NULL;
    const double *on = c ? float64_data(available, &m, false, "thrust_pwm_many: available")
                         : NULL;
    double *out = on ? float64_data(pwm, &m, true, "thrust_pwm_many: pwm") : NULL;
    if (out == NULL)
        return NULL;
    if (n_constants != PWM_CONSTANTS * m) {
        PyErr_Format(PyExc_ValueError, "thrust_pwm_many: expected %d constants per thruster",
                     PWM_CONSTANTS);
        return NULL;
    }
    for (Py_ssize_t j = 0; j < m; j++) {
        const double *constants_j = c + PWM_CONSTANTS * j;
        out[j] = on[j] != 0.0 ? thrust_pwm(constants_j, u[j]) : constants_j[7];
    }
    Py_RETURN_NONE;
}

/* step_laws(laws, time, inputs, outputs) -> statuses: each law of the sequence ``laws`` steps
 * in turn on its part of ``inputs`` (their inputs concatenated in order) and, when done, writes
 * its part of ``outputs``; a law that gives no outputs leaves its part as it was. */
static PyObject *step_laws_function(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *laws, *inputs, *outputs;
    double time;
    if (!PyArg_ParseTuple(args, "OdOO", &laws, &time, &inputs, &outputs))
        return NULL;
    PyObject *seq = PySequence_Fast(laws, "step_laws: laws must be a sequence");
    if (seq == NULL)
        return NULL;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(seq), n_in = 0, n_out = 0;
    PyObject **items = PySequence_Fast_ITEMS(seq);
    for (Py_ssize_t k = 0; k < count; k++) {
        if (!PyObject_TypeCheck(items[k], &LawType) || ready((Law *)items[k]) < 0) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_TypeError, "step_laws: laws[%zd] is not a Law", k);
            Py_DECREF(seq);
            return NULL;
        }
        n_in += ((Law *)items[k])->n_inputs;
        n_out += ((Law *)items[k])->n_outputs;
    }
    const double *in = float64_data(inputs, &n_in, false, "step_laws: inputs");
    double *out = in ? float64_data(outputs, &n_out, true, "step_laws: outputs") : NULL;
    PyObject *statuses = out ? PyList_New(count) : NULL;
    for (Py_ssize_t k = 0; statuses != NULL && k < count; k++) {
        Law *law = (Law *)items[k];
        double result[law->n_outputs > 0 ? law->n_outputs : 1];
        int status = law_step(law, time, in, result);
        if (status == DONE)
            memcpy(out, result, (size_t)law->n_outputs * sizeof(double));
        in += law->n_inputs;
        out += law->n_outputs;
        PyList_SET_ITEM(statuses, k, PyLong_FromLong(status));
    }
    Py_DECREF(seq);
    return statuses;
}

/* use_dgemv(capsule): the BLAS dgemv the allocation's product goes through (a capsule of
 * SciPy's cython_blas, Fortran calling convention) */
static PyObject *use_dgemv_function(PyObject *module, PyObject *capsule)
{
    (void)module;
    const char *name = PyCapsule_GetName(capsule);
    if (name == NULL && PyErr_Occurred())
        return NULL;
    void *pointer = PyCapsule_GetPointer(capsule, name);
    if (pointer == NULL)
        return NULL;
    dgemv = (Dgemv)pointer;
    Py_RETURN_NONE;
}

static PyMethodDef functions[] = {
    {"arm_inverse", arm_inverse_function, METH_VARARGS,
     "arm_inverse(point, velocity or None, upper_arm, forearm, elbow_down) -> (status, "
     "angles, rates or None)"},
    {"thrust_pwm", thrust_pwm_function, METH_VARARGS,
     "thrust_pwm(constants, thrust) -> the PWM command (us) giving thrust (N)"},
    {"thrust_pwm_many", thrust_pwm_many_function, METH_VARARGS,
     "thrust_pwm_many(constants, thrusts, available, pwm): the PWM commands (us) of many "
     "thrusters, neutral where not available"},
    {"step_laws", step_laws_function, METH_VARARGS,
     "step_laws(laws, time, inputs, outputs) -> the statuses: the laws stepped in turn, each "
     "on its part of inputs and outputs (the parts concatenated in order)"},
    {"use_dgemv", use_dgemv_function, METH_O, "use_dgemv(capsule): BLAS dgemv for the laws"},
    {NULL, NULL, 0, NULL},
};

int controllers_add_types(PyObject *module)
{
    if (PyType_Ready(&LawType) < 0 || PyType_Ready(&LawGroupType) < 0 ||
        PyModule_AddFunctions(module, functions) < 0)
        return -1;
    Py_INCREF(&LawType);
    if (PyModule_AddObject(module, "Law", (PyObject *)&LawType) < 0) {
        Py_DECREF(&LawType);
        return -1;
    }
    Py_INCREF(&LawGroupType);
    if (PyModule_AddObject(module, "LawGroup", (PyObject *)&LawGroupType) < 0) {
        Py_DECREF(&LawGroupType);
        return -1;
    }
    return 0;
}
