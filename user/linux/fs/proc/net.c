/* /proc/net/tcp, tcp6, udp and udp6 (docs/linux/sockets.md, "AF_INET"): the sockets of
 * lx's port tables in Linux's formats (tcp4_seq_show, tcp6_seq_show, udp4_format_sock,
 * __ip6_dgram_sock_seq_show), which ss and netstat read.  Addresses are the raw 32-bit words
 * as Linux prints them (network order read as a little-endian number), ports in host order.
 * A TCP socket shows when it listens or is connected (Linux's listening and established
 * hashes), a UDP socket when it is bound.  Timers, windows and congestion fields are Linux's
 * values for an idle loopback socket: lx has none of them. */
#include "fs/proc/proc.h"
#include "net/inet/inet.h"
#include "net/skb.h"
#include <string.h>

#define TCP_ESTABLISHED 1
#define TCP_CLOSE       7
#define TCP_CLOSE_WAIT  8
#define TCP_LISTEN      10
#define TCP_WIDTH       149         /* Linux's TMPSZ - 1 for /proc/net/tcp */
#define UDP_WIDTH       127

struct net_walk {
    struct out *o;
    int family;                     /* AF_INET or AF_INET6 */
    bool udp;
    int n;
};

static uint32_t word(const struct in6 *a, int k)
{
    uint32_t v;
    memcpy(&v, a->b + 4 * k, 4);
    return v;
}

static void addr(struct out *o, const struct inet_sock *is, const struct in6 *a, uint16_t port)
{
    if (is->sock.family == AF_INET)
        out_printf(o, "%08X:%04X", word(a, 3), port);
    else
        out_printf(o, "%08X%08X%08X%08X:%04X", word(a, 0), word(a, 1), word(a, 2), word(a, 3),
                   port);
}

static int tcp_state(const struct inet_sock *is)
{
    if (is->sock.state == SS_LISTEN)
        return TCP_LISTEN;
    if (is->sock.state == SS_ESTABLISHED)
        return is->fin ? TCP_CLOSE_WAIT : TCP_ESTABLISHED;
    return TCP_CLOSE;
}

/* Pad the line to width (Linux's seq_pad) and end it. */
static void pad(struct out *o, size_t start, size_t width)
{
    while (o->len - start < width)
        out_bytes(o, " ", 1);
    out_bytes(o, "\n", 1);
}

static void one(struct inet_sock *is, void *arg)
{
    struct net_walk *w = arg;
    struct out *o = w->o;
    struct socket *s = &is->sock;
    if (s->family != w->family || is->dead)
        return;
    int st = w->udp ? (s->state == SS_ESTABLISHED ? TCP_ESTABLISHED : TCP_CLOSE) : tcp_state(is);
    if (!w->udp && st == TCP_CLOSE)
        return;                     /* bound only: in no hash Linux lists */
    size_t start = o->len;
    out_printf(o, w->udp ? "%5d: " : "%4d: ", w->n++);
    addr(o, is, &is->laddr, is->port);
    out_bytes(o, " ", 1);
    addr(o, is, &is->raddr, is->rport);
    unsigned rx = st == TCP_LISTEN ? is->acceptq_len : w->udp ? (unsigned)is->rmem
                                                      : (unsigned)skb_queue_inq(&is->rq, false);
    out_printf(o, " %02X %08X:%08X 00:00000000 00000000 %5u %8d %lu 2 0000000000000000",
               st, 0u, rx, s->inode.uid, 0, s->inode.ino);
    if (w->udp)
        out_printf(o, " 0");
    else
        out_printf(o, " 100 0 0 10 %d", st == TCP_LISTEN ? 0 : -1);
    if (w->family == AF_INET)
        pad(o, start, w->udp ? UDP_WIDTH : TCP_WIDTH);
    else
        out_bytes(o, "\n", 1);
}

void proc_net_show(struct out *o, enum proc_kind kind)
{
    struct net_walk w = { o, kind == P_NET_TCP || kind == P_NET_UDP ? AF_INET : AF_INET6,
                          kind == P_NET_UDP || kind == P_NET_UDP6, 0 };
    size_t start = o->len;
    if (w.family == AF_INET) {
        out_printf(o, "%s  sl  local_address rem_address   st tx_queue rx_queue tr tm->when "
                   "retrnsmt   uid  timeout inode%s", w.udp ? " " : "",
                   w.udp ? " ref pointer drops" : "");
        pad(o, start, w.udp ? UDP_WIDTH : TCP_WIDTH);
    } else {
        out_printf(o, "  sl  local_address                         remote_address           "
                   "             st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout "
                   "inode%s\n", w.udp ? " ref pointer drops" : "");
    }
    inet_each(w.udp ? INET_UDP : INET_TCP, one, &w);
}
