/* AF_UNIX stream sockets (docs/linux/sockets.md): socketpair, a server on a path, an
 * abstract name and an autobind name, accept and the names each end sees, byte streams
 * through read/write/send/recv/readv/writev, MSG_PEEK, MSG_WAITALL, MSG_DONTWAIT,
 * FIONREAD/SIOCOUTQ, fstat and /proc's fd link, the buffer options, shutdown, the end of a
 * peer (EOF, EPIPE and SIGPIPE, ECONNRESET for unread data) and a 1 MiB transfer.
 * Processes are ordered by the sockets themselves and by wait, never by time. */
#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include "unixsock.h"

static void pair_basics(void)
{
    int sv[2];
    if (SSHOW("socketpair", socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) < 0)
        return;
    struct stat st;
    if (fstat(sv[0], &st) == 0)
        printf("fstat: S_ISSOCK %d mode %o size %ld\n", S_ISSOCK(st.st_mode),
               (unsigned)(st.st_mode & 07777), (long)st.st_size);
    char link[64], path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", sv[0]);
    long n = readlink(path, link, sizeof link - 1);
    if (n > 0) {
        link[n] = 0;
        char want[64];
        snprintf(want, sizeof want, "socket:[%lu]", (unsigned long)st.st_ino);
        printf("fd link is socket:[st_ino]: %d\n", !strcmp(link, want));
    }
    SSHOW("write", write(sv[0], "hello", 5));
    SSHOW("send", send(sv[0], " world", 6, 0));
    int avail = -1;
    SSHOW("FIONREAD", ioctl(sv[1], FIONREAD, &avail));
    printf("readable: %d\n", avail);
    int outq = -1;
    SSHOW("SIOCOUTQ", ioctl(sv[0], SIOCOUTQ, &outq));
    printf("unread bytes counted against the sender: %d\n", outq > 0);
    char buf[64] = { 0 };
    SSHOW("recv MSG_PEEK", recv(sv[1], buf, 3, MSG_PEEK));
    printf("peeked: %.3s\n", buf);
    SSHOW("read 4", read(sv[1], buf, 4));
    printf("got: %.4s\n", buf);
    struct iovec iov[2] = { { buf, 3 }, { buf + 10, 20 } };
    SSHOW("readv", readv(sv[1], iov, 2));
    printf("got: %.3s|%.4s\n", buf, buf + 10);
    SSHOW("recv empty MSG_DONTWAIT", recv(sv[1], buf, sizeof buf, MSG_DONTWAIT));
    avail = -1;
    ioctl(sv[1], FIONREAD, &avail);
    printf("readable: %d\n", avail);
    struct iovec wv[3] = { { "ab", 2 }, { "", 0 }, { "cde", 3 } };
    SSHOW("writev", writev(sv[1], wv, 3));
    SSHOW("recv", recv(sv[0], buf, sizeof buf, 0));
    printf("got: %.5s\n", buf);
    SSHOW("send 0 bytes", send(sv[0], buf, 0, 0));
    SSHOW("lseek", lseek(sv[0], 0, SEEK_SET));
    SSHOW("pread", pread(sv[0], buf, 1, 0));

    int v;
    socklen_t len = sizeof v;
    getsockopt(sv[0], SOL_SOCKET, SO_TYPE, &v, &len);
    printf("SO_TYPE %d len %u\n", v, (unsigned)len);
    getsockopt(sv[0], SOL_SOCKET, SO_DOMAIN, &v, &len);
    printf("SO_DOMAIN %d\n", v);
    getsockopt(sv[0], SOL_SOCKET, SO_PROTOCOL, &v, &len);
    printf("SO_PROTOCOL %d\n", v);
    getsockopt(sv[0], SOL_SOCKET, SO_ACCEPTCONN, &v, &len);
    printf("SO_ACCEPTCONN %d\n", v);
    getsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &v, &len);
    printf("SO_SNDBUF default %d\n", v);
    getsockopt(sv[0], SOL_SOCKET, SO_RCVBUF, &v, &len);
    printf("SO_RCVBUF default %d\n", v);
    static const int sizes[] = { 0, 1, 1000, 100000, 1 << 30, -1 };
    for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        v = sizes[k];
        setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &v, sizeof v);
        setsockopt(sv[0], SOL_SOCKET, SO_RCVBUF, &v, sizeof v);
        int s1, r1;
        len = sizeof s1;
        getsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &s1, &len);
        getsockopt(sv[0], SOL_SOCKET, SO_RCVBUF, &r1, &len);
        printf("set %d: SO_SNDBUF %d SO_RCVBUF %d\n", sizes[k], s1, r1);
    }
    v = 1;
    SSHOW("SO_REUSEADDR", setsockopt(sv[0], SOL_SOCKET, SO_REUSEADDR, &v, sizeof v));
    v = 0;
    getsockopt(sv[0], SOL_SOCKET, SO_REUSEADDR, &v, &len);
    printf("SO_REUSEADDR reads %d\n", v);
    char small[2];
    len = sizeof small;
    SSHOW("getsockopt into 2 bytes", getsockopt(sv[0], SOL_SOCKET, SO_TYPE, small, &len));
    printf("len now %u\n", (unsigned)len);
    close(sv[0]);
    close(sv[1]);
}

