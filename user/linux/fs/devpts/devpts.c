/* devpts: a directory of the open ptys' slaves, named by number, and ptmx (5:2), as Linux's
 * devpts (fs/devpts).  Each mount is an instance of its own with its own numbers, as since
 * Linux 4.7.  Options: uid=, gid=, mode= (the slaves'), ptmxmode=, max=, newinstance
 * (accepted); Linux's defaults mode=600, ptmxmode=000, the opener's ids.  A node lives while
 * its pty's master is open (tty/pty.c makes and kills it); the number is free again when
 * both ends are closed. */
#include "fs/devpts/devpts.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "vfs/file.h"
#include "vfs/lock.h"
#include <stdio.h>
#include <string.h>

#define DEVPTS_MAX 256              /* ptys of one instance (Linux: kernel.pty.max 4096) */
#define PTS_MAJOR  136

struct devpts_node {
    struct inode i;                 /* first: the VFS's */
    void *priv;                     /* the pty (NULL once killed) */
    int index;
};

struct devpts {
    struct super_block *sb;
    struct inode root, ptmx;
    struct devpts_node *nodes[DEVPTS_MAX];  /* the named ones */
    bool used[DEVPTS_MAX];          /* numbers taken (a pty with an end open) */
    unsigned mode, ptmxmode, max;
    unsigned uid, gid;
    bool setuid, setgid;
};

static const struct inode_ops devpts_iops;
static const struct file_ops devpts_dir_ops;

static struct devpts *fs_of(struct inode *i)
{
    return i->sb->priv;
}

/* --- options ---------------------------------------------------------------------------- */

static bool number(const char *s, size_t n, unsigned base, unsigned *out)
{
    unsigned long v = 0;
    if (!n)
        return false;
    for (size_t k = 0; k < n; k++) {
        unsigned d = (unsigned)(s[k] - '0');
        if (d >= base)
            return false;
        v = v * base + d;
        if (v > 0xffffffffu)
            return false;
    }
    *out = (unsigned)v;
    return true;
}

static int parse_options(struct devpts *fs, const char *data)
{
    fs->mode = 0600;
    fs->ptmxmode = 0;
    fs->max = DEVPTS_MAX;
    fs->setuid = fs->setgid = false;
    for (const char *s = data ? data : ""; *s;) {
        const char *e = strchr(s, ',');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        const char *eq = memchr(s, '=', n);
        size_t k = eq ? (size_t)(eq - s) : n;
        const char *v = eq ? eq + 1 : NULL;
        size_t vn = eq ? n - k - 1 : 0;
        unsigned x;
        if (k == 3 && !strncmp(s, "uid", 3) && v && number(v, vn, 10, &x))
            fs->uid = x, fs->setuid = true;
        else if (k == 3 && !strncmp(s, "gid", 3) && v && number(v, vn, 10, &x))
            fs->gid = x, fs->setgid = true;
        else if (k == 4 && !strncmp(s, "mode", 4) && v && number(v, vn, 8, &x))
            fs->mode = x & 07777;
        else if (k == 8 && !strncmp(s, "ptmxmode", 8) && v && number(v, vn, 8, &x))
            fs->ptmxmode = x & 07777;
        else if (k == 3 && !strncmp(s, "max", 3) && v && number(v, vn, 10, &x))
            fs->max = x < DEVPTS_MAX ? x : DEVPTS_MAX;
        else if (!(k == 11 && !strncmp(s, "newinstance", 11) && !v) && n)
            return -EINVAL;         /* Linux: "devpts: called with bogus options" */
        s += n + (e ? 1 : 0);
    }
    return 0;
}

static void show_options(struct super_block *sb, char *buf, size_t size)
{
    struct devpts *fs = sb->priv;
    size_t n = strlen(buf);
    if (fs->setuid)
        n += (size_t)snprintf(buf + n, size - n, ",uid=%u", fs->uid);
    if (fs->setgid)
        n += (size_t)snprintf(buf + n, size - n, ",gid=%u", fs->gid);
    n += (size_t)snprintf(buf + n, size - n, ",mode=%03o,ptmxmode=%03o", fs->mode,
                          fs->ptmxmode);
    if (fs->max < DEVPTS_MAX)
        snprintf(buf + n, size - n, ",max=%u", fs->max);
}

/* --- the tree --------------------------------------------------------------------------- */

static struct inode *devpts_lookup(struct thread *t, struct inode *dir, const char *name,
                                   size_t len)
{
    (void)t;
    struct devpts *fs = fs_of(dir);
    unsigned index;
    if (len == 4 && !memcmp(name, "ptmx", 4))
        return &fs->ptmx;
    if (len > 1 && name[0] == '0')
        return NULL;
    if (!number(name, len, 10, &index) || index >= DEVPTS_MAX || !fs->nodes[index])
        return NULL;
    return &fs->nodes[index]->i;
}

/* ptmx, then the slaves by number (Linux lists them newest first; ls sorts). */
static int devpts_iterate(struct thread *t, struct file *f, struct dir_context *ctx)
{
    (void)t;
    struct devpts *fs = fs_of(f->inode);
    if (!dir_emit_dots(f, ctx))
        return 0;
    if (ctx->pos == 2) {
        if (!ctx->emit(ctx, "ptmx", 4, fs->ptmx.ino, S_IFCHR >> 12))
            return 0;
        ctx->pos = 3;
    }
    for (; ctx->pos - 3 < DEVPTS_MAX; ctx->pos++) {
        struct devpts_node *n = fs->nodes[ctx->pos - 3];
        char name[12];
        if (!n)
            continue;
        int len = snprintf(name, sizeof name, "%d", n->index);
        if (!ctx->emit(ctx, name, (size_t)len, n->i.ino, S_IFCHR >> 12))
            return 0;
    }
    return 0;
}

