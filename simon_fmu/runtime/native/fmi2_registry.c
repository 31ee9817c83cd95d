/*
 * simon-fmu's FMI 2.0 implementation: the registry of live instances, and one call at a time
 * on each.
 *
 * fmi2Instantiate adds an instance, fmi2FreeInstance removes it before its memory is freed.
 * Every entry point takes its component through instance(), which answers only for a live
 * instance: a component that was freed already (a second fmi2FreeInstance, any call after
 * it) or was never made here is refused with fmi2Error, without touching its memory. A magic
 * number in the instance could not do this: the stores that clear it before free() are dead
 * to the optimiser, and reading freed memory is undefined behaviour anyway.
 *
 * FMI 2.0 forbids calling one instance from two threads at once; a host that does it anyway
 * must not get an instance whose library state (the time line) and slave disagree. So every
 * FMI call on an instance holds the instance's lock (acquire_instance .. release_instance,
 * wrapped around each function of the table in fmi2_lifecycle.c): concurrent calls run one
 * after the other, as the standalone FMU's proxy runs them. The lock is recursive, so a
 * logger that calls back into the instance from within a call (the same thread) goes on. It
 * is taken before the GIL; a thread that holds the GIL when it must wait (a host calling from
 * Python without letting the GIL go, or a logger calling another instance) lets the GIL go
 * while it waits, so the thread in the call can take the GIL and finish.
 *
 * fmi2FreeInstance takes the lock too, takes the instance out of the registry, and frees its
 * memory only after every call that was waiting for the lock has seen that it is gone
 * (`users`): such a call answers fmi2Error, as one made after the instance was freed.
 */
#include <stdio.h>

#include "fmi2_internal.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t left = PTHREAD_COND_INITIALIZER;   /* a user of a retired instance left */
static Instance **live;
static size_t n_live, capacity;

int registry_add(Instance *c)
{
    int ok = 0;
    pthread_mutex_lock(&lock);
    if (n_live == capacity) {
        size_t more = capacity ? 2 * capacity : 8;
        Instance **grown = realloc(live, more * sizeof *grown);
        if (grown) {
            live = grown;
            capacity = more;
        }
    }
    if (n_live < capacity) {
        live[n_live++] = c;
        ok = 1;
    }
    pthread_mutex_unlock(&lock);
    return ok ? 0 : -1;
}

/* The live instance `component` is (registry lock held), or NULL. */
static Instance *find(fmi2Component component)
{
    for (size_t i = 0; i < n_live; i++)
        if (live[i] == (Instance *)component) return live[i];
    return NULL;
}

static void not_live(fmi2Component component, const char *function, const char *why)
{
    fprintf(stderr, "simon-fmu: %s: component %p is no live instance of this FMU (%s); "
            "refused with fmi2Error\n", function, component, why);
}

Instance *instance(fmi2Component component, const char *function)
{
    pthread_mutex_lock(&lock);
    Instance *found = find(component);
    pthread_mutex_unlock(&lock);
    if (!found) not_live(component, function, "freed already, or never instantiated");
    return found;
}

int instance_lock_init(Instance *c)
{
    pthread_mutexattr_t attributes;
    if (pthread_mutexattr_init(&attributes) != 0) return -1;
    int failed = pthread_mutexattr_settype(&attributes, PTHREAD_MUTEX_RECURSIVE) != 0
              || pthread_mutex_init(&c->lock, &attributes) != 0;
    pthread_mutexattr_destroy(&attributes);
    return failed ? -1 : 0;
}

/* 1 if this thread holds the GIL. */
static int holds_gil(void)
{
    if (!Py_IsInitialized()) return 0;
#if PY_VERSION_HEX >= 0x030D0000
    PyThreadState *running = PyThreadState_GetUnchecked();
#else
    PyThreadState *running = _PyThreadState_UncheckedGet();
#endif
    return running && running == PyGILState_GetThisThreadState();
}

/* One user less of c; the last of a retired instance wakes fmi2FreeInstance. */
static void leave(Instance *c)
{
    pthread_mutex_lock(&lock);
    if (--c->users == 0 && c->retired) pthread_cond_broadcast(&left);
    pthread_mutex_unlock(&lock);
}

Instance *acquire_instance(fmi2Component component, const char *function)
{
    pthread_mutex_lock(&lock);
    Instance *c = find(component);
    if (c) c->users++;
    pthread_mutex_unlock(&lock);
    if (!c) {
        not_live(component, function, "freed already, or never instantiated");
        return NULL;
    }
    PyThreadState *saved = NULL;
    if (pthread_mutex_trylock(&c->lock) != 0) {
        /* another thread is in a call on c: wait for it, without the GIL it may need */
        if (holds_gil()) saved = PyEval_SaveThread();
        pthread_mutex_lock(&c->lock);
    }
    if (c->retired) {   /* freed while this call waited */
        pthread_mutex_unlock(&c->lock);
        leave(c);       /* c may be gone from here on */
        if (saved) PyEval_RestoreThread(saved);
        not_live(component, function, "freed while this call waited for another call on it");
        return NULL;
    }
    if (saved) PyEval_RestoreThread(saved);
    c->depth++;
    return c;
}

void release_instance(Instance *c)
{
    c->depth--;
    pthread_mutex_unlock(&c->lock);
    leave(c);
}

void retire_begin(Instance *c)
{
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < n_live; i++) {
        if (live[i] == c) {
            live[i] = live[--n_live];
            break;
        }
    }
    c->retired = 1;
    pthread_mutex_unlock(&lock);
}

void retire_finish(Instance *c)
{
    c->depth--;
    pthread_mutex_unlock(&c->lock);
    pthread_mutex_lock(&lock);
    c->users--;
    while (c->users > 0) pthread_cond_wait(&left, &lock);
    pthread_mutex_unlock(&lock);
}
