/* /dev: a directory of the root tmpfs (not a file system of its own).  The initramfs may
 * bring device nodes (tools/initramfs/mkinitramfs.py does); at boot lx adds, like
 * devtmpfs, the standard ones it lacks, so every run has the same /dev whatever the
 * archive held.  A node's behaviour comes from its device number (vfs/file.c). */
#include "vfs/vfs.h"
#include <string.h>

struct node {
    const char *name;
    unsigned mode, major, minor;
    const char *target;             /* a symlink's */
};

static const struct node nodes[] = {
    { "null", S_IFCHR | 0666, 1, 3, NULL },    { "zero", S_IFCHR | 0666, 1, 5, NULL },
    { "full", S_IFCHR | 0666, 1, 7, NULL },    { "random", S_IFCHR | 0666, 1, 8, NULL },
    { "urandom", S_IFCHR | 0666, 1, 9, NULL }, { "tty", S_IFCHR | 0666, 5, 0, NULL },
    { "console", S_IFCHR | 0600, 5, 1, NULL }, { "fd", S_IFLNK | 0777, 0, 0, "/proc/self/fd" },
    { "stdin", S_IFLNK | 0777, 0, 0, "/proc/self/fd/0" },
    { "stdout", S_IFLNK | 0777, 0, 0, "/proc/self/fd/1" },
    { "stderr", S_IFLNK | 0777, 0, 0, "/proc/self/fd/2" },
};

static struct inode *add(struct inode *dir, const char *name, unsigned mode)
{
    struct inode *i = tmpfs_new(mode);
    if (!i)
        return NULL;
    if (tmpfs_link(dir, name, strlen(name), i)) {
        i->refs = 1;
        inode_put(i);
        return NULL;
    }
    return i;
}

void dev_populate(void)
{
    if (!tmpfs_root)
        return;
    struct inode *dev = tmpfs_lookup(tmpfs_root, "dev", 3);
    if (!dev)
        dev = add(tmpfs_root, "dev", S_IFDIR | 0755);
    if (!dev || !S_ISDIR(dev->mode))
        return;
    for (unsigned k = 0; k < sizeof nodes / sizeof nodes[0]; k++) {
        const struct node *n = &nodes[k];
        if (tmpfs_lookup(dev, n->name, strlen(n->name)))
            continue;               /* the archive's wins */
        struct inode *i = add(dev, n->name, n->mode);
        if (!i)
            return;
        i->rdev_major = n->major;
        i->rdev_minor = n->minor;
        if (n->target && tmpfs_set_target(i, n->target, strlen(n->target)))
            tmpfs_unlink(dev, n->name, strlen(n->name));
    }
}
