/*
 * An FMI 2.0 host that calls FMUs from several threads at once (POSIX threads), to show that
 * the FMU's library serves them: instances created concurrently in a fresh process, and
 * concurrent calls on one instance (which FMI 2.0 forbids, and which must still leave the
 * instance usable and consistent).
 *
 * Usage:
 *   threads instantiate STEPS SPEC...
 *       One thread per SPEC (FOLDER:MODEL_IDENTIFIER:GUID, an extracted FMU). The threads wait
 *       at a barrier, call fmi2Instantiate at the same moment, wait until every thread has its
 *       answer, then each sets up, initialises, takes STEPS steps of 1 ms and frees its
 *       instance. Lines on stdout:
 *         "instance I ok" or "instance I NULL"
 *         "steps I N STATUS" (the status of the first failing step, or of the last one)
 *         "freed I"
 *   threads one-instance FOLDER MODEL_IDENTIFIER GUID ROUNDS ARG...
 *       One instance, its inputs set (each ARG VR=VALUE, fmi2SetReal after initialisation),
 *       one step refused on purpose (from t = 1), then two threads each calling fmi2DoStep
 *       on it ROUNDS times at once, each call from fmi2LastSuccessfulTime with a 1 ms step; the
 *       logger calls back into the instance (fmi2GetRealStatus, fmi2GetReal) from the same
 *       thread while it logs. Then 20 more steps from the main thread, and a second instance
 *       with the same inputs stepped alone as many times as the first accepted steps, for
 *       comparison of the outputs (each other ARG, a value reference). Lines on stdout:
 *         "accepted N", "refused N", "duplicates N", "gaps N", "nested N"
 *         "last-successful T", "expected-last T"
 *         "after STATUS" (the worst status of the 20 steps after the concurrent ones)
 *         "final-last T"
 *         "value VR CONCURRENT ALONE" for each VR
 *   threads free-while-stepping FOLDER MODEL_IDENTIFIER GUID
 *       One instance, two threads stepping it (as in one-instance) until their calls are
 *       refused; the main thread frees it while they step. Lines on stdout:
 *         "free-returned", "accepted N", "refused-after-free N" (calls of the threads that
 *         ended after fmi2FreeInstance had returned, all refused), "late-ok N" (of those,
 *         answered fmi2OK: must be 0)
 *
 * The last line is "done". Exit status 0 if it got there, 1 on usage errors, 2 if a library
 * cannot be loaded. The logger writes one line per message on stderr.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2Functions.h"

#define H 0.001

typedef struct {
    void *lib;
    char resources[PATH_MAX + 16];
    const char *guid;
    fmi2InstantiateTYPE *instantiate;
    fmi2FreeInstanceTYPE *free_instance;
    fmi2SetupExperimentTYPE *setup;
    fmi2EnterInitializationModeTYPE *enter;
    fmi2ExitInitializationModeTYPE *exit_init;
    fmi2DoStepTYPE *do_step;
    fmi2GetRealTYPE *get_real;
    fmi2SetRealTYPE *set_real;
    fmi2GetRealStatusTYPE *get_real_status;
} Fmu;

static void *symbol(void *lib, const char *name)
{
    void *f = dlsym(lib, name);
    if (!f) {
        fprintf(stderr, "threads: missing symbol %s\n", name);
        exit(2);
    }
    return f;
}

/* FOLDER:MODEL_IDENTIFIER:GUID (the folder may not contain ':') */
static void open_fmu(Fmu *f, char *spec)
{
    char *model = strchr(spec, ':');
    char *guid = model ? strchr(model + 1, ':') : NULL;
    if (!model || !guid) {
        fprintf(stderr, "threads: %s is no FOLDER:MODEL_IDENTIFIER:GUID\n", spec);
        exit(1);
    }
    *model++ = 0;
    *guid++ = 0;
    char library[PATH_MAX + 128];
    snprintf(library, sizeof library, "%s/binaries/linux64/%s.so", spec, model);
    snprintf(f->resources, sizeof f->resources, "file://%s/resources", spec);
    f->guid = guid;
    f->lib = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!f->lib) {
        fprintf(stderr, "threads: %s\n", dlerror());
        exit(2);
    }
    f->instantiate = (fmi2InstantiateTYPE *)symbol(f->lib, "fmi2Instantiate");
    f->free_instance = (fmi2FreeInstanceTYPE *)symbol(f->lib, "fmi2FreeInstance");
    f->setup = (fmi2SetupExperimentTYPE *)symbol(f->lib, "fmi2SetupExperiment");
    f->enter = (fmi2EnterInitializationModeTYPE *)symbol(f->lib, "fmi2EnterInitializationMode");
    f->exit_init = (fmi2ExitInitializationModeTYPE *)symbol(f->lib, "fmi2ExitInitializationMode");
    f->do_step = (fmi2DoStepTYPE *)symbol(f->lib, "fmi2DoStep");
    f->get_real = (fmi2GetRealTYPE *)symbol(f->lib, "fmi2GetReal");
    f->set_real = (fmi2SetRealTYPE *)symbol(f->lib, "fmi2SetReal");
    f->get_real_status = (fmi2GetRealStatusTYPE *)symbol(f->lib, "fmi2GetRealStatus");
}

