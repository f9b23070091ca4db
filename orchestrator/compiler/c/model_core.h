/* Instance of a murcosim model, shared by the FMI 2.0 and FMI 3.0 layers.
 *
 * Every variable lives in one array v[] indexed by its value reference: time, parameters,
 * inputs, continuous states x, their derivatives dx/dt, dependent variables, then the two
 * Co-Simulation solver parameters. The model equations are CasADi's generated functions
 * model_parametric (p) -> q, their parts that depend on the parameters only,
 * model_eval (t, x, u, p, q) -> (dx/dt, w) and model_jvp, its forward directional derivative.
 * The per-model sizes and start values come from model_config.h, written by the build.
 */
#ifndef MURCOSIM_MODEL_CORE_H
#define MURCOSIM_MODEL_CORE_H

#include <stddef.h>

#include "model_config.h"

typedef enum { CORE_OK = 0, CORE_WARNING = 1, CORE_ERROR = 3 } CoreStatus;

typedef enum {
    MODE_INSTANTIATED,
    MODE_INITIALIZATION,
    MODE_EVENT,
    MODE_CONTINUOUS_TIME,
    MODE_STEP,
    MODE_TERMINATED
} CoreMode;

typedef void (*CoreLogger)(void* environment, const char* instance, CoreStatus status,
                           const char* message);

/* Values held between events besides the discrete states: relation memories (0/1), Newton's
 * guesses of the nonlinear loops' iteration variables (the last solution), the values
 * change() compares with, the delays' values (set before each evaluation from their
 * histories), the when-conditions' values at the last event, the next sample times. */
#define N_CMEM (NC + NG + NCHANGE + NDELAY) /* relations, guesses, changes, delays: input c */
#define N_MEMORY (N_CMEM + NWHEN + NSAMPLE)
#define DELAY_VALUES (NC + NG + NCHANGE) /* where the delays' values start in the memory */

#if NDELAY > 0
/* Points (time, value) a delay's history holds: appended at completed steps and event
 * updates, so many that they span the delay's bound (delayMax) when a point closer than
 * delayMax / (DELAY_POINTS - 2) to the one before is replaced by the next. */
#define DELAY_POINTS 1024

/* The history of one delay's expression: a ring of points in time order. */
typedef struct {
    double time[DELAY_POINTS];  /* s */
    double value[DELAY_POINTS]; /* the delayed expression, its unit */
    int first;                  /* index of the oldest point */
    int count;                  /* points held */
    int overwritten;            /* 1 once the oldest point was dropped to make room */
} DelayHistory;
#endif

/* The part of an instance that an FMU state saves and restores. */
typedef struct {
    double v[N_VALUES];   /* all variables by value reference, SI units of the model */
    double memory[N_MEMORY > 0 ? N_MEMORY : 1]; /* relations, guesses, when, samples */
#if NDELAY > 0
    DelayHistory delay[NDELAY]; /* the history of each delay's expression */
#endif
#ifdef ASSERT_WARNINGS
    /* 1 where a warning-level assert failed at the last completed step or event (logged
     * once when it started to fail) */
    unsigned char warned[NASSERT];
#endif
    double h_internal;    /* last proposed internal step of the embedded integrator, s */
    int up_to_date;       /* dx/dt and w are consistent with t, x, u, p */
    int mode;             /* CoreMode */
} CoreSnapshot;

/* An external object (Modelica Language Specification 3.6, Sec. 12.9.7) the instance
 * constructed: the constructor's result, its destructor, and the numbers of the arguments it
 * was constructed with (it is constructed again only when they change). */
typedef struct {
    void* object;
    void (*destruct)(void* object);
    double* arguments;
    size_t n_arguments;
} CoreObject;

/* An instance: first what every evaluation of the model reads or writes, next to each other,
 * then what only logging and Co-Simulation use. CasADi's work arrays are not here but on the
 * stack of each call (model_core.c): scratch memory, they hold nothing between calls. */
typedef struct {
    CoreSnapshot s;
    /* model_parametric's result; parameters_changed: a parameter may have changed since q was
     * computed (set at reset, by a set of a parameter and by restoring an FMU state) */
    double q[NQ > 0 ? NQ : 1];
    int parameters_changed;
    /* the nonlinear loops' solution at the last evaluation (NaN where it did not converge) */
    double loop_solution[NG > 0 ? NG : 1];
    char instance_name[128];
    void* environment;
    CoreLogger logger;
    int logging_on;
    int co_simulation;
    /* the external objects, by the slot the build gave each (model_external.c); n_objects 0
     * until the first is constructed */
    CoreObject* objects;
    int n_objects;
    /* Dormand-Prince stages and trial state */
    double k[7][NX > 0 ? NX : 1];
    double x_trial[NX > 0 ? NX : 1];
} Core;

