/* signalfd (docs/linux/event-files.md): a file whose reads take pending signals of its mask
 * off the reader's pending sets (its thread's first, then its process's) as struct
 * signalfd_siginfo records, and whose poll says whether one is pending.  Like Linux's it
 * reads the signals of whoever reads it (the file has only the mask): a forked child's
 * read takes the child's signals.  A read that finds none parks on the process's
 * signalfd queue (signal/: every signal queued wakes it); a signal lx is to deliver (not
 * blocked) interrupts it, as Linux's -ERESTARTSYS.  Signals that are not blocked are
 * normally delivered before a read sees them: a signalfd is for blocked signals. */
#include "fs/anon/anon_files.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "mm/usercopy.h"
#include "signal/signal.h"
#include "syscalls/handlers_events.h"
#include "task/process.h"
#include "vfs/poll.h"
#include <stdio.h>
#include <string.h>

#define SFD_NONBLOCK O_NONBLOCK
#define SFD_CLOEXEC  O_CLOEXEC
#define NSIGPOLL     6
#define SIGPOLL      29

struct signalfd {
    uint64_t mask;                  /* never SIGKILL or SIGSTOP */
};

struct signalfd_siginfo {           /* Linux's, 128 bytes */
    uint32_t ssi_signo;
    int32_t ssi_errno, ssi_code;
    uint32_t ssi_pid, ssi_uid;
    int32_t ssi_fd;
    uint32_t ssi_tid, ssi_band, ssi_overrun, ssi_trapno;
    int32_t ssi_status, ssi_int;
    uint64_t ssi_ptr, ssi_utime, ssi_stime, ssi_addr;
    uint16_t ssi_addr_lsb, pad2;
    int32_t ssi_syscall;
    uint64_t ssi_call_addr;
    uint32_t ssi_arch;
    uint8_t pad[28];
};
_Static_assert(sizeof(struct signalfd_siginfo) == 128, "signalfd_siginfo");

/* The record of a taken signal, its fields chosen by the siginfo's layout as Linux's
 * siginfo_layout chooses them (the kernel's codes are positive, the senders' negative). */
static void to_record(int sig, const struct k_siginfo *k, struct signalfd_siginfo *r)
{
    memset(r, 0, sizeof *r);
    r->ssi_signo = (uint32_t)sig;
    r->ssi_code = k->code;
    if (k->code > 0 && k->code < SI_KERNEL) {
        if (sig == SIGCHLD) {
            r->ssi_pid = (uint32_t)k->pid;
            r->ssi_uid = (uint32_t)k->uid;
            r->ssi_status = k->status;      /* utime, stime: not kept (0) */
        } else if (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE ||
                   sig == SIGTRAP) {
            r->ssi_addr = k->addr;
        } else if (sig == SIGPOLL || k->code <= NSIGPOLL) {
            r->ssi_band = 0;                /* no SIGIO source in lx */
        }
    } else if (k->code == SI_TIMER) {
        r->ssi_tid = (uint32_t)k->timerid;
        r->ssi_overrun = (uint32_t)k->overrun;
        r->ssi_ptr = k->value;
        r->ssi_int = (int32_t)k->value;
    } else {
        r->ssi_pid = (uint32_t)k->pid;      /* SI_USER, SI_KERNEL; the others add a value */
        r->ssi_uid = (uint32_t)k->uid;
        if (k->code < 0 && k->code != SI_TKILL) {   /* Linux's SIL_RT layout */
            r->ssi_ptr = k->value;
            r->ssi_int = (int32_t)k->value;
        }
    }
}

static void signalfd_release(struct file *f)
{
    kfree(f->priv);
}

static long signalfd_read(struct thread *t, struct file *f, struct uio *u, l4_word_t *pos)
{
    (void)pos;
    struct signalfd *s = f->priv;
    l4_word_t n = u->resid / sizeof(struct signalfd_siginfo);
    if (!n)
        return -EINVAL;
    long total = 0;
    for (; n; n--) {
        struct k_siginfo k;
        int sig = signal_dequeue_mask(t, s->mask, &k);
        if (!sig)
            break;
        struct signalfd_siginfo r;
        to_record(sig, &k, &r);
        struct uio try = *u;
        if (uio_copy_out(&try, &r, sizeof r) != sizeof r)
            return total ? total : -EFAULT;     /* that signal is gone, as in Linux */
        *u = try;
        total += sizeof r;
    }
    return total ? total : -EAGAIN;
}

static unsigned signalfd_poll(struct thread *t, struct file *f, struct poll_table *pt)
{
    struct signalfd *s = f->priv;
    if (!t)
        return 0;
    poll_wait(pt, &t->proc->sig.signalfd_wait);
    return signal_pending(t) & s->mask ? POLLIN | POLLRDNORM : 0;
}

static int signalfd_show_fdinfo(struct file *f, char *buf, size_t size)
{
    struct signalfd *sf = f->priv;
    return snprintf(buf, size, "sigmask:\t%016llx\n", (unsigned long long)sf->mask);
}

static const struct file_ops signalfd_ops = {
    .release = signalfd_release, .read = signalfd_read, .poll = signalfd_poll,
    .anon_name = "[signalfd]", .show_fdinfo = signalfd_show_fdinfo,
};

static long do_signalfd(struct thread *t, long fd, l4_word_t umask, l4_word_t size, long flags)
{
    uint64_t mask;
    if (size != sizeof mask)
        return -EINVAL;
    if (copy_from_user(t->mm, &mask, umask, sizeof mask))
        return -EFAULT;
    if (flags & ~(long)(SFD_NONBLOCK | SFD_CLOEXEC))
        return -EINVAL;
    mask &= ~(SIGBIT(SIGKILL) | SIGBIT(SIGSTOP));
    if (fd != -1) {
        struct file *f = fd_get(t, fd);
        if (!f)
            return -EBADF;
        if (f->ops != &signalfd_ops)
            return -EINVAL;
        ((struct signalfd *)f->priv)->mask = mask;
        waitq_wake(&t->proc->sig.signalfd_wait);
        return fd;
    }
    struct signalfd *s = kmalloc(sizeof *s);
    if (!s)
        return -ENOMEM;
    s->mask = mask;
    return anon_install(t, &signalfd_ops, s, O_RDWR | (flags & SFD_NONBLOCK),
                        flags & SFD_CLOEXEC);
}

long sys_signalfd(struct thread *t, const struct sysargs *a)
{
    return do_signalfd(t, (int)a->a[0], a->a[1], a->a[2], 0);
}

long sys_signalfd4(struct thread *t, const struct sysargs *a)
{
    return do_signalfd(t, (int)a->a[0], a->a[1], a->a[2], (int)a->a[3]);
}
