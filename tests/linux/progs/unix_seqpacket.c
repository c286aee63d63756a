/* AF_UNIX seqpacket sockets (docs/linux/sockets.md): records with boundaries over a
 * connection (socketpair, and listen/accept on a path), MSG_TRUNC, a record larger than
 * the reader's buffer, the calls of an unconnected socket, a closed peer (EOF, EPIPE and
 * no SIGPIPE), shutdown, and poll's view of it. */
#include <signal.h>
#include "unixsock.h"

static void pending_sigpipe(const char *what)
{
    sigset_t set;
    sigpending(&set);
    printf("%s: SIGPIPE pending %d\n", what, sigismember(&set, SIGPIPE));
}

int main(void)
{
    corpus_init();
    char buf[64];
    int sv[2];
    SSHOW("socketpair", socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv));
    SSHOW("send a", send(sv[0], "first", 5, 0));
    SSHOW("send b", send(sv[0], "second!", 7, 0));
    SSHOW("send empty", send(sv[0], "", 0, 0));
    SSHOW("recv 64", recv(sv[1], buf, sizeof buf, 0));
    SSHOW("recv 3 of 7", recv(sv[1], buf, 3, 0));
    SSHOW("the rest is gone: recv the empty record", recv(sv[1], buf, sizeof buf, 0));
    send(sv[0], "truncated", 9, 0);
    struct iovec iov = { buf, 4 };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
    SSHOW("recvmsg 4", recvmsg(sv[1], &m, 0));
    printf("MSG_TRUNC %d MSG_EOR %d\n", !!(m.msg_flags & MSG_TRUNC), !!(m.msg_flags & MSG_EOR));
    send(sv[0], "whole", 5, 0);
    SSHOW("recv 2 MSG_TRUNC", recv(sv[1], buf, 2, MSG_TRUNC));
    struct sockaddr_un a;
    socklen_t alen = path_addr(&a, "/tmp/ignored");
    SSHOW("sendto with an address on a connected socket", sendto(sv[0], "x", 1, 0,
                                                                 (struct sockaddr *)&a, alen));
    SSHOW("recv it", recv(sv[1], buf, sizeof buf, 0));
    show_poll("poll of an empty end", sv[1], POLLIN | POLLOUT | POLLRDHUP);
    SSHOW("shutdown SHUT_WR", shutdown(sv[0], SHUT_WR));
    show_poll("poll of the peer", sv[1], POLLIN | POLLOUT | POLLRDHUP);
    SSHOW("recv at EOF", recv(sv[1], buf, sizeof buf, 0));
    SSHOW("recv at EOF, MSG_DONTWAIT", recv(sv[1], buf, sizeof buf, MSG_DONTWAIT));
    signal(SIGPIPE, SIG_IGN);
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGPIPE);
    sigprocmask(SIG_BLOCK, &block, NULL);
    signal(SIGPIPE, SIG_DFL);
    SSHOW("send after SHUT_WR", send(sv[0], "x", 1, 0));
    pending_sigpipe("after it");
    close(sv[0]);
    close(sv[1]);

    printf("--- the peer closes\n");
    socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv);
    send(sv[0], "left", 4, 0);
    close(sv[0]);
    show_poll("poll", sv[1], POLLIN | POLLOUT | POLLRDHUP);
    SSHOW("recv what was left", recv(sv[1], buf, sizeof buf, 0));
    SSHOW("recv at EOF", recv(sv[1], buf, sizeof buf, 0));
    SSHOW("send", send(sv[1], "x", 1, 0));
    pending_sigpipe("after it");
    close(sv[1]);

    printf("--- unread records when the peer closes\n");
    socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv);
    send(sv[1], "unread", 6, 0);
    close(sv[0]);
    show_poll("poll", sv[1], POLLIN | POLLOUT | POLLRDHUP);
    SSHOW("send", send(sv[1], "x", 1, 0));
    SSHOW("send again", send(sv[1], "x", 1, 0));
    SSHOW("recv", recv(sv[1], buf, sizeof buf, 0));
    close(sv[1]);

    printf("--- listen and accept\n");
    int s = socket(AF_UNIX, SOCK_SEQPACKET, 0);
    unlink("/tmp/seq.sock");
    alen = path_addr(&a, "/tmp/seq.sock");
    SSHOW("send unconnected", send(s, "x", 1, 0));
    SSHOW("recv unconnected", recv(s, buf, sizeof buf, MSG_DONTWAIT));
    show_poll("poll unconnected", s, POLLIN | POLLOUT);
    SSHOW("bind", bind(s, (struct sockaddr *)&a, alen));
    SSHOW("listen", listen(s, 1));
    show_poll("poll listening", s, POLLIN | POLLOUT);
    pid_t pid = fork();
    if (pid == 0) {
        int c = socket(AF_UNIX, SOCK_SEQPACKET, 0);
        if (connect(c, (struct sockaddr *)&a, alen) < 0)
            _exit(1);
        send(c, "rec1", 4, 0);
        send(c, "record2", 7, 0);
        long n = recv(c, buf, sizeof buf, 0);
        printf("client got %ld: %.*s\n", n, (int)(n > 0 ? n : 0), buf);
        _exit(0);
    }
    int c = accept(s, NULL, NULL);
    SSHOW("recv", recv(c, buf, sizeof buf, 0));
    SSHOW("recv", recv(c, buf, sizeof buf, 0));
    SSHOW("send", send(c, "answer", 6, 0));
    int st;
    waitpid(pid, &st, 0);
    show_status("client", st);
    SSHOW("recv after the client ended", recv(c, buf, sizeof buf, 0));
    close(c);
    int c2 = socket(AF_UNIX, SOCK_SEQPACKET, 0);
    int st_stream = socket(AF_UNIX, SOCK_STREAM, 0);
    SSHOW("a stream socket connects to it", connect(st_stream, (struct sockaddr *)&a, alen));
    SSHOW("a seqpacket connects", connect(c2, (struct sockaddr *)&a, alen));
    SSHOW("connect again", connect(c2, (struct sockaddr *)&a, alen));
    show_poll("the listener with one waiting", s, POLLIN | POLLOUT);
    close(s);
    show_poll("the connected one after the listener closed", c2, POLLIN | POLLOUT | POLLRDHUP);
    SSHOW("recv", recv(c2, buf, sizeof buf, 0));
    SSHOW("recv", recv(c2, buf, sizeof buf, 0));
    close(c2);
    close(st_stream);
    unlink("/tmp/seq.sock");
    return 0;
}
