/*
 * The master's ticks between those Python must see, in compiled code (``ticks.py``).
 *
 * Between two recording points a run whose controllers are all compiled (law groups) spends
 * every tick in one pattern: the joint signals go onto the bus, the law groups due sample and
 * write their FMU inputs, the motor commands come off the bus, the integrator restarts and
 * steps to the next tick where an input may jump. ``Ticks.run`` repeats that pattern in C,
 * calling the same compiled methods the master's Python loop calls, in the same order with the
 * same arguments, so the numbers are those of the Python loop. Two rare things are handed to
 * Python callables: a law group whose members failed (``on_faults(run, tick)``: the events),
 * and a step after which an FMU asked for event mode or to end the run (``on_flags(tick, jump,
 * reached, flags)``: the strategy finishes that advance; the span ends there). Observers that
 * only leave marks in memory (a supervised run's breadcrumbs) get them at every tick: the
 * tick's stamp, a count of ticks and the right-hand-side evaluations so far.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* A law group sampled every ``period`` ticks from tick ``next``; ``writes`` are the calls
 * (no arguments) that write its FMU inputs after each sample. */
typedef struct {
    PyObject *sample;
    PyObject *writes;
    long long next, period;
} Run;

enum { RK4 = 0, DOPRI = 1 };
enum { ADVANCING = -2 }; /* ``failed``: the integrator's step raised */

typedef struct {
    PyObject_HEAD
    double start, tick, stop; /* the tick grid (s), as protocols.Clock */
    PyObject *x, *bus;        /* the state the ticks work on, the signal bus */
    PyObject *before, *after; /* (callable, args) pairs made at every tick around the samples */
    Run *runs;
    Py_ssize_t n_runs;
    int method;                  /* RK4 or DOPRI */
    PyObject *advance, *restart; /* rk4 / dopri_advance; dopri_reset */
    PyObject *trial;             /* dopri_state: (time, next trial step) */
    PyObject *post;              /* the integrators' post-process */
    double step, rtol, atol, max_step;
    PyObject *on_faults, *on_flags;
    double **marks;       /* per observer: its stamp, tick count and evaluations doubles */
    Py_ssize_t n_marks;
    PyObject *counters;   /* the kernel's counters(): (evaluations, accepted, rejected) */
    long long start_ns, tick_ns; /* stamps in whole nanoseconds (tick_ns 0: off that grid) */
    long long index;     /* the tick being made (or reached) */
    long long jump;      /* the tick the integrator steps to from it */
    Py_ssize_t failed;   /* the call that raised: run * 65536 + write, ADVANCING, or -1 */
} Ticks;

static double tick_time(const Ticks *self, long long k)
{
    double t = self->start + (double)k * self->tick; /* Clock.time */
    return t < self->stop ? t : self->stop;
}

/* protocols.Clock.stamp: whole nanoseconds rounded once to a double where the start is on
 * that grid (the quotient of two doubles holding the integers exactly, correctly rounded as
 * Python's int / int) */
static double tick_stamp(const Ticks *self, long long k)
{
    if (self->tick_ns == 0)
        return tick_time(self, k);
    double stamp = (double)(self->start_ns + k * self->tick_ns) / 1e9;
    return stamp < self->stop ? stamp : self->stop;
}

static void Ticks_clear_runs(Ticks *self)
{
    for (Py_ssize_t r = 0; r < self->n_runs; r++) {
        Py_XDECREF(self->runs[r].sample);
        Py_XDECREF(self->runs[r].writes);
    }
    PyMem_Free(self->runs);
    self->runs = NULL;
    self->n_runs = 0;
}

static void Ticks_dealloc(Ticks *self)
{
    Ticks_clear_runs(self);
    Py_XDECREF(self->x);
    Py_XDECREF(self->bus);
    Py_XDECREF(self->before);
    Py_XDECREF(self->after);
    Py_XDECREF(self->advance);
    Py_XDECREF(self->restart);
    Py_XDECREF(self->trial);
    Py_XDECREF(self->post);
    Py_XDECREF(self->on_faults);
    Py_XDECREF(self->on_flags);
    Py_XDECREF(self->counters);
    PyMem_Free(self->marks);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Every item of ``calls`` a (callable, args tuple) pair; a new reference to it as a tuple. */
static PyObject *call_pairs(PyObject *calls, const char *what)
{
    PyObject *pairs = PySequence_Tuple(calls);
    if (pairs == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(pairs); i++) {
        PyObject *pair = PyTuple_GET_ITEM(pairs, i);
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2 ||
            !PyCallable_Check(PyTuple_GET_ITEM(pair, 0)) ||
            !PyTuple_Check(PyTuple_GET_ITEM(pair, 1))) {
            PyErr_Format(PyExc_TypeError, "%s: expected (callable, args tuple) pairs", what);
            Py_DECREF(pairs);
            return NULL;
        }
    }
    return pairs;
}

