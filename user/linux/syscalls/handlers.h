/* The system-call handlers, by the file that defines them (the table: table.c).  Each
 * decodes its arguments, copies in and out through mm/usercopy.h and calls the layers
 * below; it returns a value for RAX or one of park/park.h's special results. */
#ifndef LX_SYSCALLS_HANDLERS_H
#define LX_SYSCALLS_HANDLERS_H

#include "park/park.h"
#include "syscalls/cred_handlers.h"

struct thread;

/* fs/epoll/epoll.c: epoll */
long sys_epoll_create(struct thread *, const struct sysargs *);
long sys_epoll_create1(struct thread *, const struct sysargs *);
long sys_epoll_ctl(struct thread *, const struct sysargs *);
long sys_epoll_wait(struct thread *, const struct sysargs *);
long sys_epoll_pwait(struct thread *, const struct sysargs *);
long sys_epoll_pwait2(struct thread *, const struct sysargs *);

/* fs/pipe/pipe.c: pipes */
long sys_pipe(struct thread *, const struct sysargs *);
long sys_pipe2(struct thread *, const struct sysargs *);

/* syscalls/sys_futex.c: futexes */
long sys_futex(struct thread *, const struct sysargs *);
long sys_futex_waitv(struct thread *, const struct sysargs *);
long sys_get_robust_list(struct thread *, const struct sysargs *);

/* syscalls/sys_file.c: reading and writing open files */
long sys_read(struct thread *, const struct sysargs *);
long sys_write(struct thread *, const struct sysargs *);
long sys_pread64(struct thread *, const struct sysargs *);
long sys_pwrite64(struct thread *, const struct sysargs *);
long sys_readv(struct thread *, const struct sysargs *);
long sys_writev(struct thread *, const struct sysargs *);
long sys_lseek(struct thread *, const struct sysargs *);
long sys_ioctl(struct thread *, const struct sysargs *);
long sys_sendfile(struct thread *, const struct sysargs *);
long sys_fsync(struct thread *, const struct sysargs *);
long sys_fdatasync(struct thread *, const struct sysargs *);
long sys_sync(struct thread *, const struct sysargs *);
long sys_syncfs(struct thread *, const struct sysargs *);
long sys_readahead(struct thread *, const struct sysargs *);
long sys_fadvise64(struct thread *, const struct sysargs *);

/* syscalls/sys_fs.c: the file tree */
long sys_open(struct thread *, const struct sysargs *);
long sys_openat(struct thread *, const struct sysargs *);
long sys_creat(struct thread *, const struct sysargs *);
long sys_close(struct thread *, const struct sysargs *);
long sys_stat(struct thread *, const struct sysargs *);
long sys_lstat(struct thread *, const struct sysargs *);
long sys_fstat(struct thread *, const struct sysargs *);
long sys_newfstatat(struct thread *, const struct sysargs *);
long sys_getdents64(struct thread *, const struct sysargs *);
long sys_getdents(struct thread *, const struct sysargs *);
long sys_mkdir(struct thread *, const struct sysargs *);
long sys_mkdirat(struct thread *, const struct sysargs *);
long sys_rmdir(struct thread *, const struct sysargs *);
long sys_unlink(struct thread *, const struct sysargs *);
long sys_unlinkat(struct thread *, const struct sysargs *);
long sys_rename(struct thread *, const struct sysargs *);
long sys_renameat(struct thread *, const struct sysargs *);
long sys_renameat2(struct thread *, const struct sysargs *);
long sys_link(struct thread *, const struct sysargs *);
long sys_linkat(struct thread *, const struct sysargs *);
long sys_symlink(struct thread *, const struct sysargs *);
long sys_symlinkat(struct thread *, const struct sysargs *);
long sys_readlink(struct thread *, const struct sysargs *);
long sys_readlinkat(struct thread *, const struct sysargs *);
long sys_chdir(struct thread *, const struct sysargs *);
long sys_fchdir(struct thread *, const struct sysargs *);
long sys_getcwd(struct thread *, const struct sysargs *);
long sys_mknod(struct thread *, const struct sysargs *);
long sys_mknodat(struct thread *, const struct sysargs *);

