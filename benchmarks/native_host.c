/*
 * The C host of benchmarks/native.py: times a native FMU (docs/native.md) without Python.
 *
 * Loads binaries/linux64/<id>.so of an extracted FMU, and times with
 * clock_gettime(CLOCK_MONOTONIC):
 *   - the cold start: dlopen, fmi2Instantiate, setup and initialisation (speed0 and the gear
 *     set in initialisation mode), the inputs set, the first fmi2DoStep;
 *   - then the sine manoeuvre of benchmarks/manoeuvres.py for DURATION seconds at a
 *     communication step of STEP seconds: per step the throttle from the speed governor
 *     (feed-forward plus PI, clamped to 0..1, as manoeuvres.SpeedGovernor), fmi2SetReal
 *     (steering-wheel angle, throttle), fmi2DoStep, fmi2GetReal (ay, speed); each of the
 *     three calls and each whole iteration is timed, and the loop's wall time (with
 *     NATIVE_HOST_UNTIMED in the environment, the loop's wall time only: no clock is read
 *     inside it).
 *
 * Prints one line of JSON. Usage:
 *   native_host FMU_DIR MODEL_IDENTIFIER GUID STEP DURATION
 *               VR_SPEED0 VR_GEAR VR_STEER VR_THROTTLE VR_AY VR_SPEED
 *               SPEED GEAR AMPLITUDE OMEGA FEEDFORWARD KP KI [VR_STEPSIZE STEPSIZE]
 * With VR_STEPSIZE and STEPSIZE, the FMU's internal step (its parameter stepSize) is set in
 * initialisation mode too.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "fmi2Functions.h"

static void logger(fmi2ComponentEnvironment env, fmi2String name, fmi2Status status,
                   fmi2String category, fmi2String message, ...)
{
    (void)env; (void)name;
    va_list ap;
    va_start(ap, message);
    fprintf(stderr, "[%d %s] ", (int)status, category);
    vfprintf(stderr, message, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* median, 99th percentile (nearest rank) and maximum of n sorted samples, as JSON */
static void stats(const char *name, double *v, long n)
{
    if (n == 0) {
        printf(", \"%s\": null", name);
        return;
    }
    qsort(v, (size_t)n, sizeof *v, by_value);
    long p99 = (long)ceil(0.99 * (double)n) - 1;
    printf(", \"%s\": {\"calls\": %ld, \"median_us\": %.3f, \"p99_us\": %.3f, \"max_us\": %.3f}",
           name, n, n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]), v[p99 < 0 ? 0 : p99],
           v[n - 1]);
}

