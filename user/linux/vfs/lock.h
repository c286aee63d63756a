/* File locks (lock.c): POSIX record locks (fcntl F_GETLK, F_SETLK, F_SETLKW: owned by the
 * process's fd table, dropped by any close of the file by it), open-file-description locks
 * (F_OFD_*: owned by the open file, dropped at its last close) and flock (whole-file,
 * shared or exclusive, owned by the open file).  POSIX and OFD locks conflict with each
 * other; flock locks only with flock locks, as in Linux.  A caller that must wait parks on
 * the inode's lock queue and tries again when a lock there goes. */
#ifndef LX_VFS_LOCK_H
#define LX_VFS_LOCK_H

#include <libl4.h>
#include <stdbool.h>

/* fcntl's lock commands and types (the x86-64 numbers). */
#define F_GETLK      5
#define F_SETLK      6
#define F_SETLKW     7
#define F_OFD_GETLK  36
#define F_OFD_SETLK  37
#define F_OFD_SETLKW 38
#define F_RDLCK      0
#define F_WRLCK      1
#define F_UNLCK      2

struct file;
struct inode;
struct thread;
struct fdtable;

/* fcntl's lock commands: cmd F_GETLK/F_SETLK/F_SETLKW or the F_OFD_ ones, the struct flock
 * at user address arg.  0, -errno, or LX_PARK (F_SETLKW waits). */
long vfs_fcntl_lock(struct thread *t, struct file *f, unsigned cmd, l4_word_t arg);
/* flock(2): op LOCK_SH/LOCK_EX/LOCK_UN, LOCK_NB; 0, -errno or LX_PARK. */
long vfs_flock(struct thread *t, struct file *f, unsigned op);
/* The POSIX locks owner holds on f's file go (a close by that fd table). */
void locks_remove_posix(struct file *f, struct fdtable *owner);
/* f's OFD locks and flock go (its last reference). */
void locks_remove_file(struct file *f);
void locks_inode_free(struct inode *i);     /* the inode goes */

#endif
