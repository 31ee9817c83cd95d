/* FMI 2.0 Co-Simulation runtime of the native FMU (docs/native.md).

   The model is the engine's integrator kernel, compiled ahead of time (kernel_entry.c calls it
   with numba's calling convention); everything the model needs is in resources/native.bin,
   loaded and checked at fmi2Instantiate into buffers allocated then, once. This file knows
   nothing of the vehicle: value references map to array slots through the file's tables.

   What the development FMU's Python slave (simon_fmu/vehicle/slave.py) and engine.Simulation
   do around the kernel is done here the same way: the slave's copy of the inputs, copied into
   the kernel's at doStep and checked there; the communication steps sub-stepped on the grid
   of the internal step, a remainder taken as one shorter step; the clutches engaged before
   the first step; the same log messages. The set-up (equilibrium, preloads) ran at build time
   for the parameters' start values; a parameter the build found tunable
   (simon_fmu/native/tuning.py) is applied at fmi2ExitInitializationMode by the operations the
   set-up does for it, with the engine's checks of the parameters and of the step size (the
   step-size kernel, engine/stability.py); any other parameter keeps its start value. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
/* KERNEL32's, declared here: windows.h would bring names (bind, ...) of its own */
__declspec(dllimport) unsigned long __stdcall GetCurrentThreadId(void);
__declspec(dllimport) void __stdcall AcquireSRWLockExclusive(void **lock);
__declspec(dllimport) void __stdcall ReleaseSRWLockExclusive(void **lock);
__declspec(dllimport) void __stdcall Sleep(unsigned long milliseconds);
__declspec(dllimport) unsigned long __stdcall GetFullPathNameW(const wchar_t *name,
                                                              unsigned long size,
                                                              wchar_t *buffer, wchar_t **file);
__declspec(dllimport) int __stdcall MultiByteToWideChar(unsigned int code_page, unsigned long flags,
                                                        const char *bytes, int nbytes,
                                                        wchar_t *wide, int nwide);
#define SN_CP_UTF8 65001u                 /* CP_UTF8 */
#define SN_MB_ERR_INVALID_CHARS 0x8ul     /* MB_ERR_INVALID_CHARS */
#include <wchar.h>
#else
#include <linux/futex.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#endif

#include "fmi2Functions.h"
#include "fp_guard.h"
#include "simon_native.h"
#include "uri_path.h"

#define SN_MAGIC "SIMONNAT"
#define SN_VERSION 1u
#define SN_FILE "native.bin"
#define SN_MAX_ARRAYS 256

enum { T_REAL = 0, T_INTEGER = 1, T_BOOLEAN = 2 };
enum { C_PARAMETER = 0, C_CALCULATED = 1, C_INPUT = 2, C_OUTPUT = 3 };
/* the variable table's sources: 0..2 the inputs, 3.. the outputs (OUTPUT_NAMES), then these
   (simon_fmu/native/build.py: INPUT_ARRAYS, OUTPUT_ARRAYS, SOURCE_PARAMETER) */
enum { N_OUTPUTS = 7, S_PARAMETER = 3 + N_OUTPUTS, S_CALCULATED };
enum { O_SOLVER = 6 };          /* Y.y_solver among OUTPUT_NAMES */
enum { M_STEP = 0, M_WHEEL_SETUP, M_ERR_DEFLECTION, M_ERR_OFF_TERRAIN, M_ERR_NONFINITE, M_T_DMAX,
       M_MAX_STEPS };
enum { PHASE_INSTANTIATED, PHASE_INIT, PHASE_STEP, PHASE_TERMINATED };
/* a parameter's kind and an effect row's operation (simon_fmu/native/tuning.py) */
enum { K_FIXED = 0, K_TUNABLE, K_STEP, K_ZERO_ONLY };
enum { OP_DIV = 0, OP_MUL, OP_ADD, OP_ITEM };
/* tune.stable: the build's limit of the step size for the event's integration method
   (engine.setup.stability.stable_step) and the least step the engine accepts */
enum { S_HMAX = 0, S_RE, S_IM, S_STATE, S_MIN_STEP, S_COUNT };
/* tune.methods, a row per integration method (the items 1, 2, ... of the parameter integrator,
   whose value reference and stepSize's tune.method holds): its largest step
   (engine.setup.fields.MAX_STEP_SIZES), the limit of the units on their joints at any attitude
   (engine.setup.stability.joint_step, a constant of the event and the method), the index in
   tune.texts of that refusal's text before the step (the text after it follows; -1 when it
   has none), and of the refusal of a step beyond the method's largest (likewise) */
enum { MT_MAX_STEP = 0, MT_JOINT, MT_JOINT_TEXT, MT_RANGE_TEXT, MT_COUNT };
#define SN_MAX_TARGETS 64
/* the longest message of the set-up (every refused parameter of many vehicles, named): the
   development FMU's have no limit; 64 KB holds those of some sixty vehicles */
#define SN_MESSAGE 65536

/* terrain.texts (simon_fmu/native/tuning.py): a wheel off the terrain (around its X, its Y), no
   equilibrium, then on displaced wheels: their fields, the message around its reasons, a tire
   off the ground, one beyond its max_deflection (around the two), accelerations left; a start
   on the terrain not at rest (around its largest acceleration) */
enum { TX_OFF0 = 0, TX_OFF1, TX_OFF2, TX_NOT_FINITE, TX_FIELDS, TX_STAND0, TX_STAND1, TX_LIFT_OFF,
       TX_DEFLECT0, TX_DEFLECT1, TX_DEFLECT2, TX_NO_REST0, TX_NO_REST1, TX_NO_EQUILIBRIUM0,
       TX_NO_EQUILIBRIUM1, TX_COUNT };
/* terrain.check: y_tire's columns of the load and the deflection, P_TIRE's of the wheel and the
   largest deflection, the accelerations below which the vehicle is at rest on displaced
   wheels, and those a start on the terrain may leave */
enum { CK_FZ = 0, CK_DEFL, CK_WHEEL, CK_DMAX, CK_REST, CK_TERRAIN_REST };

static const char *const INPUT_NAMES[3] = {"U.u_unit", "U.u_wheel", "U.u_env"};
static const char *const SHADOW_NAMES[3] = {"in.u_unit", "in.u_wheel", "in.u_env"};
static const char *const OUTPUT_NAMES[N_OUTPUTS] = {"Y.y_unit", "Y.y_wheel", "Y.y_tire",
                                                    "Y.y_axle", "Y.y_conn", "Y.y_steer",
                                                    "Y.y_solver"};

/* a lock (the section "locks" below) */
typedef struct {
#ifdef _WIN32
    void *srw;                      /* SRWLOCK, SRWLOCK_INIT = {0} */
#else
    uint32_t word;
#endif
} sn_lock;

typedef struct {
    fmi2CallbackFunctions cb;
    char *name;
    int logging;                        /* any category on (fmi2Instantiate's loggingOn) */
    int category_on[3];                 /* per name of CATEGORIES */
    int level;                          /* the kernels' instruction-set level (select_level) */
    unsigned char *file;
    size_t file_size;
    sn_array arrays[SN_MAX_ARRAYS];
    int narrays;
    unsigned char *pool;
    sn_array *adv[SN_MAX_ARRAYS];
    sn_array *rec[SN_MAX_ARRAYS];
    sn_array *in[3], *shadow[3], *out[N_OUTPUTS];
    double *y;
    int64_t *err;
    double *fault;
    /* tables */
    const int64_t *var_table;
    const double *var_value;
    const char **var_names;
    int nvars;
    const double *in_lo, *in_hi;
    const int64_t *in_whole;            /* 0, or the index in in_whole_texts of what a whole
                                           input accepts (engine.signals.WHOLE_INPUTS) */
    const char **in_names, **in_accepts, **in_whole_texts;
    int nin, nwhole_texts;
    int *whole_at, nwhole;              /* the inputs that must be whole numbers */
    const double *meta;
    /* the parameters (tune.*): kind, current values (the instance's copy of var.value), range,
       effects, messages */
    const int64_t *tune_kind;
    double *tune_value;
    const double *tune_lo, *tune_hi, *tune_rows, *tune_items, *tune_speed, *tune_stable;
    const double *tune_launch;          /* per unit: u, its Z in y, roll0, pitch0, Z level, ground Z */
    const double *tune_methods;         /* per integration method (tune.methods) */
    int ntune_methods;
    int64_t method_vr, step_vr;         /* the parameters integrator and stepSize */
    int ntune_rows, ntune_items, ntune_speed, ntune_targets, ntune_launch;
    int64_t tune_towed;                 /* 1: the towed units placed behind their tow units */
    int64_t tune_apart;                 /* 1: the vehicles checked to start apart */
    const char **apart_heads, **apart_quoted; /* the overlap problems' texts */
    int napart_heads, napart_quoted;
    int64_t tune_clear;                 /* 1: the meshes checked to start clear */
    const char **clear_texts, **clear_fields; /* the messages, their placeholders */
    int nclear_texts, nclear_fields;
    const int64_t *clear_nv, *clear_columns; /* exterior vertices per unit; per placeholder,
                                                its column of a hit and its digits */
    const double *clear_check;          /* a vertex deeper than [0] is inside; the columns
                                           of a hit's depth [1] and vertex [2] */
    sn_array *clear_hits;
    const char **tune_accepts, **tune_zero, **tune_zero_tail, **tune_texts, **tune_reasons;
    sn_array *tune_target[SN_MAX_TARGETS];
    sn_array *stab[SN_MAX_ARRAYS];      /* the step-size kernel's arguments */
    sn_array *eng[SN_MAX_ARRAYS];       /* engage_clutches' arguments */
    sn_array *lau[SN_MAX_ARRAYS];       /* place_launch's arguments */
    sn_array *tow[SN_MAX_ARRAYS];       /* place_towed's arguments */
    sn_array *apart[SN_MAX_ARRAYS];     /* footprint_hits' arguments */
    sn_array *clear[SN_MAX_ARRAYS];     /* start_overlaps' arguments */
    sn_array *chk[SN_MAX_ARRAYS];       /* state_fault's arguments */
    sn_array *settle[SN_MAX_ARRAYS];    /* settle_on_terrain's arguments */
    sn_array *pre[SN_MAX_ARRAYS];       /* preload_lateral's arguments */
    /* the start on a terrain (tune.terrain): the rows on the state before it (terrain.y), the
       towed units put in line first, on displaced wheels; the messages' texts */
    const double *terrain_rows, *terrain_y;
    int nterrain_rows;
    int64_t terrain_towed, terrain_pitch, terrain_settle;
    const char **terrain_texts, **wheel_names;
    int nterrain_texts, nwheel_names;
    /* the wheel inputs at initialisation (tune.wheels): per field of engine.signals.WHEEL_INPUTS,
       why the start cannot be run again with it ("": it can); the set-up's copies of them */
    const char **tune_wheels;
    int ntune_wheels;
    sn_array *settle_u_wheel, *pre_u_wheel;
    int mutable_[SN_MAX_ARRAYS];        /* the arrays an FMU state holds */
    unsigned char *tunable[SN_MAX_ARRAYS]; /* of a packed parameters' array a state holds:
                                           1 for each slot a parameter writes */
    double step;                        /* the internal step (stepSize) */
    const char **tire_names, **state_names;
    const char **step_method;           /* the integration methods' names, for messages */
    int nstep_method;
    int ntires, nstates;
    const double *p_tire;
    int64_t p_tire_cols;
    /* the simulation's clock (engine.Simulation) and the slave's */
    int phase;
    double start_time, comm_time;       /* the communication point the next doStep starts at */
    int stop_defined;                   /* fmi2SetupExperiment's stop time, when it gave one */
    int last_step_status;               /* of the last doStep that got past the checks */
    double stop_time;
    double time, grid_time;             /* Simulation.time and _grid_time, from start_time */
    int64_t grid_steps;
    int failed;                         /* the slave's failure: later steps are refused */
    char failure[SN_MESSAGE];
    char msg[4096];                     /* say()'s text; a longer one is allocated */
    int in_logger;                      /* say() is in the host's logger */
    /* one call at a time (the live instances, below): the thread in a call (0: none), how
       deep (a logger calling back from it), the calls in or waiting for one, and whether
       fmi2FreeInstance has taken the instance out of the registry */
    uintptr_t owner;
    sn_lock calls;
    unsigned depth, users;
    int retired;
    char state_why[256];                /* state_problem's texts (two GUIDs, a slot of y) */
} sn_instance;

/* ------------------------------------------------------------------ messages */

/* Python's repr of a float: the shortest text that reads back to v. */
static void py_repr(char *buf, size_t size, double v)
{
    if (isnan(v)) { snprintf(buf, size, "nan"); return; }
    if (isinf(v)) { snprintf(buf, size, v > 0 ? "inf" : "-inf"); return; }
    if (v == 0.0) { snprintf(buf, size, signbit(v) ? "-0.0" : "0.0"); return; }
    char e[64];
    int p;
    for (p = 1; p <= 17; p++) {
        snprintf(e, sizeof e, "%.*e", p - 1, v);
        if (strtod(e, NULL) == v)
            break;
    }
    int exp10 = atoi(strchr(e, 'e') + 1);
    if (exp10 < -4 || exp10 >= 16) {
        /* d.ddde+XX as Python writes it: no trailing zeros, at least two exponent digits */
        char mant[64];
        snprintf(mant, sizeof mant, "%.*e", p - 1, v);
        *strchr(mant, 'e') = '\0';
        snprintf(buf, size, "%se%c%02d", mant, exp10 < 0 ? '-' : '+', abs(exp10));
        return;
    }
    int decimals = p - 1 - exp10;
    if (decimals < 1)
        decimals = 1;
    snprintf(buf, size, "%.*f", decimals, v);
}

/* The log categories of the modelDescription (model_description/writer.py, LOG_CATEGORIES),
   handled as the development FMU's library does (simon_fmu/runtime/native/fmi2_log.c): a
   message of status fmi2Error and above always reaches the logger, any other only while its
   category is on (all of them after loggingOn at fmi2Instantiate; fmi2SetDebugLogging), or
   logAll is. */
static const char *const CATEGORIES[3] = {"logStatusError", "logStatusWarning", "logAll"};
#define N_CATEGORIES 3

static int category_on(const sn_instance *c, const char *category)
{
    int known = 0;
    for (int i = 0; i < N_CATEGORIES; i++) {
        if (strcmp(CATEGORIES[i], "logAll") == 0 && c->category_on[i])
            return 1;
        if (category != NULL && strcmp(CATEGORIES[i], category) == 0) {
            if (c->category_on[i])
                return 1;
            known = 1;
        }
    }
    return !known && c->logging;
}

static void say(sn_instance *c, fmi2Status status, const char *category, const char *fmt, ...)
{
    /* a message of a call the host's logger makes back into the instance is not passed to
       the logger: it would call back again, without end (and write over the text the outer
       call's logger is still reading) */
    if (c == NULL || c->cb.logger == NULL || c->in_logger)
        return;
    if (status < fmi2Error && !category_on(c, category))
        return;
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int n = vsnprintf(c->msg, sizeof c->msg, fmt, ap);
    va_end(ap);
    char *text = c->msg, *longer = NULL;
    if (n >= (int)sizeof c->msg && (longer = malloc((size_t)n + 1)) != NULL) {
        /* a long message (the set-up's, naming many parameters or outputs): whole, as the
           development FMU gives it; a step's messages fit msg, so a step allocates nothing */
        vsnprintf(longer, (size_t)n + 1, fmt, again);
        text = longer;
    }
    va_end(again);
    /* the logger takes a printf format: pass the text as an argument */
    c->in_logger = 1;
    c->cb.logger(c->cb.componentEnvironment, c->name, status, category, "%s", text);
    c->in_logger = 0;
    free(longer);
}

#define LOG_ERROR(c, ...) say((c), fmi2Error, "logStatusError", __VA_ARGS__)
#define LOG_WARNING(c, ...) say((c), fmi2Warning, "logStatusWarning", __VA_ARGS__)

