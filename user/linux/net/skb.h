/* Socket buffers (skb.c): a message's bytes in lx pages, held by a receive queue and
 * counted against its sender's send buffer (Linux's truesize) until it is read.  Shared by
 * AF_UNIX and AF_INET (docs/linux/sockets.md, "Socket buffers"); each family keeps its own
 * queues and what a message carries beyond the bytes. */
#ifndef LX_NET_SKB_H
#define LX_NET_SKB_H

#include "lib/list.h"
#include "net/socket.h"

#define SKB_OVERHEAD   576          /* Linux's SKB_TRUESIZE: the sk_buff and its shared info */

struct sk_buff {
    struct list link;               /* in the receiver's queue */
    struct socket *from;            /* a reference: the sender (NULL: orphaned) */
    l4_word_t len, consumed;        /* a stream reader takes a message in parts */
    l4_word_t truesize;             /* what it counts in from's wmem */
    struct ucred creds;             /* AF_UNIX: the sender's credentials */
    struct scm_fp *fp;              /* AF_UNIX: files in flight (NULL: none) */
    char src[28];                   /* AF_INET: the source address (a sockaddr_in6) */
    int srclen;
    unsigned npages;
    char *page[];
};

/* A message of len bytes from from (its wmem grows), or NULL with *err (EMSGSIZE, ENOMEM,
 * ENOBUFS). */
struct sk_buff *skb_alloc(struct socket *from, l4_word_t len, int *err);
/* A message of len bytes taken from the transfer u and let go by its sender (lo's transmit:
 * UDP, netlink), or NULL with *err (skb_alloc's, EFAULT). */
struct sk_buff *skb_alloc_orphan(struct socket *from, struct uio *u, l4_word_t len, int *err);
/* Its sender lets it go (Linux's skb_orphan, as lo's transmit does): from's wmem shrinks
 * and the message keeps no reference (AF_INET charges the receiver instead). */
void skb_orphan(struct sk_buff *skb);
/* Off its queue and freed: the sender's buffer has room again (its waiters are woken). */
void skb_free(struct sk_buff *skb);
/* n bytes between the message at off and the transfer (in: from the process): all of them,
 * or false (a fault; the transfer is left as it was). */
bool skb_copy(struct sk_buff *skb, l4_word_t off, struct uio *u, l4_word_t n, bool in);

/* A datagram to the receiver m: its source address (m->name), as many bytes as fit (the rest
 * lost, MSG_TRUNC in m->flags): the count, with flags' MSG_TRUNC its real length, or -EFAULT. */
long skb_copy_datagram(struct sk_buff *skb, struct sock_msg *m, int flags);

/* SIOCINQ's answer for a receive queue of struct sk_buff: the unread bytes (dgram: of the
 * next message only). */
int skb_queue_inq(const struct list *q, bool dgram);

#endif
