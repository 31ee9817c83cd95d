/*
 * simon-fmu standalone FMUs: the channel between the FMU's library (standalone_proxy.c, in the
 * host's process) and the FMU's worker process (standalone_worker.c).
 *
 * One instance, one worker, one channel: a memfd shared by both processes, holding one request
 * or reply at a time. Whose turn it is is one 32-bit word, `turn`. The side that writes a
 * request or a reply stores it, then hands the turn over (a sequentially consistent store) and
 * wakes the other side with a futex only if that side said it sleeps. The side that waits spins
 * on `turn` for a while (SIMON_FMU_SPIN_US: the worker after each reply, the host during a
 * call), then sleeps on the futex in slices of WAIT_SLICE_MS, checking between slices that the
 * other process still lives (the host also gives up on a worker stopped for longer than
 * SIMON_FMU_STOPPED_S). So a call that arrives while the other side spins costs no system call
 * at all. Each side publishes the CPU it runs on; a side never spins while the other one
 * is on its own CPU (on a busy machine the scheduler may put both on one core, where spinning
 * would only keep the other side from running).
 *
 * Two things save round trips on the hot path of a co-simulation step (set inputs, step, get
 * outputs), each without changing what the host sees:
 * - fmi2SetReal of Real inputs only (causality "input" in modelDescription.xml), while the
 *   instance steps and its last call answered fmi2OK, is kept in `pending` and applied by the
 *   worker, in order, before the next request; for such variables the FMU's answer is always
 *   fmi2OK (an unacceptable input is reported by the next fmi2DoStep);
 * - after an fmi2DoStep answered fmi2OK the worker reads the values of the last fmi2GetReal's
 *   value references into `prefetch` (unless that read logged anything or did not answer
 *   fmi2OK); an fmi2GetReal of the same references before any other call is answered from
 *   there.
 *
 * Log messages travel in `log` with the reply. A call that logs more than fits hands the turn
 * to the host with reply REPLY_LOG; the host takes the messages out and hands it back. The host
 * passes them to its logger when the call has ended (so a logger may call the instance).
 * See docs/standalone.md.
 */
#ifndef SIMON_STANDALONE_CHANNEL_H
#define SIMON_STANDALONE_CHANNEL_H

#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define CHANNEL_MAGIC 0x534d4f4eu       /* "SMON" */
#define CHANNEL_VERSION 2u
#define CHANNEL_PENDING 1024u
#define CHANNEL_PREFETCH 1024u
#define CHANNEL_LOG_BYTES (1u << 20)
#define CHANNEL_DATA_BYTES (64u << 20)  /* memfd pages are only allocated when touched */
#define WAIT_SLICE_MS 50
#define DEFAULT_SPIN_US 100
#define WORKER_PATH "standalone/bin/simon-fmu-worker"

enum { TURN_HOST = 0, TURN_WORKER = 1 };
enum { SIDE_HOST = 0, SIDE_WORKER = 1 };
enum { REPLY_DONE = 0, REPLY_LOG = 1 };

typedef enum {
    OP_INSTANTIATE = 1, OP_FREE, OP_SET_DEBUG_LOGGING, OP_SETUP_EXPERIMENT, OP_ENTER_INIT,
    OP_EXIT_INIT, OP_TERMINATE, OP_RESET,
    OP_GET_REAL, OP_GET_INTEGER, OP_GET_BOOLEAN, OP_GET_STRING,
    OP_SET_REAL, OP_SET_INTEGER, OP_SET_BOOLEAN, OP_SET_STRING,
    OP_GET_STATE, OP_SET_STATE, OP_FREE_STATE, OP_STATE_SIZE, OP_SERIALIZE, OP_DESERIALIZE,
    OP_DIRECTIONAL_DERIVATIVE, OP_SET_INPUT_DERIVATIVES, OP_GET_OUTPUT_DERIVATIVES,
    OP_DO_STEP, OP_CANCEL_STEP,
    OP_GET_STATUS, OP_GET_REAL_STATUS, OP_GET_INTEGER_STATUS, OP_GET_BOOLEAN_STATUS,
    OP_GET_STRING_STATUS,
    OP_COUNT
} Op;

