/*
 * simon-fmu's FMI 2.0 implementation: life cycle.
 *
 * Loaded by the loader (fmi2_loader.c) once a libpython is in the process and the interpreter
 * runs; every function takes the GIL (PyGILState_Ensure/Release) for its Python work, so it
 * serves Python hosts (fmpy, libcosimpy, ecospy) and C hosts alike. Every function of the
 * table on an instance holds that instance's lock (fmi2_registry.c, the serial_* wrappers at
 * the end), so concurrent calls on one instance run one after the other; instances created
 * concurrently wait for the one import of their slave module (LOADER_SOURCE).
 *
 * Instantiation checks the GUID the host passes against resources/guid.txt, which the build
 * writes from the modelDescription: a NULL or wrong GUID, or this library pointed at another
 * FMU's resources, answers NULL with the reason logged.
 *
 * Finding the slave (the layout pythonfmu's builder writes): resources/slavemodule.txt names
 * a module, resources/<module>.py. It is imported from that file (importlib), with the
 * resources folder at the end of sys.path during the import only: the host's sys.path is left
 * as it was found, and a package the host has (pythonfmu) is the host's, the FMU's copy only a
 * fallback. The slave class is the non-abstract class in the module that derives from a class
 * named Fmi2Slave, the one with the longest MRO. It is created as
 * cls(instance_name=..., resources=<folder>, visible=<bool>, fmi2_library="simon-fmu")
 * (without fmi2_library if the class refuses it); fmi2Reset creates a new one the same way.
 *
 * The FMI 2.0 Co-Simulation state machine is the library's, so it holds for every slave:
 * fmi2SetupExperiment and fmi2EnterInitializationMode only after fmi2Instantiate or fmi2Reset
 * (once), fmi2ExitInitializationMode only in initialisation mode, fmi2DoStep only between
 * fmi2ExitInitializationMode and fmi2Terminate. Times must be finite; a step must start at the
 * end of the last one (or the start time, or the time of a state set by fmi2SetFMUstate), have
 * a finite size > 0, and end neither beyond the range of double nor beyond a defined stop
 * time. A call out of order, or with such a time, is fmi2Error with the reason logged, and
 * leaves the instance as it was.
 *
 * fmi2LastSuccessfulTime is the end of the last step answered with fmi2OK or fmi2Warning (the
 * start time before any step): a time the slave has reached. fmi2Terminated is true after a
 * step answered with fmi2Discard. Directional derivatives, input derivatives and asynchronous
 * steps are not supported: fmi2Error.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "fmi2_internal.h"

#define EXPORT __attribute__((visibility("default")))
#define GUID_FILE "guid.txt"

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

/* ------------------------------------------------------------------ instantiation */

/* The slave module `name` from resources/<name>.py (new reference), imported by file location;
 * sys.path is as it was afterwards. Python code, compiled once.
 *
 * The module is in sys.modules while it runs, and its code lets the GIL go (it imports, reads
 * files), so instances created at the same time in other threads wait for the import to end:
 * they would otherwise find the half-run module in sys.modules, without its slave class. The
 * lock they wait on is one for the process, shared by every FMU's library (each FMU has its own
 * copy of this library, and FMUs share the packages their slave modules load), and by
 * simon_fmu/runtime/entry.py, which takes it again (it is reentrant) around each package it
 * loads: the RLock `lock` of the module `_simon_fmu_import` in sys.modules. */
static const char LOADER_SOURCE[] =
    "import sys, threading, types\n"
    "_shared = types.ModuleType('_simon_fmu_import', 'the lock of simon-fmu slave imports')\n"
    "_shared.lock = threading.RLock()\n"
    "lock = sys.modules.setdefault('_simon_fmu_import', _shared).lock\n"
    "def load(name, path, folder):\n"
    "    import importlib.util\n"
    "    with lock:\n"
    "        module = sys.modules.get(name)\n"
    "        if module is not None:\n"
    "            return module\n"
    "        spec = importlib.util.spec_from_file_location(name, path)\n"
    "        if spec is None:\n"
    "            raise ImportError(f'{path} cannot be imported as the module {name}')\n"
    "        module = importlib.util.module_from_spec(spec)\n"
    "        original, saved = sys.path, list(sys.path)\n"
    "        sys.path.append(folder)\n"
    "        sys.modules[name] = module\n"
    "        try:\n"
    "            spec.loader.exec_module(module)\n"
    "        except BaseException:\n"
    "            sys.modules.pop(name, None)\n"
    "            raise\n"
    "        finally:\n"
    "            original[:] = saved\n"
    "            sys.path = original\n"
    "        return module\n";