/* ------------------------------------------------------------------ the resources file */

static uint64_t fnv1a64(const unsigned char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* ------------------------------------------------------------------ locks
   A lock that a thread which finds it held waits for asleep, in the kernel: on Linux a futex
   (the 0 / 1 / 2 mutex of Drepper's "Futexes Are Tricky": free, held, held with waiters), on
   Windows a slim reader/writer lock (KERNEL32). Taking and giving a free lock is one atomic
   instruction each, no system call. The locks were spins (yielding, for a call on a busy
   instance): a real-time thread of higher priority that found one held by a lower one on its
   CPU spun for ever, since under SCHED_FIFO the holder never ran again to give it back (two
   instances in two threads sufficed, through the registry's lock). They use nothing but the
   C library's syscall, or KERNEL32 (the type sn_lock is above sn_instance). */
static void take(sn_lock *l)
{
#ifdef _WIN32
    AcquireSRWLockExclusive(&l->srw);
#else
    uint32_t c = 0;
    if (__atomic_compare_exchange_n(&l->word, &c, 1u, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        return;
    if (c != 2u)
        c = __atomic_exchange_n(&l->word, 2u, __ATOMIC_ACQUIRE);
    while (c != 0u) {
        syscall(SYS_futex, &l->word, FUTEX_WAIT_PRIVATE, 2u, NULL, NULL, 0);
        c = __atomic_exchange_n(&l->word, 2u, __ATOMIC_ACQUIRE);
    }
#endif
}

static void give(sn_lock *l)
{
#ifdef _WIN32
    ReleaseSRWLockExclusive(&l->srw);
#else
    if (__atomic_exchange_n(&l->word, 0u, __ATOMIC_RELEASE) == 2u)
        syscall(SYS_futex, &l->word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
#endif
}

/* a pause of a tenth of a millisecond (Windows: its shortest sleep), in which a thread of
   any priority gives its CPU to the others */
static void pause_thread(void)
{
#ifdef _WIN32
    Sleep(1);
#else
    struct timespec t = {0, 100000};
    nanosleep(&t, NULL);
#endif
}

/* ------------------------------------------------------------------ the live instances
   fmi2Instantiate registers an instance and each FMU state it hands out; every entry point
   takes its component (and a state) through live(), which answers only for one registered
   here and not freed since: a second fmi2FreeInstance, a call on a freed instance or a pointer
   that never was one is refused with fmi2Error without touching its memory (a mark in the
   instance could not do that: reading freed memory is undefined behaviour). Its lock is held
   for a scan of a short list, never across a call. */

typedef struct { void *p; void *owner; } sn_entry;   /* owner: NULL for an instance */
static sn_entry *registry;
static size_t n_registry, registry_capacity;
static sn_lock registry_lock;

static void lock_registry(void) { take(&registry_lock); }
static void unlock_registry(void) { give(&registry_lock); }

/* the registry's memory, given back when the library is unloaded with no instance left (a
   host that loads and unloads the library for each run lost it each time) */
__attribute__((destructor)) static void free_registry(void)
{
    if (n_registry == 0) {
        free(registry);
        registry = NULL;
        registry_capacity = 0;
    }
}

/* Register p (owner: its instance for a state); 0, or -1 out of memory. */
static int register_live(void *p, void *owner)
{
    int ok = 0;
    lock_registry();
    if (n_registry == registry_capacity) {
        size_t more = registry_capacity ? 2 * registry_capacity : 16;
        sn_entry *grown = realloc(registry, more * sizeof *grown);
        if (grown != NULL) {
            registry = grown;
            registry_capacity = more;
        }
    }
    if (n_registry < registry_capacity) {
        registry[n_registry].p = p;
        registry[n_registry].owner = owner;
        n_registry++;
        ok = 1;
    }
    unlock_registry();
    return ok ? 0 : -1;
}

/* Whether p is registered with that owner (NULL: an instance); with `drop`, also unregisters
   it. */
/* p's entry with that owner, or n_registry (the registry's lock held) */
static size_t entry_of(void *p, void *owner)
{
    size_t i = 0;
    while (i < n_registry && !(registry[i].p == p && registry[i].owner == owner))
        i++;
    return i;
}

static int registered(void *p, void *owner, int drop)
{
    lock_registry();
    size_t i = entry_of(p, owner);
    int found = i < n_registry;
    if (found && drop)
        registry[i] = registry[--n_registry];
    unlock_registry();
    return found;
}

/* The states still registered to instance c, unregistered and freed (fmi2FreeInstance). */
static void free_states_of(void *c)
{
    lock_registry();
    for (size_t i = 0; i < n_registry;)
        if (registry[i].owner == c) {
            free(registry[i].p);
            registry[i] = registry[--n_registry];
        } else {
            i++;
        }
    unlock_registry();
}

static void not_live(void *comp, const char *function)
{
    fprintf(stderr, "simon-fmu: %s: component %p is no live instance of this FMU (freed "
            "already, or never instantiated); refused with fmi2Error\n", function, comp);
}

/* One call at a time on an instance. FMI 2.0 forbids concurrent calls on one instance; a host
   that makes them anyway (or frees an instance while another thread steps it) gets them one
   after the other, as the development FMU's library does. The instance's lock (`calls`, the
   locks above) is held from the start of a call to its end; `owner`, the calling thread's
   identity, lets the thread that holds it call again (a logger calling back into the
   instance). `users` (under the registry's lock) counts the calls in or waiting for one, so
   that fmi2FreeInstance frees the memory only after every call that waited has seen that the
   instance is gone. */
static uintptr_t thread_id(void)
{
#ifdef _WIN32
    return (uintptr_t)GetCurrentThreadId() + 1u;
#else
    return (uintptr_t)pthread_self();
#endif
}

static void lock_calls(sn_instance *c)
{
    uintptr_t me = thread_id();
    if (__atomic_load_n(&c->owner, __ATOMIC_ACQUIRE) == me) {
        c->depth++;
        return;
    }
    take(&c->calls);
    __atomic_store_n(&c->owner, me, __ATOMIC_RELEASE);
    c->depth = 1;
}

static void unlock_calls(sn_instance *c)
{
    if (--c->depth == 0) {
        __atomic_store_n(&c->owner, (uintptr_t)0, __ATOMIC_RELEASE);
        give(&c->calls);
    }
}

/* one call less in or waiting for c */
static void leave(sn_instance *c)
{
    lock_registry();
    c->users--;
    unlock_registry();
}

/* comp as a live instance, its calls' lock taken (waited for), or NULL with the refusal
   written to stderr (no logger to say it with: the instance is not one, or was freed while
   this call waited). Every acquire that answers an instance is matched by release_call. */
static sn_instance *acquire(void *comp, const char *function)
{
    sn_instance *c = (sn_instance *)comp;
    lock_registry();
    int found = c != NULL && entry_of(comp, NULL) < n_registry;
    if (found)
        c->users++;
    unlock_registry();
    if (!found) {
        not_live(comp, function);
        return NULL;
    }
    lock_calls(c);
    if (c->retired) {                   /* freed while this call waited */
        unlock_calls(c);
        leave(c);
        not_live(comp, function);
        return NULL;
    }
    return c;
}

static void release_call(sn_instance *c)
{
    unlock_calls(c);
    leave(c);
}

static void leave_call(sn_instance **held)
{
    if (*held != NULL)
        release_call(*held);
}

/* the FMU's floating-point environment in every entry point (FP_GUARD): fp_guard.h */

/* comp as a live instance for the rest of the entry point, its calls' lock held until the
   entry point returns (the cleanup of c_held), or a return of `failure`. */
#define LIVE(c, comp, function, failure) \
    FP_GUARD \
    sn_instance *c = acquire((comp), (function)); \
    sn_instance *c##_held __attribute__((cleanup(leave_call))) = c; \
    if (c == NULL) return failure;

static uint32_t rd32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t rd64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }

/* The resources file's path from fmuResourceLocation: the location's local path
   (uri_path.h, the development FMU's reading too) and native.bin in it. NULL for a location
   it cannot take (the development FMU's message in c->failure) or without memory. */
static char *resource_path(sn_instance *c, const char *location)
{
    size_t n = location != NULL ? strlen(location) : 0;
    char *out = malloc(n + strlen(SN_FILE) + 4);
    int k = out != NULL ? sn_uri_path(location, out, n + 3) : -1;
    if (k <= 0) {
        free(out);
        snprintf(c->failure, sizeof c->failure, "the resource location %s is no local file URI",
                 location ? location : "(none)");
        return NULL;
    }
    if (out[k - 1] != '/')
        out[k++] = '/';
    strcpy(out + k, SN_FILE);
    return out;
}

#ifdef _WIN32
/* _wfopen(wide, "rb") of a path of MAX_PATH (260) characters or more: Windows opens one only
   in its extended form, \\?\C:\a\b or \\?\UNC\server\share\b, made from the full path
   (GetFullPathNameW, which also turns / into \ and takes out . and ..); hosts extract FMUs
   into deep folders of their own */
static FILE *open_long(const wchar_t *wide)
{
    unsigned long n = GetFullPathNameW(wide, 0, NULL, NULL);
    wchar_t *full = n > 0 ? malloc((n + 8) * sizeof *full) : NULL;
    if (full == NULL)
        return NULL;
    wchar_t *at = full + 8;
    FILE *f = NULL;
    unsigned long m = GetFullPathNameW(wide, n, at, NULL);
    if (m > 0 && m < n) {
        if (wcsncmp(at, L"\\\\?\\", 4) == 0) {
            /* extended already */
        } else if (wcsncmp(at, L"\\\\", 2) == 0) {      /* \\server\share: \\?\UNC\server\share */
            at -= 6;
            wmemcpy(at, L"\\\\?\\UNC", 7);
        } else {
            at -= 4;
            wmemcpy(at, L"\\\\?\\", 4);
        }
        f = _wfopen(at, L"rb");
    }
    free(full);
    return f;
}
#endif

/* fopen(path, "rb"); on Windows a path of UTF-8 bytes (what a URI's percent-encoding gives) is
   opened by its UTF-16 name, as Windows names files, where fopen would read the bytes in the
   ANSI code page and miss a folder whose name is not ASCII (a user's profile, "C:/Users/
   Jürgen/"); a path that is not UTF-8 (a host that passed its code page's bytes as they
   stand) or not found so is opened by its bytes. */
static FILE *open_for_reading(const char *path)
{
#ifdef _WIN32
    int nw = MultiByteToWideChar(SN_CP_UTF8, SN_MB_ERR_INVALID_CHARS, path, -1, NULL, 0);
    wchar_t *wide = nw > 0 ? malloc((size_t)nw * sizeof *wide) : NULL;
    if (wide != NULL) {
        FILE *f = NULL;
        if (MultiByteToWideChar(SN_CP_UTF8, SN_MB_ERR_INVALID_CHARS, path, -1, wide, nw) == nw)
            f = nw - 1 >= 260 ? open_long(wide) : _wfopen(wide, L"rb");
        free(wide);
        if (f != NULL)
            return f;
    }
#endif
    return fopen(path, "rb");
}

static sn_array *find(sn_instance *c, const char *name)
{
    for (int i = 0; i < c->narrays; i++)
        if (strcmp(c->arrays[i].name, name) == 0)
            return &c->arrays[i];
    return NULL;
}

/* the NUL-separated strings of a uint8 array, as a table of n pointers */
static const char **strings(sn_array *a, int *n)
{
    int count = 0;
    const char *s = (const char *)a->init;
    for (uint64_t i = 0; i < a->nbytes; i++)
        if (s[i] == '\0')
            count++;
    const char **out = calloc((size_t)count + 1, sizeof *out);
    if (out == NULL)
        return NULL;
    uint64_t at = 0;
    for (int i = 0; i < count; i++) {
        out[i] = s + at;
        at += strlen(s + at) + 1;
    }
    *n = count;
    return out;
}

/* Read, check and index the resources file; NULL or the reason it is refused. */
static const char *load(sn_instance *c, const char *path)
{
    /* the reason in the instance's own buffer (two instantiations on two threads shared one) */
    char *why = c->failure;
    const size_t room = sizeof c->failure;
    FILE *f = open_for_reading(path);
    if (f == NULL) {
        snprintf(why, room, "cannot open %s", path);
        return why;
    }
    /* the header, then as many bytes as it says the file holds (no seek and tell: a long is
       32 bits on Windows) */
    unsigned char head[32];
    if (fread(head, 1, sizeof head, f) != sizeof head) {
        fclose(f);
        snprintf(why, room, "%s is too short", path);
        return why;
    }
    uint64_t declared = rd64(head + 24);
    if (memcmp(head, SN_MAGIC, 8) != 0 || rd32(head + 8) != SN_VERSION || declared < 32
            || declared > (uint64_t)SIZE_MAX) {
        fclose(f);
        snprintf(why, room, "%s is not a native FMU resources file of version %u", path,
                 SN_VERSION);
        return why;
    }
    size_t size = (size_t)declared;
    c->file = malloc(size);
    if (c->file == NULL) {
        fclose(f);
        snprintf(why, room, "cannot read %s (out of memory)", path);
        return why;
    }
    memcpy(c->file, head, sizeof head);
    size_t got = fread(c->file + sizeof head, 1, size - sizeof head, f);
    int more = fgetc(f) != EOF;
    fclose(f);
    if (got != size - sizeof head || more) {        /* shorter or longer than it says */
        snprintf(why, room, "%s is not a native FMU resources file of version %u", path,
                 SN_VERSION);
        return why;
    }
    c->file_size = size;
    const unsigned char *b = c->file;
    if (fnv1a64(b + 32, size - 32) != rd64(b + 16)) {
        snprintf(why, room, "%s is corrupt (its digest does not match)", path);
        return why;
    }
    uint32_t count = rd32(b + 12);
    if (count > SN_MAX_ARRAYS) {
        snprintf(why, room, "%s holds %u arrays, at most %d are read", path, count,
                 SN_MAX_ARRAYS);
        return why;
    }
    size_t at = 32, total = 0;
    for (uint32_t i = 0; i < count; i++) {
        sn_array *a = &c->arrays[i];
        if (at + 4 > size) goto truncated;
        uint32_t n = rd32(b + at);
        if (at + 4 + n + 16 > size) goto truncated;
        char *name = calloc(n + 1, 1);
        if (name == NULL) goto truncated;
        memcpy(name, b + at + 4, n);
        a->name = name;
        c->narrays++;                       /* from here on release() frees its name */
        at += 4 + n;
        at += (8 - at % 8) % 8;
        a->dtype = (int32_t)rd32(b + at);
        a->ndim = (int32_t)rd32(b + at + 4);
        at += 8;
        if (a->ndim < 0 || a->ndim > SN_MAX_NDIM || a->dtype < 1 || a->dtype > 3) goto truncated;
        a->itemsize = a->dtype == 3 ? 1 : 8;
        a->nitems = 1;
        for (int d = 0; d < a->ndim; d++) {
            a->shape[d] = (int64_t)rd64(b + at + 8 * (size_t)d);
            if (a->shape[d] < 0 || (a->shape[d] > 0 && a->nitems > INT64_MAX / 8 / a->shape[d]))
                goto truncated;
            a->nitems *= a->shape[d];
        }
        at += 8 * (size_t)a->ndim;
        int64_t stride = a->itemsize;
        for (int d = a->ndim - 1; d >= 0; d--) {
            a->strides[d] = stride;
            stride *= a->shape[d];
        }
        a->nbytes = rd64(b + at);
        at += 8;
        if (a->nbytes != (uint64_t)(a->nitems * a->itemsize) || at + a->nbytes > size)
            goto truncated;
        a->init = b + at;
        at += a->nbytes;
        at += (8 - at % 8) % 8;
        total += (a->nbytes + 63) / 64 * 64 + 64;
    }
    /* the instance's buffers: one allocation, 64-byte aligned slices */
    c->pool = calloc(total + 64, 1);
    if (c->pool == NULL) {
        snprintf(why, room, "out of memory (%zu bytes)", total);
        return why;
    }
    unsigned char *p = (unsigned char *)(((uintptr_t)c->pool + 63) & ~(uintptr_t)63);
    for (int i = 0; i < c->narrays; i++) {
        c->arrays[i].data = p;
        p += (c->arrays[i].nbytes + 63) / 64 * 64 + 64;
    }
    return NULL;
truncated:
    snprintf(why, room, "%s is truncated or malformed", path);
    return why;
}

/* every buffer back to the values of the file (instantiation and reset) */
static void restore_initial(sn_instance *c)
{
    for (int i = 0; i < c->narrays; i++)
        memcpy(c->arrays[i].data, c->arrays[i].init, c->arrays[i].nbytes);
    c->phase = PHASE_INSTANTIATED;
    c->start_time = c->comm_time = 0.0;
    c->time = c->grid_time = 0.0;
    c->grid_steps = 0;
    c->stop_defined = 0;
    c->stop_time = 0.0;
    c->last_step_status = fmi2OK;
    c->failed = 0;
    c->failure[0] = '\0';
    c->step = c->meta[M_STEP];
}

/* out[i] = the array names[i], i < n; NULL, or the first name the resources lack */
static const char *find_all(sn_instance *c, const char *const *names, int n, sn_array **out)
{
    for (int i = 0; i < n; i++)
        if ((out[i] = find(c, names[i])) == NULL)
            return names[i];
    return NULL;
}

/* tune.methods and tune.method hold together: a row per item of the parameter integrator
   (its range 1..rows), each with its largest step, its texts inside tune.texts and a joints'
   limit with its text, or none */
static int methods_ok(sn_instance *c, int ntx)
{
    if (c->ntune_methods < 1 || c->method_vr < 0 || c->method_vr >= c->nvars || c->step_vr < 0
            || c->step_vr >= c->nvars || c->var_table[5 * c->method_vr + 2] != C_PARAMETER
            || c->var_table[5 * c->step_vr + 2] != C_PARAMETER
            || !(c->tune_lo[c->method_vr] >= 1.0)
            || !(c->tune_hi[c->method_vr] <= (double)c->ntune_methods))
        return 0;
    for (int m = 0; m < c->ntune_methods; m++) {
        const double *row = c->tune_methods + MT_COUNT * m;
        double jt = row[MT_JOINT_TEXT], rt = row[MT_RANGE_TEXT];
        if (!(jt == -1.0 ? !(row[MT_JOINT] < INFINITY) : jt >= 0.0 && jt + 1.0 < (double)ntx)
                || !(rt >= 0.0 && rt + 1.0 < (double)ntx) || !(row[MT_MAX_STEP] > 0.0))
            return 0;
    }
    return 1;
}

/* the integration method the parameter integrator chooses: its row of tune.methods */
static int method_of(sn_instance *c)
{
    int m = (int)c->tune_value[c->method_vr] - 1;
    return m >= 0 && m < c->ntune_methods ? m : 0;
}

static const char *bind(sn_instance *c)
{
    char *why = c->failure;      /* the instance's own buffer */
    const size_t room = sizeof c->failure;
    if (find_all(c, sn_advance_arrays, sn_advance_narrays, c->adv) != NULL)
        goto missing_adv;
    const struct { const char *const *names; int n; sn_array **out; } kernels[] = {
        {sn_record_arrays, sn_record_narrays, c->rec},
        {sn_engage_clutches_arrays, sn_engage_clutches_narrays, c->eng},
        {sn_place_launch_arrays, sn_place_launch_narrays, c->lau},
        {sn_place_towed_arrays, sn_place_towed_narrays, c->tow},
        {sn_footprint_hits_arrays, sn_footprint_hits_narrays, c->apart},
        {sn_start_overlaps_arrays, sn_start_overlaps_narrays, c->clear},
        {sn_settle_on_terrain_arrays, sn_settle_on_terrain_narrays, c->settle},
        {sn_preload_lateral_arrays, sn_preload_lateral_narrays, c->pre},
        {sn_stable_step_arrays, sn_stable_step_narrays, c->stab},
        {sn_state_fault_arrays, sn_state_fault_narrays, c->chk}};
    for (size_t k = 0; k < sizeof kernels / sizeof *kernels; k++) {
        const char *missing = find_all(c, kernels[k].names, kernels[k].n, kernels[k].out);
        if (missing != NULL) {
            snprintf(why, room, "the resources have no array %s", missing);
            return why;
        }
    }
    for (int i = 0; i < 3; i++)
        if (!(c->in[i] = find(c, INPUT_NAMES[i])) || !(c->shadow[i] = find(c, SHADOW_NAMES[i]))
                || c->in[i]->nbytes != c->shadow[i]->nbytes) {
            snprintf(why, room, "the resources' inputs %s do not match", INPUT_NAMES[i]);
            return why;
        }
    const char *missing = find_all(c, OUTPUT_NAMES, N_OUTPUTS, c->out);
    if (missing != NULL) {
        snprintf(why, room, "the resources have no array %s", missing);
        return why;
    }
    const char *needed[] = {"y", "err", "W.fault", "var.table", "var.value", "var.names", "in.lo",
                            "in.hi", "in.whole", "in.names", "in.accepts", "in.whole_texts",
                            "meta",
                            "tire.names", "state.names", "step.method", "P.P_TIRE", "tune.kind",
                            "tune.lo", "tune.hi", "tune.accepts", "tune.rows", "tune.targets",
                            "tune.zero", "tune.zero_tail", "tune.items", "tune.texts",
                            "tune.speed", "tune.stable", "tune.methods", "tune.method",
                            "tune.reasons", "tune.launch",
                            "tune.towed", "tune.apart", "apart.heads", "apart.quoted",
                            "tune.clear", "clear.nv", "clear.texts", "clear.fields",
                            "clear.columns", "clear.check", "clear.hits",
                            "tune.terrain", "tune.terrain_flags", "terrain.y", "terrain.texts",
                            "wheel.names", "settle.fault", "terrain.check", "pre.Y.y_tire",
                            "pre.vn", "tune.wheels", "settle.u_wheel", "pre.U.u_wheel"};
    for (size_t i = 0; i < sizeof needed / sizeof *needed; i++)
        if (find(c, needed[i]) == NULL) {
            snprintf(why, room, "the resources have no array %s", needed[i]);
            return why;
        }
    c->y = find(c, "y")->data;
    c->err = find(c, "err")->data;
    c->fault = find(c, "W.fault")->data;
    sn_array *t = find(c, "var.table");
    if (t->dtype != 2 || t->ndim != 2 || t->shape[1] != 5) {
        snprintf(why, room, "the resources' variable table is inconsistent");
        return why;
    }
    c->var_table = (const int64_t *)t->init;
    c->nvars = (int)t->shape[0];
    c->var_value = (const double *)find(c, "var.value")->init;
    int n;
    c->var_names = strings(find(c, "var.names"), &n);
    if (c->var_names != NULL && n != c->nvars) {
        snprintf(why, room, "the resources' variable table is inconsistent");
        return why;
    }
    sn_array *lo = find(c, "in.lo");
    c->in_lo = (const double *)lo->init;
    c->nin = (int)lo->nitems;
    c->in_hi = (const double *)find(c, "in.hi")->init;
    c->in_whole = (const int64_t *)find(c, "in.whole")->init;
    c->in_names = strings(find(c, "in.names"), &n);
    c->in_accepts = strings(find(c, "in.accepts"), &n);
    c->in_whole_texts = strings(find(c, "in.whole_texts"), &c->nwhole_texts);
    c->meta = (const double *)find(c, "meta")->init;
    c->tire_names = strings(find(c, "tire.names"), &c->ntires);
    c->state_names = strings(find(c, "state.names"), &c->nstates);
    c->step_method = strings(find(c, "step.method"), &c->nstep_method);
    c->tune_kind = (const int64_t *)find(c, "tune.kind")->init;
    c->tune_value = find(c, "var.value")->data;
    c->tune_lo = (const double *)find(c, "tune.lo")->init;
    c->tune_hi = (const double *)find(c, "tune.hi")->init;
    sn_array *tr = find(c, "tune.rows"), *ti = find(c, "tune.items"), *ts = find(c, "tune.speed");
    c->tune_rows = (const double *)tr->init;
    c->ntune_rows = tr->ndim == 2 && tr->shape[1] == 6 ? (int)tr->shape[0] : -1;
    c->tune_items = (const double *)ti->init;
    c->ntune_items = ti->ndim == 2 && ti->shape[1] == 3 ? (int)ti->shape[0] : -1;
    c->tune_speed = (const double *)ts->init;
    c->ntune_speed = ts->ndim == 2 && ts->shape[1] == 3 ? (int)ts->shape[0] : -1;
    sn_array *tl = find(c, "tune.launch");
    c->tune_launch = (const double *)tl->init;
    c->ntune_launch = tl->ndim == 2 && tl->shape[1] == 6 ? (int)tl->shape[0] : -1;
    c->tune_stable = (const double *)find(c, "tune.stable")->init;
    sn_array *tm = find(c, "tune.methods"), *tv = find(c, "tune.method");
    c->tune_methods = (const double *)tm->init;
    c->ntune_methods = tm->dtype == 1 && tm->ndim == 2 && tm->shape[1] == MT_COUNT
                       && tm->shape[0] > 0 ? (int)tm->shape[0] : -1;
    c->method_vr = tv->dtype == 2 && tv->nitems == 2 ? ((const int64_t *)tv->init)[0] : -1;
    c->step_vr = tv->dtype == 2 && tv->nitems == 2 ? ((const int64_t *)tv->init)[1] : -1;
    sn_array *tt = find(c, "tune.towed");
    c->tune_towed = tt->dtype != 2 || tt->nitems != 1 ? -1 : *(const int64_t *)tt->init;
    sn_array *ta = find(c, "tune.apart");
    c->tune_apart = ta->dtype != 2 || ta->nitems != 1 ? -1 : *(const int64_t *)ta->init;
    c->apart_heads = strings(find(c, "apart.heads"), &c->napart_heads);
    c->apart_quoted = strings(find(c, "apart.quoted"), &c->napart_quoted);
    sn_array *tc = find(c, "tune.clear"), *cn = find(c, "clear.nv"), *cc = find(c, "clear.columns");
    sn_array *ce = find(c, "clear.check");
    c->tune_clear = tc->dtype != 2 || tc->nitems != 1 ? -1 : *(const int64_t *)tc->init;
    c->clear_texts = strings(find(c, "clear.texts"), &c->nclear_texts);
    c->clear_fields = strings(find(c, "clear.fields"), &c->nclear_fields);
    c->clear_nv = (const int64_t *)cn->init;
    c->clear_columns = (const int64_t *)cc->init;
    c->clear_check = (const double *)ce->init;
    c->clear_hits = find(c, "clear.hits");
    int clear_ok = c->tune_clear >= 0 && c->clear_texts && c->clear_fields && cn->dtype == 2
        && cc->dtype == 2 && ce->dtype == 1 && ce->nitems == 3 && c->clear_hits->dtype == 1
        && c->clear_hits->ndim == 3 && cn->nitems == c->clear_hits->shape[0]
        && c->nclear_texts == 2 * c->clear_hits->shape[0] * c->clear_hits->shape[1]
        && cc->ndim == 2 && cc->shape[0] == c->nclear_fields && cc->shape[1] == 2
        && c->clear_check[1] >= 0 && c->clear_check[1] < c->clear_hits->shape[2]
        && c->clear_check[2] >= 0 && c->clear_check[2] < c->clear_hits->shape[2];
    for (int f = 0; clear_ok && f < c->nclear_fields; f++)
        clear_ok = strlen(c->clear_fields[f]) == 1 && c->clear_columns[2 * f] >= 0
                   && c->clear_columns[2 * f] < c->clear_hits->shape[2];
    sn_array *tr_ = find(c, "tune.terrain"), *tf = find(c, "tune.terrain_flags");
    c->terrain_rows = (const double *)tr_->init;
    c->nterrain_rows = tr_->ndim == 2 && tr_->shape[1] == 6 && tr_->dtype == 1 ? (int)tr_->shape[0] : -1;
    c->terrain_towed = tf->dtype == 2 && tf->nitems == 3 ? ((const int64_t *)tf->init)[0] : -1;
    c->terrain_pitch = tf->dtype == 2 && tf->nitems == 3 ? ((const int64_t *)tf->init)[1] : -1;
    c->terrain_settle = tf->dtype == 2 && tf->nitems == 3 ? ((const int64_t *)tf->init)[2] : -1;
    c->tune_wheels = strings(find(c, "tune.wheels"), &c->ntune_wheels);
    c->settle_u_wheel = find(c, "settle.u_wheel");
    c->pre_u_wheel = find(c, "pre.U.u_wheel");
    sn_array *ty = find(c, "terrain.y");
    c->terrain_y = ty->dtype == 1 && ty->nbytes == find(c, "y")->nbytes ? (const double *)ty->init : NULL;
    c->terrain_texts = strings(find(c, "terrain.texts"), &c->nterrain_texts);
    c->wheel_names = strings(find(c, "wheel.names"), &c->nwheel_names);
    int na, nz, nzt, ntx;
    c->tune_accepts = strings(find(c, "tune.accepts"), &na);
    c->tune_zero = strings(find(c, "tune.zero"), &nz);
    c->tune_zero_tail = strings(find(c, "tune.zero_tail"), &nzt);
    c->tune_texts = strings(find(c, "tune.texts"), &ntx);
    int nr;
    c->tune_reasons = strings(find(c, "tune.reasons"), &nr);
    const char **targets = strings(find(c, "tune.targets"), &c->ntune_targets);
    int targets_ok = targets != NULL && c->ntune_targets <= SN_MAX_TARGETS;
    for (int k = 0; targets_ok && k < c->ntune_targets; k++)
        targets_ok = (c->tune_target[k] = find(c, targets[k])) != NULL
                     && c->tune_target[k]->dtype == 1;
    free(targets);
    if (!targets_ok || !c->tune_accepts || !c->tune_zero || !c->tune_zero_tail || !c->tune_texts
            || !c->tune_reasons || nr != c->nvars || na != c->nvars || nz != c->nvars
            || nzt != c->nvars || c->ntune_rows < 0
            || c->ntune_items < 0 || c->ntune_speed < 0 || c->ntune_launch < 0
            || c->tune_towed < 0 || c->tune_apart < 0 || !c->apart_heads || !c->apart_quoted
            || !clear_ok
            || c->nterrain_rows < 0 || c->terrain_towed < 0 || c->terrain_pitch < 0
            || c->terrain_settle < 0 || !c->tune_wheels
            || c->in[1]->ndim != 2 || c->ntune_wheels != c->in[1]->shape[1]
            || c->settle_u_wheel->nbytes != c->in[1]->nbytes
            || c->pre_u_wheel->nbytes != c->in[1]->nbytes
            || !c->terrain_y || !c->terrain_texts || c->nterrain_texts != TX_COUNT
            || !c->wheel_names || find(c, "terrain.check")->nitems != 6
            || find(c, "pre.Y.y_tire")->ndim != 2 || find(c, "pre.vn")->ndim != 2
            || c->apart[5]->nitems != c->napart_heads || c->apart[3]->shape[0] != c->napart_quoted
            || find(c, "var.value")->nitems != c->nvars || find(c, "tune.kind")->nitems != c->nvars
            || find(c, "tune.stable")->nitems != S_COUNT
            || !methods_ok(c, ntx)) {
        snprintf(why, room, "the resources' parameter tables are inconsistent");
        return why;
    }
    for (int r = 0; r < c->ntune_rows; r++) {
        const double *row = c->tune_rows + 6 * r;
        int64_t vr = (int64_t)row[0], t = (int64_t)row[1], k = (int64_t)row[2];
        if (vr < 0 || vr >= c->nvars || t < 0 || t >= c->ntune_targets || k < 0
                || k >= c->tune_target[t]->nitems) {
            snprintf(why, room, "the resources' parameter tables are inconsistent");
            return why;
        }
    }
    for (int r = 0; r < c->nterrain_rows; r++) {
        const double *row = c->terrain_rows + 6 * r;
        if ((int64_t)row[0] < 0 || (int64_t)row[0] >= c->nvars || (int64_t)row[2] < 0
                || (int64_t)row[2] >= find(c, "y")->nitems) {
            snprintf(why, room, "the resources' parameter tables are inconsistent");
            return why;
        }
    }
    for (int r = 0; r < c->ntune_items; r++)
        if ((int64_t)c->tune_items[3 * r + 2] < 0 || (int64_t)c->tune_items[3 * r + 2] >= ntx) {
            snprintf(why, room, "the resources' parameter tables are inconsistent");
            return why;
        }
    for (int r = 0; r < c->ntune_speed; r++)
        if ((int64_t)c->tune_speed[3 * r + 2] < 0 || (int64_t)c->tune_speed[3 * r + 2] >= ntx
                || (int64_t)c->tune_speed[3 * r] < 0 || (int64_t)c->tune_speed[3 * r] >= c->nvars) {
            snprintf(why, room, "the resources' parameter tables are inconsistent");
            return why;
        }
    /* an FMU state holds every array that changes: the kernels' state, inputs, outputs and
       scratch, the slave's inputs, the parameters' values, the set-up's copies of the wheel
       inputs, and the packed parameters that a parameter writes */
    for (int i = 0; i < c->narrays; i++) {
        const char *n = c->arrays[i].name;
        c->mutable_[i] = strcmp(n, "y") == 0 || strcmp(n, "work") == 0 || strcmp(n, "dy") == 0 ||
            strcmp(n, "err") == 0 || strncmp(n, "U.", 2) == 0 || strncmp(n, "Y.", 2) == 0 ||
            strncmp(n, "W.", 2) == 0 || strcmp(n, "in.u_unit") == 0 ||
            strcmp(n, "in.u_wheel") == 0 || strcmp(n, "in.u_env") == 0 ||
            strcmp(n, "var.value") == 0 ||
            /* the set-up's copies of the wheel inputs (take_wheel_inputs): a read in
               initialisation mode runs the set-up and puts back what it changed */
            strcmp(n, "settle.u_wheel") == 0 || strcmp(n, "pre.U.u_wheel") == 0;
    }
    /* ... and the arrays a parameter writes; of the packed parameters among them, the slots
       it writes, the only ones a state may change (state_problem; the rows are checked above) */
    for (int r = 0; r < c->ntune_rows; r++) {
        sn_array *a = c->tune_target[(int64_t)c->tune_rows[6 * r + 1]];
        int i = (int)(a - c->arrays);
        c->mutable_[i] = 1;
        if (strncmp(a->name, "P.", 2) != 0)
            continue;
        if (c->tunable[i] == NULL && (c->tunable[i] = calloc((size_t)a->nitems, 1)) == NULL) {
            snprintf(why, room, "out of memory");
            return why;
        }
        c->tunable[i][(int64_t)c->tune_rows[6 * r + 2]] = 1;
    }
    sn_array *pt = find(c, "P.P_TIRE");
    c->p_tire = pt->data;
    c->p_tire_cols = pt->ndim == 2 ? pt->shape[1] : 0;
    if (!c->var_names || !c->in_names || !c->in_accepts || !c->in_whole_texts || !c->tire_names
            || !c->state_names || !c->step_method || c->nstep_method != c->ntune_methods
            || c->nstates != find(c, "y")->nitems || c->chk[0] != find(c, "y")
            || c->chk[sn_state_fault_narrays - 1]->nitems != 3
            || c->nin != (int)(c->in[0]->nitems + c->in[1]->nitems + c->in[2]->nitems)) {
        snprintf(why, room, "the resources' tables are inconsistent");
        return why;
    }
    for (int k = 0; k < c->nin; k++)
        if (c->in_whole[k] < 0 || c->in_whole[k] >= c->nwhole_texts) {
            snprintf(why, room, "the resources' tables are inconsistent");
            return why;
        }
    /* every variable's row names a value inside the array it reads and writes (type,
       causality, source and slot, var() and get_value) */
    for (int64_t vr = 0; vr < c->nvars; vr++) {
        const int64_t *t = c->var_table + 5 * vr;
        int64_t source = t[3], slot = t[4], items = -1;
        if (source >= 0 && source < 3)
            items = c->shadow[source]->nitems;
        else if (source >= 3 && source < S_PARAMETER)
            items = c->out[source - 3]->nitems;
        else if (source == S_PARAMETER || source == S_CALCULATED)
            items = 1;
        if (t[0] < 0 || t[0] >= c->nvars || t[1] < T_REAL || t[1] > T_BOOLEAN
                || t[2] < C_PARAMETER || t[2] > C_OUTPUT || items < 0
                || ((source < S_PARAMETER) && (slot < 0 || slot >= items))) {
            snprintf(why, room, "the resources' variable table is inconsistent "
                     "(value reference %lld)", (long long)vr);
            return why;
        }
    }
    c->whole_at = calloc((size_t)c->nin + 1, sizeof *c->whole_at);
    if (c->whole_at == NULL) {
        snprintf(why, room, "out of memory");
        return why;
    }
    for (int k = 0; k < c->nin; k++)
        if (c->in_whole[k])
            c->whole_at[c->nwhole++] = k;
    return NULL;
missing_adv:
    snprintf(why, room, "the resources have no array for the kernel's arguments");
    return why;
}

static void release(sn_instance *c)
{
    if (c == NULL)
        return;
    for (int i = 0; i < c->narrays; i++) {
        free((void *)c->arrays[i].name);
        free(c->tunable[i]);
    }
    free(c->var_names);
    free(c->in_names);
    free(c->in_accepts);
    free(c->in_whole_texts);
    free(c->whole_at);
    free(c->tire_names);
    free(c->state_names);
    free(c->step_method);
    free(c->tune_accepts);
    free(c->tune_zero);
    free(c->tune_zero_tail);
    free(c->tune_texts);
    free(c->tune_reasons);
    free(c->apart_heads);
    free(c->apart_quoted);
    free(c->clear_texts);
    free(c->clear_fields);
    free(c->terrain_texts);
    free(c->wheel_names);
    free(c->tune_wheels);
    free(c->pool);
    free(c->file);
    free(c->name);
    free(c);
}

/* ------------------------------------------------------------------ the engine's clock */

static double value_of(sn_array *a, int64_t k) { return ((double *)a->data)[k]; }

/* engine.Simulation._run: the kernel, and the failure's message */
static int run(sn_instance *c, double h, int64_t n, char *why, size_t size)
{
    int64_t done = 0;
    int32_t status = sn_call_advance(c->level, c->adv, c->time, h, n, &done);
    if (status != 0) {
        snprintf(why, size, "the integrator kernel returned status %d", (int)status);
        return -1;
    }
    int64_t code = c->err[0];
    if (code == 0)
        return 0;
    int64_t idx = c->err[1];
    double t_fail = n > 1 ? c->grid_time + (double)(c->grid_steps + done) * h : c->time + (double)done * h;
    c->time = t_fail;
    c->grid_time = t_fail;
    c->grid_steps = 0;
    if (code == (int64_t)c->meta[M_ERR_DEFLECTION] && idx >= 0 && idx < c->ntires) {
        double tmax = c->p_tire[idx * c->p_tire_cols + (int64_t)c->meta[M_T_DMAX]];
        snprintf(why, size, "%s: tire deflection exceeds its maximum of %g m after t = %.6g s "
                 "(the wheel rim would deform; beyond the tire model)", c->tire_names[idx], tmax, t_fail);
    } else if (code == (int64_t)c->meta[M_ERR_OFF_TERRAIN] && idx >= 0 && idx < c->ntires) {
        snprintf(why, size, "%s: off the terrain at X = %.6g m, Y = %.6g m after t = %.6g s "
                 "(no road polygon under the tire)", c->tire_names[idx], c->fault[0], c->fault[1], t_fail);
    } else if (code == (int64_t)c->meta[M_ERR_NONFINITE] && idx >= 0 && idx < c->nstates) {
        snprintf(why, size, "%s: state became non-finite after t = %.6g s", c->state_names[idx], t_fail);
    } else {
        snprintf(why, size, "engine error %lld at index %lld", (long long)code, (long long)idx);
    }
    return 1;
}

/* whether every input is finite, within its range and whole where it must be: one pass
   without a branch per value (v - v is 0 for a finite v only), which is all a step pays when
   they are; bad_input finds the first one that is not, for the message */
static int inputs_ok(const sn_instance *c)
{
    int k = 0, ok = 1;
    for (int s = 0; s < 3; s++) {
        const double *u = c->in[s]->data;
        for (int64_t i = 0; i < c->in[s]->nitems; i++, k++) {
            double v = u[i];
            ok &= (v - v == 0.0) & (v >= c->in_lo[k]) & (v <= c->in_hi[k]);
        }
    }
    for (int j = 0; ok && j < c->nwhole; j++) {
        int w = c->whole_at[j], s = 0;
        int64_t i = w;
        while (i >= c->in[s]->nitems)
            i -= c->in[s++]->nitems;
        double v = ((const double *)c->in[s]->data)[i];
        ok = v == round(v);
    }
    return ok;
}

/* the first input that Simulation.check_inputs refuses, or -1; *kind: 0 not finite, 1 out
   of range, 2 not whole */
static int bad_input(sn_instance *c, double *value, int *kind)
{
    int k = 0;
    for (int s = 0; s < 3; s++) {
        const double *u = c->in[s]->data;
        for (int64_t i = 0; i < c->in[s]->nitems; i++, k++) {
            double v = u[i];
            *value = v;
            if (!isfinite(v)) { *kind = 0; return k; }
            if (v < c->in_lo[k] || v > c->in_hi[k]) { *kind = 1; return k; }
            if (c->in_whole[k] && v != round(v)) { *kind = 2; return k; }
        }
    }
    return -1;
}

/* the clutches engage before the first step for the gears (transmission and differential) the
   run starts in: the kernel engine.drivetrain.engage_clutches, as engine.Simulation calls it */
static void engage_clutches(sn_instance *c)
{
    int64_t status = 0;
    sn_call_engage_clutches(c->level, c->eng, &status);
}

/* engine.Simulation.advance to t_end (from start_time); 0 done, 1 refused (why), 2 failed */
static int advance(sn_instance *c, double t_end, char *why, size_t size)
{
    double h = c->step;
    double t_max = c->time + c->meta[M_MAX_STEPS] * h;
    if (!isfinite(t_end) || !(c->time <= t_end && t_end <= t_max)) {
        char a[40], b[40];
        py_repr(a, sizeof a, t_end);
        py_repr(b, sizeof b, c->time);
        snprintf(why, size, "t_end = %s, it accepts a time in %s .. %g s (from the current time, at "
                 "most %.0f steps of %g s)", a, b, t_max, c->meta[M_MAX_STEPS], h);
        return 1;
    }
    if (c->time == 0.0 && c->grid_steps == 0)
        engage_clutches(c);
    /* the integrator counts this call's split steps (engine.integrator.advance) */
    memset(c->out[O_SOLVER]->data, 0, c->out[O_SOLVER]->nbytes);
    double tol = 1e-9 * fmax(1.0, fabs(t_end));
    int64_t n_total = (int64_t)floor((t_end - c->grid_time) / h + 1e-6);
    int64_t n = n_total - c->grid_steps;
    int r;
    if (n > 0) {
        if ((r = run(c, h, n, why, size)) != 0)
            return 2;
        c->grid_steps += n;
        c->time = c->grid_time + (double)c->grid_steps * h;
    }
    double rest = t_end - c->time;
    if (rest > tol) {
        if ((r = run(c, rest, 1, why, size)) != 0)
            return 2;
        c->grid_time = t_end;
        c->grid_steps = 0;
        c->time = t_end;
    } else if (fabs(rest) <= tol) {
        c->time = n <= 0 ? t_end : c->time;
    }
    return 0;
}

/* ------------------------------------------------------------------ the parameters */

static size_t state_size(sn_instance *c);
static void state_write(sn_instance *c, unsigned char *p);
static void state_read(sn_instance *c, const unsigned char *p);
static fmi2Status fail(sn_instance *c, const char *reason);

/* a parameter's value as the development FMU prints it ({value!r}) */
static void param_repr(sn_instance *c, int64_t vr, char *buf, size_t size)
{
    const int64_t *t = c->var_table + 5 * vr;
    if (t[1] == T_INTEGER)
        snprintf(buf, size, "%.0f", c->tune_value[vr]);   /* whole; any magnitude */
    else
        py_repr(buf, size, c->tune_value[vr]);
}

static int is_parameter(sn_instance *c, int64_t vr) { return c->var_table[5 * vr + 2] == C_PARAMETER; }

/* append text to buf (at *at), truncating */
static void append(char *buf, size_t size, size_t *at, const char *text)
{
    if (*at < size) {
        int n = snprintf(buf + *at, size - *at, "%s", text);
        *at += n > 0 ? (size_t)n : 0;
        if (*at >= size)
            *at = size - 1;
    }
}

/* The step-size check of engine.Simulation._check_step_size for the current state: the limit
   of engine.setup.stability.stable_step (the build's, when only the step changed; else the
   step-size kernel's, engine/stability.py). 0, or 1 with the message in why. */
static int check_step(sn_instance *c, int moved, char *why, size_t size)
{
    double h_max = c->tune_stable[S_HMAX], re = c->tune_stable[S_RE], im = c->tune_stable[S_IM];
    int64_t state = (int64_t)c->tune_stable[S_STATE];
    if (moved) {
        /* the kernel evaluates the derivative on the instance's arrays: keep them */
        size_t n = state_size(c);
        unsigned char *keep = malloc(n);
        if (keep == NULL) {
            snprintf(why, size, "out of memory (%zu bytes) for the step-size check", n);
            return 1;
        }
        state_write(c, keep);
        int64_t found = 0;
        int32_t status = sn_call_stable_step(c->level, c->stab, &found);
        const double *out = find(c, "stab.out")->data;
        const int64_t *free_ = find(c, "stab.free")->data;
        int64_t nfree = find(c, "stab.free")->nitems;
        state_read(c, keep);
        free(keep);
        int64_t code = (int64_t)out[4], col = (int64_t)out[3];
        if (status != 0 || code == 2) {
            snprintf(why, size, "the parameters are not accepted: the event cannot be integrated: "
                     "the eigenvalues of its modes at the initial state did not converge");
            return 1;
        }
        if (code == 1) {
            snprintf(why, size, "the parameters are not accepted: the event cannot be integrated: "
                     "%s: the equations of motion are not finite about the initial state",
                     col >= 0 && col < nfree ? c->state_names[free_[col]] : "a state");
            return 1;
        }
        h_max = out[0];
        re = out[1];
        im = out[2];
        state = col >= 0 && col < nfree ? free_[col] : -1;
    }
    char got[40];
    py_repr(got, sizeof got, c->step);
    int method = method_of(c);
    const double *mt = c->tune_methods + MT_COUNT * method;
    if (c->step <= h_max) {
        /* engine.Simulation._check_joint_step: the joints' limit at any attitude, a constant
           of the event and the method (its message the build's, around the step as Python
           prints it) */
        if (c->step <= mt[MT_JOINT])
            return 0;
        int64_t k = (int64_t)mt[MT_JOINT_TEXT];
        snprintf(why, size, "the parameters are not accepted: %s%s%s", c->tune_texts[k], got,
                 c->tune_texts[k + 1]);
        return 1;
    }
    snprintf(why, size, "the parameters are not accepted: stepSize: a step <= %.3g s for this "
             "vehicle (got %s): its stiffest mode, in %s, has the eigenvalue %.4g%+.4gj 1/s at the "
             "initial state, and the %s step is stable only up to h = %.3g s "
             "for it%s", h_max, got, state >= 0 && state < c->nstates ? c->state_names[state] : "",
             re, im, c->step_method[method], h_max, isfinite(h_max) && h_max >= c->tune_stable[S_MIN_STEP] ? "" :
             "; no step the engine accepts resolves it: check the stiffnesses and masses of the "
             "event");
    return 1;
}

/* The parameters at the end of initialisation, as the development FMU takes them
   (SimonSlave._simulation, engine.Simulation): their ranges, the engine's problems with them,
   then the set-up's operations for each (tune.rows), the outputs at the initial state and the
   step-size check. Nothing to do when every parameter has its start value: the build ran the
   set-up for those. 0, or 1 with the message in why. */

/* engine.Simulation._check_vehicles_apart: the vehicles' footprints at the initial state
   (engine.launch.footprint_hits), one problem per pair of vehicles that overlap, the text of
   engine.setup.footprint.start_overlap_problems; 1 when there is one */
static int vehicles_overlap(sn_instance *c, char *why, size_t size)
{
    int64_t status = 0;
    sn_call_footprint_hits(c->level, c->apart, &status);
    const double *pairs = (const double *)c->apart[1]->data;
    const double *where = (const double *)c->apart[3]->data;
    const int64_t *hits = (const int64_t *)c->apart[5]->data;
    size_t at = 0;
    int problems = 0;
    for (int k = 0; k < c->napart_heads; k++) {
        if (hits[k] < 0)
            continue;
        append(why, size, &at, problems++ ? "; " : "the parameters are not accepted: ");
        append(why, size, &at, c->apart_heads[k]);
        for (int j = 1; j <= 2; j++) {
            int64_t u = (int64_t)pairs[3 * hits[k] + j];
            char text[256];
            snprintf(text, sizeof text, "%sunit %s at X = %.6g m, Y = %.6g m, yaw = %.6g rad",
                     j == 1 ? "" : ", ", c->apart_quoted[u], where[3 * u], where[3 * u + 1],
                     where[3 * u + 2]);
            append(why, size, &at, text);
        }
        append(why, size, &at, ")");
    }
    return problems > 0;
}

/* a message of engine.setup.start_clear.overlap_templates with its placeholders ("{d}" ...:
   clear.fields) filled from a row of the kernel's hits, as engine.setup.start_clear.fill */
static void fill_template(sn_instance *c, const char *t, const double *hit, char *why,
                          size_t size, size_t *at)
{
    while (*t) {
        int k = -1;
        for (int f = 0; f < c->nclear_fields && k < 0 && t[0] == '{' && t[1] && t[2] == '}'; f++)
            if (c->clear_fields[f][0] == t[1])
                k = f;
        char text[64];
        if (k >= 0) {
            snprintf(text, sizeof text, "%.*g", (int)c->clear_columns[2 * k + 1],
                     hit[c->clear_columns[2 * k]]);
            t += 3;
        } else {
            text[0] = *t++;
            text[1] = '\0';
        }
        append(why, size, at, text);
    }
}

/* engine.Simulation._check_meshes_clear: every unit's deepest vertex into the road, each
   barrier, wall and object at the initial state (engine.start_check.start_overlaps), one
   problem per unit and surface it is inside, the text of
   engine.setup.start_clear.start_overlap_problems; 1 when there is one */
static int meshes_inside(sn_instance *c, char *why, size_t size)
{
    int64_t deep = 0;
    sn_call_start_overlaps(c->level, c->clear, &deep);
    if (deep <= 0)
        return 0;
    const double *hits = (const double *)c->clear_hits->data;
    int64_t nu = c->clear_hits->shape[0], ns = c->clear_hits->shape[1];
    int64_t cols = c->clear_hits->shape[2];
    size_t at = 0;
    int problems = 0;
    for (int64_t u = 0; u < nu; u++)
        for (int64_t s = 0; s < ns; s++) {
            const double *hit = hits + (u * ns + s) * cols;
            if (!(hit[(int64_t)c->clear_check[1]] > c->clear_check[0]))
                continue;
            int wheel = hit[(int64_t)c->clear_check[2]] >= (double)c->clear_nv[u];
            append(why, size, &at, problems++ ? "; " : "the parameters are not accepted: ");
            fill_template(c, c->clear_texts[2 * (u * ns + s) + wheel], hit, why, size, &at);
        }
    return problems > 0;
}

/* the rows of a table (tune.rows, tune.terrain: value reference, target, slot, operation,
   constant, item), on the state only (which > 0), on the packed parameters only (which < 0)
   or all; the target of a tune.terrain row is y. After the start on the terrain ran again
   (restarted), a row of engine.setup.launch.apply_motion's (item 1: tuning.NONZERO_ONLY) at
   zero leaves the start's value, as apply_motion does. */
/* what a row (as apply_rows takes them) writes into its slot for the value v: 1 and *out, or
   0 for an item's row (OP_ITEM) of another item, which writes nothing */
static int row_value(const double *row, double v, double *out)
{
    switch ((int)row[3]) {
    case OP_DIV: *out = v / row[4]; return 1;
    case OP_MUL: *out = row[4] * v; return 1;
    case OP_ADD: *out = v + row[4]; return 1;
    default: *out = row[4]; return v == row[5];
    }
}

static void apply_rows(sn_instance *c, const double *rows, int n, int terrain, int which,
                       int restarted)
{
    for (int r = 0; r < n; r++) {                   /* the set-up's operations */
        const double *row = rows + 6 * r;
        double v = c->tune_value[(int64_t)row[0]];
        double *data = terrain ? c->y : (double *)c->tune_target[(int64_t)row[1]]->data;
        if ((which > 0 && data != c->y) || (which < 0 && data == c->y))
            continue;
        if (restarted && (int)row[3] != OP_ITEM && row[5] != 0.0 && v == 0.0)
            continue;
        double value;
        if (row_value(row, v, &value))
            data[(int64_t)row[2]] = value;
    }
}

/* a tire's reason the vehicle cannot stand on its displaced wheels into text, or 0
   (engine.setup.settle.displaced_start_problem) */
static int tire_problem(sn_instance *c, int64_t t, char *text, size_t size)
{
    const double *check = (const double *)find(c, "terrain.check")->init;
    sn_array *yt = find(c, "pre.Y.y_tire");
    const double *row = (const double *)yt->data + t * yt->shape[1];
    const double *p = c->p_tire + t * c->p_tire_cols;
    int64_t w = (int64_t)p[(int64_t)check[CK_WHEEL]];
    const char *name = w >= 0 && w < c->nwheel_names ? c->wheel_names[w] : "a wheel";
    const char *const *tx = c->terrain_texts;
    if (!(row[(int64_t)check[CK_FZ]] > 0.0))
        snprintf(text, size, "%s%s", name, tx[TX_LIFT_OFF]);
    else if (!(row[(int64_t)check[CK_DEFL]] < p[(int64_t)check[CK_DMAX]]))
        snprintf(text, size, "%s%s%.4g%s%.4g%s", name, tx[TX_DEFLECT0], row[(int64_t)check[CK_DEFL]],
                 tx[TX_DEFLECT1], p[(int64_t)check[CK_DMAX]], tx[TX_DEFLECT2]);
    else
        return 0;
    return 1;
}

/* the largest acceleration preload_lateral left (pre.vn's first row), as numpy.max of their
   magnitudes: NaN wins */
static double accelerations_left(sn_instance *c)
{
    sn_array *vn = find(c, "pre.vn");
    const double *r = vn->data;
    double most = 0.0;
    for (int64_t k = 0; k < vn->shape[1] && !isnan(most); k++)
        most = isnan(r[k]) || fabs(r[k]) > most ? fabs(r[k]) : most;
    return most;
}

/* engine.setup.settle.displaced_start_problem: why the vehicle on displaced wheels is not at
   rest (its tires' reasons once each, in tire order, else the accelerations left: pre.vn[0]),
   into why; 0 at rest */
static int displaced_problem(sn_instance *c, char *why, size_t size)
{
    const char *const *tx = c->terrain_texts;
    size_t at = 0;
    int n = 0;
    char text[512], other[512];
    why[0] = '\0';
    append(why, size, &at, "the parameters are not accepted: ");
    append(why, size, &at, tx[TX_FIELDS]);
    append(why, size, &at, tx[TX_STAND0]);
    for (int64_t t = 0; t < c->ntires; t++) {
        if (!tire_problem(c, t, text, sizeof text))
            continue;
        int seen = 0;                               /* dict.fromkeys: each reason once */
        for (int64_t s = 0; s < t && !seen; s++)
            seen = tire_problem(c, s, other, sizeof other) && strcmp(text, other) == 0;
        if (seen)
            continue;
        append(why, size, &at, n++ ? "; " : "");
        append(why, size, &at, text);
    }
    if (n == 0) {
        double most = accelerations_left(c);
        if (most <= ((const double *)find(c, "terrain.check")->init)[CK_REST])
            return 0;
        snprintf(text, sizeof text, "%s%.3g%s", tx[TX_NO_REST0], most, tx[TX_NO_REST1]);
        append(why, size, &at, text);
    }
    append(why, size, &at, tx[TX_STAND1]);
    return 1;
}

/* engine.setup.settle.terrain_rest_problem: a start on the terrain whose accelerations left
   (pre.vn's first row) are beyond its rest's limit is refused with the set-up's message. 0, or
   1 with the message in why. */
static int terrain_rest_problem(sn_instance *c, char *why, size_t size)
{
    double most = accelerations_left(c);
    if (most <= ((const double *)find(c, "terrain.check")->init)[CK_TERRAIN_REST])
        return 0;
    snprintf(why, size, "the parameters are not accepted: %s%.3g%s",
             c->terrain_texts[TX_NO_EQUILIBRIUM0], most, c->terrain_texts[TX_NO_EQUILIBRIUM1]);
    return 1;
}

/* The parameters' rows. When a parameter of the start on a terrain (tune.terrain) is not at its
   start value, or the wheel inputs the set-up reads are not (wheels: already in its tables),
   the set-up's start there: the state before it (terrain.y) with those rows and the packed
   parameters' rows, the towed units put in line (engine.launch.place_towed), every unit
   settled on the terrain (engine.settle.settle_on_terrain; not on flat ground) and in
   equilibrium there (engine.preload.preload_lateral), then the other rows on the state; a
   wheel off the terrain or no equilibrium is refused with the set-up's message. *restarted:
   1 when the start ran again. */
static int terrain_start(sn_instance *c, int wheels, int *restarted, char *why, size_t size)
{
    int moved = wheels;
    for (int r = 0; r < c->nterrain_rows; r++) {
        int64_t vr = (int64_t)c->terrain_rows[6 * r];
        double v = c->tune_value[vr], b = c->var_value[vr];
        moved |= v != b && !(isnan(v) && isnan(b));
    }
    *restarted = moved;
    if (!moved) {
        apply_rows(c, c->tune_rows, c->ntune_rows, 0, 0, 0);
        return 0;
    }
    memcpy(c->y, c->terrain_y, find(c, "y")->nbytes);
    apply_rows(c, c->terrain_rows, c->nterrain_rows, 1, 0, 0);
    apply_rows(c, c->tune_rows, c->ntune_rows, 0, -1, 0);
    int64_t status = 0;
    if (c->terrain_towed)
        sn_call_place_towed(c->level, c->tow, &status);
    int64_t w = -1;
    if (c->terrain_settle)
        sn_call_settle_on_terrain(c->level, c->settle, &w);
    if (w >= 0) {
        const double *fault = (const double *)find(c, "settle.fault")->data;
        snprintf(why, size, "the parameters are not accepted: %s%s%.6g%s%.6g%s",
                 w < c->nwheel_names ? c->wheel_names[w] : "a wheel", c->terrain_texts[TX_OFF0],
                 fault[0], c->terrain_texts[TX_OFF1], fault[1], c->terrain_texts[TX_OFF2]);
        return 1;
    }
    status = 0;
    sn_call_preload_lateral(c->level, c->pre, c->terrain_pitch, &status);
    if (status != 0) {
        snprintf(why, size, "the parameters are not accepted: %s", c->terrain_texts[TX_NOT_FINITE]);
        return 1;
    }
    if (c->terrain_pitch && displaced_problem(c, why, size))
        return 1;
    if (!c->terrain_pitch && terrain_rest_problem(c, why, size))
        return 1;
    apply_rows(c, c->tune_rows, c->ntune_rows, 0, 1, 1);
    return 0;
}

/* 1 when a wheel input set at initialisation is not its start value and all are finite (the
   development FMU places the vehicle with them then: SimonSlave._simulation) */
static int wheel_inputs_set(sn_instance *c)
{
    sn_array *now = c->shadow[1];
    const double *u = now->data;
    for (int64_t k = 0; k < now->nitems; k++)
        if (!isfinite(u[k]))
            return 0;
    return memcmp(now->data, now->init, now->nbytes) != 0;
}

/* The wheel inputs set at initialisation (wheel_inputs_set): the integrator's copy of them, as
   engine.Simulation takes them, and, where the set-up reads them (meta: a road other than
   flat ground, or displaced wheels), the set-up's (settle.u_wheel, pre.U.u_wheel) for the
   start run again; one whose effect the build could not repeat (tune.wheels) is refused,
   naming it. 0, or 1 with the message in why. */
static int take_wheel_inputs(sn_instance *c, char *why, size_t size)
{
    sn_array *now = c->shadow[1];
    if (c->meta[M_WHEEL_SETUP] != 0.0) {
        const double *u = now->data, *u0 = (const double *)now->init;
        int64_t nf = now->shape[1], first = c->in[0]->nitems;
        size_t at = 0;
        int problems = 0;
        for (int64_t k = 0; k < now->nitems; k++) {
            const char *reason = c->tune_wheels[k % nf];
            if (u[k] == u0[k] || reason[0] == '\0')
                continue;
            append(why, size, &at, problems++ ? "; " : "");
            append(why, size, &at, c->in_names[first + k]);
            append(why, size, &at, ": not tunable at initialisation in the native FMU yet (");
            append(why, size, &at, reason);
            append(why, size, &at, "): the vehicle was placed on the road with its start value "
                   "at build time");
        }
        if (problems)
            return 1;
        memcpy(c->settle_u_wheel->data, now->data, now->nbytes);
        memcpy(c->pre_u_wheel->data, now->data, now->nbytes);
    }
    memcpy(c->in[1]->data, now->data, now->nbytes);
    return 0;
}

static int setup_parameters(sn_instance *c, char *why, size_t size)
{
    int wheels = wheel_inputs_set(c);
    int changed = wheels, moved = wheels, restarted = 0;
    for (int64_t vr = 0; vr < c->nvars; vr++) {
        double v = c->tune_value[vr], b = c->var_value[vr];
        if (is_parameter(c, vr) && v != b && !(isnan(v) && isnan(b))) {
            changed = 1;
            moved |= c->tune_kind[vr] != K_STEP;
        }
    }
    if (!changed)
        return 0;
    char text[40];
    size_t at = 0;
    int problems = 0;
    why[0] = '\0';
    for (int64_t vr = 0; vr < c->nvars; vr++) {        /* runtime.protocol.range_problem */
        double v = c->tune_value[vr];
        if (is_parameter(c, vr) && !(isfinite(v) && v >= c->tune_lo[vr] && v <= c->tune_hi[vr])) {
            param_repr(c, vr, text, sizeof text);
            append(why, size, &at, problems++ ? "; " : "");
            append(why, size, &at, "parameter ");
            append(why, size, &at, c->var_names[vr]);
            append(why, size, &at, " = ");
            append(why, size, &at, text);
            append(why, size, &at, " rejected: it accepts ");
            append(why, size, &at, c->tune_accepts[vr]);
        }
    }
    if (problems)
        return 1;
    append(why, size, &at, "the parameters are not accepted: ");
    {                         /* engine.simulation.step_range_problem: the method's largest step */
        const double *mt = c->tune_methods + MT_COUNT * method_of(c);
        double h = c->tune_value[c->step_vr];
        if (!(h <= mt[MT_MAX_STEP])) {
            int64_t k = (int64_t)mt[MT_RANGE_TEXT];
            py_repr(text, sizeof text, h);
            append(why, size, &at, problems++ ? "; " : "");
            append(why, size, &at, c->tune_texts[k]);
            append(why, size, &at, text);
            append(why, size, &at, c->tune_texts[k + 1]);
        }
    }
    for (int64_t vr = 0; vr < c->nvars; vr++)       /* engine.setup.launch.motion_problems */
        if (c->tune_kind[vr] == K_ZERO_ONLY && c->tune_value[vr] != 0.0) {
            param_repr(c, vr, text, sizeof text);
            append(why, size, &at, problems++ ? "; " : "");
            append(why, size, &at, c->tune_zero[vr]);
            append(why, size, &at, text);
            append(why, size, &at, c->tune_zero_tail[vr]);
        }
    for (int r = 0; r < c->ntune_items; r++) {      /* engine.Simulation._steering_modes */
        const double *row = c->tune_items + 3 * r;
        if (c->tune_value[(int64_t)row[0]] == row[1]) {
            append(why, size, &at, problems++ ? "; " : "");
            append(why, size, &at, c->tune_texts[(int64_t)row[2]]);
        }
    }
    if (problems)
        return 1;
    if (wheels && take_wheel_inputs(c, why, size) != 0)
        return 1;
    /* engine.setup.params.pack on a terrain */
    if (terrain_start(c, wheels && c->meta[M_WHEEL_SETUP] != 0.0, &restarted, why, size) != 0)
        return 1;
    if (c->tune_towed) {                            /* engine.launch.place_towed */
        int64_t status = 0;
        sn_call_place_towed(c->level, c->tow, &status);
    }
    for (int r = 0; r < c->ntune_launch; r++) {     /* engine.setup.launch.apply_motion */
        const double *row = c->tune_launch + 6 * r;
        if (!restarted)                             /* the unit level, at equilibrium */
            c->y[(int64_t)row[1]] = row[4];
        if (c->tune_value[(int64_t)row[2]] != 0.0 || c->tune_value[(int64_t)row[3]] != 0.0) {
            int64_t status = 0;                     /* turned: on its lowest point */
            sn_call_place_launch(c->level, c->lau, (int64_t)row[0], row[5], &status);
        }
    }
    for (int64_t vr = 0; vr < c->nvars; vr++)
        if (c->tune_kind[vr] == K_STEP)
            c->step = c->tune_value[vr];
    if (run(c, 0.0, 0, why, size) != 0)             /* the outputs at the initial state */
        return 1;
    if ((c->tune_apart || restarted) && vehicles_overlap(c, why, size))
        return 1;
    if ((c->tune_clear || restarted) && meshes_inside(c, why, size))
        return 1;
    return check_step(c, moved, why, size);
}

/* engine.Simulation._speed_warnings, logged at the end of initialisation; their number */
static int speed_warnings(sn_instance *c)
{
    int n = 0;
    for (int r = 0; r < c->ntune_speed; r++) {
        const double *row = c->tune_speed + 3 * r;
        int64_t vr = (int64_t)row[0];
        double speed = c->tune_value[vr], limit = row[1];
        if (fabs(speed) <= limit)
            continue;
        const char *name = c->var_names[vr];
        LOG_WARNING(c, "%s = %g m/s (%g km/h) is above the plausible %g m/s (%g km/h) for %s: a "
                    "speed in km/h? %s is in m/s", name, speed, speed * 3.6, limit, limit * 3.6,
                    c->tune_texts[(int64_t)row[2]], name);
        n++;
    }
    return n;
}

/* ------------------------------------------------------------------ FMI: life cycle */

const char *fmi2GetTypesPlatform(void) { return fmi2TypesPlatform; }
const char *fmi2GetVersion(void) { return fmi2Version; }

fmi2Status fmi2SetDebugLogging(fmi2Component comp, fmi2Boolean loggingOn, size_t n,
                               const fmi2String categories[])
{
    LIVE(c, comp, "fmi2SetDebugLogging", fmi2Error)
    int on = loggingOn != fmi2False;
    if (n == 0) {
        c->logging = on;
        for (int i = 0; i < N_CATEGORIES; i++)
            c->category_on[i] = on;
        return fmi2OK;
    }
    if (categories == NULL) {
        LOG_ERROR(c, "fmi2SetDebugLogging: %zu categories, but no array", n);
        return fmi2Error;
    }
    fmi2Status status = fmi2OK;
    for (size_t j = 0; j < n; j++) {
        int i = 0;
        while (i < N_CATEGORIES && !(categories[j] && strcmp(categories[j], CATEGORIES[i]) == 0))
            i++;
        if (i == N_CATEGORIES) {
            LOG_ERROR(c, "fmi2SetDebugLogging: %s is no log category of this FMU",
                      categories[j] ? categories[j] : "(null)");
            status = fmi2Error;
        }
    }
    if (status != fmi2OK)
        return status;
    /* with loggingOn, exactly the named categories; without, the named ones are switched off */
    c->logging = 0;
    for (int i = 0; i < N_CATEGORIES; i++) {
        int named = 0;
        for (size_t j = 0; j < n; j++)
            if (strcmp(categories[j], CATEGORIES[i]) == 0)
                named = 1;
        if (on)
            c->category_on[i] = named;
        else if (named)
            c->category_on[i] = 0;
        c->logging |= c->category_on[i];
    }
    return fmi2OK;
}

/* The kernels' level this instance runs: the last (widest) of sn_level_names that this
   processor and its operating system run, or the one the environment variable
   SIMON_NATIVE_ISA names (to compare the levels, or to rule one out). Every level computes the
   same operations and gives the same results (simon_fmu/native/targets.py). NULL, or why not. */
static const char *select_level(sn_instance *c)
{
    const char *asked = getenv("SIMON_NATIVE_ISA");
    if (asked != NULL && asked[0] != '\0') {
        for (int k = 0; k < sn_nlevels; k++) {
            if (strcmp(asked, sn_level_names[k]) != 0)
                continue;
            if (!sn_level_runs(k)) {
                snprintf(c->failure, sizeof c->failure, "SIMON_NATIVE_ISA=%s: this processor "
                         "does not run that level", asked);
                return c->failure;
            }
            c->level = k;
            return NULL;
        }
        int at = snprintf(c->failure, sizeof c->failure, "SIMON_NATIVE_ISA=%s: not a level of "
                          "this binary; it accepts", asked);
        for (int k = 0; k < sn_nlevels && at > 0 && (size_t)at < sizeof c->failure; k++)
            at += snprintf(c->failure + at, sizeof c->failure - at, "%s %s", k ? "," : "",
                           sn_level_names[k]);
        return c->failure;
    }
    c->level = 0;
    for (int k = sn_nlevels - 1; k > 0; k--) {
        if (sn_level_runs(k)) {
            c->level = k;
            break;
        }
    }
    return NULL;
}

fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                              fmi2String fmuResourceLocation, const fmi2CallbackFunctions *functions,
                              fmi2Boolean visible, fmi2Boolean loggingOn)
{
    (void)visible;
    FP_GUARD
    sn_instance *c = calloc(1, sizeof *c);
    if (c == NULL || functions == NULL)
        return free(c), NULL;
    c->cb = *functions;
    c->name = strdup(instanceName ? instanceName : "");
    c->logging = loggingOn != fmi2False;
    for (int i = 0; i < N_CATEGORIES; i++)
        c->category_on[i] = c->logging;
    if (fmuType != fmi2CoSimulation) {
        LOG_ERROR(c, "fmi2Instantiate: this FMU supports Co-Simulation only");
        release(c);
        return NULL;
    }
    const char *why = select_level(c);
    char *path = why ? NULL : resource_path(c, fmuResourceLocation);
    if (why == NULL)
        why = path ? load(c, path) : c->failure[0] ? c->failure : "out of memory";
    if (why == NULL)
        why = bind(c);
    if (why == NULL) {
        sn_array *g = find(c, "guid");
        if (g == NULL || fmuGUID == NULL || strcmp((const char *)g->init, fmuGUID) != 0) {
            snprintf(c->failure, sizeof c->failure, "the GUID %s is not this FMU's %s",
                     fmuGUID ? fmuGUID : "(null)", g ? (const char *)g->init : "(none)");
            why = c->failure;
        }
    }
    free(path);
    if (why != NULL) {
        LOG_ERROR(c, "fmi2Instantiate: %s", why);
        release(c);
        return NULL;
    }
    restore_initial(c);
    if (register_live(c, NULL) != 0) {
        LOG_ERROR(c, "fmi2Instantiate: out of memory");
        release(c);
        return NULL;
    }
    say(c, fmi2OK, "logAll", "kernels at instruction-set level %s", sn_level_names[c->level]);
    return c;
}

void fmi2FreeInstance(fmi2Component comp)
{
    if (comp == NULL)
        return;
    FP_GUARD
    sn_instance *c = acquire(comp, "fmi2FreeInstance");
    if (c == NULL)
        return;
    if (c->depth > 1) {     /* from the logger of a call on the instance: that call goes on */
        LOG_ERROR(c, "fmi2FreeInstance refused: called back from within another call on the "
                  "instance");
        release_call(c);
        return;
    }
    registered(comp, NULL, 1);      /* no call starts on it from here on */
    c->retired = 1;
    release_call(c);
    for (;;) {                      /* the calls that waited for it see that it is gone */
        lock_registry();
        unsigned waiting = c->users;
        unlock_registry();
        if (waiting == 0)
            break;
        pause_thread();
    }
    free_states_of(comp);          /* the states the host did not free are the instance's */
    release(c);
}

/* The FMI 2.0 Co-Simulation state machine, as the development FMU's library has it
   (simon_fmu/runtime/native/fmi2_lifecycle.c), with its messages: a call out of order is
   fmi2Error with the reason logged, and leaves the instance as it was. */
static const char *const PHASE_NAMES[] = {
    "instantiated (initialisation mode not entered yet)",
    "in initialisation mode",
    "initialised (stepping)",
    "terminated (fmi2Terminate was called; fmi2Reset starts again)",
};

static int in_phase(sn_instance *c, int phase, const char *function, const char *rule)
{
    if (c->phase == phase)
        return 1;
    LOG_ERROR(c, "%s refused: the instance is %s; %s", function, PHASE_NAMES[c->phase], rule);
    return 0;
}

/* the tolerance of a communication point near t (the development FMU's) */
static double time_tolerance(double t) { return 1e-9 * fmax(1.0, fabs(t)); }

fmi2Status fmi2SetupExperiment(fmi2Component comp, fmi2Boolean toleranceDefined, fmi2Real tolerance,
                               fmi2Real startTime, fmi2Boolean stopTimeDefined, fmi2Real stopTime)
{
    const char *f = "fmi2SetupExperiment";
    LIVE(c, comp, f, fmi2Error)
    if (!in_phase(c, PHASE_INSTANTIATED, f, "the experiment is set up after fmi2Instantiate "
                  "(or fmi2Reset) and before fmi2EnterInitializationMode"))
        return fmi2Error;
    if (!isfinite(startTime)) {
        LOG_ERROR(c, "%s refused: startTime = %g; it accepts a finite time", f, startTime);
        return fmi2Error;
    }
    if (stopTimeDefined && !(isfinite(stopTime) && stopTime >= startTime)) {
        LOG_ERROR(c, "%s refused: stopTime = %g; it accepts a finite time >= startTime (%g)",
                  f, stopTime, startTime);
        return fmi2Error;
    }
    if (toleranceDefined && !(isfinite(tolerance) && tolerance > 0)) {
        LOG_ERROR(c, "%s refused: tolerance = %g; it accepts a finite value > 0", f, tolerance);
        return fmi2Error;
    }
    c->start_time = c->comm_time = startTime;
    c->stop_defined = stopTimeDefined != fmi2False;
    c->stop_time = c->stop_defined ? stopTime : 0.0;
    return fmi2OK;
}

fmi2Status fmi2EnterInitializationMode(fmi2Component comp)
{
    const char *f = "fmi2EnterInitializationMode";
    LIVE(c, comp, f, fmi2Error)
    if (!in_phase(c, PHASE_INSTANTIATED, f, "initialisation mode is entered once, after "
                  "fmi2Instantiate or fmi2Reset"))
        return fmi2Error;
    c->phase = PHASE_INIT;
    return fmi2OK;
}

fmi2Status fmi2ExitInitializationMode(fmi2Component comp)
{
    const char *f = "fmi2ExitInitializationMode";
    LIVE(c, comp, f, fmi2Error)
    if (!in_phase(c, PHASE_INIT, f, "it ends initialisation mode, which "
                  "fmi2EnterInitializationMode begins"))
        return fmi2Error;
    if (c->failed) {                    /* an earlier end of initialisation failed */
        LOG_ERROR(c, "%s refused: the instance failed earlier (%s); reset it", f, c->failure);
        return fmi2Error;
    }
    char *why = malloc(SN_MESSAGE);
    if (why == NULL) {
        LOG_ERROR(c, "%s: out of memory", f);
        return fmi2Error;
    }
    if (setup_parameters(c, why, SN_MESSAGE) != 0) {
        fmi2Status refused = fail(c, why);  /* still in initialisation mode, as the library keeps it */
        free(why);
        return refused;
    }
    free(why);
    c->phase = PHASE_STEP;
    say(c, fmi2OK, "logAll", "simulation ready: internal step %g s", c->step);
    return speed_warnings(c) ? fmi2Warning : fmi2OK;
}

fmi2Status fmi2Terminate(fmi2Component comp)
{
    const char *f = "fmi2Terminate";
    LIVE(c, comp, f, fmi2Error)
    if (!in_phase(c, PHASE_STEP, f, "fmi2Terminate ends the steps after "
                  "fmi2ExitInitializationMode, once"))
        return fmi2Error;
    c->phase = PHASE_TERMINATED;
    return fmi2OK;
}

fmi2Status fmi2Reset(fmi2Component comp)
{
    LIVE(c, comp, "fmi2Reset", fmi2Error)
    restore_initial(c);
    return fmi2OK;
}

/* ------------------------------------------------------------------ FMI: values */

static const int64_t *var(sn_instance *c, fmi2ValueReference vr)
{
    if ((int64_t)vr >= c->nvars)
        return NULL;
    return c->var_table + 5 * (size_t)vr;
}

static const char *TYPE_NAMES[] = {"Real", "Integer", "Boolean"};

/* the value of variable row t (a double, as the engine keeps it) */
static double get_value(sn_instance *c, const int64_t *t)
{
    int64_t source = t[3], offset = t[4];
    if (source < 3)
        return value_of(c->shadow[source], offset);
    if (source < S_PARAMETER)
        return value_of(c->out[source - 3], offset);
    if (source == S_PARAMETER)
        return c->tune_value[t[0]];
    return c->var_value[t[0]];
}

/* Whether variable t's value comes from the simulation (an output, a calculated parameter),
   which the parameters set during initialisation move. */
static int from_simulation(const int64_t *t) { return t[3] >= 3 && t[3] != S_PARAMETER; }

/* 1 when a get or set call's arrays are there for its nvr values; else logged, 0 */
static int arrays_given(sn_instance *c, const char *function, const void *vr, size_t nvr,
                        const void *values)
{
    if (nvr == 0 || (vr != NULL && values != NULL))
        return 1;
    LOG_ERROR(c, "%s: no %s (NULL) for nvr = %zu", function,
              vr == NULL ? "value references" : "values", nvr);
    return 0;
}

static fmi2Status get(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr, int type,
                      const char *function, void *values)
{
    LIVE(c, comp, function, fmi2Error)
    if (!arrays_given(c, function, vr, nvr, values))
        return fmi2Error;
    fmi2Status status = fmi2OK;
    /* before the end of initialisation, outputs are those of the start with the parameters
       set so far, as the development FMU builds its simulation for a read: the end of
       initialisation's set-up is run on a copy of the instance's arrays, put back after (or,
       when the parameters are not accepted, the outputs cannot be read, saying why) */
    unsigned char *kept = NULL;
    const char *unreadable = NULL;
    char *why = NULL, *names = NULL;
    size_t names_size = 0;
    if (c->phase == PHASE_INSTANTIATED || c->phase == PHASE_INIT) {
        int needed = 0;
        for (size_t i = 0; i < nvr && !needed; i++) {
            const int64_t *t = var(c, vr[i]);
            needed = t != NULL && t[1] == type && from_simulation(t);
        }
        if (needed) {
            kept = malloc(state_size(c));
            why = malloc(SN_MESSAGE);
            if (kept == NULL || why == NULL) {
                free(kept);
                free(why);
                LOG_ERROR(c, "%s: out of memory", function);
                return fmi2Error;
            }
            state_write(c, kept);
            if (c->failed)
                unreadable = c->failure;
            else if (setup_parameters(c, why, SN_MESSAGE) != 0)
                unreadable = why;
        }
    }
    if (unreadable != NULL) {               /* room for every name the call gives */
        for (size_t i = 0; i < nvr; i++) {
            const int64_t *t = var(c, vr[i]);
            if (t != NULL && t[1] == type && from_simulation(t))
                names_size += strlen(c->var_names[t[0]]) + 2;
        }
        names = malloc(names_size + 1);
        if (names == NULL) {
            state_read(c, kept);
            free(kept);
            free(why);
            LOG_ERROR(c, "%s: out of memory", function);
            return fmi2Error;
        }
        names[0] = '\0';
    }
    size_t at = 0;
    for (size_t i = 0; i < nvr; i++) {
        const int64_t *t = var(c, vr[i]);
        double v;
        if (t == NULL || t[1] != type) {
            LOG_ERROR(c, "%s: value reference %u is no %s variable", function, (unsigned)vr[i],
                      TYPE_NAMES[type]);
            status = fmi2Error;
            v = type == T_REAL ? NAN : 0.0;
        } else if (unreadable != NULL && from_simulation(t)) {
            append(names, names_size + 1, &at, at ? ", " : "");
            append(names, names_size + 1, &at, c->var_names[t[0]]);
            status = fmi2Error;
            v = type == T_REAL ? NAN : 0.0;
        } else {
            v = get_value(c, t);
        }
        if (type == T_REAL)
            ((fmi2Real *)values)[i] = v;
        else if (type == T_INTEGER)
            /* a whole number within an fmi2Integer's range, as the slave's inputs and
               parameters hold them (a state's edited value: not cast beyond the range) */
            ((fmi2Integer *)values)[i] = v >= -2147483648.0 && v <= 2147483647.0
                ? (fmi2Integer)v : 0;
        else
            ((fmi2Boolean *)values)[i] = (t != NULL && t[1] == type && v != 0.0) ? fmi2True : fmi2False;
    }
    if (at > 0)
        LOG_ERROR(c, "%s: %s cannot be read: %s", function, names, unreadable);
    if (kept != NULL) {
        state_read(c, kept);
        free(kept);
    }
    free(names);
    free(why);
    return status;
}

/* value i of a set call's values as the development FMU writes it in a message: a Real as
   Python's repr, an Integer as an int, a Boolean as the int the host gave or, with `words`,
   as True or False (the slave's bool) */
static void set_value_text(int type, const void *values, size_t i, int words, char *text,
                           size_t size)
{
    if (type == T_REAL)
        py_repr(text, size, ((const fmi2Real *)values)[i]);
    else if (type == T_INTEGER)
        snprintf(text, size, "%d", (int)((const fmi2Integer *)values)[i]);
    else if (words)
        snprintf(text, size, "%s",
                 ((const fmi2Boolean *)values)[i] != fmi2False ? "True" : "False");
    else
        snprintf(text, size, "%d", (int)((const fmi2Boolean *)values)[i]);
}

static fmi2Status set(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr, int type,
                      const char *function, const void *values)
{
    LIVE(c, comp, function, fmi2Error)
    if (!arrays_given(c, function, vr, nvr, values))
        return fmi2Error;
    fmi2Status status = fmi2OK;
    for (size_t i = 0; i < nvr; i++) {
        const int64_t *t = var(c, vr[i]);
        double v = type == T_REAL ? ((const fmi2Real *)values)[i]
                 : type == T_INTEGER ? (double)((const fmi2Integer *)values)[i]
                 : (double)(((const fmi2Boolean *)values)[i] != fmi2False);
        char text[40];     /* the value as the development FMU prints it: for messages only */
        if (t == NULL || t[1] != type) {
            set_value_text(type, values, i, 0, text, sizeof text);
            LOG_ERROR(c, "%s: value reference %u is no %s variable; %s ignored", function,
                      (unsigned)vr[i], TYPE_NAMES[type], text);
            status = fmi2Error;
            continue;
        }
        const char *name = c->var_names[t[0]];
        if (t[2] == C_INPUT) {
            ((double *)c->shadow[t[3]]->data)[t[4]] = v;
        } else if (t[2] == C_PARAMETER) {
            if (c->phase == PHASE_STEP || c->phase == PHASE_TERMINATED || c->failed) {
                set_value_text(type, values, i, 1, text, sizeof text);
                LOG_WARNING(c, "parameter %s is fixed after initialisation; %s ignored", name, text);
                if (status < fmi2Warning)
                    status = fmi2Warning;
            } else if (c->tune_kind[t[0]] != K_FIXED) {
                c->tune_value[t[0]] = v;      /* checked and applied at the end of initialisation */
            } else if (v != c->var_value[t[0]] && !(isnan(v) && isnan(c->var_value[t[0]]))) {
                char built[40];
                py_repr(text, sizeof text, v);
                py_repr(built, sizeof built, c->var_value[t[0]]);
                const char *reason = c->tune_reasons[t[0]];
                LOG_ERROR(c, "%s: %s = %s: not tunable in the native FMU yet (%s%sits set-up ran "
                          "at build time for %s; build the FMU from an event with that value)",
                          function, name, text, reason, *reason ? "; " : "", built);
                status = fmi2Error;
            }
        } else {
            LOG_WARNING(c, "%s is a%s %s and cannot be set; ignored", name,
                        t[2] == C_OUTPUT ? "n" : "",
                        t[2] == C_OUTPUT ? "output" : "calculatedParameter");
            if (status < fmi2Warning)
                status = fmi2Warning;
        }
    }
    return status;
}

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t n, fmi2Real value[])
{ return get(c, vr, n, T_REAL, "fmi2GetReal", value); }
fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t n, fmi2Integer value[])
{ return get(c, vr, n, T_INTEGER, "fmi2GetInteger", value); }
fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t n, fmi2Boolean value[])
{ return get(c, vr, n, T_BOOLEAN, "fmi2GetBoolean", value); }
fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t n, const fmi2Real value[])
{ return set(c, vr, n, T_REAL, "fmi2SetReal", value); }
fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t n, const fmi2Integer value[])
{ return set(c, vr, n, T_INTEGER, "fmi2SetInteger", value); }
fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t n, const fmi2Boolean value[])
{ return set(c, vr, n, T_BOOLEAN, "fmi2SetBoolean", value); }

