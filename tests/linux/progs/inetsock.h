/* Helpers of the AF_INET corpus programs (inet_*.c, inet6.c; docs/linux/sockets.md):
 * addresses made from text, and addresses printed in words.  Fixed ports are below 32768;
 * an ephemeral port (net.ipv4.ip_local_port_range, 32768-60999, chosen at random) prints
 * as "eph", so the output is the same on every run. */
#ifndef INETSOCK_H
#define INETSOCK_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <net/if.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include "unixsock.h"

/* The corpus runs as init on Linux, where nobody brought lo up: do it as init scripts do
 * (lx's lo is always up; SIOCSIFFLAGS there is accepted).  An alarm ends a case that would
 * wait for ever on a mistake. */
static inline void lo_up(void)
{
    alarm(60);
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    strcpy(ifr.ifr_name, "lo");
    if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
        printf("SIOCGIFFLAGS lo: %s\n", serrname(errno));
    if (!(ifr.ifr_flags & IFF_UP)) {
        ifr.ifr_flags |= IFF_UP;
        if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
            printf("SIOCSIFFLAGS lo: %s\n", serrname(errno));
    }
    close(fd);
}

static inline socklen_t in4(struct sockaddr_in *a, const char *addr, int port)
{
    memset(a, 0, sizeof *a);
    a->sin_family = AF_INET;
    a->sin_port = htons((unsigned short)port);
    inet_pton(AF_INET, addr, &a->sin_addr);
    return sizeof *a;
}

static inline socklen_t in6(struct sockaddr_in6 *a, const char *addr, int port)
{
    memset(a, 0, sizeof *a);
    a->sin6_family = AF_INET6;
    a->sin6_port = htons((unsigned short)port);
    inet_pton(AF_INET6, addr, &a->sin6_addr);
    return sizeof *a;
}

static inline void show_port(int port)
{
    if (port >= 32768 && port <= 60999)
        printf(" port eph");
    else
        printf(" port %d", port);
}

/* An address as getsockname, getpeername, accept or recvfrom gave it. */
static inline void show_in(const char *what, const void *sa, socklen_t len)
{
    const struct sockaddr_in *a4 = sa;
    const struct sockaddr_in6 *a6 = sa;
    char buf[64] = "?";
    printf("%s: len %u", what, (unsigned)len);
    if (a4->sin_family == AF_INET) {
        inet_ntop(AF_INET, &a4->sin_addr, buf, sizeof buf);
        printf(" inet %s", buf);
        show_port(ntohs(a4->sin_port));
    } else if (a6->sin6_family == AF_INET6) {
        inet_ntop(AF_INET6, &a6->sin6_addr, buf, sizeof buf);
        printf(" inet6 %s", buf);
        show_port(ntohs(a6->sin6_port));
        printf(" flow %u scope %u", (unsigned)a6->sin6_flowinfo, (unsigned)a6->sin6_scope_id);
    } else {
        printf(" family %d", a4->sin_family);
    }
    printf("\n");
}

static inline void show_name(const char *what, int fd, bool peer)
{
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    socklen_t len = sizeof ss;
    errno = 0;
    int r = peer ? getpeername(fd, (struct sockaddr *)&ss, &len)
                 : getsockname(fd, (struct sockaddr *)&ss, &len);
    if (r < 0)
        printf("%s: -1 %s\n", what, serrname(errno));
    else
        show_in(what, &ss, len);
}

static inline int sockopt_int(int fd, int level, int name)
{
    int v = -12345;
    socklen_t len = sizeof v;
    if (getsockopt(fd, level, name, &v, &len) < 0)
        return -errno * 1000;
    return v;
}

static inline void set_int(int fd, int level, int name, int v)
{
    setsockopt(fd, level, name, &v, sizeof v);
}

/* "NAME V -> W": an int option before and after it is set to 1. */
static inline void show_set_one(const char *name, int fd, int level, int opt)
{
    printf("%s %d", name, sockopt_int(fd, level, opt));
    set_int(fd, level, opt, 1);
    printf(" -> %d\n", sockopt_int(fd, level, opt));
}

/* Two sockets with option opt (SO_REUSEADDR, SO_REUSEPORT) on, bound to a one after the
 * other: the lines "PREFIX bind N1" and "PREFIX bind N2". */
static inline void bind_both(const char *prefix, const char *n1, const char *n2, int s1, int s2,
                             int opt, const struct sockaddr_in *a)
{
    char what[64];
    set_int(s1, SOL_SOCKET, opt, 1);
    set_int(s2, SOL_SOCKET, opt, 1);
    snprintf(what, sizeof what, "%s bind %s", prefix, n1);
    SSHOW(what, bind(s1, (const struct sockaddr *)a, sizeof *a));
    snprintf(what, sizeof what, "%s bind %s", prefix, n2);
    SSHOW(what, bind(s2, (const struct sockaddr *)a, sizeof *a));
}

#endif
