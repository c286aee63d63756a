/* The path walk: component by component from the root or a starting directory, each
 * directory searched only with search (execute) permission, "." and ".." by the directory's
 * parent (across mount points), names by the file system's lookup, mounted file systems
 * stepped onto, symlinks followed up to LX_SYMLOOP times per walk (ELOOP beyond): an
 * ordinary one by walking its text, a "magic" one of proc to the inode it names. */
#include "vfs/vfs.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "task/process.h"
#include <string.h>

struct inode *vfs_mounted(struct inode *i)
{
    while (i->mounted)
        i = i->mounted;
    return i;
}

static struct inode *cwd_of(struct thread *t)
{
    return t && t->fs ? t->fs->cwd : NULL;
}

/* openat2's RESOLVE_* for the walks of the call being served (lx serves one call at a
 * time): the flags, the dirfd's directory of a scoped walk, the mount a NO_XDEV walk stays
 * on (its first walk's start). */
static unsigned resolve;
static struct inode *resolve_scope;
static struct super_block *resolve_sb;

void vfs_resolve_begin(unsigned flags, struct inode *scope)
{
    resolve = flags;
    resolve_scope = scope ? vfs_mounted(scope) : NULL;
    resolve_sb = NULL;
}

void vfs_resolve_end(void)
{
    resolve = 0;
    resolve_scope = NULL;
}

/* A NO_XDEV walk reaching dir: 0, or -EXDEV off its mount. */
static int xdev_check(struct inode *dir)
{
    if (!(resolve & RESOLVE_NO_XDEV))
        return 0;
    if (!resolve_sb)
        resolve_sb = dir->sb;
    return dir->sb == resolve_sb ? 0 : -EXDEV;
}

struct inode *vfs_root(struct thread *t)
{
    return t && t->fs && t->fs->root ? t->fs->root : vfs_mounted(root_sb->root);
}

static struct inode *start_dir(struct thread *t, struct inode *dir, const char *path)
{
    if (path[0] == '/' && (resolve & RESOLVE_IN_ROOT))
        return resolve_scope;
    if (path[0] == '/' || !(dir = dir ? dir : cwd_of(t)))
        return vfs_root(t);
    return vfs_mounted(dir);
}

/* ".." of dir: from the root of a mounted file system, that of its mount point; at the
 * caller's root (chroot's), the root itself. */
static struct inode *dotdot(struct thread *t, struct inode *dir)
{
    if (dir == vfs_root(t) || ((resolve & RESOLVE_IN_ROOT) && dir == resolve_scope))
        return dir;
    for (struct super_block *sb = dir->sb; dir == sb->root && sb->mountpoint; sb = dir->sb)
        dir = sb->mountpoint;
    if (dir->parent)
        return dir->parent;
    return dir->removed_from ? dir->removed_from : dir;    /* removed, or the root */
}

struct inode *vfs_lookup(struct thread *t, struct inode *dir, const char *name, size_t len)
{
    if (!dir->parent || !dir->iop || !dir->iop->lookup)
        return NULL;                /* a removed directory holds nothing */
    return dir->iop->lookup(t, dir, name, len);
}

int vfs_readlink(struct thread *t, struct inode *i, char *buf, size_t size)
{
    if (!i->iop || !i->iop->readlink)
        return -EINVAL;
    return i->iop->readlink(t, i, buf, size);
}

static struct inode *walk(struct thread *t, struct inode *dir, const char *path, bool follow,
                          bool want_parent, char *last, bool *trailing, int *depth, int *err);

/* A symlink met on the way: its target (for a magic link of /proc, the inode itself). */
static struct inode *follow_link(struct thread *t, struct inode *dir, struct inode *i, int *depth,
                                 int *err)
{
    if (++*depth > LX_SYMLOOP || (resolve & RESOLVE_NO_SYMLINKS)) {
        *err = -ELOOP;
        return NULL;
    }
    if (i->iop && i->iop->follow_link) {
        /* a magic link: refused by NO_MAGICLINKS, and (EXDEV) by a scoped walk */
        if (resolve & (RESOLVE_NO_MAGICLINKS | RESOLVE_BENEATH | RESOLVE_IN_ROOT)) {
            *err = resolve & RESOLVE_NO_MAGICLINKS ? -ELOOP : -EXDEV;
            return NULL;
        }
        return i->iop->follow_link(t, i, err);
    }
    char *buf = kmalloc(PATH_MAX);
    if (!buf) {
        *err = -ENOMEM;
        return NULL;
    }
    int n = vfs_readlink(t, i, buf, PATH_MAX - 1);
    struct inode *r = NULL;
    if (n < 0) {
        *err = n;
    } else {
        buf[n] = 0;
        r = walk(t, dir, buf, true, false, NULL, NULL, depth, err);
    }
    kfree(buf);
    return r;
}

/* Walk path from dir; with want_parent stop before the last component (into last).  depth
 * counts the symlinks followed so far. */
