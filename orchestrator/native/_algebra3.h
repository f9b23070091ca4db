/*
 * Small algebra on 3-vectors, row-major 3 x 3 matrices and unit quaternions shared by the
 * compiled coupling (``_coupling.c``) and the navigation filter (``_navigation.c``): the
 * operations of ``orchestrator.kinematics`` in the same order, so both give the same numbers.
 */
#ifndef MURCOSIM_ALGEBRA3_H
#define MURCOSIM_ALGEBRA3_H

/* out = a x b (out may be a or b) */
static inline void cross3(const double *a, const double *b, double *out)
{
    double x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2],
           z = a[0] * b[1] - a[1] * b[0];
    out[0] = x;
    out[1] = y;
    out[2] = z;
}

/* out = A B */
static inline void multiply3(const double *A, const double *B, double *out)
{
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++)
            out[3 * i + k] = A[3 * i] * B[k] + A[3 * i + 1] * B[3 + k] + A[3 * i + 2] * B[6 + k];
}

/* S(a), with S(a) b = a x b */
static inline void skew3(const double *a, double *S)
{
    S[0] = 0.0, S[1] = -a[2], S[2] = a[1];
    S[3] = a[2], S[4] = 0.0, S[5] = -a[0];
    S[6] = -a[1], S[7] = a[0], S[8] = 0.0;
}

/* Rotation body to NED of the quaternion q = [eta, eps1, eps2, eps3] (kinematics.py). */
static inline void rotation_matrix(const double *q, double *R)
{
    double eta = q[0], e1 = q[1], e2 = q[2], e3 = q[3];
    R[0] = 1 - 2 * (e2 * e2 + e3 * e3);
    R[1] = 2 * (e1 * e2 - e3 * eta);
    R[2] = 2 * (e1 * e3 + e2 * eta);
    R[3] = 2 * (e1 * e2 + e3 * eta);
    R[4] = 1 - 2 * (e1 * e1 + e3 * e3);
    R[5] = 2 * (e2 * e3 - e1 * eta);
    R[6] = 2 * (e1 * e3 - e2 * eta);
    R[7] = 2 * (e2 * e3 + e1 * eta);
    R[8] = 1 - 2 * (e1 * e1 + e2 * e2);
}

#endif
