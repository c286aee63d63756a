/* File-system events (docs/linux/event-files.md, "inotify"): the VFS says "an event of mask M
 * happened on inode I (with name N, cookie C)" at each of its operations, and the marks on
 * the inode (a watch of an inotify instance) get it.  An event on a file or directory also
 * goes, with the name, to the marks of the directory holding it that ask for its children's
 * events (Linux's fsnotify_parent).  Marks hold their inode (not its file system busy); the
 * last holder of an inode without names ends its marks (IN_DELETE_SELF, then each mark's
 * freeing, where inotify queues IN_IGNORED), as does an unmount (IN_UNMOUNT).  With no marks
 * anywhere each hook costs a test. */
#ifndef LX_VFS_FSNOTIFY_H
#define LX_VFS_FSNOTIFY_H

#include "vfs/vfs.h"

/* The event bits: Linux's FS_* (the inotify IN_* values). */
#define FS_ACCESS        0x00000001u
#define FS_MODIFY        0x00000002u
#define FS_ATTRIB        0x00000004u
#define FS_CLOSE_WRITE   0x00000008u
#define FS_CLOSE_NOWRITE 0x00000010u
#define FS_OPEN          0x00000020u
#define FS_MOVED_FROM    0x00000040u
#define FS_MOVED_TO      0x00000080u
#define FS_CREATE        0x00000100u
#define FS_DELETE        0x00000200u
#define FS_DELETE_SELF   0x00000400u
#define FS_MOVE_SELF     0x00000800u
#define FS_EVENTS        0x00000fffu    /* IN_ALL_EVENTS */
#define FS_UNMOUNT       0x00002000u
#define FS_Q_OVERFLOW    0x00004000u
#define FS_IN_IGNORED    0x00008000u
#define FS_EVENT_ON_CHILD 0x08000000u   /* a mark's: its directory's children's events too */
#define FS_ISDIR         0x40000000u

#define FSN_EXCL_UNLINK  1u         /* a mark's flags: no events of unlinked files */
#define FSN_ONESHOT      2u         /* the mark ends after its first event */

struct fsnotify_mark;
struct fsnotify_ops {
    /* An event for m: mask (FS_* with FS_ISDIR), name (NULL for the inode's own). */
    void (*event)(struct fsnotify_mark *m, uint32_t mask, const char *name, uint32_t cookie);
    /* m is off its inode (rm_watch, the inode or its mount gone): the owner's last use. */
    void (*freeing)(struct fsnotify_mark *m);
};

struct fsnotify_mark {              /* embedded in its owner's watch */
    struct fsnotify_mark *next;     /* the inode's marks */
    struct fsnotify_mark *all_next, **all_prev;     /* every mark (unmount's walk) */
    struct inode *inode;            /* held (refs, not the super block's) while on it */
    uint32_t mask;                  /* FS_* wanted, FS_UNMOUNT, FS_EVENT_ON_CHILD */
    unsigned flags;                 /* FSN_* */
    const struct fsnotify_ops *ops;
};

/* Put m (ops, mask, flags set) on i, or take it off (ops->freeing runs). */
void fsnotify_add_mark(struct fsnotify_mark *m, struct inode *i);
void fsnotify_destroy_mark(struct fsnotify_mark *m);

/* How many marks are on directories: the test of the hooks that report to a parent. */
extern unsigned long fsnotify_dir_marks;

/* --- the VFS's hooks --------------------------------------------------------------------- */
/* A name in dir was made, removed or moved (FS_CREATE, FS_DELETE, FS_MOVED_*): to dir's
 * marks with the name. */
void fsnotify_dirent_slow(struct inode *dir, uint32_t mask, const char *name, bool isdir,
                          uint32_t cookie);
static inline void fsnotify_dirent(struct inode *dir, uint32_t mask, const char *name,
                                   bool isdir, uint32_t cookie)
{
    if (dir->marks)
        fsnotify_dirent_slow(dir, mask, name, isdir, cookie);
}
/* An event of the inode itself only (FS_ATTRIB of a link count, FS_MOVE_SELF). */
void fsnotify_inode_slow(struct inode *i, uint32_t mask);
static inline void fsnotify_inode(struct inode *i, uint32_t mask)
{
    if (i->marks)
        fsnotify_inode_slow(i, mask);
}
/* An event on a file through one of its names (read, write, open, close, attributes): to
 * the directory's marks with the name, then the inode's own. */
void fsnotify_file_slow(struct inode *i, uint32_t mask);
static inline void fsnotify_file(struct inode *i, uint32_t mask)
{
    if (i->marks || fsnotify_dir_marks)
        fsnotify_file_slow(i, mask);
}
/* The events of a setattr whose fields were ia_valid (ATTR_*: Linux's fsnotify_change). */
void fsnotify_change(struct inode *i, unsigned ia_valid);
/* A new rename cookie (the MOVED_FROM/MOVED_TO pair's). */
uint32_t fsnotify_cookie(void);
/* i has no names and only its marks hold it: FS_DELETE_SELF and the marks end (inode.c). */
void fsnotify_inode_unused(struct inode *i);
/* sb goes (umount, the end of the run): FS_UNMOUNT and the end of each mark on it. */
void fsnotify_unmount(struct super_block *sb);

#endif
