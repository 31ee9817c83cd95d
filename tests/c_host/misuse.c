/*
 * An FMI 2.0 host that misuses an FMU on purpose, to show that the FMU's library survives it.
 *
 * Usage: misuse FOLDER MODEL_IDENTIFIER GUID OTHER_RESOURCES
 *
 *   FOLDER           an extracted FMU
 *   GUID             its GUID (from modelDescription.xml)
 *   OTHER_RESOURCES  the resources folder of another FMU
 *
 * It instantiates with a NULL GUID, a wrong GUID and the other FMU's resources (each must give
 * NULL), then runs an instance, terminates it, steps after fmi2Terminate, frees it twice and
 * calls functions on the freed pointer (each must answer fmi2Error), and finally runs a new
 * instance. Each result is one line on stdout, "name status"; the last line is "survived".
 * Exit status 0 if it got there, 1 on usage errors, 2 if the library cannot be loaded.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "fmi2Functions.h"
#include "host_logger.h"


static void *lib;

static void *symbol(const char *name)
{
    void *f = dlsym(lib, name);
    if (!f) {
        fprintf(stderr, "misuse: missing symbol %s\n", name);
        exit(2);
    }
    return f;
}

#define SYM(type, name) type *name = (type *)symbol(#name)

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: %s FOLDER MODEL_IDENTIFIER GUID OTHER_RESOURCES\n", argv[0]);
        return 1;
    }
    char library[PATH_MAX + 128], resources[PATH_MAX + 64], other[PATH_MAX + 64];
    snprintf(library, sizeof library, "%s/binaries/linux64/%s.so", argv[1], argv[2]);
    snprintf(resources, sizeof resources, "file://%s/resources", argv[1]);
    snprintf(other, sizeof other, "file://%s", argv[4]);
    const char *guid = argv[3];
    lib = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "misuse: %s\n", dlerror());
        return 2;
    }
    SYM(fmi2InstantiateTYPE, fmi2Instantiate);
    SYM(fmi2FreeInstanceTYPE, fmi2FreeInstance);
    SYM(fmi2SetupExperimentTYPE, fmi2SetupExperiment);
    SYM(fmi2EnterInitializationModeTYPE, fmi2EnterInitializationMode);
    SYM(fmi2ExitInitializationModeTYPE, fmi2ExitInitializationMode);
    SYM(fmi2DoStepTYPE, fmi2DoStep);
    SYM(fmi2TerminateTYPE, fmi2Terminate);
    SYM(fmi2ResetTYPE, fmi2Reset);
    SYM(fmi2GetRealTYPE, fmi2GetReal);
    SYM(fmi2SetRealTYPE, fmi2SetReal);
    SYM(fmi2GetFMUstateTYPE, fmi2GetFMUstate);
    SYM(fmi2SetDebugLoggingTYPE, fmi2SetDebugLogging);
    SYM(fmi2GetRealStatusTYPE, fmi2GetRealStatus);

    fmi2CallbackFunctions callbacks = {logger, calloc, free, NULL, NULL};
    printf("null-guid %s\n", fmi2Instantiate("a", fmi2CoSimulation, NULL, resources, &callbacks,
                                             fmi2False, fmi2False) ? "instance" : "NULL");
    printf("wrong-guid %s\n", fmi2Instantiate("b", fmi2CoSimulation, "{not-this-fmu}", resources,
                                              &callbacks, fmi2False, fmi2False)
                                  ? "instance" : "NULL");
    printf("other-resources %s\n", fmi2Instantiate("c", fmi2CoSimulation, guid, other,
                                                   &callbacks, fmi2False, fmi2False)
                                       ? "instance" : "NULL");

    fmi2Component c = fmi2Instantiate("d", fmi2CoSimulation, guid, resources, &callbacks,
                                      fmi2False, fmi2False);
    if (!c) {
        printf("instantiate NULL\n");
        return 3;
    }
    fmi2ValueReference vr = 0;
    fmi2Real value = 0.0;
    printf("setup %d\n", fmi2SetupExperiment(c, fmi2False, 0.0, 0.0, fmi2False, 0.0));
    printf("enter %d\n", fmi2EnterInitializationMode(c));
    printf("exit %d\n", fmi2ExitInitializationMode(c));
    printf("step %d\n", fmi2DoStep(c, 0.0, 0.1, fmi2True));
    printf("terminate %d\n", fmi2Terminate(c));
    printf("step-after-terminate %d\n", fmi2DoStep(c, 0.1, 0.1, fmi2True));
    printf("terminate-again %d\n", fmi2Terminate(c));
    fmi2FreeInstance(c);
    fmi2FreeInstance(c);          /* a second time */
    printf("freed-twice survived\n");
    fmi2FMUstate state = NULL;
    printf("freed-step %d\n", fmi2DoStep(c, 0.1, 0.1, fmi2True));
    printf("freed-getReal %d\n", fmi2GetReal(c, &vr, 1, &value));
    printf("freed-setReal %d\n", fmi2SetReal(c, &vr, 1, &value));
    printf("freed-setup %d\n", fmi2SetupExperiment(c, fmi2False, 0.0, 0.0, fmi2False, 0.0));
    printf("freed-terminate %d\n", fmi2Terminate(c));
    printf("freed-reset %d\n", fmi2Reset(c));
    printf("freed-getFMUstate %d\n", fmi2GetFMUstate(c, &state));
    printf("freed-setDebugLogging %d\n", fmi2SetDebugLogging(c, fmi2True, 0, NULL));
    printf("freed-getRealStatus %d\n", fmi2GetRealStatus(c, fmi2LastSuccessfulTime, &value));
    int dummy = 0;
    printf("never-instantiated-step %d\n", fmi2DoStep(&dummy, 0.0, 0.1, fmi2True));
    fmi2FreeInstance(&dummy);
    fmi2FreeInstance(NULL);

    fmi2Component again = fmi2Instantiate("e", fmi2CoSimulation, guid, resources, &callbacks,
                                          fmi2False, fmi2False);
    if (!again) {
        printf("instantiate-again NULL\n");
        return 3;
    }
    fmi2SetupExperiment(again, fmi2False, 0.0, 0.0, fmi2False, 0.0);
    fmi2EnterInitializationMode(again);
    fmi2ExitInitializationMode(again);
    printf("again-step %d\n", fmi2DoStep(again, 0.0, 0.1, fmi2True));
    fmi2Terminate(again);
    fmi2FreeInstance(again);
    printf("survived\n");
    fflush(stdout);
    return 0;
}
