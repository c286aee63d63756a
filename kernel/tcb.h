/* Thread control blocks.  All TCBs live in a virtual array in the kernel half, 8 KiB each, the
 * TCB at the bottom and the thread's kernel stack above it (002 §5.2.5): the TCB of thread
 * number n is at TCB_AREA_BASE + (n << TCB_BITS), found from a thread id without a table.
 * Slots of threads that never existed read as zeros (gid 0), so a lookup never faults. */
#ifndef TCB_H
#define TCB_H

#include "types.h"
#include "config.h"
#include "arch.h"
#include <l4/thread.h>

enum thread_state {
    TS_FREE = 0,        /* no thread in this slot (the zero page reads as this) */
    TS_INACTIVE,        /* created, not activated: no pager and UTCB yet */
    TS_READY,           /* runnable (running, or in its priority's ready queue) */
    TS_HALTED,          /* stopped by ExchangeRegisters or after a fault nobody handles */
    TS_WAIT_SEND,       /* send phase, partner not ready: in partner->sendq */
    TS_WAIT_RECV,       /* receive phase, no sender yet */
    TS_XFER_RECV,       /* receive phase, a transfer into this thread is in progress */
    TS_XFER_WAIT,       /* sender of a transfer, waiting while the receiver resolves a fault */
    TS_IRQ,             /* an interrupt thread (never runs; see irq.c) */
    TS_IDLE,            /* the idle thread */
};

/* Why a thread blocked in IPC was woken. */
enum wake_reason {
    WAKE_NONE = 0,
    WAKE_GO,            /* a sender: the receiver is ready, perform the transfer now */
    WAKE_DONE,          /* the IPC phase completed (message delivered or taken) */
    WAKE_TIMEOUT,
    WAKE_CANCEL,        /* ExchangeRegisters aborted the phase before the transfer */
    WAKE_ABORT,         /* ExchangeRegisters aborted the transfer */
    WAKE_NOPARTNER,     /* the partner was deleted */
    WAKE_ERROR,         /* transfer failed: error code in ipc_error */
};

#define TCB_SIZE          (1ul << TCB_BITS)
#define TCB_FPU_OFFSET    1024        /* the arch's FPU save area inside the TCB slot */
#define TCB_FPU_SIZE      ARCH_FPU_AREA_SIZE
#define TCB_STACK_BOTTOM  2048        /* the kernel stack grows down from TCB_SIZE to here */
_Static_assert(TCB_FPU_OFFSET + TCB_FPU_SIZE <= TCB_STACK_BOTTOM, "FPU area below the stack");

#define QUANTUM_UNLIMITED (~0ull)

/* Thread flags (tcb.flags, 32 bits).  The IPC fast paths leave a partner with any flag set to
 * the C path, except TF_FOREIGN alone (a foreign thread waiting for its handler's reply). */
#define TF_HALT_PENDING   (1u << 0)   /* halt when next returning to user mode */
#define TF_FOREIGN        (1u << 1)   /* in a space with the foreign system-call ABI (foreign.c);
                                       * never a receiver of the IPC fast path */
#define TF_KERNEL_IPC     (1u << 2)   /* the current IPC is kernel-generated (fault, exception) */
#define TF_PREEMPTED      (1u << 3)   /* delayed a preemption; no more delay until it yields */
#define TF_PREEMPT_MSG    (1u << 4)   /* was preempted: send the preemption message (§6.4) */
#define TF_USER_STATE     (1u << 5)   /* IP/SP/FLAGS changed by the kernel: check before return */
#define TF_TIMEFAULT_MSG  (1u << 6)   /* total quantum exhausted: send the time fault */
#define TF_FOREIGN_INTR   (1u << 7)   /* interrupt pending: send it before user mode (foreign.c) */
#define TF_NATIVE_IPC     (1u << 8)   /* a foreign thread in its own Ipc through a channel
                                       * (channel.c): partners checked, not a reply's receiver */


/* A string transfer in progress; lives on the sender's kernel stack, and both partners point
 * at it while it lasts.  Nested page-fault IPC of either partner does not touch it. */
struct xfer {
    struct tcb *s, *r;
    int aborted;                /* 0, or the error both partners get (aborted, no partner) */
};

/* A timeout's place in the timer wheel (timeout.c); whether it is armed is the TCB's
 * wakeup_queued, part of the fast path's guard word. */
struct wakeup {
    uint64_t deadline;          /* clock value (us) */
    struct tcb *next, *prev;    /* in the timer wheel slot, see timeout.c */
    uint16_t slot;
};

