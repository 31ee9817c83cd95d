/*
 * Real-time checks of a native FMU (docs/native.md): loads binaries/linux64/<id>.so of an
 * extracted FMU, initialises it, takes one step, then N_STEPS steps of STEP seconds with a
 * steering input changed before each, and reports what happened inside those doSteps:
 *
 *   allocations=<malloc, calloc, realloc and free calls> worst_us=<worst doStep> median_us=...
 *   p99_us=... status=<worst status>
 *
 * Allocations are counted by this executable's malloc family, which the FMU's library binds
 * to (they forward to glibc's). The loop is bracketed by two writes to stderr,
 * "<<native-rt:begin>>" and "<<native-rt:end>>", so that a system-call trace (strace) can be
 * cut to the doSteps. No Python is involved anywhere.
 *
 * Usage: native_rt FMU_DIR MODEL_IDENTIFIER GUID STEP N_STEPS VR_STEER
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fmi2Functions.h"
#include "host_logger.h"

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

static volatile int counting;
static long allocations;

void *malloc(size_t n) { if (counting) allocations++; return __libc_malloc(n); }
void *calloc(size_t n, size_t m) { if (counting) allocations++; return __libc_calloc(n, m); }
void *realloc(void *p, size_t n) { if (counting) allocations++; return __libc_realloc(p, n); }
void free(void *p) { if (counting && p) allocations++; __libc_free(p); }

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define SYM(name) name##TYPE *name = (name##TYPE *)dlsym(lib, #name); if (!name) return 2

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: native_rt FMU_DIR MODEL_IDENTIFIER GUID STEP N_STEPS VR_STEER\n");
        return 1;
    }
    const char *dir = argv[1], *id = argv[2], *guid = argv[3];
    double h = atof(argv[4]);
    long n = atol(argv[5]);
    fmi2ValueReference steer = (fmi2ValueReference)atol(argv[6]);
    char path[4096], uri[4200];
    snprintf(path, sizeof path, "%s/binaries/linux64/%s.so", dir, id);
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        fprintf(stderr, "%s\n", dlerror());
        return 2;
    }
    SYM(fmi2Instantiate); SYM(fmi2SetupExperiment); SYM(fmi2EnterInitializationMode);
    SYM(fmi2ExitInitializationMode); SYM(fmi2DoStep); SYM(fmi2SetReal); SYM(fmi2FreeInstance);
    SYM(fmi2Terminate);
    snprintf(uri, sizeof uri, "file://%s/resources/", dir);
    fmi2CallbackFunctions cb = {logger, calloc, free, NULL, NULL};
    fmi2Component c = fmi2Instantiate("rt", fmi2CoSimulation, guid, uri, &cb, fmi2False, fmi2False);
    if (c == NULL)
        return 3;
    if (fmi2SetupExperiment(c, fmi2False, 0.0, 0.0, fmi2False, 0.0) != fmi2OK
            || fmi2EnterInitializationMode(c) != fmi2OK || fmi2ExitInitializationMode(c) != fmi2OK
            || fmi2DoStep(c, 0.0, h, fmi2True) != fmi2OK)
        return 3;
    double *took = __libc_malloc(sizeof(double) * (size_t)n);
    int worst = fmi2OK;
    double t = h;
    write(2, "<<native-rt:begin>>\n", 20);
    counting = 1;
    for (long k = 0; k < n; k++) {
        double angle = 0.5 * sin(t);
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        int s = fmi2SetReal(c, &steer, 1, &angle);
        if (s > worst) worst = s;
        s = fmi2DoStep(c, t, h, fmi2True);
        clock_gettime(CLOCK_MONOTONIC, &b);
        if (s > worst) worst = s;
        took[k] = (double)(b.tv_sec - a.tv_sec) * 1e6 + (double)(b.tv_nsec - a.tv_nsec) * 1e-3;
        t += h;
    }
    counting = 0;
    write(2, "<<native-rt:end>>\n", 18);
    qsort(took, (size_t)n, sizeof *took, by_value);
    printf("allocations=%ld worst_us=%.1f median_us=%.1f p99_us=%.1f status=%d\n", allocations,
           took[n - 1], took[n / 2], took[(long)(0.99 * (double)n)], worst);
    fmi2Terminate(c);
    fmi2FreeInstance(c);
    __libc_free(took);
    dlclose(lib);
    return worst == fmi2OK ? 0 : 3;
}
