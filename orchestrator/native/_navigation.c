/*
 * Compiled error-state Kalman filter (``_navigation.c``): the IMU propagation, the aiding
 * measurements' models and the Joseph-form update of ``orchestrator.navigation.eskf`` (whose
 * docstring states the equations: Sola, Quaternion kinematics for the error-state Kalman
 * filter, 2017, Sec. 5 to 7, with the velocity in the body frame), and the history that fuses
 * a late measurement at its time of validity (``orchestrator.navigation.history``).
 *
 * The nominal state and the 16 x 16 error covariance live in two float64 arrays the Python
 * side allocates and reads (kept alive here, written in place); a step of the history stores
 * its inputs as numbers, so a re-run from a late measurement runs without Python.
 *
 * Nominal state (17): p (NED, m), v (body, m/s), q (body to NED, scalar first), accelerometer
 * bias (body, m/s^2), gyroscope bias (body, rad/s), compass heading error d (rad). Error state
 * (16): dp, dv, dtheta (body), db_a, db_g, dd. Matrices are row-major.
 */
#include "_navigation.h"
#include "_algebra3.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#define NOMINAL 17
#define SIZE 16
#define MOST_ROWS 3  /* a measurement's largest dimension */
#define MOST_DATA 27 /* a step's largest number of inputs (a DVL ping) */

/* nominal-state offsets */
enum { P_ = 0, V_ = 3, Q_ = 6, BA_ = 10, BG_ = 13, D_ = 16 };
/* error-state offsets */
enum { DP = 0, DV = 3, DTHETA = 6, DBA = 9, DBG = 12, DD = 15 };

/* What a step does, and its inputs (``data``):
 * PROPAGATION  rate (3, rad/s), specific force (3, m/s^2), body frame, held over the interval
 * VELOCITY     a DVL ping: body rate at its arrival (3), mount position r (3), mount axes M
 *              (9, sensor to body), reading (3, sensor frame, m/s), its covariance (9)
 * DEPTH        mount position r (3), reading (m), noise std (m)
 * ATTITUDE     mount axes M (9), roll, pitch, heading reading (3, rad), noise std (3, rad),
 *              heading offset (rad)
 * POSITION     mount position r (3), fix (3, NED, m), noise floor (m), noise per metre of
 *              slant range, transceiver (3, NED, m) */
enum { PROPAGATION = 0, VELOCITY, DEPTH, ATTITUDE, POSITION, KINDS };
static const int DATA_SIZE[KINDS] = {6, 27, 5, 16, 11};
static const int ROWS[KINDS] = {0, 3, 1, 3, 3};

typedef struct {
    PyObject_HEAD
    PyObject *nominal_array, *covariance_array;
    double *x; /* nominal state (17) */
    double *P; /* error covariance (16 x 16) */
    double interval, gravity, heading_decay;
    double process[SIZE]; /* process noise variances per interval, diagonal */
    double gyro_variance; /* gyroscope white noise variance per interval, (rad/s)^2 s */
    double gates[MOST_ROWS + 1]; /* chi-square thresholds by dimension */
} Filter;

/* A linearised measurement: residual z - h(x), Jacobian (rows x 16), noise covariance. */
typedef struct {
    int rows;
    double y[MOST_ROWS];
    double H[MOST_ROWS * SIZE];
    double R[MOST_ROWS * MOST_ROWS];
} Linearised;

/* ---- small algebra on 3-vectors, 3 x 3 matrices and quaternions ---- */

static void quaternion_product(const double *a, const double *b, double *out)
{
    double c[3];
    cross3(a + 1, b + 1, c);
    out[0] = a[0] * b[0] - (a[1] * b[1] + a[2] * b[2] + a[3] * b[3]);
    for (int i = 0; i < 3; i++)
        out[1 + i] = a[0] * b[1 + i] + b[0] * a[1 + i] + c[i];
}

/* q (x) exp(theta / 2): q turned by the body-frame rotation vector theta (rad) */
static void rotate_quaternion(const double *q, const double *theta, double *out)
{
    double angle = sqrt(theta[0] * theta[0] + theta[1] * theta[1] + theta[2] * theta[2]);
    if (angle == 0.0) {
        memcpy(out, q, 4 * sizeof(double));
        return;
    }
    double s = sin(angle / 2) / angle;
    double turn[4] = {cos(angle / 2), s * theta[0], s * theta[1], s * theta[2]};
    quaternion_product(q, turn, out);
}

