/*
 * simon-fmu's FMI 2.0 implementation: FMU states.
 *
 * fmi2GetFMUstate keeps the object the slave's _get_fmu_state() answers, with the library's
 * own time line (state machine phase, current communication point, last successful time);
 * fmi2SetFMUstate hands the object to _set_fmu_state(obj) and, if the slave takes it, puts the
 * time line back. A state belongs to the instance that made it (by fmi2GetFMUstate or
 * fmi2DeSerializeFMUstate); the instance keeps a list of its states, so a pointer that is no
 * state of it is refused without being read, and the states the host never freed are released
 * with the instance.
 *
 * The serialised form (native byte order; FMU states do not travel between platforms):
 *
 *   offset  0  8 bytes   "SIMONFMU"
 *           8  uint32    format version (STATE_VERSION)
 *          12  uint32    length of the GUID
 *          16  uint64    length of the payload
 *          24  uint64    FNV-1a 64 checksum of everything from offset 32 to the end
 *          32  Timeline  the library's time line (48 bytes)
 *          80  the GUID of the FMU the state belongs to (no terminating zero)
 *     80 + g   the payload: what the slave's _fmu_state_to_bytes(obj) answered
 *
 * fmi2DeSerializeFMUstate checks all of it (size, mark, version, lengths, checksum, GUID, the
 * time line) before the slave's _fmu_state_from_bytes(payload) sees the payload, and refuses a
 * state that fails with fmi2Error and a message saying why. A refused state never reaches the
 * instance, so it cannot harm it.
 */
#include <math.h>

#include "fmi2_internal.h"

#define STATE_MARK "SIMONFMU"
#define STATE_VERSION 1u

typedef struct {
    char mark[8];
    uint32_t version;
    uint32_t guid_length;
    uint64_t payload_length;
    uint64_t checksum;
    Timeline timeline;
} Header;

#define CHECKED_FROM offsetof(Header, timeline)
_Static_assert(sizeof(Timeline) == 48, "the serialised time line is 48 bytes");
_Static_assert(sizeof(Header) == 80, "the serialised header is 80 bytes");
_Static_assert(offsetof(Header, timeline) == 32, "the time line starts at offset 32");

struct State {
    PyObject *object;   /* what _get_fmu_state answered, or _fmu_state_from_bytes */
    PyObject *bytes;    /* its serialisation (header and payload), once asked for */
    Timeline timeline;
};

