/* inotify (issue 14 item 2): every event type of a single process's operations (done first,
 * then read, so the queue is the same on every run), the watch flags (IN_ONESHOT,
 * IN_MASK_ADD, IN_MASK_CREATE, IN_ONLYDIR, IN_DONT_FOLLOW, IN_EXCL_UNLINK), rm_watch, the
 * record layout (names NUL-padded), merging of equal events, the queue limit with
 * IN_Q_OVERFLOW (a small max_queued_events written through /proc/sys, then restored), the
 * per-user limits, FIONREAD, poll and epoll, a blocking read woken by another process or
 * interrupted by a signal,
 * IN_UNMOUNT, and the errors of the calls. */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <dirent.h>
#include "pwait.h"

static void on_signal(int sig)
{
    (void)sig;
}

static void *volatile bad_address = (void *)8;
#define BAD bad_address

static const char *mask_names(uint32_t m)
{
    static const char *names[32] = {
        "ACCESS", "MODIFY", "ATTRIB", "CLOSE_WRITE", "CLOSE_NOWRITE", "OPEN", "MOVED_FROM",
        "MOVED_TO", "CREATE", "DELETE", "DELETE_SELF", "MOVE_SELF", NULL, "UNMOUNT",
        "Q_OVERFLOW", "IGNORED", [30] = "ISDIR",
    };
    static char buf[256];
    buf[0] = 0;
    for (int b = 0; b < 32; b++)
        if (m & (1u << b)) {
            if (buf[0])
                strcat(buf, "|");
            if (names[b])
                strcat(buf, names[b]);
            else
                snprintf(buf + strlen(buf), 16, "bit%d", b);
        }
    return buf;
}

static uint32_t last_move_cookie;

/* Every queued event, one line each; cookies of moves compared, not shown. */
static void drain(const char *what, int fd)
{
    char buf[4096] __attribute__((aligned(8)));
    printf("%s:\n", what);
    for (;;) {
        long n = read(fd, buf, sizeof buf);
        if (n < 0) {
            if (errno != EAGAIN)
                printf("  read: -1 %s\n", errname(errno));
            break;
        }
        for (long off = 0; off < n;) {
            struct inotify_event *e = (struct inotify_event *)(buf + off);
            printf("  wd %d %s", e->wd, mask_names(e->mask));
            if (e->len) {
                int padded = 1;
                size_t l = strlen(e->name);
                for (size_t k = l; k < e->len; k++)
                    padded &= e->name[k] == 0;
                printf(" name %s len %u%s", e->name, e->len, padded ? "" : " (not NUL-padded)");
            }
            if (e->mask & IN_MOVED_FROM)
                last_move_cookie = e->cookie;
            else if (e->mask & IN_MOVED_TO)
                printf(" same cookie: %s", e->cookie == last_move_cookie && e->cookie ? "yes" : "no");
            else if (e->cookie)
                printf(" cookie set");
            printf("\n");
            off += sizeof *e + e->len;
        }
    }
}

static void touch(const char *path)
{
    int fd = open(path, O_CREAT | O_WRONLY, 0644);
    if (fd >= 0)
        close(fd);
}

static int get_int(int fd)
{
    int n = -1;
    ioctl(fd, FIONREAD, &n);
    return n;
}

