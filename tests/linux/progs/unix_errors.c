/* The error paths of the socket calls on AF_UNIX (docs/linux/sockets.md), each in Linux's
 * order of checks: socket's families, types, flags and protocols; bad fds and fds that are
 * no socket; addresses too short, too long, of the wrong family or at bad pointers; the
 * names (EADDRINUSE, ENOENT, ECONNREFUSED, EPROTOTYPE, EACCES-free as root); connection
 * states (EISCONN, ENOTCONN, EINVAL, EOPNOTSUPP); options (ENOPROTOOPT, EINVAL, EDOM,
 * EFAULT); msghdrs (EMSGSIZE, ENOBUFS, EINVAL, EFAULT). */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include "unixsock.h"

static char *bad;                   /* a page nobody may touch */

static void creation(void)
{
    printf("--- socket\n");
    SSHOW("AF_UNIX type 0", socket(AF_UNIX, 0, 0));
    SSHOW("AF_UNIX SOCK_RDM", socket(AF_UNIX, SOCK_RDM, 0));
    SSHOW("AF_UNIX type 11", socket(AF_UNIX, 11, 0));
    SSHOW("AF_UNIX type 15", socket(AF_UNIX, 15, 0));
    SSHOW("AF_UNIX unknown flag", socket(AF_UNIX, SOCK_STREAM | 0x100, 0));
    SSHOW("AF_UNIX protocol 2", socket(AF_UNIX, SOCK_STREAM, 2));
    int s = (int)STRY("AF_UNIX protocol 1", socket(AF_UNIX, SOCK_STREAM, 1));
    close(s);
    s = (int)STRY("AF_UNIX SOCK_RAW", socket(AF_UNIX, SOCK_RAW, 0));
    int v;
    socklen_t len = sizeof v;
    getsockopt(s, SOL_SOCKET, SO_TYPE, &v, &len);
    printf("SOCK_RAW is type %d\n", v);
    close(s);
    SSHOW("family -1", socket(-1, SOCK_STREAM, 0));
    SSHOW("family 46 (AF_MAX)", socket(46, SOCK_STREAM, 0));
    SSHOW("family 1000", socket(1000, SOCK_STREAM, 0));
    s = (int)STRY("SOCK_NONBLOCK|SOCK_CLOEXEC", socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK |
                                                       SOCK_CLOEXEC, 0));
    printf("O_NONBLOCK %d FD_CLOEXEC %d\n", !!(fcntl(s, F_GETFL) & O_NONBLOCK),
           fcntl(s, F_GETFD) & FD_CLOEXEC);
    printf("O_ACCMODE is O_RDWR: %d\n", (fcntl(s, F_GETFL) & O_ACCMODE) == O_RDWR);
    close(s);
    printf("--- socketpair\n");
    int sv[2];
    SSHOW("bad pointer", socketpair(AF_UNIX, SOCK_STREAM, 0, (int *)bad));
    SSHOW("family 46", socketpair(46, SOCK_STREAM, 0, sv));
    SSHOW("unknown flag", socketpair(AF_UNIX, SOCK_STREAM | 0x100, 0, sv));
    SSHOW("protocol 5", socketpair(AF_UNIX, SOCK_STREAM, 5, sv));
    SSHOW("type 4", socketpair(AF_UNIX, 4, 0, sv));
}

static void fds(void)
{
    printf("--- fds\n");
    int p[2];
    pipe(p);
    char buf[8];
    struct sockaddr_un a;
    socklen_t alen = path_addr(&a, "/tmp/err.sock");
    SSHOW("bind EBADF", bind(99, (struct sockaddr *)&a, alen));
    SSHOW("bind ENOTSOCK", bind(p[0], (struct sockaddr *)&a, alen));
    SSHOW("bind ENOTSOCK with a bad address", bind(p[0], (struct sockaddr *)bad, alen));
    SSHOW("connect EBADF", connect(99, (struct sockaddr *)&a, alen));
    SSHOW("connect ENOTSOCK", connect(p[0], (struct sockaddr *)&a, alen));
    SSHOW("connect bad address before ENOTSOCK", connect(p[0], (struct sockaddr *)bad, alen));
    SSHOW("connect bad length before ENOTSOCK", connect(p[0], (struct sockaddr *)&a, 200));
    SSHOW("listen ENOTSOCK", listen(p[0], 1));
    SSHOW("accept ENOTSOCK", accept(p[0], NULL, NULL));
    SSHOW("accept4 bad flags before EBADF", accept4(99, NULL, NULL, 0x1));
    SSHOW("send ENOTSOCK", send(p[0], "x", 1, 0));
    SSHOW("send bad buffer before EBADF", send(99, (void *)-4096L, 1, 0));
    SSHOW("recv ENOTSOCK", recv(p[0], buf, 1, 0));
    SSHOW("sendmsg ENOTSOCK", sendmsg(p[0], (struct msghdr *)bad, 0));
    SSHOW("shutdown ENOTSOCK", shutdown(p[0], SHUT_RD));
    SSHOW("shutdown EBADF", shutdown(99, SHUT_RD));
    int v = 1;
    SSHOW("setsockopt ENOTSOCK", setsockopt(p[0], SOL_SOCKET, SO_REUSEADDR, &v, sizeof v));
    socklen_t len = sizeof a;
    SSHOW("getsockname ENOTSOCK", getsockname(p[0], (struct sockaddr *)&a, &len));
    SSHOW("getpeername EBADF", getpeername(99, (struct sockaddr *)&a, &len));
    close(p[0]);
    close(p[1]);
}

