/*
 * Compiled inner loop of the strong-coupling master.
 *
 * One right-hand side of the whole system: set time and continuous states of every Model
 * Exchange instance, propagate the connected signals in their topological order (outputs read
 * into one signal buffer, inputs written as sums of buffer entries given by index arrays), and
 * get the state derivatives -- all by direct calls of the FMUs' C functions (FMI 2.0 and 3.0),
 * with no Python per FMU or per port.
 *
 * The integrators step on that right-hand side without returning to Python between steps:
 * classic RK4 with a fixed step, and the Dormand-Prince 5(4) pair with error control and its
 * 4th-order continuous extension (dense output), which keeps its step size and stage data
 * across recording points and is re-initialised (one extra evaluation) only where an input
 * jumps. An optional post-process replaces accelerations in each evaluation (the constraint
 * coupling): the compiled ``Coupling`` of ``_coupling.c``, or any Python callable. Without
 * one, groups of instances that share no signal (a swarm's vehicles) take the seven stages of
 * a Dormand-Prince step one group after the other, with the same values (dopri_attempt). Every
 * accepted step is reported to the FMUs (completedIntegratorStep) and checked for non-finite
 * states; the integrators stop after a step at which an FMU asks to terminate the run.
 *
 * Event flags of the integrators: bit 0 an FMU asks for event mode (a step event), bit 1 an
 * FMU asks to terminate, the bits from 2 on the index of the first instance that asked to
 * terminate.
 *
 * Reference for the Dormand-Prince coefficients and the dense output: E. Hairer, S. P.
 * Norsett, G. Wanner, "Solving Ordinary Differential Equations I", 2nd ed., Springer, 1993,
 * Sec. II.5 and II.6 (code DOPRI5).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "_buffers.h"
#include "_controllers.h"
#include "_coupling.h"
#include "_navigation.h"
#include "_transfer.h"

typedef int (*set_time_fn)(void *, double);
typedef int (*set_states_fn)(void *, const double *, size_t);
typedef int (*get_derivatives_fn)(void *, double *, size_t);
typedef int (*real2_fn)(void *, const uint32_t *, size_t, double *);
typedef int (*real3_fn)(void *, const uint32_t *, size_t, double *, size_t);
typedef int (*completed2_fn)(void *, int, int *, int *);
typedef int (*completed3_fn)(void *, bool, bool *, bool *);

typedef struct {
    int fmi3;
    void *handle;
    set_time_fn set_time;
    set_states_fn set_states;
    get_derivatives_fn get_derivatives;
    void *get_real;
    void *set_real;
    void *completed;
    Py_ssize_t offset; /* first state in the system's state vector */
    Py_ssize_t n;      /* number of continuous states (0: stateless) */
    bool derived_early; /* derivatives read right after the instance's last op */
    bool set_late;      /* time and states set right before the instance's first op */
} Instance;

enum { OP_READ = 0, OP_WRITE = 1 };

/* An op's arrays are allocated one by one as it is added; planning moves those of all ops
 * into one block in op order (``arena``), so that an evaluation reads them in one sweep
 * through memory, as it visits the instances. */
typedef struct {
    int kind;
    bool first;  /* the instance's first op: its time and states are set before it */
    bool last;   /* the instance's last op: its derivatives are read after it */
    bool plain;  /* write: every factor 1 and every offset 0 (the sums skip them) */
    bool packed; /* its arrays lie in the kernel's arena */
    Py_ssize_t instance;
    Py_ssize_t n;
    Py_ssize_t signal;  /* read: first signal buffer entry */
    Py_ssize_t n_terms; /* write: number of source entries */
    uint32_t *vr;
    double *values;    /* write: the n values set */
    uint32_t *starts;  /* write: n + 1 offsets into sources */
    uint32_t *sources; /* write: signal entries summed into each value */
    double *factors;   /* write: factor of each source entry */
    double *offsets;   /* write: constant added to each value */
} Op;

static PyObject *FMICallError;
static PyObject *DivergenceError;

typedef struct {
    PyObject_HEAD
    Instance *instances;
    Py_ssize_t n_instances;
    Op *ops;
    Py_ssize_t n_ops;
    bool planned; /* the ops' `last` and the instances' `derived_early` are set */
    void *arena;  /* the ops' arrays, in op order (see Op) */
    /* Groups of instances that share no signal (a swarm's vehicles, each with its thrusters):
     * group g has the ops [group_ops[g], group_ops[g + 1]) and the instances
     * members[group_members[g] .. group_members[g + 1]). n_groups is 0 where the groups'
     * ops are not contiguous in op order. */
    Py_ssize_t n_groups;
    Py_ssize_t *group_ops;
    Py_ssize_t *group_members;
    Py_ssize_t *members;
    double *signals;
    Py_ssize_t n_signals;
    Py_ssize_t n_states;
    long long evaluations;
    long long steps;
    long long rejected;
    /* buffers handed to a Python post-process as NumPy arrays */
    PyObject *stage_array;
    PyObject *rate_array;
    double *stage;
    double *rate;
    /* integrator work: 7 stages, state, stage argument, new state, dense output (5 rows) */
    double *work;
    double *k[7];
    double *x;
    double *trial;
    double *x_new;
    double *dense;
    double t;
    double t_old;
    double h;
    double h_used;
    bool first_stage_valid;
    bool has_dense;
    /* what failed */
    Py_ssize_t error_instance;
    /* breadcrumb: before every FMI call its code is stored here (a supervisor reads it) */
    volatile double *crumb;
    double *crumb_codes; /* n_instances x N_CALLS */
} Kernel;

/* FMI calls the kernel makes, in the order of the breadcrumb codes per instance */
enum { C_SET_TIME, C_SET_STATES, C_GET_DERIVATIVES, C_GET_REAL, C_SET_REAL, C_COMPLETED, N_CALLS };

static inline void mark(Kernel *self, Py_ssize_t instance, int call)
{
    if (self->crumb != NULL)
        *self->crumb = self->crumb_codes[instance * N_CALLS + call];
}

