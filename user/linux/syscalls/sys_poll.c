/* poll, ppoll, select, pselect6 (docs/linux/pipes.md, "Readiness").  Each file's poll op
 * says what is ready (NULL op: always readable and writable, like a regular file).  When
 * nothing is, the call parks on the queues the ops named, with its timeout as the park's
 * deadline (kept in t->wait_deadline: a rerun sees the same arguments, not the time spent);
 * a wake or the deadline runs it again.  ppoll's and pselect6's signal mask is stored in
 * t->wait_sigmask for the signal layer, which applies it while the call is parked. */
#include "syscalls/handlers.h"
#include "lib/errno.h"
#include "mm/usercopy.h"
#include "park/park.h"
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
static void set_deadline(struct task *t, uint64_t timeout)
{
    if (park_retrying(t))
        return;
    uint64_t now = lx_now();
    t->wait_deadline = timeout == ~0ull ? 0 : timeout ? now + timeout : now;
}

/* The deadline has passed: this run is the last (nothing ready: 0). */
static bool timed_out(const struct task *t)
{
    return t->wait_deadline && lx_now() >= t->wait_deadline;
}

static uint64_t remaining(const struct task *t)
{
    uint64_t now = lx_now();
    return t->wait_deadline > now ? t->wait_deadline - now : 0;
}

static long wait_more(struct task *t)
{
    return park_call(t, t->wait_deadline);
}

/* The end of the call (ready, timed out or failed): the mask no longer applies. */
static long done(struct task *t, long r)
{
    t->wait_sigmask_set = false;
    return r;
}

int poll_get_sigmask(struct task *t, l4_word_t umask, l4_word_t size)
{
    if (!umask || park_retrying(t))
        return 0;
    if (size != 8)
        return -EINVAL;
    if (copy_from_user(&t->mm, &t->wait_sigmask, umask, 8))
        return -EFAULT;
    t->wait_sigmask_set = true;
    return 0;
}

/* One piece of a poll array (count k at user address u): the ready entries counted, the
 * revents left in pfds; with write, written back too.  -EFAULT if it cannot be read. */
static long poll_piece(struct task *t, l4_word_t u, l4_word_t k, bool wait, bool write)
{
    if (copy_from_user(&t->mm, pfds, u, k * sizeof *pfds))
        return -EFAULT;
    long n = 0;
    for (l4_word_t i = 0; i < k; i++) {
        struct pollfd *p = &pfds[i];
        p->revents = 0;
        if (p->fd < 0)
            continue;
        struct file *f = fd_get(t, p->fd);
        unsigned m = f ? file_poll(f, wait ? t : NULL) : POLLNVAL;
        p->revents = (short)(m & ((unsigned short)p->events | POLLERR | POLLHUP | POLLNVAL));
        n += p->revents != 0;
    }
    if (write && copy_to_user(&t->mm, u, pfds, k * sizeof *pfds))
        return -EFAULT;
    return n;
}

/* Any number of pollfds up to RLIMIT_NOFILE, a chunk at a time: the answer is written back
 * once it is known (a second pass over the chunks when there are several). */
static long do_poll(struct task *t, l4_word_t ufds, l4_word_t nfds)
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
        return wait_more(t);
    for (l4_word_t off = 0; off < nfds; off += POLL_CHUNK) {
        l4_word_t k = nfds - off < POLL_CHUNK ? nfds - off : POLL_CHUNK;
        if (one ? copy_to_user(&t->mm, ufds, pfds, k * sizeof *pfds)
                : poll_piece(t, ufds + off * sizeof *pfds, k, false, true) < 0)
            return -EFAULT;
    }
    return n;
}

long sys_poll(struct task *t, const struct sysargs *a)
{
    long ms = (int)a->a[2];
    set_deadline(t, ms < 0 ? ~0ull : (uint64_t)ms * 1000000);
    return do_poll(t, a->a[0], a->a[1]);
}

