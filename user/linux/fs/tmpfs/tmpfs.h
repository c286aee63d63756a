/* tmpfs's own structures, shared by its files (tmpfs.c: the tree and the type; pages.c:
 * file contents and the size limit; cpio.c: the initramfs unpacker).  The rest of lx sees
 * a tmpfs only through the VFS (vfs/vfs.h). */
#ifndef LX_FS_TMPFS_TMPFS_H
#define LX_FS_TMPFS_TMPFS_H

#include "lib/radix.h"
#include "lib/list.h"
#include "vfs/vfs.h"
#include "vfs/xattr.h"

struct tmpfs_node;
struct uio;
struct region;

struct tmpfs_dirent {               /* one name in a directory */
    struct tmpfs_dirent *next;      /* the directory's names, in creation order */
    struct tmpfs_dirent *alias;     /* the other names of the same inode */
    struct tmpfs_node *dir, *node;
    unsigned long cookie;           /* getdents position: grows, never reused in a dir */
    unsigned char len;
    char name[];
};

struct tmpfs_node {
    struct inode i;                 /* first: the VFS's view */
    /* a directory */
    struct tmpfs_dirent *entries, *last;
    unsigned long next_cookie;
    /* a regular file: the initramfs bytes (the read-only module, never freed) until its
     * first change, then pages in a tree (holes: none) */
    const char *ro;
    struct radix pages;
    struct list cached;             /* while ro with pages cached: on pages.c's list (else
                                       next NULL), which a shortage of memory empties */
    unsigned long npages;
    /* a symlink */
    char *target;
    struct tmpfs_dirent *names;     /* its names (aliases), for paths */
    /* a regular file: its F_SEAL_* (seals.c); F_SEAL_SEAL from the start except for a
     * memfd made with MFD_ALLOW_SEALING, as Linux's shmem */
    unsigned seals;
    char *memfd_name;               /* a memfd's "memfd:NAME" (/proc/N/fd), else NULL */
    struct xattr_list xattrs;
};

struct tmpfs_sb {                   /* a mount's limits (size=, nr_inodes=) and use */
    unsigned long max_pages, used_pages;    /* max 0: no limit */
    unsigned long max_inodes, used_inodes;
    unsigned mode, uid, gid;        /* the root directory's */
    bool rootfs;
};

static inline struct tmpfs_node *tmpfs_node(struct inode *i)
{
    return (struct tmpfs_node *)i;
}

static inline struct tmpfs_sb *tmpfs_sb(struct super_block *sb)
{
    return sb->priv;
}

extern const struct inode_ops tmpfs_iops;
extern const struct file_ops tmpfs_file_ops, tmpfs_dir_ops;

/* tmpfs.c */
struct inode *tmpfs_lookup(struct inode *dir, const char *name, size_t len);
/* A new inode of sb (counted against nr_inodes): NULL when there is no room. */
struct tmpfs_node *tmpfs_new(struct super_block *sb, unsigned mode);
int tmpfs_link(struct inode *dir, const char *name, size_t len, struct inode *i);
int tmpfs_unlink(struct inode *dir, const char *name, size_t len);
int tmpfs_set_target(struct tmpfs_node *n, const char *target, size_t len);

/* pages.c */
void *tmpfs_get_page(struct inode *i, l4_word_t index, bool alloc, int *err);
void *tmpfs_map_page(struct inode *i, l4_word_t index);
/* Cached pages of initramfs files that no mapping holds go back to the pool: how many. */
unsigned long tmpfs_shrink(void);
int tmpfs_resize(struct tmpfs_node *n, l4_word_t size);
void tmpfs_drop_pages(struct tmpfs_node *n);
/* Pages [first, last] go (fallocate's PUNCH_HOLE): holes again; 0 or -ENOSPC (a file still
 * in the initramfs module could not get pages of its own). */
int tmpfs_punch_pages(struct tmpfs_node *n, l4_word_t first, l4_word_t last);
/* Parse a mount's options (size=, nr_inodes=, mode=, uid=, gid=) into ts: 0 or -EINVAL. */
int tmpfs_parse_options(struct tmpfs_sb *ts, const char *data, bool remount);

/* seals.c: memfd's seals (F_SEAL_*), enforced on write, truncate, fallocate and mmap */
#define F_SEAL_SEAL         0x0001
#define F_SEAL_SHRINK       0x0002
#define F_SEAL_GROW         0x0004
#define F_SEAL_WRITE        0x0008
#define F_SEAL_FUTURE_WRITE 0x0010
long tmpfs_write(struct thread *t, struct file *f, struct uio *u, l4_word_t *pos);
int tmpfs_mmap(struct thread *t, struct file *f, struct region *r);
int tmpfs_fallocate(struct thread *t, struct file *f, int mode, l4_word_t off, l4_word_t len);
/* F_ADD_SEALS (add) or F_GET_SEALS of f, a tmpfs regular file: the seals, 0 or -errno. */
long tmpfs_seal_fcntl(struct file *f, bool add, unsigned seals);
/* May i's size change from its size to size (F_SEAL_SHRINK, F_SEAL_GROW): 0 or -EPERM. */
int tmpfs_seal_resize(struct inode *i, l4_word_t size);

#endif
