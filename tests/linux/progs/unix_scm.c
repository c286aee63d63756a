/* Ancillary data on AF_UNIX sockets (docs/linux/sockets.md): SCM_RIGHTS (a pipe's end and
 * a socket passed, used after the sender closed its copies; several fds; MSG_CTRUNC when
 * the buffer is short; MSG_CMSG_CLOEXEC; peeking; a stream's fds with its first bytes;
 * bad fds and too many), SCM_CREDENTIALS (SO_PASSCRED, a sender's claimed credentials as
 * Linux checks them) and SO_PEERCRED (a pair, a connection, an unconnected socket). */
#include <fcntl.h>
#include <sys/syscall.h>
#include "unixsock.h"

static int send_fds(int s, const int *fds, int n, const char *data)
{
    char ctl[CMSG_SPACE(sizeof(int) * 256)];
    memset(ctl, 0, sizeof ctl);
    struct iovec iov = { (void *)data, strlen(data) };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
                        .msg_controllen = CMSG_SPACE(sizeof(int) * n) };
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * n);
    memcpy(CMSG_DATA(c), fds, sizeof(int) * n);
    return (int)syscall(SYS_sendmsg, s, &m, 0);    /* musl's sendmsg copies at most 1 KiB */
}

/* Receive with room for `room` fds; the fds into out (count returned), flags printed. */
static int recv_fds(const char *what, int s, int *out, int room, int flags)
{
    char data[64], ctl[CMSG_SPACE(sizeof(int) * 256) + 64];
    struct iovec iov = { data, sizeof data };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = room >= 0 ? ctl : NULL,
                        .msg_controllen = room >= 0 ? CMSG_SPACE(sizeof(int) * room) : 0 };
    if (room == 0)
        m.msg_controllen = sizeof(struct cmsghdr);
    long n = recvmsg(s, &m, flags);
    if (n < 0) {
        printf("%s: -1 %s\n", what, serrname(errno));
        return 0;
    }
    int count = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            int k = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            memcpy(out + count, CMSG_DATA(c), sizeof(int) * k);
            count += k;
        }
    }
    printf("%s: %ld bytes \"%.*s\", %d fds, MSG_CTRUNC %d, controllen %lu\n", what, n, (int)n,
           data, count, !!(m.msg_flags & MSG_CTRUNC), (unsigned long)m.msg_controllen);
    return count;
}

static void rights(void)
{
    int sv[2], p[2], sp[2], got[256];
    socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
    pipe(p);
    socketpair(AF_UNIX, SOCK_STREAM, 0, sp);
    int two[2] = { p[1], sp[0] };
    SSHOW("send a pipe's write end and a socket", send_fds(sv[0], two, 2, "fds"));
    close(p[1]);
    close(sp[0]);
    int n = recv_fds("recvmsg", sv[1], got, 4, 0);
    if (n == 2) {
        SSHOW("write into the passed pipe end", write(got[0], "via pipe", 8));
        close(got[0]);
        char buf[16];
        SSHOW("read it at the pipe's other end", read(p[0], buf, sizeof buf));
        SSHOW("read: the passed end was the last writer", read(p[0], buf, sizeof buf));
        SSHOW("send on the passed socket", send(got[1], "via sock", 8, 0));
        SSHOW("its peer gets it", recv(sp[1], buf, sizeof buf, 0));
        int flags = fcntl(got[1], F_GETFD);
        printf("FD_CLOEXEC of a received fd: %d\n", flags & FD_CLOEXEC);
        close(got[1]);
    }
    close(p[0]);
    close(sp[1]);

    int fds[8];
    for (int k = 0; k < 8; k++)
        fds[k] = open("/", O_RDONLY);
    send_fds(sv[0], fds, 8, "eight");
    n = recv_fds("room for 3 of 8", sv[1], got, 3, 0);
    for (int k = 0; k < n; k++)
        close(got[k]);
    send_fds(sv[0], fds, 2, "none");
    recv_fds("no control buffer", sv[1], got, -1, 0);
    send_fds(sv[0], fds, 2, "hdr");
    recv_fds("room for the header only", sv[1], got, 0, 0);
    send_fds(sv[0], fds, 1, "cloexec");
    n = recv_fds("MSG_CMSG_CLOEXEC", sv[1], got, 4, MSG_CMSG_CLOEXEC);
    if (n == 1) {
        printf("FD_CLOEXEC %d\n", fcntl(got[0], F_GETFD) & FD_CLOEXEC);
        close(got[0]);
    }
    send_fds(sv[0], fds, 1, "peek");
    n = recv_fds("MSG_PEEK", sv[1], got, 4, MSG_PEEK);
    if (n == 1)
        close(got[0]);
    n = recv_fds("then the real one", sv[1], got, 4, 0);
    if (n == 1)
        close(got[0]);
    int bad[2] = { fds[0], 999 };
    SSHOW("an fd that is not open", send_fds(sv[0], bad, 2, "bad"));
    bad[1] = -1;
    SSHOW("a negative fd", send_fds(sv[0], bad, 2, "bad"));
    int many[254];
    for (int k = 0; k < 254; k++)
        many[k] = fds[k % 8];
    SSHOW("254 fds", send_fds(sv[0], many, 254, "many"));
    SSHOW("253 fds", send_fds(sv[0], many, 253, "many"));
    n = recv_fds("recv 253", sv[1], got, 256, MSG_DONTWAIT);
    for (int k = 0; k < n; k++)
        close(got[k]);
    for (int k = 0; k < 8; k++)
        close(fds[k]);

    printf("--- a stream carries fds with its bytes\n");
    int ss[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, ss);
    int f = open("/", O_RDONLY);
    write(ss[0], "before", 6);
    send_fds(ss[0], &f, 1, "with");
    write(ss[0], "after", 5);
    n = recv_fds("first read", ss[1], got, 4, 0);
    n = recv_fds("second read", ss[1], got, 4, 0);
    if (n == 1)
        close(got[0]);
    n = recv_fds("third read", ss[1], got, 4, MSG_DONTWAIT);
    close(f);
    close(ss[0]);
    close(ss[1]);
    close(sv[0]);
    close(sv[1]);
}