static int call_failed(Kernel *self, Py_ssize_t instance, const char *call, int status)
{
    PyObject *args = Py_BuildValue("(nsi)", instance, call, status);
    if (args != NULL) {
        PyErr_SetObject(FMICallError, args);
        Py_DECREF(args);
    }
    self->error_instance = instance;
    return -1;
}

/* Marks each instance's first and last op: its time and states are set right before the
 * first, and its derivatives read right after the last (its inputs are all set by then), so
 * that one instance's memory is touched while it is in the processor's caches (a swarm goes
 * vehicle by vehicle, not in passes over all instances). */
/* Bytes of an op's arrays, each rounded up to whole doubles. */
static size_t op_bytes(const Op *op)
{
    size_t n = (size_t)op->n, m = (size_t)op->n_terms, words = (n + 1) / 2;
    if (op->kind == OP_WRITE) /* values, starts, sources, factors, offsets */
        words += n + (n + 2) / 2 + (m + 1) / 2 + m + n;
    return words * sizeof(double);
}

static void *carve(char **cursor, const void *from, size_t count, size_t size)
{
    void *to = *cursor;
    memcpy(to, from, count * size);
    *cursor += (count * size + sizeof(double) - 1) / sizeof(double) * sizeof(double);
    return to;
}

static void free_op_arrays(Op *op)
{
    if (op->packed)
        return;
    PyMem_Free(op->vr);
    PyMem_Free(op->values);
    PyMem_Free(op->starts);
    PyMem_Free(op->sources);
    PyMem_Free(op->factors);
    PyMem_Free(op->offsets);
}

/* Moves the ops' arrays into one new arena in op order; -1 with MemoryError. */
static int pack_ops(Kernel *self)
{
    size_t total = 0;
    for (Py_ssize_t o = 0; o < self->n_ops; o++)
        total += op_bytes(&self->ops[o]);
    char *arena = PyMem_Malloc(total ? total : 1), *cursor = arena;
    if (arena == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t o = 0; o < self->n_ops; o++) {
        Op *op = &self->ops[o], moved = *op;
        size_t n = (size_t)op->n, m = (size_t)op->n_terms;
        moved.vr = carve(&cursor, op->vr, n, sizeof(uint32_t));
        moved.values = NULL; /* a read's values go to the signal buffer */
        if (op->kind == OP_WRITE) {
            moved.values = carve(&cursor, op->values, n, sizeof(double));
            moved.starts = carve(&cursor, op->starts, n + 1, sizeof(uint32_t));
            moved.sources = carve(&cursor, op->sources, m, sizeof(uint32_t));
            moved.factors = carve(&cursor, op->factors, m, sizeof(double));
            moved.offsets = carve(&cursor, op->offsets, n, sizeof(double));
        }
        moved.packed = true;
        free_op_arrays(op);
        *op = moved;
    }
    PyMem_Free(self->arena);
    self->arena = arena;
    return 0;
}

static Py_ssize_t root(Py_ssize_t *parent, Py_ssize_t i)
{
    while (parent[i] != i)
        i = parent[i] = parent[parent[i]];
    return i;
}

/* The groups of instances linked by signals (union-find over each write's sources), each
 * numbered by its first op (instances no op reaches after them, one group each); no groups
 * (n_groups 0) unless every group's ops are contiguous. -1 with MemoryError. */
