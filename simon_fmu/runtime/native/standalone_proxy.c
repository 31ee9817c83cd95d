/*
 * simon-fmu standalone FMUs: binaries/linux64/<modelIdentifier>.so, the part the host loads.
 *
 * It exports the FMI 2.0 Co-Simulation functions and loads nothing but the C library: no
 * libpython, no Python extension, nothing of the host's environment. fmi2Instantiate starts the
 * FMU's worker process, resources/standalone/bin/simon-fmu-worker (standalone_worker.c), which
 * runs the FMU's own Python (resources/standalone/python) and the project's FMI implementation
 * (resources/standalone/lib/fmi2_python.so); every FMI call of the instance is forwarded to it
 * through a shared-memory channel (standalone_channel.h), and the worker's log messages are
 * passed to the host's logger, in order, before the call returns. One worker per instance:
 * instances share nothing, and a crash of the engine ends the worker, not the host (the
 * instance then answers fmi2Error, and fmi2FreeInstance still works). A worker that is stopped
 * (or a zombie) for longer than SIMON_FMU_STOPPED_S seconds (default 60; 0 or off: never) is
 * given up on the same way; a worker that computes, however long, is never. A call's messages
 * reach the host's logger once the call has ended, so the logger may call the instance.
 *
 * The worker gets an environment of its own: HOME, USER, LOGNAME, TMPDIR, XDG_CACHE_HOME,
 * SIMON_FMU_CACHE and SIMON_FMU_SPIN_US of the host, nothing else (no PYTHON*, LD_*, NUMBA_*).
 * See docs/standalone.md.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "fmi2Functions.h"
#include "fmi2_python.h"        /* simon_uri_to_path */
#include "standalone_channel.h"

#define PROXY_MAGIC 0x50524f58u
#define ELF_INTERPRETER "/lib64/ld-linux-x86-64.so.2"

extern char **environ;

typedef struct Proxy {
    uint32_t magic;
    struct Proxy *next;
    Channel *ch;
    pid_t pid;
    int dead;        /* the worker has ended */
    int reaped;
    int wait_status;
    uint64_t spin_ns;
    char *name;
    fmi2CallbackFunctions functions;
    char *strings;   /* the last fmi2GetString answers */
    size_t strings_size;
    fmi2String *string_values;
    size_t n_string_values;
    char *status_string;
    fmi2ValueReference *inputs;   /* the Real inputs, sorted (deferrable fmi2SetReal) */
    size_t n_inputs;
    int stepping;    /* between fmi2ExitInitializationMode and fmi2Terminate/fmi2Reset */
    int last_ok;     /* the last call answered fmi2OK */
    char *log;       /* the messages of the call in progress, LogRecords as in Channel.log */
    size_t log_used, log_capacity;
    int depth;       /* how many of this instance's calls are passing messages to the logger */
    int hung;        /* the worker stopped answering (stopped or a zombie past the bound) */
    char stopped;    /* the state /proc gave for it, and since when (channel_now_ns) */
    uint64_t stopped_since;
    uint64_t stopped_bound_ns;
} Proxy;

static Proxy *live;
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;

