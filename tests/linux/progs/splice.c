/* splice, tee, vmsplice and packet-mode pipes (pipe2 O_DIRECT): file <-> pipe with offsets by
 * pointer and by position, pipe -> pipe, socket <-> pipe, tee leaving its input, vmsplice
 * both ways, a blocking splice woken by a writer, and every error a program can reach. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include "corpus.h"

#ifndef O_NOTIFICATION_PIPE
#define O_NOTIFICATION_PIPE O_EXCL
#endif

static long spl(int in, loff_t *oin, int out, loff_t *oout, size_t n, unsigned flags)
{
    return syscall(SYS_splice, in, oin, out, oout, n, flags);
}

static long teep(int in, int out, size_t n, unsigned flags)
{
    return syscall(SYS_tee, in, out, n, flags);
}

static long vms(int fd, const struct iovec *iov, unsigned long n, unsigned flags)
{
    return syscall(SYS_vmsplice, fd, iov, n, flags);
}

/* Print what a pipe holds (without waiting), emptying it. */
static void drain(const char *what, int fd)
{
    char buf[256];
    int fl = fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, fl | O_NONBLOCK);
    ssize_t n = read(fd, buf, sizeof buf - 1);
    fcntl(fd, F_SETFL, fl);
    if (n < 0) {
        printf("%s: empty (%s)\n", what, errname(errno));
        return;
    }
    buf[n] = 0;
    printf("%s: %zd [%s]\n", what, n, buf);
}

static void show_file(const char *what, int fd)
{
    char buf[64] = { 0 };
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    printf("%s: %zd [%s] pos %ld\n", what, n, n > 0 ? buf : "", (long)lseek(fd, 0, SEEK_CUR));
}

static void files_and_pipes(void)
{
    int f = open("s_in", O_CREAT | O_RDWR | O_TRUNC, 0644);
    write(f, "0123456789abcdefghij", 20);
    int p[2], q[2];
    pipe(p);
    pipe(q);

    loff_t off = 5;
    SHOW("file->pipe at an offset", spl(f, &off, p[1], NULL, 6, 0));
    printf("offset now %ld, position %ld\n", (long)off, (long)lseek(f, 0, SEEK_CUR));
    drain("pipe", p[0]);
    lseek(f, 14, SEEK_SET);
    SHOW("file->pipe by position, cut at the end", spl(f, NULL, p[1], NULL, 100, SPLICE_F_MORE));
    printf("position %ld\n", (long)lseek(f, 0, SEEK_CUR));
    SHOW("file->pipe at the end", spl(f, NULL, p[1], NULL, 100, 0));
    drain("pipe", p[0]);

    int g = open("s_out", O_CREAT | O_RDWR | O_TRUNC, 0644);
    write(p[1], "ABCDEFGH", 8);
    off = 3;
    SHOW("pipe->file at an offset", spl(p[0], NULL, g, &off, 5, SPLICE_F_MOVE));
    printf("offset now %ld\n", (long)off);
    show_file("out", g);
    SHOW("pipe->file by position", spl(p[0], NULL, g, NULL, 100, 0));
    show_file("out", g);

    write(p[1], "pipe to pipe", 12);
    SHOW("pipe->pipe", spl(p[0], NULL, q[1], NULL, 4, 0));
    drain("source", p[0]);
    drain("target", q[0]);

    write(p[1], "tee data", 8);
    SHOW("tee", teep(p[0], q[1], 100, 0));
    drain("tee source keeps", p[0]);
    drain("tee target", q[0]);
    SHOW("tee of an empty pipe, nonblocking", teep(p[0], q[1], 10, SPLICE_F_NONBLOCK));
    SHOW("splice of an empty pipe, nonblocking", spl(p[0], NULL, g, NULL, 10, SPLICE_F_NONBLOCK));
    fcntl(p[0], F_SETFL, O_NONBLOCK);
    SHOW("splice of an empty O_NONBLOCK pipe", spl(p[0], NULL, q[1], NULL, 10, 0));
    fcntl(p[0], F_SETFL, 0);

    /* errors */
    SHOW("length 0", spl(-1, NULL, -1, NULL, 0, 0));
    SHOW("bad flags", spl(p[0], NULL, q[1], NULL, 1, 0x10));
    SHOW("bad fd in", spl(99, NULL, q[1], NULL, 1, 0));
    SHOW("bad fd out", spl(p[0], NULL, 99, NULL, 1, 0));
    SHOW("file->file", spl(f, NULL, g, NULL, 1, 0));
    off = 0;
    SHOW("offset on the pipe in", spl(p[0], &off, g, NULL, 1, 0));
    SHOW("offset on the pipe out", spl(f, NULL, p[1], &off, 1, 0));
    SHOW("a pipe to itself", spl(p[0], NULL, p[1], NULL, 1, 0));
    SHOW("from the write end", spl(p[1], NULL, q[1], NULL, 1, 0));
    int wo = open("s_in", O_WRONLY);
    SHOW("from a write-only file", spl(wo, NULL, p[1], NULL, 1, 0));
    SHOW("to a read-only pipe end", spl(f, NULL, p[0], NULL, 1, 0));
    int ap = open("s_out", O_WRONLY | O_APPEND);
    write(p[1], "x", 1);
    SHOW("to an O_APPEND file", spl(p[0], NULL, ap, NULL, 1, 0));
    SHOW("bad offset pointer", spl(f, (loff_t *)8, p[1], NULL, 1, 0));
    off = -1;
    SHOW("negative offset", spl(f, &off, p[1], NULL, 1, 0));
    SHOW("from a directory", spl(open(".", O_RDONLY | O_DIRECTORY), NULL, p[1], NULL, 1, 0));
    SHOW("tee bad flags", teep(p[0], q[1], 1, 0x40));
    SHOW("tee length 0", teep(-1, -1, 0, 0));
    SHOW("tee bad fd", teep(99, q[1], 1, 0));
    SHOW("tee from a file", teep(f, q[1], 1, 0));
    SHOW("tee to itself", teep(p[0], p[1], 1, 0));
    SHOW("tee from the write end", teep(p[1], q[1], 1, 0));
    drain("left", p[0]);

    /* a full pipe, a pipe without readers */
    char big[65536];
    memset(big, 'z', sizeof big);
    SHOW("fill", write(p[1], big, sizeof big));
    off = 0;
    SHOW("file->full pipe, nonblocking", spl(f, &off, p[1], NULL, 1, SPLICE_F_NONBLOCK));
    write(q[1], "q", 1);
    SHOW("pipe->full pipe, nonblocking", spl(q[0], NULL, p[1], NULL, 1, SPLICE_F_NONBLOCK));
    SHOW("tee->full pipe, nonblocking", teep(q[0], p[1], 1, SPLICE_F_NONBLOCK));
    close(p[0]);
    off = 0;
    SHOW("file->pipe without readers", spl(f, &off, p[1], NULL, 1, 0));
    SHOW("pipe->pipe without readers", spl(q[0], NULL, p[1], NULL, 1, 0));
    close(p[1]);
    close(q[1]);
    drain("q", q[0]);
    SHOW("splice from a pipe without writers", spl(q[0], NULL, g, NULL, 10, 0));
    int r2[2];
    pipe(r2);
    SHOW("tee from a pipe without writers", teep(q[0], r2[1], 10, 0));
    close(r2[0]), close(r2[1]);
    close(q[0]);
    close(f), close(g), close(wo), close(ap);
}