#define SYM(name) name##TYPE *name = (name##TYPE *)dlsym(lib, #name); \
    if (!name) { fprintf(stderr, "no %s\n", #name); return 2; }
#define CHECK(call) if ((call) != fmi2OK) { fprintf(stderr, "%s failed\n", #call); return 3; }

int main(int argc, char **argv)
{
    if (argc != 19 && argc != 21 && argc != 23) {
        fprintf(stderr, "usage: native_host FMU_DIR MODEL_IDENTIFIER GUID STEP DURATION "
                "VR_SPEED0 VR_GEAR VR_STEER VR_THROTTLE VR_AY VR_SPEED "
                "SPEED GEAR AMPLITUDE OMEGA FEEDFORWARD KP KI [VR_STEPSIZE STEPSIZE "
                "[VR_INTEGRATOR INTEGRATOR]]\n");
        return 1;
    }
    const char *dir = argv[1], *id = argv[2], *guid = argv[3];
    double h = atof(argv[4]), duration = atof(argv[5]);
    fmi2ValueReference vr_speed0 = (fmi2ValueReference)atol(argv[6]);
    fmi2ValueReference vr_gear = (fmi2ValueReference)atol(argv[7]);
    fmi2ValueReference inputs[2] = {(fmi2ValueReference)atol(argv[8]),
                                    (fmi2ValueReference)atol(argv[9])};
    fmi2ValueReference outputs[2] = {(fmi2ValueReference)atol(argv[10]),
                                     (fmi2ValueReference)atol(argv[11])};
    double target = atof(argv[12]);
    fmi2Integer gear = (fmi2Integer)atol(argv[13]);
    double amplitude = atof(argv[14]), omega = atof(argv[15]), feedforward = atof(argv[16]);
    double kp = atof(argv[17]), ki = atof(argv[18]);
    int set_step = argc >= 21, set_method = argc == 23;
    fmi2ValueReference vr_step = set_step ? (fmi2ValueReference)atol(argv[19]) : 0;
    double internal_step = set_step ? atof(argv[20]) : 0.0;
    fmi2ValueReference vr_method = set_method ? (fmi2ValueReference)atol(argv[21]) : 0;
    fmi2Integer method = set_method ? (fmi2Integer)atol(argv[22]) : 0;
    long n = lround(duration / h);
    double *step_us = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    double *loop_us = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    double *set_us = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    double *get_us = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    if (step_us == NULL || loop_us == NULL || set_us == NULL || get_us == NULL)
        return 1;
    char path[4096], uri[4200];
    snprintf(path, sizeof path, "%s/binaries/linux64/%s.so", dir, id);
    snprintf(uri, sizeof uri, "file://%s/resources/", dir);

    /* cold start: load library, instantiate, initialise, first step */
    double c0 = now_us();
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        fprintf(stderr, "%s\n", dlerror());
        return 2;
    }
    SYM(fmi2Instantiate); SYM(fmi2SetupExperiment); SYM(fmi2EnterInitializationMode);
    SYM(fmi2ExitInitializationMode); SYM(fmi2DoStep); SYM(fmi2SetReal); SYM(fmi2GetReal);
    SYM(fmi2SetInteger); SYM(fmi2FreeInstance); SYM(fmi2Terminate);
    double c1 = now_us();
    fmi2CallbackFunctions cb = {logger, calloc, free, NULL, NULL};
    fmi2Component c = fmi2Instantiate("bench", fmi2CoSimulation, guid, uri, &cb, fmi2False,
                                      fmi2False);
    if (c == NULL)
        return 3;
    double c2 = now_us();
    CHECK(fmi2SetupExperiment(c, fmi2False, 0.0, 0.0, fmi2False, 0.0));
    CHECK(fmi2EnterInitializationMode(c));
    CHECK(fmi2SetReal(c, &vr_speed0, 1, &target));
    CHECK(fmi2SetInteger(c, &vr_gear, 1, &gear));
    if (set_step) {
        CHECK(fmi2SetReal(c, &vr_step, 1, &internal_step));
    }
    if (set_method) {
        CHECK(fmi2SetInteger(c, &vr_method, 1, &method));
    }
    CHECK(fmi2ExitInitializationMode(c));
    double c3 = now_us();
    double first_inputs[2] = {0.0, feedforward};
    CHECK(fmi2SetReal(c, inputs, 2, first_inputs));
    CHECK(fmi2DoStep(c, 0.0, h, fmi2True));
    double c4 = now_us();
    /* the manoeuvre starts again from the state after the first step, at time h */

    double values[2], speed = target, integral = 0.0, peak_ay = 0.0;
    double lo = speed, hi = speed;
    /* NATIVE_HOST_UNTIMED set: the loop reads no clock inside (six reads an iteration cost
       about 0.15 us, a twentieth of a 1 ms step), for the real-time factor; the calls' times
       are then not reported */
    int timed = getenv("NATIVE_HOST_UNTIMED") == NULL;
    double start = now_us();
    for (long k = 0; k < n; k++) {
        double t0 = timed ? now_us() : 0.0;
        double t = (double)(k + 1) * h;
        double error = target - speed;
        integral += error * h;
        double throttle = feedforward + kp * error + ki * integral;
        throttle = throttle < 0.0 ? 0.0 : throttle > 1.0 ? 1.0 : throttle;
        double in[2] = {amplitude * sin(omega * t), throttle};
        double ts = timed ? now_us() : 0.0;
        CHECK(fmi2SetReal(c, inputs, 2, in));
        double t1 = timed ? now_us() : 0.0;
        fmi2Status s = fmi2DoStep(c, t, h, fmi2True);
        double t2 = timed ? now_us() : 0.0;
        if (s != fmi2OK) {
            fprintf(stderr, "fmi2DoStep at t=%g: status %d\n", t, (int)s);
            return 3;
        }
        CHECK(fmi2GetReal(c, outputs, 2, values));
        double t3 = timed ? now_us() : 0.0;
        speed = values[1];
        if (fabs(values[0]) > peak_ay) peak_ay = fabs(values[0]);
        if (speed < lo) lo = speed;
        if (speed > hi) hi = speed;
        if (timed) {
            set_us[k] = t1 - ts;
            step_us[k] = t2 - t1;
            get_us[k] = t3 - t2;
            loop_us[k] = now_us() - t0;
        }
    }
    double wall = (now_us() - start) * 1e-6;

    printf("{\"simulated_s\": %.6f, \"wall_s\": %.6f, \"communication_step_s\": %g, "
           "\"peak_ay_mps2\": %.6f, \"speed_range_mps\": [%.6f, %.6f], "
           "\"cold_start\": {\"load_library_s\": %.6f, \"instantiate_s\": %.6f, "
           "\"initialize_s\": %.6f, \"first_doStep_s\": %.6f, \"total_s\": %.6f}",
           (double)n * h, wall, h, peak_ay, lo, hi, (c1 - c0) * 1e-6, (c2 - c1) * 1e-6,
           (c3 - c2) * 1e-6, (c4 - c3) * 1e-6, (c4 - c0) * 1e-6);
    long timed_n = timed ? n : 0;
    stats("doStep", step_us, timed_n);
    stats("setReal", set_us, timed_n);
    stats("getReal", get_us, timed_n);
    stats("loop_iteration", loop_us, timed_n);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf(", \"max_rss_mb\": %.1f}\n", (double)ru.ru_maxrss / 1024.0);
    fmi2Terminate(c);
    fmi2FreeInstance(c);
    free(step_us);
    free(loop_us);
    free(set_us);
    free(get_us);
    dlclose(lib);
    return 0;
}