static void say(const fmi2CallbackFunctions *functions, const char *name, fmi2Status status,
                const char *category, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static void say(const fmi2CallbackFunctions *functions, const char *name, fmi2Status status,
                const char *category, const char *fmt, ...)
{
    char message[8192];
    va_list args;
    va_start(args, fmt);
    vsnprintf(message, sizeof message, fmt, args);
    va_end(args);
    if (functions && functions->logger)
        functions->logger(functions->componentEnvironment, name ? name : "", status, category,
                          "%s", message);
    else
        fprintf(stderr, "%s: %s\n", name && *name ? name : "FMU", message);
}

/* Keep a message for the host's logger: it is passed on when the call ends (finish), after the
 * call's results are out of the channel. Without a logger there is no one to tell. */
static void keep(Proxy *p, fmi2Status status, const char *category, const char *message)
{
    if (!p->functions.logger) return;
    size_t nc = strlen(category) + 1, nm = strlen(message) + 1;
    size_t need = channel_align(sizeof(LogRecord) + nc + nm);
    if (p->log_used + need > p->log_capacity) {
        size_t capacity = p->log_capacity ? p->log_capacity : 4096;
        while (capacity < p->log_used + need) capacity *= 2;
        char *bigger = realloc(p->log, capacity);
        if (!bigger) {
            fprintf(stderr, "%s: %s\n", p->name && *p->name ? p->name : "FMU", message);
            return;
        }
        p->log = bigger;
        p->log_capacity = capacity;
    }
    LogRecord record = {(int32_t)status, (uint32_t)nc, (uint32_t)nm};
    char *at = p->log + p->log_used;
    memcpy(at, &record, sizeof record);
    memcpy(at + sizeof record, category, nc);
    memcpy(at + sizeof record + nc, message, nm);
    p->log_used += need;
}

static void report(Proxy *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void report(Proxy *p, const char *fmt, ...)
{
    char message[8192];
    va_list args;
    va_start(args, fmt);
    vsnprintf(message, sizeof message, fmt, args);
    va_end(args);
    if (p->functions.logger) keep(p, fmi2Error, "logStatusError", message);
    else fprintf(stderr, "%s: %s\n", p->name && *p->name ? p->name : "FMU", message);
}

#define REPORT(p, ...) report((p), __VA_ARGS__)

/* Take the worker's messages out of the channel (they are passed on by finish). */
static void take_log(Proxy *p)
{
    Channel *ch = p->ch;
    size_t at = 0;
    for (uint32_t i = 0; i < ch->log_count && at + sizeof(LogRecord) <= ch->log_used; i++) {
        LogRecord record;
        memcpy(&record, ch->log + at, sizeof record);
        const char *category = ch->log + at + sizeof record;
        const char *message = category + record.category_length;
        keep(p, (fmi2Status)record.status, category, message);
        at += channel_align(sizeof record + record.category_length + record.message_length);
    }
    ch->log_count = 0;
    ch->log_used = 0;
}

/* How deep calls made from inside the host's logger may nest: deeper ones are refused. */
#define MAX_DEPTH 4

/* The end of every FMI call of an instance: its messages go to the host's logger, each once,
 * in order, and `status` is answered whatever the logger does. The messages are taken out of
 * the instance first, and the call's results are already out of the channel, so a logger that
 * calls the instance again (to read a value for its log line) is served as any call is, gets
 * that call's own messages, and changes nothing of this one's. */
static fmi2Status finish(Proxy *p, fmi2Status status)
{
    if (!p->log_used) return status;
    char *log = p->log;
    size_t used = p->log_used, capacity = p->log_capacity;
    p->log = NULL;
    p->log_used = p->log_capacity = 0;
    int last_ok = p->last_ok;
    p->depth++;
    for (size_t at = 0; at + sizeof(LogRecord) <= used;) {
        LogRecord record;
        memcpy(&record, log + at, sizeof record);
        const char *category = log + at + sizeof record;
        const char *message = category + record.category_length;
        if (p->functions.logger)
            p->functions.logger(p->functions.componentEnvironment, p->name,
                                (fmi2Status)record.status, category, "%s", message);
        at += channel_align(sizeof record + record.category_length + record.message_length);
    }
    p->depth--;
    p->last_ok = last_ok;
    if (!p->log) {   /* the buffer serves the next call */
        p->log = log;
        p->log_capacity = capacity;
    } else {
        free(log);
    }
    return status;
}

static Proxy *lookup(fmi2Component component, const char *function)
{
    pthread_mutex_lock(&live_lock);
    Proxy *p = live;
    while (p && p != (Proxy *)component) p = p->next;
    pthread_mutex_unlock(&live_lock);
    if (!p || p->magic != PROXY_MAGIC) {
        fprintf(stderr, "%s: %p is not a live instance of this FMU\n", function, component);
        return NULL;
    }
    return p;
}

/* The worker's state letter in /proc/<pid>/stat (R, S, D, T, t, Z, ...), or 0. */
static char worker_state(pid_t pid)
{
    char path[64], text[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0) return 0;
    text[n] = 0;
    const char *paren = strrchr(text, ')');   /* the command name may hold spaces */
    return paren && paren[1] == ' ' ? paren[2] : 0;
}

static int not_running(char state)
{
    return state == 'T' || state == 't' || state == 'Z' || state == 'X';
}

static int worker_alive(void *arg)
{
    Proxy *p = arg;
    if (p->reaped) return 0;
    int status;
    pid_t r = waitpid(p->pid, &status, WNOHANG);
    if (r == p->pid) {
        p->reaped = 1;
        p->wait_status = status;
        return 0;
    }
    if (r != 0 && kill(p->pid, 0) != 0) return 0;   /* reaped by the host itself: gone */
    /* alive, but a worker that is stopped (SIGSTOP, a tracer) or a zombie answers nothing:
     * past the bound (SIMON_FMU_STOPPED_S) the call ends */
    char state = p->stopped_bound_ns ? worker_state(p->pid) : 0;
    if (!not_running(state)) {
        p->stopped = 0;
        return 1;
    }
    uint64_t now = channel_now_ns();
    if (p->stopped != state) {
        p->stopped = state;
        p->stopped_since = now;
    }
    if (now - p->stopped_since < p->stopped_bound_ns) return 1;
    p->hung = 1;
    return 0;
}

static void report_end(Proxy *p, const char *function)
{
    if (p->hung) {
        REPORT(p, "%s: the FMU's worker process (pid %d) does not answer: it has been in state "
               "%c (%s) for more than %.3g s (SIMON_FMU_STOPPED_S); this instance can only be "
               "freed", function, (int)p->pid, p->stopped,
               p->stopped == 'Z' || p->stopped == 'X' ? "a zombie"
               : p->stopped == 't' ? "stopped by a tracer" : "stopped",
               (double)p->stopped_bound_ns * 1e-9);
        return;
    }
    char how[128] = "";
    if (p->reaped && WIFEXITED(p->wait_status))
        snprintf(how, sizeof how, " with exit status %d", WEXITSTATUS(p->wait_status));
    else if (p->reaped && WIFSIGNALED(p->wait_status))
        snprintf(how, sizeof how, " by signal %d (%s)", WTERMSIG(p->wait_status),
                 strsignal(WTERMSIG(p->wait_status)));
    p->ch->error[sizeof p->ch->error - 1] = 0;
    REPORT(p, "%s: the FMU's worker process (pid %d) ended%s%s%s; this instance can only be "
           "freed", function, (int)p->pid, how, p->ch->error[0] ? ": " : "", p->ch->error);
}

/* Send the request in the channel and wait for its reply; the worker's status. Its messages
 * are kept for finish. */
static fmi2Status call(Proxy *p, Op op, const char *function)
{
    if (p->dead) {
        REPORT(p, "%s: the FMU's worker process (pid %d) %s; this instance can only be freed",
               function, (int)p->pid, p->hung ? "does not answer" : "has ended");
        return fmi2Error;
    }
    Channel *ch = p->ch;
    ch->op = op;
    ch->reply = REPLY_DONE;
    ch->status = fmi2Error;
    ch->prefetch_valid = 0;
    channel_hand(ch, TURN_WORKER);
    for (;;) {
        if (channel_wait(ch, TURN_HOST, SIDE_HOST, p->spin_ns, worker_alive, p) != 0) {
            p->dead = 1;
            p->last_ok = 0;
            report_end(p, function);
            return fmi2Error;
        }
        take_log(p);
        if (ch->reply != REPLY_LOG) {
            p->last_ok = ch->status == fmi2OK;
            return (fmi2Status)ch->status;
        }
        channel_hand(ch, TURN_WORKER);
    }
}

static int compare_vr(const void *a, const void *b)
{
    fmi2ValueReference x = *(const fmi2ValueReference *)a, y = *(const fmi2ValueReference *)b;
    return x < y ? -1 : x > y;
}

/* The value references of the Real inputs, from modelDescription.xml beside the resources
 * folder (the project's own writer: one ScalarVariable element per variable, its type element
 * first inside). None found: nothing is deferred. */
static void read_inputs(Proxy *p, const char *resources)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/../modelDescription.xml", resources);
    FILE *f = fopen(path, "rb");
    if (!f) return;
    size_t cap = 1 << 20, len = 0;
    char *text = malloc(cap + 1);
    for (size_t got; text && (got = fread(text + len, 1, cap - len, f)) > 0;) {
        len += got;
        if (len == cap) {
            char *bigger = realloc(text, 2 * cap + 1);
            if (!bigger) break;
            text = bigger;
            cap *= 2;
        }
    }
    fclose(f);
    if (!text) return;
    text[len] = 0;
    size_t n = 0, room = 0;
    for (char *at = strstr(text, "<ScalarVariable"); at; at = strstr(at + 1, "<ScalarVariable")) {
        char *end = strchr(at, '>');
        if (!end) break;
        *end = 0;
        char *vr = strstr(at, " valueReference=\"");
        int input = strstr(at, " causality=\"input\"") != NULL;
        *end = '>';
        const char *next = end + 1;
        while (*next == ' ' || *next == '\n' || *next == '\r' || *next == '\t') next++;
        if (!vr || !input || strncmp(next, "<Real", 5) != 0) continue;
        if (n == room) {
            room = room ? 2 * room : 64;
            fmi2ValueReference *more = realloc(p->inputs, room * sizeof *more);
            if (!more) break;
            p->inputs = more;
        }
        p->inputs[n++] = (fmi2ValueReference)strtoul(vr + 17, NULL, 10);
    }
    free(text);
    p->n_inputs = n;
    if (n) qsort(p->inputs, n, sizeof *p->inputs, compare_vr);
}

static int all_inputs(const Proxy *p, const fmi2ValueReference vr[], size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!bsearch(&vr[i], p->inputs, p->n_inputs, sizeof *p->inputs, compare_vr)) return 0;
    return 1;
}

