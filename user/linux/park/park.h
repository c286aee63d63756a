/* Parked calls (park.c; docs/linux-server.md, "Parked calls"): a handler that cannot
 * finish now parks its caller, lx serves everyone else, and the call runs again when what
 * it waits for is woken or its deadline passes.  Also what every handler gets (the call's
 * arguments) and the special results it may return instead of a value, and the state a
 * thread keeps while lx has not answered it (struct park: one union of per-kind scratch). */
#ifndef LX_PARK_PARK_H
#define LX_PARK_PARK_H

#include "lib/list.h"
#include "park/timer.h"
#include "park/waitq.h"
#include <libl4.h>
#include <stdbool.h>
#include <stdint.h>

struct thread;

/* The message being served (MRs copied out once: the handlers may use IPC). */
struct sysargs {
    l4_word_t nr, a[6], rip, rsp, rflags;
};
/* serve_syscall copies it from MR1..MR10 in one piece. */
_Static_assert(sizeof(struct sysargs) == L4_FSC_WORDS * sizeof(l4_word_t) &&
               L4_FSC_RAX == 1 && L4_FSC_RDI == 2 && L4_FSC_RIP == 8 && L4_FSC_RFLAGS == 10,
               "struct sysargs is MR1..MR10 of the foreign system-call message");

/* What a handler returns besides a value for RAX. */
#define LX_NOREPLY  (-0x7FFFFFFFFFFFFFFFl)  /* the handler answered (or ended) the caller */
#define LX_REPLIED  (-0x7FFFFFFFFFFFFFFEl)  /* the handler put its own reply into the MRs */
#define LX_PARK     (-0x7FFFFFFFFFFFFFFDl)  /* the handler parked the caller (park_call) */

/* What a thread waits for when lx has not answered its last message yet (lx goes on serving
 * everyone else and replies when the condition holds). */
enum park_kind {
    PARK_NONE,
    PARK_FORK_REGS,                 /* fork: its registers (GET_REGS) are on their way */
    PARK_FORK_FPU,                  /* fork: it saves its FPU state (the signal page) */
    PARK_VFORK,                     /* vfork: until the child (u.fork.child) execs or ends */
    PARK_CALL,                      /* a call that runs again when woken (park.c) */
    PARK_START,                     /* a new child: its first message gets the registers */
};

/* The scratch of the kinds and of the calls that keep something across their runs: which one
 * is in use says park.use (set by the accessors below on a call's first run). */
enum park_use { PARK_USE_NONE, PARK_USE_FORK, PARK_USE_START, PARK_USE_IO, PARK_USE_POLL,
                PARK_USE_SLEEP, PARK_USE_SIGWAIT, PARK_USE_FUTEX, PARK_USE_IPC };

struct park_fork {                  /* PARK_FORK_REGS, PARK_FORK_FPU, PARK_VFORK (the parent) */
    l4_word_t flags, stack, ptid, ctid, tls;    /* clone's arguments */
    l4_word_t pidfd;                /* clone3: where the pidfd goes (CLONE_PIDFD) */
    int set_tid;                    /* clone3: the pid asked for (0: any) */
    l4_word_t saved[L4_FREG_WORDS]; /* its registers (MR order) */
    l4_word_t area;                 /* where it saved its FPU state (0: it could not) */
    int child;                      /* PARK_VFORK: the child's pid */
};
struct park_start {                 /* PARK_START (a new child) */
    l4_word_t regs[L4_FREG_WORDS];  /* the registers to start with (MR order) */
};
struct park_io {                    /* read, write, readv, writev */
    l4_word_t done;                 /* bytes moved by earlier runs */
    uint64_t vtime_end;             /* a tty read with VMIN 0, VTIME > 0: when it ends */
};
struct park_poll {                  /* poll, ppoll, select, pselect6, epoll_wait ... */
    uint64_t deadline;              /* lx_now() when it ends; 0: none */
    l4_word_t ufds, nfds;           /* poll: its fds (the restart block takes them) */
};
struct park_sleep {                 /* nanosleep, clock_nanosleep, their restart */
    uint64_t deadline;              /* lx_now() when it ends; 0: never (a CPU-time sleep) */
    l4_word_t urem;                 /* where the time left goes when interrupted (0: nowhere) */
    bool abs;                       /* TIMER_ABSTIME: interrupted, it restarts as it was */
};
struct park_sigwait {               /* rt_sigtimedwait */
    uint64_t deadline;              /* 0: none */
};
struct park_ipc {                   /* semop, msgsnd, msgrcv (ipc/) */
    uint64_t deadline;              /* lx_now() when a semtimedop ends; 0: none */
    void *q;                        /* its entry on the object's queue (NULL: none) */
    void *obj;                      /* semop: the set it waits in */
    long status;                    /* the result a waker gave it ... */
    bool done;                      /* ... once it has */
};
struct futex_q;
#define PARK_FUTEX_CHUNK 64         /* futex_waitv's up to 128 entries: two kmalloc chunks */
struct park_futex {                 /* futex, futex_waitv (task/futex.c) */
    uint64_t deadline;              /* lx_now() when it ends; 0: none */
    struct futex_q *qs[2];          /* its queue entries while parked (NULL: none) */
    unsigned nq;
    int woken;                      /* a wake took it: 1 + the index woken (waitv's); 0: not */
    bool owner;                     /* a PI lock was handed to it (UNLOCK_PI, requeue PI) */
    bool requeued;                  /* WAIT_REQUEUE_PI: moved to the PI futex */
    bool private_;                  /* a timed wait: what restart_syscall needs */
    l4_word_t uaddr;
    uint32_t val, bitset;
};