static int plan_groups(Kernel *self)
{
    Py_ssize_t n = self->n_instances, n_ops = self->n_ops;
    PyMem_Free(self->group_ops);
    PyMem_Free(self->group_members);
    PyMem_Free(self->members);
    self->group_ops = self->group_members = self->members = NULL;
    self->n_groups = 0;
    Py_ssize_t *parent = PyMem_Calloc((size_t)n + 1, sizeof(Py_ssize_t));
    Py_ssize_t *owner = /* a signal's reader, later an instance's group */
        PyMem_Calloc((size_t)(self->n_signals > n ? self->n_signals : n) + 1, sizeof(Py_ssize_t));
    Py_ssize_t *number = PyMem_Calloc((size_t)n + 1, sizeof(Py_ssize_t));
    self->group_ops = PyMem_Calloc((size_t)(n + 1), sizeof(Py_ssize_t));
    self->group_members = PyMem_Calloc((size_t)(n + 1), sizeof(Py_ssize_t));
    self->members = PyMem_Calloc((size_t)n + 1, sizeof(Py_ssize_t));
    int result = 0;
    if (!parent || !owner || !number || !self->group_ops || !self->group_members ||
        !self->members) {
        PyErr_NoMemory();
        result = -1;
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        parent[i] = i;
    for (Py_ssize_t o = 0; o < n_ops; o++) {
        Op *op = &self->ops[o];
        if (op->kind == OP_READ)
            for (Py_ssize_t j = 0; j < op->n; j++)
                owner[op->signal + j] = op->instance;
    }
    for (Py_ssize_t o = 0; o < n_ops; o++) {
        Op *op = &self->ops[o];
        for (Py_ssize_t s = 0; op->kind == OP_WRITE && s < op->n_terms; s++)
            parent[root(parent, owner[op->sources[s]])] = root(parent, op->instance);
    }
    /* number the groups by their first op; a group met again after another one started
     * is not contiguous */
    for (Py_ssize_t i = 0; i < n; i++)
        number[i] = -1;
    Py_ssize_t groups = 0;
    for (Py_ssize_t o = 0; o < n_ops; o++) {
        Py_ssize_t r = root(parent, self->ops[o].instance);
        if (number[r] < 0) {
            number[r] = groups;
            self->group_ops[groups++] = o;
        } else if (number[r] != groups - 1) {
            goto done; /* not contiguous: one group, the whole system */
        }
    }
    for (Py_ssize_t i = 0; i < n; i++) { /* those no op reaches: empty op ranges */
        Py_ssize_t r = root(parent, i);
        if (number[r] < 0) {
            number[r] = groups;
            self->group_ops[groups++] = n_ops;
        }
    }
    self->group_ops[groups] = n_ops;
    for (Py_ssize_t i = 0; i < n; i++)
        owner[i] = number[root(parent, i)]; /* reused: each instance's group */
    /* members by group (a counting sort), each group's in instance order */
    for (Py_ssize_t i = 0; i < n; i++)
        self->group_members[owner[i] + 1]++;
    for (Py_ssize_t g = 0; g < groups; g++)
        self->group_members[g + 1] += self->group_members[g];
    for (Py_ssize_t g = 0; g < groups; g++)
        parent[g] = self->group_members[g]; /* reused: the next place in each group */
    for (Py_ssize_t i = 0; i < n; i++)
        self->members[parent[owner[i]]++] = i;
    self->n_groups = groups;
done:
    PyMem_Free(parent);
    PyMem_Free(owner);
    PyMem_Free(number);
    return result;
}

static int plan_derivatives(Kernel *self)
{
    if (pack_ops(self) < 0 || plan_groups(self) < 0)
        return -1;
    for (Py_ssize_t i = 0; i < self->n_instances; i++)
        self->instances[i].derived_early = self->instances[i].set_late = false;
    for (Py_ssize_t o = self->n_ops - 1; o >= 0; o--) {
        Instance *in = &self->instances[self->ops[o].instance];
        self->ops[o].last = in->n && !in->derived_early;
        in->derived_early = in->derived_early || in->n;
    }
    for (Py_ssize_t o = 0; o < self->n_ops; o++) {
        Instance *in = &self->instances[self->ops[o].instance];
        self->ops[o].first = !in->set_late;
        in->set_late = true;
    }
    self->planned = true;
    return 0;
}

/* Time and states of instance i. */
static int set_time_and_states(Kernel *self, Py_ssize_t i, double t, const double *x)
{
    Instance *in = &self->instances[i];
    mark(self, i, C_SET_TIME);
    int status = in->set_time(in->handle, t);
    if (status > 1)
        return call_failed(self, i, "SetTime", status);
    if (in->n) {
        mark(self, i, C_SET_STATES);
        status = in->set_states(in->handle, x + in->offset, (size_t)in->n);
        if (status > 1)
            return call_failed(self, i, "SetContinuousStates", status);
    }
    return 0;
}

static int get_derivatives(Kernel *self, Py_ssize_t i, double *dx)
{
    Instance *in = &self->instances[i];
    mark(self, i, C_GET_DERIVATIVES);
    int status = in->get_derivatives(in->handle, dx + in->offset, (size_t)in->n);
    if (status > 1)
        return call_failed(self, i, in->fmi3 ? "GetContinuousStateDerivatives" : "GetDerivatives",
                           status);
    return 0;
}

/* The ops [begin, end) at time t and state x: the instances' time and states set before
 * their first op, their derivatives read into dx after their last. */
static int run_ops(Kernel *self, Py_ssize_t begin, Py_ssize_t end, double t, const double *x,
                   double *dx)
{
    int status;
    for (Py_ssize_t o = begin; o < end; o++) {
        Op *op = &self->ops[o];
        Instance *in = &self->instances[op->instance];
        if (op->first && set_time_and_states(self, op->instance, t, x) < 0)
            return -1;
        if (op->kind == OP_READ) {
            double *target = self->signals + op->signal;
            mark(self, op->instance, C_GET_REAL);
            if (in->fmi3)
                status = ((real3_fn)in->get_real)(in->handle, op->vr, (size_t)op->n, target,
                                                  (size_t)op->n);
            else
                status = ((real2_fn)in->get_real)(in->handle, op->vr, (size_t)op->n, target);
            if (status > 1)
                return call_failed(self, op->instance, in->fmi3 ? "GetFloat64" : "GetReal",
                                   status);
        } else {
            /* a plain sum adds the same values as the general one: 0 + 1 * s is s exactly */
            for (Py_ssize_t j = 0; j < op->n; j++) {
                double sum = op->plain ? 0.0 : op->offsets[j];
                if (op->plain)
                    for (uint32_t s = op->starts[j]; s < op->starts[j + 1]; s++)
                        sum += self->signals[op->sources[s]];
                else
                    for (uint32_t s = op->starts[j]; s < op->starts[j + 1]; s++)
                        sum += op->factors[s] * self->signals[op->sources[s]];
                op->values[j] = sum;
            }
            mark(self, op->instance, C_SET_REAL);
            if (in->fmi3)
                status = ((real3_fn)in->set_real)(in->handle, op->vr, (size_t)op->n, op->values,
                                                  (size_t)op->n);
            else
                status = ((real2_fn)in->set_real)(in->handle, op->vr, (size_t)op->n, op->values);
            if (status > 1)
                return call_failed(self, op->instance, in->fmi3 ? "SetFloat64" : "SetReal",
                                   status);
        }
        if (op->last && get_derivatives(self, op->instance, dx) < 0)
            return -1;
    }
    return 0;
}

/* Instance i reached by no op: its time and states (before its group's ops). */
static int set_unreached(Kernel *self, Py_ssize_t i, double t, const double *x)
{
    return self->instances[i].set_late ? 0 : set_time_and_states(self, i, t, x);
}

/* Instance i reached by no op: its derivatives (after its group's ops). */
static int derive_unreached(Kernel *self, Py_ssize_t i, double *dx)
{
    Instance *in = &self->instances[i];
    return in->n && !in->derived_early ? get_derivatives(self, i, dx) : 0;
}

/* One evaluation of the system: derivatives of the state x at time t into dx. */
static int evaluate(Kernel *self, double t, const double *x, double *dx)
{
    if (!self->planned && plan_derivatives(self) < 0)
        return -1;
    for (Py_ssize_t i = 0; i < self->n_instances; i++)
        if (set_unreached(self, i, t, x) < 0)
            return -1;
    if (run_ops(self, 0, self->n_ops, t, x, dx) < 0)
        return -1;
    for (Py_ssize_t i = 0; i < self->n_instances; i++)
        if (derive_unreached(self, i, dx) < 0)
            return -1;
    self->evaluations++;
    return 0;
}

/* The derivatives of group g's instances alone (see Kernel) at (t, x) into dx: the other
 * groups' entries of x are not read, those of dx not written. */
static int evaluate_group(Kernel *self, Py_ssize_t g, double t, const double *x, double *dx)
{
    const Py_ssize_t *member = self->members + self->group_members[g];
    Py_ssize_t count = self->group_members[g + 1] - self->group_members[g];
    for (Py_ssize_t m = 0; m < count; m++)
        if (set_unreached(self, member[m], t, x) < 0)
            return -1;
    if (run_ops(self, self->group_ops[g], self->group_ops[g + 1], t, x, dx) < 0)
        return -1;
    for (Py_ssize_t m = 0; m < count; m++)
        if (derive_unreached(self, member[m], dx) < 0)
            return -1;
    return 0;
}

/* Evaluation inside an integrator: through the stage buffers, then the callable (if any). */
static int stage_rate(Kernel *self, double t, const double *x, double *k, PyObject *post)
{
    memcpy(self->stage, x, (size_t)self->n_states * sizeof(double));
    if (evaluate(self, t, self->stage, self->rate) < 0)
        return -1;
    if (coupling_compiled(post)) {
        if (coupling_apply(post, self->stage, self->rate, self->n_states) < 0)
            return -1;
    } else if (post != Py_None) {
        PyObject *result =
            PyObject_CallFunctionObjArgs(post, self->stage_array, self->rate_array, NULL);
        if (result == NULL)
            return -1;
        Py_DECREF(result);
    }
    memcpy(k, self->rate, (size_t)self->n_states * sizeof(double));
    return 0;
}

/* Add instance i's answer to the event flags (see the top of this file). */
static void flag_event(int *event, Py_ssize_t i, bool enter, bool terminate)
{
    if (enter)
        *event |= 1;
    if (terminate && !(*event & 2))
        *event |= 2 | (int)(i << 2);
}

/* After an accepted step at time t: report it to the FMUs and check the state is finite. */
static int accept_step(Kernel *self, double t, const double *x, int *event)
{
    for (Py_ssize_t i = 0; i < self->n_instances; i++) {
        Instance *in = &self->instances[i];
        int status;
        if (in->completed == NULL)
            continue;
        mark(self, i, C_COMPLETED);
        if (in->fmi3) {
            bool enter = false, terminate = false;
            status = ((completed3_fn)in->completed)(in->handle, true, &enter, &terminate);
            flag_event(event, i, enter, terminate);
        } else {
            int enter = 0, terminate = 0;
            status = ((completed2_fn)in->completed)(in->handle, 1, &enter, &terminate);
            flag_event(event, i, enter != 0, terminate != 0);
        }
        if (status > 1)
            return call_failed(self, i, "CompletedIntegratorStep", status);
    }
    for (Py_ssize_t j = 0; j < self->n_states; j++) {
        if (!isfinite(x[j])) {
            PyObject *args = Py_BuildValue("(dn)", t, j);
            if (args != NULL) {
                PyErr_SetObject(DivergenceError, args);
                Py_DECREF(args);
            }
            return -1;
        }
    }
    self->steps++;
    return PyErr_CheckSignals(); /* Ctrl-C reaches Python between steps */
}

/* ---------------------------------------------------------------------------------------- */
/* set-up                                                                                   */

static void Kernel_dealloc(Kernel *self)
{
    for (Py_ssize_t o = 0; o < self->n_ops; o++)
        free_op_arrays(&self->ops[o]);
    PyMem_Free(self->ops);
    PyMem_Free(self->arena);
    PyMem_Free(self->group_ops);
    PyMem_Free(self->group_members);
    PyMem_Free(self->members);
    PyMem_Free(self->instances);
    PyMem_Free(self->signals);
    PyMem_Free(self->work);
    PyMem_Free(self->crumb_codes);
    Py_XDECREF(self->stage_array);
    Py_XDECREF(self->rate_array);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static double *writable_doubles(PyObject *array, Py_ssize_t n, const char *what)
{
    return doubles(array, n, what, 1);
}

static int Kernel_init(Kernel *self, PyObject *args, PyObject *kwds)
{
    static char *keywords[] = {"n_states", "n_signals", "stage", "rate", NULL};
    Py_ssize_t n_states, n_signals;
    PyObject *stage, *rate;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "nnOO", keywords, &n_states, &n_signals,
                                     &stage, &rate))
        return -1;
    if (n_states < 0 || n_signals < 0 || n_signals > UINT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "negative size, or more signals than 32-bit indices");
        return -1;
    }
    self->n_states = n_states;
    self->stage = writable_doubles(stage, n_states, "stage");
    self->rate = writable_doubles(rate, n_states, "rate");
    if (self->stage == NULL || self->rate == NULL)
        return -1;
    Py_INCREF(stage);
    Py_INCREF(rate);
    self->stage_array = stage;
    self->rate_array = rate;
    self->n_signals = n_signals;
    self->signals = PyMem_Calloc((size_t)(n_signals ? n_signals : 1), sizeof(double));
    size_t rows = 7 + 3 + 5;
    self->work = PyMem_Calloc(rows * (size_t)(n_states ? n_states : 1), sizeof(double));
    if (self->signals == NULL || self->work == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (int s = 0; s < 7; s++)
        self->k[s] = self->work + s * n_states;
    self->x = self->work + 7 * n_states;
    self->trial = self->work + 8 * n_states;
    self->x_new = self->work + 9 * n_states;
    self->dense = self->work + 10 * n_states;
    return 0;
}

