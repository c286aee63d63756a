/* System V message queues (docs/linux/sysvipc.md), with Linux 6.1's ipc/msg.c as the
 * reference.  A message's text lives in whole pages (kmalloc stops at a page).  A receiver
 * that waits is an entry on its queue's receiver list, as Linux's msg_receiver: a send hands
 * its message straight to the first waiting receiver that takes its type (pipelined_send),
 * so the order in which receivers get messages is Linux's.  A sender that waits for room is
 * on the queue's wait queue and looks again when woken. */
#include "ipc/msg.h"
#include "ipc/util.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "mm/page.h"
#include "mm/usercopy.h"
#include "task/process.h"
#include <limits.h>
#include <stdio.h>
#include <string.h>

#define MSG_STAT     11
#define MSG_INFO     12
#define MSG_STAT_ANY 13

#define MSG_NOERROR 010000
#define MSG_EXCEPT  020000
#define MSG_COPY    040000

#define MSGSSZ  16
#define MSGPOOL (32000 * 16384 / 1024)
#define MSGSEG  0xffff

enum search { SEARCH_ANY, SEARCH_EQUAL, SEARCH_NOTEQUAL, SEARCH_LESSEQUAL, SEARCH_NUMBER };

struct msg_msg {
    struct list link;               /* in the queue's messages */
    long type;
    size_t size;
    unsigned npages;
    void *pages[];
};

struct msg_queue {
    struct ipc_perm_k perm;         /* first */
    int64_t stime, rtime, ctime;
    unsigned long cbytes, qnum, qbytes;
    int lspid, lrpid;
    struct list messages;
    struct list receivers;          /* struct msg_receiver, by link */
    struct waitq senders;
};

struct msg_receiver {               /* a waiting msgrcv (park.u.ipc.q) */
    struct list link;
    struct thread *t;
    long type;
    int mode;
    long maxsize;
    l4_word_t umsgp, bufsz;         /* where a message handed to it goes */
};

static long msg_bytes, msg_hdrs;    /* in every queue: MSG_INFO */

static inline struct msg_queue *msq_of(struct ipc_perm_k *p)
{
    return (struct msg_queue *)p;
}

/* --- messages -------------------------------------------------------------------------------- */

static void free_msg(struct msg_msg *m)
{
    for (unsigned i = 0; i < m->npages; i++)
        if (m->pages[i])
            page_free(m->pages[i]);
    kfree(m);
}

/* The text at utext (size bytes) in a new message: NULL with *err (-EFAULT, -ENOMEM). */
static struct msg_msg *load_msg(struct thread *t, l4_word_t utext, size_t size, int *err)
{
    unsigned npages = (unsigned)((size + LX_PAGE - 1) / LX_PAGE);
    if (sizeof(struct msg_msg) + npages * sizeof(void *) > LX_PAGE) {
        *err = -ENOMEM;
        return NULL;
    }
    struct msg_msg *m = kmalloc(sizeof *m + npages * sizeof(void *));
    if (!m) {
        *err = -ENOMEM;
        return NULL;
    }
    m->npages = npages;
    m->size = size;
    for (unsigned i = 0; i < npages; i++) {
        size_t n = size - i * LX_PAGE < LX_PAGE ? size - i * LX_PAGE : LX_PAGE;
        if (!(m->pages[i] = page_alloc())) {
            free_msg(m);
            *err = -ENOMEM;
            return NULL;
        }
        if (copy_from_user(t->mm, m->pages[i], utext + i * LX_PAGE, n)) {
            free_msg(m);
            *err = -EFAULT;
            return NULL;
        }
    }
    return m;
}

