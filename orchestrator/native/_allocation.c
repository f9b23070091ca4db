/*
 * Compiled constrained thrust allocation (``_allocation.c``): the sample of
 * ``orchestrator.controllers.constrained_allocation`` (whose docstring states the programs) for
 * one vehicle or many in one call. Per vehicle: the program without force errors first (least
 * power meeting the command exactly, accepted under the exact-penalty condition), else the full
 * program, then the dead-zone passes, each a further solve of the full program. Both programs
 * keep their DAQP workspace across samples (only the bounds change), are set up again after a
 * failed solve, and a failed solve of the full program is handed to the vehicle's fallback
 * (a Python callable, qpOASES), as the Python controller did. The force the dead zones took off
 * the command is the caller's (a product with the configuration matrix, left to NumPy).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <dlfcn.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "_buffers.h"
#include "_daqp.h"

#define DOF 6
#define EXACT_TOLERANCE 1e-7 /* largest force error (relative to 1 + |tau|) of an exact solution */
#define PRIMAL_TOLERANCE 1e-9 /* DAQP's primal_tol */

/* ---- DAQP's functions, from the daqp package's extension module ---- */

static void (*allocate_settings)(DaqpWorkspace *);
static int (*setup_main)(DaqpProblem *, DaqpWorkspace *, double *, int);
static int (*update_ldp)(int, DaqpWorkspace *, DaqpProblem *);
static void (*solve_qp)(DaqpResult *, DaqpWorkspace *);
static void (*free_workspace)(DaqpWorkspace *);
static void (*free_ldp)(DaqpWorkspace *);

/* NumPy's maximum and minimum (NaN propagates; of equal values the second) */
static double np_max(double a, double b) { return isnan(a) ? a : (a > b ? a : b); }
static double np_min(double a, double b) { return isnan(a) ? a : (a < b ? a : b); }

/* ---- one program and its DAQP workspace (a daqp.Model of the Python interface) ---- */

typedef struct {
    DaqpWorkspace *work; /* NULL until set up, and after a failed solve */
    DaqpProblem qp;
    double *x, *lam; /* the last solution and its multipliers */
} Program;

static void program_free(Program *p)
{
    if (p->work != NULL) {
        free_workspace(p->work);
        free_ldp(p->work);
        free(p->work);
        p->work = NULL;
    }
}

/* Sets ``p`` up on its problem (its bounds as they are); DAQP's status, < 0 on failure. */
static int program_setup(Program *p)
{
    program_free(p);
    p->work = calloc(1, sizeof(DaqpWorkspace));
    if (p->work == NULL)
        return -100;
    allocate_settings(p->work);
    double setup_time = 0.0;
    int status = setup_main(&p->qp, p->work, &setup_time, 0);
    if (status < 0) {
        allocate_settings(p->work); /* DAQP freed them; as the Python interface keeps them */
        program_free(p);
        return status;
    }
    p->work->settings->eps_prox = 0.0;
    p->work->settings->primal_tol = PRIMAL_TOLERANCE;
    return status;
}

/* Solves ``p`` (its bounds updated unless just set up); DAQP's exit flag. */
static int program_solve(Program *p)
{
    DaqpResult result = {p->x, p->lam, 0.0, 0.0, 0, 0, 0, 0.0, 0.0};
    solve_qp(&result, p->work);
    return result.exitflag;
}

/* ---- one vehicle ---- */

typedef struct {
    PyObject_HEAD
    int n;                   /* thrusters */
    double *T;               /* configuration, 6 x n */
    double *band;            /* dead-zone edges (N), n */
    double weights[DOF];     /* force-error weights */
    bool exact_rows;         /* the thrusters span all six degrees of freedom */
    double *hessian, *gradient, *rows; /* the full program: (2n+6)^2, 2n+6, 12 x (2n+6) */
    double *exact_hessian, *exact_rows_matrix; /* the exact program's H (2n)^2 and A (6 x 2n) */
    double *exact_lower, *exact_upper;         /* 2n + 6 */
    int *exact_sense, *full_sense;             /* 2n + 6 and 2n + 18 */
    PyObject *lower_array, *upper_array;       /* the full program's bounds (2n + 18) */
    double *lower, *upper;
    PyObject *fallback; /* fallback(lower, upper) -> z: the full program solved otherwise */
    Program full, exact;
    double *scratch; /* 2n */
} Allocator;