static int fits(Proxy *p, size_t bytes, const char *function)
{
    if (bytes <= CHANNEL_DATA_BYTES) return 1;
    REPORT(p, "%s: %zu bytes of arguments exceed the FMU's channel (%u bytes)", function, bytes,
           CHANNEL_DATA_BYTES);
    return 0;
}

/* Strings packed one after the other, NUL-terminated, from data + at; the new end or 0. */
static size_t pack_strings(Channel *ch, size_t at, const fmi2String strings[], size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *s = strings[i] ? strings[i] : "";
        size_t len = strlen(s) + 1;
        if (at + len > CHANNEL_DATA_BYTES) return 0;
        memcpy(ch->data + at, s, len);
        at += len;
    }
    return at;
}

/* ------------------------------------------------------------------ starting the worker */

static int own_folder(char *path, size_t size)
{
    Dl_info info;
    if (!dladdr((void *)&fmi2Instantiate, &info) || !info.dli_fname) return -1;
    if (!realpath(info.dli_fname, path)) snprintf(path, size, "%s", info.dli_fname);
    char *slash = strrchr(path, '/');
    if (!slash) return -1;
    *slash = 0;
    return 0;
}

/* The worker executable: <resources>/standalone/bin/..., else beside the library's FMU. */
static int find_worker(const char *resources, char *worker, size_t size)
{
    snprintf(worker, size, "%s/%s", resources, WORKER_PATH);
    if (access(worker, R_OK) == 0) return 0;
    char folder[PATH_MAX];
    if (own_folder(folder, sizeof folder) == 0) {
        snprintf(worker, size, "%s/../../resources/%s", folder, WORKER_PATH);
        if (access(worker, R_OK) == 0) return 0;
    }
    snprintf(worker, size, "%s/%s", resources, WORKER_PATH);
    return -1;
}

