/* Attribute changes: the owner rules of chmod/chown/utimes (CAP_FOWNER, CAP_CHOWN,
 * CAP_FSETID: vfs/permission.c) and the changes themselves through the file system's
 * setattr. */
#include "vfs/vfs.h"
#include "vfs/fsnotify.h"
#include "vfs/permission.h"
#include "lib/errno.h"
#include "task/cred.h"

static bool in_group(struct thread *t, unsigned gid)
{
    return vfs_in_group(t, gid);
}

void setattr_copy(struct inode *i, const struct iattr *ia)
{
    if (ia->valid & ATTR_MODE)
        i->mode = (i->mode & S_IFMT) | (ia->mode & 07777);
    if (ia->valid & ATTR_UID)
        i->uid = ia->uid;
    if (ia->valid & ATTR_GID)
        i->gid = ia->gid;
    if (ia->valid & ATTR_ATIME)
        i->atime = ia->atime;
    if (ia->valid & ATTR_MTIME)
        i->mtime = ia->mtime;
    if (ia->valid & ATTR_CTIME)
        i->ctime = ia->ctime;
}

static int setattr(struct thread *t, struct inode *i, struct iattr *ia)
{
    ia->valid |= ATTR_CTIME;
    ia->ctime = vfs_now();
    int e = 0;
    if (i->iop && i->iop->setattr)
        e = i->iop->setattr(t, i, ia);
    else if (ia->valid & ATTR_SIZE)
        e = -EINVAL;                /* a file without a size of its own */
    else
        setattr_copy(i, ia);
    if (!e)
        fsnotify_change(i, ia->valid);
    return e;
}

int vfs_chmod(struct thread *t, struct inode *i, unsigned mode)
{
    if (!inode_owner_or_root(t, i))
        return -EPERM;
    struct iattr ia = { .valid = ATTR_MODE, .mode = mode & 07777 };
    /* Linux: set-group-ID goes if the caller is not in the file's group (and not root). */
    if (!in_group(t, i->gid) && !vfs_capable(t, CAP_FSETID))
        ia.mode &= ~(unsigned)S_ISGID;
    return setattr(t, i, &ia);
}

int vfs_chown(struct thread *t, struct inode *i, long uid, long gid)
{
    struct iattr ia = { 0 };
    if ((int)uid != -1)
        ia.valid |= ATTR_UID, ia.uid = (unsigned)uid;
    if ((int)gid != -1)
        ia.valid |= ATTR_GID, ia.gid = (unsigned)gid;
    /* Only root gives files away; the owner may change the group to one of its own
     * (Linux's chown_ok and chgrp_ok). */
    bool owner = vfs_fsuid(t) == i->uid;
    if (!vfs_capable(t, CAP_CHOWN) && (((ia.valid & ATTR_UID) && (!owner || ia.uid != i->uid)) ||
                        ((ia.valid & ATTR_GID) &&
                         (!owner || (ia.gid != i->gid && !in_group(t, ia.gid))))))
        return -EPERM;
    /* chown drops set-user-ID (even with -1, -1), and set-group-ID as a write does
     * (Linux's ATTR_KILL_SUID and setattr_should_drop_sgid). */
    if (!S_ISDIR(i->mode) && (i->mode & (S_ISUID | S_ISGID))) {
        ia.valid |= ATTR_MODE;
        ia.mode = i->mode & 07777 & ~(unsigned)S_ISUID;
        if (should_drop_sgid(t, i))
            ia.mode &= ~(unsigned)S_ISGID;
    }
    return setattr(t, i, &ia);
}

int vfs_truncate(struct thread *t, struct inode *i, l4_word_t size)
{
    if (size > LX_MAX_LFS)
        return -EINVAL;
    struct iattr ia = { .valid = ATTR_SIZE | ATTR_MTIME, .size = size, .mtime = vfs_now() };
    file_remove_privs(t, i);
    return setattr(t, i, &ia);
}

int vfs_utimes(struct thread *t, struct inode *i, const long *times)
{
    static const long now2[2] = { UTIME_NOW, UTIME_NOW };
    if (!times)
        times = now2;
    bool both_now = times[0] == UTIME_NOW && times[1] == UTIME_NOW;
    /* Explicit times: the owner (or root); "now": anyone who may write the file too. */
    if (!inode_owner_or_root(t, i) && (!both_now || inode_permission(t, i, MAY_WRITE)))
        return both_now ? -EACCES : -EPERM;
    struct iattr ia = { 0 };
    uint64_t now = vfs_now();
    if (times[0] != UTIME_OMIT)
        ia.valid |= ATTR_ATIME, ia.atime = times[0] == UTIME_NOW ? now : (uint64_t)times[0];
    if (times[1] != UTIME_OMIT)
        ia.valid |= ATTR_MTIME, ia.mtime = times[1] == UTIME_NOW ? now : (uint64_t)times[1];
    return setattr(t, i, &ia);
}