fmi2Status fmi2GetString(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr, fmi2String value[])
{
    LIVE(c, comp, "fmi2GetString", fmi2Error)
    if (!arrays_given(c, "fmi2GetString", vr, nvr, value))
        return fmi2Error;
    for (size_t i = 0; i < nvr; i++)
        value[i] = "";
    if (nvr)
        LOG_ERROR(c, "fmi2GetString: value reference %u is no String variable", (unsigned)vr[0]);
    return nvr ? fmi2Error : fmi2OK;
}

fmi2Status fmi2SetString(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr, const fmi2String value[])
{
    LIVE(c, comp, "fmi2SetString", fmi2Error)
    if (!arrays_given(c, "fmi2SetString", vr, nvr, value))
        return fmi2Error;
    if (nvr)
        LOG_ERROR(c, "fmi2SetString: value reference %u is no String variable", (unsigned)vr[0]);
    return nvr ? fmi2Error : fmi2OK;
}

/* ------------------------------------------------------------------ FMI: stepping */

static fmi2Status fail(sn_instance *c, const char *reason)
{
    c->failed = 1;
    snprintf(c->failure, sizeof c->failure, "%s", reason);
    LOG_ERROR(c, "%s", c->failure);
    return fmi2Error;
}

fmi2Status fmi2DoStep(fmi2Component comp, fmi2Real t, fmi2Real h, fmi2Boolean noSetFMUStatePriorToCurrentPoint)
{
    (void)noSetFMUStatePriorToCurrentPoint;
    const char *f = "fmi2DoStep";
    LIVE(c, comp, f, fmi2Error)
    /* the development FMU's library's checks first, with its messages */
    if (!in_phase(c, PHASE_STEP, f, "steps are taken after fmi2ExitInitializationMode and "
                  "before fmi2Terminate"))
        return fmi2Error;
    if (!isfinite(t)) {
        LOG_ERROR(c, "%s refused: currentCommunicationPoint = %g; it accepts a finite time", f, t);
        return fmi2Error;
    }
    if (!(isfinite(h) && h > 0)) {
        LOG_ERROR(c, "%s refused: communicationStepSize = %g; it accepts a finite value > 0", f,
                  h);
        return fmi2Error;
    }
    double end = t + h;
    if (!isfinite(end) || !(end > t)) {
        LOG_ERROR(c, "%s refused: a step of %g s from t=%.17g %s", f, h, t, isfinite(end)
                  ? "does not advance the time (it is below the resolution of t)"
                  : "ends beyond the range of a double");
        return fmi2Error;
    }
    if (fabs(t - c->comm_time) > time_tolerance(c->comm_time)) {
        LOG_ERROR(c, "%s refused: communication point t=%.17g does not continue the last one, "
                  "t=%.17g (a step starts where the last one ended; fmi2SetFMUstate goes back "
                  "to a saved time)", f, t, c->comm_time);
        return fmi2Error;
    }
    if (c->stop_defined && end > c->stop_time + time_tolerance(c->stop_time)) {
        LOG_ERROR(c, "%s refused: the step from t=%.17g to %.17g ends beyond the stop time "
                  "%.17g given to fmi2SetupExperiment", f, t, end, c->stop_time);
        return fmi2Error;
    }
    /* t and h are written out only for a message: formatting them on every step took 6 % of
       a 1 ms step's time */
    char ts[40], hs[40], why[1024], reason[1400];
    if (c->failed) {
        py_repr(ts, sizeof ts, t);
        LOG_ERROR(c, "doStep at t=%s refused: the instance failed earlier (%s); restore an FMU state "
                  "or reset it", ts, c->failure);
        return c->last_step_status = fmi2Error;
    }
    for (int s = 0; s < 3; s++)
        memcpy(c->in[s]->data, c->shadow[s]->data, c->in[s]->nbytes);
    double value;
    int kind;
    int k = inputs_ok(c) ? -1 : bad_input(c, &value, &kind);
    if (k >= 0) {
        char vs[40];
        py_repr(ts, sizeof ts, t);
        py_repr(vs, sizeof vs, value);
        snprintf(reason, sizeof reason, "t=%s: input %s = %s rejected: it accepts %s", ts,
                 c->in_names[k], vs, kind == 0 ? "a finite number" : kind == 1 ? c->in_accepts[k]
                 : c->in_whole_texts[c->in_whole[k]]);
        return c->last_step_status = fail(c, reason);
    }
    int r = advance(c, t + h - c->start_time, why, sizeof why);
    if (r == 1) {
        py_repr(ts, sizeof ts, t);
        py_repr(hs, sizeof hs, h);
        LOG_ERROR(c, "doStep refused: communication step from t=%s of %s s: %s", ts, hs, why);
        return c->last_step_status = fmi2Error;
    }
    if (r == 2) {
        char at[40];
        py_repr(at, sizeof at, c->time + c->start_time);
        snprintf(reason, sizeof reason, "simulation stopped at t=%s: %s", at, why);
        return c->last_step_status = fail(c, reason);
    }
    c->comm_time = t + h;
    return c->last_step_status = fmi2OK;
}

