/*
 * simon-fmu's FMI 2.0 Co-Simulation implementation over a Python slave object.
 *
 * Loaded by the loader (fmi2_loader.c) once a libpython is in the process and the interpreter
 * runs; every function takes the GIL (PyGILState_Ensure/Release) for its Python work, so it
 * serves Python hosts (fmpy, libcosimpy, ecospy) and C hosts alike.
 *
 * Finding the slave (the layout pythonfmu's builder writes): resources/slavemodule.txt names
 * a module in the resources folder; the folder goes on sys.path (once), the module is
 * imported, and the slave class is the non-abstract class in it that derives from a class
 * named Fmi2Slave, the one with the longest MRO. It is created as
 * cls(instance_name=..., resources=<folder>, visible=<bool>, fmi2_library="simon-fmu")
 * (without fmi2_library if the class refuses it); fmi2Reset creates a new one the same way.
 *
 * The protocol with the slave (pythonfmu's Fmi2Slave methods, plus optional fast ones):
 *
 * - Status: setup_experiment(start, stop|None, tolerance|None), enter_initialization_mode(),
 *   exit_initialization_mode(), do_step(t, h), terminate(), the setters and
 *   _set_fmu_state(state) may return None or True (fmi2OK), False (fmi2Discard, as
 *   pythonfmu does), or an int status 0 OK, 1 Warning, 2 Discard, 3 Error. Any other int is
 *   fmi2Error; the slave can never cause fmi2Fatal.
 * - An exception escaping any slave method is fmi2Error, its traceback logged with category
 *   logStatusError; the instance stays usable as far as the slave allows, and freeable.
 * - Values: if the slave has fmi2_get_real(vrs, values) (and _integer, _boolean;
 *   fmi2_set_real(vrs, values) and so on), each FMI call is one Python call with two
 *   memoryviews over the caller's arrays: vrs of format "I", values of format "d" (Real)
 *   or "i" (Integer, Boolean), writable for the getters. They are valid during the call only.
 *   Otherwise pythonfmu's get_real(list) -> list and set_real(list, list) are used. Strings
 *   always go through get_string(list) -> list of str and set_string(list, list).
 * - State: _get_fmu_state() -> any object, _set_fmu_state(obj), _fmu_state_to_bytes(obj) ->
 *   bytes, _fmu_state_from_bytes(bytes) -> obj.
 * - Logging: the slave's log() appends LogMsg(status, category, msg) objects to its
 *   log_queue list; after every call the queue is passed to the FMI logger and emptied. The
 *   message is plain text (the library hands it to the logger as the argument of "%s").
 *   Messages of status fmi2Error and above always reach the logger; others only while
 *   logging is on for their category (loggingOn at fmi2Instantiate, fmi2SetDebugLogging;
 *   an enabled logAll passes every category).
 *
 * fmi2LastSuccessfulTime is the end of the last step answered with fmi2OK or fmi2Warning,
 * or the start of a refused one (the start time before any step); fmi2Terminated is true
 * after a step answered with fmi2Discard. Directional derivatives, input derivatives and
 * asynchronous steps are not supported: fmi2Error.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2_python.h"

#define EXPORT __attribute__((visibility("default")))
#define INSTANCE_MAGIC 0x53494d4fu   /* "SIMO" */
#define STATE_MAGIC 0x53544154u      /* "STAT" */

typedef struct {
    char *name;
    int on;
} Category;

typedef struct {
    unsigned magic;
    char *name;
    char *resources;
    fmi2CallbackLogger logger;
    fmi2ComponentEnvironment env;
    int logging_on;                 /* the master switch */
    Category *categories;
    size_t n_categories;
    PyObject *cls;
    PyObject *kwargs;
    PyObject *slave;
    PyObject *log_queue;            /* the slave's list, or NULL */
    unsigned fast;                  /* FAST_* bits: which fmi2_* methods the slave has */
    PyObject *strings;              /* keeps the last fmi2GetString answers alive */
    double last_successful_time;
    fmi2Status last_step_status;
} Instance;

typedef struct {
    unsigned magic;
    PyObject *object;               /* what _get_fmu_state returned */
    PyObject *bytes;                /* its serialisation, once asked for */
} State;

enum { REAL, INTEGER, BOOLEAN };
enum { FAST_GET = 1, FAST_SET = 8 };   /* bit (FAST_GET << kind), (FAST_SET << kind) */

static const char *const FAST_GETTER[] = {"fmi2_get_real", "fmi2_get_integer", "fmi2_get_boolean"};
static const char *const FAST_SETTER[] = {"fmi2_set_real", "fmi2_set_integer", "fmi2_set_boolean"};
static const char *const GETTER[] = {"get_real", "get_integer", "get_boolean"};
static const char *const SETTER[] = {"set_real", "set_integer", "set_boolean"};

/* interned method names, made once under the GIL */
static PyObject *s_fast_get[3], *s_fast_set[3], *s_get[3], *s_set[3];
static PyObject *s_get_string, *s_set_string, *s_setup_experiment, *s_enter_init, *s_exit_init,
    *s_do_step, *s_terminate, *s_get_state, *s_set_state, *s_state_to_bytes,
    *s_state_from_bytes, *s_release, *s_log_queue, *s_log_categories, *s_status, *s_category,
    *s_msg;

static int intern_names(void)
{
    if (s_msg) return 0;
#define INTERN(var, text) if (!((var) = PyUnicode_InternFromString(text))) return -1
    for (int k = 0; k < 3; k++) {
        INTERN(s_fast_get[k], FAST_GETTER[k]);
        INTERN(s_fast_set[k], FAST_SETTER[k]);
        INTERN(s_get[k], GETTER[k]);
        INTERN(s_set[k], SETTER[k]);
    }
    INTERN(s_get_string, "get_string");
    INTERN(s_set_string, "set_string");
    INTERN(s_setup_experiment, "setup_experiment");
    INTERN(s_enter_init, "enter_initialization_mode");
    INTERN(s_exit_init, "exit_initialization_mode");
    INTERN(s_do_step, "do_step");
    INTERN(s_terminate, "terminate");
    INTERN(s_get_state, "_get_fmu_state");
    INTERN(s_set_state, "_set_fmu_state");
    INTERN(s_state_to_bytes, "_fmu_state_to_bytes");
    INTERN(s_state_from_bytes, "_fmu_state_from_bytes");
    INTERN(s_release, "release");
    INTERN(s_log_queue, "log_queue");
    INTERN(s_log_categories, "log_categories");
    INTERN(s_status, "status");
    INTERN(s_category, "category");
    INTERN(s_msg, "msg");
#undef INTERN
    return 0;
}