/* ---- the filter ---- */

/* Advance one interval with the body rate (rad/s) and specific force (m/s^2) held over it. */
static void propagate(Filter *f, const double *rate, const double *force)
{
    double *x = f->x, dt = f->interval;
    double R[9], w[3], gravity[3], wv[3], a[3], V[9], W[9], G[9];
    rotation_matrix(x + Q_, R);
    for (int i = 0; i < 3; i++) {
        w[i] = rate[i] - x[BG_ + i];
        gravity[i] = R[6 + i] * f->gravity; /* R' (0, 0, g) */
    }
    cross3(w, x + V_, wv);
    for (int i = 0; i < 3; i++)
        a[i] = force[i] - x[BA_ + i] + gravity[i] - wv[i];
    double theta[3] = {w[0] * dt / 2, w[1] * dt / 2, w[2] * dt / 2};
    double unit[4] = {1.0, 0.0, 0.0, 0.0}, half[4], turn[4], T[9];
    rotate_quaternion(unit, theta, half);
    quaternion_product(half, half, turn);
    rotation_matrix(turn, T);
    skew3(x + V_, V);
    skew3(w, W);
    skew3(gravity, G);

    /* the transition F, dense, and its nonzero columns per row */
    double F[SIZE * SIZE] = {0};
    for (int i = 0; i < SIZE; i++)
        F[SIZE * i + i] = 1.0;
    double RV[9];
    multiply3(R, V, RV);
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            F[SIZE * (DP + i) + DV + j] = R[3 * i + j] * dt;
            F[SIZE * (DP + i) + DTHETA + j] = -RV[3 * i + j] * dt;
            F[SIZE * (DV + i) + DV + j] = (i == j) - W[3 * i + j] * dt;
            F[SIZE * (DV + i) + DTHETA + j] = G[3 * i + j] * dt;
            F[SIZE * (DV + i) + DBG + j] = -V[3 * i + j] * dt;
            F[SIZE * (DTHETA + i) + DTHETA + j] = T[3 * j + i]; /* R(turn)' */
        }
        F[SIZE * (DV + i) + DBA + i] = -dt;
        F[SIZE * (DTHETA + i) + DBG + i] = -dt;
    }
    F[SIZE * DD + DD] = f->heading_decay;
    int columns[SIZE][SIZE], counts[SIZE];
    for (int i = 0; i < SIZE; i++) {
        counts[i] = 0;
        for (int j = 0; j < SIZE; j++)
            if (F[SIZE * i + j] != 0.0)
                columns[i][counts[i]++] = j;
    }

    /* P <- F P F' + Q */
    double FP[SIZE * SIZE], *P = f->P;
    for (int i = 0; i < SIZE; i++)
        for (int j = 0; j < SIZE; j++) {
            double sum = 0.0;
            for (int k = 0; k < counts[i]; k++)
                sum += F[SIZE * i + columns[i][k]] * P[SIZE * columns[i][k] + j];
            FP[SIZE * i + j] = sum;
        }
    for (int i = 0; i < SIZE; i++)
        for (int j = 0; j < SIZE; j++) {
            double sum = 0.0;
            for (int k = 0; k < counts[j]; k++)
                sum += FP[SIZE * i + columns[j][k]] * F[SIZE * j + columns[j][k]];
            P[SIZE * i + j] = sum;
        }
    for (int i = 0; i < SIZE; i++)
        P[SIZE * i + i] += f->process[i];
    /* the gyroscope's noise reaches the velocity through w x v */
    double gv = f->gyro_variance;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double VVt =
                V[3 * i] * V[3 * j] + V[3 * i + 1] * V[3 * j + 1] + V[3 * i + 2] * V[3 * j + 2];
            P[SIZE * (DV + i) + DV + j] += gv * VVt;
            P[SIZE * (DV + i) + DTHETA + j] += gv * V[3 * i + j];
            P[SIZE * (DTHETA + i) + DV + j] -= gv * V[3 * i + j];
        }

    /* the nominal state; the displacement in the attitude at mid-interval */
    double middle[4], Rm[9], q[4], step[3];
    quaternion_product(x + Q_, half, middle);
    rotation_matrix(middle, Rm);
    for (int i = 0; i < 3; i++)
        step[i] = x[V_ + i] * dt + a[i] * dt * dt / 2;
    for (int i = 0; i < 3; i++)
        x[P_ + i] += Rm[3 * i] * step[0] + Rm[3 * i + 1] * step[1] + Rm[3 * i + 2] * step[2];
    for (int i = 0; i < 3; i++)
        x[V_ + i] += a[i] * dt;
    quaternion_product(x + Q_, turn, q);
    double norm = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; i++)
        x[Q_ + i] = q[i] / norm;
    x[D_] *= f->heading_decay;
}

