/* What proc shows of a process that struct task does not hold: the arguments and the start
 * time, by task slot; set at spawn and execve, copied at fork.  (The executable is the
 * task's: task/exec.c.) */
#include "fs/proc/proc.h"
#include "task/exec.h"
#include "task/process.h"
#include <string.h>

#define CMDLINE_MAX 512

struct info {
    int pid;
    char cmdline[CMDLINE_MAX];
    size_t cmdlen;
    unsigned long start;
};

static struct info infos[LX_MAX_TASKS];

static struct info *info_of(struct task *t)
{
    unsigned slot = (unsigned)(t - task_slot(0));
    if (slot >= LX_MAX_TASKS)
        return NULL;
    struct info *in = &infos[slot];
    if (in->pid == -1 && t->pid)
        in->pid = t->pid;           /* set before the pid was (fork, spawn) */
    if (in->pid != t->pid && in->pid != -1) {   /* a slot used before: nothing known */
        memset(in, 0, sizeof *in);
        in->pid = t->pid;
    }
    return in;
}

void proc_task_exec(struct task *t, int argc, char *const argv[])
{
    struct info *in = info_of(t);
    if (!in)
        return;
    in->pid = t->pid ? t->pid : -1;
    in->cmdlen = 0;
    for (int i = 0; i < argc; i++) {
        size_t n = strlen(argv[i]) + 1;
        if (in->cmdlen + n > CMDLINE_MAX)
            break;
        memcpy(in->cmdline + in->cmdlen, argv[i], n);
        in->cmdlen += n;
    }
    if (!in->start)
        in->start = l4_system_clock();
}

void proc_task_fork(struct task *child, struct task *parent)
{
    struct info *c = info_of(child), *p = info_of(parent);
    if (!c || !p)
        return;
    *c = *p;
    c->pid = child->pid ? child->pid : -1;
    c->start = l4_system_clock();
}

const char *proc_task_comm(struct task *t)
{
    return t->comm;                 /* set at exec, or by prctl(PR_SET_NAME) */
}

const char *proc_task_cmdline(struct task *t, size_t *len)
{
    struct info *in = info_of(t);
    *len = in ? in->cmdlen : 0;
    return in ? in->cmdline : "";
}

unsigned long proc_task_start(struct task *t)
{
    struct info *in = info_of(t);
    return in ? in->start : 0;
}