/* ------------------------------------------------------------------ interpreter */

static int python_is_finalizing(void)
{
#if PY_VERSION_HEX >= 0x030D0000
    return Py_IsFinalizing();
#else
    return _Py_IsFinalizing();
#endif
}

static int start_python(const char *executable, char *error, size_t size)
{
    char expected[16];
    snprintf(expected, sizeof expected, "%d.%d", PY_MAJOR_VERSION, PY_MINOR_VERSION);
    const char *version = Py_GetVersion();
    size_t n = strlen(expected);
    if (strncmp(version, expected, n) != 0 || (version[n] >= '0' && version[n] <= '9')) {
        snprintf(error, size, "this FMU's library was built for Python %s, the process has "
                 "Python %s", expected, version);
        return -1;
    }
    if (Py_IsInitialized()) return 0;
    /* A C host: start the interpreter once; it is never finalised (an FMU cannot know that
     * the host is done with Python, and finalising at unload is what crashes hosts). */
    PyConfig config;
    PyConfig_InitPythonConfig(&config);
    config.install_signal_handlers = 0;
    config.parse_argv = 0;
    PyStatus status = PyStatus_Ok();
    if (executable && *executable)
        status = PyConfig_SetBytesString(&config, &config.program_name, executable);
    if (!PyStatus_Exception(status)) status = Py_InitializeFromConfig(&config);
    PyConfig_Clear(&config);
    if (PyStatus_Exception(status)) {
        snprintf(error, size, "Python could not be started (program name %s): %s%s%s",
                 executable && *executable ? executable : "python3",
                 status.func ? status.func : "", status.func ? ": " : "",
                 status.err_msg ? status.err_msg : "unknown error");
        return -1;
    }
    PyEval_SaveThread();   /* from now on every call takes the GIL itself */
    return 0;
}

/* ------------------------------------------------------------------ logging */

static int category_on(const Instance *c, const char *category)
{
    int known = 0;
    for (size_t i = 0; i < c->n_categories; i++) {
        if (strcmp(c->categories[i].name, "logAll") == 0 && c->categories[i].on) return 1;
        if (category && strcmp(c->categories[i].name, category) == 0) {
            if (c->categories[i].on) return 1;
            known = 1;
        }
    }
    return !known && c->logging_on;
}

static void emit(const Instance *c, fmi2Status status, const char *category, const char *message)
{
    if (!c->logger) return;
    if (status < fmi2Error && !category_on(c, category)) return;
    c->logger(c->env, c->name ? c->name : "", status, category ? category : "logAll", "%s",
              message);
}

static void logf_(const Instance *c, fmi2Status status, const char *category, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void logf_(const Instance *c, fmi2Status status, const char *category, const char *fmt, ...)
{
    char small[1024];
    va_list args;
    va_start(args, fmt);
    int n = vsnprintf(small, sizeof small, fmt, args);
    va_end(args);
    if (n < 0) return;
    if ((size_t)n < sizeof small) {
        emit(c, status, category, small);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        emit(c, status, category, small);
        return;
    }
    va_start(args, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, args);
    va_end(args);
    emit(c, status, category, big);
    free(big);
}

#define LOG_ERROR(c, ...) logf_((c), fmi2Error, "logStatusError", __VA_ARGS__)

/* Pass the slave's queued messages to the logger and empty the queue. */
static void drain_log(Instance *c)
{
    PyObject *queue = c->log_queue;
    if (!queue || PyList_GET_SIZE(queue) == 0) return;
    PyObject *items = PyList_GetSlice(queue, 0, PyList_GET_SIZE(queue));
    if (!items || PyList_SetSlice(queue, 0, PyList_GET_SIZE(queue), NULL) < 0) {
        Py_XDECREF(items);
        PyErr_Clear();
        return;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(items); i++) {
        PyObject *item = PyList_GET_ITEM(items, i);
        long status = fmi2OK;
        PyObject *value = PyObject_GetAttr(item, s_status);
        if (value) {
            status = PyLong_AsLong(value);
            if (status == -1 && PyErr_Occurred()) status = fmi2OK;
            Py_DECREF(value);
        }
        PyErr_Clear();
        if (status < fmi2OK || status > fmi2Fatal) status = fmi2OK;
        const char *category = NULL;
        PyObject *cat = PyObject_GetAttr(item, s_category);
        if (cat && PyUnicode_Check(cat)) category = PyUnicode_AsUTF8(cat);
        PyErr_Clear();
        PyObject *msg = PyObject_GetAttr(item, s_msg);
        PyErr_Clear();
        PyObject *text = PyObject_Str(msg ? msg : item);
        const char *utf8 = text ? PyUnicode_AsUTF8(text) : NULL;
        PyErr_Clear();
        emit(c, (fmi2Status)status, category, utf8 ? utf8 : "(a message that cannot be shown)");
        Py_XDECREF(text);
        Py_XDECREF(msg);
        Py_XDECREF(cat);
    }
    Py_DECREF(items);
}

/* Log the pending Python exception with its traceback; returns fmi2Error. */
static fmi2Status failed(Instance *c, const char *function)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    if (!type) {
        LOG_ERROR(c, "%s: failed", function);
        return fmi2Error;
    }
    PyErr_NormalizeException(&type, &value, &tb);
    if (tb && value) PyException_SetTraceback(value, tb);
    PyObject *text = NULL;
    PyObject *module = PyImport_ImportModule("traceback");
    if (module) {
        PyObject *lines = PyObject_CallMethod(module, "format_exception", "OOO", type,
                                              value ? value : Py_None, tb ? tb : Py_None);
        if (lines) {
            PyObject *empty = PyUnicode_FromString("");
            if (empty) text = PyUnicode_Join(empty, lines);
            Py_XDECREF(empty);
            Py_DECREF(lines);
        }
        Py_DECREF(module);
    }
    if (!text) {
        PyErr_Clear();
        text = PyObject_Str(value ? value : type);
    }
    const char *utf8 = text ? PyUnicode_AsUTF8(text) : NULL;
    PyErr_Clear();
    LOG_ERROR(c, "%s: the slave raised an exception:\n%s", function,
              utf8 ? utf8 : "(it cannot be shown)");
    Py_XDECREF(text);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    return fmi2Error;
}