static double wrap_angle(double angle)
{
    double m = fmod(angle + M_PI, 2 * M_PI);
    if (m < 0)
        m += 2 * M_PI;
    return m - M_PI;
}

/* The measurement of ``kind`` with inputs ``data`` at the filter's state (Sola 2017, Sec. 6.1:
 * the chain through q (x) exp(dtheta), dR/d(dtheta) = -R [r]x for a body-fixed point r). */
static void linearise(const Filter *f, int kind, const double *data, Linearised *m)
{
    const double *x = f->x;
    double R[9], S[9], RS[9];
    m->rows = ROWS[kind];
    memset(m->H, 0, sizeof m->H);
    memset(m->R, 0, sizeof m->R);
    rotation_matrix(x + Q_, R);
    if (kind == VELOCITY) { /* the mount point's velocity M' (v + w x r) */
        const double *rate = data, *r = data + 3, *M = data + 6, *z = data + 15, *cov = data + 18;
        double w[3], wr[3], u[3], MS[9];
        for (int i = 0; i < 3; i++)
            w[i] = rate[i] - x[BG_ + i];
        cross3(w, r, wr);
        for (int i = 0; i < 3; i++)
            u[i] = x[V_ + i] + wr[i];
        skew3(r, S);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                MS[3 * i + j] = M[i] * S[j] + M[3 + i] * S[3 + j] + M[6 + i] * S[6 + j];
        for (int i = 0; i < 3; i++) {
            m->y[i] = z[i] - (M[i] * u[0] + M[3 + i] * u[1] + M[6 + i] * u[2]);
            for (int j = 0; j < 3; j++) {
                m->H[SIZE * i + DV + j] = M[3 * j + i];
                m->H[SIZE * i + DBG + j] = MS[3 * i + j];
                m->R[3 * i + j] = cov[3 * i + j];
            }
        }
        m->rows = 3;
    } else if (kind == DEPTH) { /* the NED z of the mount point, p_z + (R r)_z */
        const double *r = data;
        skew3(r, S);
        multiply3(R, S, RS);
        m->y[0] = data[3] - (x[P_ + 2] + (R[6] * r[0] + R[7] * r[1] + R[8] * r[2]));
        m->H[2] = 1.0;
        for (int j = 0; j < 3; j++)
            m->H[DTHETA + j] = -RS[6 + j];
        m->R[0] = data[4] * data[4];
    } else if (kind == ATTITUDE) { /* zyx Euler angles of R M, heading + offset + d */
        const double *M = data, *z = data + 9, *std = data + 12;
        double A[9];
        multiply3(R, M, A);
        double roll = atan2(A[7], A[8]);
        double pitch = -asin(fmin(fmax(A[6], -1.0), 1.0));
        double yaw = atan2(A[3], A[0]);
        m->y[0] = z[0] - roll;
        m->y[1] = z[1] - pitch;
        m->y[2] = wrap_angle(z[2] - (yaw + (data[15] + x[D_])));
        /* T(Theta) M' (Fossen 2011, eq. 2.29) */
        double sr = sin(roll), cr = cos(roll), tp = tan(pitch), cp = cos(pitch);
        double T[9] = {1.0, sr * tp, cr * tp, 0.0, cr, -sr, 0.0, sr / cp, cr / cp};
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 3; j++)
                m->H[SIZE * i + DTHETA + j] =
                    T[3 * i] * M[3 * j] + T[3 * i + 1] * M[3 * j + 1] + T[3 * i + 2] * M[3 * j + 2];
            m->R[4 * i] = std[i] * std[i];
        }
        m->H[SIZE * 2 + DD] = 1.0;
    } else if (kind == POSITION) { /* the mount point p + R r, noise growing with range */
        const double *r = data, *z = data + 3, *transceiver = data + 8;
        double point[3], range = 0.0;
        for (int i = 0; i < 3; i++) {
            point[i] = x[P_ + i] + (R[3 * i] * r[0] + R[3 * i + 1] * r[1] + R[3 * i + 2] * r[2]);
            range += (point[i] - transceiver[i]) * (point[i] - transceiver[i]);
        }
        double std = data[6] + data[7] * sqrt(range);
        skew3(r, S);
        multiply3(R, S, RS);
        for (int i = 0; i < 3; i++) {
            m->y[i] = z[i] - point[i];
            m->H[SIZE * i + DP + i] = 1.0;
            for (int j = 0; j < 3; j++)
                m->H[SIZE * i + DTHETA + j] = -RS[3 * i + j];
            m->R[4 * i] = std * std;
        }
    }
}