/* Ticks(clock, x, bus, before, runs, after, integrator, on_faults, on_flags, marks)
 *   clock = (start, tick, stop, start_ns, tick_ns); runs = [(sample, writes, next, period)];
 *   marks = (counters, [(stamp, count, evaluations) addresses]);
 *   integrator = ("rk4", rk4, step, post) or ("dopri", dopri_state, dopri_reset,
 *   dopri_advance, (rtol, atol, max_step), post) */
static int Ticks_init(Ticks *self, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"clock", "x", "bus", "before", "runs", "after", "integrator",
                               "on_faults", "on_flags", "marks", NULL};
    PyObject *x, *bus, *before, *runs, *after, *integrator, *on_faults, *on_flags, *counters,
        *marks;
    double start, tick, stop;
    long long start_ns, tick_ns;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "(dddLL)OOOOOOOO(OO)", keywords, &start,
                                     &tick, &stop, &start_ns, &tick_ns, &x, &bus, &before, &runs,
                                     &after, &integrator, &on_faults, &on_flags, &counters,
                                     &marks))
        return -1;
    if (self->x != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Ticks: already initialised");
        return -1;
    }
    self->start = start, self->tick = tick, self->stop = stop;
    self->start_ns = start_ns, self->tick_ns = tick_ns;
    self->failed = -1;
    Py_INCREF(counters), self->counters = counters;
    PyObject *addresses = PySequence_Tuple(marks);
    if (addresses == NULL)
        return -1;
    self->n_marks = PyTuple_GET_SIZE(addresses);
    self->marks = PyMem_Calloc((size_t)(3 * self->n_marks + 1), sizeof(double *));
    if (self->marks == NULL) {
        Py_DECREF(addresses);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < self->n_marks; i++) {
        unsigned long long a[3];
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(addresses, i), "KKK", &a[0], &a[1], &a[2])) {
            Py_DECREF(addresses);
            return -1;
        }
        for (int j = 0; j < 3; j++)
            self->marks[3 * i + j] = (double *)(uintptr_t)a[j];
    }
    Py_DECREF(addresses);
    Py_INCREF(x), self->x = x;
    Py_INCREF(bus), self->bus = bus;
    Py_INCREF(on_faults), self->on_faults = on_faults;
    Py_INCREF(on_flags), self->on_flags = on_flags;
    if ((self->before = call_pairs(before, "before")) == NULL ||
        (self->after = call_pairs(after, "after")) == NULL)
        return -1;
    PyObject *items = PySequence_Tuple(runs);
    if (items == NULL)
        return -1;
    self->n_runs = PyTuple_GET_SIZE(items);
    self->runs = PyMem_Calloc((size_t)(self->n_runs ? self->n_runs : 1), sizeof(Run));
    if (self->runs == NULL) {
        Py_DECREF(items);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t r = 0; r < self->n_runs; r++) {
        Run *run = &self->runs[r];
        PyObject *sample, *writes;
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(items, r), "OOLL", &sample, &writes, &run->next,
                              &run->period)) {
            Py_DECREF(items);
            return -1;
        }
        if (run->period < 1) {
            Py_DECREF(items);
            PyErr_SetString(PyExc_ValueError, "runs: a period of at least one tick expected");
            return -1;
        }
        Py_INCREF(sample), run->sample = sample;
        if ((run->writes = PySequence_Tuple(writes)) == NULL) {
            Py_DECREF(items);
            return -1;
        }
    }
    Py_DECREF(items);
    const char *kind;
    PyObject *first, *second = NULL, *third = NULL, *post;
    int parsed = PyTuple_Check(integrator) && PyTuple_GET_SIZE(integrator) == 4
                     ? PyArg_ParseTuple(integrator, "sOdO", &kind, &first, &self->step, &post)
                     : PyArg_ParseTuple(integrator, "sOOO(ddd)O", &kind, &first, &second,
                                        &third, &self->rtol, &self->atol, &self->max_step,
                                        &post);
    if (!parsed)
        return -1;
    if (strcmp(kind, "rk4") == 0 && second == NULL) {
        self->method = RK4;
        Py_INCREF(first), self->advance = first;
    } else if (strcmp(kind, "dopri") == 0 && second != NULL) {
        self->method = DOPRI;
        Py_INCREF(first), self->trial = first;
        Py_INCREF(second), self->restart = second;
        Py_INCREF(third), self->advance = third;
    } else {
        PyErr_SetString(PyExc_ValueError, "integrator: expected ('rk4', ...) or ('dopri', ...)");
        return -1;
    }
    Py_INCREF(post), self->post = post;
    return 0;
}