/* A client that connects to addr, says its line and waits for the server's answer. */
static void client(const struct sockaddr *addr, socklen_t alen, const char *line)
{
    int c = socket(AF_UNIX, SOCK_STREAM, 0);
    if (connect(c, addr, alen) < 0) {
        printf("client connect: %s\n", serrname(errno));
        _exit(1);
    }
    struct sockaddr_un peer;
    socklen_t plen = sizeof peer;
    getpeername(c, (struct sockaddr *)&peer, &plen);
    show_addr("client getpeername", &peer, plen);
    plen = sizeof peer;
    getsockname(c, (struct sockaddr *)&peer, &plen);
    show_addr("client getsockname", &peer, plen);
    write(c, line, strlen(line));
    char buf[64];
    long n = read(c, buf, sizeof buf);
    printf("client got: %.*s\n", (int)(n > 0 ? n : 0), buf);
    n = read(c, buf, sizeof buf);
    printf("client read after the server closed: %ld\n", n);
    _exit(0);
}

static void server(const char *what, struct sockaddr_un *addr, socklen_t alen)
{
    printf("--- %s\n", what);
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    if (SSHOW("bind", bind(s, (struct sockaddr *)addr, alen)) < 0)
        return;
    struct sockaddr_un got;
    socklen_t glen = sizeof got;
    getsockname(s, (struct sockaddr *)&got, &glen);
    show_addr("server getsockname", &got, glen);
    SSHOW("listen", listen(s, 5));
    int v;
    socklen_t len = sizeof v;
    getsockopt(s, SOL_SOCKET, SO_ACCEPTCONN, &v, &len);
    printf("SO_ACCEPTCONN %d\n", v);
    pid_t pid = fork();
    if (pid == 0)
        client((struct sockaddr *)&got, glen, "hi from the client");
    struct sockaddr_un peer;
    socklen_t plen = sizeof peer;
    int c = accept(s, (struct sockaddr *)&peer, &plen);
    if (c < 0) {
        printf("accept: %s\n", serrname(errno));
        return;
    }
    char buf[64];
    long n = read(c, buf, sizeof buf);  /* the client wrote after its lines */
    show_addr("accept's peer", &peer, plen);
    plen = sizeof peer;
    getsockname(c, (struct sockaddr *)&peer, &plen);
    show_addr("accepted getsockname", &peer, plen);
    printf("server got: %.*s\n", (int)(n > 0 ? n : 0), buf);
    write(c, "hello client", 12);
    close(c);
    int st;
    waitpid(pid, &st, 0);
    show_status("client", st);
    close(s);
}

static void names(void)
{
    struct sockaddr_un a;
    unlink("/tmp/unix_stream.sock");
    server("a path", &a, path_addr(&a, "/tmp/unix_stream.sock"));
    struct stat st;
    if (stat("/tmp/unix_stream.sock", &st) == 0)
        printf("the socket file: S_ISSOCK %d mode %o\n", S_ISSOCK(st.st_mode),
               (unsigned)(st.st_mode & 07777));
    unlink("/tmp/unix_stream.sock");
    server("a path, its length exact", &a, (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
                                                      strlen("/tmp/unix_stream.sock")));
    unlink("/tmp/unix_stream.sock");
    umask(077);
    server("a path under umask 077", &a, path_addr(&a, "/tmp/unix_stream.sock"));
    if (stat("/tmp/unix_stream.sock", &st) == 0)
        printf("the socket file's mode %o\n", (unsigned)(st.st_mode & 07777));
    umask(022);
    unlink("/tmp/unix_stream.sock");
    chdir("/tmp");
    server("a relative path", &a, path_addr(&a, "rel.sock"));
    unlink("rel.sock");
    chdir("/");
    server("an abstract name", &a, abstract_addr(&a, "lx-stream-test"));
    a.sun_family = AF_UNIX;
    server("autobind", &a, offsetof(struct sockaddr_un, sun_path));
}

