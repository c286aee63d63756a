/* Socket addresses of AF_INET and AF_INET6 (docs/linux/sockets.md, "AF_INET"): lx keeps
 * every address in IPv6's form (an IPv4 one mapped, ::ffff:a.b.c.d), so one port table
 * serves both families as Linux's does.  The only interface is lo: 127.0.0.0/8 and ::1 are
 * this machine's, any other destination is unreachable (Linux with only lo up answers
 * ENETUNREACH: no route). */
#include "net/inet/inet.h"
#include "lib/errno.h"
#include <string.h>

const struct in6 in6_any = { { 0 } };
const struct in6 in6_loopback = { { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 } };
const struct in6 in6_any4 = { { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0 } };
const struct in6 in6_loopback4 = { { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1 } };

bool in6_eq(const struct in6 *a, const struct in6 *b)
{
    return !memcmp(a->b, b->b, sizeof a->b);
}

bool in6_is_mapped(const struct in6 *a)
{
    return !memcmp(a->b, in6_any4.b, 12);
}

bool in6_is_any(const struct in6 *a)
{
    return in6_eq(a, &in6_any) || in6_eq(a, &in6_any4);
}

bool in6_is_local(const struct in6 *a)
{
    if (in6_is_mapped(a))
        return a->b[12] == 127 || in6_is_any(a);
    return in6_eq(a, &in6_any) || in6_eq(a, &in6_loopback);
}

struct sockaddr_in_ {
    uint16_t family, port;
    uint8_t addr[4];
    uint8_t zero[8];
};
struct sockaddr_in6_ {
    uint16_t family, port;
    uint32_t flowinfo;
    uint8_t addr[16];
    uint32_t scope_id;
};

static uint16_t be16(uint16_t v)
{
    return (uint16_t)(v >> 8 | v << 8);
}

int inet_addr_in(const struct socket *s, const char *sa, int len, struct in6 *addr,
                 uint16_t *port, bool unspec_ok)
{
    if (s->family == AF_INET) {
        struct sockaddr_in_ in;
        if (len < SIN_LEN)
            return -EINVAL;
        memcpy(&in, sa, sizeof in);
        static const uint8_t any[4];
        if (in.family != AF_INET &&
            !(unspec_ok && in.family == AF_UNSPEC && !memcmp(in.addr, any, 4)))
            return -EAFNOSUPPORT;
        *addr = in6_any4;
        memcpy(addr->b + 12, in.addr, 4);
        *port = be16(in.port);
        return 0;
    }
    struct sockaddr_in6_ in6 = { 0 };
    if (len < SIN6_LEN_RFC2133)
        return -EINVAL;
    memcpy(&in6, sa, len < SIN6_LEN ? SIN6_LEN_RFC2133 : SIN6_LEN);
    if (in6.family != AF_INET6)
        return -EAFNOSUPPORT;
    memcpy(addr->b, in6.addr, 16);
    *port = be16(in6.port);
    return 0;
}

int inet_addr_out(const struct socket *s, const struct in6 *addr, uint16_t port, char *sa)
{
    if (s->family == AF_INET) {
        struct sockaddr_in_ in = { .family = AF_INET, .port = be16(port) };
        memcpy(in.addr, addr->b + 12, 4);
        memcpy(sa, &in, sizeof in);
        return SIN_LEN;
    }
    struct sockaddr_in6_ in6 = { .family = AF_INET6, .port = be16(port) };
    memcpy(in6.addr, addr->b, 16);
    memcpy(sa, &in6, sizeof in6);
    return SIN6_LEN;
}

int inet_connect_route(struct inet_sock *is, const char *sa, int len, struct in6 *dst,
                       uint16_t *port, struct in6 *src)
{
    struct in6 addr;
    int err = inet_addr_in(&is->sock, sa, len, &addr, port, false);
    return err ? err : inet_route(is, &addr, dst, src);
}

int inet_route(const struct inet_sock *is, const struct in6 *addr, struct in6 *dst,
               struct in6 *src)
{
    if (in6_is_mapped(addr)) {
        if (is->v6only)
            return -ENETUNREACH;
        if (!in6_is_local(addr))
            return -ENETUNREACH;
        *dst = in6_is_any(addr) ? in6_loopback4 : *addr;
        *src = in6_is_mapped(&is->laddr) && !in6_is_any(&is->laddr) ? is->laddr : in6_loopback4;
        return 0;
    }
    if (!in6_is_local(addr))
        return -ENETUNREACH;
    *dst = in6_loopback;
    *src = in6_loopback;
    return 0;
}
