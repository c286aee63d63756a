/* NETLINK_ROUTE's kernel side (docs/linux/sockets.md, "AF_NETLINK"): the requests of a
 * datagram in Linux's netlink_rcv_skb order (acks, errors with the request echoed) and the
 * answers of Linux's rtnetlink about lo, the only interface: the link (RTM_GETLINK, dump or
 * by index or name), its addresses 127.0.0.1/8 and ::1/128 (RTM_GETADDR dumps) and the
 * routes the kernel makes for them (RTM_GETROUTE dumps: the local tables).  Each message
 * carries the attributes Linux 6.1 puts first, in Linux's order; counters and times are
 * zero (lx counts no packets).  A dump answers one datagram per address family and then
 * NLMSG_DONE, each queued as the reader makes room, as Linux's dump callback does. */
#include "net/netlink/netlink.h"
#include "lib/errno.h"
#include <string.h>

#define RTM_NEWLINK     16
#define RTM_GETLINK     18
#define RTM_NEWADDR     20
#define RTM_GETADDR     22
#define RTM_NEWROUTE    24
#define RTM_GETROUTE    26
#define RTM_MAX         123
#define AF_INET_        2
#define AF_INET6_       10
#define AF_BRIDGE_      7

#define IFLA_ADDRESS    1
#define IFLA_BROADCAST  2
#define IFLA_IFNAME     3
#define IFLA_MTU        4
#define IFLA_QDISC      6
#define IFLA_STATS      7
#define IFLA_PROTINFO   12
#define IFLA_TXQLEN     13
#define IFLA_OPERSTATE  16
#define IFLA_LINKMODE   17
#define IFLA_STATS64    23
#define IFLA_GROUP      27
#define IFLA_PROMISCUITY 30
#define IFLA_NUM_TX_QUEUES 31
#define IFLA_NUM_RX_QUEUES 32
#define IFLA_CARRIER    33
#define IFLA_CARRIER_CHANGES 35
#define IFLA_PROTO_DOWN 39
#define IFLA_GSO_MAX_SEGS 40
#define IFLA_GSO_MAX_SIZE 41
#define IFLA_MIN_MTU    50
#define IFLA_MAX_MTU    51
#define IFA_ADDRESS     1
#define IFA_LOCAL       2
#define IFA_LABEL       3
#define IFA_CACHEINFO   6
#define IFA_FLAGS       8
#define RTA_DST         1
#define RTA_OIF         4
#define RTA_PRIORITY    6
#define RTA_PREFSRC     7
#define RTA_CACHEINFO   12
#define RTA_TABLE       15
#define RTA_PREF        20

#define LO_INDEX        1
#define LO_FLAGS        0x10049     /* IFF_UP | IFF_LOOPBACK | IFF_RUNNING | IFF_LOWER_UP */
#define ARPHRD_LOOPBACK 772
#define IFA_F_PERMANENT 0x80
#define RT_SCOPE_UNIVERSE 0
#define RT_SCOPE_LINK   253
#define RT_SCOPE_HOST   254
#define RT_TABLE_LOCAL  255
#define RTPROT_KERNEL   2
#define RTN_LOCAL       2
#define RTN_BROADCAST   3
#define INFINITY_LIFE   0xffffffffu

struct ifinfomsg {
    uint8_t family, pad;
    uint16_t type;
    int32_t index;
    uint32_t flags, change;
};
struct ifaddrmsg {
    uint8_t family, prefixlen, flags, scope;
    uint32_t index;
};
struct rtmsg {
    uint8_t family, dst_len, src_len, tos, table, protocol, scope, type;
    uint32_t flags;
};
struct rtattr {
    uint16_t len, type;
};

/* --- building a datagram of messages ------------------------------------------------------- */

static char out[NETLINK_KERNEL_REQ_MAX + 256];    /* an error echoes a whole request */
static l4_word_t outlen;
static l4_word_t msg_start;

static void *put(const void *data, l4_word_t len)
{
    char *p = out + outlen;
    memset(p, 0, NLMSG_ALIGN(len));
    if (data)
        memcpy(p, data, len);
    outlen += NLMSG_ALIGN(len);
    return p;
}

