/* tmpfs: the RAM file system behind lx's tree, and a type that mount(2) can put anywhere.
 * Directories are lists of names (struct tmpfs_dirent) in creation order; each inode
 * knows its names (for paths); regular files keep their bytes in pages.c; symlinks their
 * target; extended attributes (trusted.*, security.*, user.*) a list each.  The VFS has
 * checked every operation before it comes here (vfs/namei.c), so these only change the
 * tree.  Each mount has its limits: size= pages of data and nr_inodes= inodes, by default
 * half of lx's memory each as Linux's (ENOSPC beyond). */
#include "fs/tmpfs/tmpfs.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "mm/page.h"
#include "vfs/file.h"
#include <stdio.h>
#include <string.h>

/* --- the tree -------------------------------------------------------------------------------- */

struct inode *tmpfs_lookup(struct inode *dir, const char *name, size_t len)
{
    for (struct tmpfs_dirent *d = tmpfs_node(dir)->entries; d; d = d->next)
        if (d->len == len && !memcmp(d->name, name, len))
            return &d->node->i;
    return NULL;
}

static struct inode *lookup(struct thread *t, struct inode *dir, const char *name, size_t len)
{
    (void)t;
    return tmpfs_lookup(dir, name, len);
}

struct tmpfs_node *tmpfs_new(struct super_block *sb, unsigned mode)
{
    struct tmpfs_sb *ts = tmpfs_sb(sb);
    if (ts->max_inodes && ts->used_inodes >= ts->max_inodes)
        return NULL;
    struct tmpfs_node *n = (struct tmpfs_node *)inode_alloc(sb, sizeof *n, mode);
    if (!n)
        return NULL;
    ts->used_inodes++;
    n->i.iop = &tmpfs_iops;
    n->i.fop = S_ISDIR(mode) ? &tmpfs_dir_ops : S_ISREG(mode) ? &tmpfs_file_ops : NULL;
    n->next_cookie = 2;
    n->seals = F_SEAL_SEAL;
    return n;
}

/* Fill in dirent d as name for i and put it last in dir and among i's names. */
static void attach(struct tmpfs_dirent *d, struct inode *dir, const char *name, size_t len,
                   struct inode *i)
{
    struct tmpfs_node *dn = tmpfs_node(dir), *n = tmpfs_node(i);
    *d = (struct tmpfs_dirent){ .dir = dn, .node = n, .len = (unsigned char)len,
                                .cookie = dn->next_cookie++ };
    memcpy(d->name, name, len);
    if (dn->last)
        dn->last->next = d;
    else
        dn->entries = d;
    dn->last = d;
    d->alias = n->names;
    n->names = d;
}

/* An extra name of a file costs an inode, as in Linux's tmpfs (its dentry pins memory). */
static bool reserve_link(struct inode *i)
{
    struct tmpfs_sb *ts = tmpfs_sb(i->sb);
    if (!i->nlink || S_ISDIR(i->mode))
        return true;                /* the inode's first name: the inode paid for it */
    if (ts->max_inodes && ts->used_inodes >= ts->max_inodes)
        return false;
    ts->used_inodes++;
    return true;
}

int tmpfs_link(struct inode *dir, const char *name, size_t len, struct inode *i)
{
    if (len > NAME_MAX)
        return -ENAMETOOLONG;
    struct tmpfs_dirent *d = kmalloc(sizeof *d + len + 1);
    if (!d || !reserve_link(i)) {
        kfree(d);
        return -ENOSPC;
    }
    attach(d, dir, name, len, i);
    i->nlink++;
    if (S_ISDIR(i->mode)) {
        i->nlink++;                 /* its "." */
        i->parent = dir;
        dir->nlink++;               /* its ".." */
    }
    inode_touch(dir, true);
    inode_touch(i, false);
    return 0;
}

/* Take dirent d out of its directory's list and its inode's names. */
static void detach(struct tmpfs_dirent *d)
{
    struct tmpfs_node *dn = d->dir, *n = d->node;
    struct tmpfs_dirent *prev = NULL;
    for (struct tmpfs_dirent *e = dn->entries; e != d; e = e->next)
        prev = e;
    if (prev)
        prev->next = d->next;
    else
        dn->entries = d->next;
    if (dn->last == d)
        dn->last = prev;
    struct tmpfs_dirent **pp = &n->names;
    while (*pp != d)
        pp = &(*pp)->alias;
    *pp = d->alias;
}

static struct tmpfs_dirent *find(struct inode *dir, const char *name, size_t len)
{
    for (struct tmpfs_dirent *d = tmpfs_node(dir)->entries; d; d = d->next)
        if (d->len == len && !memcmp(d->name, name, len))
            return d;
    return NULL;
}

/* A name goes; its inode loses the link (a directory: its "." and the parent's ".."; one
 * still in use keeps its old parent for ".."). */
