/* System V semaphores (docs/linux/sysvipc.md), with Linux 6.1's ipc/sem.c as the reference
 * for every result and for the order in which waiting operations complete.
 *
 * A blocked semop is an entry on its set's queues, as Linux's struct sem_queue: a single
 * operation on one semaphore waits on that semaphore's list (pending_alter for a decrement,
 * pending_const for a wait-for-zero), a complex one on the set's lists; while complex ones
 * wait, every altering one is on the set's list (Linux's merge_queues / unmerge_queues).
 * A change runs update_queue over the lists in Linux's order: an operation that can now
 * complete is performed there, at once, its entry unlinked and its thread woken with the
 * result (park.u.ipc), so the order of completion is Linux's and not that of lx's replies.
 * A woken call (or one whose deadline passed) runs again only to return its result. */
#include "ipc/sem.h"
#include "ipc/util.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "mm/page.h"
#include "mm/usercopy.h"
#include "task/process.h"
#include "time/clock.h"
#include <stdio.h>

#define GETPID  11
#define GETVAL  12
#define GETALL  13
#define GETNCNT 14
#define GETZCNT 15
#define SETVAL  16
#define SETALL  17
#define SEM_STAT 18
#define SEM_INFO 19
#define SEM_STAT_ANY 20

#define SEMMNU_DEF  (32000 * 32000)
#define SEMUSZ      20

struct sembuf {
    unsigned short sem_num;
    short sem_op, sem_flg;
};

struct sem {                        /* one semaphore (a paged array of them per set) */
    int semval;
    int sempid;
    struct list pending_alter;      /* single decrements waiting on it (struct sem_queue) */
    struct list pending_const;      /* single waits for zero */
};

struct sem_array {
    struct ipc_perm_k perm;         /* first */
    int nsems;
    int64_t otime, ctime;
    struct paged sems;              /* struct sem[nsems] */
    struct list pending_alter;      /* complex operations, and every alter one while any waits */
    struct list pending_const;      /* complex waits for zero */
    int complex_count;              /* complex operations waiting */
    struct list undos;              /* struct sem_undo, by list_id */
};

/* One process's SEM_UNDO adjustments for one set. */
struct sem_undo {
    struct list list_proc;          /* in the process's list (newest first) */
    struct list list_id;            /* in the set's */
    int semid;
    struct paged adj;               /* short[nsems] */
};
struct sem_undo_list {
    struct list undos;
};

/* A waiting operation (in a thread's park.u.ipc.q). */
struct sem_queue {
    struct list list;               /* on one of the set's lists */
    struct thread *t;
    int pid;
    struct sem_undo *undo;
    struct sembuf *blocking;        /* the operation it waits on */
    int nsops;
    bool alter, dupsop;
    struct sembuf sops[];
};

static long used_sems;

static inline struct sem *sem_at(struct sem_array *sma, unsigned i)
{
    return paged_at(&sma->sems, i);
}
static inline short *adj_at(struct sem_undo *un, unsigned i)
{
    return paged_at(&un->adj, i);
}
static inline struct sem_array *sem_of(struct ipc_perm_k *p)
{
    return (struct sem_array *)p;
}

/* --- semget ---------------------------------------------------------------------------------- */

static int newary(struct thread *t, int key, unsigned flag, void *arg)
{
    int nsems = *(int *)arg;
    if (!nsems)
        return -EINVAL;
    if (used_sems + nsems > ipc_lim.semmns)
        return -ENOSPC;
    struct sem_array *sma = kmalloc(sizeof *sma);
    if (!sma)
        return -ENOMEM;
    if (!paged_init(&sma->sems, (unsigned)nsems, sizeof(struct sem))) {
        kfree(sma);
        return -ENOMEM;
    }
    for (int i = 0; i < nsems; i++) {
        list_init(&sem_at(sma, (unsigned)i)->pending_alter);
        list_init(&sem_at(sma, (unsigned)i)->pending_const);
    }
    list_init(&sma->pending_alter);
    list_init(&sma->pending_const);
    list_init(&sma->undos);
    sma->nsems = nsems;
    sma->ctime = ipc_seconds();
    int e = ipc_add(&sem_ids, &sma->perm, t, key, flag, ipc_lim.semmni);
    if (e) {
        paged_free(&sma->sems);
        kfree(sma);
        return e;
    }
    used_sems += nsems;
    return sma->perm.id;
}

