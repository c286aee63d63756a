/* lx's VFS (docs/linux-server.md §8, "The VFS"): inodes with the operations of their file
 * system, super blocks and mounts, the path walk, and the operations on names that the
 * system calls use.  A file system (fs/tmpfs, fs/proc, pipefs, the anonymous inodes)
 * implements struct inode_ops and struct fs_type; the VFS owns the walk, mount crossing,
 * symlinks, permission checks and the order of Linux's errors.  Open files, fd tables and
 * the file operations: vfs/file.h. */
#ifndef LX_VFS_VFS_H
#define LX_VFS_VFS_H

#include <libl4.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct thread;                        /* the caller: every operation gets it (NULL: lx itself) */
struct file;
struct file_ops;
struct super_block;
struct pipe;
struct file_lock_ctx;
struct fsnotify_mark;

#define S_IFMT   0170000
#define S_IFSOCK 0140000
#define S_IFLNK  0120000
#define S_IFREG  0100000
#define S_IFBLK  0060000
#define S_IFDIR  0040000
#define S_IFCHR  0020000
#define S_IFIFO  0010000
#define S_ISUID  04000
#define S_ISGID  02000
#define S_ISVTX  01000
#define S_ISDIR(m) (((m) & S_IFMT) == S_IFDIR)
#define S_ISREG(m) (((m) & S_IFMT) == S_IFREG)
#define S_ISLNK(m) (((m) & S_IFMT) == S_IFLNK)
#define S_ISCHR(m) (((m) & S_IFMT) == S_IFCHR)
#define S_ISBLK(m) (((m) & S_IFMT) == S_IFBLK)
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
#define O_LARGEFILE 0100000
#define O_DIRECTORY 0200000
#define O_NOFOLLOW  0400000
#define O_NOATIME   01000000
#define O_CLOEXEC   02000000
#define O_PATH      010000000
#define O_TMPFILE   (020000000 | O_DIRECTORY)

#define AT_FDCWD            (-100)
#define AT_SYMLINK_NOFOLLOW 0x100
#define AT_REMOVEDIR        0x200
#define AT_SYMLINK_FOLLOW   0x400
#define AT_EACCESS          0x200
#define AT_EMPTY_PATH       0x1000

#define NAME_MAX   255
#define PATH_MAX   4096
#define LX_SYMLOOP 40               /* symlinks followed in one walk (Linux's MAXSYMLINKS) */
#define LX_MAX_LFS ((l4_word_t)0x7fffffffffffffff)  /* MAX_LFS_FILESIZE: a file's largest size */

/* Access wanted (inode_permission): Linux's MAY_* bits. */
#define MAY_EXEC   1
#define MAY_WRITE  2
#define MAY_READ   4

/* An inode: what the VFS knows of a file, whatever its file system.  A file system embeds
 * it at the start of its own (tmpfs_node, proc_inode) and gives it `iop`.  Lifetime: `refs`
 * counts the holders outside the tree (open files, working directories, mounts, memory
 * regions, executables); `nlink` the names in the tree.  When both are 0 the file system's
 * evict frees it.  A walk returns inodes without a reference: valid until the tree changes,
 * i.e. for the rest of the system call (lx serves one call at a time). */
struct inode {
    unsigned mode, uid, gid, nlink;
    unsigned long ino;
    unsigned refs;
    l4_word_t size;
    unsigned rdev_major, rdev_minor; /* a device node's number */
    uint64_t atime, mtime, ctime;   /* nanoseconds since the epoch */
    struct super_block *sb;         /* never NULL */
    const struct inode_ops *iop;
    const struct file_ops *fop;     /* what open gives a regular file or directory (devices,
                                       FIFOs: by kind, vfs/file.c) */
    /* directories: the tree's shape, kept by the file system */
    struct inode *parent;           /* NULL once removed; a file system's root: itself */
    struct inode *removed_from;     /* a removed directory still in use: its old parent (a
                                       reference), where ".." leads as in Linux */
    struct inode *mounted;          /* a directory something is mounted on: that root */
    /* kinds */
    struct pipe *pipe;              /* a FIFO's pipe (fs/pipe), made at its first open */
    struct file_lock_ctx *locks;    /* record locks and flock (vfs/lock.c); NULL: none yet */
    struct fsnotify_mark *marks;    /* inotify's watches (vfs/fsnotify.c); NULL: none */
};

