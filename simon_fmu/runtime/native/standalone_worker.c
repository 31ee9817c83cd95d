/*
 * simon-fmu standalone FMUs: resources/standalone/bin/simon-fmu-worker, the FMU's own process.
 *
 *   simon-fmu-worker --serve FD HOST_PID   serve one instance over the channel in FD
 *                                          (standalone_channel.h), for the FMU's library
 *                                          (standalone_proxy.c) in process HOST_PID
 *   simon-fmu-worker --python -c CODE      run CODE in the FMU's Python (the build and
 *                                          `python -m simon_fmu doctor` use it)
 *
 * It runs the FMU's own CPython: libpython from ../lib (linked with an rpath that precedes
 * LD_LIBRARY_PATH), started isolated (no PYTHON* variables, no user site, no site module,
 * no bytecode written) with its home and module search path inside ../python only. Then it
 * loads the project's FMI implementation, ../lib/fmi2_python.so (the same code a development
 * FMU runs in-process), and answers each request of the channel by calling it, so the
 * physics path is exactly the development FMU's. numba is told to compile for a generic
 * x86-64 CPU (so the kernels compiled at build time, shipped in ../numba-cache, fit every
 * machine) and to find them through simon_fmu_worker.ShippedCacheLocator.
 *
 * The worker never finalises Python: after fmi2FreeInstance it replies and leaves with _exit.
 * It also leaves when the host process is gone (checked between sleeps).
 */
#define _GNU_SOURCE
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <dlfcn.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "fmi2_python.h"
#include "standalone_channel.h"

static Channel *ch;
static pid_t host;
static char root[PATH_MAX];           /* resources/standalone */
static const SimonFmi2Table *T;
static fmi2Component component;

static int host_alive(void *arg)
{
    (void)arg;
    return getppid() == host;
}

/* ------------------------------------------------------------------ log messages */

static void flush_log(void)
{
    ch->reply = REPLY_LOG;
    channel_hand(ch, TURN_HOST);
    if (channel_wait(ch, TURN_WORKER, SIDE_WORKER, (uint64_t)ch->spin_us * 1000u, host_alive,
                     NULL) != 0)
        _exit(0);
    ch->reply = REPLY_DONE;
}

static void append_log(fmi2Status status, const char *category, const char *message)
{
    size_t nc = strlen(category) + 1, nm = strlen(message) + 1;
    size_t limit = CHANNEL_LOG_BYTES / 2;
    if (nm > limit) nm = limit;
    size_t need = channel_align(sizeof(LogRecord) + nc + nm);
    if (ch->log_used + need > CHANNEL_LOG_BYTES) flush_log();
    LogRecord record = {(int32_t)status, (uint32_t)nc, (uint32_t)nm};
    char *at = ch->log + ch->log_used;
    memcpy(at, &record, sizeof record);
    memcpy(at + sizeof record, category, nc);
    memcpy(at + sizeof record + nc, message, nm);
    at[sizeof record + nc + nm - 1] = 0;
    ch->log_used += (uint32_t)need;
    ch->log_count++;
}

static void worker_logger(fmi2ComponentEnvironment env, fmi2String name, fmi2Status status,
                          fmi2String category, fmi2String fmt, ...)
{
    (void)env;
    (void)name;
    static char message[CHANNEL_LOG_BYTES / 2];
    va_list args;
    va_start(args, fmt);
    vsnprintf(message, sizeof message, fmt ? fmt : "", args);
    va_end(args);
    append_log(status, category ? category : "", message);
}

static const fmi2CallbackFunctions callbacks = {worker_logger, calloc, free, NULL, NULL};

/* ------------------------------------------------------------------ starting */

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Tell the host why the worker cannot serve (when it serves a channel), and leave. */
static void fail(const char *fmt, ...)
{
    char message[sizeof ch->error];
    va_list args;
    va_start(args, fmt);
    vsnprintf(message, sizeof message, fmt, args);
    va_end(args);
    if (ch) {
        memcpy(ch->error, message, sizeof ch->error);
        ch->status = fmi2Error;
        ch->handle = 0;
        ch->reply = REPLY_DONE;
        channel_hand(ch, TURN_HOST);
    } else {
        fprintf(stderr, "simon-fmu-worker: %s\n", message);
    }
    _exit(1);
}

