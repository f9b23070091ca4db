/* Float64 arrays of Python objects seen as C arrays, shared by the native extensions. */
#ifndef MURCOSIM_BUFFERS_H
#define MURCOSIM_BUFFERS_H

#include <Python.h>
#include <string.h>

/* The data of ``array`` (any buffer: a NumPy array, an array.array) if it holds exactly ``n``
 * contiguous float64 values (and may be written, if ``writable``); else NULL with a
 * ValueError naming ``what``. The caller keeps the array alive and never resizes it while
 * the pointer is in use. */
static inline double *doubles(PyObject *array, Py_ssize_t n, const char *what, int writable)
{
    Py_buffer view;
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(array, &view, flags) < 0)
        return NULL;
    double *data = view.buf;
    int ok = view.itemsize == sizeof(double) && view.len == n * (Py_ssize_t)sizeof(double) &&
             view.format != NULL && strcmp(view.format, "d") == 0;
    PyBuffer_Release(&view);
    if (!ok) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd contiguous float64 values", what, n);
        return NULL;
    }
    return data;
}

#endif
