/* /dev: the memory devices (1:3 null, 1:5 zero, 1:7 full, 1:8 random, 1:9 urandom), their
 * file operations registered by number (vfs/chrdev.c), and the standard nodes.
 *
 * Decision: /dev is a directory of the root tmpfs, not a file system of its own.  The
 * initramfs may bring device nodes (tools/initramfs/mkinitramfs.py does); at boot lx adds,
 * like devtmpfs, the standard ones it lacks, through the VFS, so every run has the same
 * /dev whatever the archive held.  The tty's numbers are the tty's (tty/tty.c, tty/pty.c);
 * /dev/pts is made empty, for a devpts mount (fs/devpts). */
#include "vfs/file.h"
#include "lib/errno.h"
#include "lib/random.h"
#include "l4chan/l4chan.h"
#include <string.h>

static long null_read(struct thread *t, struct file *f, struct uio *u, l4_word_t *pos)
{
    (void)t, (void)f, (void)u, (void)pos;
    return 0;
}

/* Writes to null, zero and the random devices vanish: Linux does not even read them. */
static long null_write(struct thread *t, struct file *f, struct uio *u, l4_word_t *pos)
{
    (void)t, (void)f, (void)pos;
    return (long)uio_discard(u, u->resid);
}

static long zero_read(struct thread *t, struct file *f, struct uio *u, l4_word_t *pos)
{
    (void)t, (void)f, (void)pos;
    return (long)uio_zero(u, u->resid);
}

static long full_write(struct thread *t, struct file *f, struct uio *u, l4_word_t *pos)
{
    (void)t, (void)f, (void)u, (void)pos;
    return -ENOSPC;
}

static long random_read(struct thread *t, struct file *f, struct uio *u, l4_word_t *pos)
{
    (void)t, (void)f, (void)pos;
    char buf[256];
    l4_word_t start = u->done;
    while (u->resid) {
        l4_word_t k = u->resid < sizeof buf ? u->resid : sizeof buf;
        lx_random_bytes(buf, k);
        if (uio_copy_out(u, buf, k) < k)
            break;
    }
    return (long)(u->done - start);
}

/* lseek: the memory devices stay at 0 (Linux's null_lseek); the random ones keep their
 * position (noop_llseek). */
static long null_llseek(struct thread *t, struct file *f, long off, int whence)
{
    (void)t, (void)f, (void)off, (void)whence;
    return 0;
}

static long noop_llseek(struct thread *t, struct file *f, long off, int whence)
{
    (void)t, (void)off, (void)whence;
    return (long)f->pos;
}

/* mmap of /dev/zero: anonymous memory (shared with children for MAP_SHARED). */
static int zero_mmap(struct thread *t, struct file *f, struct region *r)
{
    (void)t, (void)f, (void)r;
    return 0;
}

static const struct file_ops null_ops = {
    .read = null_read, .write = null_write, .llseek = null_llseek,
};
static const struct file_ops zero_ops = {
    .read = zero_read, .write = null_write, .llseek = null_llseek, .mmap = zero_mmap,
};
static const struct file_ops full_ops = {
    .read = zero_read, .write = full_write, .llseek = null_llseek,
};
static const struct file_ops random_ops = {
    .read = random_read, .write = null_write, .llseek = noop_llseek,
};

static struct chrdev mem_devices[] = {
    { .major = 1, .minor = 3, .count = 1, .ops = &null_ops },
    { .major = 1, .minor = 5, .count = 1, .ops = &zero_ops },
    { .major = 1, .minor = 7, .count = 1, .ops = &full_ops },
    { .major = 1, .minor = 8, .count = 2, .ops = &random_ops },
};

struct node {
    const char *name;
    unsigned mode, major, minor;
    const char *target;             /* a symlink's */
};

static const struct node nodes[] = {
    { "null", S_IFCHR | 0666, 1, 3, NULL },    { "zero", S_IFCHR | 0666, 1, 5, NULL },
    { "full", S_IFCHR | 0666, 1, 7, NULL },    { "random", S_IFCHR | 0666, 1, 8, NULL },
    { "urandom", S_IFCHR | 0666, 1, 9, NULL }, { "tty", S_IFCHR | 0666, 5, 0, NULL },
    { "console", S_IFCHR | 0600, 5, 1, NULL }, { "ptmx", S_IFCHR | 0666, 5, 2, NULL },
    { "kmsg", S_IFCHR | 0644, 1, 11, NULL },    { "l4chan", S_IFCHR | 0666, 10, 250, NULL },
    { "fd", S_IFLNK | 0777, 0, 0, "/proc/self/fd" },
    { "stdin", S_IFLNK | 0777, 0, 0, "/proc/self/fd/0" },
    { "stdout", S_IFLNK | 0777, 0, 0, "/proc/self/fd/1" },
    { "stderr", S_IFLNK | 0777, 0, 0, "/proc/self/fd/2" },
};

void dev_populate(void)
{
    static bool registered;
    for (unsigned k = 0; !registered && k < sizeof mem_devices / sizeof mem_devices[0]; k++)
        chrdev_register(&mem_devices[k]);
    if (!registered)
        l4chan_register();
    registered = true;
    if (!root_sb)
        return;
    int err;
    struct inode *root = root_sb->root, *dev = path_walk(NULL, root, "dev", false, &err);
    if (!dev && !vfs_mkdir(NULL, root, "dev", false, 0755))
        dev = path_walk(NULL, root, "dev", false, &err);
    if (!dev || !S_ISDIR(dev->mode))
        return;
    if (!vfs_lookup(NULL, dev, "pts", 3))
        vfs_mkdir(NULL, dev, "pts", false, 0755);   /* devpts's place (tty/pty.c) */
    for (unsigned k = 0; k < sizeof nodes / sizeof nodes[0]; k++) {
        const struct node *n = &nodes[k];
        if (vfs_lookup(NULL, dev, n->name, strlen(n->name)))
            continue;               /* the archive's wins */
        if (n->target)
            vfs_symlink(NULL, dev, n->name, false, n->target);
        else
            vfs_mknod(NULL, dev, n->name, false, n->mode, n->major, n->minor);
    }
}
