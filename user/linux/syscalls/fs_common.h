/* What the file system calls share (sys_fs.c): the path buffers and the start of an *at
 * call's walk.  lx serves one call at a time, so the buffers are static. */
#ifndef LX_SYSCALLS_FS_COMMON_H
#define LX_SYSCALLS_FS_COMMON_H

#include "vfs/vfs.h"

extern char path1[PATH_MAX], path2[PATH_MAX];

/* A path from the process into buf: 0, -EFAULT or -ENAMETOOLONG. */
int get_path(struct thread *t, l4_word_t u, char *buf);
/* The directory an *at call starts from (NULL: cwd, or the path is absolute). */
int at_dir(struct thread *t, long dirfd, const char *path, struct inode **dir);
/* (dirfd, user path) walked: the inode (path in buf) or NULL with *err. */
struct inode *lookup_at(struct thread *t, long dirfd, l4_word_t upath, char *buf, bool follow,
                        int *err);
/* The same with AT_EMPTY_PATH (dirfd's own file for "") and AT_SYMLINK_NOFOLLOW. */
struct inode *resolve_at(struct thread *t, long dirfd, l4_word_t upath, unsigned flags,
                         int *err);

#endif