static int devpts_name(struct inode *i, struct inode **dir, char *buf)
{
    struct devpts *fs = fs_of(i);
    *dir = &fs->root;
    if (i == &fs->ptmx) {
        memcpy(buf, "ptmx", 4);
        return 4;
    }
    struct devpts_node *n = (struct devpts_node *)i;
    if (!i->nlink)
        return -ENOENT;
    return snprintf(buf, NAME_MAX + 1, "%d", n->index);
}

static const struct inode_ops devpts_iops = {
    .lookup = devpts_lookup, .name = devpts_name,
};
static const struct file_ops devpts_dir_ops = {
    .iterate = devpts_iterate, .llseek = dir_llseek,
};

/* --- the ptys' side --------------------------------------------------------------------- */

struct devpts *devpts_acquire(struct thread *t, struct inode *ptmx, int *err)
{
    if (ptmx->sb->type == &devpts_type)
        return ptmx->sb->priv;
    struct inode *pts = path_walk(t, NULL, "/dev/pts", true, err);
    if (!pts)
        return NULL;
    if (pts->sb->type != &devpts_type || pts != pts->sb->root) {
        *err = -ENODEV;
        return NULL;
    }
    return pts->sb->priv;
}

int devpts_new_index(struct devpts *fs)
{
    for (unsigned k = 0; k < fs->max; k++)
        if (!fs->used[k]) {
            fs->used[k] = true;
            return (int)k;
        }
    return -ENOSPC;
}

void devpts_kill_index(struct devpts *fs, int index)
{
    fs->used[index] = false;
}

struct inode *devpts_pty_new(struct thread *t, struct devpts *fs, int index, void *priv)
{
    struct devpts_node *n = (struct devpts_node *)inode_alloc(fs->sb, sizeof *n,
                                                              S_IFCHR | fs->mode);
    if (!n)
        return NULL;
    n->priv = priv;
    n->index = index;
    n->i.ino = (unsigned long)index + 3;
    n->i.nlink = 1;
    n->i.uid = fs->setuid ? fs->uid : vfs_fsuid(t);
    n->i.gid = fs->setgid ? fs->gid : vfs_fsgid(t);
    n->i.rdev_major = PTS_MAJOR;
    n->i.rdev_minor = (unsigned)index;
    n->i.iop = &devpts_iops;
    fs->nodes[index] = n;
    return &n->i;
}

void devpts_pty_kill(struct inode *node)
{
    struct devpts_node *n = (struct devpts_node *)node;
    struct devpts *fs = fs_of(node);
    if (fs->nodes[n->index] == n)
        fs->nodes[n->index] = NULL;
    n->priv = NULL;
    inode_drop_link(node);          /* freed when no open file holds it */
}

void *devpts_get_priv(struct inode *node)
{
    if (node->sb->type != &devpts_type || node == node->sb->root ||
        node == &fs_of(node)->ptmx)
        return NULL;
    return ((struct devpts_node *)node)->priv;
}

/* --- the type --------------------------------------------------------------------------- */

static int devpts_fill(struct super_block *sb, const char *data)
{
    struct devpts *fs = kmalloc(sizeof *fs);
    if (!fs)
        return -ENOMEM;
    int e = parse_options(fs, data);
    if (e) {
        kfree(fs);
        return e;
    }
    fs->sb = sb;
    uint64_t now = vfs_now();
    fs->root = (struct inode){
        .mode = S_IFDIR | 0755, .nlink = 2, .ino = 1, .sb = sb, .iop = &devpts_iops,
        .fop = &devpts_dir_ops, .atime = now, .mtime = now, .ctime = now,
    };
    fs->root.parent = &fs->root;
    fs->ptmx = (struct inode){
        .mode = S_IFCHR | fs->ptmxmode, .nlink = 1, .ino = 2, .sb = sb, .iop = &devpts_iops,
        .rdev_major = 5, .rdev_minor = 2, .atime = now, .mtime = now, .ctime = now,
    };
    sb->root = &fs->root;
    sb->priv = fs;
    return 0;
}

static int devpts_remount(struct super_block *sb, const char *data)
{
    struct devpts *fs = sb->priv;
    int e = parse_options(fs, data);
    fs->ptmx.mode = S_IFCHR | fs->ptmxmode;
    return e;
}

static bool devpts_busy(struct super_block *sb)
{
    struct devpts *fs = sb->priv;
    for (unsigned k = 0; k < DEVPTS_MAX; k++)
        if (fs->used[k])
            return true;
    return sb->refs != 0;
}

static void devpts_kill(struct super_block *sb)
{
    struct devpts *fs = sb->priv;
    locks_inode_free(&fs->ptmx);
    locks_inode_free(&fs->root);
    kfree(fs);
}

static void devpts_evict(struct inode *i)
{
    struct devpts *fs = fs_of(i);
    if (i == &fs->root || i == &fs->ptmx)
        return;                     /* the instance's own */
    kfree(i);
}

const struct fs_type devpts_type = {
    .name = "devpts", .magic = DEVPTS_SUPER_MAGIC, .nodev = true, .fill = devpts_fill,
    .remount = devpts_remount, .busy = devpts_busy, .kill = devpts_kill,
    .evict = devpts_evict, .show_options = show_options,
};