/* mtype and up to bufsz bytes of the text to umsgp: the bytes given, or -EFAULT. */
static long store_msg(struct thread *t, l4_word_t umsgp, const struct msg_msg *m, size_t bufsz)
{
    size_t n = bufsz > m->size ? m->size : bufsz;
    if (copy_to_user(t->mm, umsgp, &m->type, sizeof m->type))
        return -EFAULT;
    for (unsigned i = 0; i * LX_PAGE < n; i++) {
        size_t k = n - i * LX_PAGE < LX_PAGE ? n - i * LX_PAGE : LX_PAGE;
        if (copy_to_user(t->mm, umsgp + sizeof(long) + i * LX_PAGE, m->pages[i], k))
            return -EFAULT;
    }
    return (long)n;
}

static bool testmsg(const struct msg_msg *m, long type, int mode)
{
    switch (mode) {
    case SEARCH_ANY:
    case SEARCH_NUMBER:
        return true;
    case SEARCH_LESSEQUAL:
        return m->type <= type;
    case SEARCH_EQUAL:
        return m->type == type;
    case SEARCH_NOTEQUAL:
        return m->type != type;
    }
    return false;
}

static struct msg_msg *find_msg(struct msg_queue *q, long *type, int mode)
{
    struct msg_msg *m, *found = NULL;
    long count = 0;
    list_each(m, &q->messages, link) {
        if (!testmsg(m, *type, mode))
            continue;
        if (mode == SEARCH_LESSEQUAL && m->type != 1) {
            *type = m->type - 1;
            found = m;
        } else if (mode == SEARCH_NUMBER) {
            if (*type == count)
                return m;
        } else {
            return m;
        }
        count++;
    }
    return found;
}

static bool fits(const struct msg_queue *q, size_t size)
{
    return size + q->cbytes <= q->qbytes && 1 + q->qnum <= q->qbytes;
}

/* --- msgget ---------------------------------------------------------------------------------- */

static int newque(struct thread *t, int key, unsigned flag, void *arg)
{
    (void)arg;
    struct msg_queue *q = kmalloc(sizeof *q);
    if (!q)
        return -ENOMEM;
    q->ctime = ipc_seconds();
    q->qbytes = (unsigned long)ipc_lim.msgmnb;
    list_init(&q->messages);
    list_init(&q->receivers);
    int e = ipc_add(&msg_ids, &q->perm, t, key, flag, ipc_lim.msgmni);
    if (e) {
        kfree(q);
        return e;
    }
    return q->perm.id;
}

long msg_msgget(struct thread *t, int key, unsigned flag)
{
    return ipc_get(t, &msg_ids, key, flag, NULL, newque, NULL);
}

/* --- waking ---------------------------------------------------------------------------------- */

/* r's call ends with status, or with m: copied to the receiver's buffer at once (so a
 * receiver that ends before it runs again holds nothing), the count or EFAULT its result. */
static void receiver_done(struct msg_receiver *r, long status, struct msg_msg *m)
{
    struct park_ipc *pi = &r->t->park.u.ipc;
    list_del(&r->link);
    if (m) {
        status = store_msg(r->t, r->umsgp, m, r->bufsz);
        free_msg(m);
    }
    pi->status = status;
    pi->done = true;
    park_wake(r->t);
}

/* Every receiver ends with err (EIDRM), or looks again (EAGAIN: IPC_SET). */
static void expunge_all(struct msg_queue *q, long err)
{
    while (!list_empty(&q->receivers)) {
        struct msg_receiver *r = list_entry(q->receivers.next, struct msg_receiver, link);
        if (err == -EAGAIN) {
            list_del(&r->link);
            park_wake(r->t);
        } else {
            receiver_done(r, err, NULL);
        }
    }
}

/* Every sender waiting for room looks again; with kill, ends with EIDRM. */
static void senders_wake(struct msg_queue *q, bool kill)
{
    if (kill && q->senders.waiters.next) {
        struct waiter *w;
        list_each(w, &q->senders.waiters, qlink)
            if (w->t->park.use == PARK_USE_IPC) {
                w->t->park.u.ipc.status = -EIDRM;
                w->t->park.u.ipc.done = true;
            }
    }
    waitq_wake(&q->senders);
}

