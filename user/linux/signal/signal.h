/* Signals as the other layers raise them (the signal layer: docs/linux/signals.md).  A
 * raised signal is pending until lx delivers it: at the process's next system call or
 * fault, or by interrupting it (a parked call ends with EINTR or restarts). */
#ifndef LX_SIGNAL_SIGNAL_H
#define LX_SIGNAL_SIGNAL_H

#include "lib/errno.h"
#include "park/park.h"
#include "task/process.h"

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
#define SI_TIMER    (-2)
#define SEGV_MAPERR 1
#define SEGV_ACCERR 2
#define ILL_ILLOPN  2
#define FPE_INTDIV  1
#define BUS_ADRALN  1

#define SIGBIT(sig) (1ull << ((sig) - 1))

/* Raise sig for t's process (sent by lx itself: SIGPIPE, SIGTTIN, ...; Linux's send_sig). */
void signal_raise(struct thread *t, int sig);
/* Raise sig for every process of group pgrp (the tty's ^C, ^Z, ^\); the number reached. */
int signal_raise_pgrp(struct pid *pgrp, int sig);
/* A terminal's job-control stop signal (SIGTTIN, SIGTTOU) for t, as Linux's tty layer asks:
 * 1 if t ignores or blocks it (the caller goes ahead, or a read fails with EIO), -1 if t's
 * group is orphaned (nobody would continue it: EIO), 0 if it is to be raised for the group. */
int signal_tty_stop_check(const struct thread *t, int sig);
/* Is process group pgrp orphaned (no member has a parent in another group of its session)? */
bool signal_pgrp_orphaned(struct pid *pgrp);

/* --- for lx's own layers (signal.c) --- */
/* A process-directed signal (kill; the kernel's) with its siginfo: any thread of p may take
 * it.  Zombies and ended processes take nothing. */
void signal_send(struct process *p, int sig, const struct k_siginfo *info);
/* A thread-directed one (tkill, tgkill). */
void signal_send_thread(struct thread *t, int sig, const struct k_siginfo *info);
/* The same with the queue's answer: 0, or -EAGAIN (a real-time signal with a siginfo of its
 * own past RLIMIT_SIGPENDING: rt_sigqueueinfo, mq_notify). */
int signal_send_info(struct process *p, int sig, const struct k_siginfo *info);
int signal_send_thread_info(struct thread *t, int sig, const struct k_siginfo *info);
/* A POSIX timer's signal (Linux's send_sigqueue) to p, or to thread t if not NULL: false if
 * it was not queued (ignored, or the signal is pending already with another siginfo: one of
 * each); if the timer's own signal is pending still, its overrun count grows instead. */
bool signal_send_timer(struct process *p, struct thread *t, int sig,
                       const struct k_siginfo *info);
/* Take the next pending signal of mask for t (its own first, then its process's; a
 * synchronous one first, then the lowest): the signal with *info, or 0 (signalfd). */
int signal_dequeue_mask(struct thread *t, uint64_t mask, struct k_siginfo *info);
/* A thread of p ended or blocked signals: the process-directed ones pending go to the threads
 * that can take them (Linux's retarget_shared_pending). */
void signal_retarget(struct process *p);
/* Take sig off t's pending sets (its own first); its siginfo. */
struct k_siginfo signal_dequeue(struct thread *t, int sig);
/* Drop the signals of mask pending for p and its threads (an action set to ignore them). */
void signal_discard(struct process *p, uint64_t mask);
/* A child changed state (exited, killed, stopped, continued): SIGCHLD (or clone's exit
 * signal) to its parent, whose wait4 looks again. */
void signal_child_event(struct process *child, struct exit_status status);
/* Does parent reap child itself at its exit (SIGCHLD ignored or SA_NOCLDWAIT)? */
bool signal_child_autoreap(const struct process *parent, const struct process *child);
/* A system call finished with r (maybe an ERESTART code): r itself when nothing is to be
 * delivered; otherwise LX_NOREPLY (ended or stopped) or LX_REPLIED (GET_REGS in the MRs). */
long signal_syscall_return(struct thread *t, const struct sysargs *a, long r);
/* The receive loop: signals to take to threads that are not in lx's hands right now
 * (parked, running user code, stopped). */
bool signal_busy(void);             /* anything for signal_run? */
void signal_run(void);              /* clobbers the MRs */
void signal_note_slow(struct thread *t);
/* ptrace (task/ptrace.c): t is looked at by signal_run (a held thread goes on); sig with
 * info is pending for t again (passed on by its tracer). */
void signal_wake(struct thread *t);
void signal_requeue(struct thread *t, int sig, const struct k_siginfo *info);
/* The signals pending for t (its own and its process's). */
static inline uint64_t signal_pending(const struct thread *t)
{
    return t->sig.pending.set | t->proc->sig.shared.set;
}
/* t's message was served: anything left to deliver? */
static inline void signal_note(struct thread *t)
{
    if (signal_pending(t))
        signal_note_slow(t);
}
/* A call's own mask for its duration (rt_sigsuspend, ppoll, pselect6, epoll_pwait): the old
 * one comes back when the call ends (signal_restore_temp_mask) or, if a signal the new mask
 * lets in interrupts it, through the handler's frame (Linux's saved_sigmask). */
void signal_set_temp_mask(struct thread *t, uint64_t mask);
void signal_restore_temp_mask(struct thread *t);
/* ITIMER_REAL (struct proc_sigstate.real) fired. */
void signal_itimer_fired(struct timer *tm);
/* Messages (main.c): true if the MRs hold the reply. */
bool signal_interrupt(struct thread *t);             /* INTERRUPT: the register set */
bool signal_regs(struct thread *t);                  /* REGS after our GET_REGS */
bool signal_exception(struct thread *t);             /* a CPU exception */
bool signal_page_fault(struct thread *t, l4_word_t addr, l4_word_t ip, unsigned access,
                       bool mapped);               /* a fault lx cannot serve */
bool signal_bus_fault(struct thread *t, l4_word_t addr, l4_word_t ip);  /* past a file's end */
bool signal_waiting_regs(const struct thread *t);
/* Delivery with the whole register set (MR order, 18 or 20 words): a handler's frame, a
 * default action, or nothing; in_syscall: RAX holds a call's result.  True if the MRs hold
 * the SET_REGS reply. */
bool signal_deliver(struct thread *t, l4_word_t *regs, bool in_syscall, bool force_set);
/* rt_sigreturn: regs (the frame's, RIP and RSP those of the interrupted code) and the frame's
 * FPU area at user address fpstate (0: none): a signal deliverable now gets its frame on the
 * interrupted code's stack with that FPU state, as on Linux (one frame at a time); otherwise
 * the thread returns through the signal page.  True if the MRs hold the reply. */
bool signal_return(struct thread *t, l4_word_t *regs, l4_word_t fpstate);
/* The signal state's lifetime: new actions (all default; NULL: no memory); fork (the child's
 * actions copied or, with CLONE_SIGHAND, shared; mask and alternate stack inherited); execve
 * (handlers back to default); a thread or a process that ends. */
struct sighand *signal_sighand_new(void);
bool signal_fork(struct thread *child, const struct thread *parent, bool share_sighand,
                 bool clear_sighand, bool clear_altstack);
/* A new thread of parent's process (CLONE_THREAD): parent's mask, nothing else. */
void signal_thread_new(struct thread *child, const struct thread *parent);
void signal_exec(struct thread *t);
void signal_thread_exit(struct thread *t);
void signal_process_exit(struct process *p);
void signal_process_free(struct process *p);    /* the process's record goes */

#endif