static void addresses(void)
{
    printf("--- bind\n");
    struct sockaddr_un a;
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    path_addr(&a, "/tmp/err.sock");
    unlink("/tmp/err.sock");
    SSHOW("length 0", bind(s, (struct sockaddr *)&a, 0));
    SSHOW("length 1", bind(s, (struct sockaddr *)&a, 1));
    SSHOW("length 111", bind(s, (struct sockaddr *)&a, 111));
    SSHOW("length 129", bind(s, (struct sockaddr *)&a, 129));
    SSHOW("length -1", bind(s, (struct sockaddr *)&a, -1));
    SSHOW("bad pointer", bind(s, (struct sockaddr *)bad, sizeof a));
    a.sun_family = AF_INET;
    SSHOW("AF_INET family", bind(s, (struct sockaddr *)&a, sizeof a));
    a.sun_family = AF_UNIX;
    SSHOW("a directory that is not there", bind(s, (struct sockaddr *)&a,
                                                path_addr(&a, "/tmp/no/such/dir")));
    SSHOW("a path through a file", bind(s, (struct sockaddr *)&a, path_addr(&a, "/proc/self/stat/x")));
    SSHOW("an existing file", bind(s, (struct sockaddr *)&a, path_addr(&a, "/tmp")));
    SSHOW("a trailing slash", bind(s, (struct sockaddr *)&a, path_addr(&a, "/tmp/err.sock/")));
    SSHOW("ok", bind(s, (struct sockaddr *)&a, path_addr(&a, "/tmp/err.sock")));
    SSHOW("bind again elsewhere", bind(s, (struct sockaddr *)&a, path_addr(&a, "/tmp/err2.sock")));
    printf("the second path exists: %d\n", access("/tmp/err2.sock", F_OK) == 0);
    SSHOW("bind again, abstract", bind(s, (struct sockaddr *)&a, abstract_addr(&a, "x")));
    int s2 = socket(AF_UNIX, SOCK_STREAM, 0);
    SSHOW("another socket binds the path", bind(s2, (struct sockaddr *)&a,
                                                path_addr(&a, "/tmp/err.sock")));
    SSHOW("another socket binds an abstract name", bind(s2, (struct sockaddr *)&a,
                                                        abstract_addr(&a, "lx-err")));
    int s3 = socket(AF_UNIX, SOCK_STREAM, 0);
    SSHOW("a third binds it too", bind(s3, (struct sockaddr *)&a, abstract_addr(&a, "lx-err")));
    SSHOW("abstract with a longer length", bind(s3, (struct sockaddr *)&a,
                                               abstract_addr(&a, "lx-err") + 1));
    close(s3);

    printf("--- connect\n");
    int c = socket(AF_UNIX, SOCK_STREAM, 0);
    SSHOW("length 2", connect(c, (struct sockaddr *)&a, 2));
    SSHOW("a path that is not there", connect(c, (struct sockaddr *)&a,
                                             path_addr(&a, "/tmp/not-there")));
    SSHOW("a regular file", connect(c, (struct sockaddr *)&a, path_addr(&a, "/proc/self/stat")));
    SSHOW("a directory", connect(c, (struct sockaddr *)&a, path_addr(&a, "/tmp")));
    SSHOW("a bound socket that does not listen", connect(c, (struct sockaddr *)&a,
                                                        path_addr(&a, "/tmp/err.sock")));
    SSHOW("an abstract name nobody has", connect(c, (struct sockaddr *)&a,
                                                abstract_addr(&a, "lx-nobody")));
    int d = socket(AF_UNIX, SOCK_DGRAM, 0);
    unlink("/tmp/err-dgram.sock");
    bind(d, (struct sockaddr *)&a, path_addr(&a, "/tmp/err-dgram.sock"));
    SSHOW("a dgram socket's path", connect(c, (struct sockaddr *)&a, path_addr(&a,
                                                                           "/tmp/err-dgram.sock")));
    mknod("/tmp/err-node.sock", S_IFSOCK | 0666, 0);
    SSHOW("a socket file nobody bound", connect(c, (struct sockaddr *)&a,
                                               path_addr(&a, "/tmp/err-node.sock")));
    SSHOW("open a socket file", open("/tmp/err-node.sock", O_RDWR));
    SSHOW("open a bound socket's file", open("/tmp/err.sock", O_RDONLY));
    SSHOW("listen unbound", listen(c, 1));
    SSHOW("listen", listen(s, 1));
    SSHOW("connect a listening socket", connect(s, (struct sockaddr *)&a,
                                               path_addr(&a, "/tmp/err.sock")));
    SSHOW("connect", connect(c, (struct sockaddr *)&a, path_addr(&a, "/tmp/err.sock")));
    SSHOW("connect again", connect(c, (struct sockaddr *)&a, path_addr(&a, "/tmp/err.sock")));
    SSHOW("connect again to nowhere", connect(c, (struct sockaddr *)&a,
                                              path_addr(&a, "/tmp/not-there")));
    SSHOW("listen on a connected socket", listen(c, 1));
    SSHOW("sendto with an address", sendto(c, "x", 1, 0, (struct sockaddr *)&a, sizeof a));
    SSHOW("sendto with address length 0", sendto(c, "x", 1, 0, (struct sockaddr *)&a, 0));
    SSHOW("listen on dgram", listen(d, 1));
    SSHOW("accept on dgram", accept(d, NULL, NULL));
    SSHOW("accept on a connected socket", accept(c, NULL, NULL));
    int acc = accept(s, NULL, NULL);
    socklen_t len = sizeof a;
    int c4 = socket(AF_UNIX, SOCK_STREAM, 0);
    connect(c4, (struct sockaddr *)&a, path_addr(&a, "/tmp/err.sock"));
    SSHOW("accept with a bad address buffer", accept(s, (struct sockaddr *)bad, &len));
    char b4;
    SSHOW("the connection was lost", read(c4, &b4, 1));
    close(c4);
    int unc = socket(AF_UNIX, SOCK_STREAM, 0);
    SSHOW("send unconnected", send(unc, "x", 1, 0));
    SSHOW("sendto unconnected with address", sendto(unc, "x", 1, 0, (struct sockaddr *)&a,
                                                    sizeof a));
    SSHOW("recv unconnected", recv(unc, &a, 1, 0));
    SSHOW("read unconnected", read(unc, &a, 1));
    SSHOW("write unconnected", write(unc, "x", 1));
    SSHOW("getpeername unconnected", getpeername(unc, (struct sockaddr *)&a, &len));
    SSHOW("shutdown unconnected", shutdown(unc, SHUT_RDWR));
    SSHOW("shutdown how 3", shutdown(c, 3));
    SSHOW("shutdown how -1", shutdown(c, -1));
    SSHOW("accept on an unbound socket", accept(unc, NULL, NULL));
    SSHOW("dgram send unconnected", send(d, "x", 1, 0));
    SSHOW("dgram sendto a stream socket's path", sendto(d, "x", 1, 0, (struct sockaddr *)&a,
                                                        path_addr(&a, "/tmp/err.sock")));
    SSHOW("dgram connect to a stream socket", connect(d, (struct sockaddr *)&a,
                                                      path_addr(&a, "/tmp/err.sock")));
    struct sockaddr sa = { .sa_family = AF_UNIX };
    SSHOW("dgram connect length 1", connect(d, &sa, 1));
    SSHOW("dgram sendto length 1", sendto(d, "x", 1, 0, &sa, 1));
    SSHOW("dgram recv MSG_OOB", recv(d, &a, 1, MSG_OOB | MSG_DONTWAIT));
    SSHOW("dgram send MSG_OOB", sendto(d, "x", 1, MSG_OOB, (struct sockaddr *)&a,
                                       path_addr(&a, "/tmp/err-dgram.sock")));

    printf("--- names back\n");
    len = sizeof a;
    SSHOW("getsockname bad length pointer", getsockname(s, (struct sockaddr *)&a,
                                                       (socklen_t *)bad));
    len = (socklen_t)-1;
    SSHOW("getsockname negative length", getsockname(s, (struct sockaddr *)&a, &len));
    len = 5;
    memset(&a, 'z', sizeof a);
    SSHOW("getsockname into 5 bytes", getsockname(s, (struct sockaddr *)&a, &len));
    printf("length %u, byte 5 untouched %d\n", (unsigned)len, ((char *)&a)[5] == 'z');
    len = sizeof a;
    SSHOW("getsockname bad buffer", getsockname(s, (struct sockaddr *)bad, &len));
    len = 0;
    SSHOW("getsockname length 0", getsockname(s, (struct sockaddr *)bad, &len));
    printf("length %u\n", (unsigned)len);
    close(acc);
    close(unc);
    close(c);
    close(d);
    close(s);
    close(s2);
    unlink("/tmp/err.sock");
    unlink("/tmp/err2.sock");
    unlink("/tmp/err-dgram.sock");
    unlink("/tmp/err-node.sock");
}

