/* Permission checks: Linux's generic_permission on the mode bits with root's override
 * (CAP_DAC_OVERRIDE: read and write anything, execute what has an execute bit, search any
 * directory), the owner test of CAP_FOWNER, the privileges a write removes, the swap of ids
 * for access(2), and the credential tests between processes.  The caller's identity is its
 * process's cred (task/cred.h); t NULL is lx itself, which may do anything. */
#include "vfs/permission.h"
#include "vfs/vfs.h"
#include "lib/errno.h"
#include "task/process.h"

static const struct cred *cred_of(struct thread *t)
{
    return t ? &t->proc->cred : NULL;
}

unsigned vfs_fsuid(struct thread *t)
{
    return t ? cred_of(t)->fsuid : 0;
}

unsigned vfs_fsgid(struct thread *t)
{
    return t ? cred_of(t)->fsgid : 0;
}

bool vfs_capable(struct thread *t, int cap)
{
    return !t || cred_capable(cred_of(t), cap);
}

bool vfs_in_group(struct thread *t, unsigned gid)
{
    return !t || cred_in_group(cred_of(t), gid);
}

int inode_permission(struct thread *t, struct inode *i, int mask)
{
    if (i->iop && i->iop->permission)
        return i->iop->permission(t, i, mask);
    return generic_permission(t, i, mask);
}

int generic_permission(struct thread *t, struct inode *i, int mask)
{
    unsigned mode = i->mode, bits;
    if (vfs_fsuid(t) == i->uid)
        bits = (mode >> 6) & 7;
    else if (vfs_in_group(t, i->gid))
        bits = (mode >> 3) & 7;
    else
        bits = mode & 7;
    if (!((unsigned)mask & ~bits))
        return 0;
    /* The overrides: directories may be read and searched (CAP_DAC_READ_SEARCH) or
     * anything (CAP_DAC_OVERRIDE); files read (CAP_DAC_READ_SEARCH), read and written, and
     * executed if some execute bit is set (CAP_DAC_OVERRIDE). */
    if (S_ISDIR(mode)) {
        if (!(mask & MAY_WRITE) && vfs_capable(t, CAP_DAC_READ_SEARCH))
            return 0;
        return vfs_capable(t, CAP_DAC_OVERRIDE) ? 0 : -EACCES;
    }
    if (mask == MAY_READ && vfs_capable(t, CAP_DAC_READ_SEARCH))
        return 0;
    if ((!(mask & MAY_EXEC) || (mode & 0111)) && vfs_capable(t, CAP_DAC_OVERRIDE))
        return 0;
    return -EACCES;
}

bool inode_owner_or_root(struct thread *t, struct inode *i)
{
    return vfs_fsuid(t) == i->uid || vfs_capable(t, CAP_FOWNER);
}

bool should_drop_sgid(struct thread *t, struct inode *i)
{
    if (!(i->mode & S_ISGID))
        return false;
    return (i->mode & 010) || !(vfs_in_group(t, i->gid) || vfs_capable(t, CAP_FSETID));
}

void file_remove_privs(struct thread *t, struct inode *i)
{
    unsigned kill = i->mode & S_ISUID;
    if (should_drop_sgid(t, i))
        kill |= S_ISGID;
    if (!kill || !S_ISREG(i->mode) || vfs_capable(t, CAP_FSETID))
        return;
    struct iattr ia = { .valid = ATTR_MODE, .mode = i->mode & 07777 & ~kill };
    if (i->iop && i->iop->setattr)
        i->iop->setattr(t, i, &ia);
    else
        setattr_copy(i, &ia);
}

unsigned mode_strip_sgid(struct thread *t, struct inode *dir, unsigned mode)
{
    if ((mode & (S_ISGID | 010)) != (S_ISGID | 010) || S_ISDIR(mode) ||
        !(dir->mode & S_ISGID) || vfs_in_group(t, dir->gid) || vfs_capable(t, CAP_FSETID))
        return mode;
    return mode & ~(unsigned)S_ISGID;
}

void access_override_begin(struct thread *t, struct access_ids *saved)
{
    struct cred *c = &t->proc->cred;
    saved->fsuid = c->fsuid;
    saved->fsgid = c->fsgid;
    saved->cap_eff = c->cap_eff;
    c->fsuid = c->uid;
    c->fsgid = c->gid;
    c->cap_eff = c->uid ? 0 : c->cap_prm;   /* root's powers only for real uid 0 */
}

void access_override_end(struct thread *t, const struct access_ids *saved)
{
    struct cred *c = &t->proc->cred;
    c->fsuid = saved->fsuid;
    c->fsgid = saved->fsgid;
    c->cap_eff = saved->cap_eff;
}

bool cred_may_signal(const struct process *from, const struct process *to)
{
    const struct cred *f = &from->cred, *c = &to->cred;
    return cred_capable(f, CAP_KILL) || f->euid == c->suid || f->euid == c->uid || f->uid == c->suid ||
           f->uid == c->uid;
}

bool cred_may_change_sched(const struct process *from, const struct process *to)
{
    const struct cred *f = &from->cred, *c = &to->cred;
    return cred_capable(f, CAP_SYS_NICE) || f->euid == c->uid || f->euid == c->euid;
}

/* Is (uid, gid) each of c's real, effective and saved ids? */
static bool all_ids_are(const struct cred *c, unsigned uid, unsigned gid)
{
    return uid == c->uid && uid == c->euid && uid == c->suid &&
           gid == c->gid && gid == c->egid && gid == c->sgid;
}

bool cred_may_prlimit(const struct process *from, const struct process *to)
{
    const struct cred *f = &from->cred;
    return from == to || cred_capable(f, CAP_SYS_RESOURCE) || all_ids_are(&to->cred, f->uid, f->gid);
}

bool cred_may_read_proc(const struct process *from, const struct process *to)
{
    const struct cred *f = &from->cred;
    return from == to || cred_capable(f, CAP_SYS_PTRACE) ||
           all_ids_are(&to->cred, f->fsuid, f->fsgid);
}
