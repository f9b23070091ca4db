/* What the external C functions of a model need from the instance they run in: the
 * ModelicaUtilities functions (Modelica Language Specification 3.6, Sec. 12.9.6) and the
 * external objects' slots (Sec. 12.9.7). Compiled into the FMUs of models that call external
 * C functions (model_external.c holds their wrappers).
 *
 * Messages go to the FMI logger of the instance running (core_running): ModelicaMessage as
 * OK (shown when logging is on), ModelicaWarning as a warning, ModelicaError as an error.
 * ModelicaError does not return, and does not end the process either: it jumps back to the
 * wrapper of the external call, set by external_catch, which reports the call failed; the
 * FMI function that evaluated the model returns an error status.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_core.h"

/* Strings the external functions allocate live until the instance's next call of a model
 * function: kept in a list freed when a wrapper is entered. */
#define MAX_STRINGS 64

static __thread jmp_buf* catcher = NULL;
static __thread char* strings[MAX_STRINGS];
static __thread int n_strings = 0;

jmp_buf* external_catch(jmp_buf* handler) {
    jmp_buf* before = catcher;
    catcher = handler;
    return before;
}

static void say(CoreStatus status, const char* format, va_list args) {
    char message[1024];
    vsnprintf(message, sizeof message, format, args);
    if (core_running) core_log(core_running, status, "%s", message);
    else fprintf(stderr, "%s\n", message);
}

static void fail(void) {
    if (catcher) longjmp(*catcher, 1);
    abort(); /* an error outside any external call: no caller to report it to */
}

void ModelicaVFormatMessage(const char* format, va_list args) { say(CORE_OK, format, args); }

void ModelicaFormatMessage(const char* format, ...) {
    va_list args;
    va_start(args, format);
    say(CORE_OK, format, args);
    va_end(args);
}

void ModelicaMessage(const char* text) { ModelicaFormatMessage("%s", text); }

void ModelicaVFormatWarning(const char* format, va_list args) {
    say(CORE_WARNING, format, args);
}

void ModelicaFormatWarning(const char* format, ...) {
    va_list args;
    va_start(args, format);
    say(CORE_WARNING, format, args);
    va_end(args);
}

void ModelicaWarning(const char* text) { ModelicaFormatWarning("%s", text); }

void ModelicaVFormatError(const char* format, va_list args) {
    say(CORE_ERROR, format, args);
    fail();
}

void ModelicaFormatError(const char* format, ...) {
    va_list args;
    va_start(args, format);
    say(CORE_ERROR, format, args);
    va_end(args);
    fail();
}

void ModelicaError(const char* text) { ModelicaFormatError("%s", text); }

char* ModelicaAllocateStringWithErrorReturn(size_t length) {
    char* text;
    if (n_strings == MAX_STRINGS) return NULL;
    text = (char*)calloc(length + 1, 1);
    if (text) strings[n_strings++] = text;
    return text;
}

char* ModelicaAllocateString(size_t length) {
    char* text = ModelicaAllocateStringWithErrorReturn(length);
    if (!text) ModelicaFormatError("ModelicaAllocateString: no memory for %zu characters", length);
    return text;
}

char* ModelicaDuplicateStringWithErrorReturn(const char* text) {
    char* copy = ModelicaAllocateStringWithErrorReturn(strlen(text));
    if (copy) strcpy(copy, text);
    return copy;
}

char* ModelicaDuplicateString(const char* text) {
    char* copy = ModelicaAllocateString(strlen(text));
    strcpy(copy, text);
    return copy;
}

/* Free the strings the external functions allocated before (called as a wrapper starts). */
void external_strings_release(void) {
    while (n_strings > 0) free(strings[--n_strings]);
}

/* Slot k of the running instance's external objects, the slots made as many as needed
 * (NULL, with an error logged, when there is no memory). */
CoreObject* external_slot(int k) {
    Core* m = core_running;
    if (!m || k < 0) return NULL;
    if (k >= m->n_objects) {
        CoreObject* more = (CoreObject*)realloc(m->objects, (size_t)(k + 1) * sizeof(CoreObject));
        if (!more) {
            core_log(m, CORE_ERROR, "no memory for external object %d", k);
            return NULL;
        }
        memset(more + m->n_objects, 0, (size_t)(k + 1 - m->n_objects) * sizeof(CoreObject));
        m->objects = more;
        m->n_objects = k + 1;
    }
    return &m->objects[k];
}

/* Whether slot k's object must be constructed (again) for these argument numbers: none yet, or
 * one constructed from others (then it is destructed first). */
int external_stale(CoreObject* slot, const double* arguments, size_t n) {
    if (slot->object && slot->n_arguments == n &&
        (n == 0 || memcmp(slot->arguments, arguments, n * sizeof(double)) == 0))
        return 0;
    if (slot->object && slot->destruct) slot->destruct(slot->object);
    slot->object = NULL;
    free(slot->arguments);
    slot->arguments = NULL;
    slot->n_arguments = 0;
    return 1;
}

/* Record the object constructed in slot k from these argument numbers. */
int external_keep(CoreObject* slot, void* object, void (*destruct)(void*), const double* arguments,
                  size_t n) {
    slot->arguments = (double*)malloc((n > 0 ? n : 1) * sizeof(double));
    if (!slot->arguments) {
        if (destruct) destruct(object);
        return 1;
    }
    if (n) memcpy(slot->arguments, arguments, n * sizeof(double));
    slot->n_arguments = n;
    slot->object = object;
    slot->destruct = destruct;
    return 0;
}

/* The object in slot k of the running instance (NULL where none was constructed). */
void* external_object(double k) {
    Core* m = core_running;
    int i = (int)k;
    if (!m || i < 0 || i >= m->n_objects) return NULL;
    return m->objects[i].object;
}