/* The Python error pending, as text (for fail). */
static const char *python_error(char *text, size_t size)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    snprintf(text, size, "unknown Python error");
    if (value) {
        PyObject *s = PyObject_Str(value);
        const char *u = s ? PyUnicode_AsUTF8(s) : NULL;
        if (u) snprintf(text, size, "%s: %s", type ? ((PyTypeObject *)type)->tp_name : "?", u);
        Py_XDECREF(s);
    }
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    PyErr_Clear();
    return text;
}

static void set_environment(void)
{
    /* nothing of numba's configuration comes from outside */
    for (int again = 1; again;) {
        again = 0;
        for (char **e = environ; e && *e; e++)
            if (strncmp(*e, "NUMBA_", 6) == 0) {
                char name[256];
                size_t n = strcspn(*e, "=");
                snprintf(name, sizeof name, "%.*s", (int)n, *e);
                unsetenv(name);
                again = 1;
                break;
            }
    }
    setenv("NUMBA_CPU_NAME", "generic", 1);
    setenv("NUMBA_CACHE_LOCATOR_CLASSES", "simon_fmu_worker.ShippedCacheLocator", 1);
    setenv("SIMON_FMU_STANDALONE_ROOT", root, 1);
    setenv("OPENBLAS_NUM_THREADS", "1", 1);
    setenv("OMP_NUM_THREADS", "1", 1);
    unsetenv("LD_PRELOAD");
    unsetenv("LD_LIBRARY_PATH");
}

static void append_path(PyConfig *config, const char *path)
{
    wchar_t *wide = Py_DecodeLocale(path, NULL);
    if (!wide || PyStatus_Exception(PyWideStringList_Append(&config->module_search_paths, wide)))
        fail("the module search path %s cannot be set", path);
    PyMem_RawFree(wide);
}

static void start_python(const char *executable)
{
    PyPreConfig pre;
    PyPreConfig_InitIsolatedConfig(&pre);
    pre.utf8_mode = 1;
    PyStatus status = Py_PreInitialize(&pre);
    if (PyStatus_Exception(status)) fail("Python cannot be pre-initialised: %s", status.err_msg);

    char home[PATH_MAX + 16], lib[PATH_MAX + 64], path[PATH_MAX + 128];
    snprintf(home, sizeof home, "%s/python", root);
    snprintf(lib, sizeof lib, "%s/lib/python%d.%d", home, PY_MAJOR_VERSION, PY_MINOR_VERSION);
    PyConfig config;
    PyConfig_InitIsolatedConfig(&config);
    config.install_signal_handlers = 0;
    config.write_bytecode = 0;
    config.site_import = 0;
    config.user_site_directory = 0;
    config.parse_argv = 0;
    config.buffered_stdio = 0;
    status = PyConfig_SetBytesString(&config, &config.home, home);
    if (!PyStatus_Exception(status))
        status = PyConfig_SetBytesString(&config, &config.program_name, executable);
    if (!PyStatus_Exception(status))
        status = PyConfig_SetBytesString(&config, &config.executable, executable);
    if (PyStatus_Exception(status)) fail("Python's configuration failed: %s", status.err_msg);
    config.module_search_paths_set = 1;
    append_path(&config, lib);
    snprintf(path, sizeof path, "%s/lib-dynload", lib);
    append_path(&config, path);
    snprintf(path, sizeof path, "%s/site-packages", lib);
    append_path(&config, path);
    status = Py_InitializeFromConfig(&config);
    PyConfig_Clear(&config);
    if (PyStatus_Exception(status))
        fail("the FMU's Python (%s) cannot be started: %s", home,
             status.err_msg ? status.err_msg : "unknown error");
}

static void load_implementation(void)
{
    char text[1024];
    PyObject *boot = PyImport_ImportModule("simon_fmu_worker");
    if (!boot) fail("the FMU's worker module cannot be imported: %s",
                    python_error(text, sizeof text));
    Py_DECREF(boot);
    char impl[PATH_MAX + 32];
    snprintf(impl, sizeof impl, "%s/lib/fmi2_python.so", root);
    void *handle = dlopen(impl, RTLD_NOW | RTLD_LOCAL);
    if (!handle) fail("%s cannot be loaded: %s", impl, dlerror());
    T = dlsym(handle, SIMON_FMI2_TABLE);
    if (!T || T->version != SIMON_FMI2_TABLE_VERSION)
        fail("%s is not a matching simon-fmu library", impl);
    char error[2048] = "";
    if (T->start_python(NULL, error, sizeof error) != 0) fail("%s", error);
    PyEval_SaveThread();   /* from now on the implementation takes the GIL per call */
}

/* ------------------------------------------------------------------ serving */

