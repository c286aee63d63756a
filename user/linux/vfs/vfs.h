/* lx's VFS: inodes, open file descriptions, per-process fd tables and working directories,
 * the path walk (docs/linux-server.md, "Files"), mounts (docs/linux/files.md).  tmpfs
 * (fs/tmpfs/) inodes are the VFS's; proc (fs/proc/) adds operations per inode; device files
 * get their operations by number. */
#ifndef LX_VFS_VFS_H
#define LX_VFS_VFS_H

#include <libl4.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct thread;

#define S_IFMT   0170000
#define S_IFSOCK 0140000
#define S_IFLNK  0120000
#define S_IFREG  0100000
#define S_IFBLK  0060000
#define S_IFDIR  0040000
#define S_IFCHR  0020000
#define S_IFIFO  0010000
#define S_ISDIR(m) (((m) & S_IFMT) == S_IFDIR)
#define S_ISREG(m) (((m) & S_IFMT) == S_IFREG)
#define S_ISLNK(m) (((m) & S_IFMT) == S_IFLNK)
#define S_ISCHR(m) (((m) & S_IFMT) == S_IFCHR)
#define S_ISFIFO(m) (((m) & S_IFMT) == S_IFIFO)

#define O_ACCMODE   03
#define O_RDONLY    00
#define O_WRONLY    01
#define O_RDWR      02
#define O_CREAT     0100
#define O_EXCL      0200
#define O_NOCTTY    0400
#define O_TRUNC     01000
#define O_APPEND    02000
#define O_NONBLOCK  04000
#define O_DIRECTORY 0200000
#define O_NOFOLLOW  0400000
#define O_CLOEXEC   02000000
#define O_PATH      010000000

#define AT_FDCWD            (-100)
#define AT_SYMLINK_NOFOLLOW 0x100
#define AT_REMOVEDIR        0x200
#define AT_SYMLINK_FOLLOW   0x400
#define AT_EACCESS          0x200
#define AT_EMPTY_PATH       0x1000

#define NAME_MAX   255
#define PATH_MAX   4096
#define LX_NFDS    256              /* fds per process (RLIMIT_NOFILE) */
#define LX_SYMLOOP 40               /* symlinks followed in one walk (Linux's MAXSYMLINKS) */
#define TMPFS_MAX_PAGES 512         /* a written file: one index page, 2 MiB */

struct dentry {                     /* one name in a directory */
    struct dentry *next;
    struct inode *inode;
    unsigned long cookie;           /* getdents64 offset: grows, never reused in a dir */
    unsigned char len;
    char name[];
};

struct inode {
    unsigned mode, uid, gid, nlink;
    unsigned long ino;
    unsigned refs;                  /* open files and working directories */
    l4_word_t size;
    unsigned rdev_major, rdev_minor;
    uint64_t atime, mtime, ctime;   /* nanoseconds since the epoch */
    /* directory */
    struct inode *parent;           /* NULL once removed; the root is its own parent */
    struct inode *removed_from;     /* a removed directory still in use: its old parent (a
                                       reference), where ".." leads as in Linux */
    struct dentry *entries;         /* in creation order */
    unsigned long next_cookie;
    /* regular file: the initramfs bytes (read-only module, never freed) until the first
     * change; then page by page (NULL: a hole) */
    const char *ro;
    void **pages;
    /* symlink */
    char *target;
    /* --- pipes (fs/pipe/pipe.h) --- */
    struct pipe *pipe;              /* a pipe's or FIFO's buffer and ends; NULL when none */
    struct epoll *epoll;            /* an epoll instance's interest list (fs/epoll/epoll.c) */
    /* --- mounts and other file systems (vfs/mount.c, fs/proc/) --- */
    struct super_block *sb;         /* NULL: set by tmpfs_link from the directory */
    struct inode *mounted;          /* a directory something is mounted on: that root */
    const struct inode_ops *iop;    /* NULL: a tmpfs inode */
    const struct file_ops *fop;     /* NULL: by kind and device number (vfs/file.c) */
};

/* The ioctls of every file (syscalls/sys_file.c) and FIONREAD (pipes, the tty). */
#define FIONREAD   0x541B
#define FIONBIO    0x5421

struct file;
/* A file's operations.  read/write move bytes through lx's buffer; a file that would have to
 * wait returns -EAGAIN and the system-call layer parks the caller (unless O_NONBLOCK) on the
 * queues poll names.  NULL members: not supported (read/write: EBADF-style errors as now). */
