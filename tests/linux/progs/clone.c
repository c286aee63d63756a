/* clone(2) with the process-sharing flags that need no shared memory: CLONE_FILES (one fd
 * table for parent and child: what the child opens, closes or dups, the parent sees) and
 * CLONE_FS (one working directory and umask), each against plain fork where nothing is
 * shared; and the flag combinations Linux refuses.  The raw system call, without a new stack:
 * the child runs on a copy of the parent's memory, as after fork. */
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "corpus.h"

static long raw_clone(unsigned long flags)
{
    return syscall(SYS_clone, flags, 0L, 0L, 0L, 0L);
}

/* Run child() in a clone with flags (or a fork); its exit status. */
static int in_child(const char *what, unsigned long flags, int (*child)(void))
{
    long pid = raw_clone(flags | SIGCHLD);
    if (pid == 0)
        _exit(child());
    if (pid < 0) {
        printf("%s: clone: -1 %s\n", what, errname(errno));
        return -1;
    }
    int st;
    if (waitpid((pid_t)pid, &st, 0) != pid)
        printf("%s: waitpid: -1 %s\n", what, errname(errno));
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int opened_fd = -1, victim_fd = -1;

static int child_files(void)
{
    opened_fd = open("data.txt", O_RDONLY);     /* the parent learns the number from us */
    close(victim_fd);
    dup2(opened_fd, 20);
    return opened_fd < 0 ? 100 : opened_fd;
}

static void files(unsigned long flags, const char *what)
{
    int fd = open("victim.txt", O_RDONLY);
    victim_fd = fd;
    int child_fd = in_child(what, flags, child_files);
    char buf[16] = { 0 };
    printf("%s: the child's fd is open here: %d\n", what, fcntl(child_fd, F_GETFD) >= 0);
    if (fcntl(child_fd, F_GETFD) >= 0 && read(child_fd, buf, 5) == 5)
        printf("%s: it reads the child's file: %s\n", what, buf);
    printf("%s: the fd the child closed is open here: %d\n", what, fcntl(fd, F_GETFD) >= 0);
    printf("%s: the child's dup2 to 20 is here: %d\n", what, fcntl(20, F_GETFD) >= 0);
    close(child_fd);
    close(fd);
    close(20);
}

static int child_fs(void)
{
    umask(077);
    return chdir("sub") ? 100 : 0;
}

static bool in_sub(void)
{
    char cwd[256];
    size_t n = getcwd(cwd, sizeof cwd) ? strlen(cwd) : 0;
    return n > 4 && !strcmp(cwd + n - 4, "/sub");
}

static void fs(unsigned long flags, const char *what)
{
    mode_t old = umask(022);
    int r = in_child(what, flags, child_fs);
    printf("%s: child status %d\n", what, r);
    bool moved = in_sub();
    printf("%s: the child's chdir moved us: %d\n", what, moved);
    mode_t now = umask(old);
    printf("%s: umask %03o\n", what, (unsigned)now);
    if (moved && chdir("..") < 0)
        printf("%s: chdir ..: -1 %s\n", what, errname(errno));
}

static int child_nothing(void)
{
    return 0;
}

static void refused(const char *what, unsigned long flags)
{
    long pid = raw_clone(flags);
    if (pid == 0)
        _exit(0);
    if (pid > 0) {
        int st;
        waitpid((pid_t)pid, &st, 0);
        printf("%s: 0 (a child)\n", what);
    } else {
        printf("%s: -1 %s\n", what, errname(errno));
    }
}

int main(void)
{
    corpus_init();
    int f = open("data.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (f < 0 || write(f, "hello", 5) != 5 || close(f))
        printf("data.txt: -1 %s\n", errname(errno));
    f = open("victim.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    close(f);
    mkdir("sub", 0755);

    files(0, "fork");
    files(CLONE_FILES, "CLONE_FILES");
    fs(0, "fork");
    fs(CLONE_FS, "CLONE_FS");
    fs(CLONE_FS | CLONE_FILES, "CLONE_FS|CLONE_FILES");
    printf("CLONE_FILES child exits 0: %d\n", in_child("CLONE_FILES", CLONE_FILES,
                                                         child_nothing) == 0);

    /* What Linux refuses without threads' memory: a thread without shared actions, shared
     * actions without shared memory. */
    refused("CLONE_THREAD alone", CLONE_THREAD | SIGCHLD);
    refused("CLONE_SIGHAND alone", CLONE_SIGHAND | SIGCHLD);
    refused("CLONE_THREAD|CLONE_SIGHAND without CLONE_VM", CLONE_THREAD | CLONE_SIGHAND);
    return 0;
}