static double *copied(PyObject *array, Py_ssize_t n, const char *what)
{
    double *data = doubles(array, n, what, 0);
    if (data == NULL)
        return NULL;
    double *copy = PyMem_Calloc(n, sizeof(double));
    if (copy == NULL)
        return (double *)PyErr_NoMemory();
    memcpy(copy, data, n * sizeof(double));
    return copy;
}

static void allocator_dealloc(Allocator *self)
{
    program_free(&self->full);
    program_free(&self->exact);
    PyMem_Free(self->T);
    PyMem_Free(self->band);
    PyMem_Free(self->hessian);
    PyMem_Free(self->gradient);
    PyMem_Free(self->rows);
    PyMem_Free(self->exact_hessian);
    PyMem_Free(self->exact_rows_matrix);
    PyMem_Free(self->exact_lower);
    PyMem_Free(self->exact_upper);
    PyMem_Free(self->exact_sense);
    PyMem_Free(self->full_sense);
    PyMem_Free(self->full.x);
    PyMem_Free(self->full.lam);
    PyMem_Free(self->exact.x);
    PyMem_Free(self->exact.lam);
    PyMem_Free(self->scratch);
    Py_XDECREF(self->lower_array);
    Py_XDECREF(self->upper_array);
    Py_XDECREF(self->fallback);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int allocator_init(Allocator *self, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"configuration", "dead_band", "weights", "exact_rows", "hessian",
                               "gradient", "rows", "lower", "upper", "fallback", NULL};
    PyObject *T, *band, *weights, *hessian, *gradient, *rows, *lower, *upper, *fallback;
    int exact_rows, n;
    if (free_workspace == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "DAQP is not bound (bind_daqp)");
        return -1;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOpOOOOOO", keywords, &T, &band, &weights,
                                     &exact_rows, &hessian, &gradient, &rows, &lower, &upper,
                                     &fallback))
        return -1;
    n = (int)PyObject_Length(band);
    if (n <= 0 || !PyCallable_Check(fallback)) {
        PyErr_SetString(PyExc_ValueError, "an allocator needs thrusters and a fallback");
        return -1;
    }
    const int N = 2 * n + DOF; /* variables of the full program: f, r, e */
    self->n = n;
    self->exact_rows = exact_rows;
    double *w = doubles(weights, DOF, "weights", 0);
    if (w == NULL)
        return -1;
    memcpy(self->weights, w, sizeof self->weights);
    if ((self->T = copied(T, DOF * n, "configuration")) == NULL ||
        (self->band = copied(band, n, "dead_band")) == NULL ||
        (self->hessian = copied(hessian, (Py_ssize_t)N * N, "hessian")) == NULL ||
        (self->gradient = copied(gradient, N, "gradient")) == NULL ||
        (self->rows = copied(rows, 2 * DOF * N, "rows")) == NULL ||
        (self->lower = doubles(lower, N + 2 * DOF, "lower", 1)) == NULL ||
        (self->upper = doubles(upper, N + 2 * DOF, "upper", 1)) == NULL)
        return -1;
    Py_INCREF(lower);
    Py_INCREF(upper);
    Py_INCREF(fallback);
    self->lower_array = lower;
    self->upper_array = upper;
    self->fallback = fallback;
    const int n2 = 2 * n;
    self->exact_hessian = PyMem_Calloc((size_t)n2 * n2, sizeof(double));
    self->exact_rows_matrix = PyMem_Calloc((size_t)DOF * n2, sizeof(double));
    self->exact_lower = PyMem_Calloc(n2 + DOF, sizeof(double));
    self->exact_upper = PyMem_Calloc(n2 + DOF, sizeof(double));
    self->exact_sense = PyMem_Calloc(n2 + DOF, sizeof(int));
    self->full_sense = PyMem_Calloc(N + 2 * DOF, sizeof(int));
    self->full.x = PyMem_Calloc(N, sizeof(double));
    self->full.lam = PyMem_Calloc(N + 2 * DOF, sizeof(double));
    self->exact.x = PyMem_Calloc(n2, sizeof(double));
    self->exact.lam = PyMem_Calloc(n2 + DOF, sizeof(double));
    self->scratch = PyMem_Calloc(n2, sizeof(double));
    if (!self->exact_hessian || !self->exact_rows_matrix || !self->exact_lower ||
        !self->exact_upper || !self->exact_sense || !self->full_sense || !self->full.x ||
        !self->full.lam || !self->exact.x || !self->exact.lam || !self->scratch) {
        PyErr_NoMemory();
        return -1;
    }
    for (int i = n2; i < n2 + DOF; i++)
        self->exact_sense[i] = DAQP_SENSE_EQUALITY;
    for (int i = 0; i < DOF; i++)
        memcpy(self->exact_rows_matrix + i * n2, self->rows + i * N, n2 * sizeof(double));
    /* z = [f, r, e], the bounds then the rows e >= tau - T (f - r), e >= T (f - r) - tau */
    self->full.qp = (DaqpProblem){N,        N + 2 * DOF, N,           self->hessian,
                                  self->gradient, self->rows, self->upper, self->lower,
                                  self->full_sense, NULL, 0, 0};
    /* z = [f, r], the bounds then the rows T (f - r) = tau */
    self->exact.qp = (DaqpProblem){n2,       n2 + DOF, n2, self->exact_hessian,
                                   self->gradient, self->exact_rows_matrix, self->exact_upper,
                                   self->exact_lower, self->exact_sense, NULL, 0, 0};
    return 0;
}

