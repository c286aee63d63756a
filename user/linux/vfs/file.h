/* Open files (docs/linux-server.md §8): open file descriptions with their operations and
 * private data, transfers between a file and process memory (struct uio), the fd table of
 * a process, character devices by number, anonymous inodes. */
#ifndef LX_VFS_FILE_H
#define LX_VFS_FILE_H

#include "vfs/vfs.h"

struct mm;
struct region;
struct waitq;

/* The ioctls of every file (syscalls/sys_file.c) and FIONREAD (pipes, the tty). */
#define FIONREAD   0x541B
#define FIONBIO    0x5421

/* --- transfers (vfs/uio.c) ---------------------------------------------------------------- */
/* One piece of memory: a process's (struct uio's mm) or lx's own. */
struct uio_seg {
    l4_word_t base, len;
};
/* The other side of a read or write: process memory (readv's iovecs) or lx's (mm NULL).
 * A copy stops at the first page the process may not access: the bytes before it moved
 * and `fault` is set (the call answers the count, or -EFAULT if nothing moved). */
struct uio {
    struct mm *mm;
    const struct uio_seg *seg;
    unsigned nseg, cur;
    l4_word_t off;                  /* into seg[cur] */
    l4_word_t resid;                /* bytes left */
    l4_word_t done;                 /* bytes moved */
    bool fault;
};
void uio_init(struct uio *u, struct mm *mm, const struct uio_seg *seg, unsigned nseg);
/* Move up to n bytes between lx's buffer and the uio: the count (less at a fault). */
l4_word_t uio_copy_out(struct uio *u, const void *src, l4_word_t n);   /* file -> memory */
l4_word_t uio_copy_in(struct uio *u, void *dst, l4_word_t n);          /* memory -> file */
l4_word_t uio_zero(struct uio *u, l4_word_t n);
void uio_skip(struct uio *u, l4_word_t n);      /* a parked call's rerun goes on after them */
l4_word_t uio_discard(struct uio *u, l4_word_t n);  /* counted as moved, memory untouched */
/* Linux's access_ok: every segment below TASK_SIZE, no wrap (else EFAULT before anything). */
bool uio_range_ok(const struct uio *u);

/* --- poll (vfs/poll.h has the bits and file_poll) ------------------------------------------ */
/* Given to a poll operation by a caller that will park if nothing is ready: the operation
 * names the queues whose wake may change its answer (poll_wait); NULL: only the answer. */
struct poll_table {
    struct thread *t;
    /* NULL: t waits on each queue named; else called for each (an AIO POLL request's) */
    void (*queue)(struct poll_table *pt, struct waitq *q);
};
void poll_wait(struct poll_table *pt, struct waitq *q);

/* The operations of an open file.  Each gets the calling process (NULL when lx itself acts)
 * and the file, whose `priv` is the file's own (set by open).  read/write move bytes
 * through the uio at *pos (ignored by files that have no position); they return the count,
 * or -errno with u->done saying what moved before it.  -EAGAIN: the file would have to wait;
 * the VFS then parks a caller without O_NONBLOCK on the queues poll names (vfs/rw.c); an
 * operation that parks its caller itself returns LX_PARK.  NULL members: Linux's answer for
 * a file without the method (vfs/rw.c, syscalls/). */
