/* What processes share, and calls that look across processes (docs/linux/sharing.md):
 * unshare and setns (task/unshare.c: lx has no namespaces), kcmp
 * (task/kcmp.c), process_vm_readv/writev (mm/process_vm.c). */
#ifndef LX_TASK_SHARING_H
#define LX_TASK_SHARING_H

#include "park/park.h"

struct thread;
struct process;
struct file;

long sys_unshare(struct thread *, const struct sysargs *);
long sys_chroot(struct thread *, const struct sysargs *);  /* syscalls/sys_fs.c */
long sys_execveat(struct thread *, const struct sysargs *); /* task/exec.c */
long sys_openat2(struct thread *, const struct sysargs *);  /* syscalls/sys_openat2.c */
long sys_setns(struct thread *, const struct sysargs *);
long sys_kcmp(struct thread *, const struct sysargs *);
long sys_process_vm_readv(struct thread *, const struct sysargs *);
long sys_process_vm_writev(struct thread *, const struct sysargs *);

/* Linux's ptrace_may_access with PTRACE_MODE_*_REALCREDS: may t look at (or into) p?  Its
 * own process always; else the same real ids as all of p's and p dumpable, or
 * CAP_SYS_PTRACE. */
bool ptrace_may_access(const struct thread *t, const struct process *p);

/* fs/epoll/epoll.c, for KCMP_EPOLL_TFD: the file registered in epoll file ep under fd tfd
 * (the toff-th entry with that fd), or NULL with *err (-EINVAL: ep is no epoll file,
 * -ENOENT). */
struct file *epoll_target(struct file *ep, int tfd, unsigned long toff, int *err);

#endif