static const char *next_string(size_t *at)
{
    const char *s = (const char *)ch->data + *at;
    *at += strlen(s) + 1;
    return s;
}

static void strings_at(size_t at, size_t n, fmi2String *out)
{
    for (size_t i = 0; i < n; i++) out[i] = next_string(&at);
}

static fmi2Status serve(Op op)
{
    unsigned char *d = ch->data;
    size_t n = (size_t)ch->n[0];
    switch (op) {
    case OP_INSTANTIATE: {
        size_t at = 0;
        const char *name = next_string(&at);
        const char *guid = next_string(&at);
        const char *location = next_string(&at);
        char *copies[3] = {strdup(name), strdup(guid), strdup(location)};
        component = T->instantiate(copies[0], (fmi2Type)ch->n[0], copies[1], copies[2],
                                   &callbacks, (fmi2Boolean)ch->n[1], (fmi2Boolean)ch->n[2]);
        ch->handle = (uint64_t)(uintptr_t)component;
        return component ? fmi2OK : fmi2Error;
    }
    case OP_FREE:
        T->freeInstance(component);
        return fmi2OK;
    case OP_SET_DEBUG_LOGGING: {
        size_t count = (size_t)ch->n[1];
        fmi2String *names = count ? malloc(count * sizeof *names) : NULL;
        if (count && !names) return fmi2Error;
        strings_at(0, count, names);
        fmi2Status s = T->setDebugLogging(component, (fmi2Boolean)ch->n[0], count, names);
        free(names);
        return s;
    }
    case OP_SETUP_EXPERIMENT:
        return T->setupExperiment(component, (fmi2Boolean)ch->n[0], ch->d[0], ch->d[1],
                                  (fmi2Boolean)ch->n[1], ch->d[2]);
    case OP_ENTER_INIT: return T->enterInitializationMode(component);
    case OP_EXIT_INIT: return T->exitInitializationMode(component);
    case OP_TERMINATE: return T->terminate(component);
    case OP_RESET: return T->reset(component);
    case OP_CANCEL_STEP: return T->cancelStep(component);
#define AT(n_) (d + channel_align((n_) * sizeof(fmi2ValueReference)))
    case OP_GET_REAL:
        memset(AT(n), 0, n * sizeof(fmi2Real));
        return T->getReal(component, (const fmi2ValueReference *)d, n, (fmi2Real *)AT(n));
    case OP_GET_INTEGER:
        memset(AT(n), 0, n * sizeof(fmi2Integer));
        return T->getInteger(component, (const fmi2ValueReference *)d, n, (fmi2Integer *)AT(n));
    case OP_GET_BOOLEAN:
        memset(AT(n), 0, n * sizeof(fmi2Boolean));
        return T->getBoolean(component, (const fmi2ValueReference *)d, n, (fmi2Boolean *)AT(n));
    case OP_SET_REAL:
        return T->setReal(component, (const fmi2ValueReference *)d, n, (const fmi2Real *)AT(n));
    case OP_SET_INTEGER:
        return T->setInteger(component, (const fmi2ValueReference *)d, n,
                             (const fmi2Integer *)AT(n));
    case OP_SET_BOOLEAN:
        return T->setBoolean(component, (const fmi2ValueReference *)d, n,
                             (const fmi2Boolean *)AT(n));
    case OP_GET_STRING: {
        fmi2ValueReference *vr = malloc((n ? n : 1) * sizeof *vr);
        fmi2String *values = calloc(n ? n : 1, sizeof *values);
        if (!vr || !values) {
            free(vr);
            free(values);
            return fmi2Error;
        }
        memcpy(vr, d, n * sizeof *vr);
        fmi2Status s = T->getString(component, vr, n, values);
        size_t at = 0;
        for (size_t i = 0; i < n && s <= fmi2Warning; i++) {
            const char *v = values[i] ? values[i] : "";
            size_t len = strlen(v) + 1;
            if (at + len > CHANNEL_DATA_BYTES) {
                append_log(fmi2Error, "logStatusError", "fmi2GetString: the strings exceed "
                           "the FMU's channel");
                s = fmi2Error;
                break;
            }
            memcpy(d + at, v, len);
            at += len;
        }
        ch->n[1] = at;
        free(vr);
        free(values);
        return s;
    }
    case OP_SET_STRING: {
        fmi2String *values = malloc((n ? n : 1) * sizeof *values);
        if (!values) return fmi2Error;
        strings_at(channel_align(n * sizeof(fmi2ValueReference)), n, values);
        fmi2Status s = T->setString(component, (const fmi2ValueReference *)d, n, values);
        free(values);
        return s;
    }
#undef AT
    case OP_GET_STATE: {
        fmi2FMUstate state = (fmi2FMUstate)(uintptr_t)ch->handle;
        fmi2Status s = T->getFMUstate(component, &state);
        ch->handle = (uint64_t)(uintptr_t)state;
        return s;
    }
    case OP_SET_STATE:
        return T->setFMUstate(component, (fmi2FMUstate)(uintptr_t)ch->handle);
    case OP_FREE_STATE: {
        fmi2FMUstate state = (fmi2FMUstate)(uintptr_t)ch->handle;
        return T->freeFMUstate(component, &state);
    }
    case OP_STATE_SIZE: {
        size_t size = 0;
        fmi2Status s = T->serializedFMUstateSize(component, (fmi2FMUstate)(uintptr_t)ch->handle,
                                                 &size);
        ch->n[0] = size;
        return s;
    }
    case OP_SERIALIZE:
        return T->serializeFMUstate(component, (fmi2FMUstate)(uintptr_t)ch->handle,
                                    (fmi2Byte *)d, n);
    case OP_DESERIALIZE: {
        fmi2FMUstate state = (fmi2FMUstate)(uintptr_t)ch->handle;
        fmi2Status s = T->deSerializeFMUstate(component, (const fmi2Byte *)d, n, &state);
        ch->handle = (uint64_t)(uintptr_t)state;
        return s;
    }
    case OP_DIRECTIONAL_DERIVATIVE: {
        size_t nk = (size_t)ch->n[1];
        size_t a = channel_align(n * 4), b = a + channel_align(nk * 4),
               e = b + channel_align(nk * 8);
        return T->getDirectionalDerivative(component, (const fmi2ValueReference *)d, n,
                                           (const fmi2ValueReference *)(d + a), nk,
                                           (const fmi2Real *)(d + b), (fmi2Real *)(d + e));
    }
    case OP_SET_INPUT_DERIVATIVES:
    case OP_GET_OUTPUT_DERIVATIVES: {
        size_t a = channel_align(n * 4), b = a + channel_align(n * sizeof(fmi2Integer));
        if (op == OP_SET_INPUT_DERIVATIVES)
            return T->setRealInputDerivatives(component, (const fmi2ValueReference *)d, n,
                                              (const fmi2Integer *)(d + a),
                                              (const fmi2Real *)(d + b));
        return T->getRealOutputDerivatives(component, (const fmi2ValueReference *)d, n,
                                           (const fmi2Integer *)(d + a), (fmi2Real *)(d + b));
    }
    case OP_DO_STEP:
        return T->doStep(component, ch->d[0], ch->d[1], (fmi2Boolean)ch->n[0]);
    case OP_GET_STATUS: {
        fmi2Status value = fmi2OK;
        fmi2Status s = T->getStatus(component, (fmi2StatusKind)n, &value);
        ch->value = value;
        return s;
    }
    case OP_GET_REAL_STATUS:
        return T->getRealStatus(component, (fmi2StatusKind)n, &ch->d[0]);
    case OP_GET_INTEGER_STATUS: {
        fmi2Integer value = 0;
        fmi2Status s = T->getIntegerStatus(component, (fmi2StatusKind)n, &value);
        ch->value = value;
        return s;
    }
    case OP_GET_BOOLEAN_STATUS: {
        fmi2Boolean value = fmi2False;
        fmi2Status s = T->getBooleanStatus(component, (fmi2StatusKind)n, &value);
        ch->value = value;
        return s;
    }
    case OP_GET_STRING_STATUS: {
        fmi2String value = NULL;
        fmi2Status s = T->getStringStatus(component, (fmi2StatusKind)n, &value);
        snprintf((char *)d, 4096, "%s", value ? value : "");
        return s;
    }
    default:
        append_log(fmi2Error, "logStatusError", "the FMU's worker got an unknown request");
        return fmi2Error;
    }
}