fmi2Status fmi2CancelStep(fmi2Component comp)
{
    LIVE(c, comp, "fmi2CancelStep", fmi2Error)
    LOG_ERROR(c, "fmi2CancelStep: this FMU never answers fmi2Pending; there is no step to cancel");
    return fmi2Error;
}

/* the status functions as the development FMU's library answers them: the last step's status
   and its end, Discard (nothing logged) for a status this FMU does not have */
fmi2Status fmi2GetStatus(fmi2Component comp, const fmi2StatusKind s, fmi2Status *value)
{
    LIVE(c, comp, "fmi2GetStatus", fmi2Error)
    if (value == NULL)
        return fmi2Error;
    if (s == fmi2DoStepStatus) {
        *value = (fmi2Status)c->last_step_status;
        return fmi2OK;
    }
    return fmi2Discard;
}

fmi2Status fmi2GetRealStatus(fmi2Component comp, const fmi2StatusKind s, fmi2Real *value)
{
    LIVE(c, comp, "fmi2GetRealStatus", fmi2Error)
    if (value == NULL)
        return fmi2Error;
    if (s == fmi2LastSuccessfulTime) {
        *value = c->comm_time;          /* the end of the last good step, or the start */
        return fmi2OK;
    }
    return fmi2Discard;
}

