/* Pipes: pipe/pipe2, data through fork, end of file when the writers are gone, EPIPE and
 * SIGPIPE when the readers are gone, O_NONBLOCK (EAGAIN), O_CLOEXEC, a pipe's capacity
 * being at least 4096 bytes, errors. */
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include "corpus.h"

int main(void)
{
    corpus_init();
    int p[2];
    char buf[128];
    int st;
    if (SHOW("pipe", pipe(p)) < 0)
        return 1;
    SHOW("write 5", write(p[1], "hello", 5));
    memset(buf, 0, sizeof buf);
    SHOW("read", read(p[0], buf, sizeof buf));
    printf("data: %s\n", buf);
    SHOW("lseek on a pipe", lseek(p[0], 0, SEEK_CUR));
    SHOW("write to the read end", write(p[0], "x", 1));

    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        for (int i = 0; i < 3; i++) {
            char line[32];
            int n = snprintf(line, sizeof line, "line %d\n", i);
            write(p[1], line, n);
        }
        _exit(0);
    }
    close(p[1]);
    size_t got = 0;
    ssize_t r;
    while ((r = read(p[0], buf + got, sizeof buf - 1 - got)) > 0)
        got += r;
    buf[got] = 0;
    printf("from the child: %s", buf);
    SHOW("read at end of file", read(p[0], buf, 1));
    waitpid(pid, &st, 0);
    show_status("writer", st);
    close(p[0]);

    /* No reader: SIGPIPE kills; ignored, EPIPE. */
    pipe(p);
    close(p[0]);
    pid = fork();
    if (pid == 0) {
        write(p[1], "x", 1);
        _exit(0);
    }
    waitpid(pid, &st, 0);
    show_status("writer without reader", st);
    signal(SIGPIPE, SIG_IGN);
    SHOW("write without reader, SIGPIPE ignored", write(p[1], "x", 1));
    close(p[1]);

    SHOW("pipe2 O_NONBLOCK|O_CLOEXEC", pipe2(p, O_NONBLOCK | O_CLOEXEC));
    SHOW("F_GETFD", fcntl(p[0], F_GETFD));
    SHOW("O_NONBLOCK set", (fcntl(p[0], F_GETFL) & O_NONBLOCK) != 0);
    SHOW("read empty nonblocking", read(p[0], buf, 1));
    long total = 0;
    char chunk[512];
    memset(chunk, 'z', sizeof chunk);
    while ((r = write(p[1], chunk, sizeof chunk)) > 0)
        total += r;
    printf("filled: at least 4096: %d, then %s\n", total >= 4096, errname(errno));
    close(p[0]);
    close(p[1]);
    SHOW("pipe2 bad flags", pipe2(p, 0x12345));
    SHOW("pipe into NULL", pipe(NULL));
    return 0;
}
