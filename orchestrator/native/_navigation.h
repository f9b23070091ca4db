/*
 * Compiled error-state Kalman filter and its history of late measurements (``_navigation.c``).
 */
#ifndef ORCHESTRATOR_NAVIGATION_H
#define ORCHESTRATOR_NAVIGATION_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* Adds the types ``Filter`` and ``Fusion`` to the kernel module; 0 on success, -1 with an
 * exception. */
int navigation_add_types(PyObject *module);

#endif
