/*
 * Compiled Udwadia-Kalaba coupling (``_coupling.c``): the constrained accelerations of an
 * assembly of rigid bodies joined by welds, fixed, revolute, universal, spherical and driven
 * universal joints, closed loops included, evaluated inside the kernel's right-hand side with
 * no Python per evaluation; its projection onto the constraint
 * manifold and its joints' recorded errors and forces (methods of the Python type).
 */
#ifndef ORCHESTRATOR_COUPLING_H
#define ORCHESTRATOR_COUPLING_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* Adds the type ``Coupling`` to the kernel module; 0 on success, -1 with an exception. */
int coupling_add_type(PyObject *module);

/* Whether ``post`` is a Coupling whose joints are all evaluated in C. */
int coupling_compiled(PyObject *post);

/* Replaces the bodies' der(nu) in ``dx`` (state ``x``, ``n`` states) by the constrained
 * accelerations; ``post`` must be a compiled Coupling. 0 on success, -1 with an exception. */
int coupling_apply(PyObject *post, const double *x, double *dx, Py_ssize_t n);

#endif