static PyObject *Kernel_add_instance(Kernel *self, PyObject *args)
{
    int fmi3;
    unsigned long long handle, set_time, set_states, get_derivatives, get_real, set_real,
        completed;
    Py_ssize_t offset, n;
    if (!PyArg_ParseTuple(args, "pKKKKKKKnn", &fmi3, &handle, &set_time, &set_states,
                          &get_derivatives, &get_real, &set_real, &completed, &offset, &n))
        return NULL;
    if (offset < 0 || n < 0 || offset + n > self->n_states) {
        PyErr_SetString(PyExc_ValueError, "state slice outside the state vector");
        return NULL;
    }
    Instance *grown =
        PyMem_Realloc(self->instances, (size_t)(self->n_instances + 1) * sizeof(Instance));
    if (grown == NULL)
        return PyErr_NoMemory();
    self->instances = grown;
    Instance *in = &self->instances[self->n_instances];
    in->fmi3 = fmi3;
    in->handle = (void *)(uintptr_t)handle;
    in->set_time = (set_time_fn)(uintptr_t)set_time;
    in->set_states = (set_states_fn)(uintptr_t)set_states;
    in->get_derivatives = (get_derivatives_fn)(uintptr_t)get_derivatives;
    in->get_real = (void *)(uintptr_t)get_real;
    in->set_real = (void *)(uintptr_t)set_real;
    in->completed = (void *)(uintptr_t)completed;
    in->offset = offset;
    in->n = n;
    self->planned = false;
    return PyLong_FromSsize_t(self->n_instances++);
}

