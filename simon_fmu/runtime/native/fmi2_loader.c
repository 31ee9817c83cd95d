/*
 * simon-fmu's FMI 2.0 Co-Simulation library, the part a host loads:
 * binaries/linux64/<modelIdentifier>.so.
 *
 * It exports every FMI 2.0 Co-Simulation function and needs nothing but the C library, so any
 * host can dlopen it. At the first fmi2Instantiate it brings in the implementation,
 * <modelIdentifier>_python.so beside it (fmi2_python.c), and forwards every call to it.
 *
 * Finding Python:
 * - If the process has Python already (a Python host: fmpy, libcosimpy, ecospy, or a C host
 *   that preloaded libpython with LD_PRELOAD), that Python is used.
 * - Otherwise libpython is loaded (RTLD_GLOBAL) from the file that the build recorded in
 *   resources/fmi2_python.txt: the libpython and the executable of the Python environment the
 *   FMU was built in. The environment variable SIMON_FMU_PYTHON, the path of a Python
 *   executable, replaces that record: the loader asks that interpreter for its libpython.
 * - If the interpreter is not running yet (any C host), it is started once with the recorded
 *   (or SIMON_FMU_PYTHON's) executable as program name, so that sys.prefix, the standard
 *   library and site-packages are that environment's (a virtual environment included), and it
 *   is never finalised. PYTHONHOME/PYTHONPATH are honoured as CPython always does.
 * The implementation and libpython stay loaded until the process ends (RTLD_NODELETE), so a
 * host may dlclose and dlopen this library as often as it likes.
 *
 * Threads: the first fmi2Instantiate of each FMU loads under a lock of this library. Several
 * FMUs in one process each have their own copy of this library (and of its lock), yet share the
 * one interpreter: the interpreter is started holding an exclusive flock(2) on the libpython
 * file that defines it, which every copy takes, so instances of different FMUs created at once
 * in a C host start it once (two Py_InitializeFromConfig at once crash the process).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "fmi2Functions.h"
#include "fmi2_python.h"
#include "fp_guard.h"          /* simon_fmu/native/c */

#define CONFIG_FILE "fmi2_python.txt"
#define PYTHON_VARIABLE "SIMON_FMU_PYTHON"

static const SimonFmi2Table *T;
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

static void report(const fmi2CallbackFunctions *functions, fmi2String instanceName,
                   const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void report(const fmi2CallbackFunctions *functions, fmi2String instanceName,
                   const char *fmt, ...)
{
    char message[4 * PATH_MAX + 1024];
    va_list args;
    va_start(args, fmt);
    vsnprintf(message, sizeof message, fmt, args);
    va_end(args);
    if (functions && functions->logger)
        functions->logger(functions->componentEnvironment, instanceName ? instanceName : "",
                          fmi2Error, "logStatusError", "%s", message);
    else
        fprintf(stderr, "%s: %s\n", instanceName ? instanceName : "FMU", message);
}

typedef struct {
    char executable[PATH_MAX];
    char libpython[PATH_MAX];
    char version[32];
    char prefix[PATH_MAX];      /* the environment (sys.prefix) the FMU was built in */
} PythonInfo;

#define DEVELOPMENT_FMU "this FMU was built for development and needs the Python environment " \
    "at %s; build with --native (a vehicle FMU) or --standalone to run it elsewhere"

#define ENVIRONMENT_HINT "unset it to use the environment this FMU was built in, or build " \
    "with --standalone to run it elsewhere"

static void chomp(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ')) s[--n] = 0;
}

/* The build's record in resources/fmi2_python.txt (key=value lines). */
static int read_record(const char *resources, PythonInfo *info, char *error, size_t size)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", resources, CONFIG_FILE);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(error, size, "%s cannot be read, and %s is not set: no Python to use", path,
                 PYTHON_VARIABLE);
        return -1;
    }
    char line[PATH_MAX + 64];
    while (fgets(line, sizeof line, f)) {
        chomp(line);
        char *eq = strchr(line, '=');
        if (line[0] == '#' || !eq) continue;
        *eq = 0;
        const char *value = eq + 1;
        if (strcmp(line, "executable") == 0)
            snprintf(info->executable, sizeof info->executable, "%s", value);
        else if (strcmp(line, "libpython") == 0)
            snprintf(info->libpython, sizeof info->libpython, "%s", value);
        else if (strcmp(line, "version") == 0)
            snprintf(info->version, sizeof info->version, "%s", value);
        else if (strcmp(line, "prefix") == 0)
            snprintf(info->prefix, sizeof info->prefix, "%s", value);
    }
    fclose(f);
    return 0;
}

