/* No fixed tables where Linux has none: 40 mounts at once (stacked and side by side), one
 * epoll instance watching 1,000 fds, and 500 pipes open at once, each still working. */
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include "corpus.h"

int main(void)
{
    corpus_init();
    struct rlimit rl = { 4096, 4096 };
    setrlimit(RLIMIT_NOFILE, &rl);

    /* 20 tmpfs mounts side by side, 20 stacked on one directory. */
    char name[64];
    int mounted = 0;
    for (int i = 0; i < 20; i++) {
        snprintf(name, sizeof name, "m%d", i);
        mkdir(name, 0755);
        mounted += mount("t", name, "tmpfs", 0, "size=16k") == 0;
    }
    mkdir("s", 0755);
    for (int i = 0; i < 20; i++)
        mounted += mount("t", "s", "tmpfs", 0, "size=16k") == 0;
    printf("mounted %d\n", mounted);
    int fd = open("m19/file", O_CREAT | O_WRONLY, 0644);
    SHOW("write in the last side mount", write(fd, "x", 1));
    close(fd);
    fd = open("s/top", O_CREAT | O_WRONLY, 0644);
    SHOW("write in the top of the stack", write(fd, "y", 1));
    close(fd);
    int unmounted = 0;
    for (int i = 0; i < 20; i++) {
        snprintf(name, sizeof name, "m%d", i);
        unmounted += umount(name) == 0;
        unmounted += umount("s") == 0;
    }
    printf("unmounted %d\n", unmounted);
    SHOW("umount once more", umount("s"));

    /* 500 pipes; one epoll instance watching the 1,000 ends. */
    static int p[500][2];
    int made = 0;
    for (int i = 0; i < 500; i++)
        made += pipe(p[i]) == 0;
    printf("pipes %d\n", made);
    int ep = epoll_create1(0);
    int added = 0;
    for (int i = 0; i < 500; i++) {
        struct epoll_event ev = { .events = EPOLLIN, .data.u32 = i };
        added += epoll_ctl(ep, EPOLL_CTL_ADD, p[i][0], &ev) == 0;
        ev.events = EPOLLOUT;
        ev.data.u32 = 1000 + i;
        added += epoll_ctl(ep, EPOLL_CTL_ADD, p[i][1], &ev) == 0;
    }
    printf("watched %d\n", added);
    static struct epoll_event out[2000];
    SHOW("epoll_wait: every write end", epoll_wait(ep, out, 2000, 0));
    for (int i = 0; i < 500; i += 7)
        write(p[i][1], "z", 1);
    int n = epoll_wait(ep, out, 2000, 0), readable = 0;
    for (int k = 0; k < n; k++)
        readable += out[k].data.u32 < 1000;
    printf("epoll_wait: %d ready, %d of them readable\n", n, readable);
    long sum = 0;
    for (int i = 0; i < 500; i += 7) {
        char c;
        sum += read(p[i][0], &c, 1);
    }
    printf("read back %ld\n", sum);
    return 0;
}
