/*
 * Compiled Udwadia-Kalaba coupling: the constrained accelerations of rigid bodies joined by
 * welds (fixed joints are welds to the world), revolute, universal, spherical and driven
 * universal joints, closed loops included, inside the kernel's right-hand side.
 *
 * Python (``orchestrator/coupling/compiled.py``) stays the authority on the assembly: after
 * every topology change it hands over a flat description -- each body's state indices of p
 * (NED, m), q (scalar-first quaternion, body to NED) and nu (body frame, [v (m/s); w
 * (rad/s)]), its inverse generalized mass M^-1 (6x6), each joint's kind, bodies (-1 the
 * world), constants in the body frames, the rows the solve keeps (closed loops make some
 * redundant) and, for a driven joint, the state indices of its actuator's angles and rates,
 * in an elimination order, and the Baumgarte gains -- or switches to the Python callable
 * (``fallback``) for what is not compiled. The motors' accelerations M^-1 tau (6 per body)
 * are an additive term that Python sets when the commands change.
 *
 * Per evaluation: the rows Phi_a nu_dot_a + Phi_b nu_dot_b = b of every joint and the
 * residual c, exactly as ``orchestrator/coupling/joints.py`` and ``driven.py`` derive them
 * (point coincidence; relative angular velocity about all three axes for a weld, about the
 * two perpendiculars of the hinge for a revolute joint, about the cross piece's axis for a
 * universal joint, against the prescribed relative rotation, angular velocity and its rate
 * for a driven joint, whose angles and rates are the actuator's states and whose angular
 * accelerations are their derivatives); Baumgarte stabilisation b - alpha (Phi nu - v) - beta c
 * (v the velocity a driven joint prescribes); then, over the kept rows,
 *     G lambda = b - Phi a_u,   G = Phi M^-1 Phi',   a_c = a_u + M^-1 Phi' lambda
 * with G assembled body by body in blocks, one per pair of joints that share a body, and
 * solved by a block Cholesky factorization in the joints' order. Two joints' rows are coupled
 * only through a body they share, so the blocks form the pattern of the assembly's joint
 * graph; Python orders the joints leaves first (deepest joints of each tree first), an
 * elimination order of a forest that creates no fill: every joint's later neighbours share
 * one body, so their blocks already exist. The factorization then costs O(N) for N joints
 * with a bounded number of joints per body. Joints that close loops add fill, found once per
 * topology change by the symbolic elimination of set_joints; their redundant rows are left
 * out (Python finds them once per change by the pivoted Cholesky factorization of the loop
 * rows' Schur complement), so G stays positive definite away from singular configurations,
 * and joints whose rows are all redundant (the loop welds of a welded grid) take no part in
 * G. Blocks are at most 6 x 6, where the calls of a BLAS cost more than the arithmetic, so the
 * small dense kernels are written out here.
 *
 * Between macro steps the same rows and solve project a state onto the constraint manifold
 * (``Assembly.project_positions``, then ``project_velocities``): Newton steps of the least
 * mass-weighted correction, G lambda = -c, moving p by R dp and turning q by the rotation
 * vector dtheta, then nu + M^-1 Phi' lambda with G lambda = v - Phi nu. At every recorded row
 * they give each joint's position and angle errors and its generalized constraint forces
 * Phi_a' lambda, Phi_b' lambda (``Assembly.violations``, ``joint_forces``), and every row of
 * every joint, kept or not, for the least-norm multipliers of redundant rows.
 */
#include "_coupling.h"
#include "_controllers.h"
#include "_algebra3.h"

#include <math.h>
#include <string.h>

enum {
    KIND_WELD = 0,
    KIND_REVOLUTE = 1,
    KIND_UNIVERSAL = 2,
    KIND_SPHERICAL = 3,
    KIND_DRIVEN_UNIVERSAL = 4,
    N_KINDS = 5
};
/* Rows of each kind (``Joint.n_rows``); the most any joint has. */
static const int KIND_ROWS[N_KINDS] = {6, 5, 4, 3, 6};
enum { MAX_ROWS = 6 };

/* Constants of a joint, in this order: r_a (3), r_b (3), relative R_a' R_b at creation (3x3,
 * row-major; of a driven joint at zero angles), axis (3, A's frame), its two perpendiculars
 * (2x3, revolute joints), axis_b (3, B's frame). */
enum { P_RA = 0, P_RB = 3, P_REL = 6, P_AXIS = 15, P_PERP = 18, P_AXIS_B = 24, N_PARAMS = 27 };
/* Per driven joint, its motion: angles (rad), rates (rad/s), accelerations (rad/s^2). */
enum { M_ANGLE = 0, M_RATE = 2, M_ACCELERATION = 4, N_MOTION = 6 };

/* An entry of G's assembly: the rows of a joint on one of its bodies (side 0: a, 1: b). */
typedef struct {
    Py_ssize_t joint;
    int side;
} Entry;

typedef struct {
    PyObject_HEAD
    PyObject *fallback; /* Python callable (x, dx) for what is not compiled */
    int compiled;
    PyObject *error; /* numpy.linalg.LinAlgError */
    /* bodies */
    Py_ssize_t n_bodies;
    Py_ssize_t *index; /* per body: 3 of p, 4 of q, 6 of nu */
    Py_ssize_t largest_index;
    double *inverse;   /* per body: M^-1, 6x6 row-major */
    double *motor;     /* per body: 6 accelerations of the motors */
    /* joints, in elimination order */
    Py_ssize_t n_joints;
    int *kind;
    Py_ssize_t *body; /* per joint: a, b (-1: the world) */
    double *params;   /* per joint: N_PARAMS */
    Py_ssize_t *kept; /* per joint: bit r set when its row r is kept (independent) */
    Py_ssize_t *drive; /* per joint: state indices of its actuator's theta[1..2], omega[1..2]
                        * (driven joints; -1 for the others) */
    Py_ssize_t largest_drive; /* the largest of them, -1 without driven joints */
    double *motion;   /* per joint: N_MOTION, of driven joints at the loaded state */
    Py_ssize_t *start; /* per joint: first kept row; n_joints + 1 entries */
    Py_ssize_t *entry_start; /* per body: first entry; n_bodies + 1 entries */
    Entry *entries;
    int m; /* rows */
    /* G and its factor L in blocks of rows(j) x rows(i), row-major, in ``block``: joint i's
     * diagonal block at diagonal[i]; its later neighbours (joints j > i sharing a body with
     * it, ascending) later[later_start[i] ...], block (j, i) at later_block[...] */
    Py_ssize_t *later_start;
    Py_ssize_t *later;
    Py_ssize_t *later_block;
    Py_ssize_t *diagonal;
    /* per joint i, per pair e <= f of its later neighbours: where block (later[f], later[e])
     * is (its Schur update); per body, per pair of its entries: where their block of G is */
    Py_ssize_t *schur_start;
    Py_ssize_t *schur_block;
    Py_ssize_t *assembly_block;
    Py_ssize_t n_values;
    /* per body: its first pair in assembly_block (n_bodies + 1 entries); per joint i: the
     * bodies assembled just before i is eliminated (those whose blocks i is the first to
     * read or update), assembled[assembled_start[i] ...] */
    Py_ssize_t *pair_start;
    Py_ssize_t *assembled_start;
    Py_ssize_t *assembled;
    double *pivot; /* per row: the reciprocal of L's diagonal */
    double alpha, beta;
    /* work */
    double *frames; /* per body and the world (last): p (3), R (9), nu (6), a (6) */
    double *phi;    /* per row: 6 on body a, 6 on body b */
    double *weighted; /* per row: phi M^-1 on a and on b */
    double *bias;     /* per row: b */
    double *residual; /* per row: c */
    double *velocity; /* per row: the velocity Phi nu the row prescribes (driven joints) */
    double *angle;    /* per joint: angle error (rad) */
    double *position; /* per joint: position error (m) */
    double largest_residual; /* the largest |c| of all rows, kept or not (NaN if any is) */
    double *rhs;
    double *block;
} Coupling;

enum { F_P = 0, F_R = 3, F_NU = 12, F_A = 18, F_SIZE = 24 };

/* ---------------------------------------------------------------------------------------- */
/* small vector algebra (3-vectors, 3x3 row-major)                                          */

static void apply3(const double *R, const double *v, double *out) /* R v */
{
    for (int i = 0; i < 3; i++)
        out[i] = R[3 * i] * v[0] + R[3 * i + 1] * v[1] + R[3 * i + 2] * v[2];
}

/* Rotation vector (axis times angle, rad) of R, as ``joints.rotation_vector``: below 8 deg
 * the series of angle/sin(angle) in sin^2, else through the unit quaternion (the largest of
 * its components found first, as SciPy's Rotation.from_matrix and as_rotvec do). */
static void rotation_vector(const double *R, double *out)
{
    double cosine = (R[0] + R[4] + R[8] - 1.0) / 2.0;
    double axis[3] = {R[7] - R[5], R[2] - R[6], R[3] - R[1]};
    if (cosine > 0.99) {
        double s = 1.0 - cosine * cosine;
        double series = 1.0 + s / 6.0 + 3.0 * s * s / 40.0 + 5.0 * s * s * s / 112.0;
        for (int i = 0; i < 3; i++)
            out[i] = 0.5 * axis[i] * series;
        return;
    }
    double trace = R[0] + R[4] + R[8], decision[4] = {R[0], R[4], R[8], trace}, q[4];
    int choice = 0;
    for (int i = 1; i < 4; i++)
        if (decision[i] > decision[choice])
            choice = i;
    if (choice != 3) {
        int i = choice, j = (i + 1) % 3, k = (j + 1) % 3;
        q[i] = 1 - trace + 2 * R[4 * i];
        q[j] = R[3 * j + i] + R[3 * i + j];
        q[k] = R[3 * k + i] + R[3 * i + k];
        q[3] = R[3 * k + j] - R[3 * j + k];
    } else {
        q[0] = axis[0], q[1] = axis[1], q[2] = axis[2], q[3] = 1 + trace;
    }
    double norm = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; i++)
        q[i] /= norm;
    if (q[3] < 0)
        for (int i = 0; i < 4; i++)
            q[i] = -q[i];
    double angle = 2 * atan2(sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]), q[3]);
    double a2 = angle * angle;
    double scale = angle <= 1e-3 ? 2 + a2 / 12 + 7 * a2 * a2 / 2880 : angle / sin(angle / 2);
    for (int i = 0; i < 3; i++)
        out[i] = scale * q[i];
}

/* ---------------------------------------------------------------------------------------- */
/* rows of the joints                                                                       */

