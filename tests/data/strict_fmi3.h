/* The states of an FMI 3.0 instance (Model Exchange and Co-Simulation) and the check that a
 * function is called in a state the standard allows it in. A call in any other state returns
 * fmi3Error, leaves the instance FAILED (only fmi3FreeInstance and fmi3Reset are allowed then,
 * as after any error) and, when the environment variable FMI3_CALL_LOG names a file, appends a
 * line "<function> in <state>" to it, so a test can read every call out of sequence.
 */
#ifndef STRICT_FMI3_H
#define STRICT_FMI3_H

#include <stdio.h>
#include <stdlib.h>

typedef enum {
    INSTANTIATED = 1,
    CONFIGURATION = 2,
    INITIALIZATION = 4,
    EVENT = 8,
    CONTINUOUS = 16,
    STEP = 32,
    TERMINATED = 64,
    FAILED = 128
} State;

static const char *state_name(State s) {
    switch (s) {
        case INSTANTIATED: return "Instantiated";
        case CONFIGURATION: return "Configuration Mode";
        case INITIALIZATION: return "Initialization Mode";
        case EVENT: return "Event Mode";
        case CONTINUOUS: return "Continuous-Time Mode";
        case STEP: return "Step Mode";
        case TERMINATED: return "Terminated";
        default: return "failed (after an error)";
    }
}

/* Record a call out of sequence (or refused for its arguments) and fail the instance. */
static int illegal(State *state, const char *function, const char *why) {
    const char *path = getenv("FMI3_CALL_LOG");
    if (path) {
        FILE *log = fopen(path, "a");
        if (log) {
            fprintf(log, "%s in %s%s%s\n", function, state_name(*state), why ? ": " : "", why ? why : "");
            fclose(log);
        }
    }
    *state = FAILED;
    return 3; /* fmi3Error */
}

/* Return fmi3Error unless the instance's state is one of the mask's. */
#define ALLOWED(state, mask, function) \
    do { \
        if (!(*(state) & (mask))) return illegal((state), (function), 0); \
    } while (0)

#define READABLE (INITIALIZATION | EVENT | CONTINUOUS | STEP | TERMINATED)
#define RUNNING (EVENT | CONTINUOUS | STEP)

#endif