static void events(void)
{
    int in = inotify_init1(IN_NONBLOCK);
    mkdir("d", 0755);
    int wd = SHOW("watch d", inotify_add_watch(in, "d", IN_ALL_EVENTS));
    int fd = open("d/f", O_CREAT | O_WRONLY, 0644);
    write(fd, "abc", 3);
    write(fd, "def", 3);                /* merged with the first MODIFY */
    close(fd);
    SHOW("watch d/f", inotify_add_watch(in, "d/f", IN_ALL_EVENTS));
    char b[8];
    fd = open("d/f", O_RDONLY);
    read(fd, b, 2);
    close(fd);
    chmod("d/f", 0600);
    chown("d/f", getuid(), getgid());
    utimes("d/f", NULL);
    truncate("d/f", 1);
    setxattr("d/f", "trusted.t", "v", 1, 0);
    link("d/f", "d/g");
    mkdir("d/sub", 0755);
    DIR *dir = opendir("d/sub");
    while (readdir(dir))
        ;
    closedir(dir);
    symlink("f", "d/l");
    mknod("d/p", S_IFIFO | 0644, 0);
    SHOW("watch d/sub", inotify_add_watch(in, "d/sub", IN_ALL_EVENTS));
    rename("d/g", "d/sub/g2");
    unlink("d/sub/g2");
    unlink("d/f");
    rmdir("d/sub");
    unlink("d/l");
    unlink("d/p");
    chmod("d", 0755);
    printf("FIONREAD > 0: %s\n", get_int(in) > 0 ? "yes" : "no");
    drain("events", in);
    printf("FIONREAD empty: %d\n", get_int(in));
    SHOW("rm_watch d", inotify_rm_watch(in, wd));
    drain("after rm_watch", in);
    rmdir("d");
    close(in);
}

static void flags(void)
{
    int in = inotify_init1(IN_NONBLOCK);
    touch("f1");
    int fd = open("f1", O_WRONLY);
    SHOW("oneshot", inotify_add_watch(in, "f1", IN_MODIFY | IN_ONESHOT));
    write(fd, "a", 1);
    write(fd, "b", 1);
    close(fd);
    drain("oneshot", in);
    int w = SHOW("watch OPEN", inotify_add_watch(in, "f1", IN_OPEN));
    SHOW("MASK_ADD CLOSE", inotify_add_watch(in, "f1", IN_MASK_ADD | IN_CLOSE));
    close(open("f1", O_RDONLY));
    drain("open+close", in);
    SHOW("replace ACCESS", inotify_add_watch(in, "f1", IN_ACCESS));
    fd = open("f1", O_RDONLY);
    char c;
    read(fd, &c, 1);
    close(fd);
    drain("access only", in);
    SHOW("MASK_CREATE existing", inotify_add_watch(in, "f1", IN_OPEN | IN_MASK_CREATE));
    SHOW("MASK_ADD|MASK_CREATE", inotify_add_watch(in, "f1", IN_OPEN | IN_MASK_ADD | IN_MASK_CREATE));
    SHOW("ONLYDIR on a file", inotify_add_watch(in, "f1", IN_OPEN | IN_ONLYDIR));
    SHOW("ONLYDIR on a dir", inotify_add_watch(in, ".", IN_OPEN | IN_ONLYDIR) > 0);
    symlink("f1", "l1");
    int wl = inotify_add_watch(in, "l1", IN_ATTRIB | IN_DONT_FOLLOW);
    int wf = inotify_add_watch(in, "l1", IN_ATTRIB);
    printf("DONT_FOLLOW: own wd %s, followed same wd %s\n", wl != w ? "yes" : "no",
           wf == w ? "yes" : "no");
    unlink("l1");
    drain("symlink gone", in);
    inotify_rm_watch(in, w);
    drain("rm_watch", in);
    SHOW("rm_watch again", inotify_rm_watch(in, w));

    /* IN_EXCL_UNLINK: an unlinked, still open file's events skip that watch */
    int in2 = inotify_init1(IN_NONBLOCK);
    SHOW("excl", inotify_add_watch(in, "f1", IN_MODIFY | IN_DELETE_SELF | IN_EXCL_UNLINK));
    SHOW("plain", inotify_add_watch(in2, "f1", IN_MODIFY | IN_DELETE_SELF));
    fd = open("f1", O_WRONLY);
    unlink("f1");
    write(fd, "x", 1);
    drain("excl, open", in);
    drain("plain, open", in2);
    close(fd);
    drain("excl, closed", in);
    drain("plain, closed", in2);
    close(in2);
    close(in);
}