static int index_list(PyObject *sequence, Py_ssize_t *n, uint32_t **out, Py_ssize_t lo,
                      Py_ssize_t hi, const char *what)
{
    PyObject *fast = PySequence_Fast(sequence, what);
    if (fast == NULL)
        return -1;
    *n = PySequence_Fast_GET_SIZE(fast);
    *out = PyMem_Calloc((size_t)(*n ? *n : 1), sizeof(uint32_t));
    if (*out == NULL) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t j = 0; j < *n; j++) {
        Py_ssize_t v = PyLong_AsSsize_t(PySequence_Fast_GET_ITEM(fast, j));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        if (v < lo || v > hi) {
            Py_DECREF(fast);
            PyErr_Format(PyExc_ValueError, "%s: index %zd outside [%zd, %zd]", what, v, lo, hi);
            return -1;
        }
        (*out)[j] = (uint32_t)v;
    }
    Py_DECREF(fast);
    return 0;
}

static int float_list(PyObject *sequence, Py_ssize_t n, double **out, const char *what)
{
    PyObject *fast = PySequence_Fast(sequence, what);
    if (fast == NULL)
        return -1;
    if (PySequence_Fast_GET_SIZE(fast) != n) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "%s: expected %zd values", what, n);
        return -1;
    }
    *out = PyMem_Calloc((size_t)(n ? n : 1), sizeof(double));
    if (*out == NULL) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t j = 0; j < n; j++) {
        (*out)[j] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(fast, j));
        if ((*out)[j] == -1.0 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
    }
    Py_DECREF(fast);
    return 0;
}

static Op *new_op(Kernel *self, int kind, Py_ssize_t instance, PyObject *references)
{
    if (instance < 0 || instance >= self->n_instances) {
        PyErr_SetString(PyExc_ValueError, "unknown instance");
        return NULL;
    }
    Op *grown = PyMem_Realloc(self->ops, (size_t)(self->n_ops + 1) * sizeof(Op));
    if (grown == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    self->ops = grown;
    Op *op = &self->ops[self->n_ops];
    memset(op, 0, sizeof(Op));
    op->kind = kind;
    op->instance = instance;
    if (index_list(references, &op->n, &op->vr, 0, UINT32_MAX, "value references") < 0) {
        PyMem_Free(op->vr);
        return NULL;
    }
    op->values = PyMem_Calloc((size_t)(op->n ? op->n : 1), sizeof(double));
    if (op->values == NULL) {
        PyMem_Free(op->vr);
        PyErr_NoMemory();
        return NULL;
    }
    self->n_ops++;
    self->planned = false;
    return op;
}

static PyObject *Kernel_add_read(Kernel *self, PyObject *args)
{
    Py_ssize_t instance, signal;
    PyObject *references;
    if (!PyArg_ParseTuple(args, "nOn", &instance, &references, &signal))
        return NULL;
    Op *op = new_op(self, OP_READ, instance, references);
    if (op == NULL)
        return NULL;
    op->signal = signal;
    if (signal < 0 || signal + op->n > self->n_signals) {
        self->n_ops--;
        PyMem_Free(op->vr);
        PyMem_Free(op->values);
        PyErr_SetString(PyExc_ValueError, "read outside the signal buffer");
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *Kernel_add_write(Kernel *self, PyObject *args)
{
    Py_ssize_t instance;
    PyObject *references, *starts, *sources, *factors, *offsets;
    if (!PyArg_ParseTuple(args, "nOOOOO", &instance, &references, &starts, &sources, &factors,
                          &offsets))
        return NULL;
    Op *op = new_op(self, OP_WRITE, instance, references);
    if (op == NULL)
        return NULL;
    Py_ssize_t n_starts, n_sources;
    int bad = index_list(sources, &n_sources, &op->sources, 0, self->n_signals - 1, "sources");
    if (!bad)
        bad = index_list(starts, &n_starts, &op->starts, 0, n_sources, "starts");
    if (!bad && n_sources > UINT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "sources: more than 32-bit indices");
        bad = -1;
    }
    if (!bad && n_starts != op->n + 1) {
        PyErr_SetString(PyExc_ValueError, "starts: expected one more entry than references");
        bad = -1;
    }
    for (Py_ssize_t j = 0; !bad && j < op->n; j++) {
        if (op->starts[j] > op->starts[j + 1]) {
            PyErr_SetString(PyExc_ValueError, "starts: not increasing");
            bad = -1;
        }
    }
    if (!bad)
        bad = float_list(factors, n_sources, &op->factors, "factors");
    if (!bad)
        bad = float_list(offsets, op->n, &op->offsets, "offsets");
    op->n_terms = n_sources;
    op->plain = true;
    for (Py_ssize_t s = 0; !bad && s < n_sources; s++)
        op->plain = op->plain && op->factors[s] == 1.0;
    for (Py_ssize_t j = 0; !bad && j < op->n; j++)
        op->plain = op->plain && op->offsets[j] == 0.0 && !signbit(op->offsets[j]);
    if (bad) {
        PyMem_Free(op->factors);
        PyMem_Free(op->offsets);
        self->n_ops--;
        PyMem_Free(op->vr);
        PyMem_Free(op->values);
        PyMem_Free(op->starts);
        PyMem_Free(op->sources);
        return NULL;
    }
    Py_RETURN_NONE;
}

/* ---------------------------------------------------------------------------------------- */
/* evaluation                                                                               */

static PyObject *Kernel_derivatives(Kernel *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 && nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "derivatives(time, x, dx[, repeat])");
        return NULL;
    }
    long repeat = nargs == 4 ? PyLong_AsLong(args[3]) : 1;
    if (repeat == -1 && PyErr_Occurred())
        return NULL;
    double t = PyFloat_AsDouble(args[0]);
    if (t == -1.0 && PyErr_Occurred())
        return NULL;
    const double *x = doubles(args[1], self->n_states, "x", 0); /* may be read-only */
    double *dx = x == NULL ? NULL : writable_doubles(args[2], self->n_states, "dx");
    if (dx == NULL)
        return NULL;
    for (long r = 0; r < repeat; r++) {
        if (evaluate(self, t, x, dx) < 0)
            return NULL;
    }
    Py_RETURN_NONE;
}