static int sem_more_checks(struct ipc_perm_k *p, void *arg)
{
    return *(int *)arg > sem_of(p)->nsems ? -EINVAL : 0;
}

long sem_semget(struct thread *t, int key, int nsems, unsigned flag)
{
    if (nsems < 0 || nsems > ipc_lim.semmsl)
        return -EINVAL;
    return ipc_get(t, &sem_ids, key, flag, sem_more_checks, newary, &nsems);
}

/* --- performing operations -------------------------------------------------------------------- */

static int perform_slow(struct sem_array *sma, struct sem_queue *q)
{
    struct sembuf *sop;
    int result;
    for (sop = q->sops; sop < q->sops + q->nsops; sop++) {
        struct sem *curr = sem_at(sma, sop->sem_num);
        result = curr->semval;
        if (!sop->sem_op && result)
            goto would_block;
        result += sop->sem_op;
        if (result < 0)
            goto would_block;
        if (result > SEMVMX)
            goto out_of_range;
        if (sop->sem_flg & SEM_UNDO) {
            int undo = *adj_at(q->undo, sop->sem_num) - sop->sem_op;
            if (undo < -SEMAEM - 1 || undo > SEMAEM)
                goto out_of_range;
            *adj_at(q->undo, sop->sem_num) = (short)undo;
        }
        curr->semval = result;
    }
    if (q->alter)
        for (sop--; sop >= q->sops; sop--)
            sem_at(sma, sop->sem_num)->sempid = q->pid;
    return 0;
out_of_range:
    result = -ERANGE;
    goto undo;
would_block:
    q->blocking = sop;
    result = sop->sem_flg & IPC_NOWAIT ? -EAGAIN : 1;
undo:
    for (sop--; sop >= q->sops; sop--) {
        sem_at(sma, sop->sem_num)->semval -= sop->sem_op;
        if (sop->sem_flg & SEM_UNDO)
            *adj_at(q->undo, sop->sem_num) += sop->sem_op;
    }
    return result;
}

/* 0 done, 1 it would block (q->blocking set), -errno (EAGAIN with IPC_NOWAIT, ERANGE). */
static int perform_atomic(struct sem_array *sma, struct sem_queue *q)
{
    if (q->dupsop)
        return perform_slow(sma, q);
    struct sembuf *sop;
    for (sop = q->sops; sop < q->sops + q->nsops; sop++) {
        int result = sem_at(sma, sop->sem_num)->semval;
        if (!sop->sem_op && result)
            goto would_block;
        result += sop->sem_op;
        if (result < 0)
            goto would_block;
        if (result > SEMVMX)
            return -ERANGE;
        if (sop->sem_flg & SEM_UNDO) {
            int undo = *adj_at(q->undo, sop->sem_num) - sop->sem_op;
            if (undo < -SEMAEM - 1 || undo > SEMAEM)
                return -ERANGE;
        }
    }
    for (sop = q->sops; sop < q->sops + q->nsops; sop++) {
        struct sem *curr = sem_at(sma, sop->sem_num);
        if (sop->sem_flg & SEM_UNDO)
            *adj_at(q->undo, sop->sem_num) -= sop->sem_op;
        curr->semval += sop->sem_op;
        curr->sempid = q->pid;
    }
    return 0;
would_block:
    q->blocking = sop;
    return sop->sem_flg & IPC_NOWAIT ? -EAGAIN : 1;
}

/* --- the queues -------------------------------------------------------------------------- */

static void unlink_queue(struct sem_array *sma, struct sem_queue *q)
{
    list_del(&q->list);
    if (q->nsops > 1)
        sma->complex_count--;
}

/* q's operation finished with error (0: done): its thread's call returns that. */
static void wake_queue(struct sem_queue *q, int error)
{
    struct park_ipc *pi = &q->t->park.u.ipc;
    pi->status = error;
    pi->done = true;
    park_wake(q->t);
}