static uint64_t fnv1a(const unsigned char *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* ------------------------------------------------------------------ the instance's states */

static long find(const Instance *c, fmi2FMUstate s)
{
    for (size_t i = 0; i < c->n_states; i++)
        if (c->states[i] == s) return (long)i;
    return -1;
}

static State *state_of(Instance *c, fmi2FMUstate s, const char *function)
{
    long i = s ? find(c, s) : -1;
    if (i < 0) {
        LOG_ERROR(c, "%s: %p is no FMU state of this instance (freed already, never made, or "
                  "made by another instance)", function, s);
        return NULL;
    }
    return c->states[i];
}

static State *new_state(Instance *c, PyObject *object, PyObject *bytes, const Timeline *timeline,
                        const char *function)
{
    if (c->n_states == c->states_capacity) {
        size_t more = c->states_capacity ? 2 * c->states_capacity : 16;
        State **grown = realloc(c->states, more * sizeof *grown);
        if (!grown) {
            LOG_ERROR(c, "%s: out of memory", function);
            return NULL;
        }
        c->states = grown;
        c->states_capacity = more;
    }
    State *state = calloc(1, sizeof *state);
    if (!state) {
        LOG_ERROR(c, "%s: out of memory", function);
        return NULL;
    }
    state->object = object;
    state->bytes = bytes;
    state->timeline = *timeline;
    c->states[c->n_states++] = state;
    return state;
}

static void destroy(State *state)
{
    Py_CLEAR(state->object);
    Py_CLEAR(state->bytes);
    free(state);
}

size_t release_states(Instance *c)
{
    size_t n = c->n_states;
    for (size_t i = 0; i < n; i++) destroy(c->states[i]);
    free(c->states);
    c->states = NULL;
    c->n_states = c->states_capacity = 0;
    return n;
}

/* ------------------------------------------------------------------ get, set, free */

fmi2Status get_fmu_state(fmi2Component component, fmi2FMUstate *FMUstate)
{
    ENTER("fmi2GetFMUstate");
    if (!FMUstate) {
        LOG_ERROR(c, "fmi2GetFMUstate: no place for the state (NULL)");
        LEAVE(fmi2Error);
    }
    PyObject *object = call(c, s_get_state, NULL, NULL, NULL);
    if (!object) LEAVE(failed(c, "fmi2GetFMUstate"));
    long i = *FMUstate ? find(c, *FMUstate) : -1;
    if (i >= 0) {                                   /* overwrite the given state */
        State *state = c->states[i];
        Py_CLEAR(state->bytes);
        Py_XSETREF(state->object, object);
        state->timeline = c->timeline;
        LEAVE(fmi2OK);
    }
    State *state = new_state(c, object, NULL, &c->timeline, "fmi2GetFMUstate");
    if (!state) {
        Py_DECREF(object);
        LEAVE(fmi2Error);
    }
    *FMUstate = state;
    LEAVE(fmi2OK);
}

fmi2Status set_fmu_state(fmi2Component component, fmi2FMUstate FMUstate)
{
    ENTER("fmi2SetFMUstate");
    State *state = state_of(c, FMUstate, "fmi2SetFMUstate");
    if (!state) LEAVE(fmi2Error);
    fmi2Status status = status_of(c, call(c, s_set_state, state->object, NULL, NULL),
                                  "fmi2SetFMUstate");
    if (status <= fmi2Warning) c->timeline = state->timeline;
    LEAVE(status);
}

fmi2Status free_fmu_state(fmi2Component component, fmi2FMUstate *FMUstate)
{
    ENTER("fmi2FreeFMUstate");
    if (!FMUstate || !*FMUstate) LEAVE(fmi2OK);
    long i = find(c, *FMUstate);
    if (i < 0) {
        state_of(c, *FMUstate, "fmi2FreeFMUstate");   /* logs why */
        LEAVE(fmi2Error);
    }
    destroy(c->states[i]);
    c->states[i] = c->states[--c->n_states];
    *FMUstate = NULL;
    LEAVE(fmi2OK);
}

/* ------------------------------------------------------------------ serialised form */

/* The state's serialisation, made once (borrowed), or NULL with the error logged. */
static PyObject *state_bytes(Instance *c, State *state, const char *function)
{
    if (state->bytes) return state->bytes;
    PyObject *ret = call(c, s_state_to_bytes, state->object, NULL, NULL);
    if (!ret) {
        failed(c, function);
        return NULL;
    }
    Py_buffer payload;
    if (PyObject_GetBuffer(ret, &payload, PyBUF_SIMPLE) < 0) {
        Py_DECREF(ret);
        failed(c, function);
        return NULL;
    }
    size_t guid_length = strlen(c->guid);
    size_t total = sizeof(Header) + guid_length + (size_t)payload.len;
    PyObject *bytes = total <= (size_t)PY_SSIZE_T_MAX
        ? PyBytes_FromStringAndSize(NULL, (Py_ssize_t)total) : NULL;
    if (bytes) {
        unsigned char *out = (unsigned char *)PyBytes_AS_STRING(bytes);
        Header h;
        memset(&h, 0, sizeof h);
        memcpy(h.mark, STATE_MARK, sizeof h.mark);
        h.version = STATE_VERSION;
        h.guid_length = (uint32_t)guid_length;
        h.payload_length = (uint64_t)payload.len;
        h.timeline = state->timeline;
        memcpy(out, &h, sizeof h);
        memcpy(out + sizeof h, c->guid, guid_length);
        memcpy(out + sizeof h + guid_length, payload.buf, (size_t)payload.len);
        h.checksum = fnv1a(out + CHECKED_FROM, total - CHECKED_FROM);
        memcpy(out + offsetof(Header, checksum), &h.checksum, sizeof h.checksum);
    }
    PyBuffer_Release(&payload);
    Py_DECREF(ret);
    if (!bytes) {
        failed(c, function);
        return NULL;
    }
    state->bytes = bytes;
    return bytes;
}

fmi2Status serialized_fmu_state_size(fmi2Component component, fmi2FMUstate FMUstate,
                                     size_t *size)
{
    ENTER("fmi2SerializedFMUstateSize");
    if (!size) {
        LOG_ERROR(c, "fmi2SerializedFMUstateSize: no place for the size (NULL)");
        LEAVE(fmi2Error);
    }
    State *state = state_of(c, FMUstate, "fmi2SerializedFMUstateSize");
    PyObject *bytes = state ? state_bytes(c, state, "fmi2SerializedFMUstateSize") : NULL;
    if (!bytes) LEAVE(fmi2Error);
    *size = (size_t)PyBytes_GET_SIZE(bytes);
    LEAVE(fmi2OK);
}

fmi2Status serialize_fmu_state(fmi2Component component, fmi2FMUstate FMUstate,
                               fmi2Byte serializedState[], size_t size)
{
    ENTER("fmi2SerializeFMUstate");
    State *state = state_of(c, FMUstate, "fmi2SerializeFMUstate");
    PyObject *bytes = state ? state_bytes(c, state, "fmi2SerializeFMUstate") : NULL;
    if (!bytes) LEAVE(fmi2Error);
    size_t n = (size_t)PyBytes_GET_SIZE(bytes);
    if (size < n || !serializedState) {
        LOG_ERROR(c, "fmi2SerializeFMUstate: the state takes %zu bytes, the buffer %zu%s", n,
                  size, serializedState ? "" : " (NULL)");
        LEAVE(fmi2Error);
    }
    memcpy(serializedState, PyBytes_AS_STRING(bytes), n);
    LEAVE(fmi2OK);
}

/* 0 if `data` is a serialised state of this FMU (its header in h), else -1, logged why. */
static int check_serialized(Instance *c, const unsigned char *data, size_t size, Header *h)
{
    const char *f = "fmi2DeSerializeFMUstate";
    if (size < sizeof *h) {
        LOG_ERROR(c, "%s: %zu bytes are no serialised FMU state of this FMU (one has at least "
                  "%zu)", f, size, sizeof *h);
        return -1;
    }
    memcpy(h, data, sizeof *h);
    if (memcmp(h->mark, STATE_MARK, sizeof h->mark) != 0) {
        LOG_ERROR(c, "%s: the bytes do not start with the mark %s of a serialised simon-fmu "
                  "FMU state", f, STATE_MARK);
        return -1;
    }
    if (h->version != STATE_VERSION) {
        LOG_ERROR(c, "%s: the state has format version %u; this FMU reads version %u", f,
                  (unsigned)h->version, STATE_VERSION);
        return -1;
    }
    uint64_t expected = (uint64_t)sizeof *h + h->guid_length + h->payload_length;
    if (h->payload_length > (uint64_t)SIZE_MAX || expected != (uint64_t)size) {
        LOG_ERROR(c, "%s: the state's header announces %llu bytes, %zu were given (truncated "
                  "or damaged)", f, (unsigned long long)expected, size);
        return -1;
    }
    uint64_t sum = fnv1a(data + CHECKED_FROM, size - CHECKED_FROM);
    if (sum != h->checksum) {
        LOG_ERROR(c, "%s: the state's checksum does not match its contents (damaged)", f);
        return -1;
    }
    size_t guid_length = strlen(c->guid);
    if (h->guid_length != guid_length
            || memcmp(data + sizeof *h, c->guid, guid_length) != 0) {
        int n = h->guid_length > 200 ? 200 : (int)h->guid_length;
        LOG_ERROR(c, "%s: the state belongs to the FMU with GUID %.*s, not to this one (%s)", f,
                  n, (const char *)data + sizeof *h, c->guid);
        return -1;
    }
    const Timeline *t = &h->timeline;
    if (t->phase >= PHASE_COUNT || t->last_step_status > fmi2Error || !isfinite(t->start_time)
            || !isfinite(t->time) || !isfinite(t->last_successful_time)
            || !isfinite(t->stop_time) || t->stop_time_defined > 1) {
        LOG_ERROR(c, "%s: the state's time line is not valid", f);
        return -1;
    }
    return 0;
}

fmi2Status deserialize_fmu_state(fmi2Component component, const fmi2Byte serializedState[],
                                 size_t size, fmi2FMUstate *FMUstate)
{
    ENTER("fmi2DeSerializeFMUstate");
    if (!FMUstate || (size && !serializedState) || size > (size_t)PY_SSIZE_T_MAX) {
        LOG_ERROR(c, "fmi2DeSerializeFMUstate: %s", !FMUstate ? "no place for the state (NULL)"
                  : size && !serializedState ? "no bytes (NULL)" : "too many bytes");
        LEAVE(fmi2Error);
    }
    Header h;
    const unsigned char *data = (const unsigned char *)serializedState;
    if (check_serialized(c, data, size, &h) < 0) LEAVE(fmi2Error);
    PyObject *bytes = PyBytes_FromStringAndSize(serializedState, (Py_ssize_t)size);
    size_t offset = sizeof h + h.guid_length;
    PyObject *payload = bytes ? PyBytes_FromStringAndSize(serializedState + offset,
                                                          (Py_ssize_t)(size - offset)) : NULL;
    PyObject *object = payload ? call(c, s_state_from_bytes, payload, NULL, NULL) : NULL;
    Py_XDECREF(payload);
    if (!object) {
        Py_XDECREF(bytes);
        LEAVE(failed(c, "fmi2DeSerializeFMUstate"));
    }
    State *state = new_state(c, object, bytes, &h.timeline, "fmi2DeSerializeFMUstate");
    if (!state) {
        Py_DECREF(object);
        Py_DECREF(bytes);
        LEAVE(fmi2Error);
    }
    *FMUstate = state;
    LEAVE(fmi2OK);
}
