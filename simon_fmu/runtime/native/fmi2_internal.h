/*
 * simon-fmu's FMI 2.0 implementation (<modelIdentifier>_python.so): what its parts share.
 *
 * The implementation is split by concern, each part a .c file compiled into the one library:
 *
 *   fmi2_log.c        the host's logger: categories, fmi2SetDebugLogging, the slave's queued
 *                     messages, Python exceptions with their traceback;
 *   fmi2_calls.c      calling the slave: interned method names, the statuses it answers;
 *   fmi2_registry.c   the live instances (every entry point checks its component against them);
 *   fmi2_values.c     fmi2Get/Set Real, Integer, Boolean, String;
 *   fmi2_state.c      FMU states: get, set, free, and the checked serialised form;
 *   fmi2_lifecycle.c  the interpreter, instantiation (with the GUID check), the FMI 2.0
 *                     Co-Simulation state machine, doStep, the status functions and the table
 *                     the loader calls through.
 *
 * Everything here has hidden visibility (-fvisibility=hidden): the library exports only
 * SIMON_FMI2_TABLE.
 */
#ifndef SIMON_FMI2_INTERNAL_H
#define SIMON_FMI2_INTERNAL_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <pthread.h>
#include <stdint.h>

#include "fmi2_python.h"

/* ------------------------------------------------------------------ the instance */

typedef struct {
    char *name;
    int on;
} Category;

/* Where an instance is in the FMI 2.0 Co-Simulation state machine. */
typedef enum {
    PHASE_INSTANTIATED = 0,     /* after fmi2Instantiate, fmi2Reset */
    PHASE_INITIALIZATION = 1,   /* after fmi2EnterInitializationMode */
    PHASE_STEPPING = 2,         /* after fmi2ExitInitializationMode: slaveInitialized */
    PHASE_TERMINATED = 3,       /* after fmi2Terminate */
    PHASE_COUNT = 4
} Phase;

/* The library's own part of an instance's state: saved with every FMU state. */
typedef struct {
    uint32_t phase;             /* a Phase */
    uint32_t last_step_status;  /* an fmi2Status */
    double start_time;
    double time;                /* the communication point the next doStep must start at */
    double last_successful_time;
    double stop_time;
    uint32_t stop_time_defined;
    uint32_t reserved;
} Timeline;

typedef struct State State;

typedef struct {
    char *name;
    char *resources;
    char *guid;                     /* this FMU's GUID (resources/guid.txt) */
    fmi2CallbackLogger logger;
    fmi2ComponentEnvironment env;
    int logging_on;                 /* the master switch */
    Category *categories;
    size_t n_categories;
    PyObject *cls;
    PyObject *kwargs;
    PyObject *slave;
    PyObject *log_queue;            /* the slave's list, or NULL */
    unsigned fast;                  /* FAST_* bits: which fmi2_* methods the slave has */
    PyObject *strings;              /* keeps the last fmi2GetString answers alive */
    Timeline timeline;
    State **states;                 /* the FMU states of this instance not freed yet */
    size_t n_states, states_capacity;
    /* One call at a time (fmi2_registry.c): `lock` is held through each FMI call on the
     * instance; recursive, so that a logger called back during a call may call into the same
     * instance from the same thread. `depth` counts the calls of the holding thread. */
    pthread_mutex_t lock;
    unsigned depth;
    int in_logger;                  /* emit() is in the host's logger (fmi2_log.c) */
    unsigned users;                 /* threads in or waiting for a call (the registry's lock) */
    int retired;                    /* fmi2FreeInstance has taken it out of the registry */
} Instance;

/* ------------------------------------------------------------------ fmi2_registry.c */

/* The live instances. A component is used only if it is one of them. */
int registry_add(Instance *c);
/* The live instance `component` is, or NULL (then a line naming `function` goes to stderr:
 * there is no logger to tell). */
Instance *instance(fmi2Component component, const char *function);

/* Calls on one instance, one at a time: FMI 2.0 forbids concurrent calls on an instance, and a
 * host that makes them anyway gets them one after the other, as from one thread. */
/* Make the instance's lock (before registry_add); 0 on success. */
int instance_lock_init(Instance *c);
/* The live instance `component` is, its lock taken (waited for; the GIL, if this thread holds
 * it, is let go while waiting), or NULL as instance() answers, also when the instance was
 * freed while this call waited. Every acquire_instance is matched by one release_instance. */
