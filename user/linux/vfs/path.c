/* The path walk: component by component from the root or a starting directory, "." and
 * ".." by the directory's parent, symlinks followed up to LX_SYMLOOP times per walk (ELOOP
 * beyond).  There is no dentry cache: a tmpfs directory is the list of its names.  Every
 * caller runs as root, so search permission is not checked. */
#include "vfs.h"
#include <string.h>

static struct inode *start_dir(struct task *t, struct inode *dir, const char *path)
{
    if (path[0] == '/')
        return tmpfs_root;
    return dir ? dir : t ? t->fs->cwd : tmpfs_root;
}

/* Walk path from dir; with want_parent stop before the last component (into last).  depth
 * counts the symlinks followed so far. */
static struct inode *walk(struct task *t, struct inode *dir, const char *path, bool follow,
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
            i = dir->parent ? dir->parent : dir;
        else if (!dir->parent)
            i = NULL;               /* a removed directory holds nothing */
        else
            i = tmpfs_lookup(dir, s, len);
        if (!i) {
            *err = -ENOENT;
            return NULL;
        }
        if (S_ISLNK(i->mode) && (!is_last || follow || e != n)) {
            if (++*depth > LX_SYMLOOP) {
                *err = -ELOOP;
                return NULL;
            }
            i = walk(t, dir, i->target, true, false, NULL, NULL, depth, err);
            if (!i)
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

struct inode *path_walk(struct task *t, struct inode *dir, const char *path, bool follow,
                        int *err)
{
    int depth = 0;
    return walk(t, dir, path, follow, false, NULL, NULL, &depth, err);
}

struct inode *path_parent(struct task *t, struct inode *dir, const char *path, char *last,
                          bool *trailing, int *err)
{
    int depth = 0;
    return walk(t, dir, path, true, true, last, trailing, &depth, err);
}

/* The name of dir in its parent. */
static const struct dentry *name_in_parent(struct inode *dir)
{
    for (const struct dentry *d = dir->parent->entries; d; d = d->next)
        if (d->inode == dir)
            return d;
    return NULL;
}

int vfs_getcwd(struct task *t, char *buf, size_t size)
{
    static char tmp[PATH_MAX];
    size_t pos = sizeof tmp - 1;
    tmp[pos] = 0;
    struct inode *d = t->fs->cwd;
    if (!d->parent)
        return -ENOENT;             /* removed */
    while (d != tmpfs_root) {
        const struct dentry *de = name_in_parent(d);
        if (!de || pos < (size_t)de->len + 1)
            return -ENAMETOOLONG;
        pos -= de->len;
        memcpy(tmp + pos, de->name, de->len);
        tmp[--pos] = '/';
        d = d->parent;
    }
    if (pos == sizeof tmp - 1)
        tmp[--pos] = '/';
    size_t n = sizeof tmp - pos;
    if (n > size)
        return -ERANGE;
    memcpy(buf, tmp + pos, n);
    return (int)n;
}