/* What the interpreter named by SIMON_FMU_PYTHON says about itself. */
static int ask_python(const char *executable, PythonInfo *info, char *error, size_t size)
{
    static const char script[] =
        "import os, sys, sysconfig; c = sysconfig.get_config_var; n = c(\"INSTSONAME\") or \"\"; "
        "d = [c(\"LIBDIR\") or \"\", os.path.join(c(\"LIBDIR\") or \"\", c(\"MULTIARCH\") or \"\"), "
        "os.path.join(sys.base_prefix, \"lib\")]; print(sys.executable); "
        "print(next((os.path.join(x, n) for x in d if \".so\" in n "
        "and os.path.isfile(os.path.join(x, n))), \"\")); print(\"%d.%d\" % sys.version_info[:2])";
    if (access(executable, X_OK) != 0) {
        snprintf(error, size, "%s=%s is no executable file; it names the Python whose "
                 "environment this development FMU uses: " ENVIRONMENT_HINT, PYTHON_VARIABLE,
                 executable);
        return -1;
    }
    char command[3 * PATH_MAX + sizeof script + 16];
    size_t n = 0;
    command[n++] = '\'';
    for (const char *p = executable; *p && n + 8 < sizeof command - sizeof script; p++) {
        if (*p == '\'') {
            memcpy(command + n, "'\\''", 4);
            n += 4;
        } else {
            command[n++] = *p;
        }
    }
    snprintf(command + n, sizeof command - n, "' -c '%s'", script);
    FILE *p = popen(command, "r");
    if (!p) {
        snprintf(error, size, "%s=%s cannot be run", PYTHON_VARIABLE, executable);
        return -1;
    }
    int ok = fgets(info->executable, sizeof info->executable, p)
          && fgets(info->libpython, sizeof info->libpython, p)
          && fgets(info->version, sizeof info->version, p);
    int status = pclose(p);
    chomp(info->executable);
    chomp(info->libpython);
    chomp(info->version);
    if (!ok || status != 0) {
        snprintf(error, size, "%s=%s did not answer as a Python interpreter; "
                 ENVIRONMENT_HINT, PYTHON_VARIABLE, executable);
        return -1;
    }
    if (!info->libpython[0]) {
        snprintf(error, size, "%s=%s (Python %s) has no shared libpython: use an interpreter "
                 "built with --enable-shared (Debian: install libpython%s)", PYTHON_VARIABLE,
                 executable, info->version, info->version);
        return -1;
    }
    return 0;
}

/* This library's own file. */
static int own_path(char *path, size_t size)
{
    Dl_info info;
    if (!dladdr((void *)&fmi2Instantiate, &info) || !info.dli_fname || !info.dli_fname[0])
        return -1;
    if (!realpath(info.dli_fname, path)) snprintf(path, size, "%s", info.dli_fname);
    return 0;
}

/* Hold the process-wide lock of starting the interpreter: an exclusive flock on the file that
 * defines Py_IsInitialized (the libpython in the process). Answers the descriptor to pass to
 * unlock_python, or -1 (no such file: nothing to share a lock on). */
