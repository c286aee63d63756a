/* ptrace(2) (task/ptrace.c, docs/linux/ptrace.md): a tracer process and the threads it
 * traces.  A traced thread (t->trace set) stops instead of taking a signal (Linux's
 * signal-delivery-stop): lx holds it with its registers (signal/signal.c's SIG_HOLD_REGS) and
 * reports the stop to the tracer's wait; PTRACE_CONT, DETACH or SYSCALL let it go on, with
 * the signal the tracer passes (or none).  The hooks into the other layers are the functions
 * below, each called from one place. */
#ifndef LX_TASK_PTRACE_H
#define LX_TASK_PTRACE_H

#include "signal/sigstate.h"
#include "task/exit_status.h"
#include <stdbool.h>
#include <stdint.h>

struct thread;
struct process;
struct sysargs;

/* A traced thread's tracing state; also, once the thread has ended, the notice of its end
 * that its tracer's wait has not taken yet (thread NULL). */
struct tracee {
    struct thread *thread;          /* NULL: ended (an exit notice for the tracer) */
    struct process *tracer;
    int tid;                        /* the thread's id, as wait reports it */
    struct list link;               /* in ptrace.c's list of all tracees */
    unsigned options;               /* PTRACE_O_* */
    bool seized;                    /* PTRACE_SEIZE (no SIGSTOP, PTRACE_INTERRUPT allowed) */
    bool privileged;                /* CAP_SYS_PTRACE in Linux's ptracer_cred (the tracer's
                                     * at ATTACH, the tracee's own at TRACEME): a set-id exec
                                     * takes its ids; otherwise not (task/cred.c) */
    bool stopped;                   /* in a ptrace stop: held until the tracer resumes it */
    bool reported;                  /* a stop (or its end) wait has not reported yet */
    int status;                     /* ... as wait4's status word */
    int stop_sig;                   /* the signal of a signal-delivery-stop (0: another stop) */
    struct k_siginfo info;          /* ... its siginfo (PTRACE_GETSIGINFO) */
    long orig_rax;                  /* the system call the stop ended (-1: none) */
    uint64_t passed;                /* signals the tracer passed on: delivered, not stopped */
    enum { STOP_SIGNAL, STOP_SYSCALL_ENTER, STOP_SYSCALL_EXIT, STOP_EVENT } kind;
    bool syscall_trace;             /* resumed with PTRACE_SYSCALL: stop at the next call */
    bool want_enter;                /* GET_REGS sent for a syscall-enter-stop */
    bool event_exit;                /* an event stop in a call (exec, fork): its exit stop
                                     * follows under PTRACE_SYSCALL */
    l4_word_t entered_rip;          /* the call resumed after its enter stop (not 0): it runs */
    unsigned long eventmsg;         /* PTRACE_GETEVENTMSG */
    long call_nr;                   /* the system call it is in (main.c's hook sets it) */
};

long sys_ptrace(struct thread *t, const struct sysargs *a);

/* --- hooks --- */
/* signal.c: may t take sig without a ptrace stop first?  (Not traced, SIGKILL, or passed on
 * by the tracer: the pass is used up.) */
bool ptrace_signal_passes(struct thread *t, int sig);
/* signal.c: t, traced, stops for sig with its registers (in_syscall: at a call's end). */
void ptrace_signal_stop(struct thread *t, int sig, const struct k_siginfo *info,
                        const l4_word_t *regs, bool in_syscall, long nr);
/* main.c: a traced thread's system call a arrived: true if it stops first (syscall-enter-
 * stop: the MRs hold the GET_REGS reply). */
bool ptrace_syscall_enter(struct thread *t, const struct sysargs *a);
/* signal.c: does t's call end in a syscall-exit-stop?  And, with t's registers in (after
 * GET_REGS; in_syscall: at a call's end, RAX its result): true if t stopped. */
bool ptrace_exit_stop_wanted(const struct thread *t);
bool ptrace_regs(struct thread *t, l4_word_t *regs, bool in_syscall);
/* exec.c: a traced thread's execve succeeded, the new program to start with regs: SIGTRAP
 * (as Linux without TRACEEXEC), PTRACE_EVENT_EXEC's stop, execve's syscall-exit-stop; true
 * if t stopped (held with regs: no reply now). */
bool ptrace_exec(struct thread *t, const l4_word_t *regs);
/* clone.c: traced p made child c (clone's flags; saved: p's registers at the call); true
 * if p stops (an event stop or the call's exit stop, its answer held: no reply now).  c is
 * traced too when p's options ask for the kind of clone (PTRACE_O_TRACEFORK ...). */
bool ptrace_fork(struct thread *p, struct thread *c, l4_word_t flags, const l4_word_t *saved);
/* exit.c: p ends with status: its threads' tracers are told, its tracees are let go. */
void ptrace_process_exit(struct process *p, struct exit_status status);
/* exit.c: one thread ends (its tracing ends with it). */
void ptrace_thread_exit(struct thread *t);
/* wait.c: a tracee of p's that wait(pid, options) reports: its status word and tid (and
 * the notice is taken unless nowait); 0 if none has one, with *any set if p traces any
 * thread that matches.  cld, si_status: waitid's. */
int ptrace_wait(struct process *p, int pid, unsigned long options, bool nowait, bool *any,
                int *status, int *cld, int *si_status);
/* /proc: the tracer's pid (0: none), and whether t is in a ptrace stop. */
int ptrace_tracer_pid(const struct thread *t);
bool ptrace_stopped(const struct thread *t);

#endif