typedef struct {
    _Atomic uint32_t turn;
    _Atomic uint32_t sleeping[2];
    _Atomic int32_t cpu[2];    /* the CPU each side last ran on */
    uint32_t magic, version;
    uint32_t op;
    uint32_t reply;            /* REPLY_DONE or REPLY_LOG */
    int32_t status;            /* the fmi2Status answered */
    uint32_t spin_us;
    uint64_t n[4];             /* counts, flags, sizes: per op */
    double d[4];               /* reals: per op */
    uint64_t handle;           /* an FMU state of the worker, as an integer */
    int64_t value;             /* an answered integer (status functions) */
    uint32_t log_count, log_used;
    char error[4096];          /* why the worker could not start or serve */
    uint32_t pending_n;        /* deferred fmi2SetReal values of inputs */
    uint32_t pending_vrs[CHANNEL_PENDING];
    double pending_values[CHANNEL_PENDING];
    uint32_t prefetch_n;       /* the last fmi2GetReal's value references (set by the host) */
    uint32_t prefetch_valid;   /* prefetch_values hold their values now (set by the worker) */
    uint32_t prefetch_vrs[CHANNEL_PREFETCH];
    double prefetch_values[CHANNEL_PREFETCH];
    char log[CHANNEL_LOG_BYTES];
    _Alignas(16) unsigned char data[CHANNEL_DATA_BYTES];
} Channel;

/* A log record in Channel.log: header, then category and message, each NUL-terminated. */
typedef struct {
    int32_t status;
    uint32_t category_length;  /* with its NUL */
    uint32_t message_length;   /* with its NUL */
} LogRecord;

static inline uint64_t channel_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void channel_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Give the turn to `to` and wake the other side if it sleeps. */
static inline void channel_hand(Channel *ch, uint32_t to)
{
    int other = to == TURN_WORKER ? SIDE_WORKER : SIDE_HOST;
    atomic_store_explicit(&ch->cpu[1 - other], sched_getcpu(), memory_order_relaxed);
    atomic_store(&ch->turn, to);
    if (atomic_load(&ch->sleeping[other]))
        syscall(SYS_futex, &ch->turn, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* Wait until the turn is `want`: spin for spin_ns, then sleep in slices; between slices
 * alive(arg) says whether the other process still lives. 0 when the turn came, -1 if not. */
static inline int channel_wait(Channel *ch, uint32_t want, int side, uint64_t spin_ns,
                               int (*alive)(void *), void *arg)
{
    if (atomic_load_explicit(&ch->turn, memory_order_acquire) == want) return 0;
    if (spin_ns) {
        uint64_t start = channel_now_ns();
        for (unsigned i = 0;; i++) {
            if (atomic_load_explicit(&ch->turn, memory_order_acquire) == want) return 0;
            channel_relax();
            if ((i & 63) == 0) {
                int here = sched_getcpu();
                atomic_store_explicit(&ch->cpu[side], here, memory_order_relaxed);
                if (atomic_load_explicit(&ch->cpu[1 - side], memory_order_relaxed) == here
                        || channel_now_ns() - start > spin_ns)
                    break;
            }
        }
    }
    for (;;) {
        atomic_store(&ch->sleeping[side], 1);
        if (atomic_load(&ch->turn) == want) {
            atomic_store(&ch->sleeping[side], 0);
            return 0;
        }
        struct timespec slice = {0, WAIT_SLICE_MS * 1000000L};
        syscall(SYS_futex, &ch->turn, FUTEX_WAIT, want ^ 1u, &slice, NULL, 0);
        atomic_store(&ch->sleeping[side], 0);
        if (atomic_load(&ch->turn) == want) return 0;
        if (alive && !alive(arg)) return -1;
    }
}

/* Offsets in Channel.data, 16-byte aligned. */
static inline size_t channel_align(size_t n) { return (n + 15u) & ~(size_t)15u; }

#endif
