/* An "L4 pipe" (the 1997 paper's §6.2, Table 4 row 2): pipe semantics, a byte stream with
 * read and write, emulated at user level over the synchronous native IPC of a /dev/l4chan
 * channel (l4chan.h, docs/linux/l4chan.md).  Data travels by long IPC: a write sends its bytes
 * as one string item per message (up to L4PIPE_MSG bytes), which the kernel copies straight
 * from the writer's buffer into the reader's (docs/linux-abi.md 9.2b): no copy at user level
 * on either side.  A read makes its own buffer the thread's receive buffer (l4chan_buffers)
 * and receives one message; a message longer than the read ends with error 4 (overflow) on
 * both sides after the bytes that fit, their count in the error's offset: the read returns
 * them and the writer sends the rest in its next message.  A write returns when the reader has
 * received its last byte (the IPC is synchronous: the kernel buffers nothing).  One writer and
 * one reader per direction; both directions may share the channel.  The reader thread's
 * string buffers are the pipe's while it reads.  Freestanding. */
#ifndef L4PIPE_H
#define L4PIPE_H

#include <stddef.h>
#include <stdint.h>
#include "l4chan.h"

#define L4PIPE_MSG L4CHAN_STRING_MAX        /* bytes per message: one string item */

struct l4pipe {
    uint64_t partner;                       /* the other end's thread (l4chan_ends.partner) */
    uint64_t last_error;                    /* the ErrorCode of a failed IPC, 0 */
};

static inline void l4pipe_init(struct l4pipe *p, uint64_t partner)
{
    p->partner = partner;
    p->last_error = 0;
}

/* All n bytes, in messages of at most L4PIPE_MSG: n, or -1 (p->last_error says why; a
 * canceled IPC, error 3, is the caller's EINTR). */
static inline long l4pipe_write(struct l4pipe *p, const void *buf, size_t n)
{
    const unsigned char *src = buf;
    for (size_t done = 0; done < n;) {
        size_t len = n - done < L4PIPE_MSG ? n - done : L4PIPE_MSG;
        uint64_t mr[8] = { l4chan_tag(0, 0, 2), L4CHAN_STRING_ITEM(len),
                           (uint64_t)(uintptr_t)(src + done) };
        uint64_t err = l4chan_send(p->partner, mr);
        /* A shorter read took the first bytes: the rest goes in the next message. */
        if (err && !(l4chan_error_code(err) == L4CHAN_EOVERFLOW && l4chan_error_offset(err))) {
            p->last_error = err;
            return -1;
        }
        done += err ? l4chan_error_offset(err) : len;
    }
    return (long)n;
}

/* At most n bytes (n > 0) of the next message, straight into buf: their count, or -1 on a
 * failed IPC (p->last_error). */
static inline long l4pipe_read(struct l4pipe *p, void *buf, size_t n)
{
    uint64_t len = n < L4PIPE_MSG ? n : L4PIPE_MSG;
    uint64_t bufs[8] = { L4CHAN_STRING_ITEM(len), (uint64_t)(uintptr_t)buf };
    uint64_t err = l4chan_buffers(2, bufs, 0);
    uint64_t mr[8] = { 0 };
    if (!err)
        err = l4chan_ipc(L4CHAN_NILTHREAD, p->partner, 0, L4CHAN_ACCEPT_STRINGS, mr, 0);
    if (!err && (mr[0] & 63) == 0 && ((mr[0] >> 6) & 63) == 2)
        return (long)(mr[1] >> 10);         /* the whole message: its string's length */
    if (l4chan_error_code(err) == L4CHAN_EOVERFLOW && (err & 1) && l4chan_error_offset(err))
        return (long)l4chan_error_offset(err);     /* the message did not fit: what did */
    p->last_error = err ? err : 1;
    return -1;
}

#endif