static struct inode *walk(struct thread *t, struct inode *dir, const char *path, bool follow,
                          bool want_parent, char *last, bool *trailing, int *depth, int *err)
{
    if (path[0] == '/' && (resolve & RESOLVE_BENEATH)) {
        *err = -EXDEV;              /* out of the dirfd's tree at once */
        return NULL;
    }
    dir = start_dir(t, dir, path);
    const char *s = path;
    if (!*s) {
        *err = -ENOENT;
        return NULL;
    }
    if ((*err = xdev_check(dir)))
        return NULL;
    for (;;) {
        while (*s == '/')
            s++;
        const char *e = s;
        while (*e && *e != '/')
            e++;
        size_t len = (size_t)(e - s);
        const char *n = e;
        while (*n == '/')
            n++;
        bool is_last = !*n;
        if (len > NAME_MAX) {
            *err = -ENAMETOOLONG;
            return NULL;
        }
        if (!S_ISDIR(dir->mode)) {
            *err = -ENOTDIR;
            return NULL;
        }
        if (!len) {                 /* the path was "/" (slashes only) */
            if (want_parent) {
                strcpy(last, "/");  /* Linux's LAST_ROOT (vfs/namei.c) */
                *trailing = true;
            }
            return dir;
        }
        if ((*err = inode_permission(t, dir, MAY_EXEC)))
            return NULL;
        if (is_last && want_parent) {
            memcpy(last, s, len);
            last[len] = 0;
            *trailing = e != n;
            return dir;
        }
        struct inode *i;
        if (len == 1 && s[0] == '.')
            i = dir;
        else if (len == 2 && s[0] == '.' && s[1] == '.') {
            if ((resolve & RESOLVE_BENEATH) && dir == resolve_scope) {
                *err = -EXDEV;      /* ".." out of the dirfd's tree */
                return NULL;
            }
            i = dotdot(t, dir);
        }
        else
            i = vfs_lookup(t, dir, s, len);
        if (!i) {
            *err = -ENOENT;
            return NULL;
        }
        i = vfs_mounted(i);
        if ((*err = xdev_check(i)))
            return NULL;
        if (S_ISLNK(i->mode) && (!is_last || follow || e != n)) {
            i = follow_link(t, dir, i, depth, err);
            if (!i)
                return NULL;
            i = vfs_mounted(i);
            if ((*err = xdev_check(i)))
                return NULL;
        }
        if (is_last) {
            if (e != n && !S_ISDIR(i->mode)) {
                *err = -ENOTDIR;    /* "file/" */
                return NULL;
            }
            return i;
        }
        dir = i;
        s = n;
    }
}

struct inode *path_walk(struct thread *t, struct inode *dir, const char *path, bool follow,
                        int *err)
{
    int depth = 0;
    return walk(t, dir, path, follow, false, NULL, NULL, &depth, err);
}

struct inode *path_parent(struct thread *t, struct inode *dir, const char *path, char *last,
                          bool *trailing, int *err)
{
    int depth = 0;
    return walk(t, dir, path, true, true, last, trailing, &depth, err);
}

/* The path of i as seen from t's root: 0, or -ENOENT (-ENAMETOOLONG) as vfs_path_of;
 * a directory outside the root gets Linux's "(unreachable)" in front. */
int vfs_path_from_root(struct thread *t, struct inode *i, char *buf, size_t size)
{
    int n = vfs_path_of(i, buf, size);
    struct inode *root = t && t->fs ? t->fs->root : NULL;
    if (n < 0 || !root)
        return n;
    static char rootpath[PATH_MAX];
    int r = vfs_path_of(root, rootpath, sizeof rootpath);
    if (r < 0)
        return r;
    if (r == 1)
        return n;                   /* chroot("/") */
    if (!strncmp(buf, rootpath, (size_t)r) && (buf[r] == '/' || !buf[r])) {
        if (!buf[r]) {
            strcpy(buf, "/");       /* the root itself */
            return 1;
        }
        memmove(buf, buf + r, (size_t)(n - r) + 1);
        return n - r;
    }
    static const char unreachable[] = "(unreachable)";
    if ((size_t)n + sizeof unreachable > size)
        return -ENAMETOOLONG;
    memmove(buf + sizeof unreachable - 1, buf, (size_t)n + 1);
    memcpy(buf, unreachable, sizeof unreachable - 1);
    return n + (int)sizeof unreachable - 1;
}

int vfs_getcwd(struct thread *t, char *buf, size_t size)
{
    int n = vfs_path_from_root(t, t->fs->cwd, buf, size);
    return n < 0 ? n : n + 1;
}

/* chdir's and chroot's check: a directory the caller may search. */
static int may_enter(struct thread *t, struct inode *i)
{
    return S_ISDIR(i->mode) ? inode_permission(t, i, MAY_EXEC) : -ENOTDIR;
}

int vfs_chroot(struct thread *t, struct inode *i)
{
    int e = may_enter(t, i);
    if (e)
        return e;
    if (!cred_capable(&t->proc->cred, CAP_SYS_CHROOT))
        return -EPERM;
    inode_get(i);
    if (t->fs->root)
        inode_put(t->fs->root);
    t->fs->root = i;
    return 0;
}

int vfs_chdir(struct thread *t, struct inode *i)
{
    int e = may_enter(t, i);
    if (e)
        return e;
    inode_get(i);
    inode_put(t->fs->cwd);
    t->fs->cwd = i;
    return 0;
}
