/* The signal state (the signal layer: signal.h, docs/linux/signals.md), split as Linux splits
 * it: the actions (struct sighand, shared by reference count: CLONE_SIGHAND, and always by
 * the threads of a process), what a process shares (the process-directed pending set, group
 * stop, ITIMER_REAL: struct proc_sigstate, in struct process) and what each thread has (its
 * own pending set, mask, alternate stack and the state of a delivery: struct sigstate, in
 * struct thread). */
#ifndef LX_SIGNAL_SIGSTATE_H
#define LX_SIGNAL_SIGSTATE_H

#include "lib/list.h"
#include "park/timer.h"
#include "park/waitq.h"
#include "time/clock_timer.h"
#include "task/exit_status.h"
#include <libl4.h>
#include <stdbool.h>
#include <stdint.h>

struct k_sigaction {                /* Linux's x86-64 struct sigaction as the kernel sees it */
    l4_word_t handler, flags, restorer;
    uint64_t mask;
};
struct k_siginfo {                  /* what a pending signal carries into its siginfo */
    int code, pid, uid;
    union {
        int status;                 /* SIGCHLD's */
        unsigned timer_gen;         /* SI_TIMER: which arming sent it (time/posix_timer.c) */
    };
    union {
        l4_word_t addr;             /* a fault's */
        l4_word_t value;            /* SI_TIMER, SI_QUEUE: the sigval */
    };
    union {
        struct { int trapno, err; };        /* a fault's: the sigcontext's trapno and err */
        struct { int timerid, overrun; };   /* SI_TIMER: the POSIX timer's id, overruns */
    };
};
_Static_assert(sizeof(struct k_siginfo) == 32, "64 of them in every thread and process");
struct sigqueue_entry;
struct sigpending {                 /* signals pending (bit sig - 1): signal/sigqueue.h */
    uint64_t set;
    uint64_t charged;               /* info[sig - 1] counts for user charged_uid[sig - 1] */
    struct k_siginfo info[64];      /* by signal - 1: the first pending siginfo */
    unsigned charged_uid[64];
    struct sigqueue_entry *more;    /* real-time signals queued behind, in arrival order */
};
struct sighand {                    /* the actions: Linux's sighand_struct */
    unsigned refs;                  /* processes that share them (CLONE_SIGHAND) */
    struct k_sigaction action[64];  /* by signal - 1 */
};
enum sig_hold {                     /* what a stopped thread gets when it continues */
    SIG_HOLD_NONE,
    SIG_HOLD_RESULT,                /* a finished system call's result (hold_value) */
    SIG_HOLD_CALL,                  /* its interrupted call, restarted (hold_value: how) */
    SIG_HOLD_REGS,                  /* its registers (hold_regs): the delivery goes on */
};
struct sigstate {                   /* per thread */
    struct sigpending pending;      /* thread-directed: tkill, tgkill, a fault's */
    uint64_t blocked;
    uint64_t saved_mask;            /* the mask before rt_sigsuspend, ppoll, pselect6 ... */
    bool restore_mask;              /* ... which the call's end or the handler's frame restores */
    l4_word_t ss_sp, ss_size;       /* sigaltstack; size 0: disabled */
    int ss_flags;                   /* as given (SS_AUTODISARM matters) */
    bool want_regs;                 /* GET_REGS sent: the registers come as a REGS message */
    long result;                    /* ... with the call's result (or an ERESTART code) */
    l4_word_t result_nr;            /* ... and its number (a restart) */
    bool in_syscall;                /* ... the registers are those at a system call */
    struct k_siginfo fault;         /* ... or a page fault's SIGSEGV to force */
    int fault_sig;
    enum sig_hold hold;
    long hold_value;
    l4_word_t hold_regs[L4_FREG_WORDS];
    bool hold_in_syscall;           /* ... those at a call's end (a ptrace stop: ERESTART) */
    struct list kick_link;          /* on signal_run's list: something to deliver */
};
struct proc_sigstate {              /* per process: Linux's signal_struct */
    struct sigpending shared;       /* process-directed: kill, the kernel's */
    bool stopped;                   /* group stop: no thread is answered until SIGCONT */
    int stop_sig;
    struct exit_status report;      /* a stop or continue that wait has not reported yet */
    struct timer real;              /* ITIMER_REAL: SIGALRM when it fires ... */
    uint64_t real_interval;         /* ... and armed again this much later (0: once) */
    struct clock_timer cpu_itimer[2];   /* ITIMER_VIRTUAL, ITIMER_PROF: time/cpu_itimer.c */
    uint64_t cpu_interval[2];
    struct waitq signalfd_wait;     /* signalfd readers and pollers: a signal was queued */
};

#endif