static void sockets(void)
{
    int sv[2], p[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    pipe(p);
    write(sv[0], "over the socket", 15);
    SHOW("socket->pipe", spl(sv[1], NULL, p[1], NULL, 100, 0));
    drain("pipe", p[0]);
    SHOW("empty socket->pipe, nonblocking", spl(sv[1], NULL, p[1], NULL, 100, SPLICE_F_NONBLOCK));
    write(p[1], "back through", 12);
    SHOW("pipe->socket", spl(p[0], NULL, sv[0], NULL, 100, 0));
    char buf[32] = { 0 };
    SHOW("socket read", read(sv[1], buf, sizeof buf));
    printf("got [%s]\n", buf);
    loff_t off = 0;
    write(p[1], "x", 1);
    SHOW("pipe->socket with an offset", spl(p[0], NULL, sv[0], &off, 1, 0));
    SHOW("socket->pipe with an offset", spl(sv[1], &off, p[1], NULL, 1, 0));
    close(sv[0]), close(sv[1]), close(p[0]), close(p[1]);
}

static void blocking(void)
{
    int p[2], q[2];
    pipe(p);
    pipe(q);
    pid_t c = fork();
    if (c == 0) {
        write(p[1], "late", 4);     /* before or after the parent waits: the same answer */
        _exit(0);
    }
    SHOW("blocking pipe->pipe", spl(p[0], NULL, q[1], NULL, 100, 0));
    drain("got", q[0]);
    int st;
    waitpid(c, &st, 0);
    c = fork();
    if (c == 0) {
        static char b[4096];
        read(q[0], b, sizeof b);    /* frees a slot for the parent's waiting splice */
        _exit(0);
    }
    char big[65536];
    memset(big, 'y', sizeof big);
    write(q[1], big, sizeof big);
    write(p[1], "wxyz", 4);
    SHOW("blocking splice into a full pipe", spl(p[0], NULL, q[1], NULL, 4, 0));
    waitpid(c, &st, 0);
    close(p[0]), close(p[1]), close(q[0]), close(q[1]);
}

static void vmsplice_calls(void)
{
    int p[2];
    pipe(p);
    char a[] = "vm", b[] = "splice";
    struct iovec iov[2] = { { a, 2 }, { b, 6 } };
    SHOW("vmsplice to the pipe", vms(p[1], iov, 2, SPLICE_F_GIFT));
    char x[3] = { 0 }, y[8] = { 0 };
    struct iovec out[2] = { { x, 3 }, { y, 7 } };
    SHOW("vmsplice from the pipe", vms(p[0], out, 2, 0));
    printf("got [%s] [%s]\n", x, y);
    SHOW("vmsplice from an empty pipe, nonblocking", vms(p[0], out, 2, SPLICE_F_NONBLOCK));
    SHOW("vmsplice bad flags", vms(p[1], iov, 2, 0x20));
    SHOW("vmsplice bad fd", vms(99, iov, 2, 0));
    SHOW("vmsplice of no bytes", vms(p[1], iov, 0, 0));
    SHOW("vmsplice too many iovecs", vms(p[1], iov, 2000, 0));
    SHOW("vmsplice bad iovec array", vms(p[1], (struct iovec *)8, 2, 0));
    struct iovec bad = { (void *)8, 10 };
    SHOW("vmsplice from bad memory", vms(p[1], &bad, 1, 0));
    write(p[1], "abc", 3);
    SHOW("vmsplice to bad memory", vms(p[0], &bad, 1, 0));
    drain("left", p[0]);
    int f = open("s_in", O_RDWR);
    SHOW("vmsplice to a file", vms(f, iov, 2, 0));
    int path = open("s_in", O_PATH);
    SHOW("vmsplice to an O_PATH fd", vms(path, iov, 2, 0));
    char big[65536];
    memset(big, 'v', sizeof big);
    write(p[1], big, sizeof big);
    SHOW("vmsplice to a full pipe, nonblocking", vms(p[1], iov, 2, SPLICE_F_NONBLOCK));
    close(p[0]);
    SHOW("vmsplice without readers", vms(p[1], iov, 2, 0));
    close(p[1]), close(f), close(path);
}

static void packets(void)
{
    int p[2];
    SHOW("pipe2 O_DIRECT", pipe2(p, O_DIRECT | O_NONBLOCK));
    printf("flags: read end O_DIRECT %d, write end O_DIRECT %d\n",
           !!(fcntl(p[0], F_GETFL) & O_DIRECT), !!(fcntl(p[1], F_GETFL) & O_DIRECT));
    write(p[1], "aaa", 3);
    write(p[1], "bbbbbb", 6);
    write(p[1], "c", 1);
    int n = 0;
    ioctl(p[0], FIONREAD, &n);
    printf("FIONREAD %d\n", n);
    char buf[8192];
    for (int k = 0; k < 4; k++) {
        size_t want = k == 1 ? 2 : 100;
        memset(buf, 0, 16);
        ssize_t r = read(p[0], buf, want);
        printf("read %zu: %zd [%s]%s\n", want, r, r > 0 ? buf : "", r < 0 ? errname(errno) : "");
    }
    memset(buf, 'p', sizeof buf);
    SHOW("write 5000", write(p[1], buf, 5000));
    SHOW("read", read(p[0], buf, sizeof buf));
    SHOW("read", read(p[0], buf, sizeof buf));
    int k = 0;
    while (write(p[1], "1", 1) == 1)
        k++;
    printf("one-byte packets a pipe holds: %d (%s)\n", k, errname(errno));
    ioctl(p[0], FIONREAD, &n);
    printf("FIONREAD %d\n", n);
    SHOW("read one", read(p[0], buf, sizeof buf));
    SHOW("write 4096 into one free slot", write(p[1], buf, 4096));
    SHOW("F_SETPIPE_SZ below the packets held", fcntl(p[1], F_SETPIPE_SZ, 4096));
    SHOW("F_SETPIPE_SZ up", fcntl(p[1], F_SETPIPE_SZ, 131072));
    SHOW("read after resize", read(p[0], buf, sizeof buf));
    close(p[0]), close(p[1]);

    SHOW("pipe2 bad flags", pipe2(p, O_APPEND));
    long r = SHOW("pipe2 O_NOTIFICATION_PIPE", pipe2(p, O_NOTIFICATION_PIPE | O_NONBLOCK));
    if (r == 0) {
        SHOW("notification pipe write", write(p[1], "x", 1));
        SHOW("notification pipe read", read(p[0], buf, 10));
        int q[2];
        pipe(q);
        write(q[1], "x", 1);
        SHOW("splice into a notification pipe", spl(q[0], NULL, p[1], NULL, 1, 0));
        close(p[0]), close(p[1]), close(q[0]), close(q[1]);
    }
}

int main(void)
{
    corpus_init();
    signal(SIGPIPE, SIG_IGN);
    files_and_pipes();
    sockets();
    blocking();
    vmsplice_calls();
    packets();
    unlink("s_in");
    unlink("s_out");
    return 0;
}
