/* /proc/PID/fdinfo (issue 14 item 2; docs/linux/proc.md): the directory's listing, each
 * file's pos, flags (octal, O_CLOEXEC from the fd table, O_LARGEFILE from open), mnt_id and
 * ino, and the lines of each kind of file: eventfd's count, signalfd's mask, timerfd's clock,
 * ticks and interval, epoll's watched fds, inotify's watches, pidfd's pid.  Numbers that differ
 * between kernels by nature (inode numbers, mount ids, devices, times left, file handles) are
 * printed as relations. */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include "corpus.h"

/* fd's fdinfo of process pid (0: self), one line at a time, with the numbers that differ by
 * nature shown as words. */
static void show_fdinfo(const char *what, int pid, int fd)
{
    char path[64], text[4096];
    if (pid)
        snprintf(path, sizeof path, "/proc/%d/fdinfo/%d", pid, fd);
    else
        snprintf(path, sizeof path, "/proc/self/fdinfo/%d", fd);
    int f = open(path, O_RDONLY);
    if (f < 0) {
        printf("%s: open %s\n", what, errname(errno));
        return;
    }
    long n = read(f, text, sizeof text - 1);
    close(f);
    if (n < 0) {
        printf("%s: read %s\n", what, errname(errno));
        return;
    }
    text[n] = 0;
    struct stat st;
    fstat(fd, &st);
    printf("%s:\n", what);
    char tfds[8][128];
    int ntfd = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        unsigned long v;
        char *p;
        if (sscanf(line, "ino:\t%lu", &v) == 1)
            printf("  ino: %s\n", pid || v == st.st_ino ? "fstat's" : "other");
        else if (!strncmp(line, "mnt_id:\t", 8))
            printf("  mnt_id: present\n");
        else if (!strncmp(line, "it_value:", 9))
            printf("  it_value: present\n");
        else if (!strncmp(line, "eventfd-id:", 11))
            printf("  eventfd-id: present\n");
        else if ((p = strstr(line, "  pos:")) && ntfd < 8)  /* epoll: the target's pos, ino,
                                                               sdev; in the kernel's order */
            snprintf(tfds[ntfd++], sizeof tfds[0], "%.*s", (int)(p - line), line);
        else if ((p = strstr(line, " ino:")) && !strncmp(line, "inotify", 7)) {
            char *m = strstr(line, " mask:"), *e = m ? strstr(m, " ignored_mask:") : NULL;
            printf("  %.*s%.*s\n", (int)(p - line), line, e ? (int)(e - m) : 0, m ? m : "");
        } else
            printf("  %s\n", line);
    }
    for (int i = 0; i < ntfd; i++)
        for (int j = i + 1; j < ntfd; j++)
            if (strcmp(tfds[j], tfds[i]) < 0) {
                char x[128];
                strcpy(x, tfds[i]);
                strcpy(tfds[i], tfds[j]);
                strcpy(tfds[j], x);
            }
    for (int i = 0; i < ntfd; i++)
        printf("  %s\n", tfds[i]);
}

/* The names in fdinfo/ and in fd/, the same. */
static void listings(void)
{
    char a[512] = "", b[512] = "";
    const char *dirs[] = { "/proc/self/fd", "/proc/self/fdinfo" };
    char *outs[] = { a, b };
    for (int k = 0; k < 2; k++) {
        DIR *d = opendir(dirs[k]);
        if (!d) {
            printf("opendir %s: %s\n", dirs[k], errname(errno));
            continue;
        }
        int fds[64], nfd = 0, self = dirfd(d);
        struct dirent *e;
        while ((e = readdir(d)) && nfd < 64)
            if (e->d_name[0] != '.' && atoi(e->d_name) != self)
                fds[nfd++] = atoi(e->d_name);
        closedir(d);
        for (int i = 0; i < nfd; i++)       /* sorted: the order is the kernel's */
            for (int j = i + 1; j < nfd; j++)
                if (fds[j] < fds[i]) {
                    int x = fds[i];
                    fds[i] = fds[j];
                    fds[j] = x;
                }
        for (int i = 0; i < nfd; i++)
            snprintf(outs[k] + strlen(outs[k]), 512 - strlen(outs[k]), " %d", fds[i]);
    }
    printf("fd:%s\nfdinfo:%s\n", a, b);
    struct stat st;
    if (stat("/proc/self/fdinfo", &st) == 0)
        printf("fdinfo dir mode %o\n", st.st_mode & 07777);
    if (stat("/proc/self/fdinfo/0", &st) == 0)
        printf("fdinfo file mode %o size %ld\n", st.st_mode & 07777, (long)st.st_size);
}

