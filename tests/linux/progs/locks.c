/* File locks: POSIX record locks (F_GETLK, F_SETLK, F_SETLKW) between a parent and its
 * children, split and merged ranges, release at close and at exit; OFD locks (F_OFD_*),
 * owned by the open file; flock, owned by the open file and independent of record locks.
 * A child that waits in F_SETLKW is released by its parent (a pipe says it is about to
 * wait; the answer is the same whether it waited or not). */
#include <fcntl.h>
#include <sys/file.h>
#include "corpus.h"

static int fd;

static void show_lock(const char *what, int cmd, short type, off_t start, off_t len)
{
    struct flock fl = { .l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = len };
    if (fcntl(fd, cmd, &fl) < 0) {
        printf("%s: -1 %s\n", what, errname(errno));
        return;
    }
    const char *t = fl.l_type == F_RDLCK ? "read" : fl.l_type == F_WRLCK ? "write" : "unlocked";
    if (fl.l_type == F_UNLCK)
        printf("%s: %s\n", what, t);
    else
        printf("%s: %s %ld+%ld pid %s\n", what, t, (long)fl.l_start, (long)fl.l_len,
               fl.l_pid == -1 ? "-1" : fl.l_pid == getppid() ? "parent" :
               fl.l_pid == getpid() ? "self" : "other");
}

static int set_lock(int f, int cmd, short type, off_t start, off_t len)
{
    struct flock fl = { .l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = len };
    return fcntl(f, cmd, &fl);
}

/* Run fn in a child with its own open file of "lockfile"; wait for it. */
static void in_child(const char *name, void (*fn)(void))
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        fd = open("lockfile", O_RDWR);
        fn();
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    show_status(name, st);
}

static void child_checks(void)
{
    show_lock("child F_GETLK write 5+10", F_GETLK, F_WRLCK, 5, 10);
    show_lock("child F_GETLK read 0+5", F_GETLK, F_RDLCK, 0, 5);
    show_lock("child F_GETLK read 50+5", F_GETLK, F_RDLCK, 50, 5);
    SHOW("child F_SETLK read 0+10", set_lock(fd, F_SETLK, F_RDLCK, 0, 10));
    SHOW("child F_SETLK write 10+10", set_lock(fd, F_SETLK, F_WRLCK, 10, 10));
    SHOW("child F_SETLK write 20+0 (to the end)", set_lock(fd, F_SETLK, F_WRLCK, 20, 0));
}

static void child_split(void)
{
    show_lock("child F_GETLK write 0+100 (first)", F_GETLK, F_WRLCK, 0, 100);
    show_lock("child F_GETLK write 40+20 (the hole)", F_GETLK, F_WRLCK, 40, 20);
    show_lock("child F_GETLK write 45+30", F_GETLK, F_WRLCK, 45, 30);
}

static void child_sees_nothing(void)
{
    show_lock("child F_GETLK write 0+0", F_GETLK, F_WRLCK, 0, 0);
}

static void child_flock(void)
{
    SHOW("child flock LOCK_EX|LOCK_NB", flock(fd, LOCK_EX | LOCK_NB));
    SHOW("child flock LOCK_SH|LOCK_NB", flock(fd, LOCK_SH | LOCK_NB));
    SHOW("child F_SETLK write (flock is separate)", set_lock(fd, F_SETLK, F_WRLCK, 0, 0));
    SHOW("child flock LOCK_UN", flock(fd, LOCK_UN));
}

static int pipefd[2];

static void child_waits(void)
{
    SHOW("child F_SETLK write 0+1 (taken)", set_lock(fd, F_SETLK, F_WRLCK, 0, 1));
    write(pipefd[1], "w", 1);       /* about to wait */
    SHOW("child F_SETLKW write 0+1", set_lock(fd, F_SETLKW, F_WRLCK, 0, 1));
    show_lock("child F_GETLK of its own lock", F_GETLK, F_RDLCK, 0, 1);
}

static void child_flock_waits(void)
{
    write(pipefd[1], "w", 1);
    SHOW("child flock LOCK_EX (waits)", flock(fd, LOCK_EX));
}

