/* Socket buffers (docs/linux/sockets.md, "Socket buffers"). */
#include "net/skb.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "mm/page.h"
#include <string.h>

#define SKB_MAX_PAGES  ((4096 - sizeof(struct sk_buff)) / sizeof(char *))

struct sk_buff *skb_alloc(struct socket *from, l4_word_t len, int *err)
{
    l4_word_t np = (len + LX_PAGE - 1) / LX_PAGE;
    struct sk_buff *skb = np <= SKB_MAX_PAGES ? kmalloc(sizeof *skb + np * sizeof(char *)) : NULL;
    if (!skb) {
        *err = np <= SKB_MAX_PAGES ? -ENOMEM : -EMSGSIZE;
        return NULL;
    }
    for (; skb->npages < np; skb->npages++)
        if (!(skb->page[skb->npages] = page_alloc())) {
            while (skb->npages)
                page_free(skb->page[--skb->npages]);
            kfree(skb);
            *err = -ENOBUFS;
            return NULL;
        }
    list_init(&skb->link);
    skb->from = from;
    sock_get(from);
    skb->len = len;
    skb->truesize = len + SKB_OVERHEAD;
    from->wmem += skb->truesize;
    return skb;
}

void skb_orphan(struct sk_buff *skb)
{
    struct socket *from = skb->from;
    if (!from)
        return;
    skb->from = NULL;
    from->wmem -= skb->truesize;
    waitq_wake(&from->wq);          /* room in its send buffer */
    sock_put(from);
}

void skb_free(struct sk_buff *skb)
{
    list_del(&skb->link);
    skb_orphan(skb);
    scm_fp_free(skb->fp);
    while (skb->npages)
        page_free(skb->page[--skb->npages]);
    kfree(skb);
}

struct sk_buff *skb_alloc_orphan(struct socket *from, struct uio *u, l4_word_t len, int *err)
{
    struct sk_buff *skb = skb_alloc(from, len, err);
    if (!skb)
        return NULL;
    if (!skb_copy(skb, 0, u, len, true)) {
        skb_free(skb);
        *err = -EFAULT;
        return NULL;
    }
    skb_orphan(skb);
    return skb;
}

bool skb_copy(struct sk_buff *skb, l4_word_t off, struct uio *u, l4_word_t n, bool in)
{
    struct uio saved = *u;
    while (n) {
        l4_word_t k = LX_PAGE - off % LX_PAGE;
        if (k > n)
            k = n;
        char *p = skb->page[off / LX_PAGE] + off % LX_PAGE;
        if ((in ? uio_copy_in(u, p, k) : uio_copy_out(u, p, k)) < k) {
            *u = saved;
            return false;
        }
        off += k;
        n -= k;
    }
    return true;
}

long skb_copy_datagram(struct sk_buff *skb, struct sock_msg *m, int flags)
{
    if (m->name) {
        memcpy(m->name, skb->src, (size_t)skb->srclen);
        m->namelen = skb->srclen;
    }
    l4_word_t size = m->u->resid;
    if (size > skb->len)
        size = skb->len;
    else if (size < skb->len)
        m->flags |= MSG_TRUNC;
    if (!skb_copy(skb, 0, m->u, size, false))
        return -EFAULT;
    return flags & MSG_TRUNC ? (long)skb->len : (long)size;
}

int skb_queue_inq(const struct list *q, bool dgram)
{
    int amount = 0;
    struct sk_buff *skb;
    list_each(skb, q, link) {
        amount += (int)(skb->len - skb->consumed);
        if (dgram)
            break;                  /* the next datagram's size */
    }
    return amount;
}
