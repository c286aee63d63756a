/* Processes (process.c): each is an L4 task of the foreign system-call ABI (one thread for
 * now) whose pager and handler is lx.  struct task is the process, its thread and the state
 * of its current call at once (issue 13 splits it). */
#ifndef LX_TASK_PROCESS_H
#define LX_TASK_PROCESS_H

#include "mm/mm.h"
#include "park/park.h"
#include "park/waitq.h"
#include "signal/sigstate.h"
#include <libl4.h>
#include <stdbool.h>
#include <stdint.h>

enum task_state { TASK_FREE, TASK_RUNNING, TASK_ZOMBIE };

/* Resource limits (getrlimit/setrlimit/prlimit64: syscalls/sys_system.c). */
#define RLIM_NLIMITS  16
#define RLIMIT_STACK  3
#define RLIMIT_CORE   4
#define RLIMIT_NOFILE 7
#define RLIM_INFINITY (~0ull)
struct rlimit64 { uint64_t cur, max; };

#define LX_MAX_TASKS 32
#define LX_ARGV_MAX  32

struct task {
    enum task_state state;
    int pid, ppid, pgid, sid;
    l4_word_t tid;                  /* its L4 thread (global id) */
    struct mm mm;
    l4_word_t clear_child_tid;      /* set_tid_address */
    struct fdtable *files;          /* vfs/: open files (shared with CLONE_FILES) */
    struct fs_struct *fs;           /* vfs/: cwd and umask (shared with CLONE_FS) */
    struct rlimit64 rlim[RLIM_NLIMITS]; /* set at its start (Linux's defaults), inherited */
    unsigned long nsyscalls;
    int status;                     /* a zombie's, as wait() reports it */
    int exit_signal;                /* sent to the parent at the end (clone's low byte) */
    bool execed;                    /* has called execve (setpgid by the parent: EACCES) */
    char comm[16];                  /* its name: the executable's, or prctl(PR_SET_NAME) */
    uint64_t sigpending;            /* recorded, for the signal layer (bit sig - 1) */
    enum park park;
    int park_pid;                   /* PARK_VFORK: the child */
    l4_word_t park_args[5];         /* PARK_FORK_REGS: clone's flags, stack, tid pointers, tls */
    l4_word_t fork_saved[L4_FREG_WORDS]; /* PARK_FORK_FPU, PARK_VFORK: its registers */
    l4_word_t fork_area;            /* PARK_FORK_FPU: where it saved its FPU state */
    struct sysargs call;            /* PARK_CALL: the call, run again when woken */
    uint64_t park_deadline;         /* PARK_CALL: lx_now() at which it runs again; 0 none */
    bool retrying;                  /* the handler runs for a parked call */
    struct waitq child_wait;        /* wait4 of this process: a child changed state */
    l4_word_t regs[L4_FREG_WORDS];  /* PARK_START: the registers to start with (MR order) */
    /* --- pipes, poll, time (fs/pipe, syscalls/sys_poll.c, syscalls/sys_time.c) --- */
    l4_word_t io_done;              /* a parked write/writev: bytes moved by earlier runs */
    uint64_t wait_deadline;         /* a parked poll/select/sleep: lx_now() when it ends; 0 none */
    uint64_t wait_sigmask;          /* ppoll/pselect6's mask while parked (the signal layer's) */
    bool wait_sigmask_set;
    uint64_t cpu_mark;              /* TSC when lx last let it run; 0 while lx holds it */
    uint64_t utime, stime;          /* estimated CPU time (TSC ticks): cputime.c */
    uint64_t cutime, cstime;        /* of its reaped children */
    /* --- end pipes, poll, time --- */
    char *exe;                      /* exec.c: the executable's absolute path (kmalloc) */
    struct inode *exe_inode;        /* exec.c: and its file (a reference), NULL: a module */
    struct sigstate sig;            /* signals (signal/) */
};

struct task *task_by_tid(l4_word_t tid);
struct task *task_by_pid(int pid);  /* running or zombie */
struct task *task_alloc(void);      /* a free slot (zeroed, still TASK_FREE) or NULL */
/* A new L4 task for t (pager and handler lx), waiting for its start message: 0 or -errno. */
int task_create_thread(struct task *t);
/* Answer t's parked (or current) system call now, with RAX = value. */
void task_reply(struct task *t, long value);
/* A new process with the memory model mm (moved in, or destroyed on failure), started at
 * entry with the stack sp (task/exec.c's exec_spawn loads it); NULL with *err (if err). */
struct task *task_spawn(struct mm *mm, l4_word_t entry, l4_word_t sp, const char *execfn,
                        int argc, char *const argv[], int *err);
/* End a process: its space and pages go away; status as wait() would report it.  The
 * parent learns of it (a zombie until reaped); clobbers the MRs. */
void task_exit(struct task *t, int status);
void task_free(struct task *t);     /* a reaped zombie's slot */
void task_set_comm(struct task *t, const char *path);  /* the last component, 15 bytes */
void task_rlimit_defaults(struct task *t);  /* the limits a program lx starts gets */
unsigned task_count(void);
/* Each slot in turn (i < LX_MAX_TASKS), for the layers that look for children or groups. */
struct task *task_slot(unsigned i);

/* A fatal fault: report it and end the process as killed by signal sig (main.c). */
void task_fault_kill(struct task *t, int sig, const char *what, l4_word_t addr, l4_word_t ip);

/* A child of parent has become a zombie: the parent's parked wait4 looks again (wait.c). */
static inline void wait_child_ended(struct task *parent) { waitq_wake(&parent->child_wait); }

#endif