/* ------------------------------------------------------------------ the logger */

/* Set in one-instance mode: the logger then calls back into this instance. */
static Fmu *nested_fmu;
static fmi2Component nested_component;
static int nested_calls;            /* nested calls answered fmi2OK */
static pthread_mutex_t nested_lock = PTHREAD_MUTEX_INITIALIZER;

static void logger(fmi2ComponentEnvironment env, fmi2String instance, fmi2Status status,
                   fmi2String category, fmi2String message, ...)
{
    (void)env;
    char text[8192];
    int n = snprintf(text, sizeof text, "[%s|%d|%s] ", instance ? instance : "?", (int)status,
                     category ? category : "");
    va_list args;
    va_start(args, message);
    if (n >= 0 && (size_t)n < sizeof text) vsnprintf(text + n, sizeof text - (size_t)n, message, args);
    va_end(args);
    fprintf(stderr, "%s\n", text);   /* one write per message */
    if (nested_fmu && nested_component) {
        fmi2Real t, v;
        fmi2ValueReference vr = 0;
        if (nested_fmu->get_real_status(nested_component, fmi2LastSuccessfulTime, &t) == fmi2OK
                && nested_fmu->get_real(nested_component, &vr, 1, &v) == fmi2OK) {
            pthread_mutex_lock(&nested_lock);
            nested_calls++;
            pthread_mutex_unlock(&nested_lock);
        }
    }
}

static const fmi2CallbackFunctions callbacks = {logger, calloc, free, NULL, NULL};

/* ------------------------------------------------------------------ instantiate */

typedef struct {
    int index;
    Fmu *fmu;
    int steps;
    pthread_barrier_t *start, *created;
} Job;

static void *instantiate_job(void *arg)
{
    Job *j = arg;
    char name[32];
    snprintf(name, sizeof name, "thread%d", j->index);
    pthread_barrier_wait(j->start);
    fmi2Component c = j->fmu->instantiate(name, fmi2CoSimulation, j->fmu->guid,
                                          j->fmu->resources, &callbacks, fmi2False, fmi2False);
    printf("instance %d %s\n", j->index, c ? "ok" : "NULL");
    fflush(stdout);
    pthread_barrier_wait(j->created);   /* every instance exists before any is stepped */
    if (!c) return NULL;
    fmi2Status status = j->fmu->setup(c, fmi2False, 0.0, 0.0, fmi2False, 0.0);
    if (status == fmi2OK) status = j->fmu->enter(c);
    if (status == fmi2OK) status = j->fmu->exit_init(c);
    int n = 0;
    for (; status == fmi2OK && n < j->steps; n++) {
        status = j->fmu->do_step(c, n * H, H, fmi2True);
        if (status != fmi2OK) break;
    }
    printf("steps %d %d %d\n", j->index, n, (int)status);
    fflush(stdout);
    j->fmu->free_instance(c);
    printf("freed %d\n", j->index);
    fflush(stdout);
    return NULL;
}

static int instantiate_mode(int steps, int n, char **specs)
{
    Fmu *fmus = calloc((size_t)n, sizeof *fmus);
    Job *jobs = calloc((size_t)n, sizeof *jobs);
    pthread_t *threads = calloc((size_t)n, sizeof *threads);
    pthread_barrier_t start, created;
    if (!fmus || !jobs || !threads) return 2;
    for (int i = 0; i < n; i++) open_fmu(&fmus[i], specs[i]);
    pthread_barrier_init(&start, NULL, (unsigned)n);
    pthread_barrier_init(&created, NULL, (unsigned)n);
    for (int i = 0; i < n; i++) {
        jobs[i] = (Job){i, &fmus[i], steps, &start, &created};
        if (pthread_create(&threads[i], NULL, instantiate_job, &jobs[i]) != 0) return 2;
    }
    for (int i = 0; i < n; i++) pthread_join(threads[i], NULL);
    printf("done\n");
    return 0;
}

/* ------------------------------------------------------------------ one instance */

#define MAX_ACCEPTED 100000

typedef struct {
    Fmu *fmu;
    fmi2Component c;
    int rounds;
    pthread_barrier_t *start;
    double *accepted;   /* the start times of the steps answered fmi2OK */
    int n_accepted, n_refused;
} Stepper;

