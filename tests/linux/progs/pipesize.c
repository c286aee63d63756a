/* A pipe's capacity: 64 KiB at first, F_GETPIPE_SZ and F_SETPIPE_SZ (rounded up to a power
 * of two pages, at least one page; smaller than what the pipe holds: EBUSY; root may go
 * past pipe-max-size), the data kept across a change, non-blocking writes up to the new
 * capacity, and the fcntls on files that are no pipe (EBADF). */
#include <fcntl.h>
#include "corpus.h"

static char buf[1 << 20];

int main(void)
{
    corpus_init();
    int p[2];
    pipe2(p, O_NONBLOCK);
    SHOW("F_GETPIPE_SZ", fcntl(p[0], F_GETPIPE_SZ));
    SHOW("F_GETPIPE_SZ of the write end", fcntl(p[1], F_GETPIPE_SZ));
    long n = 0, r;
    while ((r = write(p[1], buf, 4096)) > 0)
        n += r;
    printf("filled with %ld bytes, then %s\n", n, errname(errno));
    SHOW("F_SETPIPE_SZ 4096 (less than held)", fcntl(p[1], F_SETPIPE_SZ, 4096));
    SHOW("F_SETPIPE_SZ 100000", fcntl(p[1], F_SETPIPE_SZ, 100000));
    SHOW("F_GETPIPE_SZ", fcntl(p[0], F_GETPIPE_SZ));
    long more = 0;
    while ((r = write(p[1], buf, 4096)) > 0)
        more += r;
    printf("then %ld bytes more, then %s\n", more, errname(errno));
    long got = 0;
    while ((r = read(p[0], buf, sizeof buf)) > 0)
        got += r;
    printf("read back %ld bytes, then %s\n", got, errname(errno));
    SHOW("F_SETPIPE_SZ 1", fcntl(p[1], F_SETPIPE_SZ, 1));
    SHOW("F_SETPIPE_SZ 0", fcntl(p[1], F_SETPIPE_SZ, 0));
    SHOW("F_SETPIPE_SZ 5000", fcntl(p[1], F_SETPIPE_SZ, 5000));
    SHOW("F_SETPIPE_SZ 2 MiB (past pipe-max-size, root)", fcntl(p[1], F_SETPIPE_SZ, 2 << 20));
    SHOW("F_SETPIPE_SZ 2^31 + 1", fcntl(p[1], F_SETPIPE_SZ, (1u << 31) + 1));
    SHOW("write 1 MiB at once (non-blocking)", write(p[1], buf, 1 << 20));
    SHOW("F_GETPIPE_SZ", fcntl(p[0], F_GETPIPE_SZ));
    int f = open("/dev/null", O_RDONLY);
    SHOW("F_GETPIPE_SZ of /dev/null", fcntl(f, F_GETPIPE_SZ));
    SHOW("F_SETPIPE_SZ of /dev/null", fcntl(f, F_SETPIPE_SZ, 4096));
    return 0;
}
