/*
 * simon-fmu's FMI 2.0 implementation: the registry of live instances.
 *
 * fmi2Instantiate adds an instance, fmi2FreeInstance removes it before its memory is freed.
 * Every entry point takes its component through instance(), which answers only for a live
 * instance: a component that was freed already (a second fmi2FreeInstance, any call after
 * it) or was never made here is refused with fmi2Error, without touching its memory. A magic
 * number in the instance could not do this: the stores that clear it before free() are dead
 * to the optimiser, and reading freed memory is undefined behaviour anyway.
 */
#include <pthread.h>
#include <stdio.h>

#include "fmi2_internal.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
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

void registry_remove(Instance *c)
{
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < n_live; i++) {
        if (live[i] == c) {
            live[i] = live[--n_live];
            break;
        }
    }
    pthread_mutex_unlock(&lock);
}

Instance *instance(fmi2Component component, const char *function)
{
    Instance *found = NULL;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < n_live && !found; i++)
        if (live[i] == (Instance *)component) found = live[i];
    pthread_mutex_unlock(&lock);
    if (!found)
        fprintf(stderr, "simon-fmu: %s: component %p is no live instance of this FMU "
                "(freed already, or never instantiated); refused with fmi2Error\n",
                function, component);
    return found;
}
