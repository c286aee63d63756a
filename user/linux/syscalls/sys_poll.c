/* poll, ppoll, select, pselect6 (docs/linux/pipes.md, "Readiness").  Each file's poll op
 * says what is ready (NULL op: always readable and writable, like a regular file).  When
 * nothing is, the call parks on the queues the ops named, with its timeout as the park's
 * deadline (kept in the thread's park.u.poll: a rerun sees the same arguments, not the time
 * spent); a wake or the deadline runs it again.
 *
 * Interrupted by a signal, each ends as Linux's: poll through restart_syscall with the time
 * that was left (its restart block); select, pselect6 and ppoll write the time left back and
 * restart only when no handler runs (else EINTR).  ppoll's, pselect6's and epoll_pwait's
 * signal mask is the thread's mask while the call runs (as rt_sigsuspend's), restored when
 * it ends, or by the handler's frame when a signal it let in interrupts it. */
#include "syscalls/handlers.h"
#include "lib/errno.h"
#include "mm/usercopy.h"
#include "park/park.h"
#include "signal/signal.h"
#include "task/process.h"
#include "time/clock.h"
#include "vfs/poll.h"
#include <string.h>

struct pollfd { int fd; short events, revents; };

#define POLLIN_SET  (POLLIN | POLLRDNORM | POLLRDBAND | POLLHUP | POLLERR)
#define POLLOUT_SET (POLLOUT | POLLWRNORM | POLLWRBAND | POLLERR)
#define POLLEX_SET  POLLPRI
#define FD_WORDS    (LX_NFDS / 64)

static struct pollfd pfds[LX_NFDS];

/* The first run sets the deadline from a timeout in ns (~0: none, wait forever). */
static void set_deadline(struct thread *t, uint64_t timeout)
{
    if (park_retrying(t))
        return;
    uint64_t now = lx_now();
    t->park.u.poll.deadline = timeout == ~0ull ? 0 : timeout ? now + timeout : now;
}

/* The deadline has passed: this run is the last (nothing ready: 0). */
static bool timed_out(const struct thread *t)
{
    uint64_t end = t->park.u.poll.deadline;
    return end && lx_now() >= end;
}

static uint64_t remaining(const struct thread *t)
{
    uint64_t now = lx_now(), end = t->park.u.poll.deadline;
    return end > now ? end - now : 0;
}

int poll_set_sigmask(struct thread *t, l4_word_t umask, l4_word_t size)
{
    uint64_t mask;
    if (!umask || park_retrying(t))
        return 0;
    if (size != 8)
        return -EINVAL;
    if (copy_from_user(t->mm, &mask, umask, 8))
        return -EFAULT;
    signal_set_temp_mask(t, mask);
    return 0;
}

long poll_done(struct thread *t, long r)
{
    if (r != LX_PARK)
        signal_restore_temp_mask(t);    /* it did not end by a signal: the old mask again */
    return r;
}

/* select, pselect6, ppoll interrupted: the time left written back (the restart, if any, then
 * waits only that long), -ERESTARTNOHAND; EINTR if it cannot be written (Linux's
 * poll_select_finish).  The timeout's address and kind: the call's arguments. */
static long timeout_left(struct thread *t, l4_word_t utime, bool timeval)
{
    uint64_t left = remaining(t);
    if (!utime || !t->park.u.poll.deadline)
        return -ERESTARTNOHAND;
    int e = timeval ? timeval_put(t->mm, utime, left) : timespec_put(t->mm, utime, left);
    return e ? -EINTR : -ERESTARTNOHAND;
}

static long select_interrupted(struct thread *t)
{
    return timeout_left(t, t->park.call.a[4], true);
}

static long pselect_interrupted(struct thread *t)
{
    return timeout_left(t, t->park.call.a[4], false);
}

static long ppoll_interrupted(struct thread *t)
{
    return timeout_left(t, t->park.call.a[2], false);
}

static long do_poll(struct thread *t, l4_word_t ufds, l4_word_t nfds, park_intr_fn intr)
{
    if (nfds > LX_NFDS)
        return -EINVAL;             /* more than RLIMIT_NOFILE */
    if (copy_from_user(t->mm, pfds, ufds, nfds * sizeof *pfds))
        return -EFAULT;
    bool last = timed_out(t);
    long n = 0;
    for (l4_word_t i = 0; i < nfds; i++) {
        struct pollfd *p = &pfds[i];
        p->revents = 0;
        if (p->fd < 0)
            continue;
        struct file *f = fd_get(t, p->fd);
        unsigned m = f ? file_poll(f, last ? NULL : t) : POLLNVAL;
        p->revents = (short)(m & ((unsigned short)p->events | POLLERR | POLLHUP | POLLNVAL));
        n += p->revents != 0;
    }
    if (!n && !last)
        return park_call_fn(t, t->park.u.poll.deadline, intr);
    if (copy_to_user(t->mm, ufds, pfds, nfds * sizeof *pfds))
        return -EFAULT;
    return n;
}

/* poll interrupted: restart_syscall goes on with the same fds until the same deadline
 * (Linux's do_restart_poll). */
static long poll_restart(struct thread *t);