static const char *const PASSED_ON[] = {"HOME", "USER", "LOGNAME", "TMPDIR", "XDG_CACHE_HOME",
                                        "SIMON_FMU_CACHE", "SIMON_FMU_SPIN_US", NULL};

static pid_t spawn_worker(const char *worker, int fd, char *error, size_t size)
{
    char fd_text[16], pid_text[24];
    snprintf(fd_text, sizeof fd_text, "%d", 3);
    snprintf(pid_text, sizeof pid_text, "%d", (int)getpid());
    /* an extractor that drops file modes (Python's zipfile does) leaves the worker without
     * its execute bit; then it is run through the ELF interpreter, which needs read access */
    int direct = access(worker, X_OK) == 0;
    char *argv[8];
    int argc = 0;
    if (!direct) argv[argc++] = (char *)ELF_INTERPRETER;
    argv[argc++] = (char *)worker;
    argv[argc++] = (char *)"--serve";
    argv[argc++] = fd_text;
    argv[argc++] = pid_text;
    argv[argc] = NULL;

    char *env[16];
    int envc = 0;
    for (int i = 0; PASSED_ON[i]; i++) {
        const char *name = PASSED_ON[i];
        size_t len = strlen(name);
        for (char **e = environ; e && *e; e++)
            if (strncmp(*e, name, len) == 0 && (*e)[len] == '=') {
                env[envc++] = *e;
                break;
            }
    }
    env[envc] = NULL;

    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fd, 3);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawnattr_init(&attr);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    pid_t pid = 0;
    int rc = posix_spawn(&pid, argv[0], &actions, &attr, argv, env);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) {
        snprintf(error, size, "the FMU's worker %s cannot be started: %s", worker, strerror(rc));
        return -1;
    }
    return pid;
}

static uint64_t spin_ns(void)
{
    const char *text = getenv("SIMON_FMU_SPIN_US");
    long us = text && *text ? strtol(text, NULL, 10) : DEFAULT_SPIN_US;
    return us < 0 ? 0 : (uint64_t)us * 1000u;
}

/* SIMON_FMU_STOPPED_S: how long a worker may stay stopped or a zombie before a call gives it
 * up (default DEFAULT_STOPPED_S; 0 or off: never). */
#define DEFAULT_STOPPED_S 60.0

static uint64_t stopped_bound_ns(void)
{
    const char *text = getenv("SIMON_FMU_STOPPED_S");
    if (!text || !*text) return (uint64_t)(DEFAULT_STOPPED_S * 1e9);
    if (strcmp(text, "off") == 0) return 0;
    char *end;
    double s = strtod(text, &end);
    if (end == text || !(s >= 0) || s > 1e9) return (uint64_t)(DEFAULT_STOPPED_S * 1e9);
    return (uint64_t)(s * 1e9);
}

static void destroy(Proxy *p)
{
    if (p->pid > 0 && !p->reaped) {
        /* a worker that does not answer is ended (SIGKILL ends a stopped process too) */
        if (p->hung || (!p->dead && worker_alive(p))) kill(p->pid, SIGKILL);
        if (!p->reaped) waitpid(p->pid, NULL, 0);
    }
    if (p->ch) munmap(p->ch, sizeof(Channel));
    free(p->name);
    free(p->strings);
    free(p->string_values);
    free(p->status_string);
    free(p->inputs);
    free(p->log);
    p->magic = 0;
    free(p);
}

/* ------------------------------------------------------------------ FMI: instances */

fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                              fmi2String fmuResourceLocation,
                              const fmi2CallbackFunctions *functions, fmi2Boolean visible,
                              fmi2Boolean loggingOn)
{
    const char *name = instanceName ? instanceName : "";
    char resources[PATH_MAX], worker[PATH_MAX + 64], error[PATH_MAX + 256];
    if (simon_uri_to_path(fmuResourceLocation, resources, sizeof resources) != 0) {
        say(functions, name, fmi2Error, "logStatusError", "fmi2Instantiate: the resource "
            "location %s is no local file URI", fmuResourceLocation ? fmuResourceLocation : "(none)");
        return NULL;
    }
    if (find_worker(resources, worker, sizeof worker) != 0) {
        say(functions, name, fmi2Error, "logStatusError", "fmi2Instantiate: the FMU's worker %s "
            "is missing: the FMU is incomplete or was not extracted whole", worker);
        return NULL;
    }
    Proxy *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->magic = PROXY_MAGIC;
    p->name = strdup(name);
    if (functions) p->functions = *functions;
    p->spin_ns = spin_ns();
    p->stopped_bound_ns = stopped_bound_ns();

    int fd = memfd_create("simon-fmu-channel", MFD_CLOEXEC);
    if (fd >= 0 && fd <= 3) {      /* dup2 onto itself would keep close-on-exec */
        int moved = fcntl(fd, F_DUPFD_CLOEXEC, 10);
        close(fd);
        fd = moved;
    }
    if (fd < 0 || ftruncate(fd, sizeof(Channel)) != 0
            || (p->ch = mmap(NULL, sizeof(Channel), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0))
                   == MAP_FAILED) {
        say(functions, name, fmi2Error, "logStatusError", "fmi2Instantiate: no shared memory "
            "for the FMU's worker: %s", strerror(errno));
        if (fd >= 0) close(fd);
        p->ch = NULL;
        destroy(p);
        return NULL;
    }
    Channel *ch = p->ch;
    ch->magic = CHANNEL_MAGIC;
    ch->version = CHANNEL_VERSION;
    ch->spin_us = (uint32_t)(p->spin_ns / 1000u);
    const fmi2String strings[3] = {name, fmuGUID, fmuResourceLocation};
    if (!pack_strings(ch, 0, strings, 3)) {
        say(functions, name, fmi2Error, "logStatusError", "fmi2Instantiate: arguments too long");
        close(fd);
        destroy(p);
        return NULL;
    }
    read_inputs(p, resources);
    ch->n[0] = (uint64_t)fmuType;
    ch->n[1] = (uint64_t)visible;
    ch->n[2] = (uint64_t)loggingOn;

    error[0] = 0;
    p->pid = spawn_worker(worker, fd, error, sizeof error);
    close(fd);
    if (p->pid < 0) {
        say(functions, name, fmi2Error, "logStatusError", "fmi2Instantiate: %s", error);
        p->pid = 0;
        destroy(p);
        return NULL;
    }
    fmi2Status status = call(p, OP_INSTANTIATE, "fmi2Instantiate");
    if (status > fmi2Warning || ch->handle == 0) {
        if (!p->dead && ch->error[0])
            REPORT(p, "fmi2Instantiate: %s", ch->error);
        finish(p, fmi2Error);   /* not a live instance: a call from the logger is refused */
        destroy(p);
        return NULL;
    }
    pthread_mutex_lock(&live_lock);
    p->next = live;
    live = p;
    pthread_mutex_unlock(&live_lock);
    finish(p, status);
    return p;
}

void fmi2FreeInstance(fmi2Component c)
{
    Proxy *p = lookup(c, "fmi2FreeInstance");
    if (!p) return;
    if (p->depth) {   /* the call whose messages the logger gets still uses the instance */
        fprintf(stderr, "%s: fmi2FreeInstance: refused: called from inside the logger; free "
                "the instance after the call has returned\n",
                p->name && *p->name ? p->name : "FMU");
        return;
    }
    pthread_mutex_lock(&live_lock);
    for (Proxy **at = &live; *at; at = &(*at)->next)
        if (*at == p) {
            *at = p->next;
            break;
        }
    pthread_mutex_unlock(&live_lock);
    if (!p->dead) {
        call(p, OP_FREE, "fmi2FreeInstance");
        /* the worker ends right after its reply */
        if (!p->dead && !p->reaped && waitpid(p->pid, &p->wait_status, 0) == p->pid)
            p->reaped = 1;
    }
    finish(p, fmi2OK);   /* no longer a live instance: a call from the logger is refused */
    destroy(p);
}

const char *fmi2GetTypesPlatform(void) { return fmi2TypesPlatform; }

const char *fmi2GetVersion(void) { return fmi2Version; }

/* The start of an FMI call on an instance: the live instance as `p`. A call made from inside
 * the host's logger is served (see finish); one nested deeper than MAX_DEPTH is refused, on
 * stderr (told to the logger, it would call again). */
#define ENTER(function)                                                                   \
    Proxy *p = lookup(c, function);                                                       \
    if (!p) return fmi2Error;                                                             \
    if (p->depth >= MAX_DEPTH) {                                                          \
        fprintf(stderr, "%s: %s: refused: called from inside the logger %d calls deep\n", \
                p->name && *p->name ? p->name : "FMU", function, p->depth);               \
        return fmi2Error;                                                                 \
    }                                                                                     \
    Channel *ch = p->ch;                                                                  \
    (void)ch

fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn, size_t n,
                               const fmi2String categories[])
{
    ENTER("fmi2SetDebugLogging");
    ch->n[0] = (uint64_t)loggingOn;
    ch->n[1] = categories ? n : 0;
    if (categories && n && !pack_strings(ch, 0, categories, n)) {
        REPORT(p, "fmi2SetDebugLogging: the category names are too long");
        return finish(p, fmi2Error);
    }
    return finish(p, call(p, OP_SET_DEBUG_LOGGING, "fmi2SetDebugLogging"));
}

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined, fmi2Real tolerance,
                               fmi2Real startTime, fmi2Boolean stopTimeDefined, fmi2Real stopTime)
{
    ENTER("fmi2SetupExperiment");
    ch->n[0] = (uint64_t)toleranceDefined;
    ch->n[1] = (uint64_t)stopTimeDefined;
    ch->d[0] = tolerance;
    ch->d[1] = startTime;
    ch->d[2] = stopTime;
    return finish(p, call(p, OP_SETUP_EXPERIMENT, "fmi2SetupExperiment"));
}

#define SIMPLE(function, op)                      \
    fmi2Status function(fmi2Component c)          \
    {                                             \
        ENTER(#function);                         \
        return finish(p, call(p, op, #function)); \
    }

SIMPLE(fmi2EnterInitializationMode, OP_ENTER_INIT)
SIMPLE(fmi2CancelStep, OP_CANCEL_STEP)

fmi2Status fmi2ExitInitializationMode(fmi2Component c)
{
    ENTER("fmi2ExitInitializationMode");
    fmi2Status status = call(p, OP_EXIT_INIT, "fmi2ExitInitializationMode");
    p->stepping = status <= fmi2Warning;
    return finish(p, status);
}

fmi2Status fmi2Terminate(fmi2Component c)
{
    ENTER("fmi2Terminate");
    p->stepping = 0;
    return finish(p, call(p, OP_TERMINATE, "fmi2Terminate"));
}

fmi2Status fmi2Reset(fmi2Component c)
{
    ENTER("fmi2Reset");
    p->stepping = 0;
    return finish(p, call(p, OP_RESET, "fmi2Reset"));
}

/* Get and set of Real, Integer, Boolean: value references at data, values at data + offset. */
#define VALUES(function, name, op, type, out)                                                   \
    fmi2Status function(fmi2Component c, const fmi2ValueReference vr[], size_t n, type value[]) \
    {                                                                                           \
        ENTER(name);                                                                            \
        size_t at = channel_align(n * sizeof(fmi2ValueReference));                              \
        if (!fits(p, at + n * sizeof(type), name)) return finish(p, fmi2Error);                 \
        if (n && (!vr || !value)) {                                                             \
            REPORT(p, "%s: NULL value reference or value array for %zu values", name, n);       \
            return finish(p, fmi2Error);                                                        \
        }                                                                                       \
        ch->n[0] = n;                                                                           \
        if (n) memcpy(ch->data, vr, n * sizeof(fmi2ValueReference));                            \
        if (!(out) && n) memcpy(ch->data + at, value, n * sizeof(type));                        \
        fmi2Status status = call(p, op, name);                                                  \
        if ((out) && n && !p->dead) memcpy((void *)value, ch->data + at, n * sizeof(type));     \
        return finish(p, status);                                                               \
    }

static VALUES(get_real, "fmi2GetReal", OP_GET_REAL, fmi2Real, 1)
VALUES(fmi2GetInteger, "fmi2GetInteger", OP_GET_INTEGER, fmi2Integer, 1)
VALUES(fmi2GetBoolean, "fmi2GetBoolean", OP_GET_BOOLEAN, fmi2Boolean, 1)
static VALUES(set_real, "fmi2SetReal", OP_SET_REAL, const fmi2Real, 0)
VALUES(fmi2SetInteger, "fmi2SetInteger", OP_SET_INTEGER, const fmi2Integer, 0)
VALUES(fmi2SetBoolean, "fmi2SetBoolean", OP_SET_BOOLEAN, const fmi2Boolean, 0)

/* fmi2GetReal: from the worker's prefetch when it holds these references' values now. */
fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t n, fmi2Real value[])
{
    ENTER("fmi2GetReal");
    if (n && vr && value && ch->prefetch_valid && ch->pending_n == 0 && n == ch->prefetch_n
            && memcmp(vr, ch->prefetch_vrs, n * sizeof *vr) == 0) {
        memcpy(value, ch->prefetch_values, n * sizeof *value);
        return fmi2OK;
    }
    fmi2Status status = get_real(c, vr, n, value);
    if (status == fmi2OK && !p->dead && n && n <= CHANNEL_PREFETCH) {
        ch->prefetch_n = (uint32_t)n;
        memcpy(ch->prefetch_vrs, vr, n * sizeof *vr);
    }
    return finish(p, status);
}

/* fmi2SetReal: deferred to the next call when it sets inputs only (standalone_channel.h). */
fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                       const fmi2Real value[])
{
    ENTER("fmi2SetReal");
    if (n && vr && value && p->stepping && p->last_ok && !p->dead
            && ch->pending_n + n <= CHANNEL_PENDING && all_inputs(p, vr, n)) {
        memcpy(ch->pending_vrs + ch->pending_n, vr, n * sizeof *vr);
        memcpy(ch->pending_values + ch->pending_n, value, n * sizeof *value);
        ch->pending_n += (uint32_t)n;
        ch->prefetch_valid = 0;
        return fmi2OK;
    }
    return set_real(c, vr, n, value);
}

fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                         fmi2String value[])
{
    ENTER("fmi2GetString");
    if (!fits(p, n * sizeof(fmi2ValueReference), "fmi2GetString")) return finish(p, fmi2Error);
    ch->n[0] = n;
    if (n) memcpy(ch->data, vr, n * sizeof(fmi2ValueReference));
    fmi2Status status = call(p, OP_GET_STRING, "fmi2GetString");
    if (p->dead || status > fmi2Warning) return finish(p, status);
    size_t bytes = ch->n[1];
    char *strings = malloc(bytes ? bytes : 1);
    fmi2String *values = malloc((n ? n : 1) * sizeof *values);
    if (!strings || !values) {
        free(strings);
        free(values);
        REPORT(p, "fmi2GetString: out of memory");
        return finish(p, fmi2Error);
    }
    memcpy(strings, ch->data, bytes);
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        values[i] = strings + at;
        value[i] = strings + at;
        at += strlen(strings + at) + 1;
    }
    free(p->strings);
    free(p->string_values);
    p->strings = strings;
    p->string_values = values;
    p->strings_size = bytes;
    p->n_string_values = n;
    return finish(p, status);
}

fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                         const fmi2String value[])
{
    ENTER("fmi2SetString");
    size_t at = channel_align(n * sizeof(fmi2ValueReference));
    if (!fits(p, at, "fmi2SetString")) return finish(p, fmi2Error);
    ch->n[0] = n;
    if (n) memcpy(ch->data, vr, n * sizeof(fmi2ValueReference));
    if (n && !pack_strings(ch, at, value, n)) {
        REPORT(p, "fmi2SetString: the strings exceed the FMU's channel");
        return finish(p, fmi2Error);
    }
    return finish(p, call(p, OP_SET_STRING, "fmi2SetString"));
}

/* ------------------------------------------------------------------ FMU states: the worker's
 * state objects travel as integers; the host only ever holds them */

fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *state)
{
    ENTER("fmi2GetFMUstate");
    if (!state) {
        REPORT(p, "fmi2GetFMUstate: FMUstate is NULL");
        return finish(p, fmi2Error);
    }
    ch->handle = (uint64_t)(uintptr_t)*state;
    fmi2Status status = call(p, OP_GET_STATE, "fmi2GetFMUstate");
    if (!p->dead && status <= fmi2Warning) *state = (fmi2FMUstate)(uintptr_t)ch->handle;
    return finish(p, status);
}

fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate state)
{
    ENTER("fmi2SetFMUstate");
    ch->handle = (uint64_t)(uintptr_t)state;
    return finish(p, call(p, OP_SET_STATE, "fmi2SetFMUstate"));
}

fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *state)
{
    ENTER("fmi2FreeFMUstate");
    if (!state || !*state) return fmi2OK;
    ch->handle = (uint64_t)(uintptr_t)*state;
    fmi2Status status = call(p, OP_FREE_STATE, "fmi2FreeFMUstate");
    if (status <= fmi2Warning) *state = NULL;
    return finish(p, status);
}

fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate state, size_t *size)
{
    ENTER("fmi2SerializedFMUstateSize");
    ch->handle = (uint64_t)(uintptr_t)state;
    fmi2Status status = call(p, OP_STATE_SIZE, "fmi2SerializedFMUstateSize");
    if (size && !p->dead && status <= fmi2Warning) *size = (size_t)ch->n[0];
    return finish(p, status);
}

fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate state, fmi2Byte bytes[],
                                 size_t size)
{
    ENTER("fmi2SerializeFMUstate");
    if (!fits(p, size, "fmi2SerializeFMUstate")) return finish(p, fmi2Error);
    ch->handle = (uint64_t)(uintptr_t)state;
    ch->n[0] = size;
    fmi2Status status = call(p, OP_SERIALIZE, "fmi2SerializeFMUstate");
    if (!p->dead && status <= fmi2Warning && bytes) memcpy(bytes, ch->data, size);
    return finish(p, status);
}

fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte bytes[], size_t size,
                                   fmi2FMUstate *state)
{
    ENTER("fmi2DeSerializeFMUstate");
    if (!fits(p, size, "fmi2DeSerializeFMUstate")) return finish(p, fmi2Error);
    if (!state || (size && !bytes)) {
        REPORT(p, "fmi2DeSerializeFMUstate: NULL bytes or FMUstate");
        return finish(p, fmi2Error);
    }
    ch->n[0] = size;
    if (size) memcpy(ch->data, bytes, size);
    ch->handle = (uint64_t)(uintptr_t)*state;
    fmi2Status status = call(p, OP_DESERIALIZE, "fmi2DeSerializeFMUstate");
    if (!p->dead && status <= fmi2Warning) *state = (fmi2FMUstate)(uintptr_t)ch->handle;
    return finish(p, status);
}