/* Thrusts f - r (N) of the solution ``z`` of a program, within [low, high] (N). */
static void thrusts_of(const Allocator *a, const double *z, const double *low,
                       const double *high, double *thrusts)
{
    for (int i = 0; i < a->n; i++)
        thrusts[i] = np_min(np_max(z[i] - z[a->n + i], low[i]), high[i]);
}

/* The full program's thrusts (N) within [low, high] (N): 0, or -1 with an exception. */
static int solve_full(Allocator *a, const double *tau, const double *low, const double *high,
                      double *thrusts)
{
    const int n = a->n, N = 2 * n + DOF;
    double *lower = a->lower, *upper = a->upper, *scratch = a->scratch;
    for (int i = 0; i < n; i++) { /* f in [max(low, 0), max(high, 0)], r in [max(-high, 0), ..] */
        scratch[i] = low[i];
        scratch[n + i] = -high[i];
    }
    for (int i = 0; i < 2 * n; i++)
        lower[i] = np_max(scratch[i], 0.0);
    for (int i = 0; i < n; i++) {
        scratch[i] = high[i];
        scratch[n + i] = -low[i];
    }
    for (int i = 0; i < 2 * n; i++)
        upper[i] = np_max(scratch[i], 0.0);
    for (int i = 0; i < DOF; i++) {
        lower[N + i] = tau[i];
        lower[N + DOF + i] = -tau[i];
    }
    Program *p = &a->full;
    if (p->work == NULL) {
        memset(a->full_sense, 0, (N + 2 * DOF) * sizeof(int));
        if (program_setup(p) < 0) {
            PyErr_SetString(PyExc_RuntimeError, "Model has not been set up. Call setup() first.");
            return -1;
        }
    } else {
        update_ldp(DAQP_UPDATE_BOUNDS, p->work, &p->qp);
    }
    if (program_solve(p) >= 1) {
        thrusts_of(a, p->x, low, high, thrusts);
        return 0;
    }
    program_free(p); /* e.g. cycling on a degenerate program: the next solve starts afresh */
    PyObject *z = PyObject_CallFunctionObjArgs(a->fallback, a->lower_array, a->upper_array, NULL);
    if (z == NULL)
        return -1;
    double *values = doubles(z, N, "fallback solution", 0);
    if (values != NULL)
        thrusts_of(a, values, low, high, thrusts);
    Py_DECREF(z);
    return values == NULL ? -1 : 0;
}

/* The exact program's thrusts (N) within [low, high] (which contains zero), if that is the
 * full program's solution: true; false otherwise. */