static void ends(void)
{
    int sv[2];
    char buf[64];
    printf("--- shutdown\n");
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    write(sv[0], "last", 4);
    SSHOW("shutdown SHUT_WR", shutdown(sv[0], SHUT_WR));
    SSHOW("read the data", read(sv[1], buf, sizeof buf));
    SSHOW("read at EOF", read(sv[1], buf, sizeof buf));
    signal(SIGPIPE, SIG_IGN);
    SSHOW("write after SHUT_WR", write(sv[0], "x", 1));
    SSHOW("peer writes back", write(sv[1], "back", 4));
    SSHOW("read it", read(sv[0], buf, sizeof buf));
    SSHOW("shutdown SHUT_RD", shutdown(sv[0], SHUT_RD));
    SSHOW("read after SHUT_RD", read(sv[0], buf, sizeof buf));
    SSHOW("peer writes after SHUT_RD", write(sv[1], "y", 1));
    SSHOW("shutdown again", shutdown(sv[0], SHUT_RDWR));
    close(sv[0]);
    close(sv[1]);

    printf("--- the peer closes\n");
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    write(sv[0], "unread?", 7);
    close(sv[0]);
    SSHOW("read what was left", read(sv[1], buf, sizeof buf));
    SSHOW("read at EOF", read(sv[1], buf, sizeof buf));
    SSHOW("write with SIGPIPE ignored", write(sv[1], "x", 1));
    SSHOW("send MSG_NOSIGNAL", send(sv[1], "x", 1, MSG_NOSIGNAL));
    close(sv[1]);

    printf("--- the peer closes with unread data\n");
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    write(sv[1], "never read", 10);
    write(sv[0], "for you", 7);
    close(sv[0]);
    SSHOW("read the data first", read(sv[1], buf, sizeof buf));
    SSHOW("read: the reset", read(sv[1], buf, sizeof buf));
    SSHOW("read again", read(sv[1], buf, sizeof buf));
    int err = -1;
    socklen_t len = sizeof err;
    getsockopt(sv[1], SOL_SOCKET, SO_ERROR, &err, &len);
    printf("SO_ERROR %s\n", serrname(err));
    close(sv[1]);

    printf("--- SIGPIPE\n");
    signal(SIGPIPE, SIG_DFL);
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    close(sv[1]);
    pid_t pid = fork();
    if (pid == 0) {
        write(sv[0], "x", 1);
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    show_status("a writer to a closed peer", st);
    pid = fork();
    if (pid == 0) {
        printf("send MSG_NOSIGNAL: %ld %s\n", (long)send(sv[0], "x", 1, MSG_NOSIGNAL),
               serrname(errno));
        _exit(0);
    }
    waitpid(pid, &st, 0);
    show_status("with MSG_NOSIGNAL", st);
    close(sv[0]);
}

#define BIG (1 << 20)

static void bulk(void)
{
    printf("--- 1 MiB through a pair\n");
    int sv[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    pid_t pid = fork();
    if (pid == 0) {
        close(sv[0]);
        static char out[BIG];
        for (int i = 0; i < BIG; i++)
            out[i] = (char)(i % 253);
        long done = 0;
        while (done < BIG) {
            long n = write(sv[1], out + done, BIG - done);
            if (n <= 0)
                _exit(1);
            done += n;
        }
        _exit(0);
    }
    close(sv[1]);
    static char in[BIG];
    long total = 0;
    for (;;) {
        long n = read(sv[0], in + total, BIG - total < 7000 ? BIG - total : 7000);
        if (n <= 0)
            break;
        total += n;
    }
    int good = 1;
    for (long i = 0; i < total; i++)
        if (in[i] != (char)(i % 253))
            good = 0;
    printf("read %ld bytes, in order %d\n", total, good);
    int st;
    waitpid(pid, &st, 0);
    show_status("writer", st);
    close(sv[0]);

    printf("--- MSG_WAITALL\n");
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    int go[2];
    pipe(go);
    pid = fork();
    if (pid == 0) {
        char c;
        write(sv[1], "abc", 3);
        read(go[0], &c, 1);         /* the parent has its first recv back */
        write(sv[1], "defgh", 5);
        _exit(0);
    }
    char buf[16] = { 0 };
    SSHOW("recv 8 without MSG_WAITALL", recv(sv[0], buf, 8, 0));
    write(go[1], "g", 1);
    SSHOW("recv 5 MSG_WAITALL", recv(sv[0], buf, 5, MSG_WAITALL));
    printf("got %.5s\n", buf);
    waitpid(pid, &st, 0);
    close(sv[1]);
    SSHOW("recv MSG_WAITALL at EOF", recv(sv[0], buf, 5, MSG_WAITALL));
    close(sv[0]);

    printf("--- a full buffer\n");
    socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv);
    static char chunk[4096];
    long sent = 0, n;
    while ((n = write(sv[0], chunk, sizeof chunk)) > 0)
        sent += n;
    printf("write until full: %s, sent more than 100 KiB: %d\n", serrname(errno),
           sent > 100 * 1024);
    show_poll("poll of the full writer", sv[0], POLLIN | POLLOUT);
    show_poll("poll of its reader", sv[1], POLLIN | POLLOUT);
    long got = 0;
    while ((n = read(sv[1], in, BIG)) > 0)
        got += n;
    printf("read it all back: %d (%s)\n", got == sent, serrname(errno));
    show_poll("poll of the writer again", sv[0], POLLIN | POLLOUT);
    close(sv[0]);
    close(sv[1]);
}

int main(void)
{
    corpus_init();
    pair_basics();
    names();
    ends();
    bulk();
    return 0;
}