static void options(void)
{
    printf("--- options\n");
    int s = socket(AF_UNIX, SOCK_STREAM, 0), v = 1;
    socklen_t len = sizeof v;
    SSHOW("setsockopt unknown", setsockopt(s, SOL_SOCKET, 999, &v, sizeof v));
    SSHOW("setsockopt SO_TYPE", setsockopt(s, SOL_SOCKET, SO_TYPE, &v, sizeof v));
    SSHOW("setsockopt short", setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &v, 2));
    SSHOW("setsockopt length -1", setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &v, (socklen_t)-1));
    SSHOW("setsockopt bad pointer", setsockopt(s, SOL_SOCKET, SO_REUSEADDR, bad, sizeof v));
    SSHOW("setsockopt level IPPROTO_TCP", setsockopt(s, 6, 1, &v, sizeof v));
    SSHOW("getsockopt level IPPROTO_TCP", getsockopt(s, 6, 1, &v, &len));
    SSHOW("getsockopt unknown", getsockopt(s, SOL_SOCKET, 999, &v, &len));
    SSHOW("getsockopt bad length pointer", getsockopt(s, SOL_SOCKET, SO_TYPE, &v,
                                                      (socklen_t *)bad));
    len = (socklen_t)-1;
    SSHOW("getsockopt negative length", getsockopt(s, SOL_SOCKET, SO_TYPE, &v, &len));
    len = sizeof v;
    SSHOW("getsockopt bad buffer", getsockopt(s, SOL_SOCKET, SO_TYPE, bad, &len));
    len = 0;
    SSHOW("getsockopt length 0", getsockopt(s, SOL_SOCKET, SO_TYPE, bad, &len));
    printf("length %u\n", (unsigned)len);
    struct timeval tv = { 0, 1000000 };
    SSHOW("SO_RCVTIMEO usec 1000000", setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv));
    tv.tv_usec = -1;
    SSHOW("SO_RCVTIMEO usec -1", setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv));
    tv = (struct timeval){ 1, 500000 };
    SSHOW("SO_RCVTIMEO short", setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, 8));
    SSHOW("SO_SNDTIMEO 1.5 s", setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv));
    tv = (struct timeval){ 0, 0 };
    len = sizeof tv;
    getsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, &len);
    printf("SO_SNDTIMEO reads %ld.%06ld len %u\n", (long)tv.tv_sec, (long)tv.tv_usec,
           (unsigned)len);
    tv = (struct timeval){ 0, 10000 };
    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    getsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, &len);
    printf("SO_RCVTIMEO 10 ms reads %ld.%06ld\n", (long)tv.tv_sec, (long)tv.tv_usec);
    getsockopt(s, SOL_SOCKET, SO_ERROR, &v, &len);
    printf("SO_ERROR %d\n", v);
    struct linger l = { 1, 5 };
    SSHOW("SO_LINGER", setsockopt(s, SOL_SOCKET, SO_LINGER, &l, sizeof l));
    l = (struct linger){ 0, 0 };
    len = sizeof l;
    getsockopt(s, SOL_SOCKET, SO_LINGER, &l, &len);
    printf("SO_LINGER reads %d %d len %u\n", l.l_onoff, l.l_linger, (unsigned)len);
    SSHOW("SO_LINGER short", setsockopt(s, SOL_SOCKET, SO_LINGER, &l, 4));
    v = 1;
    SSHOW("SO_KEEPALIVE", setsockopt(s, SOL_SOCKET, SO_KEEPALIVE, &v, sizeof v));
    v = 0;
    len = sizeof v;
    getsockopt(s, SOL_SOCKET, SO_KEEPALIVE, &v, &len);
    printf("SO_KEEPALIVE reads %d\n", v);
    v = 10;
    setsockopt(s, SOL_SOCKET, SO_RCVLOWAT, &v, sizeof v);
    getsockopt(s, SOL_SOCKET, SO_RCVLOWAT, &v, &len);
    printf("SO_RCVLOWAT reads %d\n", v);
    close(s);
}