/* Point coincidence of r_a (in A) and r_b (in B): 3 rows in NED. */
static void point_rows(const double *a, const double *b, const double *par, double *phi,
                       double *bias, double *c)
{
    const double *Ra = a + F_R, *Rb = b + F_R, *ra = par + P_RA, *rb = par + P_RB;
    double S[9], RS[9], t[3], u[3];
    skew3(ra, S);
    multiply3(Ra, S, RS);
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) {
            phi[12 * i + k] = Ra[3 * i + k];
            phi[12 * i + 3 + k] = -RS[3 * i + k];
        }
    skew3(rb, S);
    multiply3(Rb, S, RS);
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) {
            phi[12 * i + 6 + k] = -Rb[3 * i + k];
            phi[12 * i + 9 + k] = RS[3 * i + k];
        }
    /* b = -R_a w_a x (v_a + w_a x r_a) + R_b w_b x (v_b + w_b x r_b) */
    double ta[3], tb[3];
    cross3(a + F_NU + 3, ra, t);
    for (int i = 0; i < 3; i++)
        t[i] += a[F_NU + i];
    cross3(a + F_NU + 3, t, u);
    apply3(Ra, u, ta);
    cross3(b + F_NU + 3, rb, t);
    for (int i = 0; i < 3; i++)
        t[i] += b[F_NU + i];
    cross3(b + F_NU + 3, t, u);
    apply3(Rb, u, tb);
    double pa[3], pb[3];
    apply3(Ra, ra, pa);
    apply3(Rb, rb, pb);
    for (int i = 0; i < 3; i++) {
        bias[i] = -ta[i] + tb[i];
        c[i] = a[F_P + i] + pa[i] - b[F_P + i] - pb[i];
    }
}

/* No relative angular velocity along the k unit vectors E (A's frame; NULL: all three axes);
 * ``relative`` = R_a' R_b. Residuals c are the caller's. */
static void angular_rows(const double *a, const double *b, const double *E, int k,
                         const double *relative, double *phi, double *bias)
{
    double turned[3], spin[3];
    apply3(relative, b + F_NU + 3, turned);
    cross3(a + F_NU + 3, turned, spin);
    for (int r = 0; r < k; r++) {
        double *row = phi + 12 * r;
        memset(row, 0, 12 * sizeof(double));
        if (E == NULL) {
            row[3 + r] = 1.0;
            for (int j = 0; j < 3; j++)
                row[9 + j] = -relative[3 * r + j];
            bias[r] = -spin[r];
        } else {
            const double *e = E + 3 * r;
            for (int j = 0; j < 3; j++) {
                row[3 + j] = e[j];
                row[9 + j] = -(e[0] * relative[j] + e[1] * relative[3 + j] +
                               e[2] * relative[6 + j]);
            }
            bias[r] = e[0] * -spin[0] + e[1] * -spin[1] + e[2] * -spin[2];
        }
    }
}

/* Rotation of ``angle`` (rad) about the unit ``axis`` (Rodrigues' formula, as
 * ``joints.axis_rotation``). */
static void axis_rotation(const double *axis, double angle, double *R)
{
    double K[9], KK[9], sine = sin(angle), versine = 1.0 - cos(angle);
    skew3(axis, K);
    multiply3(K, K, KK);
    for (int i = 0; i < 9; i++)
        R[i] = (i % 4 == 0 ? 1.0 : 0.0) + sine * K[i] + versine * KK[i];
}

/* The revolute joint's two angular rows (hinge perpendiculars) and residuals; its angle
 * error, the arcsine of the axis misalignment. */
static void hinge_rows(const double *a, const double *b, const double *par,
                       const double *relative, double *phi, double *bias, double *c,
                       double *angle)
{
    double axis_b[3], misalignment[3];
    apply3(relative, par + P_AXIS_B, axis_b);
    cross3(par + P_AXIS, axis_b, misalignment);
    double sine = sqrt(misalignment[0] * misalignment[0] + misalignment[1] * misalignment[1] +
                       misalignment[2] * misalignment[2]);
    *angle = asin(sine < 1.0 ? sine : 1.0);
    for (int r = 0; r < 2; r++) {
        const double *e = par + P_PERP + 3 * r;
        c[r] = -(e[0] * misalignment[0] + e[1] * misalignment[1] + e[2] * misalignment[2]);
    }
    angular_rows(a, b, par + P_PERP, 2, relative, phi, bias);
}

/* The universal joint's angular row, as ``Universal.batch_rows``: axis (in A) and axis_b (in
 * B) kept perpendicular, c = n1 . n2 with n1 = R_a axis, n2 = R_b axis_b in NED; its angle
 * error |arcsin(n1 . n2)|. */
static void cross_row(const double *a, const double *b, const double *par, double *phi,
                      double *bias, double *c, double *angle)
{
    const double *Ra = a + F_R, *Rb = b + F_R;
    double n1[3], n2[3], h[3], wa[3], wb[3], t[3], u[3], h_dot[3];
    apply3(Ra, par + P_AXIS, n1);
    apply3(Rb, par + P_AXIS_B, n2);
    cross3(n1, n2, h);
    apply3(Ra, a + F_NU + 3, wa);
    apply3(Rb, b + F_NU + 3, wb);
    cross3(wa, n1, t);
    cross3(t, n2, u);
    cross3(wb, n2, t);
    cross3(n1, t, h_dot);
    for (int i = 0; i < 3; i++)
        h_dot[i] = u[i] + h_dot[i];
    memset(phi, 0, 12 * sizeof(double));
    for (int k = 0; k < 3; k++) {
        phi[3 + k] = h[0] * Ra[k] + h[1] * Ra[3 + k] + h[2] * Ra[6 + k];
        phi[9 + k] = -(h[0] * Rb[k] + h[1] * Rb[3 + k] + h[2] * Rb[6 + k]);
    }
    *bias = -(h_dot[0] * (wa[0] - wb[0]) + h_dot[1] * (wa[1] - wb[1]) +
              h_dot[2] * (wa[2] - wb[2]));
    double dot = n1[0] * n2[0] + n1[1] * n2[1] + n1[2] * n2[2];
    *c = dot;
    *angle = fabs(asin(dot < -1.0 ? -1.0 : dot > 1.0 ? 1.0 : dot));
}

/* The relative rotation a driven universal joint prescribes (B -> A) at its motion, and the
 * relative angular velocity w_p and its derivative (A's frame), as
 * ``DrivenUniversal.prescribed``. */
static void prescribed(const double *par, const double *motion, double *R, double *w,
                       double *w_dot)
{
    const double *axis = par + P_AXIS, *axis_b = par + P_AXIS_B;
    const double *rate = motion + M_RATE, *acceleration = motion + M_ACCELERATION;
    double first[9], second[9], turned[9], e2[3], spin[3];
    axis_rotation(axis, motion[M_ANGLE], first);
    axis_rotation(axis_b, motion[M_ANGLE + 1], second);
    multiply3(first, par + P_REL, turned);
    apply3(turned, axis_b, e2);
    multiply3(turned, second, R);
    cross3(axis, e2, spin);
    for (int i = 0; i < 3; i++) {
        w[i] = axis[i] * rate[0] + e2[i] * rate[1];
        w_dot[i] = axis[i] * acceleration[0] + e2[i] * acceleration[1] +
                   rate[0] * rate[1] * spin[i];
    }
}

/* All rows of joint j (up to MAX_ROWS): phi (x 12), b, c and the prescribed velocity, its
 * position error (m) and angle error (rad) as ``Joint.violation`` gives them. */
static void all_rows(const Coupling *self, Py_ssize_t j, double *phi, double *bias, double *c,
                     double *velocity, double *position, double *angle)
{
    const double *a = self->frames + F_SIZE * self->body[2 * j];
    Py_ssize_t ib = self->body[2 * j + 1];
    const double *b = self->frames + F_SIZE * (ib < 0 ? self->n_bodies : ib);
    const double *par = self->params + N_PARAMS * j;
    int kind = self->kind[j], n = KIND_ROWS[kind];
    double relative[9], RaT[9];
    memset(velocity, 0, MAX_ROWS * sizeof(double));
    point_rows(a, b, par, phi, bias, c);
    *position = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
    *angle = 0.0;
    if (kind == KIND_UNIVERSAL)
        cross_row(a, b, par, phi + 36, bias + 3, c + 3, angle);
    if (kind == KIND_WELD || kind == KIND_REVOLUTE || kind == KIND_DRIVEN_UNIVERSAL) {
        for (int i = 0; i < 3; i++)
            for (int k = 0; k < 3; k++)
                RaT[3 * i + k] = a[F_R + 3 * k + i];
        multiply3(RaT, b + F_R, relative);
    }
    if (kind == KIND_REVOLUTE)
        hinge_rows(a, b, par, relative, phi + 36, bias + 3, c + 3, angle);
    if (kind == KIND_WELD || kind == KIND_DRIVEN_UNIVERSAL) {
        /* rotation error against the reference attitude: at creation, or prescribed */
        double reference[9], referenceT[9], turned[9], w[3] = {0}, w_dot[3] = {0};
        if (kind == KIND_WELD)
            memcpy(reference, par + P_REL, sizeof(reference));
        else
            prescribed(par, self->motion + N_MOTION * j, reference, w, w_dot);
        for (int i = 0; i < 3; i++)
            for (int k = 0; k < 3; k++)
                referenceT[3 * i + k] = reference[3 * k + i];
        multiply3(relative, referenceT, turned);
        rotation_vector(turned, c + 3);
        for (int i = 3; i < 6; i++)
            c[i] = -c[i];
        *angle = sqrt(c[3] * c[3] + c[4] * c[4] + c[5] * c[5]);
        angular_rows(a, b, NULL, 3, relative, phi + 36, bias + 3);
        for (int i = 0; i < 3; i++) {
            bias[3 + i] -= w_dot[i];
            velocity[3 + i] = -w[i];
        }
    }
    if (ib < 0) /* the world has no columns */
        for (int r = 0; r < n; r++)
            memset(phi + 12 * r + 6, 0, 6 * sizeof(double));
}

/* The kept rows of joint j (phi, b, c, velocity from its first row on), its position and
 * angle errors. */
static void joint_rows(Coupling *self, Py_ssize_t j)
{
    double phi[12 * MAX_ROWS], bias[MAX_ROWS], c[MAX_ROWS], velocity[MAX_ROWS];
    all_rows(self, j, phi, bias, c, velocity, self->position + j, self->angle + j);
    Py_ssize_t row = self->start[j];
    for (int r = 0; r < KIND_ROWS[self->kind[j]]; r++) {
        double size = fabs(c[r]);
        if (!(size <= self->largest_residual)) /* NaN propagates, as numpy's max */
            self->largest_residual = size;
        if (!(self->kept[j] >> r & 1))
            continue;
        memcpy(self->phi + 12 * row, phi + 12 * r, 12 * sizeof(double));
        self->bias[row] = bias[r];
        self->residual[row] = c[r];
        self->velocity[row] = velocity[r];
        row++;
    }
}