/* A waiting receiver takes m straight away (too small for it: it ends with E2BIG and the
 * next one is asked). */
static bool pipelined_send(struct msg_queue *q, struct msg_msg *m)
{
    struct msg_receiver *r, *n;
    list_each_safe(r, n, &q->receivers, link) {
        if (!testmsg(m, r->type, r->mode))
            continue;
        if (r->maxsize < (long)m->size) {
            receiver_done(r, -E2BIG, NULL);
            continue;
        }
        q->lrpid = ipc_tgid(r->t);
        q->rtime = ipc_seconds();
        receiver_done(r, 0, m);
        return true;
    }
    return false;
}

/* --- msgsnd ---------------------------------------------------------------------------------- */

long msg_msgsnd(struct thread *t, int msqid, l4_word_t umsgp, l4_word_t msgsz, int flag)
{
    struct park_ipc *pi = park_ipc(&t->park);
    if (park_retrying(t) && pi->done)
        return pi->status;
    long mtype;
    if (copy_from_user(t->mm, &mtype, umsgp, sizeof mtype))
        return -EFAULT;
    if (msgsz > (l4_word_t)ipc_lim.msgmax || (long)msgsz < 0 || msqid < 0)
        return -EINVAL;
    if (mtype < 1)
        return -EINVAL;
    int err;
    struct msg_msg *m = load_msg(t, umsgp + sizeof(long), msgsz, &err);
    if (!m)
        return err;
    m->type = mtype;
    struct ipc_perm_k *ip = ipc_obtain_check(&msg_ids, msqid);
    long e = -EINVAL;
    if (!ip)
        goto fail;
    struct msg_queue *q = msq_of(ip);
    if ((e = ipc_perms(t, ip, 0222)))
        goto fail;
    if (!fits(q, msgsz)) {
        if (flag & IPC_NOWAIT) {
            e = -EAGAIN;
            goto fail;
        }
        free_msg(m);
        pi->done = false;
        waitq_add(&q->senders, t);
        return park_call(t, 0, -ERESTARTNOHAND);
    }
    q->lspid = ipc_tgid(t);
    q->stime = ipc_seconds();
    if (!pipelined_send(q, m)) {
        list_add_tail(&q->messages, &m->link);
        q->cbytes += msgsz;
        q->qnum++;
        msg_bytes += (long)msgsz;
        msg_hdrs++;
    }
    return 0;
fail:
    free_msg(m);
    return e;
}

/* --- msgrcv ---------------------------------------------------------------------------------- */

static int convert_mode(long *type, int flag)
{
    if (flag & MSG_COPY)
        return SEARCH_NUMBER;
    if (!*type)
        return SEARCH_ANY;
    if (*type < 0) {
        *type = *type == LONG_MIN ? LONG_MAX : -*type;
        return SEARCH_LESSEQUAL;
    }
    return flag & MSG_EXCEPT ? SEARCH_NOTEQUAL : SEARCH_EQUAL;
}

static void rcv_leave(struct thread *t)
{
    struct park_ipc *pi = &t->park.u.ipc;
    struct msg_receiver *r = pi->q;
    if (!r)
        return;
    list_del(&r->link);
    kfree(r);
    pi->q = NULL;
}

/* A message handed over is the call's result even when a signal comes. */
static long rcv_interrupted(struct thread *t)
{
    const struct park_ipc *pi = &t->park.u.ipc;
    return pi->done ? pi->status : -ERESTARTNOHAND;
}

