/* Mounts: a list of super blocks in mount order, the root tmpfs first; mount(2) puts a
 * tmpfs or a proc on a directory, whose inode then names the new root (inode->mounted), and
 * the path walk steps across (vfs/path.c).  A file system mounted on another's root stacks
 * on top, as in Linux.  Each super block gets its own anonymous device number (st_dev 0:N)
 * and mount id.  File systems that are mounted nowhere (pipefs, the anonymous inodes) have
 * super blocks of their own outside the list.  There is no bind, move or lazy unmount yet.
 * Paths of inodes (getcwd, /proc/N/fd, /proc/mounts) are made here, through each file
 * system's name operation. */
#include "vfs/file.h"
#include "vfs/fsnotify.h"
#include "fs/devpts/devpts.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include <string.h>

static const struct fs_type *const types[] = { &tmpfs_type, &proc_type, &devpts_type };

struct super_block *root_sb;
static struct super_block *mounts;  /* root_sb first, in mount order */
static unsigned next_dev = 0x10;    /* the root's; Linux's anonymous devices also count up */
static unsigned next_id = 1;

const struct fs_type *fs_type_find(const char *name)
{
    for (unsigned k = 0; k < sizeof types / sizeof types[0]; k++)
        if (!strcmp(types[k]->name, name))
            return types[k];
    return NULL;
}

const struct fs_type *fs_type_nth(unsigned i)
{
    return i < sizeof types / sizeof types[0] ? types[i] : NULL;
}

struct super_block *mount_first(void)
{
    return mounts;
}

struct super_block *mount_next(struct super_block *sb)
{
    return sb->next;
}

static struct super_block *sb_make(const struct fs_type *type, unsigned long flags,
                                   const char *source, const char *data, int *err)
{
    struct super_block *sb = kmalloc(sizeof *sb);
    size_t n = strlen(source);
    char *s = kmalloc(n + 1);
    if (!sb || !s) {
        kfree(sb), kfree(s);
        *err = -ENOMEM;
        return NULL;
    }
    memcpy(s, source, n + 1);
    sb->type = type;
    sb->flags = flags;
    sb->source = s;
    sb->dev = next_dev++;
    sb->id = next_id++;
    if ((*err = type->fill(sb, data))) {
        kfree(s);
        kfree(sb);
        return NULL;
    }
    return sb;
}

static void sb_free(struct super_block *sb)
{
    fsnotify_unmount(sb);           /* IN_UNMOUNT, then the watches on it end */
    sb->type->kill(sb);
    kfree(sb->source);
    kfree(sb);
}

struct super_block *vfs_kern_mount(const struct fs_type *type, const char *data)
{
    int err;
    struct super_block *sb = sb_make(type, 0, type == &tmpfs_type ? "rootfs" : type->name,
                                     data, &err);
    if (sb && !root_sb && type == &tmpfs_type) {
        root_sb = mounts = sb;      /* the first tmpfs is the root */
        sb->root->refs++;           /* the mount's, never dropped while it is mounted */
    }
    return sb;
}

void vfs_kern_umount(struct super_block *sb)
{
    sb_free(sb);
}

/* Linux's shm_mnt: the tmpfs of memfd_create, mounted nowhere, without size or inode limits;
 * made at its first use, freed at the end of the run. */
static struct super_block *shm_sb;

struct super_block *vfs_shm_mount(void)
{
    int err;
    if (!shm_sb)
        shm_sb = sb_make(&tmpfs_type, 0, "tmpfs", "size=0,nr_inodes=0", &err);
    return shm_sb;
}

int vfs_mount(const struct fs_type *type, struct inode *on, const char *source,
              unsigned long flags, const char *data)
{
    if (!S_ISDIR(on->mode))
        return -ENOTDIR;
    if (!on->parent)
        return -ENOENT;             /* a removed directory */
    int err;
    struct super_block *sb = sb_make(type, flags, source && *source ? source : "none", data,
                                     &err);
    if (!sb)
        return err;
    sb->root->refs++;               /* the mount's (not counted in sb->refs: busy) */
    sb->mountpoint = on;
    sb->parent = on->sb;
    inode_get(on);                  /* the mount holds its mount point */
    on->mounted = sb->root;
    struct super_block **pp = &mounts;
    while (*pp)
        pp = &(*pp)->next;
    *pp = sb;
    return 0;
}

int vfs_remount(struct super_block *sb, unsigned long flags, const char *data)
{
    if (data && *data && sb->type->remount) {
        int e = sb->type->remount(sb, data);
        if (e)
            return e;
    }
    sb->flags = flags;
    return 0;
}

/* Is sb or anything mounted below it in use? */
static bool busy(struct super_block *sb)
{
    for (struct super_block *m = mounts; m; m = m->next)
        if (m->parent == sb)
            return true;            /* a file system mounted inside it */
    return sb->type->busy(sb);
}

static void detach(struct super_block *sb)
{
    for (struct super_block **pp = &mounts; *pp; pp = &(*pp)->next)
        if (*pp == sb) {
            *pp = sb->next;
            break;
        }
    struct inode *on = sb->mountpoint;
    on->mounted = NULL;
    sb_free(sb);
    inode_put(on);
}

int vfs_umount(struct inode *root, unsigned flags)
{
    (void)flags;
    struct super_block *sb = root->sb;
    if (root != sb->root || sb == root_sb || !sb->mountpoint)
        return -EINVAL;             /* not a mount point; or the root, as for Linux's rootfs */
    if (busy(sb))
        return -EBUSY;
    detach(sb);
    return 0;
}

void vfs_umount_all(void)
{
    /* The last mounted first: nothing is mounted inside it any more. */
    while (mounts && mounts->next) {
        struct super_block *last = mounts;
        while (last->next)
            last = last->next;
        detach(last);
    }
    if (root_sb) {
        sb_free(root_sb);
        root_sb = mounts = NULL;
    }
}

void vfs_shutdown(void)
{
    vfs_umount_all();
    if (shm_sb)
        sb_free(shm_sb);
    shm_sb = NULL;
    anon_shutdown();
}

/* --- paths of inodes ----------------------------------------------------------------------- */

int vfs_path_of(struct inode *i, char *buf, size_t size)
{
    static char tmp[PATH_MAX];
    char name[NAME_MAX + 1];
    size_t pos = sizeof tmp - 1;
    tmp[pos] = 0;
    for (struct inode *d = i;;) {
        struct super_block *sb = d->sb;
        if (d == sb->root) {
            if (sb->mountpoint) {
                d = sb->mountpoint;
                continue;
            }
            if (sb != root_sb)
                return -ENOENT;     /* a file system mounted nowhere (pipefs, anon) */
            break;
        }
        struct inode *dir;
        int n = d->iop && d->iop->name ? d->iop->name(d, &dir, name) : -ENOENT;
        if (n < 0)
            return n;
        if (pos < (size_t)n + 1)
            return -ENAMETOOLONG;
        pos -= (size_t)n;
        memcpy(tmp + pos, name, (size_t)n);
        tmp[--pos] = '/';
        d = dir;
    }
    if (pos == sizeof tmp - 1)
        tmp[--pos] = '/';
    size_t n = sizeof tmp - 1 - pos;
    if (n + 1 > size)
        return -ERANGE;
    memcpy(buf, tmp + pos, n + 1);
    return (int)n;
}