static void reads(void)
{
    int in = inotify_init1(IN_NONBLOCK);
    char buf[256] __attribute__((aligned(8)));
    SHOW("read empty", read(in, buf, sizeof buf));
    mkdir("r", 0755);
    inotify_add_watch(in, "r", IN_CREATE);
    touch("r/name");
    printf("FIONREAD one: %d\n", get_int(in));
    SHOW("read 16 bytes", read(in, buf, 16));
    SHOW("read 0 bytes", read(in, buf, 0));
    SHOW("read 32 bytes", read(in, buf, 32));
    touch("r/other");
    SHOW("read bad buffer", read(in, BAD, sizeof buf));
    printf("FIONREAD after: %d\n", get_int(in));
    touch("r/x");
    touch("r/y");
    SHOW("read 40 bytes (one of two)", read(in, buf, 40));
    drain("rest", in);

    struct pollfd p = { in, POLLIN, 0 };
    printf("poll empty: %d\n", poll(&p, 1, 0));
    int ep = epoll_create1(0);
    struct epoll_event ev = { .events = EPOLLIN }, out;
    epoll_ctl(ep, EPOLL_CTL_ADD, in, &ev);
    printf("epoll empty: %d\n", epoll_wait(ep, &out, 1, 0));
    touch("r/z");
    p.revents = 0;
    int n = poll(&p, 1, 0);
    printf("poll ready: %d revents %#x\n", n, p.revents);
    n = epoll_wait(ep, &out, 1, 0);
    printf("epoll ready: %d events %#x\n", n, n > 0 ? out.events : 0);
    drain("poll's event", in);
    close(ep);

    /* a blocking read that another process ends */
    int blk = inotify_init();
    inotify_add_watch(blk, "r", IN_DELETE);
    pipe(ready);
    (void)go;
    pid_t child = fork();
    if (child == 0) {
        about_to_block();
        long r = read(blk, buf, sizeof buf);
        struct inotify_event *e = (struct inotify_event *)buf;
        printf("blocking read: %ld, %s %s\n", r, r > 0 ? mask_names(e->mask) : errname(errno),
               r > 0 ? e->name : "");
        exit(0);
    }
    until_asleep(child);
    unlink("r/name");
    reap("reader", child);

    /* a blocking read that a signal ends: EINTR without SA_RESTART */
    child = fork();
    if (child == 0) {
        struct sigaction sa = { .sa_handler = on_signal };
        sigaction(SIGUSR1, &sa, NULL);
        about_to_block();
        long r = read(blk, buf, sizeof buf);
        printf("interrupted read: %ld %s\n", r, r < 0 ? errname(errno) : "");
        exit(0);
    }
    until_asleep(child);
    kill(child, SIGUSR1);
    reap("interrupted reader", child);
    close(blk);
    unlink("r/other");
    unlink("r/x");
    unlink("r/y");
    unlink("r/z");
    rmdir("r");
    close(in);
}

static int read_sysctl(const char *name, char *buf, size_t size)
{
    char path[128];
    snprintf(path, sizeof path, "/proc/sys/fs/inotify/%s", name);
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    long n = read(fd, buf, size - 1);
    close(fd);
    buf[n > 0 ? n : 0] = 0;
    return 0;
}

static void write_sysctl(const char *name, const char *v)
{
    char path[128];
    snprintf(path, sizeof path, "/proc/sys/fs/inotify/%s", name);
    int fd = open(path, O_WRONLY);
    if (fd < 0 || write(fd, v, strlen(v)) < 0)
        printf("write %s: %s\n", name, errname(errno));
    if (fd >= 0)
        close(fd);
}