struct tcb {
    /* --- identity and the IPC hot path (first cache lines) ----------------------------- */
    word_t gid;                 /* global id; 0 iff the slot is free */
    word_t local_id;            /* user address of MR0 in the thread's space (0: inactive) */
    word_t *mr;                 /* kernel (physmap) address of MR0: the UTCB seen by the kernel */
    struct space *space;
    /* The guard word: the eight bytes from `state`, which the assembly fast paths compare
     * with one instruction (fastpath.h, WAITS_IN_USER_RECEIVE): a thread that may be handed a
     * message there reads as state TS_WAIT_RECV and seven zero bytes. */
    uint8_t state;              /* enum thread_state */
    uint8_t wake;               /* enum wake_reason, valid while and right after blocking;
                                 * WAKE_NONE while blocked (block_current*, the fast paths) */
    uint8_t guard_pad0;         /* always 0 */
    bool wakeup_queued;         /* a timeout is armed: `wakeup` is in the wheel (timeout.c) */
    uint32_t flags;             /* TF_* (the guard word's upper half) */
    uint8_t prio;
    void (*cont)(struct tcb *); /* continuation run when the thread is switched to */
    word_t ksp;                 /* saved kernel stack pointer while switched out */
    /* IPC state of the current phase.  Grouped so that a nested kernel IPC (a page fault
     * inside a string transfer) can save and restore it as a whole. */
    struct tcb_ipc_state {
        word_t wait_for;        /* receive: from-specifier (global id, any, anylocal) */
        struct tcb *partner;    /* send: destination; xfer: peer; kernel IPC: handler */
        word_t ipc_from;        /* receive result: the id the receiver sees as sender */
        word_t ipc_error;       /* error code (1..7) of a failed send phase, for the sender */
        word_t ipc_offset;      /* string bytes transferred before that error */
        struct tcb *vsender;    /* propagation: the virtual sender of the pending message */
        word_t intended;        /* redirection: the original destination (global id), or 0 */
        word_t xfer_fault;      /* receiver: address of a tunnelled page fault */
        uint64_t xfer_deadline; /* transfer timeout: absolute clock, ~0 for none */
        word_t rcv_spec;        /* user IPC blocked in its send phase: its receive phase */
        uint16_t rcv_timeout;
        bool user_rcv;          /* ... exists and may be entered on the thread's behalf */
    } ipc;
    uint64_t kdeadline;         /* kernel-generated IPC: give up at this clock value (0: never) */
    uint8_t kernel_rcv_words;   /* kernel-generated IPC: the reply may fill MR0..MR(n-1) only
                                 * (the words the kernel saved); 0 outside such a call */
    struct xfer *xfer;          /* the string transfer this thread takes part in (transfer.c) */
    struct tcb *last_sender;    /* the thread of our space that last sent to us, or itself
                                 * for none (ipc_thread_init; ipc_thread_deleted resets it):
                                 * resolves a reply to a local id in the fast path (verified
                                 * against local_id there) */

    /* --- queues ------------------------------------------------------------------------ */
    struct tcb *ready_next, *ready_prev;    /* ready queue of prio (lazy, see sched.c) */
    bool in_ready;
    struct tcb *sendq;                      /* first thread waiting to send to me */
    struct tcb *sendq_next, *sendq_prev;    /* my links in partner->sendq (circular) */
    struct wakeup wakeup;

    /* --- scheduling -------------------------------------------------------------------- */
    word_t scheduler;           /* global id of the thread allowed to Schedule() me */
    uint64_t timeslice_us;      /* slice length (0: infinite) */
    uint64_t slice_left_us;
    uint64_t quantum_us;        /* total quantum left (QUANTUM_UNLIMITED: no limit) */
    uint16_t max_delay_us;      /* delayed preemption: longest delay */
    uint8_t sensitive_prio;     /* ... for threads up to this priority */
    uint64_t delay_until;       /* clock value a delayed preemption ends at (0: none running) */
    uint64_t preempt_clock;     /* clock value of the preemption the pending message reports */

    /* --- thread management ------------------------------------------------------------- */
    word_t utcb_location;       /* user address of the UTCB (not MR0); ~0 if unset */
    struct tcb *space_next, *space_prev;    /* threads of one space */
    struct tcb *all_next, *all_prev;        /* every thread (for deletion's scan) */

    /* --- architecture ------------------------------------------------------------------ */
    struct arch_tcb arch;
};

_Static_assert(offsetof(struct tcb, wake) == offsetof(struct tcb, state) + 1 &&
               offsetof(struct tcb, wakeup_queued) == offsetof(struct tcb, state) + 3 &&
               offsetof(struct tcb, flags) == offsetof(struct tcb, state) + 4 &&
               offsetof(struct tcb, prio) == offsetof(struct tcb, state) + 8 &&
               offsetof(struct tcb, state) % 8 == 0, "the guard word's layout (fastpath.h)");
/* The TCB is the bottom of its slot, below the FPU area (the kernel stack's bottom is
 * TCB_STACK_BOTTOM, above that area). */
_Static_assert(sizeof(struct tcb) <= TCB_FPU_OFFSET, "struct tcb overlaps the FPU area");

static inline struct tcb *tcb_of_number(word_t no)
{
    return (struct tcb *)(TCB_AREA_BASE + (no << TCB_BITS));
}

/* The TCB a global id names, or NULL if the id is not a valid global id of a live thread.
 * Reading a slot that was never used returns the zero page, whose gid never matches. */
static inline struct tcb *tcb_lookup(word_t gid)
{
    word_t no = l4_thread_no(gid);
    if (unlikely(no >= CONFIG_MAX_THREADS || !l4_is_global_id(gid)))
        return NULL;
    struct tcb *t = tcb_of_number(no);
    return likely(t->gid == gid) ? t : NULL;
}

static inline word_t tcb_kstack_top(struct tcb *t) { return (word_t)t + TCB_SIZE; }
/* The user register frame at the top of the kernel stack: opaque to generic code, which
 * passes it to arch functions; its end is the kernel stack's end (invariants.c). */
static inline struct frame *tcb_frame(struct tcb *t)
{
    return (struct frame *)(tcb_kstack_top(t) - ARCH_FRAME_SIZE);
}
static inline void *tcb_fpu_area(struct tcb *t) { return (char *)t + TCB_FPU_OFFSET; }
static inline word_t tcb_number(const struct tcb *t)
{
    return ((word_t)t - TCB_AREA_BASE) >> TCB_BITS;
}

/* UTCB words, through the kernel's mapping of the UTCB page. */
static inline word_t utcb_get(struct tcb *t, int idx) { return t->mr[idx]; }
static inline void utcb_set(struct tcb *t, int idx, word_t v) { t->mr[idx] = v; }

#endif