/* syscalls/sys_fd.c: the fd table, fcntl, flock */
long sys_dup(struct thread *, const struct sysargs *);
long sys_dup2(struct thread *, const struct sysargs *);
long sys_dup3(struct thread *, const struct sysargs *);
long sys_fcntl(struct thread *, const struct sysargs *);
long sys_flock(struct thread *, const struct sysargs *);

/* syscalls/sys_attr.c: attributes */
long sys_access(struct thread *, const struct sysargs *);
long sys_faccessat(struct thread *, const struct sysargs *);
long sys_faccessat2(struct thread *, const struct sysargs *);
long sys_chmod(struct thread *, const struct sysargs *);
long sys_fchmod(struct thread *, const struct sysargs *);
long sys_fchmodat(struct thread *, const struct sysargs *);
long sys_truncate(struct thread *, const struct sysargs *);
long sys_ftruncate(struct thread *, const struct sysargs *);
long sys_umask(struct thread *, const struct sysargs *);
long sys_statx(struct thread *, const struct sysargs *);
long sys_utimensat(struct thread *, const struct sysargs *);
long sys_futimesat(struct thread *, const struct sysargs *);
long sys_utimes(struct thread *, const struct sysargs *);
long sys_utime(struct thread *, const struct sysargs *);
long sys_chown(struct thread *, const struct sysargs *);
long sys_lchown(struct thread *, const struct sysargs *);
long sys_fchownat(struct thread *, const struct sysargs *);
long sys_fchown(struct thread *, const struct sysargs *);

/* syscalls/sys_xattr.c: extended attributes */
long sys_setxattr(struct thread *, const struct sysargs *);
long sys_lsetxattr(struct thread *, const struct sysargs *);
long sys_fsetxattr(struct thread *, const struct sysargs *);
long sys_getxattr(struct thread *, const struct sysargs *);
long sys_lgetxattr(struct thread *, const struct sysargs *);
long sys_fgetxattr(struct thread *, const struct sysargs *);
long sys_listxattr(struct thread *, const struct sysargs *);
long sys_llistxattr(struct thread *, const struct sysargs *);
long sys_flistxattr(struct thread *, const struct sysargs *);
long sys_removexattr(struct thread *, const struct sysargs *);
long sys_lremovexattr(struct thread *, const struct sysargs *);
long sys_fremovexattr(struct thread *, const struct sysargs *);

/* syscalls/sys_mm.c: memory */
long sys_brk(struct thread *, const struct sysargs *);
long sys_mmap(struct thread *, const struct sysargs *);
long sys_munmap(struct thread *, const struct sysargs *);
long sys_mprotect(struct thread *, const struct sysargs *);
long sys_mremap(struct thread *, const struct sysargs *);
long sys_msync(struct thread *, const struct sysargs *);
long sys_madvise(struct thread *, const struct sysargs *);

/* syscalls/sys_mount.c: mounts and file systems */
long sys_mount(struct thread *, const struct sysargs *);
long sys_umount2(struct thread *, const struct sysargs *);
long sys_statfs(struct thread *, const struct sysargs *);
long sys_fstatfs(struct thread *, const struct sysargs *);

/* syscalls/sys_poll.c: readiness */
long sys_poll(struct thread *, const struct sysargs *);
long sys_ppoll(struct thread *, const struct sysargs *);
long sys_select(struct thread *, const struct sysargs *);
long sys_pselect6(struct thread *, const struct sysargs *);

/* syscalls/sys_proc.c: the process and its identity */
long sys_exit(struct thread *, const struct sysargs *);
long sys_exit_group(struct thread *, const struct sysargs *);
long sys_getpid(struct thread *, const struct sysargs *);
long sys_gettid(struct thread *, const struct sysargs *);
long sys_getppid(struct thread *, const struct sysargs *);
long sys_set_tid_address(struct thread *, const struct sysargs *);
long sys_set_robust_list(struct thread *, const struct sysargs *);
long sys_arch_prctl(struct thread *, const struct sysargs *);
long sys_syslog(struct thread *, const struct sysargs *);   /* sys_syslog.c */
long sys_uname(struct thread *, const struct sysargs *);    /* sys_uts.c */
long sys_sethostname(struct thread *, const struct sysargs *);
long sys_setdomainname(struct thread *, const struct sysargs *);
long sys_getrandom(struct thread *, const struct sysargs *);

