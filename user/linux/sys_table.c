/* The system-call table: every x86-64 Linux number has an entry, a handler or none.  A call
 * without a handler returns -ENOSYS and is counted per number; syscall_report() lists the
 * counts, so the next gap is visible (issue 8 item 7). */
#include "lx.h"
#include <stdio.h>

static const sys_handler table[LX_NSYSCALLS] = {
    [0] = sys_read,
    [1] = sys_write,
    [9] = sys_mmap,
    [10] = sys_mprotect,
    [11] = sys_munmap,
    [12] = sys_brk,
    [13] = sys_rt_sigaction,
    [14] = sys_rt_sigprocmask,
    [16] = sys_ioctl,
    [20] = sys_writev,
    [39] = sys_getpid,
    [56] = sys_clone,
    [57] = sys_fork,
    [58] = sys_vfork,
    [59] = sys_execve,
    [60] = sys_exit,
    [61] = sys_wait4,
    [63] = sys_uname,
    [102] = sys_getuid,         /* getuid */
    [104] = sys_getuid,         /* getgid */
    [107] = sys_getuid,         /* geteuid */
    [108] = sys_getuid,         /* getegid */
    [109] = sys_setpgid,
    [110] = sys_getppid,
    [111] = sys_getpgrp,
    [112] = sys_setsid,
    [121] = sys_getpgid,
    [124] = sys_getsid,
    [158] = sys_arch_prctl,
    [186] = sys_gettid,
    [218] = sys_set_tid_address,
    [231] = sys_exit_group,
    [273] = sys_set_robust_list,
    [302] = sys_prlimit64,
    [318] = sys_getrandom,
};

static unsigned long unimplemented[LX_NSYSCALLS];
static unsigned long out_of_range;

long syscall_dispatch(struct task *t, const struct sysargs *a)
{
    t->nsyscalls++;
    if (a->nr < LX_NSYSCALLS && table[a->nr])
        return table[a->nr](t, a);
    if (a->nr < LX_NSYSCALLS) {
        if (!unimplemented[a->nr]++)
            printf("lx: pid %d: system call %lu (%s) not implemented\n", t->pid, a->nr,
                   sys_names[a->nr] ? sys_names[a->nr] : "unassigned");
    } else {
        out_of_range++;
    }
    return -ENOSYS;
}

void syscall_report(void)
{
    for (unsigned nr = 0; nr < LX_NSYSCALLS; nr++)
        if (unimplemented[nr])
            printf("lx: ENOSYS %s (%u): %lu\n", sys_names[nr] ? sys_names[nr] : "unassigned",
                   nr, unimplemented[nr]);
    if (out_of_range)
        printf("lx: ENOSYS numbers >= %u: %lu\n", LX_NSYSCALLS, out_of_range);
}