Instance *acquire_instance(fmi2Component component, const char *function);
void release_instance(Instance *c);
/* fmi2FreeInstance, lock held: take the instance out of the registry (no call can start on it
 * any more), later retire_finish: let go of the lock and wait until the calls that waited for
 * it have left. Then the lock may be destroyed and the memory freed. */
void retire_begin(Instance *c);
void retire_finish(Instance *c);

/* ------------------------------------------------------------------ fmi2_log.c */

void emit(const Instance *c, fmi2Status status, const char *category, const char *message);
void logf_(const Instance *c, fmi2Status status, const char *category, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define LOG_ERROR(c, ...) logf_((c), fmi2Error, "logStatusError", __VA_ARGS__)
#define LOG_INFO(c, ...) logf_((c), fmi2OK, "logAll", __VA_ARGS__)
/* Pass the slave's queued messages to the logger and empty the queue (GIL held). */
void drain_log(Instance *c);
/* Log the pending Python exception with its traceback (GIL held); returns fmi2Error. */
fmi2Status failed(Instance *c, const char *function);
/* The categories the slave declares (log_categories), all set to the master switch. */
void read_categories(Instance *c);
void free_categories(Instance *c);
fmi2Status set_debug_logging(fmi2Component component, fmi2Boolean loggingOn,
                             size_t nCategories, const fmi2String categories[]);

/* ------------------------------------------------------------------ fmi2_calls.c */

enum { REAL, INTEGER, BOOLEAN };
enum { FAST_GET = 1, FAST_SET = 8 };   /* bit (FAST_GET << kind), (FAST_SET << kind) */

/* interned method names, made once under the GIL by intern_names() */
extern PyObject *s_fast_get[3], *s_fast_set[3], *s_get[3], *s_set[3];
extern PyObject *s_get_string, *s_set_string, *s_setup_experiment, *s_enter_init, *s_exit_init,
    *s_do_step, *s_terminate, *s_get_state, *s_set_state, *s_state_to_bytes,
    *s_state_from_bytes, *s_release, *s_log_queue, *s_log_categories, *s_status, *s_category,
    *s_msg;

int intern_names(void);
/* slave.name(a, b, d): the arguments up to the first NULL (new reference, or NULL). */
PyObject *call(Instance *c, PyObject *name, PyObject *a, PyObject *b, PyObject *d);
/* The status a slave method answered with (the new reference ret is consumed). */
fmi2Status status_of(Instance *c, PyObject *ret, const char *function);
char *copy_string(const char *s);

/* The entry and exit of an FMI function that calls the slave: the live instance as `c`, the
 * GIL held in between; LEAVE passes the slave's messages to the logger. */
#define ENTER(function)                                      \
    Instance *c = instance(component, function);             \
    if (!c) return fmi2Error;                                \
    PyGILState_STATE gil_ = PyGILState_Ensure()
#define LEAVE(status)                     \
    do {                                  \
        fmi2Status leave_ = (status);     \
        drain_log(c);                     \
        PyGILState_Release(gil_);         \
        return leave_;                    \
    } while (0)

/* ------------------------------------------------------------------ fmi2_values.c */

fmi2Status get_real(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Real value[]);
fmi2Status get_integer(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                       fmi2Integer value[]);
fmi2Status get_boolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                       fmi2Boolean value[]);
fmi2Status get_string(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                      fmi2String value[]);
fmi2Status set_real(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                    const fmi2Real value[]);
fmi2Status set_integer(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                       const fmi2Integer value[]);
fmi2Status set_boolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                       const fmi2Boolean value[]);
fmi2Status set_string(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                      const fmi2String value[]);

/* ------------------------------------------------------------------ fmi2_state.c */

fmi2Status get_fmu_state(fmi2Component component, fmi2FMUstate *FMUstate);
fmi2Status set_fmu_state(fmi2Component component, fmi2FMUstate FMUstate);
fmi2Status free_fmu_state(fmi2Component component, fmi2FMUstate *FMUstate);
fmi2Status serialized_fmu_state_size(fmi2Component component, fmi2FMUstate FMUstate,
                                     size_t *size);
fmi2Status serialize_fmu_state(fmi2Component component, fmi2FMUstate FMUstate,
                               fmi2Byte serializedState[], size_t size);
fmi2Status deserialize_fmu_state(fmi2Component component, const fmi2Byte serializedState[],
                                 size_t size, fmi2FMUstate *FMUstate);
/* Release every FMU state the host has not freed (GIL held); returns how many. */
size_t release_states(Instance *c);

/* ------------------------------------------------------------------ fmi2_lifecycle.c */

const char *phase_name(uint32_t phase);

#endif