/* Complex operations gone: the single alter ones back onto their semaphores' lists. */
static void unmerge_queues(struct sem_array *sma)
{
    if (sma->complex_count)
        return;
    struct sem_queue *q, *n;
    list_each_safe(q, n, &sma->pending_alter, list) {
        list_del(&q->list);
        list_add_tail(&sem_at(sma, q->sops[0].sem_num)->pending_alter, &q->list);
    }
}

/* The first complex operation waits: every single alter one onto the set's list, each
 * semaphore's in front of the previous one's (Linux's list_splice_init). */
static void merge_queues(struct sem_array *sma)
{
    for (int i = 0; i < sma->nsems; i++) {
        struct list *l = &sem_at(sma, (unsigned)i)->pending_alter;
        while (!list_empty(l)) {
            struct list *last = l->prev;
            list_del(last);
            list_add_head(&sma->pending_alter, last);
        }
    }
}

static bool wake_const_ops(struct sem_array *sma, int semnum)
{
    struct list *l = semnum == -1 ? &sma->pending_const : &sem_at(sma, (unsigned)semnum)->pending_const;
    bool completed = false;
    struct sem_queue *q, *n;
    list_each_safe(q, n, l, list) {
        int error = perform_atomic(sma, q);
        if (error > 0)
            continue;
        unlink_queue(sma, q);
        wake_queue(q, error);
        if (!error)
            completed = true;
    }
    return completed;
}

static bool smart_wakeup_zero(struct sem_array *sma, const struct sembuf *sops, int nsops)
{
    bool got_zero = false, completed = false;
    if (sops) {
        for (int i = 0; i < nsops; i++) {
            int num = sops[i].sem_num;
            if (!sem_at(sma, (unsigned)num)->semval) {
                got_zero = true;
                completed |= wake_const_ops(sma, num);
            }
        }
    } else {
        for (int i = 0; i < sma->nsems; i++)
            if (!sem_at(sma, (unsigned)i)->semval) {
                got_zero = true;
                completed |= wake_const_ops(sma, i);
            }
    }
    if (got_zero)
        completed |= wake_const_ops(sma, -1);
    return completed;
}

static bool update_queue(struct sem_array *sma, int semnum)
{
    struct list *l = semnum == -1 ? &sma->pending_alter : &sem_at(sma, (unsigned)semnum)->pending_alter;
    bool completed = false;
again:;
    struct sem_queue *q, *n;
    list_each_safe(q, n, l, list) {
        if (semnum != -1 && !sem_at(sma, (unsigned)semnum)->semval)
            break;
        int error = perform_atomic(sma, q);
        if (error > 0)
            continue;
        unlink_queue(sma, q);
        bool restart = false;
        if (!error) {
            completed = true;
            smart_wakeup_zero(sma, q->sops, q->nsops);
            restart = !list_empty(&sma->pending_alter) || q->nsops > 1;
        }
        wake_queue(q, error);
        if (restart)
            goto again;
    }
    return completed;
}

static void smart_update(struct sem_array *sma, const struct sembuf *sops, int nsops, bool otime)
{
    otime |= smart_wakeup_zero(sma, sops, nsops);
    if (!list_empty(&sma->pending_alter)) {
        otime |= update_queue(sma, -1);
    } else if (!sops) {
        for (int i = 0; i < sma->nsems; i++)
            otime |= update_queue(sma, i);
    } else {
        for (int i = 0; i < nsops; i++)
            if (sops[i].sem_op > 0)
                otime |= update_queue(sma, sops[i].sem_num);
    }
    if (otime)
        sma->otime = ipc_seconds();
}

/* Count the waiters blocked on semnum: decrements, or waits for zero (GETNCNT, GETZCNT). */
static int count_semcnt(struct sem_array *sma, int semnum, bool zero)
{
    int n = 0;
    struct sem_queue *q;
    struct sem *s = sem_at(sma, (unsigned)semnum);
    list_each(q, zero ? &s->pending_const : &s->pending_alter, list)
        n++;
    list_each(q, &sma->pending_alter, list)
        n += q->blocking->sem_num == semnum && (zero ? !q->blocking->sem_op : q->blocking->sem_op < 0);
    if (zero)
        list_each(q, &sma->pending_const, list)
            n += q->blocking->sem_num == semnum && !q->blocking->sem_op;
    return n;
}

/* --- undo lists ---------------------------------------------------------------------------- */