/* ---------------------------------------------------------------------------------------- */
/* the solve                                                                                */

static double dot6(const double *u, const double *v)
{
    return u[0] * v[0] + u[1] * v[1] + u[2] * v[2] + u[3] * v[3] + u[4] * v[4] + u[5] * v[5];
}

/* The bodies' frames from the state x: p, R, nu, and (``dx`` given) the unconstrained
 * accelerations der(nu) plus the motors' (else zero); the driven joints' motion from their
 * actuators' states (and accelerations der(omega) in dx, else zero), as ``Drive.follow``. */
static void load_frames(Coupling *self, const double *x, const double *dx)
{
    for (Py_ssize_t k = 0; k < self->n_bodies; k++) {
        const Py_ssize_t *index = self->index + 13 * k;
        double *f = self->frames + F_SIZE * k, q[4];
        for (int i = 0; i < 3; i++)
            f[F_P + i] = x[index[i]];
        for (int i = 0; i < 4; i++)
            q[i] = x[index[3 + i]];
        rotation_matrix(q, f + F_R);
        for (int i = 0; i < 6; i++) {
            f[F_NU + i] = x[index[7 + i]];
            f[F_A + i] = dx == NULL ? 0.0 : dx[index[7 + i]] + self->motor[6 * k + i];
        }
    }
    if (self->largest_drive < 0)
        return;
    for (Py_ssize_t j = 0; j < self->n_joints; j++) {
        const Py_ssize_t *state = self->drive + 4 * j;
        if (state[0] < 0)
            continue;
        double *motion = self->motion + N_MOTION * j;
        for (int i = 0; i < 2; i++) {
            motion[M_ANGLE + i] = x[state[i]];
            motion[M_RATE + i] = x[state[2 + i]];
            motion[M_ACCELERATION + i] = dx == NULL ? 0.0 : dx[state[2 + i]];
        }
    }
}

/* Every joint's kept rows at the loaded frames: phi, b, c, the prescribed velocities, the
 * weighted rows phi M^-1 (zero on the world); the errors of the joints evaluated and the
 * largest |c| of their rows. ``every``: evaluate all joints, else only those with kept rows
 * (a right-hand side needs no more). */
static void build_rows(Coupling *self, int every)
{
    double *phi = self->phi, *W = self->weighted;
    self->largest_residual = 0.0;
    for (Py_ssize_t j = 0; j < self->n_joints; j++) {
        Py_ssize_t r0 = self->start[j], n = self->start[j + 1] - r0;
        if (n == 0 && !every)
            continue;
        joint_rows(self, j);
        for (Py_ssize_t r = r0; r < r0 + n; r++)
            for (int side = 0; side < 2; side++) {
                Py_ssize_t k = self->body[2 * j + side];
                double *w = W + 12 * r + 6 * side;
                if (k < 0) {
                    memset(w, 0, 6 * sizeof(double));
                    continue;
                }
                const double *inverse = self->inverse + 36 * k;
                for (int i = 0; i < 6; i++) { /* phi M^-1 (M^-1 symmetric) */
                    double s = 0.0;
                    for (int l = 0; l < 6; l++)
                        s += phi[12 * r + 6 * side + l] * inverse[6 * l + i];
                    w[i] = s;
                }
            }
    }
}

/* Row r of Phi times the bodies' 6-vectors at ``offset`` of their frames (F_NU, F_A). */
static double row_times(const Coupling *self, Py_ssize_t j, Py_ssize_t r, int offset)
{
    double sum = 0.0;
    for (int side = 0; side < 2; side++) {
        Py_ssize_t k = self->body[2 * j + side];
        if (k >= 0)
            sum += dot6(self->phi + 12 * r + 6 * side, self->frames + F_SIZE * k + offset);
    }
    return sum;
}

/* The small dense kernels below take their block sizes as arguments; each is compiled twice,
 * once for blocks of MAX_ROWS rows (welds, driven joints: the common case) with the sizes
 * constant, which GCC unrolls, and once for any size. Both run the same operations in the
 * same order, so they round alike. */
#define SIZED static inline __attribute__((always_inline))

/* Cholesky factor of one diagonal block (r x r, row-major, lower triangle read) in place,
 * lower triangle, and the reciprocals of its diagonal in ``inverse``: the number (from 1) of
 * its first non-positive pivot, else 0. */
SIZED int factor_block_sized(double *D, double *inverse, Py_ssize_t r)
{
    for (Py_ssize_t k = 0; k < r; k++) {
        double pivot = D[r * k + k];
        for (Py_ssize_t l = 0; l < k; l++)
            pivot -= D[r * k + l] * D[r * k + l];
        if (!(pivot > 0.0))
            return (int)k + 1;
        D[r * k + k] = sqrt(pivot);
        inverse[k] = 1.0 / D[r * k + k];
        for (Py_ssize_t i = k + 1; i < r; i++) {
            double sum = D[r * i + k];
            for (Py_ssize_t l = 0; l < k; l++)
                sum -= D[r * i + l] * D[r * k + l];
            D[r * i + k] = sum * inverse[k];
        }
    }
    return 0;
}

static int factor_block(double *D, double *inverse, Py_ssize_t r)
{
    return r == MAX_ROWS ? factor_block_sized(D, inverse, MAX_ROWS)
                         : factor_block_sized(D, inverse, r);
}

/* B := B L^-T in place for B (rows x r) and the lower factor L (r x r) of factor_block with
 * the reciprocals of its diagonal. */
SIZED void divide_block_sized(double *B, Py_ssize_t rows, const double *L,
                              const double *inverse, Py_ssize_t r)
{
    for (Py_ssize_t k = 0; k < r; k++) /* column by column: the rows are independent */
        for (Py_ssize_t i = 0; i < rows; i++) {
            double sum = B[r * i + k];
            for (Py_ssize_t l = 0; l < k; l++)
                sum -= B[r * i + l] * L[r * k + l];
            B[r * i + k] = sum * inverse[k];
        }
}

static void divide_block(double *B, Py_ssize_t rows, const double *L, const double *inverse,
                         Py_ssize_t r)
{
    if (rows == MAX_ROWS && r == MAX_ROWS)
        divide_block_sized(B, MAX_ROWS, L, inverse, MAX_ROWS);
    else
        divide_block_sized(B, rows, L, inverse, r);
}

/* S -= A B' for A (r_a x r), B (r_b x r) and S (r_a x r_b), row-major; of a diagonal block
 * S (``lower``: A = B) only the lower triangle, all that is read of it. */
SIZED void subtract_product_sized(double *S, const double *A, const double *B, Py_ssize_t r_a,
                                  Py_ssize_t r_b, Py_ssize_t r, int lower)
{
    for (Py_ssize_t a = 0; a < r_a; a++)
        for (Py_ssize_t b = 0; b < (lower ? a + 1 : r_b); b++) {
            double sum = 0.0;
            for (Py_ssize_t c = 0; c < r; c++)
                sum += A[r * a + c] * B[r * b + c];
            S[r_b * a + b] -= sum;
        }
}

static void subtract_product(double *S, const double *A, const double *B, Py_ssize_t r_a,
                             Py_ssize_t r_b, Py_ssize_t r, int lower)
{
    if (r_a == MAX_ROWS && r_b == MAX_ROWS && r == MAX_ROWS) {
        if (lower)
            subtract_product_sized(S, A, B, MAX_ROWS, MAX_ROWS, MAX_ROWS, 1);
        else
            subtract_product_sized(S, A, B, MAX_ROWS, MAX_ROWS, MAX_ROWS, 0);
    } else
        subtract_product_sized(S, A, B, r_a, r_b, r, lower);
}

/* G += W P' for the weighted rows W (r_w of them, 12 apart) and the rows P (r_p, 12 apart)
 * on one body, G (r_w x r_p) row-major; of a diagonal block (``lower``: P the same rows as
 * W) only the lower triangle, all that the factorization reads. */
SIZED void add_body_block_sized(double *G, const double *W, const double *P, Py_ssize_t r_w,
                                Py_ssize_t r_p, int lower)
{
    for (Py_ssize_t a = 0; a < r_w; a++)
        for (Py_ssize_t b = 0; b < (lower ? a + 1 : r_p); b++)
            G[r_p * a + b] += dot6(W + 12 * a, P + 12 * b);
}

static void add_body_block(double *G, const double *W, const double *P, Py_ssize_t r_w,
                           Py_ssize_t r_p, int lower)
{
    if (r_w == MAX_ROWS && r_p == MAX_ROWS) {
        if (lower)
            add_body_block_sized(G, W, P, MAX_ROWS, MAX_ROWS, 1);
        else
            add_body_block_sized(G, W, P, MAX_ROWS, MAX_ROWS, 0);
    } else
        add_body_block_sized(G, W, P, r_w, r_p, lower);
}

/* Body k's terms of G = Phi M^-1 Phi' (built rows) added to G's blocks: W_k P_k' for every
 * pair of joints at k. */
static void assemble_body(Coupling *self, Py_ssize_t k)
{
    const Py_ssize_t *start = self->start, *where = self->assembly_block + self->pair_start[k];
    const double *phi = self->phi, *W = self->weighted;
    for (Py_ssize_t e = self->entry_start[k]; e < self->entry_start[k + 1]; e++)
        for (Py_ssize_t g = e; g < self->entry_start[k + 1]; g++) {
            Entry first = self->entries[e], second = self->entries[g];
            Entry lo = first.joint <= second.joint ? first : second;
            Entry hi = first.joint <= second.joint ? second : first;
            add_body_block(self->block + *where++, W + 12 * start[hi.joint] + 6 * hi.side,
                           phi + 12 * start[lo.joint] + 6 * lo.side,
                           start[hi.joint + 1] - start[hi.joint],
                           start[lo.joint + 1] - start[lo.joint], e == g);
        }
}

/* G = Phi M^-1 Phi' of the built rows, assembled body by body into its blocks, and its block
 * Cholesky factor L (G = L L') in place; -1 with numpy's LinAlgError at a singular
 * configuration. A body's terms are added just before the first elimination that reads or
 * updates its blocks, so that the processor overlaps them with the elimination's chain of
 * dependent square roots and divisions. A block's value is the same in any assembly order:
 * it has at most two terms (the bodies two joints share), and IEEE addition commutes. */