static PyObject *import_slave_module(Instance *c, const char *name)
{
    static PyObject *load;
    if (!load) {
        PyObject *globals = PyDict_New();
        if (!globals) return NULL;
        if (PyDict_SetItemString(globals, "__builtins__", PyEval_GetBuiltins()) < 0) {
            Py_DECREF(globals);
            return NULL;
        }
        /* running the source may let the GIL go: two threads may both get here, and the
         * first to finish keeps its function (both use the one lock of the process) */
        PyObject *done = PyRun_String(LOADER_SOURCE, Py_file_input, globals, globals);
        Py_XDECREF(done);
        PyObject *made = done ? PyDict_GetItemString(globals, "load") : NULL;
        if (made && !load) load = Py_NewRef(made);
        Py_DECREF(globals);
        if (!load) return NULL;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.py", c->resources, name);
    return PyObject_CallFunction(load, "sO&O&", name, PyUnicode_DecodeFSDefault, path,
                                 PyUnicode_DecodeFSDefault, c->resources);
}

/* The trimmed first line of resources/<file> (malloc'd), or NULL with the reason logged. */
static char *read_resource_line(Instance *c, const char *file, const char *function)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", c->resources, file);
    FILE *f = fopen(path, "r");
    if (!f) {
        LOG_ERROR(c, "%s: %s cannot be read: %s", function, path, strerror(errno));
        return NULL;
    }
    char text[512] = {0};
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    char *start = text;
    while (*start == ' ' || *start == '\t' || *start == '\n' || *start == '\r') start++;
    char *end = start;
    while (*end && *end != '\n' && *end != '\r') end++;
    while (end > start && (end[-1] == ' ' || end[-1] == '\t')) end--;
    *end = 0;
    if (!*start) {
        LOG_ERROR(c, "%s: %s is empty", function, path);
        return NULL;
    }
    return copy_string(start);
}

/* The slave class of the module named in resources/slavemodule.txt (new reference). */
static PyObject *find_slave_class(Instance *c)
{
    char *start = read_resource_line(c, "slavemodule.txt", "fmi2Instantiate");
    if (!start) return NULL;
    PyObject *module = import_slave_module(c, start);
    if (!module) {
        free(start);
        return NULL;
    }
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
        best = NULL;
    }
    Py_XINCREF(best);
    Py_DECREF(module);
    free(start);
    return best;
}

static void forget_slave(Instance *c)
{
    Py_CLEAR(c->log_queue);
    Py_CLEAR(c->slave);
    Py_CLEAR(c->strings);
}

static void fresh_timeline(Instance *c)
{
    memset(&c->timeline, 0, sizeof c->timeline);
    c->timeline.phase = PHASE_INSTANTIATED;
    c->timeline.last_step_status = fmi2OK;
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
    fresh_timeline(c);
    return 0;
}

static void free_instance_memory(Instance *c)
{
    pthread_mutex_destroy(&c->lock);
    free_categories(c);
    free(c->name);
    free(c->resources);
    free(c->guid);
    free(c);
}

/* 0 if fmuGUID is this FMU's (resources/guid.txt), else -1 with the reason logged. */
static int check_guid(Instance *c, const char *guid)
{
    if (!guid) {
        LOG_ERROR(c, "fmi2Instantiate: no GUID (NULL); pass the guid of the FMU's "
                  "modelDescription.xml");
        return -1;
    }
    c->guid = read_resource_line(c, GUID_FILE, "fmi2Instantiate");
    if (!c->guid) return -1;
    if (strcmp(guid, c->guid) != 0) {
        LOG_ERROR(c, "fmi2Instantiate: GUID %s is not this FMU's: its resources (%s) belong to "
                  "the FMU with GUID %s. Pass the guid of the modelDescription.xml next to this "
                  "binary, and that FMU's resources folder", guid, c->resources, c->guid);
        return -1;
    }
    return 0;
}