static void messages(void)
{
    printf("--- msghdrs\n");
    int sv[2];
    socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
    char buf[8];
    struct iovec iov = { buf, sizeof buf };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
    SSHOW("sendmsg bad msghdr", sendmsg(sv[0], (struct msghdr *)bad, 0));
    SSHOW("recvmsg bad msghdr", recvmsg(sv[1], (struct msghdr *)bad, 0));
    m.msg_iovlen = 1025;
    SSHOW("sendmsg 1025 iovecs", sendmsg(sv[0], &m, 0));
    m.msg_iovlen = 1;
    m.msg_iov = (struct iovec *)bad;
    SSHOW("sendmsg bad iovec array", sendmsg(sv[0], &m, 0));
    m.msg_iov = &iov;
    iov.iov_len = (size_t)-1;
    SSHOW("sendmsg negative iov_len", sendmsg(sv[0], &m, 0));
    iov = (struct iovec){ bad, 4 };
    SSHOW("sendmsg bad buffer", sendmsg(sv[0], &m, 0));
    iov = (struct iovec){ buf, 4 };
    m.msg_control = buf;
    m.msg_controllen = 1 << 20;
    SSHOW("sendmsg 1 MiB of control", sendmsg(sv[0], &m, 0));
    m.msg_controllen = 4;
    SSHOW("sendmsg 4 bytes of control", sendmsg(sv[0], &m, 0));
    recv(sv[1], buf, sizeof buf, MSG_DONTWAIT);
    char ctl[64];
    memset(ctl, 0, sizeof ctl);
    m.msg_control = ctl;
    m.msg_controllen = sizeof ctl;
    struct cmsghdr *c = (struct cmsghdr *)ctl;
    c->cmsg_len = 8;
    c->cmsg_level = SOL_SOCKET;
    SSHOW("a cmsg_len below the header", sendmsg(sv[0], &m, 0));
    c->cmsg_len = 100;
    SSHOW("a cmsg_len past the control data", sendmsg(sv[0], &m, 0));
    c->cmsg_len = CMSG_LEN(4);
    c->cmsg_type = 77;
    SSHOW("an unknown SOL_SOCKET type", sendmsg(sv[0], &m, 0));
    c->cmsg_level = 6;
    SSHOW("another level is skipped", sendmsg(sv[0], &m, 0));
    SSHOW("recv it", recv(sv[1], buf, sizeof buf, MSG_DONTWAIT));
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_CREDENTIALS;
    SSHOW("SCM_CREDENTIALS of the wrong size", sendmsg(sv[0], &m, 0));
    m.msg_control = bad;
    SSHOW("control at a bad pointer", sendmsg(sv[0], &m, 0));
    m.msg_control = NULL;
    m.msg_controllen = 0;
    SSHOW("send bad buffer", send(sv[0], bad, 4, 0));
    send(sv[0], "data", 4, 0);
    SSHOW("recv into a bad buffer", recv(sv[1], bad, 4, 0));
    SSHOW("the datagram is gone", recv(sv[1], buf, sizeof buf, MSG_DONTWAIT));
    SSHOW("sendto bad address", sendto(sv[0], "x", 1, 0, (struct sockaddr *)bad, 110));
    SSHOW("sendto address length 129", sendto(sv[0], "x", 1, 0, (struct sockaddr *)buf, 129));
    send(sv[0], "data", 4, 0);
    socklen_t len = sizeof(struct sockaddr_un);
    SSHOW("recvfrom bad address buffer", recvfrom(sv[1], buf, sizeof buf, 0,
                                                  (struct sockaddr *)bad, &len));
    close(sv[0]);
    close(sv[1]);

    int ss[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, ss);
    write(ss[0], "stream", 6);
    SSHOW("stream recv into a bad buffer", recv(ss[1], bad, 6, 0));
    SSHOW("the bytes are still there", recv(ss[1], buf, sizeof buf, MSG_DONTWAIT));
    SSHOW("stream send from a bad buffer", send(ss[0], bad, 6, 0));
    SSHOW("nothing arrived", recv(ss[1], buf, sizeof buf, MSG_DONTWAIT));
    SSHOW("recv MSG_OOB", recv(ss[1], buf, sizeof buf, MSG_OOB | MSG_DONTWAIT));
    close(ss[0]);
    close(ss[1]);
}

int main(void)
{
    corpus_init();
    bad = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    creation();
    fds();
    addresses();
    options();
    messages();
    return 0;
}