static int factorize(Coupling *self)
{
    const Py_ssize_t *start = self->start;
    memset(self->block, 0, (size_t)self->n_values * sizeof(double));
    for (Py_ssize_t i = 0; i < self->n_joints; i++) {
        for (Py_ssize_t b = self->assembled_start[i]; b < self->assembled_start[i + 1]; b++)
            assemble_body(self, self->assembled[b]);
        Py_ssize_t r_i = start[i + 1] - start[i];
        double *D = self->block + self->diagonal[i], *inverse = self->pivot + start[i];
        int minor = factor_block(D, inverse, r_i);
        if (minor > 0) {
            PyErr_Format(self->error,
                         "constraint rows became dependent (leading minor %zd of Phi M^-1 Phi' "
                         "is not positive definite): a joint at a singular configuration",
                         start[i] + minor);
            return -1;
        }
        for (Py_ssize_t e = self->later_start[i]; e < self->later_start[i + 1]; e++) {
            Py_ssize_t j = self->later[e];
            divide_block(self->block + self->later_block[e], start[j + 1] - start[j], D, inverse,
                         r_i);
        }
        /* Schur complement: block (l, j) -= L(l, i) L(j, i)' for later neighbours j <= l */
        const Py_ssize_t *target = self->schur_block + self->schur_start[i];
        for (Py_ssize_t e = self->later_start[i]; e < self->later_start[i + 1]; e++) {
            Py_ssize_t j = self->later[e], r_j = start[j + 1] - start[j];
            const double *Lj = self->block + self->later_block[e];
            for (Py_ssize_t f = e; f < self->later_start[i + 1]; f++) {
                Py_ssize_t l = self->later[f];
                subtract_product(self->block + *target++, self->block + self->later_block[f],
                                 Lj, start[l + 1] - start[l], r_j, r_i, f == e);
            }
        }
    }
    return 0;
}

/* x_i := L_ii^-1 x_i (``forward``) or L_ii^-T x_i for a diagonal block of ``factorize`` (r x r,
 * lower, the reciprocals of its diagonal in ``inverse``). */
SIZED void diagonal_solve_sized(const double *D, const double *inverse, double *xi,
                                Py_ssize_t r, int forward)
{
    if (forward)
        for (Py_ssize_t k = 0; k < r; k++) {
            for (Py_ssize_t l = 0; l < k; l++)
                xi[k] -= D[r * k + l] * xi[l];
            xi[k] *= inverse[k];
        }
    else
        for (Py_ssize_t k = r - 1; k >= 0; k--) {
            for (Py_ssize_t l = k + 1; l < r; l++)
                xi[k] -= D[r * l + k] * xi[l];
            xi[k] *= inverse[k];
        }
}

static void diagonal_solve(const double *D, const double *inverse, double *xi, Py_ssize_t r,
                           int forward)
{
    if (r == MAX_ROWS && forward)
        diagonal_solve_sized(D, inverse, xi, MAX_ROWS, 1);
    else if (r == MAX_ROWS)
        diagonal_solve_sized(D, inverse, xi, MAX_ROWS, 0);
    else
        diagonal_solve_sized(D, inverse, xi, r, forward);
}

/* With B (r_j x r_i, row-major): x_j -= B x_i (``forward``), else x_i -= B' x_j, each
 * element's terms in the same order. */
SIZED void block_update_sized(const double *B, double *xj, double *xi, Py_ssize_t r_j,
                              Py_ssize_t r_i, int forward)
{
    for (Py_ssize_t a = 0; a < r_j; a++)
        for (Py_ssize_t k = 0; k < r_i; k++) {
            if (forward)
                xj[a] -= B[r_i * a + k] * xi[k];
            else
                xi[k] -= B[r_i * a + k] * xj[a];
        }
}

static void block_update(const double *B, double *xj, double *xi, Py_ssize_t r_j,
                         Py_ssize_t r_i, int forward)
{
    if (r_j == MAX_ROWS && r_i == MAX_ROWS && forward)
        block_update_sized(B, xj, xi, MAX_ROWS, MAX_ROWS, 1);
    else if (r_j == MAX_ROWS && r_i == MAX_ROWS)
        block_update_sized(B, xj, xi, MAX_ROWS, MAX_ROWS, 0);
    else
        block_update_sized(B, xj, xi, r_j, r_i, forward);
}

/* lambda = G^-1 rhs, in place, with the factor of ``factorize``: L y = rhs forward, then
 * L' lambda = y backward, block by block. */
static void solve(Coupling *self)
{
    Py_ssize_t n = self->n_joints;
    const Py_ssize_t *start = self->start;
    double *x = self->rhs;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t r_i = start[i + 1] - start[i];
        double *xi = x + start[i];
        diagonal_solve(self->block + self->diagonal[i], self->pivot + start[i], xi, r_i, 1);
        for (Py_ssize_t e = self->later_start[i]; e < self->later_start[i + 1]; e++) {
            Py_ssize_t j = self->later[e];
            block_update(self->block + self->later_block[e], x + start[j], xi,
                         start[j + 1] - start[j], r_i, 1);
        }
    }
    for (Py_ssize_t i = n - 1; i >= 0; i--) {
        Py_ssize_t r_i = start[i + 1] - start[i];
        double *xi = x + start[i];
        for (Py_ssize_t e = self->later_start[i]; e < self->later_start[i + 1]; e++) {
            Py_ssize_t j = self->later[e];
            block_update(self->block + self->later_block[e], x + start[j], xi,
                         start[j + 1] - start[j], r_i, 0);
        }
        diagonal_solve(self->block + self->diagonal[i], self->pivot + start[i], xi, r_i, 0);
    }
}

/* Adds M^-1 Phi' lambda (lambda in rhs) to the bodies' 6-vectors at ``offset``. */
static void add_correction(Coupling *self, int offset)
{
    for (Py_ssize_t j = 0; j < self->n_joints; j++)
        for (Py_ssize_t r = self->start[j]; r < self->start[j + 1]; r++)
            for (int side = 0; side < 2; side++) {
                Py_ssize_t k = self->body[2 * j + side];
                if (k < 0)
                    continue;
                double *v = self->frames + F_SIZE * k + offset;
                for (int i = 0; i < 6; i++)
                    v[i] += self->weighted[12 * r + 6 * side + i] * self->rhs[r];
            }
}

/* The multipliers of the stabilised acceleration rows at the loaded frames (built rows):
 * G lambda = b - alpha Phi nu - beta c - Phi a_u. */
static int acceleration_multipliers(Coupling *self)
{
    if (factorize(self) < 0)
        return -1;
    for (Py_ssize_t j = 0; j < self->n_joints; j++)
        for (Py_ssize_t r = self->start[j]; r < self->start[j + 1]; r++) {
            double b = self->bias[r];
            if (self->alpha != 0.0 || self->beta != 0.0)
                b = b - self->alpha * (row_times(self, j, r, F_NU) - self->velocity[r]) -
                    self->beta * self->residual[r];
            self->rhs[r] = b - row_times(self, j, r, F_A);
        }
    solve(self);
    return 0;
}

static int check_length(const Coupling *self, Py_ssize_t n_states)
{
    Py_ssize_t largest = Py_MAX(self->largest_index, self->largest_drive);
    if (largest >= n_states) {
        PyErr_Format(PyExc_ValueError, "coupling: state index %zd outside the %zd states",
                     largest, n_states);
        return -1;
    }
    return 0;
}

/* Frames, rows (of every joint, or only of those with kept rows) and the acceleration-level
 * multipliers at state x with the unconstrained rates dx: 1 when solved, 0 when there are no
 * joints, -1 on an error (set). */
static int multipliers_at(Coupling *self, const double *x, const double *dx, Py_ssize_t n_states,
                          int every)
{
    if (check_length(self, n_states) < 0)
        return -1;
    if (self->n_joints == 0)
        return 0;
    load_frames(self, x, dx);
    build_rows(self, every);
    return acceleration_multipliers(self) < 0 ? -1 : 1;
}

int coupling_apply(PyObject *post, const double *x, double *dx, Py_ssize_t n_states)
{
    Coupling *self = (Coupling *)post;
    int solved = multipliers_at(self, x, dx, n_states, 0);
    if (solved <= 0)
        return solved;
    add_correction(self, F_A); /* a_c = a_u + M^-1 Phi' lambda */
    for (Py_ssize_t k = 0; k < self->n_bodies; k++)
        for (int i = 0; i < 6; i++)
            dx[self->index[13 * k + 7 + i]] = self->frames[F_SIZE * k + F_A + i];
    return 0;
}

/* q turned by the rotation vector v (body frame, rad): q (x) exp(v/2), as
 * ``kinematics.rotate_quaternion``. */
static void rotate_quaternion(double *q, const double *v)
{
    double angle = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (angle == 0.0)
        return;
    double s = sin(angle / 2), h[4] = {cos(angle / 2), s * v[0] / angle, s * v[1] / angle,
                                       s * v[2] / angle};
    double turn[3], scalar = q[0] * h[0] - (q[1] * h[1] + q[2] * h[2] + q[3] * h[3]);
    cross3(q + 1, h + 1, turn);
    for (int i = 0; i < 3; i++)
        turn[i] += q[0] * h[1 + i] + h[0] * q[1 + i];
    q[0] = scalar;
    q[1] = turn[0], q[2] = turn[1], q[3] = turn[2];
}

/* Positions, attitudes and velocities of x moved onto the constraint manifold, in place, as
 * ``Assembly.project_positions`` then ``Assembly.project_velocities``: quaternions made
 * unit, then up to ``iterations`` Newton steps of the least mass-weighted correction
 * (G lambda = -c) until every |c| < tolerance, then nu + M^-1 Phi' lambda with
 * G lambda = -Phi nu. */