/* ---------------------------------------------------------------------------------------- */
/* RK4                                                                                      */

static PyObject *Kernel_rk4(Kernel *self, PyObject *args)
{
    double t0, t1, step;
    PyObject *state, *post;
    if (!PyArg_ParseTuple(args, "ddOdO", &t0, &t1, &state, &step, &post))
        return NULL;
    Py_ssize_t n = self->n_states;
    double *x = writable_doubles(state, n, "x");
    if (x == NULL)
        return NULL;
    long count = (long)ceil((t1 - t0) / step - 1e-9);
    if (count < 1)
        count = 1;
    double h = (t1 - t0) / count, t = t0, half = h / 2, sixth = h / 6;
    double *k1 = self->k[0], *k2 = self->k[1], *k3 = self->k[2], *k4 = self->k[3];
    double *y = self->x_new;
    int event = 0;
    for (long s = 0; s < count; s++) {
        if (stage_rate(self, t, x, k1, post) < 0)
            return NULL;
        for (Py_ssize_t j = 0; j < n; j++)
            y[j] = x[j] + half * k1[j];
        if (stage_rate(self, t + half, y, k2, post) < 0)
            return NULL;
        for (Py_ssize_t j = 0; j < n; j++)
            y[j] = x[j] + half * k2[j];
        if (stage_rate(self, t + half, y, k3, post) < 0)
            return NULL;
        for (Py_ssize_t j = 0; j < n; j++)
            y[j] = x[j] + h * k3[j];
        if (stage_rate(self, t + h, y, k4, post) < 0)
            return NULL;
        for (Py_ssize_t j = 0; j < n; j++)
            x[j] = x[j] + sixth * (k1[j] + 2 * k2[j] + 2 * k3[j] + k4[j]);
        t += h;
        if (accept_step(self, t, x, &event) < 0)
            return NULL;
        if (event & 2)
            return Py_BuildValue("(di)", t, event);
    }
    return Py_BuildValue("(di)", t1, event);
}

/* ---------------------------------------------------------------------------------------- */
/* Dormand-Prince 5(4) with dense output                                                    */

static const double STAGE_TIMES[5] = {0.0, 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9}; /* c1 .. c5 */
static const double A21 = 1.0 / 5;
static const double A31 = 3.0 / 40, A32 = 9.0 / 40;
static const double A41 = 44.0 / 45, A42 = -56.0 / 15, A43 = 32.0 / 9;
static const double A51 = 19372.0 / 6561, A52 = -25360.0 / 2187, A53 = 64448.0 / 6561,
                    A54 = -212.0 / 729;
static const double A61 = 9017.0 / 3168, A62 = -355.0 / 33, A63 = 46732.0 / 5247,
                    A64 = 49.0 / 176, A65 = -5103.0 / 18656;
static const double A71 = 35.0 / 384, A73 = 500.0 / 1113, A74 = 125.0 / 192,
                    A75 = -2187.0 / 6784, A76 = 11.0 / 84;
static const double E1 = 71.0 / 57600, E3 = -71.0 / 16695, E4 = 71.0 / 1920,
                    E5 = -17253.0 / 339200, E6 = 22.0 / 525, E7 = -1.0 / 40;
static const double D1 = -12715105075.0 / 11282082432, D3 = 87487479700.0 / 32700410799,
                    D4 = -10690763975.0 / 1880347072, D5 = 701980252875.0 / 199316789632,
                    D6 = -1453857185.0 / 822651844, D7 = 69997945.0 / 29380423;

static PyObject *Kernel_dopri_reset(Kernel *self, PyObject *args)
{
    double t, h;
    PyObject *state;
    if (!PyArg_ParseTuple(args, "dOd", &t, &state, &h))
        return NULL;
    double *x = writable_doubles(state, self->n_states, "x");
    if (x == NULL)
        return NULL;
    if (!(h > 0) || !isfinite(h)) {
        PyErr_SetString(PyExc_ValueError, "first step must be positive and finite");
        return NULL;
    }
    memcpy(self->x, x, (size_t)self->n_states * sizeof(double));
    self->t = t;
    self->h = h;
    self->first_stage_valid = false;
    self->has_dense = false;
    Py_RETURN_NONE;
}

static void dense_value(Kernel *self, double t, double *out)
{
    Py_ssize_t n = self->n_states;
    double theta = (t - self->t_old) / self->h_used, theta1 = 1 - theta;
    double *r = self->dense;
    for (Py_ssize_t j = 0; j < n; j++)
        out[j] = r[j] + theta * (r[n + j] + theta1 * (r[2 * n + j] +
                                                     theta * (r[3 * n + j] +
                                                              theta1 * r[4 * n + j])));
}

/* Argument of stage s (1 to 6; 6: the 5th-order solution) of a step of size h from x, over
 * the states [lo, hi). */
static void stage_argument(int s, double h, const double *x, double *const *k, double *out,
                           Py_ssize_t lo, Py_ssize_t hi)
{
    for (Py_ssize_t j = lo; j < hi; j++) {
        switch (s) {
        case 1:
            out[j] = x[j] + h * A21 * k[0][j];
            break;
        case 2:
            out[j] = x[j] + h * (A31 * k[0][j] + A32 * k[1][j]);
            break;
        case 3:
            out[j] = x[j] + h * (A41 * k[0][j] + A42 * k[1][j] + A43 * k[2][j]);
            break;
        case 4:
            out[j] = x[j] + h * (A51 * k[0][j] + A52 * k[1][j] + A53 * k[2][j] + A54 * k[3][j]);
            break;
        case 5:
            out[j] = x[j] + h * (A61 * k[0][j] + A62 * k[1][j] + A63 * k[2][j] +
                                 A64 * k[3][j] + A65 * k[4][j]);
            break;
        default:
            out[j] = x[j] + h * (A71 * k[0][j] + A73 * k[2][j] + A74 * k[3][j] +
                                 A75 * k[4][j] + A76 * k[5][j]);
        }
    }
}