static int send_creds(int s, pid_t pid, uid_t uid, gid_t gid)
{
    char ctl[CMSG_SPACE(sizeof(struct ucred))];
    memset(ctl, 0, sizeof ctl);
    struct iovec iov = { "c", 1 };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
                        .msg_controllen = sizeof ctl };
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_CREDENTIALS;
    c->cmsg_len = CMSG_LEN(sizeof(struct ucred));
    struct ucred cr = { pid, uid, gid };
    memcpy(CMSG_DATA(c), &cr, sizeof cr);
    return (int)sendmsg(s, &m, 0);
}

static void recv_creds(const char *what, int s, pid_t expect_pid)
{
    char data[8], ctl[256];
    struct iovec iov = { data, sizeof data };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
                        .msg_controllen = sizeof ctl };
    long n = recvmsg(s, &m, MSG_DONTWAIT);
    if (n < 0) {
        printf("%s: -1 %s\n", what, serrname(errno));
        return;
    }
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    if (!c) {
        printf("%s: %ld bytes, no control message\n", what, n);
        return;
    }
    struct ucred cr;
    memcpy(&cr, CMSG_DATA(c), sizeof cr);
    printf("%s: %ld bytes, type %d len %lu, pid as expected %d, uid %u gid %u\n", what, n,
           c->cmsg_type, (unsigned long)c->cmsg_len, cr.pid == expect_pid, cr.uid, cr.gid);
}

static void show_peercred(const char *what, int s, pid_t expect)
{
    struct ucred cr;
    socklen_t len = sizeof cr;
    if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0) {
        printf("%s: -1 %s\n", what, serrname(errno));
        return;
    }
    printf("%s: len %u pid as expected %d (pid 0: %d) uid %u gid %u\n", what, (unsigned)len,
           cr.pid == expect, cr.pid == 0, cr.uid, cr.gid);
}

static void creds(void)
{
    printf("--- credentials\n");
    int sv[2];
    socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
    send(sv[0], "x", 1, 0);
    recv_creds("without SO_PASSCRED", sv[1], getpid());
    int one = 1;
    SSHOW("SO_PASSCRED", setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &one, sizeof one));
    int v = 0;
    socklen_t len = sizeof v;
    getsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &v, &len);
    printf("SO_PASSCRED reads %d\n", v);
    send(sv[0], "x", 1, 0);
    recv_creds("with SO_PASSCRED", sv[1], getpid());
    pid_t pid = fork();
    if (pid == 0) {
        send(sv[0], "x", 1, 0);
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    recv_creds("from a child", sv[1], pid);
    SSHOW("claim my own credentials", send_creds(sv[0], getpid(), getuid(), getgid()));
    recv_creds("received", sv[1], getpid());
    SSHOW("claim my parent's pid (root may)", send_creds(sv[0], getppid(), 0, 0));
    recv_creds("received", sv[1], getppid());
    SSHOW("claim uid 12 gid 34 (root may)", send_creds(sv[0], getpid(), 12, 34));
    recv_creds("received", sv[1], getpid());
    SSHOW("claim a pid that does not exist", send_creds(sv[0], 999999, 0, 0));
    SSHOW("claim uid -1", send_creds(sv[0], getpid(), (uid_t)-1, 0));
    char small[CMSG_SPACE(sizeof(struct ucred)) - 4];
    char data[8];
    struct iovec iov = { data, sizeof data };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = small,
                        .msg_controllen = sizeof small };
    send(sv[0], "x", 1, 0);
    SSHOW("recvmsg with a short control buffer", recvmsg(sv[1], &m, 0));
    printf("MSG_CTRUNC %d controllen %lu\n", !!(m.msg_flags & MSG_CTRUNC),
           (unsigned long)m.msg_controllen);

    show_peercred("SO_PEERCRED of a pair", sv[0], getpid());
    close(sv[0]);
    close(sv[1]);

    int u = socket(AF_UNIX, SOCK_STREAM, 0);
    show_peercred("SO_PEERCRED unconnected", u, -1);
    struct sockaddr_un a;
    unlink("/tmp/scm.sock");
    socklen_t alen = path_addr(&a, "/tmp/scm.sock");
    bind(u, (struct sockaddr *)&a, alen);
    listen(u, 1);
    show_peercred("SO_PEERCRED of a listener", u, getpid());
    pid = fork();
    if (pid == 0) {
        int c = socket(AF_UNIX, SOCK_STREAM, 0);
        connect(c, (struct sockaddr *)&a, alen);
        show_peercred("the client's SO_PEERCRED (the listener's)", c, getppid());
        write(c, "k", 1);           /* after its line */
        char b;
        read(c, &b, 1);             /* until the server closes */
        _exit(0);
    }
    int c = accept(u, NULL, NULL);
    char b;
    read(c, &b, 1);
    show_peercred("the accepted socket's SO_PEERCRED", c, pid);
    struct ucred cr;
    len = 4;
    SSHOW("SO_PEERCRED into 4 bytes", getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cr, &len));
    printf("len %u\n", (unsigned)len);
    close(c);
    waitpid(pid, &st, 0);
    show_status("client", st);
    close(u);
    unlink("/tmp/scm.sock");
}

int main(void)
{
    corpus_init();
    rights();
    creds();
    return 0;
}
