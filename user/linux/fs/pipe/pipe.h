/* Pipes and FIFOs (pipe.c; docs/linux/pipes.md). */
#ifndef LX_FS_PIPE_PIPE_H
#define LX_FS_PIPE_PIPE_H

#include "lib/radix.h"
#include "park/waitq.h"
#include "vfs/file.h"

#define PIPE_DEF_SIZE 65536ul       /* Linux's default pipe capacity */
#define PIPE_BUF      4096ul        /* writes up to this size are atomic */
/* fs.pipe-max-size (1048576, writable in /proc/sys): root may go beyond */
extern unsigned pipe_max_size;
#define PIPE_MAX_SIZE ((unsigned long)pipe_max_size)

/* A pipe's ring (pipe.c).  Packet mode (pipe2's O_DIRECT): every write is cut into packets
 * of at most a page, each taking one of the ring's size / LX_PAGE slots as a pipe buffer
 * does in Linux; pkt holds their lengths in order. */
struct pipe {
    struct radix pages;             /* ring page -> lx page; absent: not used yet */
    l4_word_t size;                 /* capacity: a power of two number of pages */
    l4_word_t head, count;          /* read position (mod size), bytes held */
    unsigned readers, writers;      /* open file descriptions of each end */
    bool had_reader, had_writer;    /* an end of that kind has been opened */
    bool packet;
    uint32_t *pkt;                  /* packet mode: size / LX_PAGE lengths, a ring */
    l4_word_t pkt_head, pkt_count;
    struct waitq rq, wq;            /* waiting for data (readers), for room (writers) */
};

/* The file operations of a pipe's or FIFO's ends (the open operation counts the end; the
 * pipe hangs off the inode, made at the first open). */
extern const struct file_ops fifo_ops;
/* fcntl F_GETPIPE_SZ / F_SETPIPE_SZ on f: the size, or -errno (EBADF for no pipe). */
long pipe_fcntl(struct file *f, unsigned cmd, l4_word_t arg);

/* --- what splice, tee and vmsplice use (fs/pipe/splice.c) ------------------------------- */
/* f's pipe when f is an end of a pipe or FIFO that splice may use, else NULL. */
struct pipe *pipe_of(const struct file *f);
/* Bytes a write may add now (packet mode: a page per free slot). */
l4_word_t pipe_room(const struct pipe *p);
/* Up to n bytes from `off` bytes past the read position to u, nothing consumed: the count. */
l4_word_t pipe_peek(struct pipe *p, l4_word_t off, struct uio *u, l4_word_t n);
/* Drop n bytes at the read position (packet lengths follow), waking writers. */
void pipe_consume(struct pipe *p, l4_word_t n);
/* Up to n bytes from u at the end (at most pipe_room), waking readers: the count (less when
 * memory is out or u faults). */
l4_word_t pipe_append(struct pipe *p, struct uio *u, l4_word_t n);

struct sysargs;
long sys_splice(struct thread *, const struct sysargs *);
long sys_tee(struct thread *, const struct sysargs *);
long sys_vmsplice(struct thread *, const struct sysargs *);

#endif