/* An attribute change (setattr): the fields named in `valid`. */
#define ATTR_MODE  1u
#define ATTR_UID   2u
#define ATTR_GID   4u
#define ATTR_SIZE  8u
#define ATTR_ATIME 16u
#define ATTR_MTIME 32u
#define ATTR_CTIME 64u
struct iattr {
    unsigned valid;
    unsigned mode, uid, gid;
    l4_word_t size;
    uint64_t atime, mtime, ctime;
};

/* What stat reports (getattr fills it from the inode; a file system may change fields). */
struct kstat {
    unsigned long ino;
    unsigned mode, nlink, uid, gid;
    unsigned rdev_major, rdev_minor, dev;
    l4_word_t size, blocks, blksize;
    uint64_t atime, mtime, ctime;
};

/* Directory entries for getdents: the file system calls emit for each from ctx->pos on
 * (0 and 1 are "." and ".."); emit returns false when the caller's buffer is full, and the
 * position then stays at that entry. */
struct dir_context {
    bool (*emit)(struct dir_context *ctx, const char *name, size_t len, unsigned long ino,
                 unsigned type);
    l4_word_t pos;                  /* the entry to emit next; the file system moves it */
};

/* The operations of a file system on its inodes.  Names come as (name, len), never "." or
 * ".." (the VFS does those), and the VFS has checked the caller's permission, that dir is a
 * live directory of this file system and, for a new name, that it is free.  NULL members:
 * Linux's answer for a file system without that operation (EPERM for names, EOPNOTSUPP for
 * xattrs, ...: vfs/namei.c, vfs/xattr.c). */
struct inode_ops {
    /* directories */
    struct inode *(*lookup)(struct thread *t, struct inode *dir, const char *name, size_t len);
    /* A new inode (nlink 1, or 2 for a directory) named name in dir: 0 or -errno; *out the
     * new inode (not referenced). */
    int (*create)(struct thread *t, struct inode *dir, const char *name, size_t len,
                  unsigned mode, unsigned major, unsigned minor, struct inode **out);
    int (*symlink)(struct thread *t, struct inode *dir, const char *name, size_t len,
                   const char *target, struct inode **out);
    int (*link)(struct thread *t, struct inode *old, struct inode *dir, const char *name,
                size_t len);
    int (*unlink)(struct thread *t, struct inode *dir, const char *name, size_t len);
    int (*rmdir)(struct thread *t, struct inode *dir, const char *name, size_t len);
    /* Move a name; what ndir had under nname is replaced (the VFS has checked it may be). */
    int (*rename)(struct thread *t, struct inode *odir, const char *oname, size_t olen,
                  struct inode *ndir, const char *nname, size_t nlen);
    bool (*empty)(struct inode *dir);           /* rmdir, rename over a directory */
    /* An unnamed regular file in dir (O_TMPFILE), nlink 0. */
    int (*tmpfile)(struct thread *t, struct inode *dir, unsigned mode, struct inode **out);
    /* symlinks: the target's text (length, or -errno); a "magic" link (proc's fd/N, exe,
     * cwd) leads to an inode instead (NULL: an ordinary link) */
    int (*readlink)(struct thread *t, struct inode *i, char *buf, size_t size);
    struct inode *(*follow_link)(struct thread *t, struct inode *i, int *err);
    /* Permission to access i as mask (MAY_*): NULL, generic_permission (proc's fd
     * directories let their own process in, as Linux's proc_fd_permission) */
    int (*permission)(struct thread *t, struct inode *i, int mask);
    /* attributes: setattr applies a checked change (NULL: the inode's fields are set);
     * getattr may adjust what stat reports (NULL: the inode's fields) */
    int (*setattr)(struct thread *t, struct inode *i, const struct iattr *ia);
    void (*getattr)(struct inode *i, struct kstat *st);
    /* extended attributes: full names ("trusted.x"); values up to `size` bytes */
    long (*getxattr)(struct inode *i, const char *name, void *buf, size_t size);
    int (*setxattr)(struct inode *i, const char *name, const void *value, size_t size,
                    int flags);
    long (*listxattr)(struct inode *i, char *buf, size_t size);
    int (*removexattr)(struct inode *i, const char *name);
    /* The page provider (read, write, mmap, exec): lx's page holding bytes
     * [index * 4096, index * 4096 + 4096) of a regular file.  With alloc, a hole gets a page
     * and the result is the file's own writable page (a MAP_SHARED mapping takes a count of
     * its own); without, a hole is NULL (it reads as zeros) and the result may be read-only
     * memory, valid up to the file's size.  NULL with *err (ENOSPC, ENOMEM) when it cannot. */
    void *(*get_page)(struct inode *i, l4_word_t index, bool alloc, int *err);
    /* The page of lx's pool that holds bytes [index * 4096, +4096) of the file now, for a
     * mapping to share (read-only for MAP_PRIVATE, docs/linux/memory.md §2): counted by
     * the file while it has it (a hole inside the file gets one); NULL past the end or when
     * it cannot be had.  Optional. */
    void *(*map_page)(struct inode *i, l4_word_t index);
    /* A name of i and the directory holding it (NAME_MAX + 1 bytes), for paths (getcwd,
     * /proc/N/fd): its length, or -ENOENT if i has none (unlinked). */
    int (*name)(struct inode *i, struct inode **dir, char *buf);
};

