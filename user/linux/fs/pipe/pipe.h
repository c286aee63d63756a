/* Pipes and FIFOs (pipe.c; docs/linux/pipes.md). */
#ifndef LX_FS_PIPE_PIPE_H
#define LX_FS_PIPE_PIPE_H

#include "vfs/file.h"

#define PIPE_DEF_SIZE 65536ul       /* Linux's default pipe capacity */
#define PIPE_BUF      4096ul        /* writes up to this size are atomic */
/* fs.pipe-max-size (1048576, writable in /proc/sys): root may go beyond */
extern unsigned pipe_max_size;
#define PIPE_MAX_SIZE ((unsigned long)pipe_max_size)

/* The file operations of a pipe's or FIFO's ends (the open operation counts the end; the
 * pipe hangs off the inode, made at the first open). */
extern const struct file_ops fifo_ops;
/* fcntl F_GETPIPE_SZ / F_SETPIPE_SZ on f: the size, or -errno (EBADF for no pipe). */
long pipe_fcntl(struct file *f, unsigned cmd, l4_word_t arg);

#endif
