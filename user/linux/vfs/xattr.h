/* Extended attributes (xattr.c): the VFS's checks and calls for the getxattr family, and
 * a list of attributes in memory for file systems that keep them per inode (tmpfs). */
#ifndef LX_VFS_XATTR_H
#define LX_VFS_XATTR_H

#include "vfs/vfs.h"

#define XATTR_CREATE   1
#define XATTR_REPLACE  2
#define XATTR_NAME_MAX 255
#define XATTR_SIZE_MAX 65536
#define XATTR_LIST_MAX 65536

/* The calls on an inode, after the system call has checked the name and sizes: the value's
 * length, the names' total length, 0, or -errno (Linux's: ENODATA, ERANGE, EOPNOTSUPP,
 * EPERM, EEXIST). */
long vfs_getxattr(struct thread *t, struct inode *i, const char *name, void *buf, size_t size);
int vfs_setxattr(struct thread *t, struct inode *i, const char *name, const void *value,
                 size_t size, int flags);
long vfs_listxattr(struct thread *t, struct inode *i, char *buf, size_t size);
int vfs_removexattr(struct thread *t, struct inode *i, const char *name);

/* Attributes kept in memory, in the order they were set. */
struct xattr_list {
    struct xattr *first;
};
long xattr_list_get(struct xattr_list *l, const char *name, void *buf, size_t size);
/* value NULL: remove (flags XATTR_REPLACE: ENODATA if absent). */
int xattr_list_set(struct xattr_list *l, const char *name, const void *value, size_t size,
                   int flags);
long xattr_list_names(struct xattr_list *l, char *buf, size_t size);
void xattr_list_free(struct xattr_list *l);

#endif