#define PARK_INLINE_WAITERS 2       /* waiter entries without kmalloc (most calls need one) */

/* How a parked call ends when a signal interrupts it: its result, which the signal layer
 * turns into what the process sees (an ERESTART code: EINTR or a restart; anything else as it
 * is).  A fixed result or a function of the call's progress (a partial count, the time left). */
typedef long (*park_intr_fn)(struct thread *t);

/* Linux's restart block (the thread's): a call interrupted with -ERESTART_RESTARTBLOCK and no
 * handler to run goes on through restart_syscall(2), which calls fn (NULL: EINTR).  What fn
 * needs is here (a sleep's end, a poll's end), not in the call's arguments. */
struct restart_block {
    long (*fn)(struct thread *t);
    union {
        struct { uint64_t deadline; l4_word_t urem; } sleep;
        struct { l4_word_t ufds, nfds; uint64_t deadline; } poll;
        struct { l4_word_t uaddr; uint32_t val, bitset; unsigned flags; uint64_t deadline; } futex;
    } u;
};

struct park {
    enum park_kind kind;
    bool retrying;                  /* the handler runs again for its parked call */
    bool fresh;                     /* ... no: the call restarts (park_restart) */
    struct sysargs call;            /* PARK_CALL: the call, run again when woken */
    uint64_t takes;                 /* signals the parked call takes itself (sigtimedwait) */
    struct list ready_link;         /* on the ready list: the call runs again */
    struct list waits;              /* its waiter entries (struct waiter, by tlink) */
    struct waiter inline_waiters[PARK_INLINE_WAITERS];
    bool wait_lost;                 /* an entry could not be made: retry on a short deadline */
    struct timer deadline;          /* armed: the call runs again at that time */
    long intr;                      /* a signal interrupts the call: its result ... */
    park_intr_fn intr_fn;           /* ... or this function's (non-NULL) */
    void (*leave)(struct thread *t); /* the call leaves the park (runs again, is cancelled,
                                       its thread ends): drop what it holds (futex queues) */
    enum park_use use;
    union {
        struct park_fork fork;
        struct park_start start;
        struct park_io io;
        struct park_poll poll;
        struct park_sleep sleep;
        struct park_sigwait sigwait;
        struct park_futex futex;
        struct park_ipc ipc;
    } u;
};

void park_init(struct thread *t);   /* a new thread's */
void park_wake(struct thread *t);   /* t's parked call runs again */
/* Park t's call (after waitq_add on what it waits for): returns LX_PARK for the handler to
 * return.  deadline: lx_now() value at which the call runs again anyway; 0 for none.  intr:
 * the call's result if a signal interrupts it, as Linux's wait would return it:
 * -ERESTARTSYS (restarted after a handler with SA_RESTART, or when none runs; else EINTR),
 * -ERESTARTNOHAND (restarted only when no handler runs), -ERESTARTNOINTR (always restarted)
 * or -EINTR; park_call_fn: a function of the call's progress says it. */
long park_call(struct thread *t, uint64_t deadline, long intr);
long park_call_fn(struct thread *t, uint64_t deadline, park_intr_fn fn);
/* A signal interrupts t's parked call: the result it ends with (the signal layer's). */
long park_interrupted(struct thread *t);
bool park_retrying(const struct thread *t);   /* the handler runs for a parked call */
/* End t's parked call without running it (a signal): true if it was parked; the caller
 * answers it. */
bool park_cancel(struct thread *t);
/* Run t's call again as a new call (a restart: the handler starts afresh). */
void park_restart(struct thread *t, const struct sysargs *a);
void park_thread_exit(struct thread *t);
/* The receive loop's part (main.c). */
bool park_busy(void);               /* anything to run again now? */
void park_parked(struct thread *t, const struct sysargs *a);  /* the handler said LX_PARK */
void park_run(void);                /* run the woken calls; clobbers the MRs */

/* The scratch of the calling handler's kind, zeroed when the call first takes it (every
 * call starts with none in use: syscall_dispatch), kept across its runs. */
#define PARK_SCRATCH(name, member, USE)                                                      \
    static inline struct park_##name *park_##name(struct park *p)                            \
    {                                                                                        \
        if (p->use != USE) {                                                                 \
            p->use = USE;                                                                    \
            p->u.member = (struct park_##name){ 0 };                                         \
        }                                                                                    \
        return &p->u.member;                                                                 \
    }
PARK_SCRATCH(io, io, PARK_USE_IO)
PARK_SCRATCH(poll, poll, PARK_USE_POLL)
PARK_SCRATCH(sleep, sleep, PARK_USE_SLEEP)
PARK_SCRATCH(sigwait, sigwait, PARK_USE_SIGWAIT)
PARK_SCRATCH(futex, futex, PARK_USE_FUTEX)
PARK_SCRATCH(ipc, ipc, PARK_USE_IPC)
#undef PARK_SCRATCH

#endif