/* Cholesky factor L (lower) of the n x n matrix A (stride MOST_ROWS); false if not positive. */
static bool cholesky(const double *A, int n, double *L)
{
    memset(L, 0, MOST_ROWS * MOST_ROWS * sizeof(double));
    for (int j = 0; j < n; j++) {
        double d = A[MOST_ROWS * j + j];
        for (int k = 0; k < j; k++)
            d -= L[MOST_ROWS * j + k] * L[MOST_ROWS * j + k];
        if (!(d > 0.0))
            return false;
        L[MOST_ROWS * j + j] = sqrt(d);
        for (int i = j + 1; i < n; i++) {
            double s = A[MOST_ROWS * i + j];
            for (int k = 0; k < j; k++)
                s -= L[MOST_ROWS * i + k] * L[MOST_ROWS * j + k];
            L[MOST_ROWS * i + j] = s / L[MOST_ROWS * j + j];
        }
    }
    return true;
}

/* b <- A^-1 b for A = L L' (n x n) */
static void cholesky_solve(const double *L, int n, double *b)
{
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < i; k++)
            b[i] -= L[MOST_ROWS * i + k] * b[k];
        b[i] /= L[MOST_ROWS * i + i];
    }
    for (int i = n - 1; i >= 0; i--) {
        for (int k = i + 1; k < n; k++)
            b[i] -= L[MOST_ROWS * k + i] * b[k];
        b[i] /= L[MOST_ROWS * i + i];
    }
}

/* Fuse one linearised measurement: its normalized innovation squared, or -1 if gated out (or
 * its innovation covariance is not positive definite). Joseph form, then the error reset of
 * Sola (2017, eq. 287). */