static struct sem_undo *lookup_undo(struct sem_undo_list *ul, int semid)
{
    struct sem_undo *un;
    list_each(un, &ul->undos, list_proc)
        if (un->semid == semid)
            return un;
    return NULL;
}

static void free_undo(struct sem_undo *un)
{
    list_del(&un->list_proc);
    list_del(&un->list_id);
    paged_free(&un->adj);
    kfree(un);
}

static struct sem_undo *find_alloc_undo(struct thread *t, int semid, int *err)
{
    struct process *p = t->proc;
    if (!p->sysvsem) {
        if (!(p->sysvsem = kmalloc(sizeof(struct sem_undo_list)))) {
            *err = -ENOMEM;
            return NULL;
        }
        list_init(&p->sysvsem->undos);
    }
    struct sem_undo *un = lookup_undo(p->sysvsem, semid);
    if (un)
        return un;
    struct ipc_perm_k *ip = ipc_obtain_check(&sem_ids, semid);
    if (!ip) {
        *err = -EINVAL;
        return NULL;
    }
    un = kmalloc(sizeof *un);
    if (!un || !paged_init(&un->adj, (unsigned)sem_of(ip)->nsems, sizeof(short))) {
        kfree(un);
        *err = -ENOMEM;
        return NULL;
    }
    un->semid = semid;
    list_add_head(&p->sysvsem->undos, &un->list_proc);
    list_add_head(&sem_of(ip)->undos, &un->list_id);
    return un;
}

void sem_exit(struct process *p)
{
    struct sem_undo_list *ul = p->sysvsem;
    if (!ul)
        return;
    p->sysvsem = NULL;
    while (!list_empty(&ul->undos)) {
        struct sem_undo *un = list_entry(ul->undos.next, struct sem_undo, list_proc);
        struct ipc_perm_k *ip = ipc_obtain_check(&sem_ids, un->semid);
        if (ip) {
            struct sem_array *sma = sem_of(ip);
            for (int i = 0; i < sma->nsems; i++) {
                short adj = *adj_at(un, (unsigned)i);
                if (!adj)
                    continue;
                struct sem *s = sem_at(sma, (unsigned)i);
                s->semval += adj;
                if (s->semval < 0)
                    s->semval = 0;
                if (s->semval > SEMVMX)
                    s->semval = SEMVMX;
                s->sempid = process_pid(p);
            }
            free_undo(un);
            smart_update(sma, NULL, 0, true);
            unmerge_queues(sma);
        } else {
            free_undo(un);
        }
    }
    kfree(ul);
}

/* --- semop ---------------------------------------------------------------------------------- */

/* park.leave: a call still queued (a signal, its deadline, its thread's end) leaves its set's
 * lists; a completed one (park.u.ipc.done) was unlinked by its waker. */
static void sem_leave(struct thread *t)
{
    struct park_ipc *pi = &t->park.u.ipc;
    struct sem_queue *q = pi->q;
    if (!q)
        return;
    if (!pi->done) {
        struct sem_array *sma = pi->obj;
        unlink_queue(sma, q);
        unmerge_queues(sma);
    }
    kfree(q);
    pi->q = NULL;
}

static long sem_interrupted(struct thread *t)
{
    const struct park_ipc *pi = &t->park.u.ipc;
    return pi->done ? pi->status : -EINTR;
}

