/* The system-call table: every x86-64 Linux number has an entry, a handler with its status
 * or none.  A call without a handler returns -ENOSYS and is counted per number;
 * syscall_report() lists the counts, so the next gap is visible (issue 8 item 7). */
#include "syscalls/table.h"
#include "lib/errno.h"
#include "signal/signal.h"
#include "syscalls/handlers.h"
#include "syscalls/handlers_events.h"
#include "task/cputime.h"
#include <stdio.h>

/* Each entry: the handler, how much of Linux's call it does and a note (gVisor's table is
 * the model).  FULL: as Linux, for everything lx has (one user, one CPU, memory only);
 * PARTIAL: some requests or flags are missing or differ, the note says which; STUB: accepted
 * and checked, nothing done; NONE (or no entry): ENOSYS, counted.  tools/lx_syscalls.py
 * makes docs/linux/syscalls.md from this table.  One handler may serve several calls
 * (getuid for the four id queries); each entry still says its own status. */
#define FULL(fn, note)    { fn, SYS_FULL, note }
#define PARTIAL(fn, note) { fn, SYS_PARTIAL, note }
#define STUB(fn, note)    { fn, SYS_STUB, note }
#define NONE(note)        { NULL, SYS_NONE, note }

static const struct sys_entry table[LX_NSYSCALLS] = {
    [0] = FULL(sys_read, ""),
    [1] = FULL(sys_write, ""),
    [2] = FULL(sys_open, ""),
    [3] = FULL(sys_close, ""),
    [4] = FULL(sys_stat, ""),
    [5] = FULL(sys_fstat, ""),
    [6] = FULL(sys_lstat, ""),
    [7] = FULL(sys_poll, ""),
    [8] = FULL(sys_lseek, ""),
    [9] = PARTIAL(sys_mmap, "anonymous, files with a page provider (tmpfs) and /dev/zero; MAP_PRIVATE file pages copied at the first touch"),
    [10] = FULL(sys_mprotect, ""),
    [11] = FULL(sys_munmap, ""),
    [12] = FULL(sys_brk, ""),
    [13] = FULL(sys_rt_sigaction, ""),
    [14] = FULL(sys_rt_sigprocmask, ""),
    [15] = FULL(sys_rt_sigreturn, "the frame's FPU area is fxsave's: no AVX state"),
    [16] = PARTIAL(sys_ioctl, "the generic requests and each file's own operation (the tty's, pipes' FIONREAD); no FIOASYNC, FIGETBSZ"),
    [17] = FULL(sys_pread64, ""),
    [18] = FULL(sys_pwrite64, ""),
    [19] = FULL(sys_readv, ""),
    [20] = FULL(sys_writev, ""),
    [21] = FULL(sys_access, ""),
    [22] = FULL(sys_pipe, ""),
    [23] = FULL(sys_select, ""),
    [24] = FULL(sys_sched_yield, ""),
    [25] = PARTIAL(sys_mremap, "MREMAP_DONTUNMAP is EINVAL"),
    [26] = FULL(sys_msync, "shared file pages are the file's own: nothing to write back"),
    [28] = PARTIAL(sys_madvise, "MADV_DONTNEED acts; the other advice is checked and ignored"),
    [32] = FULL(sys_dup, ""),
    [33] = FULL(sys_dup2, ""),
    [34] = FULL(sys_pause, ""),
    [35] = FULL(sys_nanosleep, ""),
    [36] = PARTIAL(sys_getitimer, "ITIMER_REAL only"),
    [37] = FULL(sys_alarm, ""),
    [38] = PARTIAL(sys_setitimer, "ITIMER_REAL only"),
    [39] = FULL(sys_getpid, ""),
    [40] = PARTIAL(sys_sendfile, "never waits for a full pipe"),
    [56] = PARTIAL(sys_clone, "namespaces: EINVAL; a pidfd only names the process; a new thread starts with the initial FPU state"),
    [57] = FULL(sys_fork, ""),
    [58] = FULL(sys_vfork, ""),
    [59] = FULL(sys_execve, ""),
    [60] = FULL(sys_exit, ""),
    [61] = FULL(sys_wait4, ""),
    [62] = FULL(sys_kill, ""),
    [63] = FULL(sys_uname, ""),
    [72] = PARTIAL(sys_fcntl, "no F_SETOWN/F_SETSIG (SIGIO), leases, F_NOTIFY or seals; record locks without deadlock detection"),
    [73] = FULL(sys_flock, ""),
    [74] = FULL(sys_fsync, "everything is in memory"),
    [75] = FULL(sys_fdatasync, "everything is in memory"),
    [76] = FULL(sys_truncate, ""),
    [77] = FULL(sys_ftruncate, ""),
    [78] = FULL(sys_getdents, ""),
    [79] = FULL(sys_getcwd, ""),
    [80] = FULL(sys_chdir, ""),
    [81] = FULL(sys_fchdir, ""),
    [82] = FULL(sys_rename, ""),
    [83] = FULL(sys_mkdir, ""),
    [84] = FULL(sys_rmdir, ""),
    [85] = FULL(sys_creat, ""),
    [86] = FULL(sys_link, ""),
    [87] = FULL(sys_unlink, ""),
    [88] = FULL(sys_symlink, ""),
    [89] = FULL(sys_readlink, ""),
    [90] = FULL(sys_chmod, ""),
    [91] = FULL(sys_fchmod, ""),
    [92] = FULL(sys_chown, ""),
    [93] = FULL(sys_fchown, ""),
    [94] = FULL(sys_lchown, ""),
    [95] = FULL(sys_umask, ""),
    [96] = FULL(sys_gettimeofday, ""),
    [97] = FULL(sys_getrlimit, "the process's limits (Linux's defaults, RLIMIT_NOFILE hard 1048576)"),
    [98] = PARTIAL(sys_getrusage, "estimated CPU times; the other fields 0"),
    [99] = PARTIAL(sys_sysinfo, "no loads, no swap"),
    [100] = PARTIAL(sys_times, "estimated CPU times"),
    [102] = FULL(sys_getuid, "one user: root"),
    [104] = FULL(sys_getuid, "one user: root (getgid)"),
    [105] = PARTIAL(sys_setuid, "only to root: any other user is EPERM"),
    [106] = PARTIAL(sys_setuid, "only to root: any other group is EPERM (setgid)"),
    [107] = FULL(sys_getuid, "one user: root (geteuid)"),
    [108] = FULL(sys_getuid, "one user: root (getegid)"),
    [109] = FULL(sys_setpgid, ""),
    [110] = FULL(sys_getppid, ""),
    [111] = FULL(sys_getpgrp, ""),
    [112] = FULL(sys_setsid, ""),
    [113] = PARTIAL(sys_setreuid, "only to root"),
    [114] = PARTIAL(sys_setreuid, "only to root (setregid)"),
    [115] = FULL(sys_getgroups, "no supplementary groups"),
    [116] = PARTIAL(sys_setgroups, "group 0 only"),
    [117] = PARTIAL(sys_setresuid, "only to root"),
    [118] = FULL(sys_getresuid, "one user: root"),
    [119] = PARTIAL(sys_setresuid, "only to root (setresgid)"),
    [120] = FULL(sys_getresuid, "one user: root (getresgid)"),
    [121] = FULL(sys_getpgid, ""),
    [122] = STUB(sys_setfsuid, "returns 0, changes nothing"),
    [123] = STUB(sys_setfsuid, "returns 0, changes nothing (setfsgid)"),
    [124] = FULL(sys_getsid, ""),
    [127] = FULL(sys_rt_sigpending, ""),
    [128] = FULL(sys_rt_sigtimedwait, ""),
    [130] = FULL(sys_rt_sigsuspend, ""),
    [131] = FULL(sys_sigaltstack, ""),
    [132] = FULL(sys_utime, ""),
    [133] = FULL(sys_mknod, ""),
    [135] = PARTIAL(sys_personality, "PER_LINUX only"),
    [137] = FULL(sys_statfs, ""),
    [138] = FULL(sys_fstatfs, ""),
    [140] = PARTIAL(sys_getpriority, "nice 0 for everyone"),
    [141] = STUB(sys_setpriority, "accepted, not acted on"),
    [142] = PARTIAL(sys_sched_setparam, "SCHED_OTHER only"),
    [143] = FULL(sys_sched_getparam, ""),
    [144] = PARTIAL(sys_sched_setscheduler, "OTHER, BATCH, IDLE accepted; FIFO, RR: EPERM"),
    [145] = FULL(sys_sched_getscheduler, ""),
    [146] = FULL(sys_sched_get_priority_max, ""),
    [147] = FULL(sys_sched_get_priority_min, ""),
    [157] = PARTIAL(sys_prctl, "names, dumpable, pdeathsig (not acted on), no_new_privs; others EINVAL"),
    [158] = FULL(sys_arch_prctl, ""),
    [160] = PARTIAL(sys_setrlimit, "kept; only RLIMIT_NOFILE and RLIMIT_CORE act"),
    [162] = FULL(sys_sync, "everything is in memory"),
    [164] = FULL(sys_settimeofday, ""),
    [165] = PARTIAL(sys_mount, "tmpfs (with its options) and proc; no bind or move mounts"),
    [166] = PARTIAL(sys_umount2, "no lazy unmount (MNT_DETACH of a busy mount: EBUSY)"),
    [175] = NONE("no kernel modules: lx is the kernel"),
    [176] = NONE("no kernel modules: lx is the kernel"),
    [186] = FULL(sys_gettid, ""),
    [187] = FULL(sys_readahead, ""),
    [188] = PARTIAL(sys_setxattr, "tmpfs keeps trusted.*, security.* and user.* (as Linux 6.6); values up to 4 KiB (Linux: 64 KiB); no ACLs"),
    [189] = PARTIAL(sys_lsetxattr, "as setxattr"),
    [190] = PARTIAL(sys_fsetxattr, "as setxattr"),
    [191] = FULL(sys_getxattr, ""),
    [192] = FULL(sys_lgetxattr, ""),
    [193] = FULL(sys_fgetxattr, ""),
    [194] = FULL(sys_listxattr, ""),
    [195] = FULL(sys_llistxattr, ""),
    [196] = FULL(sys_flistxattr, ""),
    [197] = FULL(sys_removexattr, ""),
    [198] = FULL(sys_lremovexattr, ""),
    [199] = FULL(sys_fremovexattr, ""),
    [200] = FULL(sys_tkill, ""),
    [201] = FULL(sys_time, ""),
    [202] = PARTIAL(sys_futex, "priority inheritance does not change scheduling (the PI protocol and errors are Linux's)"),
    [203] = PARTIAL(sys_sched_setaffinity, "one CPU"),
    [204] = FULL(sys_sched_getaffinity, "one CPU"),
    [213] = FULL(sys_epoll_create, ""),
    [217] = FULL(sys_getdents64, ""),
    [218] = FULL(sys_set_tid_address, ""),
    [219] = FULL(sys_restart_syscall, "the interrupted sleep, poll or timed futex wait goes on (its restart block)"),
    [221] = FULL(sys_fadvise64, "checked; advice changes nothing in memory"),
    [222] = PARTIAL(sys_timer_create, "CPU-time clocks by lx's estimate; RLIMIT_SIGPENDING counts the process's timers; no clocks of other processes (negative ids)"),
    [223] = FULL(sys_timer_settime, ""),
    [224] = FULL(sys_timer_gettime, ""),
    [225] = FULL(sys_timer_getoverrun, ""),
    [226] = FULL(sys_timer_delete, ""),
    [227] = PARTIAL(sys_clock_settime, "CLOCK_REALTIME only"),
    [228] = FULL(sys_clock_gettime, ""),
    [229] = PARTIAL(sys_clock_getres, "reports 1 us"),
    [230] = FULL(sys_clock_nanosleep, ""),
    [231] = FULL(sys_exit_group, ""),
    [232] = PARTIAL(sys_epoll_wait, "level-triggered only (EPOLLET accepted)"),
    [233] = PARTIAL(sys_epoll_ctl, "no nesting; EPOLLEXCLUSIVE and EPOLLWAKEUP mean nothing"),
    [234] = FULL(sys_tgkill, ""),
    [235] = FULL(sys_utimes, ""),
    [246] = NONE("no kexec: lx is not replaced"),
    [247] = FULL(sys_waitid, ""),
    [257] = FULL(sys_openat, ""),
    [258] = FULL(sys_mkdirat, ""),
    [259] = FULL(sys_mknodat, ""),
    [260] = FULL(sys_fchownat, ""),
    [261] = FULL(sys_futimesat, ""),
    [262] = FULL(sys_newfstatat, ""),
    [263] = FULL(sys_unlinkat, ""),
    [264] = FULL(sys_renameat, ""),
    [265] = FULL(sys_linkat, ""),
    [266] = FULL(sys_symlinkat, ""),
    [267] = FULL(sys_readlinkat, ""),
    [268] = FULL(sys_fchmodat, ""),
    [269] = FULL(sys_faccessat, ""),
    [270] = FULL(sys_pselect6, ""),
    [271] = FULL(sys_ppoll, ""),
    [273] = FULL(sys_set_robust_list, ""),
    [274] = FULL(sys_get_robust_list, ""),
    [280] = FULL(sys_utimensat, ""),
    [281] = PARTIAL(sys_epoll_pwait, "level-triggered only"),
    [282] = FULL(sys_signalfd, ""),
    [283] = FULL(sys_timerfd_create, ""),
    [284] = FULL(sys_eventfd, ""),
    [286] = FULL(sys_timerfd_settime, ""),
    [287] = FULL(sys_timerfd_gettime, ""),
    [289] = FULL(sys_signalfd4, ""),
    [290] = FULL(sys_eventfd2, ""),
    [291] = FULL(sys_epoll_create1, ""),
    [292] = FULL(sys_dup3, ""),
    [293] = PARTIAL(sys_pipe2, "O_DIRECT (packet mode) is EINVAL"),
    [302] = PARTIAL(sys_prlimit64, "kept; only RLIMIT_NOFILE and RLIMIT_CORE act"),
    [306] = FULL(sys_syncfs, "everything is in memory"),
    [309] = FULL(sys_getcpu, "CPU 0, node 0"),
    [313] = NONE("no kernel modules: lx is the kernel"),
    [316] = PARTIAL(sys_renameat2, "RENAME_EXCHANGE and RENAME_WHITEOUT are EINVAL"),
    [318] = PARTIAL(sys_getrandom, "not cryptographic"),
    [320] = NONE("no kexec: lx is not replaced"),
    [324] = FULL(sys_membarrier, "one CPU: every barrier is there when lx answers"),
    [332] = PARTIAL(sys_statx, "no birth time"),
    [435] = PARTIAL(sys_clone3, "as clone; set_tid in the one pid namespace; no namespaces, no cgroups (CLONE_INTO_CGROUP: EBADF)"),
    [439] = FULL(sys_faccessat2, ""),
    [441] = PARTIAL(sys_epoll_pwait2, "level-triggered only"),
    [449] = FULL(sys_futex_waitv, ""),
};

static unsigned long unimplemented[LX_NSYSCALLS];
static unsigned long out_of_range;

static long call(struct thread *t, const struct sysargs *a)
{
    if (!t->park.retrying) {
        t->nsyscalls++;
        t->park.use = PARK_USE_NONE;    /* a new call: no scratch of an earlier one */
    }
    if (a->nr < LX_NSYSCALLS && table[a->nr].fn) {
        cpu_enter(t);
        long r = table[a->nr].fn(t, a);
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
    bool restart = r >= -ERESTART_RESTARTBLOCK && r <= -ERESTARTSYS;
    if ((signal_pending(t) || restart || t->proc->sig.stopped) && r != LX_PARK &&
        r != LX_NOREPLY && r != LX_REPLIED)
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