/* Make the (callable, args) pairs of ``calls`` in order; 0, or -1 with an exception. */
static int make_calls(PyObject *calls)
{
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(calls); i++) {
        PyObject *pair = PyTuple_GET_ITEM(calls, i);
        PyObject *result = PyObject_Call(PyTuple_GET_ITEM(pair, 0), PyTuple_GET_ITEM(pair, 1), NULL);
        if (result == NULL)
            return -1;
        Py_DECREF(result);
    }
    return 0;
}

/* Sample the runs due at tick k (time ``t``): 0, or -1 with an exception. */
static int sample_runs(Ticks *self, long long k, PyObject *t)
{
    for (Py_ssize_t r = 0; r < self->n_runs; r++) {
        Run *run = &self->runs[r];
        if (run->next > k)
            continue;
        run->next += run->period;
        PyObject *args[3] = {t, self->x, self->bus};
        PyObject *result = PyObject_Vectorcall(run->sample, args, 3, NULL);
        if (result == NULL)
            return -1;
        long faults = PyLong_AsLong(result);
        Py_DECREF(result);
        if (faults == -1 && PyErr_Occurred())
            return -1;
        for (Py_ssize_t w = 0; w < PyTuple_GET_SIZE(run->writes); w++) {
            result = PyObject_CallNoArgs(PyTuple_GET_ITEM(run->writes, w));
            if (result == NULL) {
                self->failed = r * 65536 + w;
                return -1;
            }
            Py_DECREF(result);
        }
        if (faults) {
            result = PyObject_CallFunction(self->on_faults, "nL", r, k);
            if (result == NULL)
                return -1;
            Py_DECREF(result);
        }
    }
    return 0;
}

/* The observers' marks of tick k: its stamp, one more tick, the evaluations so far. */
static int leave_marks(Ticks *self, long long k)
{
    if (self->n_marks == 0)
        return 0;
    PyObject *counts = PyObject_CallNoArgs(self->counters);
    if (counts == NULL)
        return -1;
    double evaluations = PyTuple_Check(counts) && PyTuple_GET_SIZE(counts) > 0
                             ? PyFloat_AsDouble(PyTuple_GET_ITEM(counts, 0))
                             : -1.0;
    Py_DECREF(counts);
    if (evaluations < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "counters: expected (evaluations, ...)");
        return -1;
    }
    double stamp = tick_stamp(self, k);
    for (Py_ssize_t i = 0; i < self->n_marks; i++) {
        *self->marks[3 * i] = stamp;
        *self->marks[3 * i + 1] += 1;
        *self->marks[3 * i + 2] = evaluations;
    }
    return 0;
}

/* Restart the integrator at (t, x) and step it to ``target``; the (reached, flags) tuple, or
 * NULL with an exception. */
static PyObject *advance(Ticks *self, PyObject *t, double target)
{
    PyObject *goal = PyFloat_FromDouble(target);
    if (goal == NULL)
        return NULL;
    PyObject *result = NULL;
    if (self->method == RK4) { /* FixedStepRK4: reset copies x into the state it steps */
        PyObject *step = PyFloat_FromDouble(self->step);
        if (step != NULL) {
            PyObject *args[5] = {t, goal, self->x, step, self->post};
            result = PyObject_Vectorcall(self->advance, args, 5, NULL);
            Py_DECREF(step);
        }
    } else { /* DormandPrince.reset keeps the trial step error control arrived at */
        PyObject *state = PyObject_CallNoArgs(self->trial);
        PyObject *restarted = NULL;
        if (state != NULL && PyTuple_Check(state) && PyTuple_GET_SIZE(state) == 2) {
            PyObject *args[3] = {t, self->x, PyTuple_GET_ITEM(state, 1)};
            restarted = PyObject_Vectorcall(self->restart, args, 3, NULL);
        } else if (state != NULL) {
            PyErr_SetString(PyExc_TypeError, "dopri_state: expected (time, step)");
        }
        Py_XDECREF(state);
        if (restarted != NULL) {
            Py_DECREF(restarted);
            result = PyObject_CallFunction(self->advance, "OOOdddOi", goal, goal, self->x,
                                           self->rtol, self->atol, self->max_step, self->post, 0);
        }
    }
    Py_DECREF(goal);
    return result;
}

