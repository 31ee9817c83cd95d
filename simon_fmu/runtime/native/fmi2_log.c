/*
 * simon-fmu's FMI 2.0 implementation: logging.
 *
 * The slave's log() appends LogMsg(status, category, msg) objects to its log_queue list;
 * after every call the queue is passed to the host's logger and emptied. The message is plain
 * text (the library hands it to the logger as the argument of "%s", never as a format).
 * Messages of status fmi2Error and above always reach the logger; others only while logging
 * is on for their category (loggingOn at fmi2Instantiate, fmi2SetDebugLogging; an enabled
 * logAll passes every category). An exception escaping a slave method is logged with its
 * traceback, category logStatusError; one whose class has the attribute fmi2_one_line (the
 * slaves' ResourceError) is logged as its message alone, one line. A call the logger makes
 * back into the instance logs nothing (emit).
 */
#include <stdarg.h>
#include <stdio.h>

#include "fmi2_internal.h"

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

void emit(const Instance *c, fmi2Status status, const char *category, const char *message)
{
    /* a message of a call the host's logger makes back into the instance (from the same
       thread: the instance's lock is recursive) is not passed to the logger: it would call
       back again, without end */
    Instance *self = (Instance *)c;
    if (!c->logger || c->in_logger) return;
    if (status < fmi2Error && !category_on(c, category)) return;
    self->in_logger = 1;
    c->logger(c->env, c->name ? c->name : "", status, category ? category : "logAll", "%s",
              message);
    self->in_logger = 0;
}

void logf_(const Instance *c, fmi2Status status, const char *category, const char *fmt, ...)
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

void drain_log(Instance *c)
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

fmi2Status failed(Instance *c, const char *function)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    if (!type) {
        LOG_ERROR(c, "%s: failed", function);
        return fmi2Error;
    }
    PyErr_NormalizeException(&type, &value, &tb);
    if (value && PyObject_HasAttrString(value, "fmi2_one_line")) {
        /* a problem the slave states in a line of its own (a resource file missing or
         * changed): the line, without a traceback */
        PyObject *line = PyObject_Str(value);
        const char *utf8 = line ? PyUnicode_AsUTF8(line) : NULL;
        PyErr_Clear();
        LOG_ERROR(c, "%s: %s", function, utf8 ? utf8 : "(it cannot be shown)");
        Py_XDECREF(line);
        Py_XDECREF(type);
        Py_DECREF(value);
        Py_XDECREF(tb);
        return fmi2Error;
    }
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

void read_categories(Instance *c)
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

void free_categories(Instance *c)
{
    for (size_t i = 0; i < c->n_categories; i++) free(c->categories[i].name);
    free(c->categories);
    c->categories = NULL;
    c->n_categories = 0;
}

fmi2Status set_debug_logging(fmi2Component component, fmi2Boolean loggingOn,
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