static void limits(void)
{
    char q[32], inst[32], w[32];
    read_sysctl("max_queued_events", q, sizeof q);
    read_sysctl("max_user_instances", inst, sizeof inst);
    read_sysctl("max_user_watches", w, sizeof w);
    printf("max_queued_events %smax_user_instances %s", q, inst);
    long wv = atol(w);
    printf("max_user_watches in [8192, 1048576]: %s\n", wv >= 8192 && wv <= 1048576 ? "yes" : "no");

    write_sysctl("max_queued_events", "4");
    int in = inotify_init1(IN_NONBLOCK);
    write_sysctl("max_queued_events", q);
    mkdir("o", 0755);
    inotify_add_watch(in, "o", IN_CREATE | IN_DELETE);
    const char *names[] = { "o/a", "o/b", "o/c", "o/d", "o/e", "o/f" };
    for (int k = 0; k < 6; k++)
        touch(names[k]);
    printf("FIONREAD overflowed: %d\n", get_int(in));
    drain("overflow", in);
    unlink("o/a");
    drain("after the overflow", in);
    for (int k = 1; k < 6; k++)
        unlink(names[k]);
    rmdir("o");
    close(in);

    write_sysctl("max_user_instances", "0");
    SHOW("init past max_user_instances", inotify_init());
    write_sysctl("max_user_instances", inst);
    in = inotify_init();
    write_sysctl("max_user_watches", "0");
    SHOW("watch past max_user_watches", inotify_add_watch(in, ".", IN_OPEN));
    write_sysctl("max_user_watches", w);
    close(in);
}

static void unmount(void)
{
    int in = inotify_init1(IN_NONBLOCK);
    mkdir("m", 0755);
    if (mount("t", "m", "tmpfs", 0, "size=64k") < 0) {
        printf("mount: %s\n", errname(errno));
        return;
    }
    SHOW("watch mount root", inotify_add_watch(in, "m", IN_CREATE));
    touch("m/x");
    SHOW("umount", umount("m"));
    drain("unmount", in);
    rmdir("m");
    close(in);
}

static void noperm(void)
{
    int in = inotify_init();
    if (syscall(SYS_setresuid, 65534, 65534, 65534) < 0)
        printf("setresuid: %s\n", errname(errno));
    SHOW("watch unreadable", inotify_add_watch(in, "secret", IN_OPEN));
    SHOW("watch readable", inotify_add_watch(in, ".", IN_OPEN));
}

static void errors(void)
{
    SHOW("init1 bad flags", inotify_init1(1));
    int in = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    show_fd_mode_link(in, O_RDONLY, "rdonly");
    int pfd[2];
    long n = 0;                 /* the unknown ioctl's argument */
    pipe(pfd);
    SHOW("add mask 0", inotify_add_watch(in, ".", 0));
    SHOW("add unknown bit", inotify_add_watch(in, ".", IN_OPEN | 0x1000));
    SHOW("add flags only", inotify_add_watch(in, ".", IN_ONESHOT) > 0);
    SHOW("add bad fd", inotify_add_watch(99, ".", IN_OPEN));
    SHOW("add bad fd, mask 0", inotify_add_watch(99, ".", 0));
    SHOW("add pipe fd", inotify_add_watch(pfd[0], ".", IN_OPEN));
    SHOW("add bad path", inotify_add_watch(in, BAD, IN_OPEN));
    SHOW("add missing", inotify_add_watch(in, "missing", IN_OPEN));
    SHOW("add empty path", inotify_add_watch(in, "", IN_OPEN));
    SHOW("add missing dir", inotify_add_watch(in, "missing/x", IN_OPEN));
    SHOW("rm bad fd", inotify_rm_watch(99, 1));
    SHOW("rm pipe fd", inotify_rm_watch(pfd[0], 1));
    SHOW("rm unknown wd", inotify_rm_watch(in, 12345));
    SHOW("rm wd -1", inotify_rm_watch(in, -1));
    SHOW("ioctl unknown", ioctl(in, 0x5401, &n));
    SHOW("write", write(in, "x", 1));
    SHOW("lseek", lseek(in, 0, SEEK_SET));
    close(pfd[0]);
    close(pfd[1]);
    close(in);

    int fd = open("secret", O_CREAT | O_WRONLY, 0600);
    close(fd);
    run_child("no permission", noperm);
    unlink("secret");
}

int main(void)
{
    corpus_init();
    events();
    flags();
    reads();
    limits();
    unmount();
    errors();
    return 0;
}