fmi2Status fmi2GetIntegerStatus(fmi2Component comp, const fmi2StatusKind s, fmi2Integer *value)
{
    (void)s; (void)value;
    LIVE(c, comp, "fmi2GetIntegerStatus", fmi2Error)
    return fmi2Discard;
}

fmi2Status fmi2GetBooleanStatus(fmi2Component comp, const fmi2StatusKind s, fmi2Boolean *value)
{
    LIVE(c, comp, "fmi2GetBooleanStatus", fmi2Error)
    if (value == NULL)
        return fmi2Error;
    if (s == fmi2Terminated) {
        *value = c->last_step_status == fmi2Discard ? fmi2True : fmi2False;
        return fmi2OK;
    }
    return fmi2Discard;
}

fmi2Status fmi2GetStringStatus(fmi2Component comp, const fmi2StatusKind s, fmi2String *value)
{
    LIVE(c, comp, "fmi2GetStringStatus", fmi2Error)
    if (value == NULL)
        return fmi2Error;
    if (s == fmi2PendingStatus)
        *value = "";
    return fmi2Discard;
}

fmi2Status fmi2SetRealInputDerivatives(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                                       const fmi2Integer order[], const fmi2Real value[])
{
    (void)vr; (void)order; (void)value;
    LIVE(c, comp, "fmi2SetRealInputDerivatives", fmi2Error)
    if (nvr == 0)
        return fmi2OK;
    LOG_ERROR(c, "fmi2SetRealInputDerivatives: not supported by this FMU "
              "(canInterpolateInputs=\"false\")");
    return fmi2Error;
}

