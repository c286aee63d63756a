/* The system-call handlers, by the file that defines them (the table: table.c).  Each
 * decodes its arguments, copies in and out through mm/usercopy.h and calls the layers
 * below; it returns a value for RAX or one of park/park.h's special results. */
#ifndef LX_SYSCALLS_HANDLERS_H
#define LX_SYSCALLS_HANDLERS_H

#include "park/park.h"

struct task;

/* fs/epoll/epoll.c: epoll */
long sys_epoll_create(struct task *, const struct sysargs *);
long sys_epoll_create1(struct task *, const struct sysargs *);
long sys_epoll_ctl(struct task *, const struct sysargs *);
long sys_epoll_wait(struct task *, const struct sysargs *);
long sys_epoll_pwait(struct task *, const struct sysargs *);
long sys_epoll_pwait2(struct task *, const struct sysargs *);

/* fs/pipe/pipe.c: pipes */
long sys_pipe(struct task *, const struct sysargs *);
long sys_pipe2(struct task *, const struct sysargs *);

/* syscalls/sys_file.c: reading and writing open files */
long sys_read(struct task *, const struct sysargs *);
long sys_write(struct task *, const struct sysargs *);
long sys_pread64(struct task *, const struct sysargs *);
long sys_pwrite64(struct task *, const struct sysargs *);
long sys_readv(struct task *, const struct sysargs *);
long sys_writev(struct task *, const struct sysargs *);
long sys_lseek(struct task *, const struct sysargs *);
long sys_ioctl(struct task *, const struct sysargs *);
long sys_sendfile(struct task *, const struct sysargs *);
long sys_fsync(struct task *, const struct sysargs *);
long sys_fdatasync(struct task *, const struct sysargs *);
long sys_sync(struct task *, const struct sysargs *);
long sys_syncfs(struct task *, const struct sysargs *);
long sys_readahead(struct task *, const struct sysargs *);
long sys_fadvise64(struct task *, const struct sysargs *);

/* syscalls/sys_fs.c: the file tree */
long sys_open(struct task *, const struct sysargs *);
long sys_openat(struct task *, const struct sysargs *);
long sys_creat(struct task *, const struct sysargs *);
long sys_close(struct task *, const struct sysargs *);
long sys_stat(struct task *, const struct sysargs *);
long sys_lstat(struct task *, const struct sysargs *);
long sys_fstat(struct task *, const struct sysargs *);
long sys_newfstatat(struct task *, const struct sysargs *);
long sys_getdents64(struct task *, const struct sysargs *);
long sys_getdents(struct task *, const struct sysargs *);
long sys_mkdir(struct task *, const struct sysargs *);
long sys_mkdirat(struct task *, const struct sysargs *);
long sys_rmdir(struct task *, const struct sysargs *);
long sys_unlink(struct task *, const struct sysargs *);
long sys_unlinkat(struct task *, const struct sysargs *);
long sys_rename(struct task *, const struct sysargs *);
long sys_renameat(struct task *, const struct sysargs *);
long sys_renameat2(struct task *, const struct sysargs *);
long sys_link(struct task *, const struct sysargs *);
long sys_linkat(struct task *, const struct sysargs *);
long sys_symlink(struct task *, const struct sysargs *);
long sys_symlinkat(struct task *, const struct sysargs *);
long sys_readlink(struct task *, const struct sysargs *);
long sys_readlinkat(struct task *, const struct sysargs *);
long sys_chdir(struct task *, const struct sysargs *);
long sys_fchdir(struct task *, const struct sysargs *);
long sys_getcwd(struct task *, const struct sysargs *);
long sys_mknod(struct task *, const struct sysargs *);
long sys_mknodat(struct task *, const struct sysargs *);

/* syscalls/sys_fd.c: the fd table, fcntl, flock */
long sys_dup(struct task *, const struct sysargs *);
long sys_dup2(struct task *, const struct sysargs *);
long sys_dup3(struct task *, const struct sysargs *);
long sys_fcntl(struct task *, const struct sysargs *);
long sys_flock(struct task *, const struct sysargs *);