struct file_ops {
    int (*open)(struct thread *t, struct inode *i, struct file *f);   /* 0 or -errno */
    void (*release)(struct file *f);        /* the last reference is gone */
    long (*read)(struct thread *t, struct file *f, struct uio *u, l4_word_t *pos);
    long (*write)(struct thread *t, struct file *f, struct uio *u, l4_word_t *pos);
    /* the new position for lseek (whence SEEK_SET/CUR/END/DATA/HOLE): >= 0 or -errno;
     * NULL: ESPIPE (pipes, ttys) */
    long (*llseek)(struct thread *t, struct file *f, long off, int whence);
    long (*ioctl)(struct thread *t, struct file *f, unsigned cmd, l4_word_t arg);
    /* POLLIN/POLLOUT/POLLHUP/POLLERR ready now; NULL: always readable and writable */
    unsigned (*poll)(struct thread *t, struct file *f, struct poll_table *pt);
    /* The backing of a mapping of the file in r (the page provider: r->file; or memory of
     * its own); the VFS has checked the access mode.  NULL: ENODEV. */
    int (*mmap)(struct thread *t, struct file *f, struct region *r);
    int (*fsync)(struct thread *t, struct file *f, bool datasync);    /* NULL: EINVAL */
    int (*iterate)(struct thread *t, struct file *f, struct dir_context *ctx); /* NULL: ENOTDIR */
    /* fallocate's mode (FALLOC_FL_*, checked by the VFS) over [off, off + len): 0 or -errno;
     * NULL: EOPNOTSUPP */
    int (*fallocate)(struct thread *t, struct file *f, int mode, l4_word_t off, l4_word_t len);
    const char *anon_name;          /* an anonymous file's name: "[eventpoll]" */
    /* The lines of /proc/PID/fdinfo/FD after ino (docs/linux/proc.md) into buf: their length
     * (snprintf's: more than size when cut).  NULL: none. */
    int (*show_fdinfo)(struct file *f, char *buf, size_t size);
    bool waits_itself;              /* read/write park their caller themselves: -EAGAIN is
                                       their answer (a socket's timeout), never a wait */
};

struct file {                       /* an open file description */
    unsigned refs;                  /* fds (in any table) and lx's own holders */
    unsigned flags;                 /* O_ACCMODE, O_APPEND, O_NONBLOCK, O_PATH, ... */
    l4_word_t pos;
    struct inode *inode;            /* a reference */
    const struct file_ops *ops;
    void *priv;                     /* the file's own (its operations') */
};

/* --- open files (vfs/file.c, vfs/open.c) ---------------------------------------------------- */
/* An open file of i with ops (NULL: what i's kind gives) and flags, its open operation run:
 * refs 1, or NULL with *err. */
struct file *file_open(struct thread *t, struct inode *i, unsigned flags,
                       const struct file_ops *ops, int *err);
void file_get(struct file *f);
void file_put(struct file *f);
/* open(2) and O_TMPFILE: path (in lx) from dirfd's directory (dir NULL: cwd): the file. */
struct file *vfs_open(struct thread *t, struct inode *dir, const char *path, unsigned flags,
                      unsigned mode, int *err);
/* Linux's generic operations of a file with a page provider (tmpfs's regular files). */
long generic_file_read(struct thread *t, struct file *f, struct uio *u, l4_word_t *pos);
long generic_file_write(struct thread *t, struct file *f, struct uio *u, l4_word_t *pos);
long generic_file_llseek(struct thread *t, struct file *f, long off, int whence);
/* lseek of a file without an end to seek from (a directory, a proc file: Linux's
 * dcache_dir_lseek and seq_lseek): SEEK_SET and SEEK_CUR, never negative. */
long dir_llseek(struct thread *t, struct file *f, long off, int whence);
int generic_file_mmap(struct thread *t, struct file *f, struct region *r);
int generic_file_fsync(struct thread *t, struct file *f, bool datasync);
/* "." and ".." for an iterate operation: false if the buffer filled. */
bool dir_emit_dots(struct file *f, struct dir_context *ctx);

/* --- reading and writing (vfs/rw.c): the system calls' common path -------------------------- */
/* read or write through f at *pos with the file's operation: checks the access mode and the
 * range, parks a blocking caller (LX_PARK) when the file would wait, keeps a parked write's
 * progress for its rerun.  `resumable`: the call is read/write/readv/writev, whose reruns go
 * on where the last one stopped. */
long vfs_rw(struct thread *t, struct file *f, struct uio *u, l4_word_t *pos, bool write,
            bool resumable);