fmi2Status fmi2GetRealOutputDerivatives(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                                        const fmi2Integer order[], fmi2Real value[])
{
    (void)vr; (void)order; (void)value;
    LIVE(c, comp, "fmi2GetRealOutputDerivatives", fmi2Error)
    if (nvr == 0)
        return fmi2OK;
    LOG_ERROR(c, "fmi2GetRealOutputDerivatives: not supported by this FMU "
              "(maxOutputDerivativeOrder=\"0\")");
    return fmi2Error;
}

fmi2Status fmi2GetDirectionalDerivative(fmi2Component comp, const fmi2ValueReference u[], size_t nu,
                                        const fmi2ValueReference z[], size_t nz, const fmi2Real du[],
                                        fmi2Real dz[])
{
    (void)u; (void)nu; (void)z; (void)nz; (void)du; (void)dz;
    LIVE(c, comp, "fmi2GetDirectionalDerivative", fmi2Error)
    LOG_ERROR(c, "fmi2GetDirectionalDerivative: not supported by this FMU "
              "(providesDirectionalDerivative=\"false\")");
    return fmi2Error;
}

/* ------------------------------------------------------------------ FMI: FMU state
   A state is every array that changes (the kernels' state, inputs, outputs and scratch, the
   slave's inputs, the parameters and the packed parameters they write: bind) and the clocks. */