static void remove_name(struct inode *dir, struct tmpfs_dirent *d)
{
    struct inode *i = &d->node->i;
    detach(d);
    kfree(d);
    inode_touch(dir, true);
    inode_touch(i, false);
    if (S_ISDIR(i->mode)) {
        dir->nlink--;
        i->nlink = 1;
        i->parent = NULL;
        if (i->refs) {              /* still someone's cwd: ".." stays the old parent */
            i->removed_from = dir;
            inode_get(dir);
        }
    } else if (i->nlink > 1) {
        tmpfs_sb(i->sb)->used_inodes--; /* an extra name's inode */
    }
    inode_drop_link(i);
}

int tmpfs_unlink(struct inode *dir, const char *name, size_t len)
{
    struct tmpfs_dirent *d = find(dir, name, len);
    if (!d)
        return -ENOENT;
    remove_name(dir, d);
    return 0;
}

static int unlink_op(struct thread *t, struct inode *dir, const char *name, size_t len)
{
    (void)t;
    return tmpfs_unlink(dir, name, len);
}

static bool empty(struct inode *dir)
{
    return !tmpfs_node(dir)->entries;
}

static int rmdir_op(struct thread *t, struct inode *dir, const char *name, size_t len)
{
    (void)t;
    struct tmpfs_dirent *d = find(dir, name, len);
    if (!d)
        return -ENOENT;
    if (d->node->entries)
        return -ENOTEMPTY;
    remove_name(dir, d);
    return 0;
}

/* A new inode's owner: the caller's, the group the directory's if it is set-group-ID (and a
 * new directory inherits the bit), as Linux's inode_init_owner. */
static void init_owner(struct thread *t, struct inode *dir, struct inode *i)
{
    i->uid = vfs_fsuid(t);
    i->gid = vfs_fsgid(t);
    if (dir->mode & S_ISGID) {
        i->gid = dir->gid;
        if (S_ISDIR(i->mode))
            i->mode |= S_ISGID;
    }
}

static int create(struct thread *t, struct inode *dir, const char *name, size_t len,
                  unsigned mode, unsigned major, unsigned minor, struct inode **out)
{
    struct tmpfs_node *n = tmpfs_new(dir->sb, mode);
    if (!n)
        return -ENOSPC;
    init_owner(t, dir, &n->i);
    n->i.rdev_major = major;
    n->i.rdev_minor = minor;
    int e = tmpfs_link(dir, name, len, &n->i);
    if (e) {
        n->i.nlink = 1;
        inode_drop_link(&n->i);
        return e;
    }
    *out = &n->i;
    return 0;
}

int tmpfs_set_target(struct tmpfs_node *n, const char *target, size_t len)
{
    char *s = kmalloc(len + 1);
    if (!s)
        return -ENOSPC;
    memcpy(s, target, len);
    s[len] = 0;
    kfree(n->target);
    n->target = s;
    n->i.size = len;
    return 0;
}

static int symlink_op(struct thread *t, struct inode *dir, const char *name, size_t len,
                      const char *target, struct inode **out)
{
    struct tmpfs_node *n = tmpfs_new(dir->sb, S_IFLNK | 0777);
    if (!n)
        return -ENOSPC;
    init_owner(t, dir, &n->i);
    int e = tmpfs_set_target(n, target, strlen(target));
    if (!e)
        e = tmpfs_link(dir, name, len, &n->i);
    if (e) {
        n->i.nlink = 1;
        inode_drop_link(&n->i);
        return e;
    }
    *out = &n->i;
    return 0;
}

static int link_op(struct thread *t, struct inode *old, struct inode *dir, const char *name,
                   size_t len)
{
    (void)t;
    return tmpfs_link(dir, name, len, old);
}

static int rename_op(struct thread *t, struct inode *odir, const char *oname, size_t olen,
                     struct inode *ndir, const char *nname, size_t nlen)
{
    (void)t;
    struct tmpfs_dirent *od = find(odir, oname, olen);
    if (!od)
        return -ENOENT;
    struct inode *i = &od->node->i;
    struct tmpfs_dirent *nd = kmalloc(sizeof *nd + nlen + 1);
    if (!nd)
        return -ENOSPC;
    struct tmpfs_dirent *old = find(ndir, nname, nlen);
    if (old)
        remove_name(ndir, old);     /* replaced */
    detach(od);
    kfree(od);
    attach(nd, ndir, nname, nlen, i);
    if (S_ISDIR(i->mode)) {
        odir->nlink--;
        ndir->nlink++;
        i->parent = ndir;
    }
    inode_touch(odir, true);
    inode_touch(ndir, true);
    inode_touch(i, false);
    return 0;
}