/* The status a slave method answered with (a new reference to ret is consumed). */
static fmi2Status status_of(Instance *c, PyObject *ret, const char *function)
{
    if (!ret) return failed(c, function);
    fmi2Status status;
    if (ret == Py_None || ret == Py_True) {
        status = fmi2OK;
    } else if (ret == Py_False) {
        status = fmi2Discard;
    } else if (PyLong_Check(ret)) {
        long v = PyLong_AsLong(ret);
        if (v >= fmi2OK && v <= fmi2Error) {
            status = (fmi2Status)v;
        } else {
            PyErr_Clear();
            LOG_ERROR(c, "%s: the slave answered %ld, which is no status (0 OK, 1 Warning, "
                      "2 Discard, 3 Error)", function, v);
            status = fmi2Error;
        }
    } else {
        int truth = PyObject_IsTrue(ret);   /* e.g. numpy.bool_, as pythonfmu reads it */
        if (truth < 0) {
            Py_DECREF(ret);
            return failed(c, function);
        }
        status = truth ? fmi2OK : fmi2Discard;
    }
    Py_DECREF(ret);
    return status;
}

/* ------------------------------------------------------------------ calls */

static PyObject *call(Instance *c, PyObject *name, PyObject *a, PyObject *b, PyObject *d)
{
    PyObject *args[4] = {c->slave, a, b, d};
    size_t n = d ? 4 : b ? 3 : a ? 2 : 1;
    return PyObject_VectorcallMethod(name, args, n, NULL);
}

static Instance *instance(fmi2Component component, const char *function)
{
    Instance *c = component;
    if (!c || c->magic != INSTANCE_MAGIC) {
        (void)function;
        return NULL;
    }
    return c;
}

#define ENTER(function)                                      \
    Instance *c = instance(component, function);             \
    if (!c) return fmi2Error;                                \
    PyGILState_STATE gil_ = PyGILState_Ensure()
#define LEAVE(status)                     \
    do {                                  \
        fmi2Status leave_ = (status);     \
        drain_log(c);                     \
        PyGILState_Release(gil_);         \
        return leave_;                    \
    } while (0)

/* A memoryview over C memory, valid until released. */
static PyObject *view(const void *buf, Py_ssize_t n, Py_ssize_t itemsize, const char *format,
                      int writable)
{
    Py_buffer b;
    memset(&b, 0, sizeof b);
    b.buf = (void *)buf;
    b.len = n * itemsize;
    b.itemsize = itemsize;
    b.readonly = !writable;
    b.ndim = 1;
    b.format = (char *)format;
    b.shape = &n;
    b.strides = &itemsize;
    return PyMemoryView_FromBuffer(&b);
}

static void release(PyObject *mv)
{
    if (!mv) return;
    if (Py_REFCNT(mv) > 1) {     /* the slave kept it: cut it off the caller's memory */
        PyObject *r = PyObject_CallMethodNoArgs(mv, s_release);
        Py_XDECREF(r);
        PyErr_Clear();
    }
    Py_DECREF(mv);
}

static PyObject *vr_list(const fmi2ValueReference vr[], size_t nvr)
{
    PyObject *list = PyList_New((Py_ssize_t)nvr);
    if (!list) return NULL;
    for (size_t i = 0; i < nvr; i++) {
        PyObject *v = PyLong_FromUnsignedLong(vr[i]);
        if (!v) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, v);
    }
    return list;
}

static int check_arrays(Instance *c, const char *function, const void *vr, size_t nvr,
                        const void *value)
{
    if (nvr > 0 && (!vr || !value)) {
        LOG_ERROR(c, "%s: %zu values, but no value reference or value array", function, nvr);
        return -1;
    }
    if (nvr > (size_t)PY_SSIZE_T_MAX / 8) {
        LOG_ERROR(c, "%s: %zu values are too many", function, nvr);
        return -1;
    }
    return 0;
}

static fmi2Status get_values(fmi2Component component, int kind, const fmi2ValueReference vr[],
                             size_t nvr, void *value)
{
    static const char *const function[] = {"fmi2GetReal", "fmi2GetInteger", "fmi2GetBoolean"};
    Instance *c = instance(component, function[kind]);
    if (!c) return fmi2Error;
    if (nvr == 0) return fmi2OK;
    PyGILState_STATE gil_ = PyGILState_Ensure();
    fmi2Status status;
    if (check_arrays(c, function[kind], vr, nvr, value) < 0) LEAVE(fmi2Error);
    if (c->fast & (FAST_GET << kind)) {
        PyObject *vrs = view(vr, (Py_ssize_t)nvr, sizeof *vr, "I", 0);
        PyObject *out = vrs ? view(value, (Py_ssize_t)nvr, kind == REAL ? sizeof(fmi2Real)
                                   : sizeof(fmi2Integer), kind == REAL ? "d" : "i", 1) : NULL;
        PyObject *ret = out ? call(c, s_fast_get[kind], vrs, out, NULL) : NULL;
        release(out);
        release(vrs);
        status = status_of(c, ret, function[kind]);
        LEAVE(status);
    }
    PyObject *vrs = vr_list(vr, nvr);
    PyObject *ret = vrs ? call(c, s_get[kind], vrs, NULL, NULL) : NULL;
    Py_XDECREF(vrs);
    if (!ret) LEAVE(failed(c, function[kind]));
    PyObject *seq = PySequence_Fast(ret, "the getter did not answer a sequence");
    Py_DECREF(ret);
    if (!seq) LEAVE(failed(c, function[kind]));
    if ((size_t)PySequence_Fast_GET_SIZE(seq) != nvr) {
        LOG_ERROR(c, "%s: the slave answered %zd values for %zu value references",
                  function[kind], PySequence_Fast_GET_SIZE(seq), nvr);
        Py_DECREF(seq);
        LEAVE(fmi2Error);
    }
    status = fmi2OK;
    for (size_t i = 0; i < nvr; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, (Py_ssize_t)i);
        if (kind == REAL) {
            double v = PyFloat_AsDouble(item);
            if (v == -1.0 && PyErr_Occurred()) { status = failed(c, function[kind]); break; }
            ((fmi2Real *)value)[i] = v;
        } else if (kind == INTEGER) {
            long v = PyLong_AsLong(item);
            if (v == -1 && PyErr_Occurred()) { status = failed(c, function[kind]); break; }
            ((fmi2Integer *)value)[i] = (fmi2Integer)v;
        } else {
            int v = PyObject_IsTrue(item);
            if (v < 0) { status = failed(c, function[kind]); break; }
            ((fmi2Boolean *)value)[i] = v ? fmi2True : fmi2False;
        }
    }
    Py_DECREF(seq);
    LEAVE(status);
}