/* count bytes of in at *pin to out at *pout (both moved by what was written) through lx, a
 * page at a time (sendfile, copy_file_range): the count, or -errno if nothing moved. */
long vfs_copy(struct thread *t, struct file *in, l4_word_t *pin, struct file *out,
              l4_word_t *pout, l4_word_t count);
/* getdents: the directory's entries from f->pos through ctx. */
int vfs_iterate(struct thread *t, struct file *f, struct dir_context *ctx);

/* --- fd tables (vfs/fdtable.c) ---------------------------------------------------------------- */
/* fs.nr_open: RLIMIT_NOFILE's ceiling (1048576; writable in /proc/sys, 64 .. 2^31 - 64) */
extern unsigned sysctl_nr_open;
#define LX_NR_OPEN ((unsigned long)sysctl_nr_open)
struct fdtable;
struct file *fd_get(struct thread *t, long fd);           /* NULL: EBADF */
/* The lowest free fd >= from below the caller's RLIMIT_NOFILE: fd, or -EMFILE (-ENOMEM). */
int fd_install(struct thread *t, struct file *f, unsigned from, bool cloexec);
/* A file just opened (its one reference) at the lowest free fd: the fd, or -errno with f
 * let go (open's and openat2's last step). */
int fd_install_new(struct thread *t, struct file *f, bool cloexec);
/* The fd fd_install would take now (nothing installed): open finds it first, as Linux,
 * so EMFILE comes before anything is created. */
int fd_unused(struct thread *t, unsigned from);
/* f at fd exactly (dup2), closing what was there: fd, or -EBADF past the limit, -ENOMEM. */
int fd_install_at(struct thread *t, struct file *f, unsigned fd, bool cloexec);
int fd_close(struct thread *t, long fd);
bool fd_cloexec(struct thread *t, unsigned fd);
void fd_set_cloexec(struct thread *t, unsigned fd, bool on);
unsigned long fd_limit(struct thread *t);     /* RLIMIT_NOFILE's soft limit */
/* The next open fd >= from, or -1: for walks over a table (/proc/N/fd, select). */
long fd_next(struct thread *t, unsigned long from);
unsigned long fd_table_size(struct thread *t);    /* the fds the table has room for now */
/* t's own copy of a table it shares (CLONE_FILES): close_range's UNSHARE; false: no memory. */
bool fd_unshare(struct thread *t);

/* The process hooks: a new process gets fds 0-2 on the console and / as cwd. */
bool vfs_task_init(struct thread *t);
void vfs_task_exit(struct thread *t);     /* closes everything */
/* fork/clone: the child shares the parent's fd table (CLONE_FILES) and cwd/umask
 * (CLONE_FS) or gets copies (the same open files); false when memory is short. */
bool vfs_task_fork(struct thread *child, struct thread *parent, bool share_files, bool share_fs);
void vfs_task_exec(struct thread *t);     /* the CLOEXEC fds close */
void vfs_shutdown(void);                /* the end of the run: the file systems go */

/* --- character devices (vfs/chrdev.c) ------------------------------------------------------- */
/* Devices major:[minor, minor + count) open with ops.  The record is the driver's (static);
 * a later registration of the same numbers wins.  A number nobody registered is ENXIO. */
struct chrdev {
    struct chrdev *next;
    unsigned major, minor, count;
    const struct file_ops *ops;
};
void chrdev_register(struct chrdev *c);
const struct file_ops *chrdev_ops(unsigned major, unsigned minor);

/* --- anonymous inodes (vfs/anon.c): files that are no file of the tree (epoll, ...) --------- */
/* An open file on the one anonymous inode with ops and priv: refs 1, or NULL. */
struct file *anon_file(const struct file_ops *ops, void *priv, unsigned flags);
/* The console behind fds 0-2 of the processes lx starts: 5:1 on the anonymous file system. */
struct inode *console_inode(void);
void anon_shutdown(void);           /* the end of the run */

#endif
