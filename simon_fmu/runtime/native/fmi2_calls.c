/*
 * simon-fmu's FMI 2.0 implementation: calling the slave.
 *
 * A slave method's answer is its FMI status: None or True fmi2OK, False fmi2Discard (as
 * pythonfmu reads it), an int 0 OK, 1 Warning, 2 Discard, 3 Error. Any other int is fmi2Error;
 * the slave can never cause fmi2Fatal. An exception escaping it is fmi2Error, its traceback
 * logged (fmi2_log.c).
 */
#include "fmi2_internal.h"

static const char *const FAST_GETTER[] = {"fmi2_get_real", "fmi2_get_integer", "fmi2_get_boolean"};
static const char *const FAST_SETTER[] = {"fmi2_set_real", "fmi2_set_integer", "fmi2_set_boolean"};
static const char *const GETTER[] = {"get_real", "get_integer", "get_boolean"};
static const char *const SETTER[] = {"set_real", "set_integer", "set_boolean"};

PyObject *s_fast_get[3], *s_fast_set[3], *s_get[3], *s_set[3];
PyObject *s_get_string, *s_set_string, *s_setup_experiment, *s_enter_init, *s_exit_init,
    *s_do_step, *s_terminate, *s_get_state, *s_set_state, *s_state_to_bytes,
    *s_state_from_bytes, *s_release, *s_log_queue, *s_log_categories, *s_status, *s_category,
    *s_msg;

int intern_names(void)
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

fmi2Status status_of(Instance *c, PyObject *ret, const char *function)
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

PyObject *call(Instance *c, PyObject *name, PyObject *a, PyObject *b, PyObject *d)
{
    PyObject *args[4] = {c->slave, a, b, d};
    size_t n = d ? 4 : b ? 3 : a ? 2 : 1;
    return PyObject_VectorcallMethod(name, args, n, NULL);
}

char *copy_string(const char *s)
{
    if (!s) s = "";
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}
