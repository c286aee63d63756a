/* SOL_SOCKET options (docs/linux/sockets.md, "Options"): Linux's sk_setsockopt and
 * sk_getsockopt for what every family shares.  Buffer sizes are doubled and clamped as
 * Linux does (net.core.wmem_max/rmem_max, SOCK_MIN_SNDBUF/RCVBUF); timeouts are kept in
 * Linux's jiffies (HZ 250, Debian's), so getsockopt gives back the rounded value Linux
 * gives.  Other levels: the family's (AF_UNIX has none: EOPNOTSUPP). */
#include "net/socket.h"
#include "lib/errno.h"
#include "mm/usercopy.h"
#include "task/thread.h"

#define SOL_SOCKET      1
#define SO_DEBUG        1
#define SO_REUSEADDR    2
#define SO_TYPE         3
#define SO_ERROR        4
#define SO_DONTROUTE    5
#define SO_BROADCAST    6
#define SO_SNDBUF       7
#define SO_RCVBUF       8
#define SO_KEEPALIVE    9
#define SO_OOBINLINE    10
#define SO_PRIORITY     12
#define SO_LINGER       13
#define SO_REUSEPORT    15
#define SO_PEERCRED     17
#define SO_RCVLOWAT     18
#define SO_SNDLOWAT     19
#define SO_RCVTIMEO_OLD 20
#define SO_SNDTIMEO_OLD 21
#define SO_ACCEPTCONN   30
#define SO_SNDBUFFORCE  32
#define SO_RCVBUFFORCE  33
#define SO_PROTOCOL     38
#define SO_DOMAIN       39
#define SO_RCVTIMEO_NEW 66
#define SO_SNDTIMEO_NEW 67

#define WMEM_MAX        212992      /* net.core.wmem_max and wmem_default */
#define RMEM_MAX        212992
#define SOCK_MIN_SNDBUF 4608        /* 2 * (2048 + the aligned sk_buff) */
#define SOCK_MIN_RCVBUF 2304
#define HZ              250
#define NS_PER_JIFFY    (1000000000ull / HZ)
#define INT_MAX_        0x7fffffff

void sock_init_opts(struct socket *s)
{
    s->sndbuf = WMEM_MAX;
    s->rcvbuf = RMEM_MAX;
    s->rcvtimeo = s->sndtimeo = SOCK_TIMEO_NONE;
    s->rcvlowat = 1;
}

struct ktimeval {
    long sec, usec;
};

/* Linux's sock_set_timeout: a timeval into jiffies (as ns), rounded up. */
static int set_timeout(struct thread *t, uint64_t *timeo, l4_word_t uval, unsigned len)
{
    struct ktimeval tv;
    if (len < sizeof tv)
        return -EINVAL;
    if (copy_from_user(t->mm, &tv, uval, sizeof tv))
        return -EFAULT;
    if (tv.usec < 0 || tv.usec >= 1000000)
        return -EDOM;
    if (tv.sec < 0) {
        *timeo = 0;                 /* Linux: no wait at all */
        return 0;
    }
    *timeo = SOCK_TIMEO_NONE;
    if (!tv.sec && !tv.usec)
        return 0;
    if ((unsigned long)tv.sec < (INT_MAX_ / HZ - 1))
        *timeo = ((uint64_t)tv.sec * HZ + ((unsigned long)tv.usec + 3999) / 4000) * NS_PER_JIFFY;
    return 0;
}

/* Linux's sock_set_sndbuf/__sock_set_rcvbuf: clamped to the sysctl maximum (not when
 * forced: root's SO_*BUFFORCE), doubled for the bookkeeping overhead, at least min. */
static int buf_size(int val, bool force, int max, int min)
{
    if (!force)
        val = (unsigned)val > (unsigned)max ? max : val;
    else if (val < 0)
        val = 0;
    if (val > INT_MAX_ / 2)
        val = INT_MAX_ / 2;
    return val * 2 > min ? val * 2 : min;
}

static void set_bool(struct socket *s, int opt, int val)
{
    s->opts = val ? s->opts | 1u << opt : s->opts & ~(1u << opt);
}