/* The instance whose model functions run on this thread: the external functions' objects and
 * their messages (ModelicaError, ...) are its own. Set before each model function runs. */
extern __thread Core* core_running;

Core* core_new(const char* instance_name, void* environment, CoreLogger logger, int logging_on,
               int co_simulation);
void core_free(Core* m);
/* Back to the instantiated state; the external objects are destructed (constructed again by
 * the first evaluation, with the parameters then set). */
void core_reset(Core* m);
/* Destruct the instance's external objects (at core_free and core_reset). */
void core_release_objects(Core* m);
void core_log(Core* m, CoreStatus status, const char* format, ...);

/* Solve the initial conditions (initial equations, fixed start values of variables that are
 * not states, start values bound to parameters) for the calculated states; called when the
 * instance leaves initialization mode. Without such conditions it does nothing. */
CoreStatus core_initialize(Core* m);
/* Initialization by homotopy (models with homotopy() and relations or nonlinear loops): the
 * relations and the loops' solutions followed from the simplified problem (lambda = 0) to the
 * actual one (lambda = 1); called after core_initialize. Without homotopy it does nothing. */
CoreStatus core_homotopy(Core* m);
/* Newton's guesses of the nonlinear loops become their solution at the instance's time and
 * states, the delays' histories take their expressions' values there, and a warning-level
 * assert that starts to fail there is logged: at completed integrator steps, after event
 * updates and accepted Co-Simulation steps, never at trial points an integrator may reject.
 * Without loops, delays and warnings it does nothing. */
CoreStatus core_completed_step(Core* m);
/* Event iteration at the instance's time: relations decided, when-equations fired, samples
 * advanced, until nothing changes. initial: the update on leaving initialization mode. Sets
 * *states_changed when a reinit changed a state, *next_time to the next sample time
 * (*next_defined 0 when there is none). */
CoreStatus core_event_update(Core* m, int initial, int* states_changed, int* next_defined,
                             double* next_time);
/* Termination: one event update in which terminal() is true (when the instance ran), then
 * the terminated mode. */
CoreStatus core_terminate(Core* m);
/* Event indicators at the instance's time and states (NC of them). */
CoreStatus core_get_event_indicators(Core* m, double* indicators, size_t n);
CoreStatus core_get(Core* m, const unsigned int* vr, size_t n, double* values);
CoreStatus core_set(Core* m, const unsigned int* vr, size_t n, const double* values);

/* The FMI type of each variable, as bits of a set of accepted types: model_config.h's
 * VALUE_TYPES (0 Real, 1 Integer, 2 Boolean, 3 enumeration; every variable is Real without
 * it). The model holds every value as a double: Integer and enumeration values are whole
 * numbers, Booleans 0 and 1. */
#define TYPE_REAL (1 << 0)
#define TYPE_INTEGER (1 << 1)
#define TYPE_BOOLEAN (1 << 2)
#define TYPE_ENUMERATION (1 << 3)
/* CORE_OK when each of the n variables has one of the accepted types; else an error logged
 * that names the first other one and `type`, the type the caller's getter or setter is for. */
CoreStatus core_check_types(Core* m, const unsigned int* vr, size_t n, int accepted,
                            const char* type);
/* core_get and core_set for the variables of one getter or setter of the FMI layers, after
 * core_check_types: the values as doubles, which the layer converts from or to its type. */
CoreStatus core_get_typed(Core* m, const unsigned int* vr, size_t n, int accepted,
                          const char* type, double* values);
CoreStatus core_set_typed(Core* m, const unsigned int* vr, size_t n, int accepted,
                          const char* type, const double* values);
/* The whole number a double of an Integer or enumeration variable holds (nearest, though the
 * model computes these exactly). */
static inline long long core_whole(double value) {
    return (long long)(value < 0.0 ? value - 0.5 : value + 0.5);
}
CoreStatus core_set_time(Core* m, double time);
CoreStatus core_set_states(Core* m, const double* x, size_t n);
CoreStatus core_get_states(Core* m, double* x, size_t n);
CoreStatus core_get_derivatives(Core* m, double* dx, size_t n);
CoreStatus core_get_nominals(Core* m, double* nominals, size_t n);
CoreStatus core_directional(Core* m, const unsigned int* unknowns, size_t n_unknowns,
                            const unsigned int* knowns, size_t n_knowns, const double* seed,
                            double* sensitivity);
CoreStatus core_do_step(Core* m, double t0, double h);

size_t core_serialized_size(void);
CoreSnapshot* core_save(Core* m);
CoreStatus core_restore(Core* m, const CoreSnapshot* state);
CoreStatus core_serialize(const CoreSnapshot* state, unsigned char* bytes, size_t size);
CoreStatus core_deserialize(Core* m, const unsigned char* bytes, size_t size,
                            CoreSnapshot** state);

#endif
