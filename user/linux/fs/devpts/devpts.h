/* devpts (devpts.c; docs/linux/tty.md §9): the file system of the pty slaves, /dev/pts/N
 * while pty N is open, and /dev/pts/ptmx.  The ptys themselves are tty/pty.c's. */
#ifndef LX_FS_DEVPTS_H
#define LX_FS_DEVPTS_H

#include "vfs/vfs.h"

#define DEVPTS_SUPER_MAGIC 0x1cd1

struct devpts;
extern const struct fs_type devpts_type;

/* The instance a ptmx node opens ptys in: its own if the node is a devpts's ptmx, else the
 * devpts mounted at /dev/pts.  NULL with *err (ENOENT, ENODEV), as Linux's devpts_acquire. */
struct devpts *devpts_acquire(struct thread *t, struct inode *ptmx, int *err);
int devpts_new_index(struct devpts *fs);        /* the lowest free number, or -ENOSPC */
void devpts_kill_index(struct devpts *fs, int index);
/* /dev/pts/index for the slave priv, owned as the mount options say: the inode, or NULL. */
struct inode *devpts_pty_new(struct thread *t, struct devpts *fs, int index, void *priv);
void devpts_pty_kill(struct inode *node);       /* the name goes; open files keep it */
void *devpts_get_priv(struct inode *node);      /* NULL: no devpts slave node (any more) */

#endif
