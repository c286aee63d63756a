/* copy_file_range, fallocate, close_range, sync_file_range: the modes tmpfs has, offsets by
 * pointer or position, overlapping ranges, and each call's errors. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "corpus.h"

#ifndef FALLOC_FL_ZERO_RANGE
#define FALLOC_FL_COLLAPSE_RANGE 0x08
#define FALLOC_FL_ZERO_RANGE     0x10
#define FALLOC_FL_INSERT_RANGE   0x20
#define FALLOC_FL_UNSHARE_RANGE  0x40
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_UNSHARE (1U << 1)
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

static void show_file(const char *what, int fd)
{
    struct stat st;
    fstat(fd, &st);
    char buf[64] = { 0 };
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    for (ssize_t k = 0; k < n; k++)
        if (!buf[k])
            buf[k] = '.';
    printf("%s: size %ld blocks %ld [%s]\n", what, (long)st.st_size, (long)st.st_blocks, buf);
}

static long cfr(int in, loff_t *oin, int out, loff_t *oout, size_t n, unsigned flags)
{
    return syscall(SYS_copy_file_range, in, oin, out, oout, n, flags);
}

static long crange(unsigned first, unsigned last, unsigned flags)
{
    return syscall(SYS_close_range, first, last, flags);
}

int main(void)
{
    corpus_init();
    int a = open("a", O_CREAT | O_RDWR | O_TRUNC, 0644);
    int b = open("b", O_CREAT | O_RDWR | O_TRUNC, 0644);
    write(a, "0123456789abcdefghij", 20);

    /* copy_file_range */
    loff_t oin = 5, oout = 2;
    SHOW("copy by pointers", cfr(a, &oin, b, &oout, 6, 0));
    printf("offsets now %ld %ld, positions %ld %ld\n", (long)oin, (long)oout,
           (long)lseek(a, 0, SEEK_CUR), (long)lseek(b, 0, SEEK_CUR));
    show_file("b", b);
    lseek(a, 15, SEEK_SET);
    lseek(b, 0, SEEK_SET);
    SHOW("copy by positions, cut at the end", cfr(a, NULL, b, NULL, 100, 0));
    printf("positions %ld %ld\n", (long)lseek(a, 0, SEEK_CUR), (long)lseek(b, 0, SEEK_CUR));
    show_file("b", b);
    oin = 100;
    SHOW("copy past the end", cfr(a, &oin, b, NULL, 10, 0));
    oin = 0, oout = 30;
    SHOW("same file, apart", cfr(a, &oin, a, &oout, 5, 0));
    show_file("a", a);
    oin = 0, oout = 3;
    SHOW("same file, overlapping", cfr(a, &oin, a, &oout, 5, 0));
    oin = 10, oout = 7;
    SHOW("same file, overlapping below", cfr(a, &oin, a, &oout, 5, 0));
    oin = 0, oout = 0;
    SHOW("same file, zero length", cfr(a, &oin, a, &oout, 0, 0));
    SHOW("flags", cfr(a, NULL, b, NULL, 5, 1));
    SHOW("bad in fd", cfr(99, NULL, b, NULL, 5, 0));
    SHOW("bad out fd", cfr(a, NULL, 99, NULL, 5, 0));
    SHOW("bad offset pointer", cfr(a, (loff_t *)8, b, NULL, 5, 0));
    oin = -1;
    SHOW("negative offset", cfr(a, &oin, b, NULL, 5, 0));
    int ro = open("a", O_RDONLY), app = open("b", O_WRONLY | O_APPEND), wo = open("a", O_WRONLY);
    SHOW("to a read-only fd", cfr(a, NULL, ro, NULL, 5, 0));
    SHOW("from a write-only fd", cfr(wo, NULL, b, NULL, 5, 0));
    SHOW("to an O_APPEND fd", cfr(a, NULL, app, NULL, 5, 0));
    int d = open(".", O_RDONLY | O_DIRECTORY);
    SHOW("from a directory", cfr(d, NULL, b, NULL, 5, 0));
    int p[2];
    pipe(p);
    SHOW("to a pipe", cfr(a, NULL, p[1], NULL, 5, 0));
    oin = 0x7ffffffffffffff0;
    SHOW("offset overflow", cfr(a, &oin, b, NULL, 0x100, 0));

    /* fallocate */
    int f = open("f", O_CREAT | O_RDWR | O_TRUNC, 0644);
    SHOW("allocate 10000", fallocate(f, 0, 0, 10000));
    show_file("f", f);
    SHOW("allocate KEEP_SIZE past the end", fallocate(f, FALLOC_FL_KEEP_SIZE, 10000, 10000));
    show_file("f", f);
    pwrite(f, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", 30, 0);
    SHOW("punch 5+10", fallocate(f, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 5, 10));
    show_file("f", f);
    SHOW("punch whole pages", fallocate(f, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 4096, 8192));
    show_file("f", f);
    SHOW("punch without KEEP_SIZE", fallocate(f, FALLOC_FL_PUNCH_HOLE, 0, 10));
    SHOW("zero range", fallocate(f, FALLOC_FL_ZERO_RANGE, 0, 10));
    SHOW("zero range KEEP_SIZE", fallocate(f, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, 0, 10));
    SHOW("punch and zero", fallocate(f, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, 0, 10));
    SHOW("collapse", fallocate(f, FALLOC_FL_COLLAPSE_RANGE, 0, 4096));
    SHOW("collapse KEEP_SIZE", fallocate(f, FALLOC_FL_COLLAPSE_RANGE | FALLOC_FL_KEEP_SIZE, 0, 4096));
    SHOW("insert", fallocate(f, FALLOC_FL_INSERT_RANGE, 0, 4096));
    SHOW("unshare", fallocate(f, FALLOC_FL_UNSHARE_RANGE, 0, 4096));
    SHOW("unknown mode", fallocate(f, 0x80, 0, 10));
    SHOW("length 0", fallocate(f, 0, 0, 0));
    SHOW("negative offset", fallocate(f, 0, -1, 10));
    SHOW("past the largest size", fallocate(f, 0, 0x7fffffffffffff00, 0x1000));
    SHOW("read-only fd", fallocate(ro, 0, 0, 10));
    SHOW("directory", fallocate(d, 0, 0, 10));
    SHOW("pipe", fallocate(p[1], 0, 0, 10));
    SHOW("bad fd", fallocate(99, 0, 0, 10));
    SHOW("O_APPEND fd, allocate", fallocate(app, 0, 0, 10));
    SHOW("/dev/null", fallocate(open("/dev/null", O_WRONLY), 0, 0, 10));

    /* sync_file_range */
    SHOW("sync_file_range", sync_file_range(f, 0, 100, SYNC_FILE_RANGE_WRITE));
    SHOW("sync_file_range bad flags", sync_file_range(f, 0, 100, 8));
    SHOW("sync_file_range negative", sync_file_range(f, -1, 100, 0));
    SHOW("sync_file_range pipe", sync_file_range(p[0], 0, 100, 0));
    SHOW("sync_file_range bad fd", sync_file_range(99, 0, 100, 0));

    /* close_range */
    int base = dup2(a, 50);
    dup2(a, 51), dup2(a, 52), dup2(a, 60);
    SHOW("close_range 51..52", crange(51, 52, 0));
    printf("open: 50 %d 51 %d 52 %d 60 %d\n", fcntl(50, F_GETFD) >= 0, fcntl(51, F_GETFD) >= 0,
           fcntl(52, F_GETFD) >= 0, fcntl(60, F_GETFD) >= 0);
    SHOW("close_range CLOEXEC 50..~0", crange((unsigned)base, ~0u, CLOSE_RANGE_CLOEXEC));
    printf("FD_CLOEXEC: 50 %d 60 %d\n", fcntl(50, F_GETFD), fcntl(60, F_GETFD));
    SHOW("close_range first > last", crange(10, 5, 0));
    SHOW("close_range bad flags", crange(0, 5, 1));
    SHOW("close_range UNSHARE 60..60", crange(60, 60, CLOSE_RANGE_UNSHARE));
    printf("open: 50 %d 60 %d\n", fcntl(50, F_GETFD) >= 0, fcntl(60, F_GETFD) >= 0);
    SHOW("close_range past everything", crange(1000, 2000, 0));
    pid_t pid = fork();
    if (!pid) {
        crange(3, ~0u, 0);
        printf("child after close_range 3..: fd 3 %d, fd 50 %d\n", fcntl(3, F_GETFD) >= 0,
               fcntl(50, F_GETFD) >= 0);
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    printf("parent: fd 50 %d\n", fcntl(50, F_GETFD) >= 0);
    return 0;
}
