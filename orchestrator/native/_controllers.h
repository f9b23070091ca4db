/*
 * Compiled step functions of the built-in controllers and their group sample
 * (``_controllers.c``).
 */
#ifndef ORCHESTRATOR_CONTROLLERS_H
#define ORCHESTRATOR_CONTROLLERS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* Adds the types ``Law`` and ``LawGroup`` and the functions ``arm_inverse``, ``thrust_pwm``,
 * ``thrust_pwm_many``, ``step_laws`` and ``use_dgemv`` to the kernel module; 0 on success,
 * -1 with an exception. */
int controllers_add_types(PyObject *module);

/* y = A x of a row-major (rows x columns) matrix by the BLAS dgemv that NumPy's ``A @ x``
 * calls (the same kernel, so the same sums); 0, or -1 with an exception before
 * ``use_dgemv``. */
int blas_times(const double *A, int rows, int columns, const double *x, double *y);

#endif