static double update(Filter *f, const Linearised *m)
{
    int n = m->rows;
    double *P = f->P, *x = f->x;
    double PHt[SIZE * MOST_ROWS], S[MOST_ROWS * MOST_ROWS] = {0}, L[MOST_ROWS * MOST_ROWS];
    for (int i = 0; i < SIZE; i++)
        for (int r = 0; r < n; r++) {
            double sum = 0.0;
            for (int k = 0; k < SIZE; k++)
                sum += P[SIZE * i + k] * m->H[SIZE * r + k];
            PHt[MOST_ROWS * i + r] = sum;
        }
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++) {
            double sum = m->R[MOST_ROWS * r + c];
            for (int k = 0; k < SIZE; k++)
                sum += m->H[SIZE * r + k] * PHt[MOST_ROWS * k + c];
            S[MOST_ROWS * r + c] = sum;
        }
    if (!cholesky(S, n, L))
        return -1.0;
    double s[MOST_ROWS];
    memcpy(s, m->y, sizeof s);
    cholesky_solve(L, n, s);
    double nis = 0.0;
    for (int r = 0; r < n; r++)
        nis += m->y[r] * s[r];
    if (nis > f->gates[n])
        return -1.0;

    /* K = P H' S^-1, dx = K y */
    double K[SIZE * MOST_ROWS], dx[SIZE];
    for (int i = 0; i < SIZE; i++) {
        double *k = K + MOST_ROWS * i;
        memcpy(k, PHt + MOST_ROWS * i, MOST_ROWS * sizeof(double));
        cholesky_solve(L, n, k);
        dx[i] = 0.0;
        for (int r = 0; r < n; r++)
            dx[i] += k[r] * m->y[r];
    }
    /* P <- A P A' + K R K' with A = I - K H: A P = P - K (H P), (A P) A' = A P - (A P H') K' */
    double HP[MOST_ROWS * SIZE], AP[SIZE * SIZE], APHt[SIZE * MOST_ROWS];
    for (int r = 0; r < n; r++)
        for (int j = 0; j < SIZE; j++)
            HP[SIZE * r + j] = PHt[MOST_ROWS * j + r]; /* P symmetric */
    for (int i = 0; i < SIZE; i++)
        for (int j = 0; j < SIZE; j++) {
            double sum = P[SIZE * i + j];
            for (int r = 0; r < n; r++)
                sum -= K[MOST_ROWS * i + r] * HP[SIZE * r + j];
            AP[SIZE * i + j] = sum;
        }
    for (int i = 0; i < SIZE; i++)
        for (int r = 0; r < n; r++) {
            double sum = 0.0;
            for (int k = 0; k < SIZE; k++)
                sum += AP[SIZE * i + k] * m->H[SIZE * r + k];
            APHt[MOST_ROWS * i + r] = sum;
        }
    double KR[SIZE * MOST_ROWS];
    for (int i = 0; i < SIZE; i++)
        for (int c = 0; c < n; c++) {
            double sum = 0.0;
            for (int r = 0; r < n; r++)
                sum += K[MOST_ROWS * i + r] * m->R[MOST_ROWS * r + c];
            KR[MOST_ROWS * i + c] = sum;
        }
    for (int i = 0; i < SIZE; i++)
        for (int j = 0; j < SIZE; j++) {
            double sum = AP[SIZE * i + j];
            for (int r = 0; r < n; r++)
                sum += -APHt[MOST_ROWS * i + r] * K[MOST_ROWS * j + r] +
                       KR[MOST_ROWS * i + r] * K[MOST_ROWS * j + r];
            P[SIZE * i + j] = sum;
        }

    /* inject the error */
    double q[4];
    for (int i = 0; i < 3; i++) {
        x[P_ + i] += dx[DP + i];
        x[V_ + i] += dx[DV + i];
        x[BA_ + i] += dx[DBA + i];
        x[BG_ + i] += dx[DBG + i];
    }
    x[D_] += dx[DD];
    rotate_quaternion(x + Q_, dx + DTHETA, q);
    double norm = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; i++)
        x[Q_ + i] = q[i] / norm;

    /* the reset: P <- G P G', G = I except its attitude block I - [dtheta / 2]x */
    double half[3] = {dx[DTHETA] / 2, dx[DTHETA + 1] / 2, dx[DTHETA + 2] / 2}, Gs[9];
    skew3(half, Gs);
    double rows[3 * SIZE];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < SIZE; j++) {
            double sum = P[SIZE * (DTHETA + i) + j];
            for (int k = 0; k < 3; k++)
                sum -= Gs[3 * i + k] * P[SIZE * (DTHETA + k) + j];
            rows[SIZE * i + j] = sum;
        }
    memcpy(P + SIZE * DTHETA, rows, sizeof rows);
    for (int i = 0; i < SIZE; i++) {
        double row[3];
        for (int j = 0; j < 3; j++) {
            double sum = P[SIZE * i + DTHETA + j];
            for (int k = 0; k < 3; k++)
                sum -= P[SIZE * i + DTHETA + k] * Gs[3 * j + k];
            row[j] = sum;
        }
        memcpy(P + SIZE * i + DTHETA, row, sizeof row);
    }
    return nis;
}

/* ---- the Python type Filter ---- */

/* The float64 data of a C-contiguous array of ``n`` entries (the array kept by the caller), or
 * NULL with an exception naming ``what``. */
static double *float64_data(PyObject *array, Py_ssize_t n, bool writable, const char *what)
{
    Py_buffer view;
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(array, &view, flags) < 0)
        return NULL;
    bool ok = view.itemsize == sizeof(double) && view.format && !strcmp(view.format, "d") &&
              view.len == n * (Py_ssize_t)sizeof(double);
    double *data = view.buf;
    PyBuffer_Release(&view);
    if (!ok) {
        PyErr_Format(PyExc_ValueError, "%s: expected a float64 array of %zd entries", what, n);
        return NULL;
    }
    return data;
}

/* A step's inputs of ``kind`` (an int) from ``data`` into ``out`` (MOST_DATA); 0 or -1. */
static int step_data(int kind, PyObject *data, double *out)
{
    if (kind < 0 || kind >= KINDS) {
        PyErr_Format(PyExc_ValueError, "navigation: no step kind %d", kind);
        return -1;
    }
    const double *values = float64_data(data, DATA_SIZE[kind], false, "navigation step data");
    if (values == NULL)
        return -1;
    memcpy(out, values, (size_t)DATA_SIZE[kind] * sizeof(double));
    return 0;
}