/* A file system type and its super block operations. */
struct fs_type {
    const char *name;               /* mount -t NAME, /proc/filesystems */
    unsigned long magic;            /* statfs f_type */
    bool nodev;                     /* /proc/filesystems' "nodev" */
    /* sb->root made, from the mount's data string (options): 0 or -errno */
    int (*fill)(struct super_block *sb, const char *data);
    int (*remount)(struct super_block *sb, const char *data);   /* NULL: options ignored */
    bool (*busy)(struct super_block *sb);   /* an inode in use (open, cwd, mapped) */
    void (*kill)(struct super_block *sb);   /* everything freed */
    void (*evict)(struct inode *i);         /* an inode without names or references */
    /* statfs's blocks and files (NULL: zeros) */
    void (*statfs)(struct super_block *sb, uint64_t *blocks, uint64_t *bfree,
                   uint64_t *files, uint64_t *ffree);
    /* The file system's options for /proc/mounts ("size=...k,inode64"): appended to buf. */
    void (*show_options)(struct super_block *sb, char *buf, size_t size);
};

struct super_block {
    const struct fs_type *type;
    unsigned dev;                   /* st_dev: anonymous device 0:dev */
    unsigned id;                    /* mount id (/proc/N/mountinfo) */
    unsigned long flags;            /* MS_* */
    struct inode *root;
    struct inode *mountpoint;       /* NULL for / and the internal ones (pipefs, anon) */
    struct super_block *parent;     /* the file system mountpoint is in */
    struct super_block *next;       /* the mount list, in mount order */
    char *source;                   /* mount's first argument (kmalloc) */
    void *priv;                     /* the file system's */
    unsigned long refs;             /* references to its inodes (inode_get): busy if any */
    unsigned long next_ino;         /* inode numbers for file systems that count them */
};

#define MS_RDONLY   1ul
#define MS_NOSUID   2ul
#define MS_NODEV    4ul
#define MS_NOEXEC   8ul
#define MS_NOATIME  1024ul

#define TMPFS_MAGIC      0x01021994
#define PROC_SUPER_MAGIC 0x9fa0
#define PIPEFS_MAGIC     0x50495045
#define ANON_INODE_FS_MAGIC 0x09041934

/* --- inodes (vfs/inode.c) ---------------------------------------------------------------- */
/* A fresh inode of sb (size bytes, the file system's structure with the inode first): nlink
 * 0, refs 0, a new number, times now; NULL when memory is out. */
