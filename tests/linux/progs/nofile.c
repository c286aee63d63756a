/* RLIMIT_NOFILE: the soft limit 1024 that programs start with, EMFILE at the limit, dup2
 * and F_DUPFD past it, poll with more fds than it allows; raising it (root may raise the
 * hard limit up to fs.nr_open) and then 100,000 fds open at once; a child inherits the
 * limit and the fds.  (The hard limit itself differs: Linux's init has 4096, lx gives
 * 1048576 as a systemd machine does; it is not printed.) */
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include "corpus.h"

#define MANY 100000

int main(void)
{
    corpus_init();
    struct rlimit rl;
    SHOW("getrlimit", getrlimit(RLIMIT_NOFILE, &rl));
    printf("soft %lu, hard >= soft: %d\n", (unsigned long)rl.rlim_cur, rl.rlim_max >= rl.rlim_cur);
    int fd = open("/dev/null", O_RDONLY);

    /* The limit at 100: the fds stop at 99. */
    struct rlimit small = { 100, rl.rlim_max };
    SHOW("setrlimit soft 100", setrlimit(RLIMIT_NOFILE, &small));
    int last = -1, r;
    while ((r = dup(fd)) >= 0)
        last = r;
    printf("dup until %s, the last fd %d\n", errname(errno), last);
    SHOW("open at the limit", open("/dev/null", O_RDONLY));
    SHOW("dup2 to 100", dup2(fd, 100));
    SHOW("dup2 to 99", dup2(fd, 99));
    SHOW("F_DUPFD from 100", fcntl(fd, F_DUPFD, 100));
    SHOW("F_DUPFD from 50", fcntl(fd, F_DUPFD, 50));
    SHOW("close 50", close(50));
    SHOW("F_DUPFD from 50 again", fcntl(fd, F_DUPFD, 50));
    struct pollfd pfd[101] = { { .fd = fd, .events = POLLIN } };
    SHOW("poll 101 fds", poll(pfd, 101, 0));
    SHOW("poll 100 fds", poll(pfd, 100, 0));
    for (int i = 3; i < 100; i++)
        if (i != fd)
            close(i);

    /* Errors: soft above hard, hard above fs.nr_open. */
    struct rlimit bad = { 2000, 1000 };
    SHOW("setrlimit soft > hard", setrlimit(RLIMIT_NOFILE, &bad));
    struct rlimit huge = { 1024, 1u << 30 };
    SHOW("setrlimit hard > nr_open", setrlimit(RLIMIT_NOFILE, &huge));
    SHOW("getrlimit bad resource", getrlimit(99, &rl));

    /* Raised: 100,000 fds at once, the highest where it should be. */
    struct rlimit raised = { MANY + 16, MANY + 16 };
    SHOW("setrlimit 100016", setrlimit(RLIMIT_NOFILE, &raised));
    SHOW("getrlimit", getrlimit(RLIMIT_NOFILE, &rl));
    printf("soft %lu hard %lu\n", (unsigned long)rl.rlim_cur, (unsigned long)rl.rlim_max);
    int opened = 0;
    for (int i = 0; i < MANY; i++) {
        if ((r = dup(fd)) < 0) {
            printf("dup %d: %s\n", i, errname(errno));
            break;
        }
        opened++;
        last = r;
    }
    printf("opened %d, the last fd %d\n", opened, last);
    SHOW("dup2 to 100015", dup2(fd, MANY + 15));
    SHOW("dup2 to 100016", dup2(fd, MANY + 16));
    SHOW("fcntl F_GETFD of the last", fcntl(last, F_GETFD));
    SHOW("read from the last", read(last, &r, 1));
    struct pollfd one = { .fd = MANY + 15, .events = POLLIN };
    SHOW("poll the highest", poll(&one, 1, 0));

    /* A child inherits the limit and every fd. */
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        struct rlimit c;
        getrlimit(RLIMIT_NOFILE, &c);
        int ok = fcntl(last, F_GETFD) == 0 && fcntl(MANY + 15, F_GETFD) == 0;
        printf("child: soft %lu, fds there %d\n", (unsigned long)c.rlim_cur, ok);
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    show_status("child", st);

    /* Closing them all. */
    int closed = 0;
    for (int i = 3; i <= MANY + 15; i++)
        if (i != fd && close(i) == 0)
            closed++;
    printf("closed %d\n", closed);
    SHOW("dup after closing", dup(fd));
    return 0;
}