static fmi2Status set_values(fmi2Component component, int kind, const fmi2ValueReference vr[],
                             size_t nvr, const void *value)
{
    static const char *const function[] = {"fmi2SetReal", "fmi2SetInteger", "fmi2SetBoolean"};
    Instance *c = instance(component, function[kind]);
    if (!c) return fmi2Error;
    if (nvr == 0) return fmi2OK;
    PyGILState_STATE gil_ = PyGILState_Ensure();
    if (check_arrays(c, function[kind], vr, nvr, value) < 0) LEAVE(fmi2Error);
    if (c->fast & (FAST_SET << kind)) {
        PyObject *vrs = view(vr, (Py_ssize_t)nvr, sizeof *vr, "I", 0);
        PyObject *in = vrs ? view(value, (Py_ssize_t)nvr, kind == REAL ? sizeof(fmi2Real)
                                  : sizeof(fmi2Integer), kind == REAL ? "d" : "i", 0) : NULL;
        PyObject *ret = in ? call(c, s_fast_set[kind], vrs, in, NULL) : NULL;
        release(in);
        release(vrs);
        LEAVE(status_of(c, ret, function[kind]));
    }
    PyObject *vrs = vr_list(vr, nvr);
    PyObject *values = vrs ? PyList_New((Py_ssize_t)nvr) : NULL;
    for (size_t i = 0; values && i < nvr; i++) {
        PyObject *v = kind == REAL ? PyFloat_FromDouble(((const fmi2Real *)value)[i])
                    : kind == INTEGER ? PyLong_FromLong(((const fmi2Integer *)value)[i])
                    : PyBool_FromLong(((const fmi2Boolean *)value)[i]);
        if (!v) {
            Py_CLEAR(values);
            break;
        }
        PyList_SET_ITEM(values, (Py_ssize_t)i, v);
    }
    PyObject *ret = values ? call(c, s_set[kind], vrs, values, NULL) : NULL;
    Py_XDECREF(values);
    Py_XDECREF(vrs);
    LEAVE(status_of(c, ret, function[kind]));
}

/* ------------------------------------------------------------------ instantiation */

static char *copy_string(const char *s)
{
    if (!s) s = "";
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

/* The slave class of the module named in resources/slavemodule.txt (new reference). */
static PyObject *find_slave_class(Instance *c)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/slavemodule.txt", c->resources);
    FILE *f = fopen(path, "r");
    if (!f) {
        LOG_ERROR(c, "fmi2Instantiate: %s cannot be read: %s", path, strerror(errno));
        return NULL;
    }
    char name[512] = {0};
    size_t n = fread(name, 1, sizeof name - 1, f);
    fclose(f);
    name[n] = 0;
    char *start = name;
    while (*start == ' ' || *start == '\t' || *start == '\n' || *start == '\r') start++;
    char *end = start + strlen(start);
    while (end > start && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n'
                           || end[-1] == '\r')) *--end = 0;
    if (!*start) {
        LOG_ERROR(c, "fmi2Instantiate: %s names no module", path);
        return NULL;
    }

    /* the resources folder on sys.path, once */
    PyObject *sys_path = PySys_GetObject("path");       /* borrowed */
    PyObject *folder = PyUnicode_DecodeFSDefault(c->resources);
    if (!folder) return NULL;
    if (sys_path && PyList_Check(sys_path)) {
        int has = PySequence_Contains(sys_path, folder);
        if (has == 0 && PyList_Insert(sys_path, 0, folder) < 0) has = -1;
        if (has < 0) {
            Py_DECREF(folder);
            return NULL;
        }
    }
    Py_DECREF(folder);

    PyObject *module = PyImport_ImportModule(start);
    if (!module) return NULL;
    PyObject *dict = PyModule_GetDict(module);          /* borrowed */
    PyObject *key, *value, *best = NULL;
    Py_ssize_t pos = 0, best_len = -1;
    int tie = 0;
    while (PyDict_Next(dict, &pos, &key, &value)) {
        if (!PyType_Check(value)) continue;
        PyObject *mro = ((PyTypeObject *)value)->tp_mro;
        if (!mro || !PyTuple_Check(mro)) continue;
        int derived = 0;
        for (Py_ssize_t i = 1; i < PyTuple_GET_SIZE(mro); i++) {
            const char *tp = ((PyTypeObject *)PyTuple_GET_ITEM(mro, i))->tp_name;
            const char *dot = strrchr(tp, '.');
            if (strcmp(dot ? dot + 1 : tp, "Fmi2Slave") == 0) derived = 1;
        }
        if (!derived) continue;
        PyObject *abstract = PyObject_GetAttrString(value, "__abstractmethods__");
        if (!abstract) PyErr_Clear();
        int is_abstract = abstract && PyObject_IsTrue(abstract) > 0;
        Py_XDECREF(abstract);
        PyErr_Clear();
        if (is_abstract) continue;
        Py_ssize_t len = PyTuple_GET_SIZE(mro);
        if (len > best_len) {
            best = value;
            best_len = len;
            tie = 0;
        } else if (len == best_len && value != best) {
            tie = 1;
        }
    }
    if (!best || tie) {
        LOG_ERROR(c, "fmi2Instantiate: module %s has %s slave class (a class derived from "
                  "Fmi2Slave)", start, best ? "more than one" : "no");
        Py_DECREF(module);
        return NULL;
    }
    Py_INCREF(best);
    Py_DECREF(module);
    return best;
}

