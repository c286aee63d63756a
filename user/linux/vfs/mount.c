/* Mounts: a table of super blocks, one per mounted file system.  The root tmpfs is the
 * first; mount(2) adds a tmpfs or a proc on a directory, whose inode then names the new
 * root (inode->mounted), and the path walk steps across (vfs/path.c).  A file system
 * mounted on another's root stacks on top, as in Linux.  Each gets its own anonymous
 * device number (st_dev 0:N).  There is no bind, move or lazy unmount yet.  Paths of
 * inodes (getcwd, /proc/N/fd, /proc/mounts) are made here too. */
#include "vfs/vfs.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include <string.h>

static struct super_block sbs[LX_MAX_MOUNTS];
struct super_block *root_sb = &sbs[0];
static unsigned next_dev = 0x10;    /* the root's; Linux's anonymous devices also count up */

struct super_block *mount_slot(unsigned i)
{
    return i < LX_MAX_MOUNTS && sbs[i].type ? &sbs[i] : NULL;
}

struct super_block *inode_sb(const struct inode *i)
{
    return i->sb ? i->sb : root_sb;
}

bool mount_root_init(void)
{
    root_sb->type = &tmpfs_type;
    root_sb->dev = next_dev++;
    root_sb->root = tmpfs_root;
    strcpy(root_sb->source, "rootfs");
    tmpfs_root->sb = root_sb;
    return true;
}

int vfs_mount(const struct fs_type *type, struct inode *on, const char *source,
              unsigned long flags)
{
    if (!S_ISDIR(on->mode))
        return -ENOTDIR;
    if (!on->parent)
        return -ENOENT;             /* a removed directory */
    struct super_block *sb = NULL;
    for (unsigned i = 1; i < LX_MAX_MOUNTS && !sb; i++)
        if (!sbs[i].type)
            sb = &sbs[i];
    if (!sb)
        return -ENOSPC;             /* Linux's answer past fs.mount-max */
    memset(sb, 0, sizeof *sb);
    sb->type = type;
    sb->flags = flags;
    int e = type->fill(sb);
    if (e) {
        sb->type = NULL;
        return e;
    }
    sb->dev = next_dev++;
    sb->mountpoint = on;
    sb->parent = inode_sb(on);
    strncpy(sb->source, source && *source ? source : "none", sizeof sb->source - 1);
    inode_get(on);                  /* the mount holds its mount point */
    on->mounted = sb->root;
    return 0;
}

/* Is sb or anything mounted below it in use? */
static bool busy(struct super_block *sb)
{
    for (unsigned i = 1; i < LX_MAX_MOUNTS; i++)
        if (sbs[i].type && sbs[i].parent == sb)
            return true;            /* a file system mounted inside it */
    return sb->type->busy(sb);
}

static void detach(struct super_block *sb)
{
    struct inode *on = sb->mountpoint;
    on->mounted = NULL;
    sb->type->kill(sb);
    sb->type = NULL;
    inode_put(on);
}

int vfs_umount(struct inode *root, unsigned flags)
{
    (void)flags;
    struct super_block *sb = inode_sb(root);
    if (root != sb->root || sb == root_sb)
        return -EINVAL;             /* not a mount point; or the root, as for Linux's rootfs */
    if (busy(sb))
        return -EBUSY;
    detach(sb);
    return 0;
}

void vfs_umount_all(void)
{
    for (bool again = true; again;) {
        again = false;
        for (unsigned i = LX_MAX_MOUNTS - 1; i > 0; i--) {
            struct super_block *sb = &sbs[i];
            if (!sb->type)
                continue;
            bool leaf = true;
            for (unsigned j = 1; j < LX_MAX_MOUNTS; j++)
                if (sbs[j].type && sbs[j].parent == sb)
                    leaf = false;
            if (leaf)
                detach(sb);
            else
                again = true;
        }
    }
}

struct inode *vfs_lookup(struct thread *t, struct inode *dir, const char *name, size_t len)
{
    if (dir->iop)
        return dir->iop->lookup(t, dir, name, len);
    return tmpfs_lookup(dir, name, len);
}

int vfs_readlink(struct thread *t, struct inode *i, char *buf, size_t size)
{
    if (i->iop && i->iop->get_link)
        return i->iop->get_link(t, i, buf, size);
    size_t n = i->size < size ? i->size : size;
    memcpy(buf, i->target, n);
    return (int)n;
}

/* --- paths of inodes ----------------------------------------------------------------------- */

static int name_of(struct inode *d, char *buf)
{
    if (d->iop)
        return d->iop->name(d, buf);
    for (const struct dentry *e = d->parent->entries; e; e = e->next)
        if (e->inode == d) {
            memcpy(buf, e->name, e->len);
            return e->len;
        }
    return -ENOENT;
}

/* Prepend "/name" components from d up to the root, into buf ending at *pos. */
static int up_to_root(struct inode *d, char *buf, size_t *pos)
{
    char name[NAME_MAX + 1];
    for (;;) {
        struct super_block *sb = inode_sb(d);
        if (d == sb->root) {
            if (!sb->mountpoint)
                return 0;
            d = sb->mountpoint;
            continue;
        }
        if (!d->parent)
            return -ENOENT;         /* removed */
        int n = name_of(d, name);
        if (n < 0)
            return n;
        if (*pos < (size_t)n + 1)
            return -ENAMETOOLONG;
        *pos -= (size_t)n;
        memcpy(buf + *pos, name, (size_t)n);
        buf[--*pos] = '/';
        d = d->parent;
    }
}

/* The directory (tmpfs, any mount) that holds a name for i, and the entry. */
static const struct dentry *search(struct inode *dir, struct inode *i, struct inode **where)
{
    for (const struct dentry *e = dir->entries; e; e = e->next) {
        if (e->inode == i) {
            *where = dir;
            return e;
        }
        struct inode *c = e->inode;
        if (!S_ISDIR(c->mode))
            continue;
        while (c->mounted)
            c = c->mounted;
        if (c->iop)
            continue;
        const struct dentry *r = search(c, i, where);
        if (r)
            return r;
    }
    return NULL;
}

int vfs_path_of(struct inode *i, char *buf, size_t size)
{
    static char tmp[PATH_MAX];
    size_t pos = sizeof tmp - 1;
    tmp[pos] = 0;
    int e;
    if (S_ISDIR(i->mode) || i->iop) {
        e = up_to_root(i, tmp, &pos);
    } else {
        struct inode *root = tmpfs_root, *dir;
        while (root->mounted)
            root = root->mounted;
        const struct dentry *d = i->nlink ? search(root, i, &dir) : NULL;
        if (!d)
            return -ENOENT;
        if (pos < (size_t)d->len + 1)
            return -ENAMETOOLONG;
        pos -= d->len;
        memcpy(tmp + pos, d->name, d->len);
        tmp[--pos] = '/';
        e = up_to_root(dir, tmp, &pos);
    }
    if (e)
        return e;
    if (pos == sizeof tmp - 1)
        tmp[--pos] = '/';
    size_t n = sizeof tmp - 1 - pos;
    if (n + 1 > size)
        return -ERANGE;
    memcpy(buf, tmp + pos, n + 1);
    return (int)n;
}
