/* The handlers of issue 14 item 2's plain calls (task G), by the file that defines them; the
 * table is table.c.  Kept apart from handlers.h so that parallel work touches one line there. */
#ifndef LX_SYSCALLS_HANDLERS_MORE_H
#define LX_SYSCALLS_HANDLERS_MORE_H

#include "park/park.h"

struct thread;
struct file;
struct uio;

/* syscalls/sys_file.c: readv's iovecs at uvec (n of them) copied in and checked as Linux's
 * import_iovec, u set up over them: 0 or -errno (EINVAL, EFAULT). */
long iov_import(struct thread *t, l4_word_t uvec, l4_word_t n, struct uio *u);

/* syscalls/sys_memfd.c: memfd_create and the seal fcntls */
long sys_memfd_create(struct thread *, const struct sysargs *);
/* F_ADD_SEALS/F_GET_SEALS of f (sys_fcntl): the seals, 0 or -errno (EINVAL: no seals). */
long memfd_fcntl(struct file *f, unsigned cmd, unsigned long arg);
/* The name /proc/N/fd shows for a memfd ("/memfd:NAME (deleted)"): its length, or -1. */
int memfd_file_name(struct file *f, char *buf, unsigned long size);

/* syscalls/sys_vector.c: positioned vector I/O, fallocate, copy_file_range, close_range */
long sys_preadv(struct thread *, const struct sysargs *);
long sys_pwritev(struct thread *, const struct sysargs *);
long sys_preadv2(struct thread *, const struct sysargs *);
long sys_pwritev2(struct thread *, const struct sysargs *);
long sys_fallocate(struct thread *, const struct sysargs *);
long sys_copy_file_range(struct thread *, const struct sysargs *);
long sys_close_range(struct thread *, const struct sysargs *);
long sys_sync_file_range(struct thread *, const struct sysargs *);

/* syscalls/sys_mlock.c: locking and residency of memory */
long sys_mlock(struct thread *, const struct sysargs *);
long sys_mlock2(struct thread *, const struct sysargs *);
long sys_munlock(struct thread *, const struct sysargs *);
long sys_mlockall(struct thread *, const struct sysargs *);
long sys_munlockall(struct thread *, const struct sysargs *);
long sys_mincore(struct thread *, const struct sysargs *);

/* syscalls/sys_mlock.c: protection keys (none: the CPU has no PKU) */
long sys_pkey_mprotect(struct thread *, const struct sysargs *);
long sys_pkey_alloc(struct thread *, const struct sysargs *);
long sys_pkey_free(struct thread *, const struct sysargs *);

/* syscalls/sys_pidfd.c: pidfds */
struct process;
long sys_pidfd_open(struct thread *, const struct sysargs *);
long sys_pidfd_send_signal(struct thread *, const struct sysargs *);
long sys_pidfd_getfd(struct thread *, const struct sysargs *);
/* A pidfd naming p (O_NONBLOCK of flags kept), refs 1; NULL: no memory (clone's CLONE_PIDFD). */
struct file *pidfd_file(struct process *p, unsigned flags);

/* syscalls/sys_uts.c: the names uname reports (NUL-terminated, at most 64 bytes) */
extern char uts_nodename[], uts_domainname[];
long sys_sethostname(struct thread *, const struct sysargs *);
long sys_setdomainname(struct thread *, const struct sysargs *);

#endif