struct file_ops {
    long (*read)(struct file *f, char *buf, l4_word_t n, l4_word_t pos);
    long (*write)(struct file *f, const char *buf, l4_word_t n, l4_word_t pos);
    bool seekable;
    /* POLLIN/POLLOUT/POLLHUP/POLLERR bits ready now; with t non-NULL, also put t on the
     * wait queues whose wake may change them (park/park.c).  NULL: always readable and writable. */
    unsigned (*poll)(struct file *f, struct thread *t);
    /* ioctl(2) on the file; NULL: -ENOTTY. */
    long (*ioctl)(struct file *f, struct thread *t, unsigned long cmd, l4_word_t arg);
    void (*release)(struct file *f);    /* the last reference is gone */
};

struct file {                       /* an open file description */
    unsigned refs;                  /* fds (in any table) that name it */
    unsigned flags;                 /* O_ACCMODE, O_APPEND, O_NONBLOCK, ... (no O_CLOEXEC) */
    l4_word_t pos;
    struct inode *inode;
    const struct file_ops *ops;
};

/* --- mounts and file system types (vfs/mount.c) ------------------------------------------ */
struct super_block;
struct dirent_out {                 /* one directory entry, for getdents */
    const char *name;
    size_t len;
    unsigned long ino;
    unsigned type;                  /* DT_*: the mode's type bits >> 12 */
    unsigned long next;             /* the position after this entry */
};
struct inode_ops {                  /* a file system other than tmpfs (proc) */
    struct inode *(*lookup)(struct thread *t, struct inode *dir, const char *name, size_t len);
    /* The first entry at position >= pos (0 is the first after "." and ".."), with the
     * position after it; false past the last. */
    bool (*readdir)(struct thread *t, struct inode *dir, unsigned long pos,
                    struct dirent_out *out);
    /* A symlink's target into buf (size bytes): its length or -errno. */
    int (*get_link)(struct thread *t, struct inode *i, char *buf, size_t size);
    /* A "magic" link (/proc/N/fd/M, exe): the inode itself, not the target's path. */
    struct inode *(*follow)(struct thread *t, struct inode *i, int *err);
    /* A directory's name in its parent into buf (NAME_MAX + 1): its length or -errno. */
    int (*name)(struct inode *dir, char *buf);
};
struct fs_type {
    const char *name;               /* mount -t NAME, /proc/filesystems */
    unsigned long magic;            /* statfs f_type */
    int (*fill)(struct super_block *sb);  /* sb->root: 0 or -errno */
    bool (*busy)(struct super_block *sb); /* an inode in use (open, cwd) */
    void (*kill)(struct super_block *sb); /* everything freed */
};
struct super_block {
    const struct fs_type *type;
    unsigned dev;                   /* st_dev: anonymous device 0:dev */
    unsigned long flags;            /* MS_* */
    struct inode *root;
    struct inode *mountpoint;       /* NULL for / */
    struct super_block *parent;     /* the file system mountpoint is in */
    char source[64];
    void *priv;
    unsigned long refs;             /* references to its inodes (inode_get): busy if any */
};
#define TMPFS_MAGIC      0x01021994
#define PROC_SUPER_MAGIC 0x9fa0
extern struct super_block *root_sb;
extern const struct fs_type tmpfs_type, proc_type;
bool mount_root_init(void);         /* the root tmpfs (tmpfs_init) */
/* A file system of type `type` on directory `on`: 0 or -errno. */
int vfs_mount(const struct fs_type *type, struct inode *on, const char *source,
              unsigned long flags);
int vfs_umount(struct inode *root, unsigned flags);
void vfs_umount_all(void);          /* the end of the run */
struct super_block *inode_sb(const struct inode *i);
/* Each mounted file system in mount order (i < LX_MAX_MOUNTS), NULL for a free slot. */
#define LX_MAX_MOUNTS 16
struct super_block *mount_slot(unsigned i);
/* The absolute path of inode i (NUL-terminated, into buf of size): length or -errno.
 * Directories by their parents; other files by a search of the tree. */
int vfs_path_of(struct inode *i, char *buf, size_t size);
/* A symlink's target (tmpfs: its text; proc: computed) into buf: length or -errno. */
int vfs_readlink(struct thread *t, struct inode *i, char *buf, size_t size);
/* A name in dir (any file system). */
struct inode *vfs_lookup(struct thread *t, struct inode *dir, const char *name, size_t len);
/* --- /dev (fs/dev.c): the standard nodes where the initramfs has none --- */
void dev_populate(void);
/* A character device's operations (vfs/file.c): for nodes major:minor opened from now on;
 * replaces a built-in one (null, zero, full, random, urandom, tty, console); 0 or -ENOSPC. */