long msg_msgrcv(struct thread *t, int msqid, l4_word_t umsgp, l4_word_t bufsz, long msgtyp,
                int flag)
{
    struct park_ipc *pi = park_ipc(&t->park);
    if (park_retrying(t) && pi->done)
        return pi->status;
    if (msqid < 0 || (long)bufsz < 0)
        return -EINVAL;
    if (flag & MSG_COPY) {
        if ((flag & MSG_EXCEPT) || !(flag & IPC_NOWAIT))
            return -EINVAL;
        /* prepare_copy reads the buffer it is to fill */
        size_t n = bufsz < (l4_word_t)ipc_lim.msgmax ? bufsz : (size_t)ipc_lim.msgmax;
        int err;
        struct msg_msg *probe = load_msg(t, umsgp + sizeof(long), n, &err);
        if (!probe)
            return err;
        free_msg(probe);
    }
    int mode = convert_mode(&msgtyp, flag);
    struct ipc_perm_k *ip = ipc_obtain_check(&msg_ids, msqid);
    if (!ip)
        return -EINVAL;
    struct msg_queue *q = msq_of(ip);
    if (ipc_perms(t, ip, 0444))
        return -EACCES;
    struct msg_msg *m = find_msg(q, &msgtyp, mode);
    if (m) {
        if (bufsz < m->size && !(flag & MSG_NOERROR))
            return -E2BIG;
        if (flag & MSG_COPY) {
            size_t cap = bufsz < (l4_word_t)ipc_lim.msgmax ? bufsz : (size_t)ipc_lim.msgmax;
            if (m->size > cap)
                return -EINVAL;
            return store_msg(t, umsgp, m, bufsz);
        }
        list_del(&m->link);
        q->qnum--;
        q->rtime = ipc_seconds();
        q->lrpid = ipc_tgid(t);
        q->cbytes -= m->size;
        msg_bytes -= (long)m->size;
        msg_hdrs--;
        senders_wake(q, false);
        long n = store_msg(t, umsgp, m, bufsz);
        free_msg(m);
        return n;
    }
    if (flag & IPC_NOWAIT)
        return -ENOMSG;
    struct msg_receiver *r = kmalloc(sizeof *r);
    if (!r)
        return -ENOMEM;
    r->t = t;
    r->type = msgtyp;
    r->mode = mode;
    r->maxsize = flag & MSG_NOERROR ? INT_MAX : (long)bufsz;
    r->umsgp = umsgp;
    r->bufsz = bufsz;
    list_add_tail(&q->receivers, &r->link);
    pi->q = r;
    pi->done = false;
    t->park.leave = rcv_leave;
    return park_call_fn(t, 0, rcv_interrupted);
}

/* --- msgctl ---------------------------------------------------------------------------------- */

struct msqid64_ds {
    struct ipc64_perm msg_perm;
    long msg_stime, msg_rtime, msg_ctime;
    unsigned long msg_cbytes, msg_qnum, msg_qbytes;
    int msg_lspid, msg_lrpid;
    unsigned long unused4, unused5;
};
_Static_assert(sizeof(struct msqid64_ds) == 120, "msqid64_ds");

struct msginfo {
    int msgpool, msgmap, msgmax, msgmnb, msgmni, msgssz, msgtql;
    unsigned short msgseg;
};

static void freeque(struct msg_queue *q)
{
    expunge_all(q, -EIDRM);
    senders_wake(q, true);
    ipc_remove(&msg_ids, &q->perm);
    while (!list_empty(&q->messages)) {
        struct msg_msg *m = list_entry(q->messages.next, struct msg_msg, link);
        list_del(&m->link);
        msg_bytes -= (long)m->size;
        msg_hdrs--;
        free_msg(m);
    }
    kfree(q);
}

