/* A process's signal state as struct task holds it (the signal layer: signal.h,
 * docs/linux/signals.md). */
#ifndef LX_SIGNAL_SIGSTATE_H
#define LX_SIGNAL_SIGSTATE_H

#include <libl4.h>
#include <stdbool.h>
#include <stdint.h>

struct k_sigaction {                /* Linux's x86-64 struct sigaction as the kernel sees it */
    l4_word_t handler, flags, restorer;
    uint64_t mask;
};
struct k_siginfo {                  /* what a pending signal carries into its siginfo */
    int code, pid, uid, status;
    l4_word_t addr;
    int trapno, err;                /* a fault's: the sigcontext's trapno and err */
};
enum sig_hold {                     /* what a stopped process gets when it continues */
    SIG_HOLD_NONE,
    SIG_HOLD_RESULT,                /* a finished system call's result (hold_value) */
    SIG_HOLD_CALL,                  /* its parked call, run again (a restart) */
    SIG_HOLD_REGS,                  /* its registers (hold_regs): the delivery goes on */
};
struct sigstate {
    struct k_sigaction action[64];  /* by signal - 1 */
    struct k_siginfo info[64];      /* of each pending signal (one per signal: no queue) */
    uint64_t blocked;
    uint64_t saved_mask;            /* rt_sigsuspend's: restored when it ends */
    bool restore_mask;
    l4_word_t ss_sp, ss_size;       /* sigaltstack; size 0: disabled */
    int ss_flags;                   /* as given (SS_AUTODISARM matters) */
    bool want_regs;                 /* GET_REGS sent: the registers come as a REGS message */
    long result;                    /* ... with the call's result (or an ERESTART code) */
    l4_word_t result_nr;            /* ... and its number (a restart) */
    bool in_syscall;                /* ... the registers are those at a system call */
    struct k_siginfo fault;         /* ... or a page fault's SIGSEGV to force */
    int fault_sig;
    bool stopped;                   /* SIGSTOP & co.: not answered until SIGCONT */
    int stop_sig;
    enum sig_hold hold;
    long hold_value;
    l4_word_t hold_regs[L4_FREG_WORDS];
    int report;                     /* wait4: 0, or the stop signal, or -1 continued */
    uint64_t alarm_at, alarm_interval;  /* ITIMER_REAL: lx_now() values; 0 off */
    uint64_t wait_set;              /* rt_sigtimedwait: the signals it takes ... */
    uint64_t wait_deadline;         /* ... until then (lx_now()); 0 none */
};

#endif
