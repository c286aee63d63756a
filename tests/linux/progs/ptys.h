/* Helpers of the pty programs (pty.c, ptyshell.c): devpts mounted at /dev/pts as Debian
 * mounts it (the corpus runner mounts only /proc), and reads that wait for an exact count,
 * since a pty's bytes reach the other end asynchronously on Linux (a work queue). */
#ifndef PTYS_H
#define PTYS_H

#include <errno.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

static inline int mount_devpts(void)
{
    struct stat st;
    if (stat("/dev/pts/ptmx", &st) == 0)
        return 0;
    mkdir("/dev/pts", 0755);
    return mount("devpts", "/dev/pts", "devpts", 0, "gid=5,mode=620,ptmxmode=000");
}

/* Read exactly n bytes (fewer only at end of file or an error): the count, or -1. */
static inline ssize_t read_exact(int fd, void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (char *)buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return got ? (ssize_t)got : -1;
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

/* Print bytes with control characters escaped ("\r", "\n", "\x03"). */
static inline void show_bytes(const char *what, const char *buf, ssize_t n)
{
    printf("%s: %zd \"", what, n);
    for (ssize_t k = 0; k < n; k++) {
        unsigned char c = (unsigned char)buf[k];
        if (c == '\n')
            printf("\\n");
        else if (c == '\r')
            printf("\\r");
        else if (c == '\b')
            printf("\\b");
        else if (c < 0x20 || c >= 0x7f)
            printf("\\x%02x", c);
        else
            putchar(c);
    }
    printf("\"\n");
}

#endif