/* run(index, end, end_jumps) -> the tick reached: makes the ticks from ``index`` (a tick where
 * an input may jump) on, each stepped to the next sample of a run or to ``end``, and stops at
 * ``end`` (its tick not made), before a tick whose step would reach ``end`` when an input may
 * not jump there (``end_jumps`` false: the step goes beyond it, Python makes it), or after a
 * step that raised event flags (``on_flags`` called). */
static PyObject *Ticks_run(Ticks *self, PyObject *args)
{
    long long k, end;
    int end_jumps;
    if (!PyArg_ParseTuple(args, "LLp", &k, &end, &end_jumps))
        return NULL;
    self->failed = -1;
    while (k < end) {
        long long jump = end; /* the next sample after this tick's */
        for (Py_ssize_t r = 0; r < self->n_runs; r++) {
            long long next = self->runs[r].next;
            next = next > k ? next : next + self->runs[r].period;
            jump = next < jump ? next : jump;
        }
        if (jump == end && !end_jumps)
            break;
        self->index = k;
        PyObject *t = PyFloat_FromDouble(tick_time(self, k));
        if (t == NULL)
            return NULL;
        if (make_calls(self->before) < 0 || sample_runs(self, k, t) < 0 ||
            make_calls(self->after) < 0 || leave_marks(self, k) < 0) {
            Py_DECREF(t);
            return NULL;
        }
        self->jump = jump;
        PyObject *step = advance(self, t, tick_time(self, jump));
        Py_DECREF(t);
        if (step == NULL) {
            self->failed = ADVANCING;
            return NULL;
        }
        double reached;
        int flags;
        if (!PyArg_ParseTuple(step, "di", &reached, &flags)) {
            Py_DECREF(step);
            return NULL;
        }
        Py_DECREF(step);
        if (flags) {
            PyObject *done = PyObject_CallFunction(self->on_flags, "LLdi", k, jump, reached, flags);
            if (done == NULL)
                return NULL;
            Py_DECREF(done);
            self->index = jump;
            return PyLong_FromLongLong(jump);
        }
        k = jump;
        if (PyErr_CheckSignals() < 0) {
            self->index = k;
            return NULL;
        }
    }
    self->index = k;
    return PyLong_FromLongLong(k);
}

/* next_samples() -> the tick of each run's next sample */
static PyObject *Ticks_next_samples(Ticks *self, PyObject *Py_UNUSED(ignored))
{
    PyObject *list = PyList_New(self->n_runs);
    for (Py_ssize_t r = 0; list != NULL && r < self->n_runs; r++) {
        PyObject *next = PyLong_FromLongLong(self->runs[r].next);
        if (next == NULL) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, r, next);
    }
    return list;
}

static PyObject *Ticks_progress(Ticks *self, PyObject *Py_UNUSED(ignored))
{
    return Py_BuildValue("(LLn)", self->index, self->jump, self->failed);
}

static PyMethodDef Ticks_methods[] = {
    {"run", (PyCFunction)Ticks_run, METH_VARARGS,
     "run(index, end) -> the tick reached: the ticks from index up to end (not made), or to "
     "the end of a step that raised event flags (on_flags called)"},
    {"next_samples", (PyCFunction)Ticks_next_samples, METH_NOARGS,
     "next_samples() -> the tick of each run's next sample"},
    {"progress", (PyCFunction)Ticks_progress, METH_NOARGS,
     "progress() -> (the tick being made or reached, the tick it steps to, the call that "
     "raised: run * 65536 + write for a write, -2 for the integrator's step, else -1)"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject TicksType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "orchestrator.native._ticks.Ticks",
    .tp_doc = PyDoc_STR("The master's ticks of compiled samples and integrator steps"),
    .tp_basicsize = sizeof(Ticks),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Ticks_init,
    .tp_dealloc = (destructor)Ticks_dealloc,
    .tp_methods = Ticks_methods,
};

static struct PyModuleDef ticks_module = {
    PyModuleDef_HEAD_INIT, "_ticks", "The master's ticks in compiled code.", -1, NULL,
};

PyMODINIT_FUNC PyInit__ticks(void)
{
    if (PyType_Ready(&TicksType) < 0)
        return NULL;
    PyObject *module = PyModule_Create(&ticks_module);
    if (module == NULL)
        return NULL;
    Py_INCREF(&TicksType);
    if (PyModule_AddObject(module, "Ticks", (PyObject *)&TicksType) < 0) {
        Py_DECREF(&TicksType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