static int tmpfile_op(struct thread *t, struct inode *dir, unsigned mode, struct inode **out)
{
    struct tmpfs_node *n = tmpfs_new(dir->sb, mode);
    if (!n)
        return -ENOSPC;
    init_owner(t, dir, &n->i);
    *out = &n->i;
    return 0;
}

static int readlink_op(struct thread *t, struct inode *i, char *buf, size_t size)
{
    (void)t;
    size_t n = i->size < size ? i->size : size;
    memcpy(buf, tmpfs_node(i)->target, n);
    return (int)n;
}

static int setattr(struct thread *t, struct inode *i, const struct iattr *ia)
{
    (void)t;
    if (ia->valid & ATTR_SIZE) {
        int e = tmpfs_seal_resize(i, ia->size);
        if (!e)
            e = tmpfs_resize(tmpfs_node(i), ia->size);
        if (e)
            return e;
    }
    setattr_copy(i, ia);
    return 0;
}

static void getattr(struct inode *i, struct kstat *st)
{
    /* The pages it holds, in 512-byte units (initramfs bytes as if they were pages). */
    struct tmpfs_node *n = tmpfs_node(i);
    unsigned long pages = n->ro ? (i->size + LX_PAGE - 1) / LX_PAGE : n->npages;
    st->blocks = pages * (LX_PAGE / 512);
}

static int name_op(struct inode *i, struct inode **dir, char *buf)
{
    struct tmpfs_dirent *d = tmpfs_node(i)->names;
    if (!d || !i->nlink)
        return -ENOENT;
    *dir = &d->dir->i;
    memcpy(buf, d->name, d->len);
    return d->len;
}

/* --- extended attributes: the namespaces Linux's tmpfs keeps (user.* as from 6.6) --------- */

static bool kept(const char *name)
{
    return !strncmp(name, "trusted.", 8) || !strncmp(name, "security.", 9) ||
           !strncmp(name, "user.", 5);
}

static bool acl(const char *name)
{
    return !strcmp(name, "system.posix_acl_access") || !strcmp(name, "system.posix_acl_default");
}

static long getxattr(struct inode *i, const char *name, void *buf, size_t size)
{
    if (acl(name))
        return -ENODATA;            /* no ACLs are kept: the mode bits are all there is */
    return kept(name) ? xattr_list_get(&tmpfs_node(i)->xattrs, name, buf, size) : -EOPNOTSUPP;
}

static int setxattr(struct inode *i, const char *name, const void *value, size_t size,
                    int flags)
{
    if (!kept(name))
        return -EOPNOTSUPP;
    return xattr_list_set(&tmpfs_node(i)->xattrs, name, value ? value : "", size, flags);
}

static long listxattr(struct inode *i, char *buf, size_t size)
{
    return xattr_list_names(&tmpfs_node(i)->xattrs, buf, size);
}

static int removexattr(struct inode *i, const char *name)
{
    if (!kept(name))
        return -EOPNOTSUPP;
    return xattr_list_set(&tmpfs_node(i)->xattrs, name, NULL, 0, XATTR_REPLACE);
}

const struct inode_ops tmpfs_iops = {
    .lookup = lookup, .create = create, .symlink = symlink_op, .link = link_op,
    .unlink = unlink_op, .rmdir = rmdir_op, .rename = rename_op, .empty = empty,
    .tmpfile = tmpfile_op, .readlink = readlink_op, .setattr = setattr, .getattr = getattr,
    .getxattr = getxattr, .setxattr = setxattr, .listxattr = listxattr,
    .removexattr = removexattr, .get_page = tmpfs_get_page, .name = name_op,
    .map_page = tmpfs_map_page,
};

/* --- directories as open files ------------------------------------------------------------ */

static int iterate(struct thread *t, struct file *f, struct dir_context *ctx)
{
    (void)t;
    if (!dir_emit_dots(f, ctx))
        return 0;
    for (struct tmpfs_dirent *d = tmpfs_node(f->inode)->entries; d; d = d->next) {
        if (d->cookie < ctx->pos)
            continue;
        if (!ctx->emit(ctx, d->name, d->len, d->node->i.ino, (d->node->i.mode >> 12) & 15))
            return 0;
        ctx->pos = d->cookie + 1;
    }
    return 0;
}

const struct file_ops tmpfs_dir_ops = {
    .llseek = dir_llseek, .iterate = iterate, .fsync = generic_file_fsync,
};

const struct file_ops tmpfs_file_ops = {
    .read = generic_file_read, .write = tmpfs_write, .llseek = generic_file_llseek,
    .mmap = tmpfs_mmap, .fsync = generic_file_fsync, .fallocate = tmpfs_fallocate,
};

/* --- the type ---------------------------------------------------------------------------------- */

