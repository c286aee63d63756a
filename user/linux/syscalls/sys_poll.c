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
#include "vfs/file.h"
#include "vfs/poll.h"
#include <string.h>

struct pollfd { int fd; short events, revents; };

#define POLLIN_SET  (POLLIN | POLLRDNORM | POLLRDBAND | POLLHUP | POLLERR)
#define POLLOUT_SET (POLLOUT | POLLWRNORM | POLLWRBAND | POLLERR)
#define POLLEX_SET  POLLPRI
#define POLL_CHUNK  512             /* pollfds handled at a time (a page of them) */
#define SEL_WORDS   16              /* select's bits handled at a time, per set */

static struct pollfd pfds[POLL_CHUNK];

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

/* One piece of a poll array (count k at user address u): the ready entries counted, the
 * revents left in pfds; with write, written back too.  -EFAULT if it cannot be read. */
static long poll_piece(struct thread *t, l4_word_t u, l4_word_t k, bool wait, bool write)
{
    if (copy_from_user(t->mm, pfds, u, k * sizeof *pfds))
        return -EFAULT;
    long n = 0;
    for (l4_word_t i = 0; i < k; i++) {
        struct pollfd *p = &pfds[i];
        p->revents = 0;
        if (p->fd < 0)
            continue;
        struct file *f = fd_get(t, p->fd);
        unsigned m = f ? file_poll(f, t, wait) : POLLNVAL;
        p->revents = (short)(m & ((unsigned short)p->events | POLLERR | POLLHUP | POLLNVAL));
        n += p->revents != 0;
    }
    if (write && copy_to_user(t->mm, u, pfds, k * sizeof *pfds))
        return -EFAULT;
    return n;
}

/* Any number of pollfds up to RLIMIT_NOFILE, a chunk at a time: the answer is written back
 * once it is known (a second pass over the chunks when there are several). */
static long do_poll(struct thread *t, l4_word_t ufds, l4_word_t nfds, park_intr_fn intr)
{
    if (nfds > fd_limit(t))
        return -EINVAL;             /* more than RLIMIT_NOFILE */
    bool last = timed_out(t), one = nfds <= POLL_CHUNK;
    long n = 0;
    for (l4_word_t off = 0; off < nfds; off += POLL_CHUNK) {
        l4_word_t k = nfds - off < POLL_CHUNK ? nfds - off : POLL_CHUNK;
        long r = poll_piece(t, ufds + off * sizeof *pfds, k, !last, false);
        if (r < 0)
            return r;
        n += r;
    }
    if (!n && !last)
        return park_call_fn(t, t->park.u.poll.deadline, intr);
    for (l4_word_t off = 0; off < nfds; off += POLL_CHUNK) {
        l4_word_t k = nfds - off < POLL_CHUNK ? nfds - off : POLL_CHUNK;
        if (one ? copy_to_user(t->mm, ufds, pfds, k * sizeof *pfds)
                : poll_piece(t, ufds + off * sizeof *pfds, k, false, true) < 0)
            return -EFAULT;
    }
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

/* A piece of select's three sets: fds [base, base + 64 * words), ready ones into out;
 * the count, -EBADF or -EFAULT. */
static long select_piece(struct thread *t, const l4_word_t uset[3], long base, size_t words,
                         bool wait, uint64_t out[3][SEL_WORDS])
{
    static uint64_t in[3][SEL_WORDS];
    static const unsigned sets[3] = { POLLIN_SET, POLLOUT_SET, POLLEX_SET };
    for (unsigned s = 0; s < 3; s++) {
        memset(in[s], 0, sizeof in[s]);
        memset(out[s], 0, sizeof out[s]);
        if (uset[s] && copy_from_user(t->mm, in[s], uset[s] + (l4_word_t)base / 8, words * 8))
            return -EFAULT;
    }
    long n = 0;
    for (size_t w = 0; w < words; w++) {
        for (uint64_t any = in[0][w] | in[1][w] | in[2][w]; any; any &= any - 1) {
            unsigned b = (unsigned)__builtin_ctzll(any);
            struct file *f = fd_get(t, base + (long)(w * 64 + b));
            if (!f)
                return -EBADF;
            unsigned m = file_poll(f, t, wait);
            for (unsigned s = 0; s < 3; s++)
                if ((in[s][w] >> b & 1) && (m & sets[s])) {
                    out[s][w] |= 1ull << b;
                    n++;
                }
        }
    }
    return n;
}

/* select's three sets, each nfds bits rounded up to words (as Linux copies them), a piece
 * at a time; written back once the answer is known. */
static long do_select(struct thread *t, long nfds, const l4_word_t uset[3],
                      park_intr_fn intr)
{
    static uint64_t out[3][SEL_WORDS];
    if (nfds < 0)
        return -EINVAL;
    if ((unsigned long)nfds > fd_table_size(t))
        nfds = (long)fd_table_size(t);  /* Linux: the fd table's size */
    size_t total = (size_t)(nfds + 63) / 64;
    bool last = timed_out(t);
    long n = 0;
    for (size_t w = 0; w < total; w += SEL_WORDS) {
        size_t k = total - w < SEL_WORDS ? total - w : SEL_WORDS;
        long r = select_piece(t, uset, (long)w * 64, k, !last, out);
        if (r < 0)
            return r;
        n += r;
    }
    if (!n && !last)
        return park_call_fn(t, t->park.u.poll.deadline, intr);
    for (size_t w = 0; w < total; w += SEL_WORDS) {
        size_t k = total - w < SEL_WORDS ? total - w : SEL_WORDS;
        if (total > SEL_WORDS && select_piece(t, uset, (long)w * 64, k, false, out) < 0)
            return -EFAULT;
        for (unsigned s = 0; s < 3; s++)
            if (uset[s] && copy_to_user(t->mm, uset[s] + w * 8, out[s], k * 8))
                return -EFAULT;
    }
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