int main(void)
{
    corpus_init();
    fd = open("lockfile", O_CREAT | O_RDWR | O_TRUNC, 0644);
    char buf[100] = { 0 };
    write(fd, buf, sizeof buf);

    /* Arguments. */
    SHOW("F_SETLK bad type", set_lock(fd, F_SETLK, 7, 0, 10));
    SHOW("F_GETLK of F_UNLCK", set_lock(fd, F_GETLK, F_UNLCK, 0, 10));
    SHOW("F_SETLK negative start", set_lock(fd, F_SETLK, F_WRLCK, -5, 10));
    struct flock fl = { .l_type = F_WRLCK, .l_whence = 9 };
    SHOW("F_SETLK bad whence", fcntl(fd, F_SETLK, &fl));
    SHOW("F_SETLK bad pointer", fcntl(fd, F_SETLK, (void *)8));
    int ro = open("lockfile", O_RDONLY);
    SHOW("F_SETLK write on a read-only fd", set_lock(ro, F_SETLK, F_WRLCK, 0, 1));
    SHOW("F_SETLK read on a read-only fd", set_lock(ro, F_SETLK, F_RDLCK, 0, 1));
    SHOW("F_SETLK unlock it", set_lock(ro, F_SETLK, F_UNLCK, 0, 1));
    close(ro);
    SHOW("F_SETLK bad fd", set_lock(99, F_SETLK, F_RDLCK, 0, 1));

    /* A write lock [0, 10): the process's own never conflict; another process's do. */
    SHOW("F_SETLK write 0+10", set_lock(fd, F_SETLK, F_WRLCK, 0, 10));
    show_lock("F_GETLK write 0+10 (own)", F_GETLK, F_WRLCK, 0, 10);
    in_child("child", child_checks);
    in_child("after the child's exit", child_sees_nothing);

    /* A range split by an unlock in the middle, then merged again. */
    SHOW("F_SETLK read 0+100", set_lock(fd, F_SETLK, F_RDLCK, 0, 100));
    SHOW("F_SETLK unlock 40+20", set_lock(fd, F_SETLK, F_UNLCK, 40, 20));
    in_child("split", child_split);
    SHOW("F_SETLK write 50+5 (inside the tail)", set_lock(fd, F_SETLK, F_WRLCK, 50, 5));
    in_child("mixed", child_split);
    SHOW("F_SETLK read 0+100 again", set_lock(fd, F_SETLK, F_RDLCK, 0, 100));
    in_child("merged", child_split);

    /* Closing any fd of the file drops the process's record locks. */
    int dup1 = dup(fd);
    close(dup1);
    in_child("after closing a dup", child_sees_nothing);

    /* SEEK_END and a negative length. */
    fl = (struct flock){ .l_type = F_WRLCK, .l_whence = SEEK_END, .l_start = -10, .l_len = 5 };
    SHOW("F_SETLK from the end", fcntl(fd, F_SETLK, &fl));
    fl = (struct flock){ .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 30, .l_len = -10 };
    SHOW("F_SETLK negative length", fcntl(fd, F_SETLK, &fl));
    in_child("end and backwards", child_split);
    set_lock(fd, F_SETLK, F_UNLCK, 0, 0);

    /* A waiter released. */
    pipe(pipefd);
    SHOW("F_SETLK write 0+1", set_lock(fd, F_SETLK, F_WRLCK, 0, 1));
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        fd = open("lockfile", O_RDWR);
        child_waits();
        _exit(0);
    }
    char c;
    read(pipefd[0], &c, 1);
    int r = set_lock(fd, F_SETLK, F_UNLCK, 0, 1);   /* printed after the child: its order */
    int st;
    waitpid(pid, &st, 0);
    printf("F_SETLK unlock 0+1: %d\n", r);
    show_status("waiter", st);

    /* OFD locks: owned by the open file, so two opens in one process conflict. */
    int a = open("lockfile", O_RDWR), b = open("lockfile", O_RDWR);
    fl = (struct flock){ .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 10 };
    SHOW("F_OFD_SETLK a", fcntl(a, F_OFD_SETLK, &fl));
    SHOW("F_OFD_SETLK b (conflicts)", fcntl(b, F_OFD_SETLK, &fl));
    fl.l_pid = 5;
    SHOW("F_OFD_SETLK with l_pid", fcntl(b, F_OFD_SETLK, &fl));
    fd = b;
    show_lock("F_OFD_GETLK from b", F_OFD_GETLK, F_RDLCK, 0, 1);
    show_lock("F_GETLK sees the OFD lock", F_GETLK, F_RDLCK, 0, 1);
    SHOW("F_SETLK record lock over it", set_lock(b, F_SETLK, F_RDLCK, 0, 1));
    fl.l_pid = 0;
    int a2 = dup(a);
    close(a);
    SHOW("F_OFD_SETLK b after closing one fd of a", fcntl(b, F_OFD_SETLK, &fl));
    close(a2);
    SHOW("F_OFD_SETLK b after the last close of a", fcntl(b, F_OFD_SETLK, &fl));
    close(b);

    /* flock. */
    fd = open("lockfile", O_RDWR);
    SHOW("flock bad op", flock(fd, 3));
    SHOW("flock bad fd", flock(99, LOCK_SH));
    SHOW("flock LOCK_SH", flock(fd, LOCK_SH));
    in_child("flock shared", child_flock);
    SHOW("flock LOCK_EX (conversion)", flock(fd, LOCK_EX));
    in_child("flock exclusive", child_flock);
    int d2 = dup(fd);
    close(d2);
    in_child("flock after closing a dup (still held)", child_flock);
    pid = fork();
    if (pid == 0) {
        fd = open("lockfile", O_RDWR);
        child_flock_waits();
        _exit(0);
    }
    read(pipefd[0], &c, 1);
    r = flock(fd, LOCK_UN);
    waitpid(pid, &st, 0);
    printf("flock LOCK_UN: %d\n", r);
    show_status("flock waiter", st);
    SHOW("flock LOCK_UN without a lock", flock(fd, LOCK_UN));
    return 0;
}