static int lock_python(void)
{
    void *symbol = dlsym(RTLD_DEFAULT, "Py_IsInitialized");
    Dl_info info;
    if (!symbol || !dladdr(symbol, &info) || !info.dli_fname || !info.dli_fname[0]) return -1;
    int fd = open(info.dli_fname, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    while (flock(fd, LOCK_EX) != 0) {
        if (errno != EINTR) {
            close(fd);
            return -1;
        }
    }
    return fd;
}

static void unlock_python(int fd)
{
    if (fd < 0) return;
    flock(fd, LOCK_UN);
    close(fd);
}

/* Load libpython if needed, the implementation, and start the interpreter. */
static int load(const char *resources, char *error, size_t size)
{
    if (T) return 0;
    int (*is_initialized)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "Py_IsInitialized");
    PythonInfo info;
    memset(&info, 0, sizeof info);
    if (!is_initialized || !is_initialized()) {
        const char *chosen = getenv(PYTHON_VARIABLE);
        if (chosen && *chosen ? ask_python(chosen, &info, error, size)
                              : read_record(resources, &info, error, size)) return -1;
        /* the recorded environment is gone (another machine, a moved or deleted venv) */
        if (!(chosen && *chosen) && info.executable[0] && access(info.executable, X_OK) != 0) {
            snprintf(error, size, DEVELOPMENT_FMU, info.prefix[0] ? info.prefix : info.executable);
            return -1;
        }
    }
    if (!is_initialized) {
        if (!info.libpython[0]) {
            snprintf(error, size, "%s/%s names no libpython", resources, CONFIG_FILE);
            return -1;
        }
        if (!(getenv(PYTHON_VARIABLE) && *getenv(PYTHON_VARIABLE))
                && access(info.libpython, R_OK) != 0) {
            snprintf(error, size, DEVELOPMENT_FMU " (its libpython %s is missing)",
                     info.prefix[0] ? info.prefix : info.executable, info.libpython);
            return -1;
        }
        if (!dlopen(info.libpython, RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE)) {
            snprintf(error, size, "libpython %s cannot be loaded (%s); set %s to a Python "
                     "executable (built with a shared libpython) of the environment that has "
                     "this FMU's packages", info.libpython, dlerror(), PYTHON_VARIABLE);
            return -1;
        }
    }

    char self[PATH_MAX], impl[PATH_MAX + 16];
    if (own_path(self, sizeof self) == 0 && strlen(self) > 3
            && strcmp(self + strlen(self) - 3, ".so") == 0) {
        self[strlen(self) - 3] = 0;
        snprintf(impl, sizeof impl, "%s_python.so", self);
    } else {
        snprintf(error, size, "the FMU's library cannot find its own file");
        return -1;
    }
    void *handle = dlopen(impl, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!handle) {
        snprintf(error, size, "%s cannot be loaded: %s", impl, dlerror());
        return -1;
    }
    const SimonFmi2Table *table = dlsym(handle, SIMON_FMI2_TABLE);
    if (!table || table->version != SIMON_FMI2_TABLE_VERSION) {
        snprintf(error, size, "%s is not a matching simon-fmu library", impl);
        return -1;
    }
    int (*running)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "Py_IsInitialized");
    int lock = running && running() ? -1 : lock_python();
    int started = table->start_python(info.executable[0] ? info.executable : NULL, error, size);
    unlock_python(lock);
    if (started != 0) return -1;
    T = table;
    return 0;
}

/* ------------------------------------------------------------------ the FMI functions */

const char *fmi2GetTypesPlatform(void) { return fmi2TypesPlatform; }

const char *fmi2GetVersion(void) { return fmi2Version; }

fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                              fmi2String fmuResourceLocation,
                              const fmi2CallbackFunctions *functions, fmi2Boolean visible,
                              fmi2Boolean loggingOn)
{
    FP_GUARD
    char resources[PATH_MAX], error[3 * PATH_MAX + 512] = "";
    if (simon_uri_to_path(fmuResourceLocation, resources, sizeof resources) != 0) {
        report(functions, instanceName, "fmi2Instantiate: the resource location %s is no "
               "local file URI", fmuResourceLocation ? fmuResourceLocation : "(none)");
        return NULL;
    }
    pthread_mutex_lock(&load_lock);
    int loaded = load(resources, error, sizeof error);
    pthread_mutex_unlock(&load_lock);
    if (loaded != 0) {
        report(functions, instanceName, "fmi2Instantiate: %s", error);
        return NULL;
    }
    return T->instantiate(instanceName, fmuType, fmuGUID, fmuResourceLocation, functions,
                          visible, loggingOn);
}

/* each call in the FMU's floating-point environment, the host's given back (fp_guard.h, the
   native runtime's: the engine's compiled kernels and Python run under it) */
#define FORWARD(name, member, params, args) \
    fmi2Status name params { FP_GUARD return T ? T->member args : fmi2Error; }

void fmi2FreeInstance(fmi2Component c)
{
    FP_GUARD
    if (T) T->freeInstance(c);
}

FORWARD(fmi2SetDebugLogging, setDebugLogging,
        (fmi2Component c, fmi2Boolean on, size_t n, const fmi2String categories[]),
        (c, on, n, categories))
FORWARD(fmi2SetupExperiment, setupExperiment,
        (fmi2Component c, fmi2Boolean toleranceDefined, fmi2Real tolerance, fmi2Real startTime,
         fmi2Boolean stopTimeDefined, fmi2Real stopTime),
        (c, toleranceDefined, tolerance, startTime, stopTimeDefined, stopTime))
FORWARD(fmi2EnterInitializationMode, enterInitializationMode, (fmi2Component c), (c))
FORWARD(fmi2ExitInitializationMode, exitInitializationMode, (fmi2Component c), (c))
FORWARD(fmi2Terminate, terminate, (fmi2Component c), (c))
FORWARD(fmi2Reset, reset, (fmi2Component c), (c))
FORWARD(fmi2GetReal, getReal,
        (fmi2Component c, const fmi2ValueReference vr[], size_t n, fmi2Real value[]),
        (c, vr, n, value))