/* syscalls/sys_signal.c: signals and ITIMER_REAL */
long sys_rt_sigaction(struct thread *, const struct sysargs *);
long sys_rt_sigprocmask(struct thread *, const struct sysargs *);
long sys_rt_sigpending(struct thread *, const struct sysargs *);
long sys_rt_sigreturn(struct thread *, const struct sysargs *);
long sys_restart_syscall(struct thread *, const struct sysargs *);
long sys_sigaltstack(struct thread *, const struct sysargs *);
long sys_kill(struct thread *, const struct sysargs *);
long sys_tkill(struct thread *, const struct sysargs *);
long sys_tgkill(struct thread *, const struct sysargs *);
long sys_pause(struct thread *, const struct sysargs *);
long sys_rt_sigsuspend(struct thread *, const struct sysargs *);
long sys_rt_sigtimedwait(struct thread *, const struct sysargs *);
long sys_alarm(struct thread *, const struct sysargs *);
long sys_getitimer(struct thread *, const struct sysargs *);
long sys_setitimer(struct thread *, const struct sysargs *);

/* syscalls/sys_system.c: limits, scheduling, the system */
long sys_prlimit64(struct thread *, const struct sysargs *);
long sys_getrlimit(struct thread *, const struct sysargs *);
long sys_setrlimit(struct thread *, const struct sysargs *);
long sys_sched_getaffinity(struct thread *, const struct sysargs *);
long sys_sched_setaffinity(struct thread *, const struct sysargs *);
long sys_sched_getscheduler(struct thread *, const struct sysargs *);
long sys_sched_getparam(struct thread *, const struct sysargs *);
long sys_sched_setscheduler(struct thread *, const struct sysargs *);
long sys_sched_setparam(struct thread *, const struct sysargs *);
long sys_sched_get_priority_max(struct thread *, const struct sysargs *);
long sys_sched_get_priority_min(struct thread *, const struct sysargs *);
long sys_getpriority(struct thread *, const struct sysargs *);
long sys_setpriority(struct thread *, const struct sysargs *);
long sys_getcpu(struct thread *, const struct sysargs *);
long sys_personality(struct thread *, const struct sysargs *);
long sys_sysinfo(struct thread *, const struct sysargs *);
long sys_membarrier(struct thread *, const struct sysargs *);
long sys_prctl(struct thread *, const struct sysargs *);

/* syscalls/sys_time.c: clocks and sleeps */
long sys_clock_gettime(struct thread *, const struct sysargs *);
long sys_clock_getres(struct thread *, const struct sysargs *);
long sys_clock_settime(struct thread *, const struct sysargs *);
long sys_gettimeofday(struct thread *, const struct sysargs *);
long sys_settimeofday(struct thread *, const struct sysargs *);
long sys_time(struct thread *, const struct sysargs *);
long sys_times(struct thread *, const struct sysargs *);
long sys_getrusage(struct thread *, const struct sysargs *);
long sys_sched_yield(struct thread *, const struct sysargs *);
long sys_nanosleep(struct thread *, const struct sysargs *);
long sys_clock_nanosleep(struct thread *, const struct sysargs *);

/* task/clone.c: fork, vfork, clone */
long sys_fork(struct thread *, const struct sysargs *);
long sys_vfork(struct thread *, const struct sysargs *);
long sys_clone(struct thread *, const struct sysargs *);
long sys_clone3(struct thread *, const struct sysargs *);

/* task/exec.c: execve */
long sys_execve(struct thread *, const struct sysargs *);

/* task/session.c: process groups and sessions */
long sys_setpgid(struct thread *, const struct sysargs *);
long sys_getpgid(struct thread *, const struct sysargs *);
long sys_getpgrp(struct thread *, const struct sysargs *);
long sys_setsid(struct thread *, const struct sysargs *);
long sys_getsid(struct thread *, const struct sysargs *);

/* task/wait.c: wait4, waitid */
long sys_wait4(struct thread *, const struct sysargs *);
long sys_waitid(struct thread *, const struct sysargs *);


#endif
