/* An "L4 pipe" (the 1997 paper's §6.2, Table 4 row 2): pipe semantics, a byte stream with
 * read and write, emulated at user level over the synchronous native IPC of a /dev/l4chan
 * channel (l4chan.h, docs/linux/l4chan.md).  Data travels in register words: each message
 * carries up to L4PIPE_CHUNK bytes in MR1-MR7, its byte count in the label.  A write returns
 * when the reader has received its last message (the IPC is synchronous: the kernel buffers
 * nothing); a read returns what one message brought, or what was left of it.  One writer
 * and one reader per direction; both directions may share the channel.  Freestanding. */
#ifndef L4PIPE_H
#define L4PIPE_H

#include <stddef.h>
#include <stdint.h>
#include "l4chan.h"

#define L4PIPE_CHUNK 56u                    /* MR1-MR7 */

struct l4pipe {
    uint64_t partner;                       /* the other end's thread (l4chan_ends.partner) */
    uint64_t last_error;                    /* the ErrorCode of a failed IPC, 0 */
    unsigned char held[L4PIPE_CHUNK];       /* a received message's bytes not yet read */
    unsigned held_off, held_len;
};

static inline void l4pipe_init(struct l4pipe *p, uint64_t partner)
{
    p->partner = partner;
    p->last_error = 0;
    p->held_off = p->held_len = 0;
}

static inline void l4pipe_copy(void *dst, const void *src, size_t n)
{
    __builtin_memcpy(dst, src, n);
}

/* All n bytes, in messages of at most L4PIPE_CHUNK: n, or -1 (p->last_error says why; a
 * canceled IPC, error 3, is the caller's EINTR). */
static inline long l4pipe_write(struct l4pipe *p, const void *buf, size_t n)
{
    const unsigned char *src = buf;
    uint64_t mr[8] = { 0 };
    for (size_t done = 0; done < n;) {
        size_t len = n - done < L4PIPE_CHUNK ? n - done : L4PIPE_CHUNK;
        mr[0] = l4chan_tag(len, (unsigned)((len + 7) / 8), 0);
        l4pipe_copy(&mr[1], src + done, len);
        uint64_t err = l4chan_send(p->partner, mr);
        if (err) {
            p->last_error = err;
            return -1;
        }
        done += len;
    }
    return (long)n;
}

/* At most n bytes (n > 0): what is held from an earlier message, else the next message's;
 * -1 on a failed IPC. */
static inline long l4pipe_read(struct l4pipe *p, void *buf, size_t n)
{
    if (p->held_off == p->held_len) {
        uint64_t mr[8] = { 0 };
        uint64_t err = l4chan_receive(p->partner, mr, 0);
        if (err) {
            p->last_error = err;
            return -1;
        }
        unsigned len = (unsigned)(mr[0] >> 16);
        p->held_len = len <= L4PIPE_CHUNK && len <= (mr[0] & 63) * 8 ? len : 0;
        p->held_off = 0;
        l4pipe_copy(p->held, &mr[1], p->held_len);
    }
    size_t len = p->held_len - p->held_off;
    if (len > n)
        len = n;
    l4pipe_copy(buf, p->held + p->held_off, len);
    p->held_off += (unsigned)len;
    return (long)len;
}

#endif
