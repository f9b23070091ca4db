/*
 * Compiled batch of FMI Float64 reads or writes over several instances (``_transfer.c``).
 */
#ifndef ORCHESTRATOR_TRANSFER_H
#define ORCHESTRATOR_TRANSFER_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* Adds the type ``Transfer`` and the exception ``TransferError`` to the kernel module; 0 on
 * success, -1 with an exception. */
int transfer_add_type(PyObject *module);

#endif
