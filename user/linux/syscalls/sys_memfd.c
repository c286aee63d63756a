/* memfd_create (Linux's mm/memfd.c, 6.1): an unnamed regular file on lx's own tmpfs
 * (vfs_shm_mount, Linux's shm_mnt: mounted nowhere, no size or inode limit), open for reading
 * and writing, its seals F_SEAL_SEAL unless MFD_ALLOW_SEALING.  The seals themselves are tmpfs's (fs/tmpfs/seals.c). */
#include "syscalls/handlers_more.h"
#include "fs/tmpfs/tmpfs.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "mm/usercopy.h"
#include "task/process.h"
#include "vfs/file.h"
#include <stdio.h>
#include <string.h>

#define MFD_CLOEXEC       1u
#define MFD_ALLOW_SEALING 2u
#define MFD_HUGETLB       4u
#define MFD_HUGE_MASK     (0x3fu << 26)   /* a huge page size, with MFD_HUGETLB only */
#define MFD_PREFIX        "memfd:"
#define MFD_NAME_MAX      (NAME_MAX - (sizeof MFD_PREFIX - 1))
#define F_ADD_SEALS       1033
#define F_GET_SEALS       1034

long sys_memfd_create(struct thread *t, const struct sysargs *a)
{
    unsigned flags = (unsigned)a->a[1];
    unsigned all = MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_HUGETLB;
    if (flags & ~(all | ((flags & MFD_HUGETLB) ? MFD_HUGE_MASK : 0)))
        return -EINVAL;
    long len = strnlen_user(t->mm, a->a[0], MFD_NAME_MAX + 1);
    if (len <= 0)
        return -EFAULT;
    if (len > (long)MFD_NAME_MAX + 1)
        return -EINVAL;
    if (flags & MFD_HUGETLB)
        return -ENOENT;             /* 6.1 without huge pages reserved: no hugetlbfs mount
                                       for the default size (see docs/linux/files.md) */
    char *name = kmalloc(sizeof MFD_PREFIX + (size_t)len);
    if (!name)
        return -ENOMEM;
    memcpy(name, MFD_PREFIX, sizeof MFD_PREFIX - 1);
    if (strncpy_from_user(t->mm, name + sizeof MFD_PREFIX - 1, a->a[0], (size_t)len) < 0) {
        kfree(name);
        return -EFAULT;
    }
    int fd = fd_unused(t, 0);
    if (fd < 0) {
        kfree(name);
        return fd;
    }
    struct super_block *sb = vfs_shm_mount();
    struct tmpfs_node *n = sb ? tmpfs_new(sb, S_IFREG | 0777) : NULL;
    if (!n) {
        kfree(name);
        return -ENOMEM;
    }
    n->i.uid = vfs_fsuid(t);
    n->i.gid = vfs_fsgid(t);
    n->i.nlink = 0;                 /* unlinked from the start: gone with its last user */
    n->memfd_name = name;
    if (flags & MFD_ALLOW_SEALING)
        n->seals &= ~(unsigned)F_SEAL_SEAL;
    int err;
    inode_get(&n->i);               /* file_open takes its own; this one frees n on failure */
    struct file *f = file_open(t, &n->i, O_RDWR | O_LARGEFILE, NULL, &err);
    inode_put(&n->i);
    if (!f)
        return err;
    fd = fd_install(t, f, 0, flags & MFD_CLOEXEC);
    if (fd < 0)
        file_put(f);
    return fd;
}

long memfd_fcntl(struct file *f, unsigned cmd, unsigned long arg)
{
    if (f->inode->sb->type != &tmpfs_type || !S_ISREG(f->inode->mode))
        return -EINVAL;
    return tmpfs_seal_fcntl(f, cmd == F_ADD_SEALS, (unsigned)arg);
}

int memfd_file_name(struct file *f, char *buf, unsigned long size)
{
    struct inode *i = f->inode;
    if (i->sb->type != &tmpfs_type || !S_ISREG(i->mode) || !tmpfs_node(i)->memfd_name)
        return -1;
    return snprintf(buf, size, "/%s (deleted)", tmpfs_node(i)->memfd_name);
}
