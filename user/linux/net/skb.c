/* Socket buffers (docs/linux/sockets.md, "Socket buffers"). */
#include "net/skb.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "mm/page.h"

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