static bool solve_exact(Allocator *a, const double *tau, const double *low, const double *high,
                        double *thrusts)
{
    const int n = a->n, n2 = 2 * n;
    double *lower = a->exact_lower, *upper = a->exact_upper;
    for (int i = 0; i < n; i++) { /* f in [0, high], r in [0, -low] */
        upper[i] = high[i];
        upper[n + i] = -low[i];
    }
    for (int i = 0; i < DOF; i++)
        lower[n2 + i] = upper[n2 + i] = tau[i];
    Program *p = &a->exact;
    if (p->work == NULL) {
        const int N = n2 + DOF;
        for (int i = 0; i < n2; i++) /* the full program's leading block */
            memcpy(a->exact_hessian + i * n2, a->hessian + i * N, n2 * sizeof(double));
        if (program_setup(p) < 0)
            return false; /* e.g. found infeasible while setting up */
    } else {
        update_ldp(DAQP_UPDATE_BOUNDS, p->work, &p->qp);
    }
    if (program_solve(p) < 1) {
        program_free(p); /* an infeasible program leaves no active set to start from */
        return false;
    }
    for (int i = 0; i < DOF; i++)
        if (fabs(p->lam[n2 + i]) > a->weights[i])
            return false; /* an error would be cheaper */
    thrusts_of(a, p->x, low, high, thrusts);
    double largest_error = 0.0, largest_tau = 0.0;
    for (int i = 0; i < DOF; i++) {
        double force = 0.0;
        for (int j = 0; j < n; j++)
            force += a->T[i * n + j] * thrusts[j];
        largest_error = fmax(largest_error, fabs(force - tau[i]));
        largest_tau = fmax(largest_tau, fabs(tau[i]));
    }
    /* not met after all (DAQP solves to primal_tol): the full program */
    return largest_error <= EXACT_TOLERANCE * (1.0 + largest_tau);
}

/* Narrows [low, high] to pin every free thruster that ``thrusts`` leaves inside its dead band:
 * at zero below half the band's edge, else at the edge with its sign; whether any was. */
static bool pin_dead_zones(const Allocator *a, const double *thrusts, double *low, double *high,
                           bool *free_)
{
    bool pinned = false;
    for (int i = 0; i < a->n; i++) {
        double thrust = thrusts[i], band = a->band[i];
        if (free_[i] && thrust != 0.0 && fabs(thrust) < band) {
            double target = fabs(thrust) >= 0.5 * band ? copysign(band, thrust) : 0.0;
            target = low[i] > target ? low[i] : target; /* Python's max, then min */
            target = high[i] < target ? high[i] : target;
            if (target >= 0)
                low[i] = target;
            if (target <= 0)
                high[i] = target;
            free_[i] = false;
            pinned = true;
        }
    }
    return pinned;
}

/* One vehicle's sample: 0, or -1 with an exception. */
static int allocate_one(Allocator *a, const double *tau, double *low, double *high,
                        double *continuous, double *thrusts)
{
    bool free_[a->n];
    if (!(a->exact_rows && solve_exact(a, tau, low, high, continuous)) &&
        solve_full(a, tau, low, high, continuous) < 0)
        return -1;
    memcpy(thrusts, continuous, a->n * sizeof(double));
    for (int i = 0; i < a->n; i++)
        free_[i] = true;
    while (pin_dead_zones(a, thrusts, low, high, free_)) /* each pass pins one at least */
        if (solve_full(a, tau, low, high, thrusts) < 0)
            return -1;
    return 0;
}

static PyTypeObject AllocatorType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "orchestrator.native._allocation.Allocator",
    .tp_doc = PyDoc_STR("One vehicle's constrained allocation: its programs and DAQP workspaces."),
    .tp_basicsize = sizeof(Allocator),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)allocator_init,
    .tp_dealloc = (destructor)allocator_dealloc,
};

