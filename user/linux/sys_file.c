/* File system calls, before there is a VFS: fd 0 reads as end of file, fd 1 and 2 write to
 * the console; every other fd is EBADF.  No fd is a tty yet (ENOTTY). */
#include "lx.h"

#define TCGETS      0x5401
#define TIOCGWINSZ  0x5413
#define IOV_MAX     1024

static bool console_fd(l4_word_t fd)
{
    return fd == 1 || fd == 2;
}

/* Write n bytes at user address buf to the console: the count, or -EFAULT if nothing
 * could be read (a fault after some bytes ends the write short, as in Linux). */
static long console_from_user(struct task *t, l4_word_t buf, l4_word_t n)
{
    char chunk[512];
    l4_word_t done = 0;
    while (done < n) {
        /* Never across a page: a bad page ends the write exactly at its start. */
        l4_word_t k = LX_PAGE - ((buf + done) & ~LX_PAGE_MASK);
        if (k > sizeof chunk)
            k = sizeof chunk;
        if (k > n - done)
            k = n - done;
        if (copy_from_user(&t->mm, chunk, buf + done, k))
            return done ? (long)done : -EFAULT;
        console_write(chunk, k);
        done += k;
    }
    return (long)done;
}

long sys_read(struct task *t, const struct sysargs *a)
{
    (void)t;
    if (a->a[0] == 0)
        return 0;
    return console_fd(a->a[0]) ? -EINVAL : -EBADF;
}

long sys_write(struct task *t, const struct sysargs *a)
{
    if (!console_fd(a->a[0]))
        return -EBADF;
    if ((long)a->a[2] < 0)
        return -EINVAL;
    return console_from_user(t, a->a[1], a->a[2]);
}

long sys_writev(struct task *t, const struct sysargs *a)
{
    if (!console_fd(a->a[0]))
        return -EBADF;
    if (a->a[2] > IOV_MAX)
        return -EINVAL;
    long total = 0;
    for (l4_word_t i = 0; i < a->a[2]; i++) {
        l4_word_t iov[2];
        if (copy_from_user(&t->mm, iov, a->a[1] + i * sizeof iov, sizeof iov))
            return total ? total : -EFAULT;
        if ((long)iov[1] < 0)
            return -EINVAL;
        long n = console_from_user(t, iov[0], iov[1]);
        if (n < 0)
            return total ? total : n;
        total += n;
        if ((l4_word_t)n < iov[1])
            break;
    }
    return total;
}

long sys_ioctl(struct task *t, const struct sysargs *a)
{
    (void)t;
    if (a->a[0] > 2)
        return -EBADF;
    switch (a->a[1]) {
    case TCGETS:
    case TIOCGWINSZ:
        return -ENOTTY;             /* the console is no tty yet */
    default:
        return -ENOTTY;
    }
}
