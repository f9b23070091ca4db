/*
 * Compiled step functions of the built-in controllers and their group sample
 * (``_controllers.c``).
 */
#ifndef ORCHESTRATOR_CONTROLLERS_H
#define ORCHESTRATOR_CONTROLLERS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* Adds the types ``Law`` and ``LawGroup`` and the functions ``arm_inverse``, ``thrust_pwm``
 * and ``use_dgemv`` to the kernel module; 0 on success, -1 with an exception. */
int controllers_add_types(PyObject *module);

#endif