static long poll_interrupted(struct thread *t)
{
    const struct park_poll *pp = &t->park.u.poll;
    t->restart.fn = poll_restart;
    t->restart.u.poll.ufds = pp->ufds;
    t->restart.u.poll.nfds = pp->nfds;
    t->restart.u.poll.deadline = pp->deadline;
    return -ERESTART_RESTARTBLOCK;
}

static long poll_restart(struct thread *t)
{
    struct park_poll *pp = park_poll(&t->park);
    if (!park_retrying(t)) {
        pp->ufds = t->restart.u.poll.ufds;
        pp->nfds = t->restart.u.poll.nfds;
        pp->deadline = t->restart.u.poll.deadline;
    }
    return do_poll(t, pp->ufds, pp->nfds, poll_interrupted);
}

long sys_poll(struct thread *t, const struct sysargs *a)
{
    struct park_poll *pp = park_poll(&t->park);
    long ms = (int)a->a[2];
    set_deadline(t, ms < 0 ? ~0ull : (uint64_t)ms * 1000000);
    pp->ufds = a->a[0];
    pp->nfds = a->a[1];
    return do_poll(t, a->a[0], a->a[1], poll_interrupted);
}

long sys_ppoll(struct thread *t, const struct sysargs *a)
{
    park_poll(&t->park);
    uint64_t timeout = ~0ull;
    int e;
    if (a->a[2] && !park_retrying(t) && (e = timespec_get(t->mm, a->a[2], &timeout)))
        return e;
    if ((e = poll_set_sigmask(t, a->a[3], a->a[4])))
        return e;
    set_deadline(t, timeout);
    long r = do_poll(t, a->a[0], a->a[1], ppoll_interrupted);
    if (r == LX_PARK)
        return r;
    /* Linux writes the time left back (the C libraries hide it). */
    if (a->a[2] && r >= 0 && timespec_put(t->mm, a->a[2], remaining(t)))
        r = -EFAULT;
    return poll_done(t, r);
}

/* select's three sets, each nfds bits rounded up to words (as Linux copies them). */
static long do_select(struct thread *t, long nfds, const l4_word_t uset[3], park_intr_fn intr)
{
    static uint64_t in[3][FD_WORDS], out[3][FD_WORDS];
    if (nfds < 0)
        return -EINVAL;
    if (nfds > LX_NFDS)
        nfds = LX_NFDS;             /* Linux: the fd table's size */
    size_t bytes = (size_t)(nfds + 63) / 64 * 8;
    for (unsigned s = 0; s < 3; s++) {
        memset(in[s], 0, sizeof in[s]);
        memset(out[s], 0, sizeof out[s]);
        if (uset[s] && copy_from_user(t->mm, in[s], uset[s], bytes))
            return -EFAULT;
    }
    bool last = timed_out(t);
    long n = 0;
    for (long fd = 0; fd < nfds; fd++) {
        uint64_t bit = 1ull << (fd % 64);
        unsigned w = (unsigned)fd / 64;
        if (!((in[0][w] | in[1][w] | in[2][w]) & bit))
            continue;
        struct file *f = fd_get(t, fd);
        if (!f)
            return -EBADF;
        unsigned m = file_poll(f, last ? NULL : t);
        static const unsigned sets[3] = { POLLIN_SET, POLLOUT_SET, POLLEX_SET };
        for (unsigned s = 0; s < 3; s++)
            if ((in[s][w] & bit) && (m & sets[s])) {
                out[s][w] |= bit;
                n++;
            }
    }
    if (!n && !last)
        return park_call_fn(t, t->park.u.poll.deadline, intr);
    for (unsigned s = 0; s < 3; s++)
        if (uset[s] && copy_to_user(t->mm, uset[s], out[s], bytes))
            return -EFAULT;
    return n;
}

long sys_select(struct thread *t, const struct sysargs *a)
{
    park_poll(&t->park);
    uint64_t timeout = ~0ull;
    int e;
    if (a->a[4] && !park_retrying(t) && (e = timeval_get(t->mm, a->a[4], &timeout)))
        return e;
    set_deadline(t, timeout);
    long r = do_select(t, (int)a->a[0], &a->a[1], select_interrupted);
    if (r == LX_PARK)
        return r;
    if (a->a[4] && r >= 0 && timeval_put(t->mm, a->a[4], remaining(t)))
        r = -EFAULT;
    return r;
}

long sys_pselect6(struct thread *t, const struct sysargs *a)
{
    park_poll(&t->park);
    uint64_t timeout = ~0ull;
    int e;
    if (a->a[4] && !park_retrying(t) && (e = timespec_get(t->mm, a->a[4], &timeout)))
        return e;
    if (a->a[5] && !park_retrying(t)) {     /* { const sigset_t *mask; size_t size; } */
        l4_word_t ss[2];
        if (copy_from_user(t->mm, ss, a->a[5], sizeof ss))
            return -EFAULT;
        if ((e = poll_set_sigmask(t, ss[0], ss[1])))
            return e;
    }
    set_deadline(t, timeout);
    long r = do_select(t, (int)a->a[0], &a->a[1], pselect_interrupted);
    if (r == LX_PARK)
        return r;
    if (a->a[4] && r >= 0 && timespec_put(t->mm, a->a[4], remaining(t)))
        r = -EFAULT;
    return poll_done(t, r);
}