static void forget_slave(Instance *c)
{
    Py_CLEAR(c->log_queue);
    Py_CLEAR(c->slave);
    Py_CLEAR(c->strings);
}

/* Create the slave object (again, for fmi2Reset); 0 on success, else a Python error. */
static int make_slave(Instance *c)
{
    PyObject *args = PyTuple_New(0);
    if (!args) return -1;
    PyObject *slave = PyObject_Call(c->cls, args, c->kwargs);
    if (!slave && PyErr_ExceptionMatches(PyExc_TypeError)) {
        /* a class that takes no fmi2_library keyword */
        PyObject *plain = PyDict_Copy(c->kwargs);
        if (plain && PyDict_DelItemString(plain, "fmi2_library") == 0) {
            PyErr_Clear();
            slave = PyObject_Call(c->cls, args, plain);
        }
        Py_XDECREF(plain);
    }
    Py_DECREF(args);
    if (!slave) return -1;
    forget_slave(c);
    c->slave = slave;
    PyObject *queue = PyObject_GetAttr(slave, s_log_queue);
    if (queue && PyList_Check(queue)) c->log_queue = queue;
    else Py_XDECREF(queue);
    PyErr_Clear();
    c->fast = 0;
    for (int k = 0; k < 3; k++) {
        if (PyObject_HasAttr(slave, s_fast_get[k])) c->fast |= FAST_GET << k;
        if (PyObject_HasAttr(slave, s_fast_set[k])) c->fast |= FAST_SET << k;
    }
    c->last_successful_time = 0.0;
    c->last_step_status = fmi2OK;
    return 0;
}

static void read_categories(Instance *c)
{
    PyObject *cats = PyObject_GetAttr(c->slave, s_log_categories);
    PyObject *keys = cats ? PySequence_List(cats) : NULL;    /* a dict's keys, or a list */
    if (keys) {
        Py_ssize_t n = PyList_GET_SIZE(keys);
        c->categories = calloc((size_t)n + 1, sizeof *c->categories);
        for (Py_ssize_t i = 0; c->categories && i < n; i++) {
            const char *name = PyUnicode_Check(PyList_GET_ITEM(keys, i))
                             ? PyUnicode_AsUTF8(PyList_GET_ITEM(keys, i)) : NULL;
            if (!name) continue;
            c->categories[c->n_categories].name = copy_string(name);
            c->categories[c->n_categories].on = c->logging_on;
            if (c->categories[c->n_categories].name) c->n_categories++;
        }
    }
    Py_XDECREF(keys);
    Py_XDECREF(cats);
    PyErr_Clear();
}

static void free_instance_memory(Instance *c)
{
    for (size_t i = 0; i < c->n_categories; i++) free(c->categories[i].name);
    free(c->categories);
    free(c->name);
    free(c->resources);
    c->magic = 0;
    free(c);
}

static fmi2Component instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                                 fmi2String fmuResourceLocation,
                                 const fmi2CallbackFunctions *functions, fmi2Boolean visible,
                                 fmi2Boolean loggingOn)
{
    (void)fmuGUID;
    Instance *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->magic = INSTANCE_MAGIC;
    c->name = copy_string(instanceName);
    c->logger = functions ? functions->logger : NULL;
    c->env = functions ? functions->componentEnvironment : NULL;
    c->logging_on = loggingOn != fmi2False;
    char path[4096];
    if (fmuType != fmi2CoSimulation) {
        LOG_ERROR(c, "fmi2Instantiate: this FMU is for Co-Simulation only");
        free_instance_memory(c);
        return NULL;
    }
    if (simon_uri_to_path(fmuResourceLocation, path, sizeof path) != 0) {
        LOG_ERROR(c, "fmi2Instantiate: the resource location %s is no local file URI",
                  fmuResourceLocation ? fmuResourceLocation : "(none)");
        free_instance_memory(c);
        return NULL;
    }
    c->resources = copy_string(path);
    if (!c->name || !c->resources) {
        free_instance_memory(c);
        return NULL;
    }

    PyGILState_STATE gil = PyGILState_Ensure();
    int ok = intern_names() == 0;
    if (ok) c->cls = find_slave_class(c);
    ok = ok && c->cls;
    if (ok) {
        c->kwargs = Py_BuildValue("{s:s,s:O&,s:O,s:s}", "instance_name", c->name, "resources",
                                  PyUnicode_DecodeFSDefault, c->resources, "visible",
                                  visible ? Py_True : Py_False, "fmi2_library", "simon-fmu");
        ok = c->kwargs && make_slave(c) == 0;
    }
    if (ok) read_categories(c);
    if (!ok) {
        if (PyErr_Occurred()) failed(c, "fmi2Instantiate");
        if (c->slave) drain_log(c);
        forget_slave(c);
        Py_CLEAR(c->kwargs);
        Py_CLEAR(c->cls);
        PyGILState_Release(gil);
        free_instance_memory(c);
        return NULL;
    }
    drain_log(c);
    PyGILState_Release(gil);
    return c;
}

static void free_instance(fmi2Component component)
{
    Instance *c = instance(component, "fmi2FreeInstance");
    if (!c) return;
    if (Py_IsInitialized() && !python_is_finalizing()) {
        PyGILState_STATE gil = PyGILState_Ensure();
        drain_log(c);
        forget_slave(c);
        Py_CLEAR(c->kwargs);
        Py_CLEAR(c->cls);
        PyGILState_Release(gil);
    }
    free_instance_memory(c);
}