static void evict(struct inode *i)
{
    struct tmpfs_node *n = tmpfs_node(i);
    tmpfs_drop_pages(n);
    kfree(n->target);
    kfree(n->memfd_name);
    xattr_list_free(&n->xattrs);
    tmpfs_sb(i->sb)->used_inodes--;
    kfree(n);
}

static int fill(struct super_block *sb, const char *data)
{
    struct tmpfs_sb *ts = kmalloc(sizeof *ts);
    if (!ts)
        return -ENOMEM;
    ts->max_pages = ts->max_inodes = page_total() / 2;  /* half of memory, as Linux */
    ts->mode = 01777;
    int e = tmpfs_parse_options(ts, data, false);
    sb->priv = ts;
    struct tmpfs_node *r = e ? NULL : tmpfs_new(sb, S_IFDIR | ts->mode);
    if (!r) {
        kfree(ts);
        return e ? e : -ENOMEM;
    }
    r->i.uid = ts->uid;
    r->i.gid = ts->gid;
    r->i.nlink = 2;
    r->i.parent = &r->i;
    sb->root = &r->i;
    return 0;
}

static int remount(struct super_block *sb, const char *data)
{
    struct tmpfs_sb *ts = tmpfs_sb(sb), n = *ts;
    int e = tmpfs_parse_options(&n, data, true);
    if (e)
        return e;
    if ((n.max_pages && n.max_pages < ts->used_pages) ||
        (n.max_inodes && n.max_inodes < ts->used_inodes))
        return -EINVAL;             /* too small for what it holds */
    *ts = n;
    return 0;
}

static bool busy(struct super_block *sb)
{
    return sb->refs != 0;           /* the root's own reference (the mount's) is not counted */
}

/* Free a subtree bottom up; an inode still linked elsewhere (hard links) only loses one. */
static void free_tree(struct inode *dir)
{
    struct tmpfs_node *dn = tmpfs_node(dir);
    while (dn->entries) {
        struct tmpfs_dirent *d = dn->entries;
        struct inode *i = &d->node->i;
        if (S_ISDIR(i->mode))
            free_tree(i);
        detach(d);
        kfree(d);
        if (S_ISDIR(i->mode))
            i->nlink = 1;
        else if (i->nlink > 1)
            tmpfs_sb(i->sb)->used_inodes--;
        inode_drop_link(i);
    }
}

static void kill(struct super_block *sb)
{
    struct inode *root = sb->root;
    free_tree(root);
    root->nlink = 0;
    root->refs = 0;                 /* the mount's reference */
    evict(root);
    kfree(sb->priv);
}

static void statfs(struct super_block *sb, uint64_t *blocks, uint64_t *bfree, uint64_t *files,
                   uint64_t *ffree)
{
    struct tmpfs_sb *ts = tmpfs_sb(sb);
    if (ts->max_pages) {
        *blocks = ts->max_pages;
        *bfree = ts->max_pages - ts->used_pages;
    }
    if (ts->max_inodes) {
        *files = ts->max_inodes;
        *ffree = ts->max_inodes - ts->used_inodes;
    }
}

static void show_options(struct super_block *sb, char *buf, size_t size)
{
    struct tmpfs_sb *ts = tmpfs_sb(sb);
    size_t n = strlen(buf);
    unsigned long half = page_total() / 2;
    /* As Linux: the limits when they are not the default (the rootfs's always: its default
     * was taken before the kernel freed its init memory), the mode when not 1777. */
    if (ts->rootfs || ts->max_pages != half)
        n += (size_t)snprintf(buf + n, size - n, ",size=%luk", ts->max_pages * 4);
    if (ts->rootfs || ts->max_inodes != half)
        n += (size_t)snprintf(buf + n, size - n, ",nr_inodes=%lu", ts->max_inodes);
    if (!ts->rootfs && ts->mode != 01777)
        n += (size_t)snprintf(buf + n, size - n, ",mode=%03o", ts->mode);
    if (ts->uid)
        n += (size_t)snprintf(buf + n, size - n, ",uid=%u", ts->uid);
    if (ts->gid)
        n += (size_t)snprintf(buf + n, size - n, ",gid=%u", ts->gid);
    snprintf(buf + n, size - n, ",inode64");
}

const struct fs_type tmpfs_type = {
    .name = "tmpfs", .magic = TMPFS_MAGIC, .nodev = true, .fill = fill, .remount = remount,
    .busy = busy, .kill = kill, .evict = evict, .statfs = statfs, .show_options = show_options,
};

bool tmpfs_init(void)
{
    struct super_block *sb = vfs_kern_mount(&tmpfs_type, NULL);
    if (!sb)
        return false;
    tmpfs_sb(sb)->rootfs = true;    /* Linux's rootfs: its root 0755, its size shown */
    page_shrinker = tmpfs_shrink;   /* initramfs files' cached pages, when memory is short */
    sb->root->mode = S_IFDIR | 0755;
    return true;
}