static void *step_job(void *arg)
{
    Stepper *s = arg;
    pthread_barrier_wait(s->start);
    for (int i = 0; i < s->rounds; i++) {
        fmi2Real t = -1;
        if (s->fmu->get_real_status(s->c, fmi2LastSuccessfulTime, &t) != fmi2OK) {
            s->n_refused++;
            continue;
        }
        if (s->fmu->do_step(s->c, t, H, fmi2True) == fmi2OK && s->n_accepted < MAX_ACCEPTED)
            s->accepted[s->n_accepted++] = t;
        else
            s->n_refused++;
    }
    return NULL;
}

static int compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static fmi2Component start_instance(Fmu *f, const char *name)
{
    fmi2Component c = f->instantiate(name, fmi2CoSimulation, f->guid, f->resources,
                                     &callbacks, fmi2False, fmi2False);
    if (!c || f->setup(c, fmi2False, 0.0, 0.0, fmi2False, 0.0) != fmi2OK
            || f->enter(c) != fmi2OK || f->exit_init(c) != fmi2OK) {
        fprintf(stderr, "threads: %s cannot be started\n", name);
        exit(2);
    }
    return c;
}

static int one_instance_mode(char *spec, int rounds, int nargs, char **args)
{
    Fmu f;
    memset(&f, 0, sizeof f);
    open_fmu(&f, spec);
    fmi2ValueReference *vrs = calloc((size_t)nargs + 1, sizeof *vrs);
    fmi2ValueReference *inputs = calloc((size_t)nargs + 1, sizeof *inputs);
    double *input_values = calloc((size_t)nargs + 1, sizeof *input_values);
    double *concurrent = calloc((size_t)nargs + 1, sizeof *concurrent);
    double *alone = calloc((size_t)nargs + 1, sizeof *alone);
    if (!vrs || !inputs || !input_values || !concurrent || !alone) return 2;
    int nvr = 0, nin = 0;
    for (int i = 0; i < nargs; i++) {
        char *eq = strchr(args[i], '=');
        if (eq) {
            inputs[nin] = (fmi2ValueReference)strtoul(args[i], NULL, 10);
            input_values[nin++] = strtod(eq + 1, NULL);
        } else {
            vrs[nvr++] = (fmi2ValueReference)strtoul(args[i], NULL, 10);
        }
    }

    fmi2Component c = start_instance(&f, "shared");
    if (nin > 0 && f.set_real(c, inputs, (size_t)nin, input_values) != fmi2OK) return 2;
    nested_fmu = &f;
    nested_component = c;
    if (f.do_step(c, 1.0, H, fmi2True) == fmi2OK) {   /* refused, logged: the logger nests */
        fprintf(stderr, "threads: a step from t = 1 was accepted at t = 0\n");
        return 2;
    }
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, 2);
    Stepper s[2];
    pthread_t threads[2];
    for (int k = 0; k < 2; k++) {
        s[k] = (Stepper){&f, c, rounds, &start, calloc(MAX_ACCEPTED, sizeof(double)), 0, 0};
        if (!s[k].accepted || pthread_create(&threads[k], NULL, step_job, &s[k]) != 0) return 2;
    }
    for (int k = 0; k < 2; k++) pthread_join(threads[k], NULL);

    int n = s[0].n_accepted + s[1].n_accepted;
    double *all = calloc((size_t)n + 1, sizeof *all);
    if (!all) return 2;
    memcpy(all, s[0].accepted, (size_t)s[0].n_accepted * sizeof *all);
    memcpy(all + s[0].n_accepted, s[1].accepted, (size_t)s[1].n_accepted * sizeof *all);
    qsort(all, (size_t)n, sizeof *all, compare);
    int duplicates = 0, gaps = 0;
    for (int i = 0; i < n; i++) {
        double expected = i * H;
        if (i > 0 && all[i] - all[i - 1] < 0.5 * H) duplicates++;
        else if (all[i] - expected > 0.5 * H || expected - all[i] > 0.5 * H) gaps++;
    }
    fmi2Real last = -1;
    f.get_real_status(c, fmi2LastSuccessfulTime, &last);
    printf("accepted %d\nrefused %d\nduplicates %d\ngaps %d\n", n,
           s[0].n_refused + s[1].n_refused, duplicates, gaps);
    printf("last-successful %.17g\nexpected-last %.17g\n", last, n > 0 ? all[n - 1] + H : 0.0);

    /* the instance steps on normally */
    fmi2Status worst = fmi2OK;
    fmi2Real t = last;
    for (int i = 0; i < 20; i++) {
        fmi2Status status = f.do_step(c, t, H, fmi2True);
        if (status > worst) worst = status;
        if (status == fmi2OK) t += H;
    }
    printf("after %d\n", (int)worst);
    fmi2Real final_last = -1;
    f.get_real_status(c, fmi2LastSuccessfulTime, &final_last);
    printf("final-last %.17g\n", final_last);
    printf("nested %d\n", nested_calls);
    nested_fmu = NULL;
    nested_component = NULL;
    if (nvr > 0 && f.get_real(c, vrs, (size_t)nvr, concurrent) != fmi2OK) return 2;

    /* the same steps, one at a time, in a second instance */
    fmi2Component d = start_instance(&f, "alone");
    if (nin > 0 && f.set_real(d, inputs, (size_t)nin, input_values) != fmi2OK) return 2;
    int total = n + 20;
    for (int i = 0; i < total; i++)
        if (f.do_step(d, i * H, H, fmi2True) != fmi2OK) {
            fprintf(stderr, "threads: the instance stepped alone failed at step %d\n", i);
            return 2;
        }
    if (nvr > 0 && f.get_real(d, vrs, (size_t)nvr, alone) != fmi2OK) return 2;
    for (int i = 0; i < nvr; i++)
        printf("value %u %.17g %.17g\n", vrs[i], concurrent[i], alone[i]);
    f.free_instance(c);
    f.free_instance(d);
    printf("done\n");
    return 0;
}

