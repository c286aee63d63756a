/* Processes: each is an L4 task of the foreign system-call ABI (one thread for now) whose
 * pager and handler is lx, created and deleted through the root task.  A process that ends
 * stays a zombie until its parent reaps it with wait4 (wait.c); one without a parent (the
 * programs lx starts, orphans) is freed at once. */
#include "task/process.h"
#include "fs/proc/proc.h"
#include "lib/errno.h"
#include "lib/server.h"
#include "park/park.h"
#include "signal/signal.h"
#include "task/clone.h"
#include "task/elf.h"
#include "task/exec.h"
#include "tty/tty.h"
#include "vfs/file.h"
#include <stdio.h>
#include <string.h>

#define LX_PROCESS_PRIO 90          /* below lx (100): lx answers before they run on */

static struct task tasks[LX_MAX_TASKS];
static int next_pid = 1;
static unsigned ntasks;             /* slots not TASK_FREE: task_count() on every message */

/* task_by_tid runs for every message: a hint per hash of the thread number names the slot
 * that last matched.  A hint is only a guess (checked, and the slots searched on a miss),
 * so nothing has to forget it when a task ends. */
#define TID_HINTS 64
static uint8_t tid_hint[TID_HINTS];

static unsigned tid_hash(l4_word_t tid)
{
    return (unsigned)(tid >> 14) % TID_HINTS;   /* the thread number, without the version */
}

struct task *task_slot(unsigned i)
{
    return &tasks[i];
}

struct task *task_by_tid(l4_word_t tid)
{
    unsigned h = tid_hash(tid);
    struct task *t = &tasks[tid_hint[h]];
    if (t->tid == tid && t->state == TASK_RUNNING)
        return t;
    for (unsigned i = 0; i < LX_MAX_TASKS; i++)
        if (tasks[i].state == TASK_RUNNING && tasks[i].tid == tid) {
            tid_hint[h] = (uint8_t)i;
            return &tasks[i];
        }
    return NULL;
}

struct task *task_by_pid(int pid)
{
    for (unsigned i = 0; i < LX_MAX_TASKS; i++)
        if (tasks[i].state != TASK_FREE && tasks[i].pid == pid)
            return &tasks[i];
    return NULL;
}

unsigned task_count(void)
{
    return ntasks;
}

struct task *task_alloc(void)
{
    for (unsigned i = 0; i < LX_MAX_TASKS; i++)
        if (tasks[i].state == TASK_FREE) {
            memset(&tasks[i], 0, sizeof tasks[i]);
            return &tasks[i];
        }
    return NULL;
}

int task_create_thread(struct task *t)
{
    l4_word_t err;
    struct l4_task_params p = { .pager = lx_self, .priority = LX_PROCESS_PRIO,
                                .flags = ROOT_TASK_FOREIGN };
    t->tid = l4_task_create(&p, &err);
    if (!t->tid || err) {
        printf("lx: cannot create a task (error %lu)\n", err);
        return -EAGAIN;
    }
    t->pid = next_pid++;
    t->exit_signal = SIGCHLD;
    t->state = TASK_RUNNING;
    ntasks++;
    tid_hint[tid_hash(t->tid)] = (uint8_t)(t - tasks);
    return 0;
}

void task_reply(struct task *t, long value)
{
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_RESUME, 1, 0));
    l4_set_mr(1, (l4_word_t)value);
    /* The process waits in its call's receive phase: a send that cannot block lx. */
    if (l4_ipc_failed(l4_reply(t->tid)))
        printf("lx: pid %d: cannot answer its call\n", t->pid);
}