static fmi2Status set_debug_logging(fmi2Component component, fmi2Boolean loggingOn,
                                    size_t nCategories, const fmi2String categories[])
{
    Instance *c = instance(component, "fmi2SetDebugLogging");
    if (!c) return fmi2Error;
    int on = loggingOn != fmi2False;
    if (nCategories == 0) {
        c->logging_on = on;
        for (size_t i = 0; i < c->n_categories; i++) c->categories[i].on = on;
        return fmi2OK;
    }
    if (!categories) {
        LOG_ERROR(c, "fmi2SetDebugLogging: %zu categories, but no array", nCategories);
        return fmi2Error;
    }
    fmi2Status status = fmi2OK;
    for (size_t j = 0; j < nCategories; j++) {
        size_t i = 0;
        while (i < c->n_categories && !(categories[j]
               && strcmp(categories[j], c->categories[i].name) == 0)) i++;
        if (i == c->n_categories) {
            LOG_ERROR(c, "fmi2SetDebugLogging: %s is no log category of this FMU",
                      categories[j] ? categories[j] : "(null)");
            status = fmi2Error;
        }
    }
    if (status != fmi2OK) return status;
    /* with loggingOn, exactly the named categories; without, the named ones are switched off */
    for (size_t i = 0; i < c->n_categories; i++) {
        int named = 0;
        for (size_t j = 0; j < nCategories; j++)
            if (strcmp(categories[j], c->categories[i].name) == 0) named = 1;
        if (on) c->categories[i].on = named;
        else if (named) c->categories[i].on = 0;
    }
    c->logging_on = 0;
    for (size_t i = 0; i < c->n_categories; i++) c->logging_on |= c->categories[i].on;
    return fmi2OK;
}

/* ------------------------------------------------------------------ life cycle */

static fmi2Status setup_experiment(fmi2Component component, fmi2Boolean toleranceDefined,
                                   fmi2Real tolerance, fmi2Real startTime,
                                   fmi2Boolean stopTimeDefined, fmi2Real stopTime)
{
    ENTER("fmi2SetupExperiment");
    PyObject *start = PyFloat_FromDouble(startTime);
    PyObject *stop = stopTimeDefined ? PyFloat_FromDouble(stopTime) : Py_NewRef(Py_None);
    PyObject *tol = toleranceDefined ? PyFloat_FromDouble(tolerance) : Py_NewRef(Py_None);
    PyObject *ret = start && stop && tol ? call(c, s_setup_experiment, start, stop, tol) : NULL;
    Py_XDECREF(start);
    Py_XDECREF(stop);
    Py_XDECREF(tol);
    fmi2Status status = status_of(c, ret, "fmi2SetupExperiment");
    c->last_successful_time = startTime;
    LEAVE(status);
}

static fmi2Status simple_call(fmi2Component component, PyObject **name, const char *function)
{
    ENTER(function);
    LEAVE(status_of(c, call(c, *name, NULL, NULL, NULL), function));
}

static fmi2Status enter_initialization_mode(fmi2Component component)
{
    return simple_call(component, &s_enter_init, "fmi2EnterInitializationMode");
}

static fmi2Status exit_initialization_mode(fmi2Component component)
{
    return simple_call(component, &s_exit_init, "fmi2ExitInitializationMode");
}

static fmi2Status terminate(fmi2Component component)
{
    return simple_call(component, &s_terminate, "fmi2Terminate");
}

static fmi2Status reset(fmi2Component component)
{
    ENTER("fmi2Reset");
    if (make_slave(c) < 0) LEAVE(failed(c, "fmi2Reset"));
    LEAVE(fmi2OK);
}

static fmi2Status do_step(fmi2Component component, fmi2Real currentCommunicationPoint,
                          fmi2Real communicationStepSize,
                          fmi2Boolean noSetFMUStatePriorToCurrentPoint)
{
    (void)noSetFMUStatePriorToCurrentPoint;
    ENTER("fmi2DoStep");
    PyObject *t = PyFloat_FromDouble(currentCommunicationPoint);
    PyObject *h = PyFloat_FromDouble(communicationStepSize);
    PyObject *ret = t && h ? call(c, s_do_step, t, h, NULL) : NULL;
    Py_XDECREF(t);
    Py_XDECREF(h);
    fmi2Status status = status_of(c, ret, "fmi2DoStep");
    c->last_step_status = status;
    c->last_successful_time = status <= fmi2Warning
        ? currentCommunicationPoint + communicationStepSize : currentCommunicationPoint;
    LEAVE(status);
}

static fmi2Status cancel_step(fmi2Component component)
{
    Instance *c = instance(component, "fmi2CancelStep");
    if (!c) return fmi2Error;
    LOG_ERROR(c, "fmi2CancelStep: this FMU never answers fmi2Pending; there is no step to cancel");
    return fmi2Error;
}

/* ------------------------------------------------------------------ values */

static fmi2Status get_real(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                           fmi2Real value[])
{
    return get_values(c, REAL, vr, nvr, value);
}

static fmi2Status get_integer(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                              fmi2Integer value[])
{
    return get_values(c, INTEGER, vr, nvr, value);
}

static fmi2Status get_boolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                              fmi2Boolean value[])
{
    return get_values(c, BOOLEAN, vr, nvr, value);
}

static fmi2Status set_real(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                           const fmi2Real value[])
{
    return set_values(c, REAL, vr, nvr, value);
}

static fmi2Status set_integer(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                              const fmi2Integer value[])
{
    return set_values(c, INTEGER, vr, nvr, value);
}

static fmi2Status set_boolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                              const fmi2Boolean value[])
{
    return set_values(c, BOOLEAN, vr, nvr, value);
}

static fmi2Status get_string(fmi2Component component, const fmi2ValueReference vr[], size_t nvr,
                             fmi2String value[])
{
    Instance *c = instance(component, "fmi2GetString");
    if (!c) return fmi2Error;
    if (nvr == 0) return fmi2OK;
    PyGILState_STATE gil_ = PyGILState_Ensure();
    if (check_arrays(c, "fmi2GetString", vr, nvr, value) < 0) LEAVE(fmi2Error);
    PyObject *vrs = vr_list(vr, nvr);
    PyObject *ret = vrs ? call(c, s_get_string, vrs, NULL, NULL) : NULL;
    Py_XDECREF(vrs);
    PyObject *seq = ret ? PySequence_Fast(ret, "get_string did not answer a sequence") : NULL;
    Py_XDECREF(ret);
    if (!seq) LEAVE(failed(c, "fmi2GetString"));
    if ((size_t)PySequence_Fast_GET_SIZE(seq) != nvr) {
        LOG_ERROR(c, "fmi2GetString: the slave answered %zd values for %zu value references",
                  PySequence_Fast_GET_SIZE(seq), nvr);
        Py_DECREF(seq);
        LEAVE(fmi2Error);
    }
    /* the strings stay valid until the next fmi2GetString of this instance */
    PyObject *keep = PyList_New((Py_ssize_t)nvr);
    fmi2Status status = keep ? fmi2OK : failed(c, "fmi2GetString");
    for (size_t i = 0; keep && i < nvr; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, (Py_ssize_t)i);
        PyObject *text = PyObject_Str(item);
        PyObject *bytes = text ? PyUnicode_AsUTF8String(text) : NULL;
        Py_XDECREF(text);
        if (!bytes) {
            status = failed(c, "fmi2GetString");
            Py_CLEAR(keep);
            break;
        }
        PyList_SET_ITEM(keep, (Py_ssize_t)i, bytes);
        value[i] = PyBytes_AS_STRING(bytes);
    }
    Py_DECREF(seq);
    if (keep) {
        Py_XSETREF(c->strings, keep);
    }
    LEAVE(status);
}