static void msg_begin(uint16_t type, uint16_t flags, const struct nlmsghdr *req, uint32_t pid)
{
    msg_start = outlen;
    struct nlmsghdr h = { 0, type, flags, req->seq, pid };
    put(&h, sizeof h);
}

static void msg_end(void)
{
    ((struct nlmsghdr *)(out + msg_start))->len = (uint32_t)(outlen - msg_start);
}

static void attr(uint16_t type, const void *data, uint16_t len)
{
    struct rtattr a = { (uint16_t)(sizeof a + len), type };
    put(&a, sizeof a);
    put(data, len);
}

static void attr_u32(uint16_t type, uint32_t v)
{
    attr(type, &v, sizeof v);
}

static void attr_u8(uint16_t type, uint8_t v)
{
    attr(type, &v, sizeof v);
}

static void send_out(struct netlink_sock *ns, bool dump)
{
    netlink_kernel_send(ns, out, outlen, dump);
    outlen = 0;
}

/* --- lo's objects ---------------------------------------------------------------------------- */

static void link_msg(const struct nlmsghdr *req, uint32_t pid, uint16_t flags)
{
    static const uint8_t hw[6];
    static const uint64_t stats64[24];
    static const uint32_t stats[24];
    msg_begin(RTM_NEWLINK, flags, req, pid);
    struct ifinfomsg i = { 0, 0, ARPHRD_LOOPBACK, LO_INDEX, LO_FLAGS, 0 };
    put(&i, sizeof i);
    attr(IFLA_IFNAME, "lo", 3);
    attr_u32(IFLA_TXQLEN, 1000);
    attr_u8(IFLA_OPERSTATE, 0);     /* IF_OPER_UNKNOWN: lo has no carrier state */
    attr_u8(IFLA_LINKMODE, 0);
    attr_u32(IFLA_MTU, 65536);
    attr_u32(IFLA_MIN_MTU, 0);
    attr_u32(IFLA_MAX_MTU, 0);
    attr_u32(IFLA_GROUP, 0);
    attr_u32(IFLA_PROMISCUITY, 0);
    attr_u32(IFLA_NUM_TX_QUEUES, 1);
    attr_u32(IFLA_GSO_MAX_SEGS, 65535);
    attr_u32(IFLA_GSO_MAX_SIZE, 65536);
    attr_u32(IFLA_NUM_RX_QUEUES, 1);
    attr_u8(IFLA_CARRIER, 1);
    attr(IFLA_QDISC, "noqueue", 8);
    attr_u32(IFLA_CARRIER_CHANGES, 0);
    attr_u8(IFLA_PROTO_DOWN, 0);
    attr(IFLA_ADDRESS, hw, sizeof hw);
    attr(IFLA_BROADCAST, hw, sizeof hw);
    attr(IFLA_STATS64, stats64, sizeof stats64);
    attr(IFLA_STATS, stats, sizeof stats);
    msg_end();
}

/* What IPv6 says about lo to an AF_INET6 link dump (Linux's inet6_fill_ifinfo; the
 * IFLA_PROTINFO nest of IPv6's settings is left empty here). */
static void link6_msg(const struct nlmsghdr *req, uint32_t pid)
{
    static const uint8_t hw[6];
    msg_begin(RTM_NEWLINK, NLM_F_MULTI, req, pid);
    struct ifinfomsg i = { AF_INET6_, 0, ARPHRD_LOOPBACK, LO_INDEX, LO_FLAGS, 0 };
    put(&i, sizeof i);
    attr(IFLA_IFNAME, "lo", 3);
    attr(IFLA_ADDRESS, hw, sizeof hw);
    attr_u32(IFLA_MTU, 65536);
    attr_u8(IFLA_OPERSTATE, 0);
    attr(IFLA_PROTINFO, NULL, 0);
    msg_end();
}

static void cacheinfo(void)
{
    /* prefered, valid (forever), created and updated (hundredths of a second: lx's start) */
    uint32_t ci[4] = { INFINITY_LIFE, INFINITY_LIFE, 0, 0 };
    attr(IFA_CACHEINFO, ci, sizeof ci);
}

