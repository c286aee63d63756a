/* Signals as the other layers raise them (the signal layer: docs/linux/signals.md).  A
 * raised signal is pending until lx delivers it: at the process's next system call or
 * fault, or by interrupting it (a parked call ends with EINTR or restarts). */
#ifndef LX_SIGNAL_SIGNAL_H
#define LX_SIGNAL_SIGNAL_H

#include "lib/errno.h"
#include "park/park.h"
#include "task/process.h"
#include "time/clock.h"

#define SIGHUP   1
#define SIGINT   2
#define SIGQUIT  3
#define SIGILL   4
#define SIGTRAP  5
#define SIGABRT  6
#define SIGBUS   7
#define SIGFPE   8
#define SIGKILL  9
#define SIGUSR1 10
#define SIGSEGV 11
#define SIGUSR2 12
#define SIGPIPE 13
#define SIGALRM 14
#define SIGTERM 15
#define SIGCHLD 17
#define SIGCONT 18
#define SIGSTOP 19
#define SIGTSTP 20
#define SIGTTIN 21
#define SIGTTOU 22
#define SIGWINCH 28

#define SIGXCPU 24
#define SIGXFSZ 25
#define SIGVTALRM 26
#define SIGPROF 27
#define SIGSYS  31

#define SA_NOCLDSTOP 0x00000001
#define SA_NOCLDWAIT 0x00000002
#define SA_SIGINFO   0x00000004
#define SA_RESTORER  0x04000000
#define SA_ONSTACK   0x08000000
#define SA_RESTART   0x10000000
#define SA_NODEFER   0x40000000
#define SA_RESETHAND 0x80000000u
#define SIG_DFL 0ul
#define SIG_IGN 1ul

#define SS_ONSTACK    1
#define SS_DISABLE    2
#define SS_AUTODISARM (1u << 31)
#define MINSIGSTKSZ   2048

/* si_code values */
#define SI_USER     0
#define SI_KERNEL   0x80
#define SI_TKILL    (-6)
#define CLD_EXITED  1
#define CLD_KILLED  2
#define CLD_DUMPED  3
#define CLD_STOPPED 5
#define CLD_CONTINUED 6
#define SEGV_MAPERR 1
#define SEGV_ACCERR 2
#define ILL_ILLOPN  2
#define FPE_INTDIV  1
#define BUS_ADRALN  1

#define SIGBIT(sig) (1ull << ((sig) - 1))

/* Raise sig for process t (sent by lx itself: SIGPIPE, SIGCHLD, SIGTTIN, ...). */
void signal_raise(struct task *t, int sig);
/* Raise sig for every process of group pgid (the tty's ^C, ^Z, ^\); the number reached. */
int signal_raise_pgrp(int pgid, int sig);
/* A terminal's job-control stop signal (SIGTTIN, SIGTTOU) for t, as Linux's tty layer asks:
 * 1 if t ignores or blocks it (the caller goes ahead, or a read fails with EIO), -1 if t's
 * group is orphaned (nobody would continue it: EIO), 0 if it is to be raised for the group. */
int signal_tty_stop_check(const struct task *t, int sig);

/* --- for lx's own layers (signal.c) --- */
/* Raise sig with its siginfo; sender: the sending process (kill) or NULL (lx). */
void signal_send(struct task *t, int sig, const struct k_siginfo *info);
/* A child changed state (code CLD_*, status as wait reports it): SIGCHLD (or clone's exit
 * signal) to its parent, whose wait4 looks again. */
void signal_child_event(struct task *child, int code);
/* Does parent reap child itself at its exit (SIGCHLD ignored or SA_NOCLDWAIT)? */
bool signal_child_autoreap(const struct task *parent, const struct task *child);
/* A system call finished with r (maybe an ERESTART code): r itself when nothing is to be
 * delivered; otherwise LX_NOREPLY (ended or stopped) or LX_REPLIED (GET_REGS in the MRs). */
long signal_syscall_return(struct task *t, const struct sysargs *a, long r);
/* The receive loop: signals to take to processes that are not in lx's hands right now
 * (parked, running user code, stopped), and expired timers. */
extern uint64_t signal_kick;         /* process slots signal_run looks at */
extern uint64_t signal_next_alarm;   /* the earliest alarm (~0: none) */
static inline uint64_t signal_timer_next(void)  /* lx_now() of the next alarm; ~0: none */
{
    return signal_next_alarm;
}
static inline bool signal_work(void)
{
    return signal_kick || (signal_next_alarm != ~0ull && signal_next_alarm <= lx_now());
}
void signal_run(void);              /* clobbers the MRs */
void signal_note_slow(struct task *t);
/* t's message was served: anything left to deliver? */
static inline void signal_note(struct task *t)
{
    if (t->sigpending)
        signal_note_slow(t);
}
void signal_timer_changed(void);    /* a process's alarm_at changed */
/* Messages (main.c): true if the MRs hold the reply. */
bool signal_interrupt(struct task *t);             /* INTERRUPT: the register set */
bool signal_regs(struct task *t);                  /* REGS after our GET_REGS */
bool signal_exception(struct task *t);             /* a CPU exception */
bool signal_page_fault(struct task *t, l4_word_t addr, l4_word_t ip, unsigned access,
                       bool mapped);               /* a fault lx cannot serve */
bool signal_bus_fault(struct task *t, l4_word_t addr, l4_word_t ip);  /* past a file's end */
bool signal_waiting_regs(const struct task *t);
/* Delivery with the whole register set (MR order, 18 or 20 words): a handler's frame, a
 * default action, or nothing; in_syscall: RAX holds a call's result.  True if the MRs hold
 * the SET_REGS reply. */
bool signal_deliver(struct task *t, l4_word_t *regs, bool in_syscall, bool force_set);
/* The wait status of a process that sig ends (the core flag for core-dump signals). */
int signal_exit_status(int sig);
/* fork, execve */
void signal_fork(struct task *child, const struct task *parent);
void signal_exec(struct task *t);

#endif