/* ------------------------------------------------------------------ derivatives */

fmi2Status fmi2GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference unknown[],
                                        size_t nUnknown, const fmi2ValueReference known[],
                                        size_t nKnown, const fmi2Real dvKnown[],
                                        fmi2Real dvUnknown[])
{
    ENTER("fmi2GetDirectionalDerivative");
    size_t a = channel_align(nUnknown * 4), b = a + channel_align(nKnown * 4),
           e = b + channel_align(nKnown * 8);
    if (!fits(p, e + nUnknown * 8, "fmi2GetDirectionalDerivative")) return finish(p, fmi2Error);
    ch->n[0] = nUnknown;
    ch->n[1] = nKnown;
    if (unknown && nUnknown) memcpy(ch->data, unknown, nUnknown * 4);
    if (known && nKnown) memcpy(ch->data + a, known, nKnown * 4);
    if (dvKnown && nKnown) memcpy(ch->data + b, dvKnown, nKnown * 8);
    fmi2Status status = call(p, OP_DIRECTIONAL_DERIVATIVE, "fmi2GetDirectionalDerivative");
    if (!p->dead && dvUnknown && nUnknown) memcpy(dvUnknown, ch->data + e, nUnknown * 8);
    return finish(p, status);
}

static fmi2Status derivatives(Proxy *p, Op op, const char *function,
                              const fmi2ValueReference vr[], size_t n, const fmi2Integer order[],
                              fmi2Real value[], int out)
{
    Channel *ch = p->ch;
    size_t a = channel_align(n * 4), b = a + channel_align(n * sizeof(fmi2Integer));
    if (!fits(p, b + n * 8, function)) return finish(p, fmi2Error);
    ch->n[0] = n;
    if (vr && n) memcpy(ch->data, vr, n * 4);
    if (order && n) memcpy(ch->data + a, order, n * sizeof(fmi2Integer));
    if (!out && value && n) memcpy(ch->data + b, value, n * 8);
    fmi2Status status = call(p, op, function);
    if (out && !p->dead && value && n) memcpy(value, ch->data + b, n * 8);
    return finish(p, status);
}

fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                                       const fmi2Integer order[], const fmi2Real value[])
{
    ENTER("fmi2SetRealInputDerivatives");
    return derivatives(p, OP_SET_INPUT_DERIVATIVES, "fmi2SetRealInputDerivatives", vr, n, order,
                       (fmi2Real *)value, 0);
}

fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                                        const fmi2Integer order[], fmi2Real value[])
{
    ENTER("fmi2GetRealOutputDerivatives");
    return derivatives(p, OP_GET_OUTPUT_DERIVATIVES, "fmi2GetRealOutputDerivatives", vr, n,
                       order, value, 1);
}

/* ------------------------------------------------------------------ stepping and status */

fmi2Status fmi2DoStep(fmi2Component c, fmi2Real currentCommunicationPoint,
                      fmi2Real communicationStepSize, fmi2Boolean noSetFMUStatePriorToCurrentPoint)
{
    ENTER("fmi2DoStep");
    ch->d[0] = currentCommunicationPoint;
    ch->d[1] = communicationStepSize;
    ch->n[0] = (uint64_t)noSetFMUStatePriorToCurrentPoint;
    return finish(p, call(p, OP_DO_STEP, "fmi2DoStep"));
}

#define STATUS(function, op, type, result)                                       \
    fmi2Status function(fmi2Component c, const fmi2StatusKind s, type *value)    \
    {                                                                            \
        ENTER(#function);                                                        \
        ch->n[0] = (uint64_t)s;                                                  \
        fmi2Status status = call(p, op, #function);                              \
        if (value && !p->dead && status <= fmi2Warning) *value = (type)(result); \
        return finish(p, status);                                                \
    }

STATUS(fmi2GetStatus, OP_GET_STATUS, fmi2Status, ch->value)
STATUS(fmi2GetRealStatus, OP_GET_REAL_STATUS, fmi2Real, ch->d[0])
STATUS(fmi2GetIntegerStatus, OP_GET_INTEGER_STATUS, fmi2Integer, ch->value)
STATUS(fmi2GetBooleanStatus, OP_GET_BOOLEAN_STATUS, fmi2Boolean, ch->value)

fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind s, fmi2String *value)
{
    ENTER("fmi2GetStringStatus");
    ch->n[0] = (uint64_t)s;
    fmi2Status status = call(p, OP_GET_STRING_STATUS, "fmi2GetStringStatus");
    if (value && !p->dead && status <= fmi2Warning) {
        free(p->status_string);
        p->status_string = strndup((const char *)ch->data, 4096);
        *value = p->status_string;
    }
    return finish(p, status);
}
