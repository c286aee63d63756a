/* The pending signals' siginfo queue (sigqueue.h).  The memory is bounded: one siginfo per
 * standard signal in struct sigpending itself, and one kmalloc'd entry per further real-time
 * signal, which RLIMIT_SIGPENDING bounds (a full queue or no memory is the sender's EAGAIN,
 * nobody else's).  The count per user is a short list of the users that have something
 * queued. */
#include "signal/sigqueue.h"
#include "signal/signal.h"
#include "lib/kmalloc.h"

struct sigqueue_entry {             /* a real-time signal queued behind info[sig - 1] */
    struct sigqueue_entry *next;
    int sig;
    unsigned uid;                   /* the user it is counted for */
    struct k_siginfo info;
};

struct user_count {
    struct user_count *next;
    unsigned uid;
    unsigned long count;
};

static struct user_count *users;

static struct user_count *user_find(unsigned uid)
{
    for (struct user_count *u = users; u; u = u->next)
        if (u->uid == uid)
            return u;
    return NULL;
}

unsigned long sigqueue_user_count(unsigned uid)
{
    struct user_count *u = user_find(uid);
    return u ? u->count : 0;
}

/* Count one more siginfo for uid unless that passes limit (override: count it anyway). */
static bool charge(unsigned uid, uint64_t limit, bool override)
{
    struct user_count *u = user_find(uid);
    if (!u) {
        if (!(u = kmalloc(sizeof *u)))
            return false;
        u->uid = uid;
        u->next = users;
        users = u;
    }
    if (!override && u->count + 1 > limit) {
        if (!u->count) {
            users = u->next;        /* the one just made (limit 0) */
            kfree(u);
        }
        return false;
    }
    u->count++;
    return true;
}

static void uncharge(unsigned uid)
{
    struct user_count **pp = &users;
    for (struct user_count *u; (u = *pp); pp = &u->next)
        if (u->uid == uid) {
            if (!--u->count) {
                *pp = u->next;
                kfree(u);
            }
            return;
        }
}

int sigqueue_add(struct sigpending *q, int sig, const struct k_siginfo *info, unsigned uid,
                 uint64_t limit)
{
    uint64_t bit = SIGBIT(sig);
    bool rt = sig >= SIGRTMIN_K;
    if ((q->set & bit) && !rt)
        return 1;                   /* merged: the first siginfo stays (Linux's legacy_queue) */
    bool override = !rt && info->code >= 0;
    if (sig == SIGKILL) {           /* never queued (Linux): nothing to count */
        q->info[sig - 1] = *info;
        q->set |= bit;
        return 0;
    }
    if (!charge(uid, limit, override)) {
        if (rt && info->code != SI_USER)
            return -EAGAIN;
        if (!(q->set & bit)) {      /* pending without its siginfo */
            q->info[sig - 1] = (struct k_siginfo){ .code = SI_USER };
            q->charged &= ~bit;
            q->set |= bit;
        }
        return 0;
    }
    if (!(q->set & bit)) {
        q->info[sig - 1] = *info;
        q->charged_uid[sig - 1] = uid;
        q->charged |= bit;
        q->set |= bit;
        return 0;
    }
    struct sigqueue_entry *e = kmalloc(sizeof *e);
    if (!e) {
        uncharge(uid);
        return -EAGAIN;
    }
    *e = (struct sigqueue_entry){ .sig = sig, .uid = uid, .info = *info };
    struct sigqueue_entry **pp = &q->more;
    while (*pp)
        pp = &(*pp)->next;
    *pp = e;
    return 0;
}

/* Drop info[sig - 1] (its count goes). */
static void drop_first(struct sigpending *q, int sig)
{
    uint64_t bit = SIGBIT(sig);
    if (q->charged & bit)
        uncharge(q->charged_uid[sig - 1]);
    q->charged &= ~bit;
    q->set &= ~bit;
}

struct k_siginfo sigqueue_take(struct sigpending *q, int sig)
{
    struct k_siginfo info = q->info[sig - 1];
    drop_first(q, sig);
    for (struct sigqueue_entry **pp = &q->more, *e; (e = *pp);
         pp = &e->next)
        if (e->sig == sig) {        /* the next one moves up, its count with it */
            *pp = e->next;
            q->info[sig - 1] = e->info;
            q->charged_uid[sig - 1] = e->uid;
            q->charged |= SIGBIT(sig);
            q->set |= SIGBIT(sig);
            kfree(e);
            break;
        }
    return info;
}

void sigqueue_flush(struct sigpending *q, uint64_t mask)
{
    for (uint64_t m = q->set & mask; m; m &= m - 1)
        drop_first(q, __builtin_ctzll(m) + 1);
    for (struct sigqueue_entry **pp = &q->more, *e; (e = *pp);) {
        if (mask & SIGBIT(e->sig)) {
            *pp = e->next;
            uncharge(e->uid);
            kfree(e);
        } else {
            pp = &e->next;
        }
    }
}

struct k_siginfo sigqueue_info_from_user(int sig, const void *siginfo)
{
    const uint8_t *b = siginfo;
    struct k_siginfo k = { 0 };
    int32_t w[3];
    uint64_t v;
    __builtin_memcpy(&k.code, b + 8, 4);
    __builtin_memcpy(w, b + 16, sizeof w);
    __builtin_memcpy(&v, b + 24, sizeof v);
    if (k.code == SI_TIMER) {       /* _timer: tid, overrun, value (no timer of lx's) */
        k.timerid = w[0], k.overrun = w[1], k.value = v;
        k.timer_gen = ~0u;          /* no arming of a timer: posix_timer_dequeued ignores it */
    } else if (sig == SIGCHLD && k.code > 0 && k.code != SI_KERNEL) {
        k.pid = w[0], k.uid = w[1], k.status = w[2];    /* _sigchld */
    } else if (k.code <= 0 || k.code == SI_KERNEL) {
        k.pid = w[0], k.uid = w[1], k.value = v;        /* _kill, _rt */
    } else {
        __builtin_memcpy(&k.addr, b + 16, sizeof k.addr);   /* _sigfault */
    }
    return k;
}
