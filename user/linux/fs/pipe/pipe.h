/* Pipes and FIFOs (pipe.c; docs/linux/pipes.md). */
#ifndef LX_FS_PIPE_PIPE_H
#define LX_FS_PIPE_PIPE_H

#include "vfs/vfs.h"

#define PIPE_SIZE  65536ul          /* Linux's default pipe capacity */
#define PIPE_BUF   4096ul           /* writes up to this size are atomic */

/* The file operations of a pipe's (or FIFO's) ends; the pipe hangs off the inode. */
extern const struct file_ops pipe_ops;
/* A FIFO being opened: its pipe (made on first open) counts the new end; 0 or -ENOMEM. */
int pipe_fifo_open(struct inode *i, unsigned flags);

#endif
