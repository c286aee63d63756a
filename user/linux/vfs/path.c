/* The path walk: component by component from the root or a starting directory, "." and
 * ".." by the directory's parent, symlinks followed up to LX_SYMLOOP times per walk (ELOOP
 * beyond).  There is no dentry cache: a tmpfs directory is the list of its names.  Every
 * caller runs as root, so search permission is not checked. */
#include "vfs/vfs.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "task/process.h"
#include <string.h>

static struct inode *start_dir(struct thread *t, struct inode *dir, const char *path)
{
    if (path[0] == '/' || !(dir = dir ? dir : t ? t->fs->cwd : NULL))
        dir = tmpfs_root;
    while (dir->mounted)
        dir = dir->mounted;
    return dir;
}

/* ".." of dir: from the root of a mounted file system, that of its mount point. */
static struct inode *dotdot(struct inode *dir)
{
    for (struct super_block *sb = inode_sb(dir); dir == sb->root && sb->mountpoint;
         sb = inode_sb(dir))
        dir = sb->mountpoint;
    if (dir->parent)
        return dir->parent;
    return dir->removed_from ? dir->removed_from : dir;    /* removed, or the root */
}

/* A symlink: its target (or, for a magic link of /proc, the inode itself). */
static struct inode *walk(struct thread *t, struct inode *dir, const char *path, bool follow,
                          bool want_parent, char *last, bool *trailing, int *depth, int *err);
static struct inode *follow_link(struct thread *t, struct inode *dir, struct inode *i, int *depth,
                                 int *err)
{
    if (++*depth > LX_SYMLOOP) {
        *err = -ELOOP;
        return NULL;
    }
    if (!i->iop)
        return walk(t, dir, i->target, true, false, NULL, NULL, depth, err);
    if (i->iop->follow)
        return i->iop->follow(t, i, err);
    char *buf = kmalloc(PATH_MAX);
    if (!buf) {
        *err = -ENOMEM;
        return NULL;
    }
    int n = i->iop->get_link(t, i, buf, PATH_MAX - 1);
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
    dir = start_dir(t, dir, path);
    const char *s = path;
    if (!*s) {
        *err = -ENOENT;
        return NULL;
    }
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
        if (!len) {                 /* the path was "/" (or ended in slashes) */
            if (want_parent) {
                strcpy(last, ".");
                *trailing = true;
            }
            return dir;
        }
        if (is_last && want_parent) {
            memcpy(last, s, len);
            last[len] = 0;
            *trailing = e != n;
            return dir;
        }
        struct inode *i;
        if (len == 1 && s[0] == '.')
            i = dir;
        else if (len == 2 && s[0] == '.' && s[1] == '.')
            i = dotdot(dir);
        else if (!dir->parent)
            i = NULL;               /* a removed directory holds nothing */
        else
            i = vfs_lookup(t, dir, s, len);
        if (!i) {
            *err = -ENOENT;
            return NULL;
        }
        while (i->mounted)
            i = i->mounted;
        if (S_ISLNK(i->mode) && (!is_last || follow || e != n)) {
            i = follow_link(t, dir, i, depth, err);
            if (!i)
                return NULL;
            while (i->mounted)
                i = i->mounted;
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

int vfs_getcwd(struct thread *t, char *buf, size_t size)
{
    int n = vfs_path_of(t->fs->cwd, buf, size);
    return n < 0 ? n : n + 1;
}