long sem_semop(struct thread *t, int semid, l4_word_t usops, unsigned nsops, const int64_t *ts)
{
    struct park_ipc *pi = park_ipc(&t->park);
    bool rerun = park_retrying(t);
    if (rerun) {
        if (pi->done)
            return pi->status;
        if (pi->deadline && lx_now() >= pi->deadline)
            return -EAGAIN;
    }
    if (nsops < 1 || semid < 0)
        return -EINVAL;
    if (nsops > (l4_word_t)ipc_lim.semopm)
        return -E2BIG;
    size_t qsize = sizeof(struct sem_queue) + nsops * sizeof(struct sembuf);
    if (qsize > LX_PAGE)
        return -ENOMEM;
    struct sem_queue *q = kmalloc(qsize);
    if (!q)
        return -ENOMEM;
    long error;
    if (copy_from_user(t->mm, q->sops, usops, nsops * sizeof(struct sembuf))) {
        error = -EFAULT;
        goto out_free;
    }
    q->nsops = (int)nsops;
    if (ts && !rerun) {
        if (ts[0] < 0 || ts[1] < 0 || ts[1] >= 1000000000) {
            error = -EINVAL;
            goto out_free;
        }
        uint64_t ns = (uint64_t)ts[0] * 1000000000ull + (uint64_t)ts[1];
        if ((uint64_t)ts[0] > ~0ull / 1000000000ull - 1)
            ns = ~0ull / 2;
        pi->deadline = lx_now() + ns;
    }
    unsigned max = 0;
    uint64_t dup = 0;
    bool undos = false;
    for (struct sembuf *sop = q->sops; sop < q->sops + nsops; sop++) {
        uint64_t mask = 1ull << (sop->sem_num % 64);
        if (sop->sem_num >= max)
            max = sop->sem_num;
        if (sop->sem_flg & SEM_UNDO)
            undos = true;
        if (dup & mask)
            q->dupsop = true;
        if (sop->sem_op) {
            q->alter = true;
            dup |= mask;
        }
    }
    q->undo = NULL;
    if (undos) {
        int e = 0;
        if (!(q->undo = find_alloc_undo(t, semid, &e))) {
            error = e;
            goto out_free;
        }
    }
    struct ipc_perm_k *ip = ipc_obtain_check(&sem_ids, semid);
    error = -EINVAL;
    if (!ip)
        goto out_free;
    struct sem_array *sma = sem_of(ip);
    error = -EFBIG;
    if (max >= (unsigned)sma->nsems)
        goto out_free;
    error = ipc_perms(t, ip, q->alter ? 0222 : 0444);
    if (error)
        goto out_free;
    q->pid = ipc_tgid(t);
    q->t = t;
    error = perform_atomic(sma, q);
    if (!error) {
        if (q->alter)
            smart_update(sma, q->sops, q->nsops, true);
        else
            sma->otime = ipc_seconds();
    }
    if (!error || error < 0 || (pi->deadline && lx_now() >= pi->deadline)) {
        unmerge_queues(sma);
        if (error > 0)
            error = -EAGAIN;
        goto out_free;
    }
    /* wait: onto the lists as Linux queues it */
    if (q->nsops == 1) {
        struct sem *curr = sem_at(sma, q->sops[0].sem_num);
        if (q->alter)
            list_add_tail(sma->complex_count ? &sma->pending_alter : &curr->pending_alter, &q->list);
        else
            list_add_tail(&curr->pending_const, &q->list);
    } else {
        if (!sma->complex_count)
            merge_queues(sma);
        list_add_tail(q->alter ? &sma->pending_alter : &sma->pending_const, &q->list);
        sma->complex_count++;
    }
    pi->q = q;
    pi->obj = sma;
    pi->done = false;
    t->park.leave = sem_leave;
    return park_call_fn(t, pi->deadline, sem_interrupted);
out_free:
    kfree(q);
    return error;
}

/* --- semctl --------------------------------------------------------------------------------- */

struct semid64_ds {
    struct ipc64_perm sem_perm;
    long sem_otime;
    unsigned long unused1;
    long sem_ctime;
    unsigned long unused2;
    unsigned long sem_nsems;
    unsigned long unused3, unused4;
};
_Static_assert(sizeof(struct semid64_ds) == 104, "semid64_ds");

struct seminfo {
    int semmap, semmni, semmns, semmnu, semmsl, semopm, semume, semusz, semvmx, semaem;
};

/* Removal: undo records dropped, every waiter ends with EIDRM. */
static void freeary(struct sem_array *sma)
{
    while (!list_empty(&sma->undos))
        free_undo(list_entry(sma->undos.next, struct sem_undo, list_id));
    struct list *lists[2] = { &sma->pending_const, &sma->pending_alter };
    for (int k = 0; k < 2; k++)
        while (!list_empty(lists[k])) {
            struct sem_queue *q = list_entry(lists[k]->next, struct sem_queue, list);
            unlink_queue(sma, q);
            wake_queue(q, -EIDRM);
        }
    for (int i = 0; i < sma->nsems; i++) {
        struct sem *s = sem_at(sma, (unsigned)i);
        struct list *l2[2] = { &s->pending_const, &s->pending_alter };
        for (int k = 0; k < 2; k++)
            while (!list_empty(l2[k])) {
                struct sem_queue *q = list_entry(l2[k]->next, struct sem_queue, list);
                unlink_queue(sma, q);
                wake_queue(q, -EIDRM);
            }
    }
    ipc_remove(&sem_ids, &sma->perm);
    used_sems -= sma->nsems;
    paged_free(&sma->sems);
    kfree(sma);
}