static fmi2Status set_string(fmi2Component component, const fmi2ValueReference vr[], size_t nvr,
                             const fmi2String value[])
{
    Instance *c = instance(component, "fmi2SetString");
    if (!c) return fmi2Error;
    if (nvr == 0) return fmi2OK;
    PyGILState_STATE gil_ = PyGILState_Ensure();
    if (check_arrays(c, "fmi2SetString", vr, nvr, value) < 0) LEAVE(fmi2Error);
    PyObject *vrs = vr_list(vr, nvr);
    PyObject *values = vrs ? PyList_New((Py_ssize_t)nvr) : NULL;
    for (size_t i = 0; values && i < nvr; i++) {
        PyObject *v = PyUnicode_DecodeUTF8(value[i] ? value[i] : "",
                                           (Py_ssize_t)strlen(value[i] ? value[i] : ""),
                                           "replace");
        if (!v) {
            Py_CLEAR(values);
            break;
        }
        PyList_SET_ITEM(values, (Py_ssize_t)i, v);
    }
    PyObject *ret = values ? call(c, s_set_string, vrs, values, NULL) : NULL;
    Py_XDECREF(values);
    Py_XDECREF(vrs);
    LEAVE(status_of(c, ret, "fmi2SetString"));
}

/* ------------------------------------------------------------------ FMU state */

static State *state_of(Instance *c, fmi2FMUstate s, const char *function)
{
    State *state = s;
    if (!state || state->magic != STATE_MAGIC) {
        LOG_ERROR(c, "%s: not an FMU state of this FMU", function);
        return NULL;
    }
    return state;
}

static fmi2Status get_fmu_state(fmi2Component component, fmi2FMUstate *FMUstate)
{
    ENTER("fmi2GetFMUstate");
    if (!FMUstate) {
        LOG_ERROR(c, "fmi2GetFMUstate: no place for the state");
        LEAVE(fmi2Error);
    }
    PyObject *object = call(c, s_get_state, NULL, NULL, NULL);
    if (!object) LEAVE(failed(c, "fmi2GetFMUstate"));
    State *state = *FMUstate;
    if (state && state->magic == STATE_MAGIC) {      /* overwrite the given state */
        Py_CLEAR(state->bytes);
        Py_XSETREF(state->object, object);
        LEAVE(fmi2OK);
    }
    state = calloc(1, sizeof *state);
    if (!state) {
        Py_DECREF(object);
        LOG_ERROR(c, "fmi2GetFMUstate: out of memory");
        LEAVE(fmi2Error);
    }
    state->magic = STATE_MAGIC;
    state->object = object;
    *FMUstate = state;
    LEAVE(fmi2OK);
}

static fmi2Status set_fmu_state(fmi2Component component, fmi2FMUstate FMUstate)
{
    ENTER("fmi2SetFMUstate");
    State *state = state_of(c, FMUstate, "fmi2SetFMUstate");
    if (!state) LEAVE(fmi2Error);
    fmi2Status status = status_of(c, call(c, s_set_state, state->object, NULL, NULL),
                                  "fmi2SetFMUstate");
    if (status <= fmi2Warning) c->last_step_status = fmi2OK;
    LEAVE(status);
}

static fmi2Status free_fmu_state(fmi2Component component, fmi2FMUstate *FMUstate)
{
    ENTER("fmi2FreeFMUstate");
    if (!FMUstate || !*FMUstate) LEAVE(fmi2OK);
    State *state = state_of(c, *FMUstate, "fmi2FreeFMUstate");
    if (!state) LEAVE(fmi2Error);
    Py_CLEAR(state->object);
    Py_CLEAR(state->bytes);
    state->magic = 0;
    free(state);
    *FMUstate = NULL;
    LEAVE(fmi2OK);
}

/* The state's serialisation, made once (borrowed), or NULL with the error logged. */
static PyObject *state_bytes(Instance *c, State *state, const char *function)
{
    if (state->bytes) return state->bytes;
    PyObject *ret = call(c, s_state_to_bytes, state->object, NULL, NULL);
    if (!ret) {
        failed(c, function);
        return NULL;
    }
    if (!PyBytes_Check(ret)) {
        PyObject *b = PyBytes_FromObject(ret);
        Py_DECREF(ret);
        if (!b) {
            failed(c, function);
            return NULL;
        }
        ret = b;
    }
    state->bytes = ret;
    return ret;
}

static fmi2Status serialized_fmu_state_size(fmi2Component component, fmi2FMUstate FMUstate,
                                            size_t *size)
{
    ENTER("fmi2SerializedFMUstateSize");
    State *state = state_of(c, FMUstate, "fmi2SerializedFMUstateSize");
    PyObject *bytes = state ? state_bytes(c, state, "fmi2SerializedFMUstateSize") : NULL;
    if (!bytes || !size) LEAVE(fmi2Error);
    *size = (size_t)PyBytes_GET_SIZE(bytes);
    LEAVE(fmi2OK);
}

static fmi2Status serialize_fmu_state(fmi2Component component, fmi2FMUstate FMUstate,
                                      fmi2Byte serializedState[], size_t size)
{
    ENTER("fmi2SerializeFMUstate");
    State *state = state_of(c, FMUstate, "fmi2SerializeFMUstate");
    PyObject *bytes = state ? state_bytes(c, state, "fmi2SerializeFMUstate") : NULL;
    if (!bytes) LEAVE(fmi2Error);
    size_t n = (size_t)PyBytes_GET_SIZE(bytes);
    if (size < n || (n && !serializedState)) {
        LOG_ERROR(c, "fmi2SerializeFMUstate: the state takes %zu bytes, the buffer %zu", n, size);
        LEAVE(fmi2Error);
    }
    if (n) memcpy(serializedState, PyBytes_AS_STRING(bytes), n);
    LEAVE(fmi2OK);
}