static void addr4_msg(const struct nlmsghdr *req, uint32_t pid)
{
    static const uint8_t lo4[4] = { 127, 0, 0, 1 };
    msg_begin(RTM_NEWADDR, NLM_F_MULTI, req, pid);
    struct ifaddrmsg a = { AF_INET_, 8, IFA_F_PERMANENT, RT_SCOPE_HOST, LO_INDEX };
    put(&a, sizeof a);
    attr(IFA_ADDRESS, lo4, 4);
    attr(IFA_LOCAL, lo4, 4);
    attr(IFA_LABEL, "lo", 3);
    attr_u32(IFA_FLAGS, IFA_F_PERMANENT);
    cacheinfo();
    msg_end();
}

static const uint8_t lo6[16] = { [15] = 1 };

static void addr6_msg(const struct nlmsghdr *req, uint32_t pid)
{
    msg_begin(RTM_NEWADDR, NLM_F_MULTI, req, pid);
    struct ifaddrmsg a = { AF_INET6_, 128, IFA_F_PERMANENT, RT_SCOPE_HOST, LO_INDEX };
    put(&a, sizeof a);
    attr(IFA_ADDRESS, lo6, 16);
    cacheinfo();
    attr_u32(IFA_FLAGS, IFA_F_PERMANENT);
    msg_end();
}

/* The local table's routes of 127.0.0.1/8 (Linux's fib_add_ifaddr). */
static void routes4_msgs(const struct nlmsghdr *req, uint32_t pid)
{
    static const struct {
        uint8_t dst[4], len, scope, type;
    } r4[] = {
        { { 127, 0, 0, 0 }, 8, RT_SCOPE_HOST, RTN_LOCAL },
        { { 127, 0, 0, 1 }, 32, RT_SCOPE_HOST, RTN_LOCAL },
        { { 127, 255, 255, 255 }, 32, RT_SCOPE_LINK, RTN_BROADCAST },
    };
    static const uint8_t src[4] = { 127, 0, 0, 1 };
    for (unsigned k = 0; k < sizeof r4 / sizeof r4[0]; k++) {
        msg_begin(RTM_NEWROUTE, NLM_F_MULTI, req, pid);
        struct rtmsg r = { AF_INET_, r4[k].len, 0, 0, RT_TABLE_LOCAL, RTPROT_KERNEL,
                           r4[k].scope, r4[k].type, 0 };
        put(&r, sizeof r);
        attr_u32(RTA_TABLE, RT_TABLE_LOCAL);
        attr(RTA_DST, r4[k].dst, 4);
        attr(RTA_PREFSRC, src, 4);
        attr_u32(RTA_OIF, LO_INDEX);
        msg_end();
    }
}

/* ::1's local route (the only IPv6 route of a machine with lo alone, as Linux dumps it). */
static void routes6_msgs(const struct nlmsghdr *req, uint32_t pid)
{
    static const uint32_t ci[8];    /* struct rta_cacheinfo: no use counted */
    msg_begin(RTM_NEWROUTE, NLM_F_MULTI, req, pid);
    struct rtmsg r = { AF_INET6_, 128, 0, 0, RT_TABLE_LOCAL, RTPROT_KERNEL, RT_SCOPE_UNIVERSE,
                       RTN_LOCAL, 0 };
    put(&r, sizeof r);
    attr_u32(RTA_TABLE, RT_TABLE_LOCAL);
    attr(RTA_DST, lo6, 16);
    attr_u32(RTA_PRIORITY, 0);
    attr_u32(RTA_OIF, LO_INDEX);
    attr(RTA_CACHEINFO, ci, sizeof ci);
    attr_u8(RTA_PREF, 0);
    msg_end();
}

/* --- requests ------------------------------------------------------------------------------ */

static void ack(struct netlink_sock *ns, const struct nlmsghdr *req, int err)
{
    /* Linux's netlink_ack: the request's header, and its payload too for an error unless
     * NETLINK_CAP_ACK */
    bool capped = !err || ns->cap_ack;
    msg_begin(NLMSG_ERROR, capped ? NLM_F_CAPPED : 0, req, ns->portid);
    put(&err, sizeof err);
    put(req, capped ? sizeof *req : req->len);
    msg_end();
    send_out(ns, false);
}

