/*
 * simon-fmu's FMI 2.0 implementation: fmi2Get/Set Real, Integer, Boolean and String.
 *
 * If the slave has fmi2_get_real(vrs, values) (and _integer, _boolean; fmi2_set_real(vrs,
 * values) and so on), each FMI call is one Python call with two memoryviews over the caller's
 * arrays: vrs of format "I", values of format "d" (Real) or "i" (Integer, Boolean), writable
 * for the getters. They are valid during the call only. Otherwise pythonfmu's get_real(list)
 * -> list and set_real(list, list) are used. Strings always go through get_string(list) ->
 * list of str and set_string(list, list); the strings answered stay valid until the next
 * fmi2GetString of that instance.
 */
#include "fmi2_internal.h"

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

/* slave.method(vrs, values) on memoryviews over the caller's arrays (values writable for a
 * getter): one Python call per FMI call. */
static fmi2Status fast_call(Instance *c, PyObject *method, int kind, const fmi2ValueReference vr[],
                            size_t nvr, void *value, int writable, const char *function)
{
    PyObject *vrs = view(vr, (Py_ssize_t)nvr, sizeof *vr, "I", 0);
    PyObject *values = vrs ? view(value, (Py_ssize_t)nvr, kind == REAL ? sizeof(fmi2Real)
                                  : sizeof(fmi2Integer), kind == REAL ? "d" : "i", writable)
                           : NULL;
    PyObject *ret = values ? call(c, method, vrs, values, NULL) : NULL;
    release(values);
    release(vrs);
    return status_of(c, ret, function);
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
    if (c->fast & (FAST_GET << kind))
        LEAVE(fast_call(c, s_fast_get[kind], kind, vr, nvr, value, 1, function[kind]));
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
    if (c->fast & (FAST_SET << kind))
        LEAVE(fast_call(c, s_fast_set[kind], kind, vr, nvr, (void *)value, 0, function[kind]));
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

fmi2Status get_real(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                           fmi2Real value[])
{
    return get_values(c, REAL, vr, nvr, value);
}

fmi2Status get_integer(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                              fmi2Integer value[])
{
    return get_values(c, INTEGER, vr, nvr, value);
}

fmi2Status get_boolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                              fmi2Boolean value[])
{
    return get_values(c, BOOLEAN, vr, nvr, value);
}

fmi2Status set_real(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                           const fmi2Real value[])
{
    return set_values(c, REAL, vr, nvr, value);
}

fmi2Status set_integer(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                              const fmi2Integer value[])
{
    return set_values(c, INTEGER, vr, nvr, value);
}

fmi2Status set_boolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                              const fmi2Boolean value[])
{
    return set_values(c, BOOLEAN, vr, nvr, value);
}

fmi2Status get_string(fmi2Component component, const fmi2ValueReference vr[], size_t nvr,
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

fmi2Status set_string(fmi2Component component, const fmi2ValueReference vr[], size_t nvr,
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