static long semctl_info(struct thread *t, int cmd, l4_word_t arg)
{
    struct seminfo si = {
        .semmni = ipc_lim.semmni, .semmns = ipc_lim.semmns, .semmsl = ipc_lim.semmsl,
        .semopm = ipc_lim.semopm, .semvmx = SEMVMX, .semmnu = SEMMNU_DEF, .semmap = SEMMNU_DEF,
        .semume = 500,
    };
    if (cmd == SEM_INFO) {
        si.semusz = sem_ids.in_use;
        si.semaem = (int)used_sems;
    } else {
        si.semusz = SEMUSZ;
        si.semaem = SEMAEM;
    }
    int max = ipc_max_idx(&sem_ids);
    if (copy_to_user(t->mm, arg, &si, sizeof si))
        return -EFAULT;
    return max < 0 ? 0 : max;
}

static long semctl_stat(struct thread *t, int semid, int cmd, l4_word_t arg)
{
    struct ipc_perm_k *ip = cmd == IPC_STAT ? ipc_obtain_check(&sem_ids, semid)
                             : ipc_obtain_idx(&sem_ids, semid);
    if (!ip)
        return -EINVAL;
    if (cmd != SEM_STAT_ANY && ipc_perms(t, ip, 0444))
        return -EACCES;
    struct sem_array *sma = sem_of(ip);
    struct semid64_ds ds = { .sem_otime = sma->otime, .sem_ctime = sma->ctime,
                             .sem_nsems = (unsigned long)sma->nsems };
    ipc_to_user_perm(ip, &ds.sem_perm);
    if (copy_to_user(t->mm, arg, &ds, sizeof ds))
        return -EFAULT;
    return cmd == IPC_STAT ? 0 : ip->id;
}

static long semctl_setval(struct thread *t, int semid, int semnum, int val)
{
    if (val > SEMVMX || val < 0)
        return -ERANGE;
    struct ipc_perm_k *ip = ipc_obtain_check(&sem_ids, semid);
    if (!ip)
        return -EINVAL;
    struct sem_array *sma = sem_of(ip);
    if (semnum < 0 || semnum >= sma->nsems)
        return -EINVAL;
    if (ipc_perms(t, ip, 0222))
        return -EACCES;
    struct sem_undo *un;
    list_each(un, &sma->undos, list_id)
        *adj_at(un, (unsigned)semnum) = 0;
    struct sem *s = sem_at(sma, (unsigned)semnum);
    s->semval = val;
    s->sempid = ipc_tgid(t);
    sma->ctime = ipc_seconds();
    smart_update(sma, NULL, 0, false);
    unmerge_queues(sma);
    return 0;
}