static fmi2Component instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                                 fmi2String fmuResourceLocation,
                                 const fmi2CallbackFunctions *functions, fmi2Boolean visible,
                                 fmi2Boolean loggingOn)
{
    Instance *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    if (instance_lock_init(c) < 0) {
        free(c);
        return NULL;
    }
    c->name = copy_string(instanceName);
    c->logger = functions ? functions->logger : NULL;
    c->env = functions ? functions->componentEnvironment : NULL;
    c->logging_on = loggingOn != fmi2False;
    fresh_timeline(c);
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
    if (!c->name || !c->resources || check_guid(c, fmuGUID) < 0) {
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
    if (ok && registry_add(c) < 0) {
        LOG_ERROR(c, "fmi2Instantiate: out of memory");
        ok = 0;
    }
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

static int python_usable(void)
{
    return Py_IsInitialized() && !python_is_finalizing();
}

static void free_instance(fmi2Component component)
{
    if (!component) return;     /* FMI 2.0: a NULL component is ignored */
    Instance *c = acquire_instance(component, "fmi2FreeInstance");
    if (!c) return;
    if (c->depth > 1) {
        LOG_ERROR(c, "fmi2FreeInstance refused: it was called during another call on this "
                  "instance (by the logger); the instance stays, free it after that call");
        release_instance(c);
        return;
    }
    retire_begin(c);
    if (python_usable()) {
        PyGILState_STATE gil = PyGILState_Ensure();
        size_t n = release_states(c);
        if (n) LOG_INFO(c, "fmi2FreeInstance: %zu FMU state%s that the host did not free "
                        "released with the instance", n, n == 1 ? "" : "s");
        drain_log(c);
        forget_slave(c);
        Py_CLEAR(c->kwargs);
        Py_CLEAR(c->cls);
        PyGILState_Release(gil);
    }
    retire_finish(c);
    free_instance_memory(c);
}

/* ------------------------------------------------------------------ the state machine */

static const char *const PHASE_NAMES[PHASE_COUNT] = {
    "instantiated (initialisation mode not entered yet)",
    "in initialisation mode",
    "initialised (stepping)",
    "terminated (fmi2Terminate was called; fmi2Reset starts again)",
};

const char *phase_name(uint32_t phase)
{
    return phase < PHASE_COUNT ? PHASE_NAMES[phase] : "in an unknown state";
}

/* 1 if the instance is in `phase`, else 0 with the reason logged. */
static int in_phase(Instance *c, Phase phase, const char *function, const char *rule)
{
    if (c->timeline.phase == phase) return 1;
    LOG_ERROR(c, "%s refused: the instance is %s; %s", function, phase_name(c->timeline.phase),
              rule);
    return 0;
}

/* A tolerance for comparing communication points near t (the slaves use the same). */
static double time_tolerance(double t)
{
    return 1e-9 * fmax(1.0, fabs(t));
}

/* ------------------------------------------------------------------ life cycle */

static fmi2Status setup_experiment(fmi2Component component, fmi2Boolean toleranceDefined,
                                   fmi2Real tolerance, fmi2Real startTime,
                                   fmi2Boolean stopTimeDefined, fmi2Real stopTime)
{
    const char *f = "fmi2SetupExperiment";
    ENTER(f);
    if (!in_phase(c, PHASE_INSTANTIATED, f, "the experiment is set up after fmi2Instantiate "
                  "(or fmi2Reset) and before fmi2EnterInitializationMode"))
        LEAVE(fmi2Error);
    if (!isfinite(startTime)) {
        LOG_ERROR(c, "%s refused: startTime = %g; it accepts a finite time", f, startTime);
        LEAVE(fmi2Error);
    }
    if (stopTimeDefined && !(isfinite(stopTime) && stopTime >= startTime)) {
        LOG_ERROR(c, "%s refused: stopTime = %g; it accepts a finite time >= startTime (%g)",
                  f, stopTime, startTime);
        LEAVE(fmi2Error);
    }
    if (toleranceDefined && !(isfinite(tolerance) && tolerance > 0)) {
        LOG_ERROR(c, "%s refused: tolerance = %g; it accepts a finite value > 0", f, tolerance);
        LEAVE(fmi2Error);
    }
    PyObject *start = PyFloat_FromDouble(startTime);
    PyObject *stop = stopTimeDefined ? PyFloat_FromDouble(stopTime) : Py_NewRef(Py_None);
    PyObject *tol = toleranceDefined ? PyFloat_FromDouble(tolerance) : Py_NewRef(Py_None);
    PyObject *ret = start && stop && tol ? call(c, s_setup_experiment, start, stop, tol) : NULL;
    Py_XDECREF(start);
    Py_XDECREF(stop);
    Py_XDECREF(tol);
    fmi2Status status = status_of(c, ret, f);
    if (status <= fmi2Warning) {
        c->timeline.start_time = c->timeline.time = c->timeline.last_successful_time = startTime;
        c->timeline.stop_time_defined = stopTimeDefined != fmi2False;
        c->timeline.stop_time = stopTimeDefined ? stopTime : 0.0;
    }
    LEAVE(status);
}

/* A call that moves the instance from phase `from` to `to` if the slave's method answers OK or
 * Warning; in another phase it is refused (`rule` says when it is allowed). */
static fmi2Status transition(fmi2Component component, const char *function, PyObject *method,
                             Phase from, Phase to, const char *rule)
{
    ENTER(function);
    if (!in_phase(c, from, function, rule)) LEAVE(fmi2Error);
    fmi2Status status = status_of(c, call(c, method, NULL, NULL, NULL), function);
    if (status <= fmi2Warning) c->timeline.phase = to;
    LEAVE(status);
}

static fmi2Status enter_initialization_mode(fmi2Component component)
{
    return transition(component, "fmi2EnterInitializationMode", s_enter_init,
                      PHASE_INSTANTIATED, PHASE_INITIALIZATION,
                      "initialisation mode is entered once, after fmi2Instantiate or fmi2Reset");
}

static fmi2Status exit_initialization_mode(fmi2Component component)
{
    return transition(component, "fmi2ExitInitializationMode", s_exit_init,
                      PHASE_INITIALIZATION, PHASE_STEPPING,
                      "it ends initialisation mode, which fmi2EnterInitializationMode begins");
}

static fmi2Status terminate(fmi2Component component)
{
    return transition(component, "fmi2Terminate", s_terminate, PHASE_STEPPING,
                      PHASE_TERMINATED,
                      "fmi2Terminate ends the steps after fmi2ExitInitializationMode, once");
}

static fmi2Status reset(fmi2Component component)
{
    ENTER("fmi2Reset");
    if (make_slave(c) < 0) LEAVE(failed(c, "fmi2Reset"));
    LEAVE(fmi2OK);
}

/* 0 if a step from t by h may be taken now, else -1 with the reason logged. */
static int check_step(Instance *c, double t, double h)
{
    const char *f = "fmi2DoStep";
    const Timeline *tl = &c->timeline;
    if (!in_phase(c, PHASE_STEPPING, f, "steps are taken after fmi2ExitInitializationMode and "
                  "before fmi2Terminate"))
        return -1;
    if (!isfinite(t)) {
        LOG_ERROR(c, "%s refused: currentCommunicationPoint = %g; it accepts a finite time", f, t);
        return -1;
    }
    if (!(isfinite(h) && h > 0)) {
        LOG_ERROR(c, "%s refused: communicationStepSize = %g; it accepts a finite value > 0", f,
                  h);
        return -1;
    }
    double end = t + h;
    if (!isfinite(end) || !(end > t)) {
        LOG_ERROR(c, "%s refused: a step of %g s from t=%.17g %s", f, h, t, isfinite(end)
                  ? "does not advance the time (it is below the resolution of t)"
                  : "ends beyond the range of a double");
        return -1;
    }
    if (fabs(t - tl->time) > time_tolerance(tl->time)) {
        LOG_ERROR(c, "%s refused: communication point t=%.17g does not continue the last one, "
                  "t=%.17g (a step starts where the last one ended; fmi2SetFMUstate goes back "
                  "to a saved time)", f, t, tl->time);
        return -1;
    }
    if (tl->stop_time_defined && end > tl->stop_time + time_tolerance(tl->stop_time)) {
        LOG_ERROR(c, "%s refused: the step from t=%.17g to %.17g ends beyond the stop time "
                  "%.17g given to fmi2SetupExperiment", f, t, end, tl->stop_time);
        return -1;
    }
    return 0;
}

static fmi2Status do_step(fmi2Component component, fmi2Real currentCommunicationPoint,
                          fmi2Real communicationStepSize,
                          fmi2Boolean noSetFMUStatePriorToCurrentPoint)
{
    (void)noSetFMUStatePriorToCurrentPoint;
    ENTER("fmi2DoStep");
    if (check_step(c, currentCommunicationPoint, communicationStepSize) < 0) LEAVE(fmi2Error);
    PyObject *t = PyFloat_FromDouble(currentCommunicationPoint);
    PyObject *h = PyFloat_FromDouble(communicationStepSize);
    PyObject *ret = t && h ? call(c, s_do_step, t, h, NULL) : NULL;
    Py_XDECREF(t);
    Py_XDECREF(h);
    fmi2Status status = status_of(c, ret, "fmi2DoStep");
    c->timeline.last_step_status = status;
    if (status <= fmi2Warning) {
        c->timeline.time = currentCommunicationPoint + communicationStepSize;
        c->timeline.last_successful_time = c->timeline.time;
    }
    LEAVE(status);
}

static fmi2Status cancel_step(fmi2Component component)
{
    Instance *c = instance(component, "fmi2CancelStep");
    if (!c) return fmi2Error;
    LOG_ERROR(c, "fmi2CancelStep: this FMU never answers fmi2Pending; there is no step to cancel");
    return fmi2Error;
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
        *value = (fmi2Status)c->timeline.last_step_status;
        return fmi2OK;
    }
    return fmi2Discard;
}

static fmi2Status get_real_status(fmi2Component component, const fmi2StatusKind s, fmi2Real *value)
{
    Instance *c = instance(component, "fmi2GetRealStatus");
    if (!c || !value) return fmi2Error;
    if (s == fmi2LastSuccessfulTime) {
        *value = c->timeline.last_successful_time;
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
        *value = (fmi2Status)c->timeline.last_step_status == fmi2Discard ? fmi2True : fmi2False;
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

/* ------------------------------------------------------------------ one call at a time */

/* serial_<f>: the FMI function f, holding the instance's lock throughout (fmi2_registry.c), so
 * that calls a host makes on one instance from several threads at once run one after the
 * other. fmi2FreeInstance takes the lock itself. */
#define ONE_AT_A_TIME(function, f, params, args)                        \
    static fmi2Status serial_##f params                                 \
    {                                                                   \
        Instance *held = acquire_instance(component, function);         \
        if (!held) return fmi2Error;                                    \
        fmi2Status status = f args;                                     \
        release_instance(held);                                         \
        return status;                                                  \
    }

#define VALUES(function, f, type)                                                   \
    ONE_AT_A_TIME(function, f, (fmi2Component component, const fmi2ValueReference vr[], \
                                size_t nvr, type value[]),                          \
                  (component, vr, nvr, value))

ONE_AT_A_TIME("fmi2SetDebugLogging", set_debug_logging,
              (fmi2Component component, fmi2Boolean loggingOn, size_t nCategories,
               const fmi2String categories[]),
              (component, loggingOn, nCategories, categories))
ONE_AT_A_TIME("fmi2SetupExperiment", setup_experiment,
              (fmi2Component component, fmi2Boolean toleranceDefined, fmi2Real tolerance,
               fmi2Real startTime, fmi2Boolean stopTimeDefined, fmi2Real stopTime),
              (component, toleranceDefined, tolerance, startTime, stopTimeDefined, stopTime))
ONE_AT_A_TIME("fmi2EnterInitializationMode", enter_initialization_mode,
              (fmi2Component component), (component))
ONE_AT_A_TIME("fmi2ExitInitializationMode", exit_initialization_mode,
              (fmi2Component component), (component))
ONE_AT_A_TIME("fmi2Terminate", terminate, (fmi2Component component), (component))
ONE_AT_A_TIME("fmi2Reset", reset, (fmi2Component component), (component))
VALUES("fmi2GetReal", get_real, fmi2Real)
VALUES("fmi2GetInteger", get_integer, fmi2Integer)
VALUES("fmi2GetBoolean", get_boolean, fmi2Boolean)
VALUES("fmi2GetString", get_string, fmi2String)
VALUES("fmi2SetReal", set_real, const fmi2Real)
VALUES("fmi2SetInteger", set_integer, const fmi2Integer)
VALUES("fmi2SetBoolean", set_boolean, const fmi2Boolean)
VALUES("fmi2SetString", set_string, const fmi2String)
ONE_AT_A_TIME("fmi2GetFMUstate", get_fmu_state,
              (fmi2Component component, fmi2FMUstate *FMUstate), (component, FMUstate))
ONE_AT_A_TIME("fmi2SetFMUstate", set_fmu_state,
              (fmi2Component component, fmi2FMUstate FMUstate), (component, FMUstate))
ONE_AT_A_TIME("fmi2FreeFMUstate", free_fmu_state,
              (fmi2Component component, fmi2FMUstate *FMUstate), (component, FMUstate))
ONE_AT_A_TIME("fmi2SerializedFMUstateSize", serialized_fmu_state_size,
              (fmi2Component component, fmi2FMUstate FMUstate, size_t *size),
              (component, FMUstate, size))
ONE_AT_A_TIME("fmi2SerializeFMUstate", serialize_fmu_state,
              (fmi2Component component, fmi2FMUstate FMUstate, fmi2Byte serializedState[],
               size_t size),
              (component, FMUstate, serializedState, size))
ONE_AT_A_TIME("fmi2DeSerializeFMUstate", deserialize_fmu_state,
              (fmi2Component component, const fmi2Byte serializedState[], size_t size,
               fmi2FMUstate *FMUstate),
              (component, serializedState, size, FMUstate))
ONE_AT_A_TIME("fmi2GetDirectionalDerivative", get_directional_derivative,
              (fmi2Component component, const fmi2ValueReference vUnknown_ref[],
               size_t nUnknown, const fmi2ValueReference vKnown_ref[], size_t nKnown,
               const fmi2Real dvKnown[], fmi2Real dvUnknown[]),
              (component, vUnknown_ref, nUnknown, vKnown_ref, nKnown, dvKnown, dvUnknown))
ONE_AT_A_TIME("fmi2SetRealInputDerivatives", set_real_input_derivatives,
              (fmi2Component component, const fmi2ValueReference vr[], size_t nvr,
               const fmi2Integer order[], const fmi2Real value[]),
              (component, vr, nvr, order, value))
ONE_AT_A_TIME("fmi2GetRealOutputDerivatives", get_real_output_derivatives,
              (fmi2Component component, const fmi2ValueReference vr[], size_t nvr,
               const fmi2Integer order[], fmi2Real value[]),
              (component, vr, nvr, order, value))
ONE_AT_A_TIME("fmi2DoStep", do_step,
              (fmi2Component component, fmi2Real currentCommunicationPoint,
               fmi2Real communicationStepSize, fmi2Boolean noSetFMUStatePriorToCurrentPoint),
              (component, currentCommunicationPoint, communicationStepSize,
               noSetFMUStatePriorToCurrentPoint))
ONE_AT_A_TIME("fmi2CancelStep", cancel_step, (fmi2Component component), (component))
ONE_AT_A_TIME("fmi2GetStatus", get_status,
              (fmi2Component component, const fmi2StatusKind s, fmi2Status *value),
              (component, s, value))
ONE_AT_A_TIME("fmi2GetRealStatus", get_real_status,
              (fmi2Component component, const fmi2StatusKind s, fmi2Real *value),
              (component, s, value))
ONE_AT_A_TIME("fmi2GetIntegerStatus", get_integer_status,
              (fmi2Component component, const fmi2StatusKind s, fmi2Integer *value),
              (component, s, value))
ONE_AT_A_TIME("fmi2GetBooleanStatus", get_boolean_status,
              (fmi2Component component, const fmi2StatusKind s, fmi2Boolean *value),
              (component, s, value))
ONE_AT_A_TIME("fmi2GetStringStatus", get_string_status,
              (fmi2Component component, const fmi2StatusKind s, fmi2String *value),
              (component, s, value))

EXPORT const SimonFmi2Table simon_fmi2_table = {
    SIMON_FMI2_TABLE_VERSION,
    start_python,
    serial_set_debug_logging,
    instantiate,
    free_instance,
    serial_setup_experiment,
    serial_enter_initialization_mode,
    serial_exit_initialization_mode,
    serial_terminate,
    serial_reset,
    serial_get_real,
    serial_get_integer,
    serial_get_boolean,
    serial_get_string,
    serial_set_real,
    serial_set_integer,
    serial_set_boolean,
    serial_set_string,
    serial_get_fmu_state,
    serial_set_fmu_state,
    serial_free_fmu_state,
    serial_serialized_fmu_state_size,
    serial_serialize_fmu_state,
    serial_deserialize_fmu_state,
    serial_get_directional_derivative,
    serial_set_real_input_derivatives,
    serial_get_real_output_derivatives,
    serial_do_step,
    serial_cancel_step,
    serial_get_status,
    serial_get_real_status,
    serial_get_integer_status,
    serial_get_boolean_status,
    serial_get_string_status,
};
