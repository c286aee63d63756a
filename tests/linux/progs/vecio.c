/* preadv, pwritev, preadv2, pwritev2: offsets, offset -1 (the file position), the RWF_*
 * flags on a tmpfs file and a pipe, O_APPEND and RWF_APPEND, and the errors. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include "corpus.h"

#ifndef RWF_APPEND
#define RWF_HIPRI  0x01
#define RWF_DSYNC  0x02
#define RWF_SYNC   0x04
#define RWF_NOWAIT 0x08
#define RWF_APPEND 0x10
#endif

static long p2(long nr, int fd, const struct iovec *iov, int n, long off, int flags)
{
    return syscall(nr, fd, iov, n, off, 0L, flags);
}

int main(void)
{
    corpus_init();
    int fd = open("v", O_CREAT | O_RDWR | O_TRUNC, 0644);
    char a[8] = "AAAA", b[8] = "BBBBBB", r1[8], r2[8];
    struct iovec w[2] = { { a, 4 }, { b, 6 } };
    SHOW("pwritev at 5", pwritev(fd, w, 2, 5));
    SHOW("position", lseek(fd, 0, SEEK_CUR));
    struct iovec r[2] = { { r1, 3 }, { r2, 8 } };
    memset(r1, 0, 8), memset(r2, 0, 8);
    SHOW("preadv at 4", preadv(fd, r, 2, 4));
    printf("got [%.3s] [%.7s]\n", r1, r2);
    SHOW("preadv at the end", preadv(fd, r, 2, 15));
    SHOW("preadv past the end", preadv(fd, r, 2, 100));
    SHOW("preadv -1", preadv(fd, r, 2, -1));
    SHOW("preadv -2", preadv(fd, r, 2, -2));
    SHOW("preadv 0 vectors", preadv(fd, r, 0, 0));
    SHOW("preadv 1025 vectors", syscall(SYS_preadv, fd, r, 1025, 0L, 0L));
    SHOW("preadv bad vector", syscall(SYS_preadv, fd, 8L, 1, 0L, 0L));
    struct iovec bad[1] = { { (void *)8, 4 } };
    SHOW("preadv bad buffer", preadv(fd, bad, 1, 0));
    struct iovec neg[1] = { { r1, (size_t)-1 } };
    SHOW("preadv negative length", preadv(fd, neg, 1, 0));
    SHOW("preadv bad fd", preadv(99, r, 2, 0));

    /* the *2 forms: -1 is the position, which moves */
    lseek(fd, 2, SEEK_SET);
    memset(r1, 0, 8), memset(r2, 0, 8);
    SHOW("preadv2 -1", p2(SYS_preadv2, fd, r, 2, -1, 0));
    printf("got [%.3s] [%.7s]\n", r1, r2);
    SHOW("position", lseek(fd, 0, SEEK_CUR));
    SHOW("preadv2 at 0", p2(SYS_preadv2, fd, r, 2, 0, 0));
    SHOW("position", lseek(fd, 0, SEEK_CUR));
    SHOW("preadv2 -2", p2(SYS_preadv2, fd, r, 2, -2, 0));
    SHOW("preadv2 RWF_HIPRI", p2(SYS_preadv2, fd, r, 2, 0, RWF_HIPRI));
    SHOW("preadv2 RWF_DSYNC", p2(SYS_preadv2, fd, r, 2, 0, RWF_DSYNC));
    SHOW("preadv2 RWF_SYNC", p2(SYS_preadv2, fd, r, 2, 0, RWF_SYNC));
    SHOW("preadv2 RWF_NOWAIT", p2(SYS_preadv2, fd, r, 2, 0, RWF_NOWAIT));
    SHOW("preadv2 unknown flag", p2(SYS_preadv2, fd, r, 2, 0, 0x100));
    SHOW("preadv2 unknown flag, nothing to read", p2(SYS_preadv2, fd, r, 0, 0, 0x100));
    SHOW("pwritev2 -1", p2(SYS_pwritev2, fd, w, 1, -1, 0));
    SHOW("position", lseek(fd, 0, SEEK_CUR));
    SHOW("pwritev2 RWF_APPEND at 0", p2(SYS_pwritev2, fd, w, 1, 0, RWF_APPEND));
    SHOW("size", lseek(fd, 0, SEEK_END));
    lseek(fd, 0, SEEK_SET);
    SHOW("pwritev2 RWF_APPEND -1", p2(SYS_pwritev2, fd, w, 1, -1, RWF_APPEND));
    SHOW("position", lseek(fd, 0, SEEK_CUR));
    SHOW("pwritev2 RWF_DSYNC", p2(SYS_pwritev2, fd, w, 1, 0, RWF_DSYNC));
    SHOW("pwritev2 unknown flag", p2(SYS_pwritev2, fd, w, 1, 0, 0x40));
    SHOW("size", lseek(fd, 0, SEEK_END));
    /* a file open with O_APPEND: pwritev writes at the end too, as pwrite does on Linux */
    int ap = open("v", O_WRONLY | O_APPEND);
    SHOW("pwritev O_APPEND at 0", pwritev(ap, w, 1, 0));
    SHOW("size", lseek(fd, 0, SEEK_END));
    SHOW("preadv write-only fd", preadv(ap, r, 2, 0));
    SHOW("pwritev read-only fd", pwritev(open("v", O_RDONLY), w, 1, 0));
    int pa = open("v", O_PATH);
    SHOW("preadv O_PATH", preadv(pa, r, 1, 0));
    SHOW("preadv a directory", preadv(open(".", O_RDONLY | O_DIRECTORY), r, 1, 0));

    /* pipes: no offsets, but -1 works; RWF_NOWAIT on an empty pipe */
    int p[2];
    pipe(p);
    SHOW("preadv pipe at 0", preadv(p[0], r, 1, 0));
    SHOW("pwritev pipe at 0", pwritev(p[1], w, 1, 0));
    SHOW("pwritev2 pipe -1", p2(SYS_pwritev2, p[1], w, 2, -1, 0));
    memset(r1, 0, 8), memset(r2, 0, 8);
    SHOW("preadv2 pipe -1", p2(SYS_preadv2, p[0], r, 2, -1, 0));
    printf("got [%.3s] [%.7s]\n", r1, r2);
    SHOW("preadv2 empty pipe RWF_NOWAIT", p2(SYS_preadv2, p[0], r, 2, -1, RWF_NOWAIT));
    SHOW("preadv2 pipe unknown flag", p2(SYS_preadv2, p[0], r, 2, -1, 0x80));
    return 0;
}
