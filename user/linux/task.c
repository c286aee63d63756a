/* Processes: each is an L4 task of the foreign system-call ABI (one thread for now) whose
 * pager and handler is lx, created and deleted through the root task. */
#include "lx.h"
#include "vfs/vfs.h"
#include <stdio.h>
#include <string.h>

#define LX_PROCESS_PRIO 90          /* below lx (100): lx answers before they run on */

static struct task tasks[LX_MAX_TASKS];
static int next_pid = 1;
l4_word_t lx_self;

struct task *task_by_tid(l4_word_t tid)
{
    for (unsigned i = 0; i < LX_MAX_TASKS; i++)
        if (tasks[i].state == TASK_RUNNING && tasks[i].tid == tid)
            return &tasks[i];
    return NULL;
}

unsigned task_count(void)
{
    unsigned n = 0;
    for (unsigned i = 0; i < LX_MAX_TASKS; i++)
        n += tasks[i].state != TASK_FREE;
    return n;
}

struct task *task_spawn(const void *image, l4_word_t size, int argc, char *const argv[],
                        char *const envp[])
{
    struct task *t = NULL;
    for (unsigned i = 0; i < LX_MAX_TASKS && !t; i++)
        if (tasks[i].state == TASK_FREE)
            t = &tasks[i];
    if (!t) {
        printf("lx: no free process slot\n");
        return NULL;
    }
    memset(t, 0, sizeof *t);
    l4_word_t entry, sp, err;
    if (!mm_init(&t->mm) || !vfs_task_init(t)) {
        printf("lx: out of memory\n");
        mm_destroy(&t->mm);
        return NULL;
    }
    int e = elf_load(&t->mm, image, size, argc, argv, envp, &entry, &sp);
    if (e) {
        printf("lx: cannot load %s (error %d)\n", argc ? argv[0] : "?", -e);
        vfs_task_exit(t);
        mm_destroy(&t->mm);
        return NULL;
    }
    struct l4_task_params p = { .pager = lx_self, .priority = LX_PROCESS_PRIO,
                                .flags = ROOT_TASK_FOREIGN };
    t->tid = l4_task_create(&p, &err);
    if (!t->tid || err) {
        printf("lx: cannot create a task (error %lu)\n", err);
        vfs_task_exit(t);
        mm_destroy(&t->mm);
        return NULL;
    }
    t->pid = next_pid++;
    t->ppid = 0;
    t->state = TASK_RUNNING;
    /* The start message (the thread waits for it from its pager): every register 0 but
     * RIP and RSP, so RDX = 0 at _start as Linux leaves it (no atexit function). */
    l4_set_mr(0, l4_tag_make(0, 2, 0));
    l4_set_mr(1, entry);
    l4_set_mr(2, sp);
    if (l4_ipc_failed(l4_reply(t->tid))) {
        printf("lx: cannot start pid %d\n", t->pid);
        task_exit(t, 0);
        return NULL;
    }
    return t;
}

void task_exit(struct task *t, int status)
{
    l4_word_t err;
    l4_root_call(ROOT_TASK_DELETE, t->tid, 0, 0, 0, &err);
    if (err)
        printf("lx: pid %d: cannot delete its task (error %lu)\n", t->pid, err);
    vfs_task_exit(t);
    mm_destroy(&t->mm);
    if (status & 0x7F)
        printf("lx: pid %d killed by signal %d\n", t->pid, status & 0x7F);
    else
        printf("lx: pid %d exited with status %d\n", t->pid, (status >> 8) & 0xFF);
    /* No parent waits yet (wait4 comes with fork): the slot is free at once. */
    t->state = TASK_FREE;
}