/* syscalls/sys_attr.c: attributes */
long sys_access(struct task *, const struct sysargs *);
long sys_faccessat(struct task *, const struct sysargs *);
long sys_faccessat2(struct task *, const struct sysargs *);
long sys_chmod(struct task *, const struct sysargs *);
long sys_fchmod(struct task *, const struct sysargs *);
long sys_fchmodat(struct task *, const struct sysargs *);
long sys_truncate(struct task *, const struct sysargs *);
long sys_ftruncate(struct task *, const struct sysargs *);
long sys_umask(struct task *, const struct sysargs *);
long sys_statx(struct task *, const struct sysargs *);
long sys_utimensat(struct task *, const struct sysargs *);
long sys_futimesat(struct task *, const struct sysargs *);
long sys_utimes(struct task *, const struct sysargs *);
long sys_utime(struct task *, const struct sysargs *);
long sys_chown(struct task *, const struct sysargs *);
long sys_lchown(struct task *, const struct sysargs *);
long sys_fchownat(struct task *, const struct sysargs *);
long sys_fchown(struct task *, const struct sysargs *);

/* syscalls/sys_xattr.c: extended attributes */
long sys_setxattr(struct task *, const struct sysargs *);
long sys_lsetxattr(struct task *, const struct sysargs *);
long sys_fsetxattr(struct task *, const struct sysargs *);
long sys_getxattr(struct task *, const struct sysargs *);
long sys_lgetxattr(struct task *, const struct sysargs *);
long sys_fgetxattr(struct task *, const struct sysargs *);
long sys_listxattr(struct task *, const struct sysargs *);
long sys_llistxattr(struct task *, const struct sysargs *);
long sys_flistxattr(struct task *, const struct sysargs *);
long sys_removexattr(struct task *, const struct sysargs *);
long sys_lremovexattr(struct task *, const struct sysargs *);
long sys_fremovexattr(struct task *, const struct sysargs *);

/* syscalls/sys_mm.c: memory */
long sys_brk(struct task *, const struct sysargs *);
long sys_mmap(struct task *, const struct sysargs *);
long sys_munmap(struct task *, const struct sysargs *);
long sys_mprotect(struct task *, const struct sysargs *);
long sys_mremap(struct task *, const struct sysargs *);
long sys_msync(struct task *, const struct sysargs *);
long sys_madvise(struct task *, const struct sysargs *);

/* syscalls/sys_mount.c: mounts and file systems */
long sys_mount(struct task *, const struct sysargs *);
long sys_umount2(struct task *, const struct sysargs *);
long sys_statfs(struct task *, const struct sysargs *);
long sys_fstatfs(struct task *, const struct sysargs *);

/* syscalls/sys_poll.c: readiness */
long sys_poll(struct task *, const struct sysargs *);
long sys_ppoll(struct task *, const struct sysargs *);
long sys_select(struct task *, const struct sysargs *);
long sys_pselect6(struct task *, const struct sysargs *);

/* syscalls/sys_proc.c: the process and its identity */
long sys_exit(struct task *, const struct sysargs *);
long sys_exit_group(struct task *, const struct sysargs *);
long sys_getpid(struct task *, const struct sysargs *);
long sys_gettid(struct task *, const struct sysargs *);
long sys_getppid(struct task *, const struct sysargs *);
long sys_getuid(struct task *, const struct sysargs *);
long sys_set_tid_address(struct task *, const struct sysargs *);
long sys_set_robust_list(struct task *, const struct sysargs *);
long sys_arch_prctl(struct task *, const struct sysargs *);
long sys_uname(struct task *, const struct sysargs *);
long sys_getrandom(struct task *, const struct sysargs *);