/* ------------------------------------------------------------------ free while stepping */

typedef struct {
    Fmu *fmu;
    fmi2Component c;
    pthread_barrier_t *start;
    volatile int *freed;    /* set by the main thread once fmi2FreeInstance has returned */
    int accepted, refused_after_free, late_ok;
} Racer;

static void *race_job(void *arg)
{
    Racer *r = arg;
    pthread_barrier_wait(r->start);
    for (int refused = 0; refused < 50;) {
        int freed_before = __atomic_load_n(r->freed, __ATOMIC_ACQUIRE);
        fmi2Real t = 0;
        fmi2Status status = r->fmu->get_real_status(r->c, fmi2LastSuccessfulTime, &t);
        if (status == fmi2OK) status = r->fmu->do_step(r->c, t, H, fmi2True);
        if (status == fmi2OK) __atomic_add_fetch(&r->accepted, 1, __ATOMIC_RELAXED);
        if (freed_before) {
            r->refused_after_free += status != fmi2OK;
            r->late_ok += status == fmi2OK;
            refused++;
        }
    }
    return NULL;
}

static int free_while_stepping_mode(char *spec)
{
    Fmu f;
    memset(&f, 0, sizeof f);
    open_fmu(&f, spec);
    fmi2Component c = start_instance(&f, "freed");
    volatile int freed = 0;
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, 3);
    Racer r[2];
    pthread_t threads[2];
    for (int k = 0; k < 2; k++) {
        r[k] = (Racer){&f, c, &start, &freed, 0, 0, 0};
        if (pthread_create(&threads[k], NULL, race_job, &r[k]) != 0) return 2;
    }
    pthread_barrier_wait(&start);
    while (__atomic_load_n(&r[0].accepted, __ATOMIC_RELAXED)
           + __atomic_load_n(&r[1].accepted, __ATOMIC_RELAXED) < 200)
        sched_yield();                                        /* both step by now */
    f.free_instance(c);
    __atomic_store_n(&freed, 1, __ATOMIC_RELEASE);
    printf("free-returned\n");
    for (int k = 0; k < 2; k++) pthread_join(threads[k], NULL);
    printf("accepted %d\nrefused-after-free %d\nlate-ok %d\n", r[0].accepted + r[1].accepted,
           r[0].refused_after_free + r[1].refused_after_free, r[0].late_ok + r[1].late_ok);
    printf("done\n");
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc >= 4 && strcmp(argv[1], "instantiate") == 0)
        return instantiate_mode(atoi(argv[2]), argc - 3, argv + 3);
    if (argc >= 6 && strcmp(argv[1], "one-instance") == 0) {
        static char spec[3 * PATH_MAX];
        snprintf(spec, sizeof spec, "%s:%s:%s", argv[2], argv[3], argv[4]);
        return one_instance_mode(spec, atoi(argv[5]), argc - 6, argv + 6);
    }
    if (argc == 5 && strcmp(argv[1], "free-while-stepping") == 0) {
        static char spec[3 * PATH_MAX];
        snprintf(spec, sizeof spec, "%s:%s:%s", argv[2], argv[3], argv[4]);
        return free_while_stepping_mode(spec);
    }
    fprintf(stderr, "usage: %s instantiate STEPS FOLDER:MODEL_IDENTIFIER:GUID...\n"
            "       %s one-instance FOLDER MODEL_IDENTIFIER GUID ROUNDS [VR=VALUE|VR]...\n"
            "       %s free-while-stepping FOLDER MODEL_IDENTIFIER GUID\n", argv[0], argv[0],
            argv[0]);
    return 1;
}