static int coupling_project(Coupling *self, double *x, Py_ssize_t n_states, double tolerance,
                            int iterations)
{
    if (check_length(self, n_states) < 0)
        return -1;
    if (self->n_joints == 0)
        return 0;
    for (Py_ssize_t k = 0; k < self->n_bodies; k++) {
        const Py_ssize_t *q = self->index + 13 * k + 3;
        double norm = sqrt(x[q[0]] * x[q[0]] + x[q[1]] * x[q[1]] + x[q[2]] * x[q[2]] +
                           x[q[3]] * x[q[3]]);
        for (int i = 0; i < 4; i++)
            x[q[i]] /= norm;
    }
    for (int iteration = 0; iteration < iterations; iteration++) {
        load_frames(self, x, NULL);
        build_rows(self, 1);
        if (self->largest_residual < tolerance)
            break;
        if (factorize(self) < 0)
            return -1;
        for (int r = 0; r < self->m; r++)
            self->rhs[r] = -self->residual[r];
        solve(self);
        add_correction(self, F_A); /* F_A holds the step (zero from load_frames) */
        for (Py_ssize_t k = 0; k < self->n_bodies; k++) {
            const Py_ssize_t *index = self->index + 13 * k;
            const double *f = self->frames + F_SIZE * k;
            double moved[3], q[4];
            apply3(f + F_R, f + F_A, moved);
            for (int i = 0; i < 3; i++)
                x[index[i]] = f[F_P + i] + moved[i];
            for (int i = 0; i < 4; i++)
                q[i] = x[index[3 + i]];
            rotate_quaternion(q, f + F_A + 3);
            for (int i = 0; i < 4; i++)
                x[index[3 + i]] = q[i];
        }
    }
    load_frames(self, x, NULL);
    build_rows(self, 1);
    if (factorize(self) < 0)
        return -1;
    for (Py_ssize_t j = 0; j < self->n_joints; j++)
        for (Py_ssize_t r = self->start[j]; r < self->start[j + 1]; r++)
            self->rhs[r] = self->velocity[r] - row_times(self, j, r, F_NU);
    solve(self);
    add_correction(self, F_NU);
    for (Py_ssize_t k = 0; k < self->n_bodies; k++)
        for (int i = 0; i < 6; i++)
            x[self->index[13 * k + 7 + i]] = self->frames[F_SIZE * k + F_NU + i];
    return 0;
}

/* The recorded columns of every joint (in the order of set_joints), N_COLUMNS each: position
 * error (m), angle error (rad), generalized constraint force on body a and on body b (body
 * frames; zero on the world) of the kept rows' multipliers, at state x with the unconstrained
 * rates dx. */
enum { N_COLUMNS = 14 };

static int coupling_columns(Coupling *self, const double *x, const double *dx,
                            Py_ssize_t n_states, double *out)
{
    int solved = multipliers_at(self, x, dx, n_states, 1);
    if (solved <= 0)
        return solved;
    for (Py_ssize_t j = 0; j < self->n_joints; j++) {
        double *column = out + N_COLUMNS * j;
        column[0] = self->position[j];
        column[1] = self->angle[j];
        for (int i = 0; i < 12; i++) {
            double force = 0.0;
            for (Py_ssize_t r = self->start[j]; r < self->start[j + 1]; r++)
                force += self->phi[12 * r + i] * self->rhs[r];
            column[2 + i] = force;
        }
    }
    return 0;
}

/* Every row of every joint, kept or not, at state x: its 12 coefficients on bodies a and b
 * (zero on the world), joint after joint in the order of set_joints, each joint's rows in
 * its own order (``Joint.batch_rows``). */
static void coupling_all_rows(Coupling *self, const double *x, double *out)
{
    double bias[MAX_ROWS], c[MAX_ROWS], velocity[MAX_ROWS], position, angle;
    load_frames(self, x, NULL);
    for (Py_ssize_t j = 0; j < self->n_joints; j++) {
        all_rows(self, j, out, bias, c, velocity, &position, &angle);
        out += 12 * KIND_ROWS[self->kind[j]];
    }
}

/* Angle (rad, in (-pi, pi]) and rate (rad/s) of every revolute joint (NaN for the others)
 * at state x, as ``Revolute.batch_motion``: B's rotation relative to its attitude at
 * creation about the axis, and B's angular velocity relative to A's along the axis. */
static void coupling_motion(Coupling *self, const double *x, double *out)
{
    load_frames(self, x, NULL);
    for (Py_ssize_t j = 0; j < self->n_joints; j++) {
        if (self->kind[j] != KIND_REVOLUTE) {
            out[2 * j] = out[2 * j + 1] = NAN;
            continue;
        }
        const double *a = self->frames + F_SIZE * self->body[2 * j];
        Py_ssize_t ib = self->body[2 * j + 1];
        const double *b = self->frames + F_SIZE * (ib < 0 ? self->n_bodies : ib);
        const double *par = self->params + N_PARAMS * j;
        double RaT[9], relative[9], rel0T[9], turned[9], along[3], spin[3];
        for (int i = 0; i < 3; i++)
            for (int k = 0; k < 3; k++) {
                RaT[3 * i + k] = a[F_R + 3 * k + i];
                rel0T[3 * i + k] = par[P_REL + 3 * k + i];
            }
        multiply3(RaT, b + F_R, relative);
        multiply3(relative, rel0T, turned); /* in A's frame */
        const double *e1 = par + P_PERP, *e2 = par + P_PERP + 3, *axis = par + P_AXIS;
        apply3(turned, e1, along);
        out[2 * j] = atan2(e2[0] * along[0] + e2[1] * along[1] + e2[2] * along[2],
                           e1[0] * along[0] + e1[1] * along[1] + e1[2] * along[2]);
        apply3(relative, b + F_NU + 3, spin);
        out[2 * j + 1] = axis[0] * (spin[0] - a[F_NU + 3]) + axis[1] * (spin[1] - a[F_NU + 4]) +
                         axis[2] * (spin[2] - a[F_NU + 5]);
    }
}

/* ---------------------------------------------------------------------------------------- */
/* the Python type                                                                          */

static void Coupling_clear_joints(Coupling *self)
{
    PyMem_Free(self->kind);
    PyMem_Free(self->body);
    PyMem_Free(self->params);
    PyMem_Free(self->kept);
    PyMem_Free(self->drive);
    PyMem_Free(self->motion);
    PyMem_Free(self->velocity);
    PyMem_Free(self->position);
    PyMem_Free(self->start);
    PyMem_Free(self->entry_start);
    PyMem_Free(self->entries);
    PyMem_Free(self->phi);
    PyMem_Free(self->weighted);
    PyMem_Free(self->bias);
    PyMem_Free(self->residual);
    PyMem_Free(self->angle);
    PyMem_Free(self->rhs);
    PyMem_Free(self->block);
    PyMem_Free(self->pivot);
    PyMem_Free(self->later_start);
    PyMem_Free(self->later);
    PyMem_Free(self->later_block);
    PyMem_Free(self->diagonal);
    PyMem_Free(self->schur_start);
    PyMem_Free(self->schur_block);
    PyMem_Free(self->assembly_block);
    PyMem_Free(self->pair_start);
    PyMem_Free(self->assembled_start);
    PyMem_Free(self->assembled);
    self->kind = NULL, self->body = NULL, self->params = NULL, self->start = NULL;
    self->kept = NULL, self->drive = NULL, self->motion = NULL, self->velocity = NULL;
    self->position = NULL, self->largest_drive = -1;
    self->entry_start = NULL, self->entries = NULL, self->phi = NULL, self->weighted = NULL;
    self->bias = NULL, self->residual = NULL, self->angle = NULL, self->rhs = NULL;
    self->block = NULL, self->later_start = NULL, self->later = NULL, self->later_block = NULL;
    self->diagonal = NULL, self->schur_start = NULL, self->schur_block = NULL;
    self->assembly_block = NULL, self->n_values = 0, self->pivot = NULL;
    self->pair_start = NULL, self->assembled_start = NULL, self->assembled = NULL;
    self->n_joints = 0;
    self->compiled = 0;
}

/* The fallback is usually a bound method of the object that owns this one: a cycle the
 * garbage collector must see. */
static int Coupling_traverse(Coupling *self, visitproc visit, void *arg)
{
    Py_VISIT(self->fallback);
    Py_VISIT(self->error);
    return 0;
}

static int Coupling_clear(Coupling *self)
{
    Py_CLEAR(self->fallback);
    Py_CLEAR(self->error);
    return 0;
}