/* syscalls/sys_signal.c: signals and ITIMER_REAL */
long sys_rt_sigaction(struct task *, const struct sysargs *);
long sys_rt_sigprocmask(struct task *, const struct sysargs *);
long sys_rt_sigpending(struct task *, const struct sysargs *);
long sys_rt_sigreturn(struct task *, const struct sysargs *);
long sys_sigaltstack(struct task *, const struct sysargs *);
long sys_kill(struct task *, const struct sysargs *);
long sys_tkill(struct task *, const struct sysargs *);
long sys_tgkill(struct task *, const struct sysargs *);
long sys_pause(struct task *, const struct sysargs *);
long sys_rt_sigsuspend(struct task *, const struct sysargs *);
long sys_rt_sigtimedwait(struct task *, const struct sysargs *);
long sys_alarm(struct task *, const struct sysargs *);
long sys_getitimer(struct task *, const struct sysargs *);
long sys_setitimer(struct task *, const struct sysargs *);

/* syscalls/sys_system.c: users, limits, scheduling, the system */
long sys_setuid(struct task *, const struct sysargs *);
long sys_setreuid(struct task *, const struct sysargs *);
long sys_setresuid(struct task *, const struct sysargs *);
long sys_getresuid(struct task *, const struct sysargs *);
long sys_setfsuid(struct task *, const struct sysargs *);
long sys_getgroups(struct task *, const struct sysargs *);
long sys_setgroups(struct task *, const struct sysargs *);
long sys_prlimit64(struct task *, const struct sysargs *);
long sys_getrlimit(struct task *, const struct sysargs *);
long sys_setrlimit(struct task *, const struct sysargs *);
long sys_sched_getaffinity(struct task *, const struct sysargs *);
long sys_sched_setaffinity(struct task *, const struct sysargs *);
long sys_sched_getscheduler(struct task *, const struct sysargs *);
long sys_sched_getparam(struct task *, const struct sysargs *);
long sys_sched_setscheduler(struct task *, const struct sysargs *);
long sys_sched_setparam(struct task *, const struct sysargs *);
long sys_sched_get_priority_max(struct task *, const struct sysargs *);
long sys_sched_get_priority_min(struct task *, const struct sysargs *);
long sys_getpriority(struct task *, const struct sysargs *);
long sys_setpriority(struct task *, const struct sysargs *);
long sys_getcpu(struct task *, const struct sysargs *);
long sys_personality(struct task *, const struct sysargs *);
long sys_sysinfo(struct task *, const struct sysargs *);
long sys_prctl(struct task *, const struct sysargs *);

/* syscalls/sys_time.c: clocks and sleeps */
long sys_clock_gettime(struct task *, const struct sysargs *);
long sys_clock_getres(struct task *, const struct sysargs *);
long sys_clock_settime(struct task *, const struct sysargs *);
long sys_gettimeofday(struct task *, const struct sysargs *);
long sys_settimeofday(struct task *, const struct sysargs *);
long sys_time(struct task *, const struct sysargs *);
long sys_times(struct task *, const struct sysargs *);
long sys_getrusage(struct task *, const struct sysargs *);
long sys_sched_yield(struct task *, const struct sysargs *);
long sys_nanosleep(struct task *, const struct sysargs *);
long sys_clock_nanosleep(struct task *, const struct sysargs *);

/* task/clone.c: fork, vfork, clone */
long sys_fork(struct task *, const struct sysargs *);
long sys_vfork(struct task *, const struct sysargs *);
long sys_clone(struct task *, const struct sysargs *);

/* task/exec.c: execve */
long sys_execve(struct task *, const struct sysargs *);

/* task/session.c: process groups and sessions */
long sys_setpgid(struct task *, const struct sysargs *);
long sys_getpgid(struct task *, const struct sysargs *);
long sys_getpgrp(struct task *, const struct sysargs *);
long sys_setsid(struct task *, const struct sysargs *);
long sys_getsid(struct task *, const struct sysargs *);

/* task/wait.c: wait4, waitid */
long sys_wait4(struct task *, const struct sysargs *);
long sys_waitid(struct task *, const struct sysargs *);

/* syscalls/sys_time.c: a nanosleep/clock_nanosleep parked on its deadline that a signal
 * ends: writes the remaining time where the call asked (relative sleeps) and returns -EINTR.
 * For the signal layer (not called yet: issue 13 item 5). */
long clock_sleep_interrupted(struct task *t);

#endif
