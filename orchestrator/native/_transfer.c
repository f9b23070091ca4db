/*
 * Compiled batch of FMI value transfers (``_transfer.c``): the Float64 variables of several
 * instances read into, or written from, one buffer by direct calls of each instance's
 * fmi2GetReal / fmi2SetReal or fmi3GetFloat64 / fmi3SetFloat64, with no Python per instance.
 * The master uses it for the FMU inputs a controller drives and the FMU outputs it records.
 * Before every call an optional breadcrumb (the call's code) is stored where a supervising
 * process reads it, as the kernel does for its own calls.
 */
#include "_transfer.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

typedef int (*real2_fn)(void *, const uint32_t *, size_t, double *);
typedef int (*real3_fn)(void *, const uint32_t *, size_t, double *, size_t);

typedef struct {
    int fmi3;
    void *function; /* Get/Set Real or Float64 of the instance's library */
    void *handle;   /* the instance */
    uint32_t *vr;   /* value references */
    size_t n;
    Py_ssize_t start; /* first buffer entry */
    double crumb;     /* code stored before the call */
} Call;

typedef struct {
    PyObject_HEAD
    Call *calls;
    Py_ssize_t n_calls;
    PyObject *buffer; /* the float64 array the calls read into or write from */
    double *values;
    volatile double *crumb;
} Transfer;

static PyObject *TransferError;

static void Transfer_dealloc(Transfer *self)
{
    for (Py_ssize_t i = 0; i < self->n_calls; i++)
        PyMem_Free(self->calls[i].vr);
    PyMem_Free(self->calls);
    Py_XDECREF(self->buffer);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Transfer(buffer, calls): ``buffer`` a C-contiguous float64 array (kept alive), ``calls`` a
 * sequence of (fmi3, function address, instance address, value references, start). */
static int Transfer_init(Transfer *self, PyObject *args, PyObject *kwds)
{
    (void)kwds;
    PyObject *buffer, *calls;
    if (!PyArg_ParseTuple(args, "OO", &buffer, &calls))
        return -1;
    Py_buffer view;
    if (PyObject_GetBuffer(buffer, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0)
        return -1;
    bool is_double = view.itemsize == sizeof(double) && view.format && !strcmp(view.format, "d");
    Py_ssize_t length = view.len / (Py_ssize_t)sizeof(double);
    self->values = view.buf;
    PyBuffer_Release(&view); /* the array itself is kept, so its memory stays */
    if (!is_double) {
        PyErr_SetString(PyExc_TypeError, "Transfer: the buffer must be a float64 array");
        return -1;
    }
    PyObject *fast = PySequence_Fast(calls, "Transfer: calls must be a sequence");
    if (fast == NULL)
        return -1;
    Py_ssize_t n_calls = PySequence_Fast_GET_SIZE(fast);
    self->calls = PyMem_Calloc((size_t)(n_calls ? n_calls : 1), sizeof(Call));
    if (self->calls == NULL) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n_calls; i++) {
        Call *call = &self->calls[i];
        int fmi3;
        unsigned long long function, handle;
        PyObject *references;
        Py_ssize_t start;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast, i), "pKKOn", &fmi3, &function,
                              &handle, &references, &start))
            goto fail;
        PyObject *refs = PySequence_Fast(references, "Transfer: value references");
        if (refs == NULL)
            goto fail;
        Py_ssize_t n = PySequence_Fast_GET_SIZE(refs);
        call->vr = PyMem_Calloc((size_t)(n ? n : 1), sizeof(uint32_t));
        self->n_calls = i + 1; /* freed by the deallocator from here on */
        if (call->vr == NULL) {
            Py_DECREF(refs);
            PyErr_NoMemory();
            goto fail;
        }
        for (Py_ssize_t j = 0; j < n; j++) {
            unsigned long reference = PyLong_AsUnsignedLong(PySequence_Fast_GET_ITEM(refs, j));
            if (reference == (unsigned long)-1 && PyErr_Occurred()) {
                Py_DECREF(refs);
                goto fail;
            }
            call->vr[j] = (uint32_t)reference;
        }
        Py_DECREF(refs);
        if (start < 0 || start + n > length) {
            PyErr_SetString(PyExc_ValueError, "Transfer: a call's values lie outside the buffer");
            goto fail;
        }
        call->fmi3 = fmi3;
        call->function = (void *)(uintptr_t)function;
        call->handle = (void *)(uintptr_t)handle;
        call->n = (size_t)n;
        call->start = start;
    }
    Py_DECREF(fast);
    Py_INCREF(buffer);
    self->buffer = buffer;
    return 0;
fail:
    Py_DECREF(fast);
    return -1;
}

/* run(): make every call in order; an FMI status above Warning raises
 * TransferError(call index, status) and skips the calls after it. */
static PyObject *Transfer_run(Transfer *self, PyObject *unused)
{
    (void)unused;
    for (Py_ssize_t i = 0; i < self->n_calls; i++) {
        Call *call = &self->calls[i];
        if (self->crumb != NULL)
            *self->crumb = call->crumb;
        double *values = self->values + call->start;
        int status = call->fmi3 ? ((real3_fn)call->function)(call->handle, call->vr, call->n,
                                                              values, call->n)
                                : ((real2_fn)call->function)(call->handle, call->vr, call->n,
                                                              values);
        if (status > 1) {
            PyObject *error = Py_BuildValue("(ni)", i, status);
            if (error != NULL) {
                PyErr_SetObject(TransferError, error);
                Py_DECREF(error);
            }
            return NULL;
        }
    }
    Py_RETURN_NONE;
}

/* watch(address, codes): before call i store codes[i] in the double at ``address``. */
static PyObject *Transfer_watch(Transfer *self, PyObject *args)
{
    unsigned long long address;
    PyObject *codes;
    if (!PyArg_ParseTuple(args, "KO", &address, &codes))
        return NULL;
    PyObject *fast = PySequence_Fast(codes, "watch: codes must be a sequence");
    if (fast == NULL)
        return NULL;
    if (PySequence_Fast_GET_SIZE(fast) != self->n_calls) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "watch: one code per call");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < self->n_calls; i++) {
        double code = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(fast, i));
        if (code == -1.0 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return NULL;
        }
        self->calls[i].crumb = code;
    }
    Py_DECREF(fast);
    self->crumb = (volatile double *)(uintptr_t)address;
    Py_RETURN_NONE;
}

static PyMethodDef Transfer_methods[] = {
    {"run", (PyCFunction)Transfer_run, METH_NOARGS,
     "run(): make every call; TransferError(call, status) on a status above Warning"},
    {"watch", (PyCFunction)Transfer_watch, METH_VARARGS,
     "watch(address, codes): store codes[i] in the double at address before call i"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject TransferType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "orchestrator.native._kernel.Transfer",
    .tp_doc = PyDoc_STR("FMI Float64 reads or writes of several instances through one buffer"),
    .tp_basicsize = sizeof(Transfer),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Transfer_init,
    .tp_dealloc = (destructor)Transfer_dealloc,
    .tp_methods = Transfer_methods,
};

int transfer_add_type(PyObject *module)
{
    if (PyType_Ready(&TransferType) < 0)
        return -1;
    TransferError = PyErr_NewException("orchestrator.native._kernel.TransferError", NULL, NULL);
    if (TransferError == NULL)
        return -1;
    Py_INCREF(&TransferType);
    if (PyModule_AddObject(module, "Transfer", (PyObject *)&TransferType) < 0) {
        Py_DECREF(&TransferType);
        return -1;
    }
    if (PyModule_AddObject(module, "TransferError", TransferError) < 0)
        return -1;
    return 0;
}
