/*
 * An FMI 2.0 host whose logger calls back into the instance that logs: for every message it
 * reads a position with fmi2GetReal on the same instance, to stamp its log line (FMI 2.0 does
 * not forbid it). The FMU must deliver each message once, serve (or refuse with fmi2Error) the
 * call made from inside the logger without delivering anything again, and answer the outer
 * call's own status.
 *
 * Usage: reentrant_logger FOLDER MODEL_IDENTIFIER GUID VR_READ VR_NAN MODE [VR_INIT VALUE]
 *
 *   FOLDER   an extracted FMU
 *   VR_READ  the Real the logger reads (an output)
 *   VR_NAN   a Real input set to NaN before a step, so that the step logs an error
 *   MODE     "always": the logger calls fmi2GetReal for every message, also for those of the
 *            calls it makes itself; "guarded": only for messages that do not come from inside
 *            its own call
 *   VR_INIT VALUE  a Real parameter set to VALUE in initialisation mode, one the FMU refuses:
 *            fmi2ExitInitializationMode logs the refusal, and every read from the logger is
 *            refused with a message of its own (the instance then is freed at once)
 *
 * It instantiates with loggingOn, steps three times, sets VR_READ's input to NaN and steps
 * again, reads fmi2LastSuccessfulTime, frees the instance. stdout, one line each:
 *   log DEPTH STATUS MESSAGE       a message the logger got (newlines shown as " | ")
 *   nested DEPTH STATUS            what the logger's fmi2GetReal answered
 *   NAME STATUS [VALUE]            each of the host's own calls
 *   survived                       the end
 * Exit status 0 if it got there, 4 if the logger recursed without end, 2 if the library
 * cannot be loaded, 3 if fmi2Instantiate failed, 1 on usage errors.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fmi2Functions.h"

#define RUNAWAY_DEPTH 64
#define RUNAWAY_MESSAGES 100000

static void *lib;
static fmi2GetRealTYPE *get_real;
static fmi2Component component;     /* set once fmi2Instantiate has returned */
static fmi2ValueReference vr_read;
static int always;
static int depth;
static long messages;

static void logger(fmi2ComponentEnvironment env, fmi2String instance, fmi2Status status,
                   fmi2String category, fmi2String message, ...)
{
    (void)env;
    (void)instance;
    (void)category;
    char text[4096];
    va_list args;
    va_start(args, message);
    vsnprintf(text, sizeof text, message, args);
    va_end(args);
    for (char *at = text; *at; at++)
        if (*at == '\n') *at = '|';
    printf("log %d %d %s\n", depth, (int)status, text);
    fflush(stdout);
    if (++messages > RUNAWAY_MESSAGES || depth > RUNAWAY_DEPTH) {
        printf("runaway depth %d messages %ld\n", depth, messages);
        fflush(stdout);
        _exit(4);
    }
    if (component && (always || depth == 0)) {
        fmi2Real value = NAN;
        depth++;
        fmi2Status nested = get_real(component, &vr_read, 1, &value);
        depth--;
        printf("nested %d %d\n", depth, (int)nested);
        fflush(stdout);
    }
}

static void *symbol(const char *name)
{
    void *f = dlsym(lib, name);
    if (!f) {
        fprintf(stderr, "reentrant_logger: missing symbol %s\n", name);
        exit(2);
    }
    return f;
}

#define SYM(type, name) type *name = (type *)symbol(#name)

int main(int argc, char **argv)
{
    if ((argc != 7 && argc != 9)
            || (strcmp(argv[6], "always") != 0 && strcmp(argv[6], "guarded") != 0)) {
        fprintf(stderr, "usage: %s FOLDER MODEL_IDENTIFIER GUID VR_READ VR_NAN always|guarded "
                "[VR_INIT VALUE]\n", argv[0]);
        return 1;
    }
    char library[PATH_MAX + 128], resources[PATH_MAX + 64];
    snprintf(library, sizeof library, "%s/binaries/linux64/%s.so", argv[1], argv[2]);
    snprintf(resources, sizeof resources, "file://%s/resources", argv[1]);
    const char *guid = argv[3];
    vr_read = (fmi2ValueReference)strtoul(argv[4], NULL, 10);
    fmi2ValueReference vr_nan = (fmi2ValueReference)strtoul(argv[5], NULL, 10);
    always = strcmp(argv[6], "always") == 0;
    lib = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "reentrant_logger: %s\n", dlerror());
        return 2;
    }
    SYM(fmi2InstantiateTYPE, fmi2Instantiate);
    SYM(fmi2FreeInstanceTYPE, fmi2FreeInstance);
    SYM(fmi2SetupExperimentTYPE, fmi2SetupExperiment);
    SYM(fmi2EnterInitializationModeTYPE, fmi2EnterInitializationMode);
    SYM(fmi2ExitInitializationModeTYPE, fmi2ExitInitializationMode);
    SYM(fmi2DoStepTYPE, fmi2DoStep);
    SYM(fmi2SetRealTYPE, fmi2SetReal);
    SYM(fmi2GetRealStatusTYPE, fmi2GetRealStatus);
    get_real = (fmi2GetRealTYPE *)symbol("fmi2GetReal");

    fmi2CallbackFunctions callbacks = {logger, calloc, free, NULL, NULL};
    fmi2Component c = fmi2Instantiate("reentrant", fmi2CoSimulation, guid, resources,
                                      &callbacks, fmi2False, fmi2True);
    if (!c) {
        printf("instantiate NULL\n");
        return 3;
    }
    component = c;
    printf("setup %d\n", fmi2SetupExperiment(c, fmi2False, 0.0, 0.0, fmi2False, 0.0));
    printf("enter %d\n", fmi2EnterInitializationMode(c));
    if (argc == 9) {
        fmi2ValueReference vr_init = (fmi2ValueReference)strtoul(argv[7], NULL, 10);
        fmi2Real value = strtod(argv[8], NULL);
        printf("set-init %d\n", fmi2SetReal(c, &vr_init, 1, &value));
        printf("exit %d\n", fmi2ExitInitializationMode(c));
        component = NULL;
        fmi2FreeInstance(c);
        printf("survived\n");
        fflush(stdout);
        return 0;
    }
    printf("exit %d\n", fmi2ExitInitializationMode(c));
    double t = 0.0, h = 0.01;
    for (int i = 0; i < 3; i++) {
        fmi2Status s = fmi2DoStep(c, t, h, fmi2True);
        printf("step %d\n", (int)s);
        if (s <= fmi2Warning) t += h;
    }
    fmi2Real nan = NAN;
    printf("set-nan %d\n", fmi2SetReal(c, &vr_nan, 1, &nan));
    fmi2Status s = fmi2DoStep(c, t, h, fmi2True);
    printf("nan-step %d\n", (int)s);
    if (s <= fmi2Warning) t += h;
    fmi2Real last = NAN;
    fmi2Status ls = fmi2GetRealStatus(c, fmi2LastSuccessfulTime, &last);
    printf("last-successful %d %.9g host-time %.9g\n", (int)ls, last, t);
    component = NULL;
    fmi2FreeInstance(c);
    printf("survived\n");
    fflush(stdout);
    return 0;
}