typedef struct {
    char magic[8];
    uint64_t size;
    uint64_t checksum;              /* FNV-1a of the state from `start_time` on */
    double start_time, comm_time, time, grid_time;
    int64_t grid_steps, phase, failed, last_step_status;
    double step;
    char failure[1024];
    char guid[128];                 /* the GUID of the FMU whose state it is */
} sn_state_header;

/* this FMU's GUID (resources: guid) */
static const char *own_guid(sn_instance *c)
{
    sn_array *g = find(c, "guid");
    return g != NULL ? (const char *)g->init : "";
}

/* where the checksum begins: everything after the size and the checksum itself */
#define SN_CHECKED_FROM (offsetof(sn_state_header, start_time))

static size_t state_size(sn_instance *c)
{
    size_t n = sizeof(sn_state_header);
    for (int i = 0; i < c->narrays; i++)
        if (c->mutable_[i])
            n += c->arrays[i].nbytes;
    return n;
}

static void state_write(sn_instance *c, unsigned char *p)
{
    sn_state_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, "SIMONSTA", 8);
    h.size = state_size(c);
    h.start_time = c->start_time; h.comm_time = c->comm_time;
    h.time = c->time; h.grid_time = c->grid_time; h.grid_steps = c->grid_steps;
    h.phase = c->phase; h.failed = c->failed; h.step = c->step;
    h.last_step_status = c->last_step_status;
    memcpy(h.failure, c->failure, sizeof h.failure);
    snprintf(h.guid, sizeof h.guid, "%s", own_guid(c));
    memcpy(p, &h, sizeof h);
    unsigned char *q = p + sizeof h;
    for (int i = 0; i < c->narrays; i++)
        if (c->mutable_[i]) {
            memcpy(q, c->arrays[i].data, c->arrays[i].nbytes);
            q += c->arrays[i].nbytes;
        }
    h.checksum = fnv1a64(p + SN_CHECKED_FROM, h.size - SN_CHECKED_FROM);
    memcpy(p + offsetof(sn_state_header, checksum), &h.checksum, sizeof h.checksum);
}

