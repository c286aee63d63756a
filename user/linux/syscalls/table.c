/* The system-call table: every x86-64 Linux number has an entry, a handler or none.  A call
 * without a handler returns -ENOSYS and is counted per number; syscall_report() lists the
 * counts, so the next gap is visible (issue 8 item 7). */
#include "syscalls/table.h"
#include "lib/errno.h"
#include "signal/signal.h"
#include "syscalls/handlers.h"
#include "task/cputime.h"
#include <stdio.h>

static const sys_handler table[LX_NSYSCALLS] = {
    [0] = sys_read,
    [1] = sys_write,
    [2] = sys_open,
    [3] = sys_close,
    [4] = sys_stat,
    [5] = sys_fstat,
    [6] = sys_lstat,
    [7] = sys_poll,
    [8] = sys_lseek,
    [9] = sys_mmap,
    [10] = sys_mprotect,
    [11] = sys_munmap,
    [12] = sys_brk,
    [13] = sys_rt_sigaction,
    [14] = sys_rt_sigprocmask,
    [15] = sys_rt_sigreturn,
    [16] = sys_ioctl,
    [17] = sys_pread64,
    [18] = sys_pwrite64,
    [19] = sys_readv,
    [20] = sys_writev,
    [21] = sys_access,
    [22] = sys_pipe,
    [23] = sys_select,
    [24] = sys_sched_yield,
    [25] = sys_mremap,
    [26] = sys_msync,
    [28] = sys_madvise,
    [32] = sys_dup,
    [33] = sys_dup2,
    [34] = sys_pause,
    [35] = sys_nanosleep,
    [36] = sys_getitimer,
    [37] = sys_alarm,
    [38] = sys_setitimer,
    [39] = sys_getpid,
    [40] = sys_sendfile,
    [56] = sys_clone,
    [57] = sys_fork,
    [58] = sys_vfork,
    [59] = sys_execve,
    [60] = sys_exit,
    [61] = sys_wait4,
    [62] = sys_kill,
    [63] = sys_uname,
    [72] = sys_fcntl,
    [73] = sys_flock,
    [74] = sys_fsync,
    [75] = sys_fdatasync,
    [76] = sys_truncate,
    [77] = sys_ftruncate,
    [78] = sys_getdents,
    [79] = sys_getcwd,
    [80] = sys_chdir,
    [81] = sys_fchdir,
    [82] = sys_rename,
    [83] = sys_mkdir,
    [84] = sys_rmdir,
    [85] = sys_creat,
    [86] = sys_link,
    [87] = sys_unlink,
    [88] = sys_symlink,
    [89] = sys_readlink,
    [90] = sys_chmod,
    [91] = sys_fchmod,
    [92] = sys_chown,
    [93] = sys_fchown,
    [94] = sys_lchown,
    [95] = sys_umask,
    [96] = sys_gettimeofday,
    [97] = sys_getrlimit,
    [98] = sys_getrusage,
    [99] = sys_sysinfo,
    [100] = sys_times,
    [102] = sys_getuid,         /* getuid */
    [104] = sys_getuid,         /* getgid */
    [105] = sys_setuid,
    [106] = sys_setuid,
    [107] = sys_getuid,         /* geteuid */
    [108] = sys_getuid,         /* getegid */
    [109] = sys_setpgid,
    [110] = sys_getppid,
    [111] = sys_getpgrp,
    [112] = sys_setsid,
    [113] = sys_setreuid,
    [114] = sys_setreuid,
    [115] = sys_getgroups,
    [116] = sys_setgroups,
    [117] = sys_setresuid,
    [118] = sys_getresuid,
    [119] = sys_setresuid,
    [120] = sys_getresuid,
    [121] = sys_getpgid,
    [122] = sys_setfsuid,
    [123] = sys_setfsuid,
    [124] = sys_getsid,
    [127] = sys_rt_sigpending,
    [128] = sys_rt_sigtimedwait,
    [130] = sys_rt_sigsuspend,
    [131] = sys_sigaltstack,
    [132] = sys_utime,
    [133] = sys_mknod,
    [135] = sys_personality,
    [137] = sys_statfs,
    [138] = sys_fstatfs,
    [140] = sys_getpriority,
    [141] = sys_setpriority,
    [142] = sys_sched_setparam,
    [143] = sys_sched_getparam,
    [144] = sys_sched_setscheduler,
    [145] = sys_sched_getscheduler,
    [146] = sys_sched_get_priority_max,
    [147] = sys_sched_get_priority_min,
    [157] = sys_prctl,
    [158] = sys_arch_prctl,
    [160] = sys_setrlimit,
    [162] = sys_sync,
    [164] = sys_settimeofday,
    [165] = sys_mount,
    [166] = sys_umount2,
    [186] = sys_gettid,
    [187] = sys_readahead,
    [200] = sys_tkill,
    [201] = sys_time,
    [203] = sys_sched_setaffinity,
    [204] = sys_sched_getaffinity,
    [213] = sys_epoll_create,
    [217] = sys_getdents64,
    [218] = sys_set_tid_address,
    [219] = sys_restart_syscall,
    [221] = sys_fadvise64,
    [227] = sys_clock_settime,
    [228] = sys_clock_gettime,
    [229] = sys_clock_getres,
    [230] = sys_clock_nanosleep,
    [231] = sys_exit_group,
    [232] = sys_epoll_wait,
    [233] = sys_epoll_ctl,
    [234] = sys_tgkill,
    [235] = sys_utimes,
    [247] = sys_waitid,
    [257] = sys_openat,
    [258] = sys_mkdirat,
    [259] = sys_mknodat,
    [260] = sys_fchownat,
    [261] = sys_futimesat,
    [262] = sys_newfstatat,
    [263] = sys_unlinkat,
    [264] = sys_renameat,
    [265] = sys_linkat,
    [266] = sys_symlinkat,
    [267] = sys_readlinkat,
    [268] = sys_fchmodat,
    [269] = sys_faccessat,
    [270] = sys_pselect6,
    [271] = sys_ppoll,
    [273] = sys_set_robust_list,
    [280] = sys_utimensat,
    [281] = sys_epoll_pwait,
    [291] = sys_epoll_create1,
    [292] = sys_dup3,
    [293] = sys_pipe2,
    [302] = sys_prlimit64,
    [306] = sys_syncfs,
    [309] = sys_getcpu,
    [316] = sys_renameat2,
    [318] = sys_getrandom,
    [332] = sys_statx,
    [439] = sys_faccessat2,
    [441] = sys_epoll_pwait2,
};

