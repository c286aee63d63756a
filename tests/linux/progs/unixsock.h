/* Helpers of the AF_UNIX corpus programs (unix_*.c; docs/linux/sockets.md): the network
 * errors by name, result lines that use them, addresses by path or abstract name, and a
 * way to print what poll says in words. */
#ifndef UNIXSOCK_H
#define UNIXSOCK_H

#include <poll.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>
#include "corpus.h"

#ifndef SIOCINQ
#define SIOCINQ  0x541B             /* FIONREAD */
#endif
#ifndef SIOCOUTQ
#define SIOCOUTQ 0x5411
#endif

static inline const char *serrname(int e)
{
    switch (e) {
    case ENOTSOCK: return "ENOTSOCK";
    case EDESTADDRREQ: return "EDESTADDRREQ";
    case EMSGSIZE: return "EMSGSIZE";
    case EPROTOTYPE: return "EPROTOTYPE";
    case ENOPROTOOPT: return "ENOPROTOOPT";
    case EPROTONOSUPPORT: return "EPROTONOSUPPORT";
    case ESOCKTNOSUPPORT: return "ESOCKTNOSUPPORT";
    case EAFNOSUPPORT: return "EAFNOSUPPORT";
    case EADDRINUSE: return "EADDRINUSE";
    case EADDRNOTAVAIL: return "EADDRNOTAVAIL";
    case ECONNABORTED: return "ECONNABORTED";
    case ECONNRESET: return "ECONNRESET";
    case ENOBUFS: return "ENOBUFS";
    case EISCONN: return "EISCONN";
    case ENOTCONN: return "ENOTCONN";
    case ETOOMANYREFS: return "ETOOMANYREFS";
    case ECONNREFUSED: return "ECONNREFUSED";
    case EDOM: return "EDOM";
    case ENETUNREACH: return "ENETUNREACH";
    case EINPROGRESS: return "EINPROGRESS";
    case EALREADY: return "EALREADY";
    default: return errname(e);
    }
}

/* SHOW and TRY with the network errors. */
#define SSHOW(what, call) ({                                                  \
    errno = 0;                                                                \
    long r_ = (long)(call);                                                   \
    if (r_ < 0)                                                               \
        printf("%s: -1 %s\n", (what), serrname(errno));                       \
    else                                                                      \
        printf("%s: %ld\n", (what), r_);                                      \
    r_;                                                                       \
})
#define STRY(what, call) ({                                                   \
    errno = 0;                                                                \
    long r_ = (long)(call);                                                   \
    if (r_ < 0)                                                               \
        printf("%s: -1 %s\n", (what), serrname(errno));                       \
    else                                                                      \
        printf("%s: ok\n", (what));                                           \
    r_;                                                                       \
})

/* A path address: its length as bind takes it (the whole structure). */
static inline socklen_t path_addr(struct sockaddr_un *a, const char *path)
{
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    strncpy(a->sun_path, path, sizeof a->sun_path - 1);
    return sizeof *a;
}

/* An abstract address: "\0" and name, its exact length. */
static inline socklen_t abstract_addr(struct sockaddr_un *a, const char *name)
{
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    size_t n = strlen(name);
    memcpy(a->sun_path + 1, name, n);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

/* An address as getsockname and friends gave it: its length and its name in words. */
static inline void show_addr(const char *what, const struct sockaddr_un *a, socklen_t len)
{
    if (len <= offsetof(struct sockaddr_un, sun_path))
        printf("%s: len %u unnamed\n", what, (unsigned)len);
    else if (a->sun_path[0])
        printf("%s: len %u path %s\n", what, (unsigned)len, a->sun_path);
    else if (len == offsetof(struct sockaddr_un, sun_path) + 6)
        printf("%s: len %u abstract (autobind-sized)\n", what, (unsigned)len);
    else
        printf("%s: len %u abstract %.*s\n", what, (unsigned)len,
               (int)(len - offsetof(struct sockaddr_un, sun_path) - 1), a->sun_path + 1);
}

/* What poll says of fd for events, in words. */
static inline void show_poll(const char *what, int fd, short events)
{
    struct pollfd p = { .fd = fd, .events = events };
    int n = poll(&p, 1, 0);
    printf("%s: %d", what, n);
    static const struct { short bit; const char *name; } bits[] = {
        { POLLIN, "IN" }, { POLLPRI, "PRI" }, { POLLOUT, "OUT" }, { POLLERR, "ERR" },
        { POLLHUP, "HUP" }, { POLLNVAL, "NVAL" }, { POLLRDHUP, "RDHUP" },
    };
    for (unsigned k = 0; k < sizeof bits / sizeof bits[0]; k++)
        if (p.revents & bits[k].bit)
            printf(" %s", bits[k].name);
    printf("\n");
}

#endif