static void Filter_dealloc(Filter *self)
{
    Py_XDECREF(self->nominal_array);
    Py_XDECREF(self->covariance_array);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Filter(nominal, covariance, interval, gravity, heading_decay, process, gyro_variance, gates):
 * ``nominal`` (17) and ``covariance`` (16 x 16) float64 arrays written in place, the IMU
 * interval (s), gravity (m/s^2), the heading error's decay per interval, the process noise
 * variances per interval (16), the gyroscope's white noise variance per interval and the
 * chi-square gates of dimensions 1, 2 and 3. */
static int Filter_init(Filter *self, PyObject *args, PyObject *kwds)
{
    (void)kwds;
    PyObject *nominal, *covariance, *process, *gates;
    if (!PyArg_ParseTuple(args, "OOdddOdO", &nominal, &covariance, &self->interval,
                          &self->gravity, &self->heading_decay, &process, &self->gyro_variance,
                          &gates))
        return -1;
    double *x, *P, *noise, *chi2;
    if ((x = float64_data(nominal, NOMINAL, true, "Filter: nominal")) == NULL ||
        (P = float64_data(covariance, SIZE * SIZE, true, "Filter: covariance")) == NULL ||
        (noise = float64_data(process, SIZE, false, "Filter: process")) == NULL ||
        (chi2 = float64_data(gates, MOST_ROWS, false, "Filter: gates")) == NULL)
        return -1;
    memcpy(self->process, noise, sizeof self->process);
    memcpy(self->gates + 1, chi2, MOST_ROWS * sizeof(double));
    Py_INCREF(nominal);
    Py_INCREF(covariance);
    Py_XSETREF(self->nominal_array, nominal);
    Py_XSETREF(self->covariance_array, covariance);
    self->x = x;
    self->P = P;
    return 0;
}

static int ready(Filter *self)
{
    if (self->x == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Filter: not initialised");
        return -1;
    }
    return 0;
}

static PyObject *Filter_propagate(Filter *self, PyObject *args)
{
    PyObject *data;
    double values[MOST_DATA];
    if (ready(self) < 0 || !PyArg_ParseTuple(args, "O", &data) ||
        step_data(PROPAGATION, data, values) < 0)
        return NULL;
    propagate(self, values, values + 3);
    Py_RETURN_NONE;
}

static PyObject *Filter_update(Filter *self, PyObject *args)
{
    int kind;
    PyObject *data;
    double values[MOST_DATA];
    if (ready(self) < 0 || !PyArg_ParseTuple(args, "iO", &kind, &data) ||
        step_data(kind, data, values) < 0)
        return NULL;
    if (kind == PROPAGATION) {
        PyErr_SetString(PyExc_ValueError, "update: a measurement's kind expected");
        return NULL;
    }
    Linearised m;
    linearise(self, kind, values, &m);
    double nis = update(self, &m);
    if (nis < 0)
        Py_RETURN_NONE;
    return PyFloat_FromDouble(nis);
}

static PyObject *Filter_linearise(Filter *self, PyObject *args)
{
    int kind;
    PyObject *data;
    double values[MOST_DATA];
    if (ready(self) < 0 || !PyArg_ParseTuple(args, "iO", &kind, &data) ||
        step_data(kind, data, values) < 0)
        return NULL;
    if (kind == PROPAGATION) {
        PyErr_SetString(PyExc_ValueError, "linearise: a measurement's kind expected");
        return NULL;
    }
    Linearised m;
    linearise(self, kind, values, &m);
    PyObject *y = PyTuple_New(m.rows), *H = PyTuple_New(m.rows * SIZE);
    PyObject *R = PyTuple_New(m.rows * m.rows);
    if (y == NULL || H == NULL || R == NULL)
        goto fail;
    for (int r = 0; r < m.rows; r++) {
        PyTuple_SET_ITEM(y, r, PyFloat_FromDouble(m.y[r]));
        for (int j = 0; j < SIZE; j++)
            PyTuple_SET_ITEM(H, SIZE * r + j, PyFloat_FromDouble(m.H[SIZE * r + j]));
        for (int c = 0; c < m.rows; c++)
            PyTuple_SET_ITEM(R, m.rows * r + c, PyFloat_FromDouble(m.R[MOST_ROWS * r + c]));
    }
    return Py_BuildValue("(NNN)", y, H, R);
fail:
    Py_XDECREF(y);
    Py_XDECREF(H);
    Py_XDECREF(R);
    return NULL;
}

static PyMethodDef Filter_methods[] = {
    {"propagate", (PyCFunction)Filter_propagate, METH_VARARGS,
     "propagate(data): one IMU interval, data = rate (3, rad/s) and specific force (3, m/s^2)"},
    {"update", (PyCFunction)Filter_update, METH_VARARGS,
     "update(kind, data) -> normalized innovation squared, or None if gated out"},
    {"linearise", (PyCFunction)Filter_linearise, METH_VARARGS,
     "linearise(kind, data) -> (residual, Jacobian, covariance) as flat tuples, row-major"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject FilterType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "orchestrator.native._kernel.Filter",
    .tp_doc = PyDoc_STR("Error-state Kalman filter on a nominal state and covariance array"),
    .tp_basicsize = sizeof(Filter),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Filter_init,
    .tp_dealloc = (destructor)Filter_dealloc,
    .tp_methods = Filter_methods,
};

/* ---- the history of steps: late measurements fused at their time of validity ---- */

/* time stamps closer than this (s) are the same instant (sample times are sums of floats) */
#define SAME_TIME 1e-9

typedef struct {
    double time;
    int kind;
    bool rejected; /* the last run gated it out */
    double data[MOST_DATA];
    double x[NOMINAL]; /* the filter's state before the step, once run */
    double P[SIZE * SIZE];
} Step;

/* The steps in time order are steps[head], ..., steps[head + count - 1]; the first ``done`` of
 * them have run, and the filter holds the state after the last of those. */
typedef struct {
    PyObject_HEAD
    Filter *filter;
    double horizon;
    Step *steps;
    Py_ssize_t head, count, capacity, done;
    double oldest;              /* time of the oldest step at the last run (s) */
    long long stale;            /* measurements dropped as older than the history */
    long long rejected_earlier; /* rejections among the steps that left the history */
} Fusion;

static void Fusion_dealloc(Fusion *self)
{
    PyMem_Free(self->steps);
    Py_XDECREF(self->filter);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Fusion(filter, horizon): the history of ``filter`` over the last ``horizon`` seconds. */
static int Fusion_init(Fusion *self, PyObject *args, PyObject *kwds)
{
    (void)kwds;
    PyObject *filter;
    double horizon;
    if (!PyArg_ParseTuple(args, "O!d", &FilterType, &filter, &horizon))
        return -1;
    if (ready((Filter *)filter) < 0)
        return -1;
    Py_INCREF(filter);
    Py_XSETREF(self->filter, (Filter *)filter);
    self->horizon = horizon;
    self->head = self->count = self->done = 0;
    self->oldest = -INFINITY;
    self->stale = self->rejected_earlier = 0;
    return 0;
}

/* index of the first step later than ``time`` (or not earlier, ``inclusive``) */
static Py_ssize_t search(const Fusion *self, double time, bool inclusive)
{
    Py_ssize_t low = 0, high = self->count;
    const Step *steps = self->steps + self->head;
    while (low < high) {
        Py_ssize_t mid = (low + high) / 2;
        if (inclusive ? steps[mid].time < time : steps[mid].time <= time)
            low = mid + 1;
        else
            high = mid;
    }
    return low;
}

/* room for one more step after the last; 0 or -1 */
static int reserve(Fusion *self)
{
    if (self->head + self->count < self->capacity)
        return 0;
    if (self->head > 0) { /* move the history to the front of its memory */
        memmove(self->steps, self->steps + self->head, (size_t)self->count * sizeof(Step));
        self->head = 0;
        if (self->count < self->capacity)
            return 0;
    }
    Py_ssize_t capacity = self->capacity ? 2 * self->capacity : 64;
    Step *steps = PyMem_Realloc(self->steps, (size_t)capacity * sizeof(Step));
    if (steps == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    self->steps = steps;
    self->capacity = capacity;
    return 0;
}

/* add(time, kind, data) -> bool: insert a step at ``time`` (s), after the steps at the same
 * time; False for a measurement older than the history at the last run (dropped, counted as
 * stale). Inserted before steps that have run, it sets the filter back to the state before
 * them. */
static PyObject *Fusion_add(Fusion *self, PyObject *args)
{
    double time;
    int kind;
    PyObject *data;
    double values[MOST_DATA] = {0};
    if (!PyArg_ParseTuple(args, "diO", &time, &kind, &data) || step_data(kind, data, values) < 0)
        return NULL;
    if (kind != PROPAGATION && time < self->oldest - SAME_TIME) {
        self->stale++;
        Py_RETURN_FALSE;
    }
    if (reserve(self) < 0)
        return NULL;
    Py_ssize_t k = search(self, time + SAME_TIME, false);
    Step *at = self->steps + self->head + k;
    memmove(at + 1, at, (size_t)(self->count - k) * sizeof(Step));
    self->count++;
    at->time = time;
    at->kind = kind;
    at->rejected = false;
    memcpy(at->data, values, sizeof values);
    if (k < self->done) { /* the step now after it had run from the state it starts from */
        Filter *f = self->filter;
        memcpy(f->x, at[1].x, sizeof at->x);
        memcpy(f->P, at[1].P, sizeof at->P);
        self->done = k;
    }
    Py_RETURN_TRUE;
}

/* run(): run the steps that have not run, each from the state the one before it left, then
 * forget the steps older than the horizon before the last step's time. */
static PyObject *Fusion_run(Fusion *self, PyObject *unused)
{
    (void)unused;
    Filter *f = self->filter;
    Step *steps = self->steps + self->head;
    for (Py_ssize_t k = self->done; k < self->count; k++) {
        Step *step = steps + k;
        memcpy(step->x, f->x, sizeof step->x);
        memcpy(step->P, f->P, sizeof step->P);
        if (step->kind == PROPAGATION) {
            propagate(f, step->data, step->data + 3);
        } else {
            Linearised m;
            linearise(f, step->kind, step->data, &m);
            step->rejected = update(f, &m) < 0;
        }
    }
    self->done = self->count;
    if (self->count > 0) {
        Py_ssize_t k = search(self, steps[self->count - 1].time - self->horizon - SAME_TIME, true);
        for (Py_ssize_t j = 0; j < k; j++)
            self->rejected_earlier += steps[j].rejected;
        self->head += k;
        self->count -= k;
        self->done -= k;
        self->oldest = self->count > 0 ? self->steps[self->head].time : -INFINITY;
    }
    Py_RETURN_NONE;
}

static PyObject *Fusion_counts(Fusion *self, PyObject *unused)
{
    (void)unused;
    long long rejected = self->rejected_earlier;
    for (Py_ssize_t k = 0; k < self->count; k++)
        rejected += self->steps[self->head + k].rejected;
    return Py_BuildValue("(LL)", self->stale, rejected);
}

static PyObject *Fusion_times(Fusion *self, PyObject *unused)
{
    (void)unused;
    PyObject *times = PyList_New(self->count);
    if (times == NULL)
        return NULL;
    for (Py_ssize_t k = 0; k < self->count; k++) {
        PyObject *time = PyFloat_FromDouble(self->steps[self->head + k].time);
        if (time == NULL) {
            Py_DECREF(times);
            return NULL;
        }
        PyList_SET_ITEM(times, k, time);
    }
    return times;
}

static PyMethodDef Fusion_methods[] = {
    {"add", (PyCFunction)Fusion_add, METH_VARARGS,
     "add(time, kind, data) -> bool: insert a step at its time (False: dropped as stale)"},
    {"run", (PyCFunction)Fusion_run, METH_NOARGS,
     "run(): run the steps not run yet and forget those older than the horizon"},
    {"counts", (PyCFunction)Fusion_counts, METH_NOARGS,
     "counts() -> (stale, rejected): measurements dropped as stale, and gated out (each once, "
     "by its last run)"},
    {"times", (PyCFunction)Fusion_times, METH_NOARGS, "times() -> the steps' times (s)"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject FusionType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "orchestrator.native._kernel.Fusion",
    .tp_doc = PyDoc_STR("A filter's history: late measurements fused at their time of validity"),
    .tp_basicsize = sizeof(Fusion),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Fusion_init,
    .tp_dealloc = (destructor)Fusion_dealloc,
    .tp_methods = Fusion_methods,
};

int navigation_add_types(PyObject *module)
{
    if (PyType_Ready(&FilterType) < 0 || PyType_Ready(&FusionType) < 0)
        return -1;
    Py_INCREF(&FilterType);
    if (PyModule_AddObject(module, "Filter", (PyObject *)&FilterType) < 0) {
        Py_DECREF(&FilterType);
        return -1;
    }
    Py_INCREF(&FusionType);
    if (PyModule_AddObject(module, "Fusion", (PyObject *)&FusionType) < 0) {
        Py_DECREF(&FusionType);
        return -1;
    }
    return 0;
}