/* One attempt at a step of size h from (self->t, self->x); returns the error norm.
 *
 * Without a post-process, groups of instances that share no signal (see Kernel) are stepped
 * one after the other, all seven stages of one group before the next group: the stages of
 * one group read nothing of the others, so every stage value is the one a pass over the whole
 * system gives, bit for bit, while one group's memory (its FMU instances, ops and states)
 * stays in the processor's caches through its stages. The error norm and the step size stay
 * those of the whole system (one integrator, one step size). */
static int dopri_attempt(Kernel *self, double h, double rtol, double atol, PyObject *post,
                         double *error)
{
    Py_ssize_t n = self->n_states;
    double t = self->t, *x = self->x, *y = self->x_new, **k = self->k;
    double *z = self->trial; /* argument of the inner stages */
    if (!self->planned && plan_derivatives(self) < 0)
        return -1;
    bool whole = post != Py_None || self->n_groups < 2;
    int first = self->first_stage_valid ? 1 : 0;
    for (Py_ssize_t g = 0; g < (whole ? 1 : self->n_groups); g++) {
        for (int s = first; s < 7; s++) {
            double *argument = s == 0 ? x : s == 6 ? y : z;
            double at = s == 0 ? t : s >= 5 ? t + h : t + STAGE_TIMES[s] * h;
            if (whole) {
                if (s > 0)
                    stage_argument(s, h, x, k, argument, 0, n);
                if (stage_rate(self, at, argument, k[s], post) < 0)
                    return -1;
                continue;
            }
            for (Py_ssize_t m = self->group_members[g]; s > 0 && m < self->group_members[g + 1];
                 m++) {
                Instance *in = &self->instances[self->members[m]];
                stage_argument(s, h, x, k, argument, in->offset, in->offset + in->n);
            }
            if (evaluate_group(self, g, at, argument, k[s]) < 0)
                return -1;
        }
    }
    if (!whole)
        self->evaluations += 7 - first;
    self->first_stage_valid = true;
    double sum = 0.0;
    for (Py_ssize_t j = 0; j < n; j++) {
        double e = h * (E1 * k[0][j] + E3 * k[2][j] + E4 * k[3][j] + E5 * k[4][j] +
                        E6 * k[5][j] + E7 * k[6][j]);
        double scale = atol + rtol * fmax(fabs(x[j]), fabs(y[j]));
        sum += (e / scale) * (e / scale);
    }
    *error = n ? sqrt(sum / n) : 0.0;
    if (!isfinite(*error))
        *error = INFINITY;
    return 0;
}

static PyObject *Kernel_dopri_advance(Kernel *self, PyObject *args)
{
    double target, stop, rtol, atol, max_step;
    PyObject *out_array, *post;
    long max_steps = 0;
    if (!PyArg_ParseTuple(args, "ddOdddO|l", &target, &stop, &out_array, &rtol, &atol,
                          &max_step, &post, &max_steps))
        return NULL;
    Py_ssize_t n = self->n_states;
    double *out = writable_doubles(out_array, n, "out");
    if (out == NULL)
        return NULL;
    const double safety = 0.9, min_factor = 0.2, max_factor = 10.0;
    int event = 0;
    long taken = 0;
    while (self->t < target && (max_steps <= 0 || taken < max_steps)) {
        taken++;
        double h = fmin(self->h, max_step), error;
        bool last = false;
        if (self->t + 1.0001 * h >= stop) { /* no sliver of a step before stop */
            h = stop - self->t;
            last = true;
        }
        bool rejected_before = false;
        for (;;) {
            if (h < 1e-14 * fmax(1.0, fabs(self->t))) {
                char message[160]; /* PyErr_Format has no floating-point conversions */
                snprintf(message, sizeof message,
                         "step size too small (%g s) at t = %.9g s: the problem is stiff "
                         "or diverging",
                         h, self->t);
                PyErr_SetString(PyExc_RuntimeError, message);
                return NULL;
            }
            if (dopri_attempt(self, h, rtol, atol, post, &error) < 0)
                return NULL;
            if (error <= 1.0)
                break;
            self->rejected++;
            double factor = isfinite(error)
                                ? fmax(min_factor, safety * pow(error, -0.2))
                                : min_factor;
            h *= factor;
            last = false;
            rejected_before = true;
        }
        /* dense output of the accepted step, Hairer's CONTD5 coefficients */
        double *r = self->dense, **k = self->k, *x = self->x, *y = self->x_new;
        for (Py_ssize_t j = 0; j < n; j++) {
            double difference = y[j] - x[j], bspl = h * k[0][j] - difference;
            r[j] = x[j];
            r[n + j] = difference;
            r[2 * n + j] = bspl;
            r[3 * n + j] = difference - h * k[6][j] - bspl;
            r[4 * n + j] = h * (D1 * k[0][j] + D3 * k[2][j] + D4 * k[3][j] + D5 * k[4][j] +
                                D6 * k[5][j] + D7 * k[6][j]);
        }
        self->t_old = self->t;
        self->h_used = h;
        self->has_dense = true;
        self->t = last ? stop : self->t + h;
        memcpy(self->x, y, (size_t)n * sizeof(double));
        memcpy(k[0], k[6], (size_t)n * sizeof(double)); /* first same as last */
        double factor = error > 0 ? fmin(max_factor, safety * pow(error, -0.2)) : max_factor;
        if (rejected_before)
            factor = fmin(factor, 1.0);
        if (!last || factor < 1.0)
            self->h = h * factor;
        if (accept_step(self, self->t, self->x, &event) < 0)
            return NULL;
        if (event)
            break;
    }
    if ((event & 2) || self->t == target || !self->has_dense || target > self->t)
        memcpy(out, self->x, (size_t)n * sizeof(double));
    else
        dense_value(self, target, out);
    return Py_BuildValue("(di)", self->t, event);
}

