/* Extended attributes: the VFS part of the getxattr family (Linux's xattr_permission: who
 * may use which namespace on which kind of file), then the file system's operations; and
 * a list of attributes in memory that a file system can keep per inode (tmpfs does: Linux's
 * simple_xattr).  Names are "namespace.name"; a file system without the operations, or
 * without the namespace, answers EOPNOTSUPP as Linux's do. */
#include "vfs/xattr.h"
#include "vfs/fsnotify.h"
#include "lib/errno.h"
#include "task/cred.h"
#include "vfs/permission.h"
#include "lib/kmalloc.h"
#include "mm/page.h"
#include <string.h>

static bool prefixed(const char *name, const char *prefix)
{
    return !strncmp(name, prefix, strlen(prefix));
}

/* xattr_permission: 0 or the error Linux gives before the file system is asked. */
static int permission(struct thread *t, struct inode *i, const char *name, int mask)
{
    if (prefixed(name, "security.") || prefixed(name, "system."))
        return 0;
    if (prefixed(name, "trusted.")) {
        if (!vfs_capable(t, CAP_SYS_ADMIN))
            return mask & MAY_WRITE ? -EPERM : -ENODATA;
        return 0;
    }
    if (prefixed(name, "user.")) {
        if (!S_ISREG(i->mode) && !S_ISDIR(i->mode))
            return mask & MAY_WRITE ? -EPERM : -ENODATA;
        if (S_ISDIR(i->mode) && (i->mode & S_ISVTX) && (mask & MAY_WRITE) &&
            !inode_owner_or_root(t, i))
            return -EPERM;
    }
    return inode_permission(t, i, mask);
}

long vfs_getxattr(struct thread *t, struct inode *i, const char *name, void *buf, size_t size)
{
    int e = permission(t, i, name, MAY_READ);
    if (e)
        return e;
    if (!i->iop || !i->iop->getxattr)
        return -EOPNOTSUPP;
    return i->iop->getxattr(i, name, buf, size);
}

int vfs_setxattr(struct thread *t, struct inode *i, const char *name, const void *value,
                 size_t size, int flags)
{
    if (i->sb->flags & MS_RDONLY)
        return -EROFS;
    int e = permission(t, i, name, MAY_WRITE);
    if (e)
        return e;
    if (!i->iop || !i->iop->setxattr)
        return -EOPNOTSUPP;
    if ((e = i->iop->setxattr(i, name, value, size, flags)))
        return e;
    inode_touch(i, false);
    fsnotify_file(i, FS_ATTRIB);
    return 0;
}

long vfs_listxattr(struct thread *t, struct inode *i, char *buf, size_t size)
{
    (void)t;
    if (!i->iop || !i->iop->listxattr)
        return 0;                   /* Linux: only the security module's, none here */
    return i->iop->listxattr(i, buf, size);
}

int vfs_removexattr(struct thread *t, struct inode *i, const char *name)
{
    if (i->sb->flags & MS_RDONLY)
        return -EROFS;
    int e = permission(t, i, name, MAY_WRITE);
    if (e)
        return e;
    if (!i->iop || !i->iop->removexattr)
        return -EOPNOTSUPP;
    if ((e = i->iop->removexattr(i, name)))
        return e;
    inode_touch(i, false);
    fsnotify_file(i, FS_ATTRIB);
    return 0;
}

/* --- attributes kept in memory ------------------------------------------------------------ */

struct xattr {
    struct xattr *next;
    size_t size;
    char *value;                    /* after the name, in the same allocation */
    char name[];
};

static struct xattr *find(struct xattr_list *l, const char *name)
{
    for (struct xattr *x = l->first; x; x = x->next)
        if (!strcmp(x->name, name))
            return x;
    return NULL;
}

long xattr_list_get(struct xattr_list *l, const char *name, void *buf, size_t size)
{
    struct xattr *x = find(l, name);
    if (!x)
        return -ENODATA;
    if (size && x->size > size)
        return -ERANGE;
    if (size)
        memcpy(buf, x->value, x->size);
    return (long)x->size;
}

int xattr_list_set(struct xattr_list *l, const char *name, const void *value, size_t size,
                   int flags)
{
    struct xattr **pp = &l->first;
    while (*pp && strcmp((*pp)->name, name))
        pp = &(*pp)->next;
    if (*pp && (flags & XATTR_CREATE))
        return -EEXIST;
    if (!*pp && (flags & XATTR_REPLACE))
        return -ENODATA;
    struct xattr *x = NULL;
    if (value) {
        size_t n = strlen(name) + 1;
        if (sizeof *x + n + size > LX_PAGE)
            return -ENOSPC;         /* lx keeps a value in one page (Linux: 64 KiB) */
        if (!(x = kmalloc(sizeof *x + n + size)))
            return -ENOSPC;
        memcpy(x->name, name, n);
        x->value = x->name + n;
        x->size = size;
        memcpy(x->value, value, size);
    }
    if (*pp) {                      /* replaced (or removed: value NULL) */
        struct xattr *old = *pp;
        *pp = old->next;
        kfree(old);
    }
    if (x) {                        /* new ones last, as listxattr shows them */
        while (*pp)
            pp = &(*pp)->next;
        x->next = NULL;
        *pp = x;
    }
    return 0;
}

long xattr_list_names(struct xattr_list *l, char *buf, size_t size)
{
    size_t total = 0;
    for (struct xattr *x = l->first; x; x = x->next) {
        size_t n = strlen(x->name) + 1;
        if (size && total + n > size)
            return -ERANGE;
        if (size)
            memcpy(buf + total, x->name, n);
        total += n;
    }
    return (long)total;
}

void xattr_list_free(struct xattr_list *l)
{
    while (l->first) {
        struct xattr *x = l->first;
        l->first = x->next;
        kfree(x);
    }
}