FORWARD(fmi2GetInteger, getInteger,
        (fmi2Component c, const fmi2ValueReference vr[], size_t n, fmi2Integer value[]),
        (c, vr, n, value))
FORWARD(fmi2GetBoolean, getBoolean,
        (fmi2Component c, const fmi2ValueReference vr[], size_t n, fmi2Boolean value[]),
        (c, vr, n, value))
FORWARD(fmi2GetString, getString,
        (fmi2Component c, const fmi2ValueReference vr[], size_t n, fmi2String value[]),
        (c, vr, n, value))
FORWARD(fmi2SetReal, setReal,
        (fmi2Component c, const fmi2ValueReference vr[], size_t n, const fmi2Real value[]),
        (c, vr, n, value))
FORWARD(fmi2SetInteger, setInteger,
        (fmi2Component c, const fmi2ValueReference vr[], size_t n, const fmi2Integer value[]),
        (c, vr, n, value))
FORWARD(fmi2SetBoolean, setBoolean,
        (fmi2Component c, const fmi2ValueReference vr[], size_t n, const fmi2Boolean value[]),
        (c, vr, n, value))
FORWARD(fmi2SetString, setString,
        (fmi2Component c, const fmi2ValueReference vr[], size_t n, const fmi2String value[]),
        (c, vr, n, value))
FORWARD(fmi2GetFMUstate, getFMUstate, (fmi2Component c, fmi2FMUstate *s), (c, s))
FORWARD(fmi2SetFMUstate, setFMUstate, (fmi2Component c, fmi2FMUstate s), (c, s))
FORWARD(fmi2FreeFMUstate, freeFMUstate, (fmi2Component c, fmi2FMUstate *s), (c, s))
FORWARD(fmi2SerializedFMUstateSize, serializedFMUstateSize,
        (fmi2Component c, fmi2FMUstate s, size_t *size), (c, s, size))
FORWARD(fmi2SerializeFMUstate, serializeFMUstate,
        (fmi2Component c, fmi2FMUstate s, fmi2Byte bytes[], size_t size), (c, s, bytes, size))
FORWARD(fmi2DeSerializeFMUstate, deSerializeFMUstate,
        (fmi2Component c, const fmi2Byte bytes[], size_t size, fmi2FMUstate *s),
        (c, bytes, size, s))
FORWARD(fmi2GetDirectionalDerivative, getDirectionalDerivative,
        (fmi2Component c, const fmi2ValueReference unknown[], size_t nUnknown,
         const fmi2ValueReference known[], size_t nKnown, const fmi2Real dvKnown[],
         fmi2Real dvUnknown[]),
        (c, unknown, nUnknown, known, nKnown, dvKnown, dvUnknown))
FORWARD(fmi2SetRealInputDerivatives, setRealInputDerivatives,
        (fmi2Component c, const fmi2ValueReference vr[], size_t n, const fmi2Integer order[],
         const fmi2Real value[]),
        (c, vr, n, order, value))
FORWARD(fmi2GetRealOutputDerivatives, getRealOutputDerivatives,
        (fmi2Component c, const fmi2ValueReference vr[], size_t n, const fmi2Integer order[],
         fmi2Real value[]),
        (c, vr, n, order, value))
FORWARD(fmi2DoStep, doStep,
        (fmi2Component c, fmi2Real t, fmi2Real h, fmi2Boolean noSetFMUStatePriorToCurrentPoint),
        (c, t, h, noSetFMUStatePriorToCurrentPoint))
FORWARD(fmi2CancelStep, cancelStep, (fmi2Component c), (c))
FORWARD(fmi2GetStatus, getStatus, (fmi2Component c, const fmi2StatusKind s, fmi2Status *value),
        (c, s, value))
FORWARD(fmi2GetRealStatus, getRealStatus,
        (fmi2Component c, const fmi2StatusKind s, fmi2Real *value), (c, s, value))
FORWARD(fmi2GetIntegerStatus, getIntegerStatus,
        (fmi2Component c, const fmi2StatusKind s, fmi2Integer *value), (c, s, value))
FORWARD(fmi2GetBooleanStatus, getBooleanStatus,
        (fmi2Component c, const fmi2StatusKind s, fmi2Boolean *value), (c, s, value))
FORWARD(fmi2GetStringStatus, getStringStatus,
        (fmi2Component c, const fmi2StatusKind s, fmi2String *value), (c, s, value))
