/* Inodes: allocation for the file systems, reference counts and eviction, times, and what
 * stat reports.  An inode goes when it has neither names (nlink) nor holders (refs): its
 * file system's evict frees it. */
#include "vfs/vfs.h"
#include "lib/kmalloc.h"
#include "mm/page.h"
#include "time/clock.h"
#include "vfs/fsnotify.h"
#include "vfs/lock.h"
#include <string.h>

uint64_t vfs_now(void)
{
    return clock_realtime();        /* CLOCK_REALTIME (time/clock.c) */
}

void inode_touch(struct inode *i, bool modified)
{
    uint64_t now = vfs_now();
    if (modified)
        i->mtime = now;
    i->ctime = now;
}

struct inode *inode_alloc(struct super_block *sb, size_t size, unsigned mode)
{
    struct inode *i = kmalloc(size);
    if (!i)
        return NULL;
    i->mode = mode;
    i->sb = sb;
    i->ino = ++sb->next_ino;
    i->atime = i->mtime = i->ctime = vfs_now();
    return i;
}

static void evict(struct inode *i)
{
    struct inode *from = i->removed_from;
    locks_inode_free(i);            /* every lock went with its file */
    i->sb->type->evict(i);
    if (from)
        inode_put(from);
}

void inode_get(struct inode *i)
{
    i->refs++;
    i->sb->refs++;                  /* umount: busy (unlinked files too) */
}

void inode_put(struct inode *i)
{
    i->sb->refs--;
    inode_unhold(i);
}

void inode_hold(struct inode *i)
{
    i->refs++;
}

void inode_unhold(struct inode *i)
{
    if (--i->refs == 0 && i->nlink == 0)
        evict(i);
    else if (i->marks && !i->nlink)
        fsnotify_inode_unused(i);   /* only its watches hold it: they end */
}

void inode_drop_link(struct inode *i)
{
    if (i->nlink && --i->nlink == 0 && i->refs == 0)
        evict(i);
}

void vfs_getattr(struct inode *i, struct kstat *st)
{
    memset(st, 0, sizeof *st);
    st->ino = i->ino;
    st->mode = i->mode;
    st->nlink = i->nlink;
    st->uid = i->uid;
    st->gid = i->gid;
    st->rdev_major = i->rdev_major;
    st->rdev_minor = i->rdev_minor;
    st->dev = i->sb->dev;           /* an anonymous device per super block: 0:N */
    st->size = i->size;
    st->blksize = LX_PAGE;
    st->atime = i->atime;
    st->mtime = i->mtime;
    st->ctime = i->ctime;
    if (i->iop && i->iop->getattr)
        i->iop->getattr(i, st);     /* tmpfs: the pages it holds */
}