static long semctl_main(struct thread *t, int semid, int semnum, int cmd, l4_word_t arg)
{
    struct ipc_perm_k *ip = ipc_obtain_check(&sem_ids, semid);
    if (!ip)
        return -EINVAL;
    struct sem_array *sma = sem_of(ip);
    int nsems = sma->nsems;
    if (ipc_perms(t, ip, cmd == SETALL ? 0222 : 0444))
        return -EACCES;
    if (cmd == GETALL || cmd == SETALL) {
        unsigned short *buf = page_alloc();
        if (!buf)
            return -ENOMEM;
        const unsigned chunk = LX_PAGE / sizeof(unsigned short);
        long e = 0;
        if (cmd == GETALL) {
            for (int i = 0; i < nsems && !e; i += (int)chunk) {
                int n = nsems - i < (int)chunk ? nsems - i : (int)chunk;
                for (int k = 0; k < n; k++)
                    buf[k] = (unsigned short)sem_at(sma, (unsigned)(i + k))->semval;
                if (copy_to_user(t->mm, arg + (l4_word_t)i * 2, buf, (size_t)n * 2))
                    e = -EFAULT;
            }
            page_free(buf);
            return e;
        }
        /* SETALL: all values read and checked before any is set */
        for (int i = 0; i < nsems && !e; i += (int)chunk) {
            int n = nsems - i < (int)chunk ? nsems - i : (int)chunk;
            if (copy_from_user(t->mm, buf, arg + (l4_word_t)i * 2, (size_t)n * 2))
                e = -EFAULT;
            for (int k = 0; k < n && !e; k++)
                if (buf[k] > SEMVMX)
                    e = -ERANGE;
        }
        for (int i = 0; i < nsems && !e; i += (int)chunk) {
            int n = nsems - i < (int)chunk ? nsems - i : (int)chunk;
            copy_from_user(t->mm, buf, arg + (l4_word_t)i * 2, (size_t)n * 2);
            for (int k = 0; k < n; k++) {
                sem_at(sma, (unsigned)(i + k))->semval = buf[k];
                sem_at(sma, (unsigned)(i + k))->sempid = ipc_tgid(t);
            }
        }
        page_free(buf);
        if (e)
            return e;
        struct sem_undo *un;
        list_each(un, &sma->undos, list_id)
            for (int i = 0; i < nsems; i++)
                *adj_at(un, (unsigned)i) = 0;
        sma->ctime = ipc_seconds();
        smart_update(sma, NULL, 0, false);
        unmerge_queues(sma);
        return 0;
    }
    if (semnum < 0 || semnum >= nsems)
        return -EINVAL;
    struct sem *s = sem_at(sma, (unsigned)semnum);
    switch (cmd) {
    case GETVAL: return s->semval;
    case GETPID: return s->sempid;
    case GETNCNT: return count_semcnt(sma, semnum, false);
    case GETZCNT: return count_semcnt(sma, semnum, true);
    }
    return -EINVAL;
}

long sem_semctl(struct thread *t, int semid, int semnum, int cmd, l4_word_t arg)
{
    if (semid < 0)
        return -EINVAL;
    switch (cmd) {
    case IPC_INFO:
    case SEM_INFO:
        return semctl_info(t, cmd, arg);
    case IPC_STAT:
    case SEM_STAT:
    case SEM_STAT_ANY:
        return semctl_stat(t, semid, cmd, arg);
    case GETALL: case GETVAL: case GETPID: case GETNCNT: case GETZCNT: case SETALL:
        return semctl_main(t, semid, semnum, cmd, arg);
    case SETVAL:
        return semctl_setval(t, semid, semnum, (int)arg);
    case IPC_SET:
    case IPC_RMID: {
        struct semid64_ds ds;
        if (cmd == IPC_SET && copy_from_user(t->mm, &ds, arg, sizeof ds))
            return -EFAULT;
        struct ipc_perm_k *ip = ipc_obtain_check(&sem_ids, semid);
        if (!ip)
            return -EINVAL;
        int e = ipc_owner_check(t, ip);
        if (e)
            return e;
        if (cmd == IPC_RMID) {
            freeary(sem_of(ip));
            return 0;
        }
        if ((e = ipc_update_perm(&ds.sem_perm, ip)))
            return e;
        sem_of(ip)->ctime = ipc_seconds();
        return 0;
    }
    }
    return -EINVAL;
}

static void destroy_set(struct ipc_perm_k *p)
{
    freeary(sem_of(p));
}

void sem_shutdown(void)
{
    ipc_each_remove(&sem_ids, destroy_set);
}

/* --- /proc/sysvipc/sem ------------------------------------------------------------------------ */

static void show_one(struct ipc_perm_k *p, struct ipc_show *s)
{
    struct sem_array *sma = sem_of(p);
    ipc_show_printf(s,
                    "%10d %10d  %4o %10u %5u %5u %5u %5u %10lld %10lld\n", p->key,
                    p->id, p->mode, sma->nsems, p->uid, p->gid, p->cuid, p->cgid,
                    (long long)sma->otime, (long long)sma->ctime);
}

size_t sem_proc_show(char *buf, size_t size)
{
    return ipc_proc_show(&sem_ids, "       key      semid perms      nsems   uid   gid  cuid  cgid      otime      ctime\n", show_one, buf, size);
}
