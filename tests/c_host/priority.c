/*
 * Two real-time threads of different priority on one CPU, each calling its own instance of a
 * native FMU (tests/test_native_robustness.py): the runtime's locks must not starve either.
 * L (SCHED_FIFO priority 10) calls fmi2GetReal in a loop; H (priority 20) sleeps 200 us, then
 * calls fmi2GetReal, again and again. The main thread watches H's count from the same CPU
 * (the kernel's real-time throttling leaves it a share). The runtime's locks were spins: H,
 * finding the registry's lock held by L, spun at the higher priority, L never ran to give it
 * back, and both stopped for good.
 *
 * Usage: priority LIBRARY RESOURCE_URI GUID VR SECONDS [same]
 *   VR: a Real output's value reference; "same": H calls L's instance (FMI forbids concurrent
 *   calls on one instance; the runtime serialises them).
 * Exit 0: H went on calling for SECONDS; 1: H made no call for a second; 2: the set-up failed
 * (SCHED_FIFO needs root or CAP_SYS_NICE).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fmi2FunctionTypes.h"

static fmi2GetRealTYPE *get_real;
static fmi2Component a, b;
static fmi2ValueReference vr;
static long calls_low, calls_high;

static void logger(fmi2ComponentEnvironment e, fmi2String i, fmi2Status s, fmi2String c,
                   fmi2String m, ...)
{
    (void)e; (void)i; (void)s; (void)c; (void)m;
}

static void *low(void *arg)
{
    (void)arg;
    double v;
    for (;;) {
        get_real(a, &vr, 1, &v);
        __atomic_add_fetch(&calls_low, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

static void *high(void *arg)
{
    (void)arg;
    double v;
    struct timespec pause = {0, 200000};
    for (;;) {
        nanosleep(&pause, NULL);
        get_real(b, &vr, 1, &v);
        __atomic_add_fetch(&calls_high, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

static void spawn(void *(*f)(void *), int priority)
{
    pthread_attr_t attr;
    pthread_t t;
    struct sched_param sp = {.sched_priority = priority};
    pthread_attr_init(&attr);
    pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
    pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
    pthread_attr_setschedparam(&attr, &sp);
    int e = pthread_create(&t, &attr, f, NULL);
    if (e != 0) {
        fprintf(stderr, "pthread_create with SCHED_FIFO: %s (it needs root or CAP_SYS_NICE)\n",
                strerror(e));
        exit(2);
    }
}

int main(int argc, char **argv)
{
    if (argc != 6 && argc != 7) {
        fprintf(stderr, "usage: priority LIBRARY RESOURCE_URI GUID VR SECONDS [same]\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IONBF, 0);
    void *lib = dlopen(argv[1], RTLD_NOW);
    if (lib == NULL) {
        fprintf(stderr, "%s\n", dlerror());
        return 2;
    }
    fmi2InstantiateTYPE *instantiate = (fmi2InstantiateTYPE *)dlsym(lib, "fmi2Instantiate");
    fmi2SetupExperimentTYPE *setup = (fmi2SetupExperimentTYPE *)dlsym(lib, "fmi2SetupExperiment");
    fmi2EnterInitializationModeTYPE *enter =
        (fmi2EnterInitializationModeTYPE *)dlsym(lib, "fmi2EnterInitializationMode");
    fmi2ExitInitializationModeTYPE *leave =
        (fmi2ExitInitializationModeTYPE *)dlsym(lib, "fmi2ExitInitializationMode");
    get_real = (fmi2GetRealTYPE *)dlsym(lib, "fmi2GetReal");
    vr = (fmi2ValueReference)strtoul(argv[4], NULL, 10);
    int seconds = atoi(argv[5]);
    int same = argc == 7 && strcmp(argv[6], "same") == 0;
    fmi2CallbackFunctions cb = {logger, calloc, free, NULL, NULL};
    a = instantiate("low", fmi2CoSimulation, argv[3], argv[2], &cb, fmi2False, fmi2False);
    b = same ? a : instantiate("high", fmi2CoSimulation, argv[3], argv[2], &cb, fmi2False,
                               fmi2False);
    if (a == NULL || b == NULL)
        return 2;
    fmi2Component both[2] = {a, b};
    for (int k = 0; k < (same ? 1 : 2); k++)
        if (setup(both[k], fmi2False, 0.0, 0.0, fmi2False, 0.0) != fmi2OK
                || enter(both[k]) != fmi2OK || leave(both[k]) != fmi2OK)
            return 2;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0) {   /* the threads inherit it */
        perror("sched_setaffinity");
        return 2;
    }
    spawn(low, 10);
    spawn(high, 20);
    long last = -1;
    for (int s = 0; s < seconds; s++) {
        sleep(1);
        long h = __atomic_load_n(&calls_high, __ATOMIC_RELAXED);
        long l = __atomic_load_n(&calls_low, __ATOMIC_RELAXED);
        printf("t=%d s: L %ld calls, H %ld calls\n", s + 1, l, h);
        if (h == last) {
            printf("H made no call for a second: the threads are stuck\n");
            _exit(1);
        }
        last = h;
    }
    printf("H went on calling for %d s\n", seconds);
    _exit(0);
}