long msg_msgctl(struct thread *t, int msqid, int cmd, l4_word_t ubuf)
{
    if (msqid < 0 || cmd < 0)
        return -EINVAL;
    switch (cmd) {
    case IPC_INFO:
    case MSG_INFO: {
        struct msginfo mi = { .msgmni = ipc_lim.msgmni, .msgmax = ipc_lim.msgmax,
                              .msgmnb = ipc_lim.msgmnb, .msgssz = MSGSSZ, .msgseg = MSGSEG };
        if (cmd == MSG_INFO) {
            mi.msgpool = msg_ids.in_use;
            mi.msgmap = msg_hdrs > INT_MAX ? INT_MAX : (int)msg_hdrs;
            mi.msgtql = msg_bytes > INT_MAX ? INT_MAX : (int)msg_bytes;
        } else {
            mi.msgmap = ipc_lim.msgmnb;
            mi.msgpool = MSGPOOL;
            mi.msgtql = ipc_lim.msgmnb;
        }
        int max = ipc_max_idx(&msg_ids);
        if (copy_to_user(t->mm, ubuf, &mi, sizeof mi))
            return -EFAULT;
        return max < 0 ? 0 : max;
    }
    case IPC_STAT:
    case MSG_STAT:
    case MSG_STAT_ANY: {
        struct ipc_perm_k *ip = cmd == IPC_STAT ? ipc_obtain_check(&msg_ids, msqid)
                                 : ipc_obtain_idx(&msg_ids, msqid);
        if (!ip)
            return -EINVAL;
        if (cmd != MSG_STAT_ANY && ipc_perms(t, ip, 0444))
            return -EACCES;
        struct msg_queue *q = msq_of(ip);
        struct msqid64_ds ds = { .msg_stime = q->stime, .msg_rtime = q->rtime,
                                 .msg_ctime = q->ctime, .msg_cbytes = q->cbytes,
                                 .msg_qnum = q->qnum, .msg_qbytes = q->qbytes,
                                 .msg_lspid = q->lspid, .msg_lrpid = q->lrpid };
        ipc_to_user_perm(ip, &ds.msg_perm);
        if (copy_to_user(t->mm, ubuf, &ds, sizeof ds))
            return -EFAULT;
        return cmd == IPC_STAT ? 0 : ip->id;
    }
    case IPC_SET:
    case IPC_RMID: {
        struct msqid64_ds ds;
        if (cmd == IPC_SET && copy_from_user(t->mm, &ds, ubuf, sizeof ds))
            return -EFAULT;
        struct ipc_perm_k *ip = ipc_obtain_check(&msg_ids, msqid);
        if (!ip)
            return -EINVAL;
        int e = ipc_owner_check(t, ip);
        if (e)
            return e;
        struct msg_queue *q = msq_of(ip);
        if (cmd == IPC_RMID) {
            freeque(q);
            return 0;
        }
        if (ds.msg_qbytes > (unsigned long)ipc_lim.msgmnb && !ipc_privileged(t))
            return -EPERM;
        if ((e = ipc_update_perm(&ds.msg_perm, ip)))
            return e;
        q->qbytes = ds.msg_qbytes;
        q->ctime = ipc_seconds();
        expunge_all(q, -EAGAIN);
        senders_wake(q, false);
        return 0;
    }
    }
    return -EINVAL;
}

static void destroy_queue(struct ipc_perm_k *p)
{
    freeque(msq_of(p));
}

void msg_shutdown(void)
{
    ipc_each_remove(&msg_ids, destroy_queue);
}

/* --- /proc/sysvipc/msg ------------------------------------------------------------------------ */

static void show_one(struct ipc_perm_k *p, struct ipc_show *s)
{
    struct msg_queue *q = msq_of(p);
    ipc_show_printf(s,
                    "%10d %10d  %4o  %10lu %10lu %5u %5u %5u %5u %5u %5u %10lld %10lld %10lld\n",
                    p->key, p->id, p->mode, q->cbytes, q->qnum, q->lspid, q->lrpid,
                    p->uid, p->gid, p->cuid, p->cgid, (long long)q->stime,
                    (long long)q->rtime, (long long)q->ctime);
}

size_t msg_proc_show(char *buf, size_t size)
{
    return ipc_proc_show(&msg_ids, "       key      msqid perms      cbytes       qnum lspid lrpid   uid   gid  cuid  cgid      stime      rtime      ctime\n", show_one, buf, size);
}