/* The host's deferred fmi2SetReal of inputs, in order, before the request. */
static fmi2Status apply_pending(void)
{
    uint32_t n = ch->pending_n;
    if (!n) return fmi2OK;
    ch->pending_n = 0;
    fmi2Status s = T->setReal(component, ch->pending_vrs, n, ch->pending_values);
    if (s != fmi2OK)
        append_log(s, "logStatusError", "fmi2SetReal of inputs (deferred to the next call) did "
                   "not answer fmi2OK");
    return s;
}

/* The values of the last fmi2GetReal's references after a step, if reading them is silent. */
static void prefetch(void)
{
    uint32_t n = ch->prefetch_n, count = ch->log_count, used = ch->log_used;
    if (!n || n > CHANNEL_PREFETCH) return;
    fmi2Status s = T->getReal(component, ch->prefetch_vrs, n, ch->prefetch_values);
    if (s == fmi2OK && ch->log_count == count) {
        ch->prefetch_valid = 1;
    } else {   /* not silent: the host asks for real */
        ch->log_count = count;
        ch->log_used = used;
    }
}

static int serve_channel(int fd)
{
    ch = mmap(NULL, sizeof(Channel), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (ch == MAP_FAILED) {
        ch = NULL;
        fail("the channel cannot be mapped: %s", strerror(errno));
    }
    if (ch->magic != CHANNEL_MAGIC || ch->version != CHANNEL_VERSION) {
        Channel *bad = ch;
        ch = NULL;
        (void)bad;
        fail("the channel is not of this worker's version");
    }
    if (channel_wait(ch, TURN_WORKER, SIDE_WORKER, 0, host_alive, NULL) != 0) _exit(0);
    if (ch->op != OP_INSTANTIATE) fail("the first request is not fmi2Instantiate");
    char executable[PATH_MAX + 64];
    snprintf(executable, sizeof executable, "%s/bin/simon-fmu-worker", root);
    start_python(executable);
    load_implementation();
    uint64_t spin = (uint64_t)ch->spin_us * 1000u;
    for (;;) {
        Op op = (Op)ch->op;
        fmi2Status deferred = apply_pending();
        fmi2Status status = serve(op);
        ch->status = status > deferred ? status : deferred;
        if (op == OP_DO_STEP && ch->status == fmi2OK) prefetch();
        ch->reply = REPLY_DONE;
        int leaving = op == OP_FREE || (op == OP_INSTANTIATE && !component);
        channel_hand(ch, TURN_HOST);
        if (leaving) _exit(0);
        if (channel_wait(ch, TURN_WORKER, SIDE_WORKER, spin, host_alive, NULL) != 0) _exit(0);
    }
}

/* --python -c CODE: the FMU's Python, for the build and for doctor. */
static int run_python(int argc, char **argv)
{
    if (argc < 4 || strcmp(argv[2], "-c") != 0) {
        fprintf(stderr, "usage: simon-fmu-worker --python -c CODE [ARG ...]\n");
        return 2;
    }
    char executable[PATH_MAX + 64];
    snprintf(executable, sizeof executable, "%s/bin/simon-fmu-worker", root);
    start_python(executable);
    PyObject *args = PyList_New(0);
    for (int i = 3; args && i < argc; i++) {
        PyObject *s = PyUnicode_DecodeFSDefault(i == 3 ? "-c" : argv[i]);
        if (!s || PyList_Append(args, s) < 0) return 1;
        Py_DECREF(s);
    }
    if (args) PySys_SetObject("argv", args);
    Py_XDECREF(args);
    PyObject *boot = PyImport_ImportModule("simon_fmu_worker");
    if (!boot) {
        PyErr_Print();
        return 1;
    }
    Py_DECREF(boot);
    int rc = PyRun_SimpleString(argv[3]) == 0 ? 0 : 1;
    fflush(stdout);
    fflush(stderr);
    _exit(rc);
}

int main(int argc, char **argv)
{
    signal(SIGINT, SIG_IGN);     /* Ctrl-C is the host's to handle */
    signal(SIGPIPE, SIG_IGN);
    char self[PATH_MAX];
    if (argc < 2 || !realpath(argv[0], self)) {
        fprintf(stderr, "usage: simon-fmu-worker --serve FD HOST_PID | --python -c CODE\n");
        return 2;
    }
    /* root = the folder above bin/ */
    char *slash = strrchr(self, '/');
    if (slash) *slash = 0;
    slash = strrchr(self, '/');
    if (slash) *slash = 0;
    snprintf(root, sizeof root, "%s", self);
    set_environment();
    if (strcmp(argv[1], "--serve") == 0 && argc >= 4) {
        host = (pid_t)atoi(argv[3]);
        return serve_channel(atoi(argv[2]));
    }
    if (strcmp(argv[1], "--python") == 0) return run_python(argc, argv);
    fprintf(stderr, "usage: simon-fmu-worker --serve FD HOST_PID | --python -c CODE\n");
    return 2;
}