static void Coupling_dealloc(Coupling *self)
{
    PyObject_GC_UnTrack(self);
    Coupling_clear(self);
    Coupling_clear_joints(self);
    PyMem_Free(self->index);
    PyMem_Free(self->inverse);
    PyMem_Free(self->motor);
    PyMem_Free(self->frames);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Copy of a contiguous buffer of n float64 ("d") or int64 ("q") items into ``out`` (allocated
 * here; the caller frees it). */
static int copy_buffer(PyObject *array, Py_ssize_t n, const char *format, size_t size,
                       void **out, const char *what)
{
    Py_buffer view;
    if (PyObject_GetBuffer(array, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    int integer = format[0] == 'q' && view.format != NULL &&
                  (strcmp(view.format, "q") == 0 || strcmp(view.format, "l") == 0);
    int ok = view.itemsize == (Py_ssize_t)size && view.len == n * (Py_ssize_t)size &&
             view.format != NULL && (integer || strcmp(view.format, format) == 0);
    *out = ok ? PyMem_Calloc((size_t)(n ? n : 1), size) : NULL;
    if (ok && *out != NULL)
        memcpy(*out, view.buf, (size_t)n * size);
    PyBuffer_Release(&view);
    if (!ok) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd contiguous values of type '%s'", what,
                     n, format);
        return -1;
    }
    if (*out == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static int Coupling_init(Coupling *self, PyObject *args, PyObject *kwds)
{
    static char *keywords[] = {"fallback", "index", "inverse", NULL};
    PyObject *fallback, *index, *inverse;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOO", keywords, &fallback, &index, &inverse))
        return -1;
    if (self->index != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Coupling is initialised once");
        return -1;
    }
    if (!PyCallable_Check(fallback)) {
        PyErr_SetString(PyExc_TypeError, "fallback: expected a callable (x, dx)");
        return -1;
    }
    Py_ssize_t length = PyObject_Length(index);
    if (length < 0)
        return -1;
    if (length % 13) {
        PyErr_SetString(PyExc_ValueError, "index: expected 13 state indices per body");
        return -1;
    }
    self->n_bodies = length / 13;
    if (copy_buffer(index, length, "q", sizeof(Py_ssize_t), (void **)&self->index, "index") <
            0 ||
        copy_buffer(inverse, 36 * self->n_bodies, "d", sizeof(double), (void **)&self->inverse,
                    "inverse") < 0)
        return -1;
    self->largest_index = -1;
    self->largest_drive = -1;
    for (Py_ssize_t i = 0; i < length; i++) {
        if (self->index[i] < 0) {
            PyErr_SetString(PyExc_ValueError, "index: negative state index");
            return -1;
        }
        if (self->index[i] > self->largest_index)
            self->largest_index = self->index[i];
    }
    self->motor = PyMem_Calloc((size_t)(6 * self->n_bodies + 1), sizeof(double));
    self->frames = PyMem_Calloc((size_t)(F_SIZE * (self->n_bodies + 1)), sizeof(double));
    if (self->motor == NULL || self->frames == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    double *world = self->frames + F_SIZE * self->n_bodies; /* at rest at the origin */
    world[F_R] = world[F_R + 4] = world[F_R + 8] = 1.0;
    PyObject *linalg = PyImport_ImportModule("numpy.linalg");
    if (linalg == NULL)
        return -1;
    self->error = PyObject_GetAttrString(linalg, "LinAlgError");
    Py_DECREF(linalg);
    if (self->error == NULL)
        return -1;
    Py_INCREF(fallback);
    Py_XSETREF(self->fallback, fallback);
    return 0;
}

/* Position of block (j, i), j > i, among i's later neighbours' blocks; -1 if there is none. */
static Py_ssize_t later_block_of(const Coupling *self, Py_ssize_t i, Py_ssize_t j)
{
    for (Py_ssize_t e = self->later_start[i]; e < self->later_start[i + 1]; e++)
        if (self->later[e] == j)
            return self->later_block[e];
    return -1;
}

/* Adds ``joint`` to a growable list (once). 0 on success, -1 without memory. */
static int list_add(Py_ssize_t **list, Py_ssize_t *count, Py_ssize_t *capacity,
                    Py_ssize_t joint)
{
    for (Py_ssize_t e = 0; e < *count; e++)
        if ((*list)[e] == joint)
            return 0;
    if (*count == *capacity) {
        Py_ssize_t larger = *capacity ? 2 * *capacity : 4;
        Py_ssize_t *grown = PyMem_Realloc(*list, (size_t)larger * sizeof(Py_ssize_t));
        if (grown == NULL)
            return -1;
        *list = grown, *capacity = larger;
    }
    (*list)[(*count)++] = joint;
    return 0;
}

/* Every joint's later neighbours in the elimination of G in the joints' order: the joints
 * after it that share a body with it, and those the elimination of earlier joints joins to
 * it (fill: the Schur update of joint i couples every two of i's later neighbours). A
 * leaves-first order of a forest creates no fill; closed loops do. Into later_start and
 * later, each list ascending; -1 without memory. */
static int elimination_pattern(Coupling *self)
{
    Py_ssize_t n = self->n_joints, status = -1;
    Py_ssize_t **lists = PyMem_Calloc((size_t)(n + 1), sizeof(Py_ssize_t *));
    Py_ssize_t *count = PyMem_Calloc((size_t)(n + 1), sizeof(Py_ssize_t));
    Py_ssize_t *capacity = PyMem_Calloc((size_t)(n + 1), sizeof(Py_ssize_t));
    if (lists == NULL || count == NULL || capacity == NULL)
        goto done;
    for (Py_ssize_t k = 0; k < self->n_bodies; k++)
        for (Py_ssize_t e = self->entry_start[k]; e < self->entry_start[k + 1]; e++)
            for (Py_ssize_t g = e + 1; g < self->entry_start[k + 1]; g++) {
                Py_ssize_t a = self->entries[e].joint, b = self->entries[g].joint;
                Py_ssize_t lo = Py_MIN(a, b);
                if (list_add(&lists[lo], &count[lo], &capacity[lo], Py_MAX(a, b)) < 0)
                    goto done;
            }
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t *list = lists[i];
        for (Py_ssize_t e = 1; e < count[i]; e++) /* insertion sort: short lists */
            for (Py_ssize_t f = e; f > 0 && list[f - 1] > list[f]; f--) {
                Py_ssize_t swap = list[f];
                list[f] = list[f - 1];
                list[f - 1] = swap;
            }
        for (Py_ssize_t e = 0; e < count[i]; e++)
            for (Py_ssize_t f = e + 1; f < count[i]; f++) {
                Py_ssize_t j = list[e];
                if (list_add(&lists[j], &count[j], &capacity[j], list[f]) < 0)
                    goto done;
            }
    }
    self->later_start = PyMem_Calloc((size_t)(n + 2), sizeof(Py_ssize_t));
    for (Py_ssize_t i = 0; self->later_start != NULL && i < n; i++)
        self->later_start[i + 1] = self->later_start[i] + count[i];
    self->later = self->later_start == NULL
                      ? NULL
                      : PyMem_Calloc((size_t)(self->later_start[n] + 1), sizeof(Py_ssize_t));
    if (self->later == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < n; i++)
        if (count[i])
            memcpy(self->later + self->later_start[i], lists[i],
                   (size_t)count[i] * sizeof(Py_ssize_t));
    status = 0;
done:
    for (Py_ssize_t i = 0; lists != NULL && i < n; i++)
        PyMem_Free(lists[i]);
    PyMem_Free(lists);
    PyMem_Free(count);
    PyMem_Free(capacity);
    if (status < 0)
        PyErr_NoMemory();
    return (int)status;
}

/* When each body's terms of G are assembled (block_pattern, after its blocks are placed):
 * just before the elimination of the first joint that reads or updates one of its blocks
 * (pair_start, assembled_start, assembled); -1 with an exception. */
static int assembly_schedule(Coupling *self)
{
    Py_ssize_t n = self->n_joints, n_bodies = self->n_bodies, status = -1;
    Py_ssize_t *first = PyMem_Malloc((size_t)(self->n_values + 1) * sizeof(Py_ssize_t));
    Py_ssize_t *deadline = PyMem_Malloc((size_t)(n_bodies + 1) * sizeof(Py_ssize_t));
    self->pair_start = PyMem_Calloc((size_t)(n_bodies + 1), sizeof(Py_ssize_t));
    self->assembled_start = PyMem_Calloc((size_t)(n + 2), sizeof(Py_ssize_t));
    self->assembled = PyMem_Calloc((size_t)(n_bodies + 1), sizeof(Py_ssize_t));
    if (first == NULL || deadline == NULL || self->pair_start == NULL ||
        self->assembled_start == NULL || self->assembled == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t v = 0; v <= self->n_values; v++)
        first[v] = n;
    for (Py_ssize_t i = n - 1; i >= 0; i--) { /* descending: the earliest use stays */
        first[self->diagonal[i]] = i;
        for (Py_ssize_t e = self->later_start[i]; e < self->later_start[i + 1]; e++)
            first[self->later_block[e]] = i;
        for (Py_ssize_t t = self->schur_start[i]; t < self->schur_start[i + 1]; t++)
            first[self->schur_block[t]] = i;
    }
    for (Py_ssize_t k = 0; k < n_bodies; k++) {
        Py_ssize_t d = self->entry_start[k + 1] - self->entry_start[k];
        self->pair_start[k + 1] = self->pair_start[k] + d * (d + 1) / 2;
        deadline[k] = n; /* no joint at k: never assembled */
        for (Py_ssize_t p = self->pair_start[k]; p < self->pair_start[k + 1]; p++)
            deadline[k] = Py_MIN(deadline[k], first[self->assembly_block[p]]);
        self->assembled_start[deadline[k] + 1]++;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        self->assembled_start[i + 1] += self->assembled_start[i];
    for (Py_ssize_t k = 0; k < n_bodies; k++)
        if (deadline[k] < n)
            self->assembled[self->assembled_start[deadline[k]]++] = k;
    for (Py_ssize_t i = n; i > 0; i--) /* the fill above moved every start one list on */
        self->assembled_start[i] = self->assembled_start[i - 1];
    self->assembled_start[0] = 0;
    status = 0;
done:
    PyMem_Free(first);
    PyMem_Free(deadline);
    return (int)status;
}

/* Where G's and L's blocks are (set_joints, after start, entries): every joint's later
 * neighbours (with the fill of closed loops) and the blocks of the assembly and of the Schur
 * updates; -1 with an exception. */
static int block_pattern(Coupling *self)
{
    Py_ssize_t n = self->n_joints, *start = self->start, values = 0, pairs = 0, schur = 0;
    self->diagonal = PyMem_Calloc((size_t)(n + 1), sizeof(Py_ssize_t));
    self->schur_start = PyMem_Calloc((size_t)(n + 2), sizeof(Py_ssize_t));
    if (self->diagonal == NULL || self->schur_start == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    if (elimination_pattern(self) < 0)
        return -1;
    self->later_block = PyMem_Calloc((size_t)(self->later_start[n] + 1), sizeof(Py_ssize_t));
    if (self->later_block == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t count = self->later_start[i + 1] - self->later_start[i];
        const Py_ssize_t *list = self->later + self->later_start[i];
        self->diagonal[i] = values;
        values += (start[i + 1] - start[i]) * (start[i + 1] - start[i]);
        for (Py_ssize_t e = 0; e < count; e++) {
            self->later_block[self->later_start[i] + e] = values;
            values += (start[list[e] + 1] - start[list[e]]) * (start[i + 1] - start[i]);
        }
        self->schur_start[i + 1] = self->schur_start[i] + count * (count + 1) / 2;
    }
    self->n_values = values;
    schur = self->schur_start[n];
    for (Py_ssize_t k = 0; k < self->n_bodies; k++) {
        Py_ssize_t d = self->entry_start[k + 1] - self->entry_start[k];
        pairs += d * (d + 1) / 2;
    }
    self->block = PyMem_Calloc((size_t)(values + 1), sizeof(double));
    self->schur_block = PyMem_Calloc((size_t)(schur + 1), sizeof(Py_ssize_t));
    self->assembly_block = PyMem_Calloc((size_t)(pairs + 1), sizeof(Py_ssize_t));
    if (self->block == NULL || self->schur_block == NULL || self->assembly_block == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t *target = self->schur_block;
    for (Py_ssize_t i = 0; i < n; i++)
        for (Py_ssize_t e = self->later_start[i]; e < self->later_start[i + 1]; e++)
            for (Py_ssize_t f = e; f < self->later_start[i + 1]; f++) {
                Py_ssize_t j = self->later[e], l = self->later[f];
                *target++ = l == j ? self->diagonal[j] : later_block_of(self, j, l);
            }
    target = self->assembly_block;
    for (Py_ssize_t k = 0; k < self->n_bodies; k++)
        for (Py_ssize_t e = self->entry_start[k]; e < self->entry_start[k + 1]; e++)
            for (Py_ssize_t g = e; g < self->entry_start[k + 1]; g++) {
                Py_ssize_t a = self->entries[e].joint, b = self->entries[g].joint;
                *target++ = a == b ? self->diagonal[a]
                                   : later_block_of(self, Py_MIN(a, b), Py_MAX(a, b));
            }
    return assembly_schedule(self);
}

static PyObject *Coupling_set_joints(Coupling *self, PyObject *args)
{
    PyObject *kinds, *bodies, *params, *kept, *drives;
    double alpha, beta;
    if (!PyArg_ParseTuple(args, "OOOOOdd", &kinds, &bodies, &params, &kept, &drives, &alpha,
                          &beta))
        return NULL;
    Coupling_clear_joints(self);
    Py_ssize_t n = PyObject_Length(kinds);
    if (n < 0)
        return NULL;
    Py_ssize_t *kind = NULL;
    if (copy_buffer(kinds, n, "q", sizeof(Py_ssize_t), (void **)&kind, "kinds") < 0 ||
        copy_buffer(bodies, 2 * n, "q", sizeof(Py_ssize_t), (void **)&self->body, "bodies") <
            0 ||
        copy_buffer(params, N_PARAMS * n, "d", sizeof(double), (void **)&self->params,
                    "parameters") < 0 ||
        copy_buffer(kept, n, "q", sizeof(Py_ssize_t), (void **)&self->kept, "kept") < 0 ||
        copy_buffer(drives, 4 * n, "q", sizeof(Py_ssize_t), (void **)&self->drive,
                    "drives") < 0) {
        PyMem_Free(kind);
        Coupling_clear_joints(self);
        return NULL;
    }
    self->kind = PyMem_Calloc((size_t)(n ? n : 1), sizeof(int));
    self->start = PyMem_Calloc((size_t)(n + 1), sizeof(Py_ssize_t));
    self->entry_start = PyMem_Calloc((size_t)(self->n_bodies + 2), sizeof(Py_ssize_t));
    self->entries = PyMem_Calloc((size_t)(2 * n + 1), sizeof(Entry));
    int bad = self->kind == NULL || self->start == NULL || self->entry_start == NULL ||
              self->entries == NULL;
    self->largest_drive = -1;
    for (Py_ssize_t j = 0; !bad && j < n; j++) {
        Py_ssize_t a = self->body[2 * j], b = self->body[2 * j + 1], rows = 0;
        const Py_ssize_t *state = self->drive + 4 * j;
        int known = kind[j] >= 0 && kind[j] < N_KINDS;
        int driven = known && kind[j] == KIND_DRIVEN_UNIVERSAL, drive_ok = 1;
        for (int i = 0; i < 4; i++) {
            drive_ok &= driven ? state[i] >= 0 : state[i] == -1;
            self->largest_drive = Py_MAX(self->largest_drive, state[i]);
        }
        if (!known || a < 0 || a >= self->n_bodies || b < -1 || b >= self->n_bodies || a == b ||
            !drive_ok || self->kept[j] < 0 || self->kept[j] >= (1 << KIND_ROWS[kind[j]])) {
            PyErr_Format(PyExc_ValueError,
                         "joint %zd: unknown kind, bodies, kept rows or actuator states", j);
            bad = 1;
            break;
        }
        self->kind[j] = (int)kind[j];
        for (int r = 0; r < KIND_ROWS[kind[j]]; r++)
            rows += self->kept[j] >> r & 1;
        self->start[j + 1] = self->start[j] + rows;
        if (rows == 0) /* no rows in G: no entries */
            continue;
        self->entry_start[a + 1]++;
        if (b >= 0)
            self->entry_start[b + 1]++;
    }
    PyMem_Free(kind);
    if (bad) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        Coupling_clear_joints(self);
        return NULL;
    }
    for (Py_ssize_t k = 0; k < self->n_bodies; k++)
        self->entry_start[k + 1] += self->entry_start[k];
    Py_ssize_t *fill = PyMem_Calloc((size_t)(self->n_bodies + 1), sizeof(Py_ssize_t));
    if (fill == NULL) {
        Coupling_clear_joints(self);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t j = 0; j < n; j++)
        for (int side = 0; side < 2 && self->start[j + 1] > self->start[j]; side++) {
            Py_ssize_t k = self->body[2 * j + side];
            if (k >= 0)
                self->entries[self->entry_start[k] + fill[k]++] = (Entry){j, side};
        }
    PyMem_Free(fill);
    self->n_joints = n;
    self->m = (int)self->start[n];
    self->alpha = alpha;
    self->beta = beta;
    size_t m = (size_t)(self->m ? self->m : 1);
    self->phi = PyMem_Calloc(12 * m, sizeof(double));
    self->weighted = PyMem_Calloc(12 * m, sizeof(double));
    self->bias = PyMem_Calloc(m, sizeof(double));
    self->residual = PyMem_Calloc(m, sizeof(double));
    self->angle = PyMem_Calloc((size_t)(n ? n : 1), sizeof(double));
    self->position = PyMem_Calloc((size_t)(n ? n : 1), sizeof(double));
    self->motion = PyMem_Calloc((size_t)N_MOTION * (n ? n : 1), sizeof(double));
    self->velocity = PyMem_Calloc(m, sizeof(double));
    self->rhs = PyMem_Calloc(m, sizeof(double));
    self->pivot = PyMem_Calloc(m, sizeof(double));
    if (self->phi == NULL || self->weighted == NULL || self->bias == NULL ||
        self->residual == NULL || self->angle == NULL || self->rhs == NULL ||
        self->pivot == NULL || self->position == NULL || self->motion == NULL ||
        self->velocity == NULL) {
        Coupling_clear_joints(self);
        return PyErr_NoMemory();
    }
    if (block_pattern(self) < 0) {
        Coupling_clear_joints(self);
        return NULL;
    }
    self->compiled = 1;
    Py_RETURN_NONE;
}

static PyObject *Coupling_use_fallback(Coupling *self, PyObject *Py_UNUSED(ignored))
{
    Coupling_clear_joints(self);
    Py_RETURN_NONE;
}

static PyObject *Coupling_set_motor(Coupling *self, PyObject *accelerations)
{
    double *values = NULL;
    if (copy_buffer(accelerations, 6 * self->n_bodies, "d", sizeof(double), (void **)&values,
                    "motor accelerations") < 0)
        return NULL;
    memcpy(self->motor, values, (size_t)(6 * self->n_bodies) * sizeof(double));
    PyMem_Free(values);
    Py_RETURN_NONE;
}

/* Contiguous float64 buffers of the state vectors ``arrays`` (writable where asked), all of
 * one length; on failure none is held and an exception is set. */
static int state_buffers(PyObject **arrays, const int *writable, Py_buffer *views, int n,
                         const char *what)
{
    for (int i = 0; i < n; i++) {
        int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable[i] ? PyBUF_WRITABLE : 0);
        int ok = PyObject_GetBuffer(arrays[i], &views[i], flags) == 0;
        if (ok && (views[i].format == NULL || strcmp(views[i].format, "d") != 0 ||
                   views[i].len != views[0].len)) {
            PyBuffer_Release(&views[i]);
            PyErr_Format(PyExc_ValueError, "%s: expected contiguous float64 state vectors",
                         what);
            ok = 0;
        }
        if (!ok) {
            while (i-- > 0)
                PyBuffer_Release(&views[i]);
            return -1;
        }
    }
    return 0;
}

static PyObject *Coupling_call(Coupling *self, PyObject *args, PyObject *kwds)
{
    if (!self->compiled) {
        if (self->fallback == NULL) {
            PyErr_SetString(PyExc_RuntimeError, "coupling without its fallback");
            return NULL;
        }
        return PyObject_Call(self->fallback, args, kwds);
    }
    PyObject *arrays[2];
    if (!PyArg_ParseTuple(args, "OO", &arrays[0], &arrays[1]))
        return NULL;
    Py_buffer views[2];
    if (state_buffers(arrays, (int[]){0, 1}, views, 2, "x, dx") < 0)
        return NULL;
    int status = coupling_apply((PyObject *)self, views[0].buf, views[1].buf,
                                views[0].len / (Py_ssize_t)sizeof(double));
    PyBuffer_Release(&views[0]);
    PyBuffer_Release(&views[1]);
    if (status < 0)
        return NULL;
    Py_RETURN_NONE;
}

static int require_compiled(const Coupling *self, const char *what)
{
    if (!self->compiled)
        PyErr_Format(PyExc_RuntimeError, "%s: the joints are not compiled", what);
    return self->compiled ? 0 : -1;
}

static PyObject *Coupling_project(Coupling *self, PyObject *args)
{
    PyObject *array;
    double tolerance;
    int iterations;
    if (!PyArg_ParseTuple(args, "Odi", &array, &tolerance, &iterations) ||
        require_compiled(self, "project") < 0)
        return NULL;
    Py_buffer view;
    if (state_buffers(&array, (int[]){1}, &view, 1, "x") < 0)
        return NULL;
    int status = coupling_project(self, view.buf, view.len / (Py_ssize_t)sizeof(double),
                                  tolerance, iterations);
    PyBuffer_Release(&view);
    if (status < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *Coupling_columns(Coupling *self, PyObject *args)
{
    PyObject *arrays[2], *out;
    if (!PyArg_ParseTuple(args, "OOO", &arrays[0], &arrays[1], &out) ||
        require_compiled(self, "columns") < 0)
        return NULL;
    Py_buffer views[2], values;
    if (state_buffers(arrays, (int[]){0, 0}, views, 2, "x, dx") < 0)
        return NULL;
    int status = -1;
    if (PyObject_GetBuffer(out, &values, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) ==
        0) {
        if (values.format == NULL || strcmp(values.format, "d") != 0 ||
            values.len != (Py_ssize_t)sizeof(double) * N_COLUMNS * self->n_joints)
            PyErr_Format(PyExc_ValueError, "out: expected %zd contiguous float64 values",
                         N_COLUMNS * self->n_joints);
        else
            status = coupling_columns(self, views[0].buf, views[1].buf,
                                      views[0].len / (Py_ssize_t)sizeof(double), values.buf);
        PyBuffer_Release(&values);
    }
    PyBuffer_Release(&views[0]);
    PyBuffer_Release(&views[1]);
    if (status < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* A method (x, out) that reads the state x and writes `count` float64 values into out with
 * `fill` (the method's `name` in messages). */
static PyObject *state_to_values(Coupling *self, PyObject *args, const char *name,
                                 Py_ssize_t count,
                                 void (*fill)(Coupling *, const double *, double *))
{
    PyObject *arrays[2];
    if (!PyArg_ParseTuple(args, "OO", &arrays[0], &arrays[1]) ||
        require_compiled(self, name) < 0)
        return NULL;
    Py_buffer state, values;
    if (state_buffers(arrays, (int[]){0}, &state, 1, "x") < 0)
        return NULL;
    int status = check_length(self, state.len / (Py_ssize_t)sizeof(double));
    if (status == 0 && PyObject_GetBuffer(arrays[1], &values,
                                          PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0)
        status = -1;
    else if (status == 0) {
        status = -1;
        if (values.format == NULL || strcmp(values.format, "d") != 0 ||
            values.len != (Py_ssize_t)sizeof(double) * count)
            PyErr_Format(PyExc_ValueError, "out: expected %zd contiguous float64 values", count);
        else {
            fill(self, state.buf, values.buf);
            status = 0;
        }
        PyBuffer_Release(&values);
    }
    PyBuffer_Release(&state);
    if (status < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *Coupling_motion(Coupling *self, PyObject *args)
{
    return state_to_values(self, args, "motion", 2 * self->n_joints, coupling_motion);
}

/* A contiguous buffer of ``n`` entries of ``format`` ("d" float64, "q" int64), writable
 * where asked; the caller keeps the array alive. NULL with an exception. */
static void *entries(PyObject *array, Py_ssize_t n, const char *format, int writable,
                     const char *what)
{
    Py_buffer view;
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(array, &view, flags) < 0)
        return NULL;
    int integer = format[0] == 'q' && view.format != NULL &&
                  (strcmp(view.format, "q") == 0 || strcmp(view.format, "l") == 0);
    int ok = view.format != NULL && (integer || strcmp(view.format, format) == 0) &&
             view.itemsize == 8 && view.len == 8 * n;
    void *data = view.buf;
    PyBuffer_Release(&view);
    if (!ok) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd contiguous %s values", what, n,
                     strcmp(format, "d") == 0 ? "float64" : "int64");
        return NULL;
    }
    return data;
}

/* Entries of ``slots`` (n int64) that are not -1 must index a bus of ``n_bus`` values. */
static int check_slots(const Py_ssize_t *slots, Py_ssize_t n, Py_ssize_t n_bus)
{
    for (Py_ssize_t i = 0; i < n; i++)
        if (slots[i] < -1 || slots[i] >= n_bus) {
            PyErr_Format(PyExc_ValueError, "slot %zd outside the bus (%zd values)", slots[i],
                         n_bus);
            return -1;
        }
    return 0;
}

/* motion_to(x, bus, slots): as ``motion``, each joint's angle and rate put on the bus at
 * ``slots`` (2 per joint, int64, -1 for none) */
static PyObject *Coupling_motion_to(Coupling *self, PyObject *args)
{
    PyObject *state, *bus_array, *slots_array;
    if (!PyArg_ParseTuple(args, "OOO", &state, &bus_array, &slots_array) ||
        require_compiled(self, "motion_to") < 0)
        return NULL;
    Py_ssize_t n = 2 * self->n_joints;
    Py_buffer x, bus;
    if (state_buffers(&state, (int[]){0}, &x, 1, "x") < 0)
        return NULL;
    if (check_length(self, x.len / (Py_ssize_t)sizeof(double)) < 0 ||
        state_buffers(&bus_array, (int[]){1}, &bus, 1, "bus") < 0) {
        PyBuffer_Release(&x);
        return NULL;
    }
    const Py_ssize_t *slots = entries(slots_array, n, "q", 0, "motion_to: slots");
    double *values = slots ? PyMem_Malloc((size_t)(n + 1) * sizeof(double)) : NULL;
    int status = -1;
    if (values == NULL && slots != NULL)
        PyErr_NoMemory();
    else if (values != NULL &&
             check_slots(slots, n, bus.len / (Py_ssize_t)sizeof(double)) == 0) {
        coupling_motion(self, x.buf, values);
        for (Py_ssize_t i = 0; i < n; i++)
            if (slots[i] >= 0)
                ((double *)bus.buf)[slots[i]] = values[i];
        status = 0;
    }
    PyMem_Free(values);
    PyBuffer_Release(&x);
    PyBuffer_Release(&bus);
    if (status < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* command_motors(bus, slots, limits, gains, applied, accelerations): the m motors' torque
 * commands read from the bus at ``slots``, limited to +-limits (as np.minimum(np.maximum(
 * commands, -limits), limits)) into ``applied``, and gains (6 N x m, row-major) @ applied
 * into ``accelerations`` and the motors' accelerations (as ``set_motor``) */
static PyObject *Coupling_command_motors(Coupling *self, PyObject *args)
{
    PyObject *bus_array, *slots_array, *limits_array, *gains_array, *applied_array,
        *accelerations_array;
    if (!PyArg_ParseTuple(args, "OOOOOO", &bus_array, &slots_array, &limits_array,
                          &gains_array, &applied_array, &accelerations_array))
        return NULL;
    Py_buffer bus;
    if (state_buffers(&bus_array, (int[]){0}, &bus, 1, "bus") < 0)
        return NULL;
    Py_ssize_t n_bus = bus.len / (Py_ssize_t)sizeof(double);
    const double *values = bus.buf;
    PyBuffer_Release(&bus); /* the caller keeps the bus alive */
    Py_buffer slots_view;
    if (PyObject_GetBuffer(slots_array, &slots_view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return NULL;
    Py_ssize_t m = slots_view.len / 8, n = 6 * self->n_bodies;
    PyBuffer_Release(&slots_view);
    const Py_ssize_t *slots;
    const double *limits, *gains;
    double *applied, *accelerations;
    if ((slots = entries(slots_array, m, "q", 0, "command_motors: slots")) == NULL ||
        check_slots(slots, m, n_bus) < 0 ||
        (limits = entries(limits_array, m, "d", 0, "command_motors: limits")) == NULL ||
        (gains = entries(gains_array, n * m, "d", 0, "command_motors: gains")) == NULL ||
        (applied = entries(applied_array, m, "d", 1, "command_motors: applied")) == NULL ||
        (accelerations = entries(accelerations_array, n, "d", 1,
                                 "command_motors: accelerations")) == NULL)
        return NULL;
    for (Py_ssize_t k = 0; k < m; k++) {
        double command = slots[k] >= 0 ? values[slots[k]] : 0.0, limit = limits[k];
        double above = command >= -limit || isnan(command) ? command : -limit;
        applied[k] = above <= limit || isnan(above) ? above : limit;
    }
    if (blas_times(gains, (int)n, (int)m, applied, accelerations) < 0)
        return NULL;
    memcpy(self->motor, accelerations, (size_t)n * sizeof(double));
    Py_RETURN_NONE;
}

static PyObject *Coupling_all_rows(Coupling *self, PyObject *args)
{
    Py_ssize_t rows = 0;
    for (Py_ssize_t j = 0; j < self->n_joints; j++)
        rows += KIND_ROWS[self->kind[j]];
    return state_to_values(self, args, "all_rows", 12 * rows, coupling_all_rows);
}

static PyObject *Coupling_get_compiled(Coupling *self, void *Py_UNUSED(closure))
{
    return PyBool_FromLong(self->compiled);
}

static PyMethodDef Coupling_methods[] = {
    {"set_joints", (PyCFunction)Coupling_set_joints, METH_VARARGS,
     "set_joints(kinds, bodies, parameters, kept, drives, alpha, beta): evaluate these joints "
     "in C from now on, eliminated in this order (leaves first: no fill but that of closed "
     "loops); kinds (J,) int64 (0 weld, 1 revolute, 2 universal, 3 spherical, 4 driven "
     "universal), bodies (J, 2) int64 (-1 the world), parameters (J, 27) float64 (r_a, r_b, "
     "relative, axis, perpendiculars, axis_b), kept (J,) int64 bit masks of the independent "
     "rows, drives (J, 4) int64 state indices of a driven joint's theta[1..2], omega[1..2] "
     "(-1 for the others), Baumgarte gains alpha (1/s), beta (1/s^2)"},
    {"use_fallback", (PyCFunction)Coupling_use_fallback, METH_NOARGS,
     "use_fallback(): call the Python fallback in every evaluation from now on"},
    {"set_motor", (PyCFunction)Coupling_set_motor, METH_O,
     "set_motor(accelerations): the motors' M^-1 tau (N, 6) float64, added to the bodies' "
     "unconstrained accelerations until set again"},
    {"project", (PyCFunction)Coupling_project, METH_VARARGS,
     "project(x, tolerance, iterations): x (float64 state vector) moved onto the constraint "
     "manifold in place: unit quaternions, up to ``iterations`` Newton steps of the least "
     "mass-weighted position and attitude correction until every residual is below "
     "``tolerance``, then the velocities projected onto Phi nu = 0 in the mass metric"},
    {"columns", (PyCFunction)Coupling_columns, METH_VARARGS,
     "columns(x, dx, out): every joint's (in the order of set_joints) position error (m), "
     "angle error (rad), generalized constraint force on a and on b (6 each, body frames) "
     "at state x with unconstrained rates dx, written into out (J, 14) float64"},
    {"all_rows", (PyCFunction)Coupling_all_rows, METH_VARARGS,
     "all_rows(x, out): every row of every joint, kept or not (in the order of set_joints, "
     "each joint's rows in its own order), at state x: its coefficients on body a and on "
     "body b (zero on the world), written into out (rows, 12) float64"},
    {"motion_to", (PyCFunction)Coupling_motion_to, METH_VARARGS,
     "motion_to(x, bus, slots): the angles and rates of ``motion`` put on the bus (float64) "
     "at slots (J, 2) int64, -1 for none"},
    {"command_motors", (PyCFunction)Coupling_command_motors, METH_VARARGS,
     "command_motors(bus, slots, limits, gains, applied, accelerations): the motors' "
     "commands read from the bus at slots (int64), limited to +-limits into applied, gains "
     "(6 N, m) @ applied (BLAS dgemv, as NumPy) into accelerations and set as set_motor"},
    {"motion", (PyCFunction)Coupling_motion, METH_VARARGS,
     "motion(x, out): angle (rad) and rate (rad/s) of every revolute joint (in the order of "
     "set_joints; NaN for the others) at state x, written into out (J, 2) float64"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Coupling_getset[] = {
    {"compiled", (getter)Coupling_get_compiled, NULL,
     "Whether the joints are evaluated in C (else by the fallback)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject CouplingType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "orchestrator.native._kernel.Coupling",
    .tp_doc = PyDoc_STR("Coupling(fallback, index, inverse): the constrained "
                        "accelerations of rigid bodies, called as coupling(x, dx) (dx "
                        "replaced in place); index (N, 13) int64 state indices of p, q, nu "
                        "per body, inverse (N, 6, 6) float64 M^-1"),
    .tp_basicsize = sizeof(Coupling),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Coupling_init,
    .tp_dealloc = (destructor)Coupling_dealloc,
    .tp_traverse = (traverseproc)Coupling_traverse,
    .tp_clear = (inquiry)Coupling_clear,
    .tp_call = (ternaryfunc)Coupling_call,
    .tp_methods = Coupling_methods,
    .tp_getset = Coupling_getset,
};

int coupling_compiled(PyObject *post)
{
    return PyObject_TypeCheck(post, &CouplingType) && ((Coupling *)post)->compiled;
}

int coupling_add_type(PyObject *module)
{
    if (PyType_Ready(&CouplingType) < 0)
        return -1;
    Py_INCREF(&CouplingType);
    if (PyModule_AddObject(module, "Coupling", (PyObject *)&CouplingType) < 0) {
        Py_DECREF(&CouplingType);
        return -1;
    }
    return 0;
}