long sys_ppoll(struct task *t, const struct sysargs *a)
{
    uint64_t timeout = ~0ull;
    int e;
    if (a->a[2] && (e = timespec_get(&t->mm, a->a[2], &timeout)))
        return e;
    if ((e = poll_get_sigmask(t, a->a[3], a->a[4])))
        return e;
    set_deadline(t, timeout);
    long r = do_poll(t, a->a[0], a->a[1]);
    if (r == LX_PARK)
        return r;
    /* Linux writes the time left back (the C libraries hide it). */
    if (a->a[2] && r >= 0 && timespec_put(&t->mm, a->a[2], remaining(t)))
        r = -EFAULT;
    return done(t, r);
}

/* A piece of select's three sets: fds [base, base + 64 * words), ready ones into out;
 * the count, -EBADF or -EFAULT. */
static long select_piece(struct task *t, const l4_word_t uset[3], long base, size_t words,
                         bool wait, uint64_t out[3][SEL_WORDS])
{
    static uint64_t in[3][SEL_WORDS];
    static const unsigned sets[3] = { POLLIN_SET, POLLOUT_SET, POLLEX_SET };
    for (unsigned s = 0; s < 3; s++) {
        memset(in[s], 0, sizeof in[s]);
        memset(out[s], 0, sizeof out[s]);
        if (uset[s] && copy_from_user(&t->mm, in[s], uset[s] + (l4_word_t)base / 8, words * 8))
            return -EFAULT;
    }
    long n = 0;
    for (size_t w = 0; w < words; w++) {
        for (uint64_t any = in[0][w] | in[1][w] | in[2][w]; any; any &= any - 1) {
            unsigned b = (unsigned)__builtin_ctzll(any);
            struct file *f = fd_get(t, base + (long)(w * 64 + b));
            if (!f)
                return -EBADF;
            unsigned m = file_poll(f, wait ? t : NULL);
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
static long do_select(struct task *t, long nfds, const l4_word_t uset[3])
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
        return wait_more(t);
    for (size_t w = 0; w < total; w += SEL_WORDS) {
        size_t k = total - w < SEL_WORDS ? total - w : SEL_WORDS;
        if (total > SEL_WORDS && select_piece(t, uset, (long)w * 64, k, false, out) < 0)
            return -EFAULT;
        for (unsigned s = 0; s < 3; s++)
            if (uset[s] && copy_to_user(&t->mm, uset[s] + w * 8, out[s], k * 8))
                return -EFAULT;
    }
    return n;
}

long sys_select(struct task *t, const struct sysargs *a)
{
    uint64_t timeout = ~0ull;
    int e;
    if (a->a[4] && (e = timeval_get(&t->mm, a->a[4], &timeout)))
        return e;
    set_deadline(t, timeout);
    long r = do_select(t, (int)a->a[0], &a->a[1]);
    if (r == LX_PARK)
        return r;
    if (a->a[4] && r >= 0 && timeval_put(&t->mm, a->a[4], remaining(t)))
        r = -EFAULT;
    return r;
}

long sys_pselect6(struct task *t, const struct sysargs *a)
{
    uint64_t timeout = ~0ull;
    int e;
    if (a->a[4] && (e = timespec_get(&t->mm, a->a[4], &timeout)))
        return e;
    if (a->a[5]) {                  /* { const sigset_t *mask; size_t size; } */
        l4_word_t ss[2];
        if (copy_from_user(&t->mm, ss, a->a[5], sizeof ss))
            return -EFAULT;
        if ((e = poll_get_sigmask(t, ss[0], ss[1])))
            return e;
    }
    set_deadline(t, timeout);
    long r = do_select(t, (int)a->a[0], &a->a[1]);
    if (r == LX_PARK)
        return r;
    if (a->a[4] && r >= 0 && timespec_put(&t->mm, a->a[4], remaining(t)))
        r = -EFAULT;
    return done(t, r);
}