struct task *task_spawn(struct mm *mm, l4_word_t entry, l4_word_t sp, const char *execfn,
                        int argc, char *const argv[], int *err)
{
    int dummy;
    if (!err)
        err = &dummy;
    *err = -ENOMEM;
    struct task *t = task_alloc();
    if (!t) {
        printf("lx: no free process slot\n");
        mm_destroy(mm);
        *err = -EAGAIN;
        return NULL;
    }
    t->mm = *mm;                    /* the process's now */
    task_rlimit_defaults(t);
    if (!vfs_task_init(t)) {
        printf("lx: out of memory\n");
        mm_destroy(&t->mm);
        return NULL;
    }
    if ((*err = task_create_thread(t))) {
        vfs_task_exit(t);
        mm_destroy(&t->mm);
        return NULL;
    }
    task_set_comm(t, execfn);
    proc_task_exec(t, argc, argv);  /* /proc/N/cmdline */
    /* As Linux's init: no parent, process group and session 0 until it calls setsid. */
    t->ppid = t->pgid = t->sid = 0;
    /* The start message (the thread waits for it from its pager): every register 0 but
     * RIP and RSP, so RDX = 0 at _start as Linux leaves it (no atexit function). */
    l4_set_mr(0, l4_tag_make(0, 2, 0));
    l4_set_mr(1, entry);
    l4_set_mr(2, sp);
    if (l4_ipc_failed(l4_reply(t->tid))) {
        printf("lx: cannot start pid %d\n", t->pid);
        *err = -EAGAIN;
        task_exit(t, 0);
        return NULL;
    }
    return t;
}

/* Linux's limits for init (INIT_RLIMITS), with RLIMIT_NOFILE's hard limit at fs.nr_open as
 * a systemd machine sets it: the programs lx starts get these, their children inherit. */
void task_rlimit_defaults(struct task *t)
{
    for (unsigned r = 0; r < RLIM_NLIMITS; r++)
        t->rlim[r] = (struct rlimit64){ RLIM_INFINITY, RLIM_INFINITY };
    t->rlim[RLIMIT_STACK].cur = 8ul << 20;
    t->rlim[RLIMIT_CORE].cur = 0;   /* no core files (and no core flag in wait statuses) */
    t->rlim[RLIMIT_NOFILE] = (struct rlimit64){ 1024, 1u << 20 };
    t->rlim[8] = (struct rlimit64){ 8ul << 20, 8ul << 20 };     /* RLIMIT_MEMLOCK */
    t->rlim[12] = (struct rlimit64){ 819200, 819200 };           /* RLIMIT_MSGQUEUE */
    t->rlim[13] = t->rlim[14] = (struct rlimit64){ 0, 0 };       /* RLIMIT_NICE, _RTPRIO */
}

void task_set_comm(struct task *t, const char *path)
{
    const char *base = path;
    for (const char *p = path; *p; p++)
        if (*p == '/' && p[1])
            base = p + 1;
    memset(t->comm, 0, sizeof t->comm);
    strncpy(t->comm, base, sizeof t->comm - 1);
}

void task_free(struct task *t)
{
    if (t->state != TASK_FREE)
        ntasks--;
    t->state = TASK_FREE;
}

void task_exit(struct task *t, int status)
{
    l4_word_t err;
    l4_root_call(ROOT_TASK_DELETE, t->tid, 0, 0, 0, &err);
    if (err)
        printf("lx: pid %d: cannot delete its task (error %lu)\n", t->pid, err);
    vfs_task_exit(t);
    mm_destroy(&t->mm);
    task_drop_exe(t);
    if (status & 0x7F)
        printf("lx: pid %d killed by signal %d\n", t->pid, status & 0x7F);
    else
        printf("lx: pid %d exited with status %d\n", t->pid, (status >> 8) & 0xFF);
    t->status = status;
    tty_task_exit(t);               /* a session leader's terminal hangs up (tty/tty.c) */
    park_task_exit(t);
    t->park = PARK_NONE;
    /* Its children lose their parent: zombies go, the living are freed when they end
     * (Linux hands them to init, which reaps them). */
    for (unsigned i = 0; i < LX_MAX_TASKS; i++) {
        struct task *c = &tasks[i];
        if (c->state == TASK_FREE || c->ppid != t->pid || c == t)
            continue;
        if (c->state == TASK_ZOMBIE)
            task_free(c);
        else
            c->ppid = 0;
    }
    struct task *parent = t->ppid ? task_by_pid(t->ppid) : NULL;
    if (!parent || parent->state != TASK_RUNNING) {
        task_free(t);
        return;
    }
    t->state = TASK_ZOMBIE;
    fork_vfork_done(t);
    /* SIGCHLD (or clone's exit signal) with its siginfo; the parent's wait4 looks again. */
    signal_child_event(t, !(status & 0x7F) ? CLD_EXITED : (status & 0x80) ? CLD_DUMPED
                                                                         : CLD_KILLED);
    /* A parent that ignores SIGCHLD (or has SA_NOCLDWAIT) leaves no zombies. */
    if (signal_child_autoreap(parent, t))
        task_free(t);
}