/* A dump: one datagram per family (Linux's rtnl_dump_all), then NLMSG_DONE. */
static int dump(struct netlink_sock *ns, const struct nlmsghdr *req, int family)
{
    if (ns->dump_running)
        return -EBUSY;
    ns->dump_running = true;
    uint32_t pid = ns->portid;
    bool v4 = family != AF_INET6_, v6 = family != AF_INET_;
    switch (req->type) {
    case RTM_GETLINK:
        if (family == AF_BRIDGE_)
            break;                  /* lo is no bridge port */
        if (family == AF_INET6_)
            link6_msg(req, pid);
        else
            link_msg(req, pid, NLM_F_MULTI);
        send_out(ns, true);
        break;
    case RTM_GETADDR:
    case RTM_GETROUTE:
        if (v4) {
            (req->type == RTM_GETADDR ? addr4_msg : routes4_msgs)(req, pid);
            send_out(ns, true);
        }
        if (v6) {
            (req->type == RTM_GETADDR ? addr6_msg : routes6_msgs)(req, pid);
            send_out(ns, true);
        }
        break;
    }
    int done = 0;
    msg_begin(NLMSG_DONE, NLM_F_MULTI, req, pid);
    put(&done, sizeof done);
    msg_end();
    send_out(ns, true);
    return 0;
}

/* Linux's rtnl_getlink: by index, else by IFLA_IFNAME. */
static int getlink(struct netlink_sock *ns, const struct nlmsghdr *h)
{
    const struct ifinfomsg *i = (const void *)(h + 1);
    if (h->len < NLMSG_HDRLEN + sizeof *i)
        return -EINVAL;
    bool lo;
    if (i->index > 0) {
        lo = i->index == LO_INDEX;
    } else {
        bool named = false;
        lo = false;
        l4_word_t off = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof *i);
        while (off + sizeof(struct rtattr) <= h->len) {
            const struct rtattr *a = (const void *)((const char *)h + off);
            if (a->len < sizeof *a || off + a->len > h->len)
                break;
            if (a->type == IFLA_IFNAME) {
                const char *p = (const char *)(a + 1);
                l4_word_t n = a->len - sizeof *a;
                named = true;
                lo = n >= 2 && p[0] == 'l' && p[1] == 'o' && (n == 2 || !p[2]);
            }
            off += NLMSG_ALIGN(a->len);
        }
        if (!named)
            return -EINVAL;
    }
    if (!lo)
        return -ENODEV;
    link_msg(h, ns->portid, 0);
    send_out(ns, false);
    return 0;
}

/* Linux's rtnetlink_rcv_msg: the answer (0 or -errno), or 1 when a dump began (no ack). */
static int rtnl_msg(struct netlink_sock *ns, const struct nlmsghdr *h, bool admin)
{
    if (h->type > RTM_MAX)
        return -EOPNOTSUPP;
    if (h->len < NLMSG_HDRLEN + 1)
        return 0;
    int family = *((const uint8_t *)(h + 1));
    int kind = (h->type - RTM_NEWLINK) & 3;
    if (kind != 2 && !admin)
        return -EPERM;
    if (kind == 2 && (h->flags & NLM_F_DUMP)) {
        if (h->type != RTM_GETLINK && h->type != RTM_GETADDR && h->type != RTM_GETROUTE)
            return -EOPNOTSUPP;
        int err = dump(ns, h, family);
        return err ? err : 1;
    }
    if (h->type == RTM_GETLINK)
        return getlink(ns, h);
    if (h->type == RTM_NEWLINK)
        return 0;                   /* lo is up and stays as it is (docs) */
    return -EOPNOTSUPP;
}

void rtnl_input(struct netlink_sock *ns, const char *data, l4_word_t len, bool admin)
{
    while (len >= NLMSG_HDRLEN) {
        struct nlmsghdr h;
        memcpy(&h, data, sizeof h);
        if (h.len < NLMSG_HDRLEN || h.len > len)
            return;
        int err = 0;
        if ((h.flags & NLM_F_REQUEST) && h.type >= NLMSG_MIN_TYPE)
            err = rtnl_msg(ns, (const struct nlmsghdr *)data, admin);
        if (err != 1 && ((h.flags & NLM_F_ACK) || err))
            ack(ns, (const struct nlmsghdr *)data, err);
        l4_word_t n = NLMSG_ALIGN(h.len);
        if (n > len)
            n = len;
        data += n;
        len -= n;
    }
}