static fmi2Status deserialize_fmu_state(fmi2Component component, const fmi2Byte serializedState[],
                                        size_t size, fmi2FMUstate *FMUstate)
{
    ENTER("fmi2DeSerializeFMUstate");
    if (!FMUstate || (size && !serializedState) || size > (size_t)PY_SSIZE_T_MAX) {
        LOG_ERROR(c, "fmi2DeSerializeFMUstate: bad arguments");
        LEAVE(fmi2Error);
    }
    PyObject *bytes = PyBytes_FromStringAndSize(serializedState, (Py_ssize_t)size);
    PyObject *object = bytes ? call(c, s_state_from_bytes, bytes, NULL, NULL) : NULL;
    if (!object) {
        Py_XDECREF(bytes);
        LEAVE(failed(c, "fmi2DeSerializeFMUstate"));
    }
    State *state = calloc(1, sizeof *state);
    if (!state) {
        Py_DECREF(object);
        Py_DECREF(bytes);
        LOG_ERROR(c, "fmi2DeSerializeFMUstate: out of memory");
        LEAVE(fmi2Error);
    }
    state->magic = STATE_MAGIC;
    state->object = object;
    state->bytes = bytes;
    *FMUstate = state;
    LEAVE(fmi2OK);
}

/* ------------------------------------------------------------------ not supported */

static fmi2Status get_directional_derivative(fmi2Component component,
                                             const fmi2ValueReference vUnknown_ref[], size_t nUnknown,
                                             const fmi2ValueReference vKnown_ref[], size_t nKnown,
                                             const fmi2Real dvKnown[], fmi2Real dvUnknown[])
{
    (void)vUnknown_ref; (void)nUnknown; (void)vKnown_ref; (void)nKnown; (void)dvKnown;
    (void)dvUnknown;
    Instance *c = instance(component, "fmi2GetDirectionalDerivative");
    if (!c) return fmi2Error;
    LOG_ERROR(c, "fmi2GetDirectionalDerivative: not supported by this FMU "
              "(providesDirectionalDerivative=\"false\")");
    return fmi2Error;
}

static fmi2Status set_real_input_derivatives(fmi2Component component,
                                             const fmi2ValueReference vr[], size_t nvr,
                                             const fmi2Integer order[], const fmi2Real value[])
{
    (void)vr; (void)order; (void)value;
    Instance *c = instance(component, "fmi2SetRealInputDerivatives");
    if (!c) return fmi2Error;
    if (nvr == 0) return fmi2OK;
    LOG_ERROR(c, "fmi2SetRealInputDerivatives: not supported by this FMU "
              "(canInterpolateInputs=\"false\")");
    return fmi2Error;
}

static fmi2Status get_real_output_derivatives(fmi2Component component,
                                              const fmi2ValueReference vr[], size_t nvr,
                                              const fmi2Integer order[], fmi2Real value[])
{
    (void)vr; (void)order; (void)value;
    Instance *c = instance(component, "fmi2GetRealOutputDerivatives");
    if (!c) return fmi2Error;
    if (nvr == 0) return fmi2OK;
    LOG_ERROR(c, "fmi2GetRealOutputDerivatives: not supported by this FMU "
              "(maxOutputDerivativeOrder=\"0\")");
    return fmi2Error;
}

/* ------------------------------------------------------------------ status */

static fmi2Status get_status(fmi2Component component, const fmi2StatusKind s, fmi2Status *value)
{
    Instance *c = instance(component, "fmi2GetStatus");
    if (!c || !value) return fmi2Error;
    if (s == fmi2DoStepStatus) {
        *value = c->last_step_status;
        return fmi2OK;
    }
    return fmi2Discard;
}

static fmi2Status get_real_status(fmi2Component component, const fmi2StatusKind s, fmi2Real *value)
{
    Instance *c = instance(component, "fmi2GetRealStatus");
    if (!c || !value) return fmi2Error;
    if (s == fmi2LastSuccessfulTime) {
        *value = c->last_successful_time;
        return fmi2OK;
    }
    return fmi2Discard;
}

static fmi2Status get_integer_status(fmi2Component component, const fmi2StatusKind s,
                                     fmi2Integer *value)
{
    (void)s; (void)value;
    return instance(component, "fmi2GetIntegerStatus") ? fmi2Discard : fmi2Error;
}

static fmi2Status get_boolean_status(fmi2Component component, const fmi2StatusKind s,
                                     fmi2Boolean *value)
{
    Instance *c = instance(component, "fmi2GetBooleanStatus");
    if (!c || !value) return fmi2Error;
    if (s == fmi2Terminated) {
        *value = c->last_step_status == fmi2Discard ? fmi2True : fmi2False;
        return fmi2OK;
    }
    return fmi2Discard;
}

static fmi2Status get_string_status(fmi2Component component, const fmi2StatusKind s,
                                    fmi2String *value)
{
    Instance *c = instance(component, "fmi2GetStringStatus");
    if (!c || !value) return fmi2Error;
    if (s == fmi2PendingStatus) *value = "";
    return fmi2Discard;
}

EXPORT const SimonFmi2Table simon_fmi2_table = {
    SIMON_FMI2_TABLE_VERSION,
    start_python,
    set_debug_logging,
    instantiate,
    free_instance,
    setup_experiment,
    enter_initialization_mode,
    exit_initialization_mode,
    terminate,
    reset,
    get_real,
    get_integer,
    get_boolean,
    get_string,
    set_real,
    set_integer,
    set_boolean,
    set_string,
    get_fmu_state,
    set_fmu_state,
    free_fmu_state,
    serialized_fmu_state_size,
    serialize_fmu_state,
    deserialize_fmu_state,
    get_directional_derivative,
    set_real_input_derivatives,
    get_real_output_derivatives,
    do_step,
    cancel_step,
    get_status,
    get_real_status,
    get_integer_status,
    get_boolean_status,
    get_string_status,
};