struct inode *inode_alloc(struct super_block *sb, size_t size, unsigned mode);
void inode_get(struct inode *i);
void inode_put(struct inode *i);    /* evicted when unreferenced and unlinked */
void inode_drop_link(struct inode *i);  /* one name less (evicted if that was all) */
/* A holder that does not keep the file system busy (a mark, a VFS operation's own). */
void inode_hold(struct inode *i);
void inode_unhold(struct inode *i);
uint64_t vfs_now(void);
void inode_touch(struct inode *i, bool modified);     /* mtime/ctime (or ctime only) */
void vfs_getattr(struct inode *i, struct kstat *st);
/* Permission (vfs/permission.c): may t access i as mask (MAY_*)?  0 or -EACCES; root may
 * read and write anything and execute what has an execute bit (Linux's DAC override). */
int inode_permission(struct thread *t, struct inode *i, int mask);
int generic_permission(struct thread *t, struct inode *i, int mask);   /* the mode bits only */
bool inode_owner_or_root(struct thread *t, struct inode *i);
unsigned vfs_fsuid(struct thread *t);             /* the caller's ids for new files */
unsigned vfs_fsgid(struct thread *t);
/* Attribute changes with Linux's checks (vfs/attr.c); 0 or -errno. */
int vfs_chmod(struct thread *t, struct inode *i, unsigned mode);
int vfs_chown(struct thread *t, struct inode *i, long uid, long gid);
int vfs_truncate(struct thread *t, struct inode *i, l4_word_t size);
/* times[k]: nanoseconds, or the UTIME_NOW / UTIME_OMIT markers; NULL: both now */
int vfs_utimes(struct thread *t, struct inode *i, const long *times);
/* A checked change onto the inode's fields (a setattr operation's common part). */
void setattr_copy(struct inode *i, const struct iattr *ia);
#define UTIME_NOW  ((1l << 30) - 1)
#define UTIME_OMIT ((1l << 30) - 2)

/* --- mounts and super blocks (vfs/mount.c) ---------------------------------------------- */
extern struct super_block *root_sb;
extern const struct fs_type tmpfs_type, proc_type;
/* The file system type called name (mount -t), or NULL. */
const struct fs_type *fs_type_find(const char *name);
/* Each registered type in turn (i from 0), NULL past the last: /proc/filesystems. */
const struct fs_type *fs_type_nth(unsigned i);
/* A super block of type with its root: the root file system (on NULL) or one that is not
 * mounted anywhere (pipefs, the anonymous inodes); NULL when it cannot be made. */
struct super_block *vfs_kern_mount(const struct fs_type *type, const char *data);
void vfs_kern_umount(struct super_block *sb);   /* one of those, nothing of it in use */
struct super_block *vfs_shm_mount(void);    /* memfd's tmpfs (NULL: no memory) */
/* mount(2): type on directory on, with options data: 0 or -errno. */
int vfs_mount(const struct fs_type *type, struct inode *on, const char *source,
              unsigned long flags, const char *data);
int vfs_remount(struct super_block *sb, unsigned long flags, const char *data);
int vfs_umount(struct inode *root, unsigned flags);
void vfs_umount_all(void);          /* the end of the run */
/* Each mounted file system in mount order, root first: NULL past the last. */
struct super_block *mount_first(void);
struct super_block *mount_next(struct super_block *sb);
/* The absolute path of inode i (NUL-terminated, into buf of size): length or -errno
 * (-ENOENT: i has no name, e.g. unlinked).  Through each file system's name operation. */
int vfs_path_of(struct inode *i, char *buf, size_t size);

/* --- the path walk (vfs/path.c) ---------------------------------------------------------- */
/* Resolve path from dir (NULL: the caller's cwd; t NULL: "/"); follow a final symlink if
 * follow.  The inode (not referenced), or NULL with *err.  Directories on the way need
 * search permission. */
struct inode *path_walk(struct thread *t, struct inode *dir, const char *path, bool follow,
                        int *err);
/* The directory of path's last component and that component (into last, NAME_MAX + 1):
 * "/" for a path of slashes only (Linux's LAST_ROOT), "." and ".." as they are.
 * *trailing: the path ended in '/'. */
struct inode *path_parent(struct thread *t, struct inode *dir, const char *path, char *last,
                          bool *trailing, int *err);