/* allocate(allocators, tau, low, high, continuous, thrusts) -> {k: exception} */
static PyObject *allocate(PyObject *module, PyObject *args)
{
    PyObject *allocators, *tau_array, *low_array, *high_array, *continuous_array, *thrusts_array;
    (void)module;
    if (!PyArg_ParseTuple(args, "O!OOOOO", &PyTuple_Type, &allocators, &tau_array, &low_array,
                          &high_array, &continuous_array, &thrusts_array))
        return NULL;
    Py_ssize_t count = PyTuple_GET_SIZE(allocators), total = 0;
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *item = PyTuple_GET_ITEM(allocators, k);
        if (!PyObject_TypeCheck(item, &AllocatorType)) {
            PyErr_SetString(PyExc_TypeError, "allocate: expected a tuple of Allocator");
            return NULL;
        }
        total += ((Allocator *)item)->n;
    }
    double *tau = doubles(tau_array, DOF * count, "tau", 0);
    double *low = tau ? doubles(low_array, total, "low", 1) : NULL;
    double *high = low ? doubles(high_array, total, "high", 1) : NULL;
    double *continuous = high ? doubles(continuous_array, total, "continuous", 1) : NULL;
    double *thrusts = continuous ? doubles(thrusts_array, total, "thrusts", 1) : NULL;
    if (thrusts == NULL)
        return NULL;
    PyObject *failed = PyDict_New();
    if (failed == NULL)
        return NULL;
    for (Py_ssize_t k = 0, at = 0; k < count; k++) {
        Allocator *a = (Allocator *)PyTuple_GET_ITEM(allocators, k);
        if (allocate_one(a, tau + DOF * k, low + at, high + at, continuous + at, thrusts + at) <
            0) {
            PyObject *type, *value, *traceback;
            PyErr_Fetch(&type, &value, &traceback);
            PyErr_NormalizeException(&type, &value, &traceback);
            PyObject *key = PyLong_FromSsize_t(k);
            int stored = key ? PyDict_SetItem(failed, key, value ? value : Py_None) : -1;
            Py_XDECREF(key);
            Py_XDECREF(type);
            Py_XDECREF(value);
            Py_XDECREF(traceback);
            if (stored < 0) {
                Py_DECREF(failed);
                return NULL;
            }
            for (int i = 0; i < a->n; i++)
                continuous[at + i] = thrusts[at + i] = NAN;
        }
        at += a->n;
    }
    return failed;
}

/* Resolves DAQP's functions in the daqp package's extension module at ``path`` and checks the
 * declared layout on a small program. */
static PyObject *bind_daqp(PyObject *module, PyObject *args)
{
    const char *path;
    (void)module;
    if (!PyArg_ParseTuple(args, "s", &path))
        return NULL;
    void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        PyErr_Format(PyExc_ImportError, "DAQP: %s", dlerror());
        return NULL;
    }
    *(void **)&allocate_settings = dlsym(library, "allocate_daqp_settings");
    *(void **)&setup_main = dlsym(library, "setup_daqp_main");
    *(void **)&update_ldp = dlsym(library, "daqp_update_ldp");
    *(void **)&solve_qp = dlsym(library, "daqp_solve");
    *(void **)&free_ldp = dlsym(library, "free_daqp_ldp");
    *(void **)&free_workspace = dlsym(library, "free_daqp_workspace");
    if (!allocate_settings || !setup_main || !update_ldp || !solve_qp || !free_ldp ||
        !free_workspace) {
        free_workspace = NULL;
        PyErr_Format(PyExc_ImportError, "DAQP: %s lacks the C interface of DAQP 0.11", path);
        return NULL;
    }
    /* min (x - 1)^2 / 2 subject to 0 <= x <= 0.5: x = 0.5, the upper bound's multiplier 0.5 */
    double H = 1.0, f = -1.0, upper = 0.5, lower = 0.0, x = 0.0, lam = 0.0;
    int sense = 0;
    Program p = {NULL, {1, 1, 1, &H, &f, NULL, &upper, &lower, &sense, NULL, 0, 0}, &x, &lam};
    int status = program_setup(&p);
    bool ok = status >= 0 && p.work->qp == &p.qp && p.work->n == 1 && p.work->m == 1 &&
              p.work->settings->primal_tol == PRIMAL_TOLERANCE && program_solve(&p) >= 1 &&
              x == 0.5 && lam == 0.5;
    program_free(&p);
    if (!ok) {
        free_workspace = NULL;
        PyErr_Format(PyExc_ImportError, "DAQP: %s is not laid out as DAQP 0.11", path);
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"allocate", allocate, METH_VARARGS,
     PyDoc_STR("allocate(allocators, tau, low, high, continuous, thrusts) -> {k: exception}")},
    {"bind_daqp", bind_daqp, METH_VARARGS, PyDoc_STR("bind_daqp(path): DAQP's C functions")},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_definition = {
    PyModuleDef_HEAD_INIT, "_allocation", "Compiled constrained thrust allocation.", -1, methods,
};

PyMODINIT_FUNC PyInit__allocation(void)
{
    if (PyType_Ready(&AllocatorType) < 0)
        return NULL;
    PyObject *module = PyModule_Create(&module_definition);
    if (module == NULL)
        return NULL;
    Py_INCREF(&AllocatorType);
    if (PyModule_AddObject(module, "Allocator", (PyObject *)&AllocatorType) < 0) {
        Py_DECREF(&AllocatorType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