static unsigned long unimplemented[LX_NSYSCALLS];
static unsigned long out_of_range;

static long call(struct thread *t, const struct sysargs *a)
{
    t->nsyscalls += !t->park.retrying;
    if (a->nr < LX_NSYSCALLS && table[a->nr]) {
        cpu_enter(t);
        long r = table[a->nr](t, a);
        cpu_leave(t, r != LX_PARK && r != LX_NOREPLY);   /* waits are no CPU time */
        return r;
    }
    if (a->nr < LX_NSYSCALLS) {
        if (!unimplemented[a->nr]++)
            printf("lx: pid %d: system call %lu (%s) not implemented\n", thread_pid(t), a->nr,
                   sys_names[a->nr] ? sys_names[a->nr] : "unassigned");
    } else {
        out_of_range++;
    }
    return -ENOSYS;
}

unsigned long syscall_unimplemented(unsigned nr)
{
    return nr < LX_NSYSCALLS ? unimplemented[nr] : 0;
}

long syscall_dispatch(struct thread *t, const struct sysargs *a)
{
    long r = call(t, a);
    /* Pending signals are delivered on the way out of every call (signal/signal.c); an ERESTART
     * code (a handler that raised a signal to restart its call) never reaches the process. */
    bool restart = r >= -ERESTARTNOHAND && r <= -ERESTARTSYS;
    if ((signal_pending(t) || restart) && r != LX_PARK && r != LX_NOREPLY && r != LX_REPLIED)
        r = signal_syscall_return(t, a, r);
    return r;
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