int main(void)
{
    corpus_init();
    int file = open("fdinfo.tmp", O_RDWR | O_CREAT | O_TRUNC, 0600);
    write(file, "hello world", 11);
    lseek(file, 3, SEEK_SET);
    show_fdinfo("file rdwr pos 3", 0, file);
    int ro = open("fdinfo.tmp", O_RDONLY | O_CLOEXEC | O_APPEND | O_NONBLOCK);
    show_fdinfo("file rdonly cloexec append nonblock", 0, ro);
    int wo = open("fdinfo.tmp", O_WRONLY | O_SYNC);
    show_fdinfo("file wronly sync", 0, wo);
    int dir = open(".", O_RDONLY | O_DIRECTORY);
    show_fdinfo("directory", 0, dir);
    int path = open("fdinfo.tmp", O_PATH);
    show_fdinfo("o_path", 0, path);
    int p[2];
    pipe2(p, O_NONBLOCK | O_CLOEXEC);
    show_fdinfo("pipe read end", 0, p[0]);
    show_fdinfo("pipe write end", 0, p[1]);
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
    show_fdinfo("socket", 0, s);
    int dup = fcntl(file, F_DUPFD_CLOEXEC, 0);
    show_fdinfo("dup cloexec of file", 0, dup);

    int efd = eventfd(5, EFD_NONBLOCK | EFD_SEMAPHORE);
    show_fdinfo("eventfd 5", 0, efd);
    uint64_t add = 0x123456789;
    write(efd, &add, sizeof add);
    show_fdinfo("eventfd after write", 0, efd);

    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGUSR1);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGRTMIN + 2);
    int sfd = signalfd(-1, &mask, SFD_CLOEXEC);
    show_fdinfo("signalfd", 0, sfd);

    int tfd = timerfd_create(CLOCK_MONOTONIC, 0);
    show_fdinfo("timerfd disarmed", 0, tfd);
    struct itimerspec its = { { 2, 500 }, { 1000, 0 } };
    timerfd_settime(tfd, 0, &its, NULL);
    show_fdinfo("timerfd armed", 0, tfd);
    int tfd2 = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK);
    struct itimerspec abs = { { 0, 0 }, { 4000000000, 0 } };
    timerfd_settime(tfd2, TFD_TIMER_ABSTIME, &abs, NULL);
    show_fdinfo("timerfd realtime absolute", 0, tfd2);

    int ep = epoll_create1(0);
    struct epoll_event ev = { .events = EPOLLIN | EPOLLET, .data.u64 = 0xabcdef };
    epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev);
    ev.events = EPOLLOUT;
    ev.data.u64 = 7;
    epoll_ctl(ep, EPOLL_CTL_ADD, efd, &ev);
    show_fdinfo("epoll", 0, ep);

    int in = inotify_init1(IN_NONBLOCK);
    inotify_add_watch(in, ".", IN_CREATE | IN_DELETE);
    inotify_add_watch(in, "fdinfo.tmp", IN_MODIFY | IN_ONESHOT);
    show_fdinfo("inotify", 0, in);

    int hold[2];
    pipe(hold);
    pid_t child = fork();
    if (child == 0) {
        char c;
        close(hold[1]);
        read(hold[0], &c, 1);               /* until the parent is done */
        _exit(0);
    }
    close(hold[0]);
    int pidfd = (int)syscall(SYS_pidfd_open, child, 0);
    char pidfile[64], line[256];
    snprintf(pidfile, sizeof pidfile, "/proc/self/fdinfo/%d", pidfd);
    FILE *f = fopen(pidfile, "r");
    while (f && fgets(line, sizeof line, f)) {
        int v;
        if (sscanf(line, "Pid:\t%d", &v) == 1)
            printf("pidfd Pid: %s\n", v == child ? "the child's" : "other");
        else if (sscanf(line, "NSpid:\t%d", &v) == 1)
            printf("pidfd NSpid: %s\n", v == child ? "the child's" : "other");
        else if (!strncmp(line, "flags:", 6) || !strncmp(line, "pos:", 4))
            printf("pidfd %s", line);
    }
    if (f)
        fclose(f);

    listings();
    char missing[64];
    snprintf(missing, sizeof missing, "/proc/self/fdinfo/%d", 900);
    TRY("open fdinfo of a closed fd", open(missing, O_RDONLY));
    TRY("open fdinfo for writing", open("/proc/self/fdinfo/0", O_WRONLY));
    /* another process's: the parent's file as the child sees it */
    pid_t reader = fork();
    if (reader == 0) {
        show_fdinfo("parent's file from a child", getppid(), file);
        _exit(0);
    }
    int st;
    waitpid(reader, &st, 0);
    /* another user's process: its fdinfo directory and files are closed to a stranger (Linux
     * checks ptrace read access when either is opened) */
    pid_t stranger = fork();
    if (stranger == 0) {
        char dpath[64], fpath[64];
        snprintf(dpath, sizeof dpath, "/proc/%d/fdinfo", getppid());
        snprintf(fpath, sizeof fpath, "/proc/%d/fdinfo/%d", getppid(), file);
        if (setuid(65534) != 0)
            printf("setuid: %s\n", errname(errno));
        DIR *d = opendir(dpath);
        printf("stranger's opendir of the fdinfo directory: %s\n", d ? "ok" : errname(errno));
        TRY("stranger's open of an fdinfo file", open(fpath, O_RDONLY));
        _exit(0);
    }
    waitpid(stranger, &st, 0);
    close(hold[1]);
    waitpid(child, &st, 0);
    unlink("fdinfo.tmp");
    return 0;
}