static PyObject *Kernel_dopri_dense(Kernel *self, PyObject *args)
{
    double t;
    PyObject *out_array;
    if (!PyArg_ParseTuple(args, "dO", &t, &out_array))
        return NULL;
    double *out = writable_doubles(out_array, self->n_states, "out");
    if (out == NULL)
        return NULL;
    if (!self->has_dense || t < self->t_old || t > self->t) {
        char message[80];
        snprintf(message, sizeof message, "t = %.9g s is outside the last step", t);
        PyErr_SetString(PyExc_ValueError, message);
        return NULL;
    }
    if (t == self->t)
        memcpy(out, self->x, (size_t)self->n_states * sizeof(double));
    else
        dense_value(self, t, out);
    Py_RETURN_NONE;
}

static PyObject *Kernel_dopri_state(Kernel *self, PyObject *Py_UNUSED(ignored))
{
    return Py_BuildValue("(dd)", self->t, self->h);
}

static PyObject *Kernel_watch(Kernel *self, PyObject *args)
{
    unsigned long long address;
    PyObject *codes;
    double *table = NULL;
    if (!PyArg_ParseTuple(args, "KO", &address, &codes))
        return NULL;
    if (float_list(codes, self->n_instances * N_CALLS, &table, "codes") < 0) {
        PyMem_Free(table);
        return NULL;
    }
    PyMem_Free(self->crumb_codes);
    self->crumb_codes = table;
    self->crumb = (volatile double *)(uintptr_t)address;
    Py_RETURN_NONE;
}

static PyObject *Kernel_counters(Kernel *self, PyObject *Py_UNUSED(ignored))
{
    return Py_BuildValue("(LLL)", self->evaluations, self->steps, self->rejected);
}

static PyMethodDef Kernel_methods[] = {
    {"add_instance", (PyCFunction)Kernel_add_instance, METH_VARARGS,
     "add_instance(fmi3, handle, set_time, set_states, get_derivatives, get_real, set_real, "
     "completed, offset, n) -> index: an FMU instance given by its C handle and function "
     "addresses, with its slice of the state vector"},
    {"add_read", (PyCFunction)Kernel_add_read, METH_VARARGS,
     "add_read(instance, value_references, signal): read Float64 outputs into the signal "
     "buffer from entry `signal` on"},
    {"add_write", (PyCFunction)Kernel_add_write, METH_VARARGS,
     "add_write(instance, value_references, starts, sources, factors, offsets): set Float64 "
     "inputs, each offsets[j] + the sum of factors[s] * signal[sources[s]] over s in "
     "starts[j]:starts[j+1]"},
    {"derivatives", (PyCFunction)(void (*)(void))Kernel_derivatives, METH_FASTCALL,
     "derivatives(time, x, dx[, repeat]): one right-hand side of the system into dx (repeated "
     "`repeat` times in C: the floor the benchmarks compare with)"},
    {"rk4", (PyCFunction)Kernel_rk4, METH_VARARGS,
     "rk4(t0, t1, x, step, post) -> (t, event flags): classic RK4 from t0 to t1 in equal "
     "steps no longer than `step` (t = t1, or the end of a step where an FMU asked to "
     "terminate), x updated in place; post(x, dx) (or None) after every evaluation"},
    {"dopri_reset", (PyCFunction)Kernel_dopri_reset, METH_VARARGS,
     "dopri_reset(t, x, h): start (or restart after an input jump) the Dormand-Prince "
     "integrator at (t, x) with trial step h"},
    {"dopri_advance", (PyCFunction)Kernel_dopri_advance, METH_VARARGS,
     "dopri_advance(target, stop, out, rtol, atol, max_step, post[, max_steps]) -> (t, event "
     "flags): step until t >= target (or max_steps steps), never past stop; out = x(target) by "
     "dense output, or x(t) where it stopped short or an FMU asked to terminate"},
    {"dopri_dense", (PyCFunction)Kernel_dopri_dense, METH_VARARGS,
     "dopri_dense(t, out): out = x(t) by the dense output of the last accepted step"},
    {"dopri_state", (PyCFunction)Kernel_dopri_state, METH_NOARGS,
     "dopri_state() -> (t, h): time reached and next trial step"},
    {"watch", (PyCFunction)Kernel_watch, METH_VARARGS,
     "watch(address, codes): before every FMI call store codes[instance * 6 + call] (calls: "
     "SetTime, SetContinuousStates, GetDerivatives, GetReal, SetReal, CompletedIntegratorStep) "
     "in the double at `address` (shared memory a supervising process reads)"},
    {"counters", (PyCFunction)Kernel_counters, METH_NOARGS,
     "counters() -> (evaluations, accepted steps, rejected steps)"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject KernelType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "orchestrator.native._kernel.Kernel",
    .tp_doc = PyDoc_STR("Compiled right-hand side and integrators of one system"),
    .tp_basicsize = sizeof(Kernel),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Kernel_init,
    .tp_dealloc = (destructor)Kernel_dealloc,
    .tp_methods = Kernel_methods,
};

static struct PyModuleDef kernel_module = {
    PyModuleDef_HEAD_INIT, "_kernel",
    "Compiled inner loop of the strong-coupling master (see the C source's header).", -1, NULL,
};

PyMODINIT_FUNC PyInit__kernel(void)
{
    if (PyType_Ready(&KernelType) < 0)
        return NULL;
    PyObject *module = PyModule_Create(&kernel_module);
    if (module == NULL)
        return NULL;
    if (coupling_add_type(module) < 0 || transfer_add_type(module) < 0 ||
        navigation_add_types(module) < 0 || controllers_add_types(module) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    FMICallError = PyErr_NewException("orchestrator.native._kernel.FMICallError", NULL, NULL);
    DivergenceError = PyErr_NewException("orchestrator.native._kernel.DivergenceError", NULL, NULL);
    Py_INCREF(&KernelType);
    if (PyModule_AddObject(module, "Kernel", (PyObject *)&KernelType) < 0 ||
        PyModule_AddObject(module, "FMICallError", FMICallError) < 0 ||
        PyModule_AddObject(module, "DivergenceError", DivergenceError) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