/* a number as Python's format "{:.6g}" writes it (glibc and MinGW spell NaN's sign) */
static void format_g6(char *out, size_t size, double v)
{
    if (isnan(v))
        snprintf(out, size, "nan");
    else if (isinf(v))
        snprintf(out, size, v > 0.0 ? "inf" : "-inf");
    else
        snprintf(out, size, "%.6g", v);
}

/* NULL when the state vector y of a state (its bytes at p) holds what a run leaves there, else
   why not, in the development FMU's words (engine.layout.state_fault and describe_fault):
   every slot finite, and the codes the kernels take as indices and signs whole numbers in
   their ranges. The kernel checks a copy: the state's bytes need not be aligned as its arrays
   are. */
static const char *state_y_problem(sn_instance *c, const unsigned char *p)
{
    sn_array *args[SN_MAX_ARRAYS], y = *c->chk[0];
    if ((y.data = malloc(y.nbytes > 0 ? y.nbytes : 1)) == NULL)
        return "out of memory";
    memcpy(y.data, p, y.nbytes);
    for (int i = 0; i < sn_state_fault_narrays; i++)
        args[i] = c->chk[i];
    args[0] = &y;
    int64_t k = -1;
    sn_call_state_fault(c->level, args, &k);
    const char *why = NULL;
    if (k >= 0 && k < c->nstates) {
        const double *accepts = (const double *)c->chk[sn_state_fault_narrays - 1]->data;
        char value[32], what[96];
        format_g6(value, sizeof value, ((const double *)y.data)[k]);
        if (accepts[2] == 1.0)       /* engine.layout.ACCEPTS_WHOLE */
            snprintf(what, sizeof what, "a whole number from %.0f to %.0f", accepts[0], accepts[1]);
        else
            snprintf(what, sizeof what, "a finite number");
        snprintf(c->state_why, sizeof c->state_why, "not an FMU state of this FMU (its %s = %s, "
                 "where a run leaves %s)", c->state_names[k], value, what);
        why = c->state_why;
    }
    free(y.data);
    return why;
}

/* NULL when the `size` bytes at p are a state of this FMU, else why not. */
static const char *state_problem(sn_instance *c, const unsigned char *p, size_t size)
{
    sn_state_header h;
    if (size < sizeof h)
        return "not an FMU state of this FMU (too short)";
    memcpy(&h, p, sizeof h);
    if (memcmp(h.magic, "SIMONSTA", 8) != 0)
        return "not an FMU state of this FMU (no mark SIMONSTA)";
    h.guid[sizeof h.guid - 1] = '\0';
    if (strcmp(h.guid, own_guid(c)) != 0) {     /* the development FMU's library's words */
        snprintf(c->state_why, sizeof c->state_why, "the state belongs to the FMU with GUID "
                 "%s, not to this one (%s)", h.guid, own_guid(c));
        return c->state_why;
    }
    if (h.size != state_size(c) || size != h.size)
        return "not an FMU state of this FMU (its size is another FMU's, or it is cut short)";
    if (fnv1a64(p + SN_CHECKED_FROM, size - SN_CHECKED_FROM) != h.checksum)
        return "the state's checksum does not match its contents (damaged)";
    if (h.phase < PHASE_INSTANTIATED || h.phase > PHASE_TERMINATED
            || h.last_step_status < fmi2OK || h.last_step_status > fmi2Error)
        return "not an FMU state of this FMU (no phase of the state machine)";
    /* its clocks as a run leaves them (engine.Simulation._check_state): a step count beyond
       what one communication step may take would keep doStep busy for ever */
    if (!(isfinite(h.start_time) && isfinite(h.comm_time) && isfinite(h.time)
          && isfinite(h.grid_time) && isfinite(h.step) && h.step > 0.0 && h.grid_steps >= 0
          && (double)h.grid_steps <= c->meta[M_MAX_STEPS] && (h.failed == 0 || h.failed == 1)))
        return "not an FMU state of this FMU (its clocks are not a run's: finite times, a "
               "step > 0 and a step count >= 0)";
    /* and as the engine's own check has them (times >= 0 from the start), the grid's time and
       step count where a run leaves them: the time they reach is the clock's (an edited grid
       time made the next doStep count 2^63 steps) */
    if (!(h.time >= 0.0 && h.grid_time >= 0.0 && h.grid_time <= h.time
          && fabs(h.grid_time + (double)h.grid_steps * h.step - h.time)
             <= 1e-6 * fmax(1.0, h.time)))
        return "not an FMU state of this FMU (its clocks are not a run's: times >= 0 from the "
               "start, the grid's time and steps reaching the clock's time)";
    /* the packed parameters it holds (the arrays a parameter writes): only the slots a
       parameter writes may differ from this FMU's; the rest are indices and constants the
       kernels take as they are (one edited, its checksum made again, wrote out of bounds) */
    const unsigned char *q = p + sizeof h, *y = NULL, *values = NULL;
    const unsigned char *held[SN_MAX_ARRAYS];      /* where the state holds each array */
    for (int i = 0; i < c->narrays; i++) {
        if (!c->mutable_[i])
            continue;
        const sn_array *a = &c->arrays[i];
        held[i] = q;
        if (a == c->chk[0])
            y = q;
        if (a->data == (void *)c->tune_value)
            values = q;
        for (int64_t k = 0; c->tunable[i] != NULL && k < a->nitems; k++)
            if (!c->tunable[i][k] && memcmp(q + k * a->itemsize, a->init + k * a->itemsize,
                                            (size_t)a->itemsize) != 0)
                return "not an FMU state of this FMU (its packed parameters are another FMU's "
                       "beyond what its parameters set)";
        q += a->nbytes;
    }
    if (y == NULL || values == NULL)
        return "not an FMU state of this FMU (it has no y or no parameters' values)";
    /* an Integer's or an Enumeration's value is whole in any phase (fmi2SetInteger sets it;
       an Enumeration's items' rows write nothing for a value between two items, and the
       range check at the end of initialisation lets one through) */
    for (int64_t vr = 0; vr < c->nvars; vr++) {
        double v;
        memcpy(&v, values + 8 * vr, sizeof v);
        if (is_parameter(c, vr) && c->var_table[5 * vr + 1] != T_REAL && v != floor(v))
            return "not an FMU state of this FMU (an Integer or Enumeration parameter's value "
                   "is not a whole number)";
    }
    /* once initialisation has applied the parameters (in a run that has not failed), their
       values lie in their ranges and the slots they write hold what their values write there:
       a slot may differ from this FMU's only so (substeps' is the integrator's loop bound) */
    if (h.failed == 0 && h.phase >= PHASE_STEP) {
        for (int64_t vr = 0; vr < c->nvars; vr++) {
            double v;
            memcpy(&v, values + 8 * vr, sizeof v);
            if (is_parameter(c, vr) && !(isfinite(v) && v >= c->tune_lo[vr] && v <= c->tune_hi[vr]))
                return "not an FMU state of this FMU (a parameter's value is outside its range)";
        }
        for (int r = 0; r < c->ntune_rows; r++) {
            const double *row = c->tune_rows + 6 * r;
            const sn_array *a = c->tune_target[(int64_t)row[1]];
            if (strncmp(a->name, "P.", 2) != 0)
                continue;                           /* the state's own rows: it moves on */
            double v, got, want;
            memcpy(&v, values + 8 * (int64_t)row[0], sizeof v);
            if (!row_value(row, v, &want))
                continue;                           /* another item's row */
            int later = 0;                          /* a later row writes the slot last */
            for (int r2 = r + 1; r2 < c->ntune_rows && !later; r2++) {
                const double *next = c->tune_rows + 6 * r2;
                double v2, unused;
                memcpy(&v2, values + 8 * (int64_t)next[0], sizeof v2);
                later = next[1] == row[1] && next[2] == row[2] && row_value(next, v2, &unused);
            }
            if (later)
                continue;
            memcpy(&got, held[a - c->arrays] + 8 * (int64_t)row[2], sizeof got);
            if (memcmp(&want, &got, sizeof want) != 0)
                return "not an FMU state of this FMU (its packed parameters are not what its "
                       "parameters' values set)";
        }
    }
    return state_y_problem(c, y);
}

/* the state at p (checked by state_problem) into c */
static void state_read(sn_instance *c, const unsigned char *p)
{
    sn_state_header h;
    memcpy(&h, p, sizeof h);
    p += sizeof h;
    for (int i = 0; i < c->narrays; i++)
        if (c->mutable_[i]) {
            memcpy(c->arrays[i].data, p, c->arrays[i].nbytes);
            p += c->arrays[i].nbytes;
        }
    c->start_time = h.start_time; c->comm_time = h.comm_time;
    c->time = h.time; c->grid_time = h.grid_time; c->grid_steps = h.grid_steps;
    c->phase = (int)h.phase; c->failed = (int)h.failed; c->step = h.step;
    c->last_step_status = (int)h.last_step_status;
    memcpy(c->failure, h.failure, sizeof h.failure);
    c->failure[sizeof h.failure - 1] = '\0';
}

/* An FMU state handed to c: one it made and has not freed; else logged, 0. */
static int own_state(sn_instance *c, fmi2FMUstate state, const char *function)
{
    if (state != NULL && registered(state, c, 0))
        return 1;
    LOG_ERROR(c, "%s: %p is no FMU state of this instance (freed already, never made, or "
              "made by another instance)", function, (void *)state);    /* the library's words */
    return 0;
}

fmi2Status fmi2GetFMUstate(fmi2Component comp, fmi2FMUstate *state)
{
    const char *f = "fmi2GetFMUstate";
    LIVE(c, comp, f, fmi2Error)
    if (state == NULL) {
        LOG_ERROR(c, "%s refused: FMUstate is NULL; it accepts a pointer to a state", f);
        return fmi2Error;
    }
    unsigned char *p = *state;
    if (p != NULL && !own_state(c, p, f))          /* a state to be overwritten */
        return fmi2Error;
    if (p == NULL) {
        p = malloc(state_size(c));
        if (p == NULL || register_live(p, c) != 0) {
            free(p);
            LOG_ERROR(c, "%s: out of memory", f);
            return fmi2Error;
        }
    }
    state_write(c, p);
    *state = p;
    return fmi2OK;
}

fmi2Status fmi2SetFMUstate(fmi2Component comp, fmi2FMUstate state)
{
    const char *f = "fmi2SetFMUstate";
    LIVE(c, comp, f, fmi2Error)
    if (!own_state(c, state, f))
        return fmi2Error;
    const char *why = state_problem(c, state, state_size(c));
    if (why != NULL) {
        LOG_ERROR(c, "%s refused, the instance is unchanged: %s", f, why);
        return fmi2Error;
    }
    state_read(c, state);
    return fmi2OK;
}

fmi2Status fmi2FreeFMUstate(fmi2Component comp, fmi2FMUstate *state)
{
    const char *f = "fmi2FreeFMUstate";
    LIVE(c, comp, f, fmi2Error)
    if (state == NULL || *state == NULL)
        return fmi2OK;                              /* nothing to free */
    if (!registered(*state, c, 1)) {
        own_state(c, *state, f);
        return fmi2Error;
    }
    free(*state);
    *state = NULL;
    return fmi2OK;
}

fmi2Status fmi2SerializedFMUstateSize(fmi2Component comp, fmi2FMUstate state, size_t *size)
{
    const char *f = "fmi2SerializedFMUstateSize";
    LIVE(c, comp, f, fmi2Error)
    if (size == NULL) {
        LOG_ERROR(c, "%s: no place for the size (NULL)", f);    /* the library's words */
        return fmi2Error;
    }
    if (!own_state(c, state, f))
        return fmi2Error;
    *size = state_size(c);
    return fmi2OK;
}

fmi2Status fmi2SerializeFMUstate(fmi2Component comp, fmi2FMUstate state, fmi2Byte bytes[], size_t size)
{
    const char *f = "fmi2SerializeFMUstate";
    LIVE(c, comp, f, fmi2Error)
    if (!own_state(c, state, f))
        return fmi2Error;
    if (bytes == NULL || size < state_size(c)) {
        LOG_ERROR(c, "%s refused: %zu bytes given; the state needs %zu", f, size, state_size(c));
        return fmi2Error;
    }
    memcpy(bytes, state, state_size(c));
    return fmi2OK;
}

fmi2Status fmi2DeSerializeFMUstate(fmi2Component comp, const fmi2Byte bytes[], size_t size,
                                   fmi2FMUstate *state)
{
    const char *f = "fmi2DeSerializeFMUstate";
    LIVE(c, comp, f, fmi2Error)
    if (state == NULL || bytes == NULL) {
        LOG_ERROR(c, "%s refused: no bytes or no FMUstate to write to", f);
        return fmi2Error;
    }
    const char *why = state_problem(c, (const unsigned char *)bytes, size);
    if (why != NULL) {
        LOG_ERROR(c, "%s: %s", f, why);
        return fmi2Error;
    }
    unsigned char *p = *state;
    if (p != NULL && !own_state(c, p, f))
        return fmi2Error;
    if (p == NULL) {
        p = malloc(size);                           /* a state of this FMU: same size */
        if (p == NULL || register_live(p, c) != 0) {
            free(p);
            LOG_ERROR(c, "%s: out of memory", f);
            return fmi2Error;
        }
    }
    memcpy(p, bytes, size);
    *state = p;
    return fmi2OK;
}