int chrdev_register(unsigned major, unsigned minor, const struct file_ops *ops);
/* --- end of mounts --- */

struct fdtable {
    unsigned refs;                  /* tasks that share it (CLONE_FILES) */
    struct file *fd[LX_NFDS];
    uint64_t cloexec[LX_NFDS / 64];
};

struct fs_struct {                  /* working directory and umask (CLONE_FS) */
    unsigned refs;
    struct inode *cwd;
    unsigned umask;
};

/* --- fs/tmpfs ------------------------------------------------------------------------------ */
extern struct inode *tmpfs_root;
bool tmpfs_init(void);
void tmpfs_shutdown(void);          /* every inode and page back (the end of the run) */
struct inode *tmpfs_new(unsigned mode); /* nlink 0, refs 0; NULL when exhausted */
void inode_get(struct inode *i);
void inode_put(struct inode *i);    /* frees it when unreferenced and unlinked */
struct inode *tmpfs_lookup(struct inode *dir, const char *name, size_t len);
int tmpfs_link(struct inode *dir, const char *name, size_t len, struct inode *i);
int tmpfs_unlink(struct inode *dir, const char *name, size_t len); /* the dentry only */
long tmpfs_read(struct inode *i, char *buf, l4_word_t n, l4_word_t pos);
long tmpfs_write(struct inode *i, const char *buf, l4_word_t n, l4_word_t pos);
int tmpfs_truncate(struct inode *i, l4_word_t size);
int tmpfs_set_target(struct inode *i, const char *target, size_t len);
/* --- mmap of files (lxexec: docs/linux/memory.md) --- */
/* The page holding bytes [index * 4096, ...) of a regular file, made if it is a hole (the
 * initramfs bytes become pages first); NULL when memory is out or past the 2 MiB limit.
 * The file holds it (count 1); a MAP_SHARED mapping takes a count of its own. */
void *tmpfs_page(struct inode *i, l4_word_t index);
/* --- end mmap of files --- */
uint64_t vfs_now(void);
void inode_touch(struct inode *i, bool modified);     /* mtime/ctime (or ctime only) */
bool tmpfs_dir_empty(struct inode *dir);
int tmpfs_move(struct inode *odir, const char *oname, size_t olen, struct inode *ndir,
               const char *nname, size_t nlen);

/* fs/tmpfs/cpio.c: a newc archive (or several, concatenated) into the tree; entries counted. */
long cpio_unpack(const char *data, l4_word_t size);

/* --- vfs/path.c ---------------------------------------------------------------------------- */
/* Resolve path from dir (NULL: the task's cwd); follow a final symlink if follow.  The
 * inode, not referenced (valid until the next change of the tree), or NULL with *err. */
struct inode *path_walk(struct thread *t, struct inode *dir, const char *path, bool follow,
                        int *err);
/* The directory of path's last component and that component (into last, NAME_MAX + 1).
 * *trailing: the path ended in '/'. */
struct inode *path_parent(struct thread *t, struct inode *dir, const char *path, char *last,
                          bool *trailing, int *err);
int vfs_getcwd(struct thread *t, char *buf, size_t size);   /* length with NUL, or -errno */

/* --- vfs/file.c ---------------------------------------------------------------------------- */
struct file *file_open(struct inode *i, unsigned flags);   /* refs 1; NULL when exhausted */
void file_get(struct file *f);
void file_put(struct file *f);
struct file *fd_get(struct thread *t, long fd);           /* NULL: EBADF */
int fd_install(struct thread *t, struct file *f, unsigned from, bool cloexec); /* fd or -EMFILE */
int fd_close(struct thread *t, long fd);
bool fd_cloexec(struct thread *t, unsigned fd);
void fd_set_cloexec(struct thread *t, unsigned fd, bool on);
void vfs_stat_fill(struct inode *i, void *statbuf);     /* Linux's struct stat, 144 bytes */

/* The task hooks: a new process gets fds 0-2 on the console and / as cwd. */
bool vfs_task_init(struct thread *t);
void vfs_task_exit(struct thread *t);     /* closes everything */
/* fork/clone: the child shares the parent's fd table (CLONE_FILES) and cwd/umask
 * (CLONE_FS) or gets copies (the same open files); false when memory is short.  execve's
 * part is vfs_task_exec: the CLOEXEC fds close. */
bool vfs_task_fork(struct thread *child, struct thread *parent, bool share_files, bool share_fs);
void vfs_task_exec(struct thread *t);
void vfs_shutdown(void);                /* the end of the run: the file system goes */

#endif