long sock_setsockopt(struct thread *t, struct socket *s, int level, int name, l4_word_t uval,
                     unsigned len)
{
    if ((int)len < 0)
        return -EINVAL;
    if (level != SOL_SOCKET)
        return s->ops->setsockopt ? s->ops->setsockopt(t, s, level, name, uval, len) : -EOPNOTSUPP;
    if (len < sizeof(int))
        return -EINVAL;
    int val;
    if (copy_from_user(t->mm, &val, uval, sizeof val))
        return -EFAULT;
    switch (name) {
    case SO_DEBUG: case SO_REUSEADDR: case SO_DONTROUTE: case SO_BROADCAST: case SO_KEEPALIVE:
    case SO_OOBINLINE: case SO_REUSEPORT: case SO_PASSCRED:
        set_bool(s, name, val);
        return 0;
    case SO_SNDBUF:
    case SO_SNDBUFFORCE:
        s->sndbuf = buf_size(val, name == SO_SNDBUFFORCE, WMEM_MAX, SOCK_MIN_SNDBUF);
        waitq_wake(&s->wq);         /* room for writers, maybe */
        return 0;
    case SO_RCVBUF:
    case SO_RCVBUFFORCE:
        s->rcvbuf = buf_size(val, name == SO_RCVBUFFORCE, RMEM_MAX, SOCK_MIN_RCVBUF);
        return 0;
    case SO_PRIORITY:
        s->priority = val;          /* any value: every process is privileged here */
        return 0;
    case SO_LINGER: {
        int ling[2];
        if (len < sizeof ling)
            return -EINVAL;
        if (copy_from_user(t->mm, ling, uval, sizeof ling))
            return -EFAULT;
        s->linger_on = ling[0] != 0;
        s->linger_sec = ling[0] ? ling[1] : 0;
        return 0;
    }
    case SO_RCVLOWAT:
        s->rcvlowat = val < 0 ? INT_MAX_ : val ? val : 1;
        return 0;
    case SO_RCVTIMEO_OLD: case SO_RCVTIMEO_NEW:
        return set_timeout(t, &s->rcvtimeo, uval, len);
    case SO_SNDTIMEO_OLD: case SO_SNDTIMEO_NEW:
        return set_timeout(t, &s->sndtimeo, uval, len);
    default:
        return -ENOPROTOOPT;
    }
}

static struct ktimeval get_timeout(uint64_t timeo)
{
    if (timeo == SOCK_TIMEO_NONE)
        return (struct ktimeval){ 0, 0 };
    uint64_t j = timeo / NS_PER_JIFFY;
    return (struct ktimeval){ (long)(j / HZ), (long)((j % HZ) * 1000000 / HZ) };
}

long sock_getsockopt(struct thread *t, struct socket *s, int level, int name, l4_word_t uval,
                     l4_word_t ulen)
{
    if (level != SOL_SOCKET)
        return s->ops->getsockopt ? s->ops->getsockopt(t, s, level, name, uval, ulen) : -EOPNOTSUPP;
    int len;
    if (copy_from_user(t->mm, &len, ulen, sizeof len))
        return -EFAULT;
    if (len < 0)
        return -EINVAL;
    union {
        int val;
        int ling[2];
        struct ktimeval tv;
        struct ucred cred;
    } v = { 0 };
    unsigned lv = sizeof(int);
    switch (name) {
    case SO_DEBUG: case SO_REUSEADDR: case SO_DONTROUTE: case SO_BROADCAST: case SO_KEEPALIVE:
    case SO_OOBINLINE: case SO_REUSEPORT: case SO_PASSCRED:
        v.val = (int)SO_BOOL(s, name);
        break;
    case SO_TYPE: v.val = s->type; break;
    case SO_PROTOCOL: v.val = s->protocol; break;
    case SO_DOMAIN: v.val = s->family; break;
    case SO_ERROR:
        v.val = s->err;
        s->err = 0;
        break;
    case SO_SNDBUF: v.val = s->sndbuf; break;
    case SO_RCVBUF: v.val = s->rcvbuf; break;
    case SO_PRIORITY: v.val = s->priority; break;
    case SO_RCVLOWAT: v.val = s->rcvlowat; break;
    case SO_SNDLOWAT: v.val = 1; break;
    case SO_ACCEPTCONN: v.val = s->state == SS_LISTEN; break;
    case SO_LINGER:
        lv = sizeof v.ling;
        v.ling[0] = s->linger_on;
        v.ling[1] = s->linger_sec;
        break;
    case SO_RCVTIMEO_OLD: case SO_RCVTIMEO_NEW:
        lv = sizeof v.tv;
        v.tv = get_timeout(s->rcvtimeo);
        break;
    case SO_SNDTIMEO_OLD: case SO_SNDTIMEO_NEW:
        lv = sizeof v.tv;
        v.tv = get_timeout(s->sndtimeo);
        break;
    case SO_PEERCRED:
        lv = sizeof v.cred;
        /* Linux's cred_to_ucred without a peer: pid 0, ids -1 */
        v.cred = s->has_peer ? s->peer : (struct ucred){ 0, ~0u, ~0u };
        break;
    default:
        return -ENOPROTOOPT;
    }
    if ((unsigned)len > lv)
        len = (int)lv;
    if (copy_to_user(t->mm, uval, &v, (size_t)len))
        return -EFAULT;
    return copy_to_user(t->mm, ulen, &len, sizeof len);
}