/* A name in dir, any file system ("." and ".." not special here). */
struct inode *vfs_lookup(struct thread *t, struct inode *dir, const char *name, size_t len);
/* What is mounted on i, if anything: the topmost root (mounts stack). */
struct inode *vfs_mounted(struct inode *i);
int vfs_readlink(struct thread *t, struct inode *i, char *buf, size_t size);
int vfs_getcwd(struct thread *t, char *buf, size_t size);   /* length with NUL, or -errno */
/* vfs_path_of as t sees it: from its root (chroot), "(unreachable)" in front outside it. */
int vfs_path_from_root(struct thread *t, struct inode *i, char *buf, size_t size);
/* The working directory and umask of a process (CLONE_FS shares them). */
struct fs_struct {
    unsigned refs;
    struct inode *cwd;
    struct inode *root;             /* chroot's (a reference); NULL: the real root */
    unsigned umask;
};
int vfs_chdir(struct thread *t, struct inode *i);
/* chroot: i becomes t's root (vfs/path.c): 0 or -errno (ENOTDIR, EACCES, EPERM). */
int vfs_chroot(struct thread *t, struct inode *i);
/* openat2's resolve flags for the walks until vfs_resolve_end (vfs/path.c): scope is the
 * dirfd's directory (BENEATH, IN_ROOT). */
#define RESOLVE_NO_XDEV       0x01
#define RESOLVE_NO_MAGICLINKS 0x02
#define RESOLVE_NO_SYMLINKS   0x04
#define RESOLVE_BENEATH       0x08
#define RESOLVE_IN_ROOT       0x10
#define RESOLVE_CACHED        0x20
void vfs_resolve_begin(unsigned flags, struct inode *scope);
void vfs_resolve_end(void);
/* The root t's absolute paths start from (t NULL: the real one). */
struct inode *vfs_root(struct thread *t);

/* --- operations on names (vfs/namei.c): the checks in Linux's order, then the file
 * system's operation.  dir and last come from path_parent. ---------------------------- */
int vfs_create(struct thread *t, struct inode *dir, const char *name, unsigned mode,
               struct inode **out);
int vfs_mkdir(struct thread *t, struct inode *dir, const char *name, bool trailing,
              unsigned mode);
int vfs_mknod(struct thread *t, struct inode *dir, const char *name, bool trailing,
              unsigned mode, unsigned major, unsigned minor);
int vfs_symlink(struct thread *t, struct inode *dir, const char *name, bool trailing,
                const char *target);
int vfs_link(struct thread *t, struct inode *old, struct inode *dir, const char *name,
             bool trailing);
int vfs_unlink(struct thread *t, struct inode *dir, const char *name, bool trailing);
int vfs_rmdir(struct thread *t, struct inode *dir, const char *name, bool trailing);
#define RENAME_NOREPLACE 1u
#define RENAME_EXCHANGE  2u
#define RENAME_WHITEOUT  4u
int vfs_rename(struct thread *t, struct inode *odir, const char *oname, bool otrail,
               struct inode *ndir, const char *nname, bool ntrail, unsigned flags);

/* --- /dev (fs/dev/dev.c): the standard nodes where the initramfs has none ----------------- */
void dev_populate(void);

/* --- the root file system (fs/tmpfs) ------------------------------------------------------ */
bool tmpfs_init(void);              /* the root tmpfs, mounted on / */
/* fs/tmpfs/cpio.c: a newc archive (or several, concatenated) into the tree; entries counted. */
long cpio_unpack(const char *data, l4_word_t size);

/* --- the page provider for lx's own use (vfs/rw.c) ---------------------------------------- */
/* n bytes of regular file i at pos into lx's buf, through its page provider: the count (0
 * past the end), or -errno.  exec and the ELF loader read files this way. */
long vfs_kernel_read(struct inode *i, void *buf, l4_word_t n, l4_word_t pos);
/* The file's own page at index, made if it is a hole (a MAP_SHARED mapping's); NULL when it
 * cannot be. */
void *vfs_page_get(struct inode *i, l4_word_t index);
/* mm/mm.c's names for the two, until the memory layer calls the page provider itself. */
static inline void *tmpfs_page(struct inode *i, l4_word_t index)
{
    return vfs_page_get(i, index);
}
static inline long tmpfs_read(struct inode *i, char *buf, l4_word_t n, l4_word_t pos)
{
    return vfs_kernel_read(i, buf, n, pos);
}

#endif
