/* System V IPC's id tables, keys and permission checks (docs/linux/sysvipc.md), after
 * Linux 6.1's ipc/util.c: an index is allocated cyclically below IPCMNI, the sequence
 * number grows each time the allocation wraps, and the id is index + seq * 32768, so a
 * slot used again gives a new id. */
#include "ipc/util.h"
#include "ipc/mqueue.h"
#include "lib/errno.h"
#include "ipc/msg.h"
#include "ipc/sem.h"
#include "ipc/shm.h"
#include "lib/kmalloc.h"
#include "mm/page.h"
#include "task/process.h"
#include "time/clock.h"
#include <stdarg.h>
#include <stdio.h>

struct ipc_limits ipc_lim = {
    .semmsl = 32000, .semmns = 32000 * 32000, .semopm = 500, .semmni = 32000,
    .shmmax = ~0ul - (1ul << 24), .shmall = ~0ul - (1ul << 24), .shmmni = 4096,
    .msgmax = 8192, .msgmnb = 16384, .msgmni = 32000,
};
struct ipc_ids sem_ids = { .max_idx = -1, .last_idx = -1 };
struct ipc_ids shm_ids = { .max_idx = -1, .last_idx = -1 };
struct ipc_ids msg_ids = { .max_idx = -1, .last_idx = -1 };

/* --- credentials: the one place they are read (issue 14's users change the rules here) --- */

unsigned ipc_euid(struct thread *t) { return t->proc->cred.euid; }
unsigned ipc_egid(struct thread *t) { return t->proc->cred.egid; }
bool ipc_privileged(struct thread *t) { return ipc_euid(t) == 0; }
int ipc_tgid(struct thread *t) { return thread_pid(t); }

int ipc_perms(struct thread *t, const struct ipc_perm_k *p, unsigned flag)
{
    unsigned requested = (flag >> 6) | (flag >> 3) | flag, granted = p->mode;
    unsigned euid = ipc_euid(t), egid = ipc_egid(t);
    if (euid == p->cuid || euid == p->uid)
        granted >>= 6;
    else if (egid == p->cgid || egid == p->gid)
        granted >>= 3;
    if ((requested & ~granted & 7) && !ipc_privileged(t))
        return -EACCES;
    return 0;
}

int ipc_owner_check(struct thread *t, const struct ipc_perm_k *p)
{
    unsigned euid = ipc_euid(t);
    return euid == p->cuid || euid == p->uid || ipc_privileged(t) ? 0 : -EPERM;
}

/* --- the tables ---------------------------------------------------------------------------- */

static unsigned key_bucket(int key)
{
    return ((unsigned)key * 2654435761u) >> 26;
}

struct ipc_perm_k *ipc_find_key(struct ipc_ids *ids, int key)
{
    for (struct ipc_perm_k *p = ids->keys[key_bucket(key)]; p; p = p->key_next)
        if (p->key == key)
            return p;
    return NULL;
}

static void key_unlink(struct ipc_ids *ids, struct ipc_perm_k *p)
{
    if (p->key == IPC_PRIVATE)
        return;
    for (struct ipc_perm_k **pp = &ids->keys[key_bucket(p->key)]; *pp; pp = &(*pp)->key_next)
        if (*pp == p) {
            *pp = p->key_next;
            break;
        }
    p->key_next = NULL;
}

int ipc_add(struct ipc_ids *ids, struct ipc_perm_k *p, struct thread *t, int key, unsigned flag,
            int limit)
{
    if (limit > IPCMNI)
        limit = IPCMNI;
    if (ids->in_use >= limit)
        return -ENOSPC;
    /* idr_alloc_cyclic: the first free index after the last one given, wrapping to 0 */
    int idx = -1;
    for (int n = 0, i = ids->last_idx + 1; n < IPCMNI; n++, i++) {
        if (i >= IPCMNI)
            i = 0;
        if (!radix_get(&ids->idx, (unsigned long)i)) {
            idx = i;
            break;
        }
    }
    if (idx < 0)
        return -ENOSPC;
    void **slot = radix_slot(&ids->idx, (unsigned long)idx, true);
    if (!slot)
        return -ENOMEM;
    *slot = p;
    if (idx <= ids->last_idx && ++ids->seq >= IPC_SEQ_MAX)
        ids->seq = 0;
    ids->last_idx = idx;
    ids->in_use++;
    if (idx > ids->max_idx)
        ids->max_idx = idx;
    p->seq = ids->seq;
    p->id = idx + (int)p->seq * IPCMNI;
    p->key = key;
    p->uid = p->cuid = ipc_euid(t);
    p->gid = p->cgid = ipc_egid(t);
    p->mode = flag & S_IRWXUGO;
    if (key != IPC_PRIVATE) {
        unsigned b = key_bucket(key);
        p->key_next = ids->keys[b];
        ids->keys[b] = p;
    }
    return 0;
}

void ipc_remove(struct ipc_ids *ids, struct ipc_perm_k *p)
{
    int idx = p->id % IPCMNI;
    void **slot = radix_slot(&ids->idx, (unsigned long)idx, false);
    if (slot)
        *slot = NULL;
    key_unlink(ids, p);
    p->deleted = true;
    if (!--ids->in_use)
        radix_destroy(&ids->idx, NULL);     /* its nodes too: nothing is left in it */
    if (idx == ids->max_idx)
        while (ids->max_idx >= 0 && !radix_get(&ids->idx, (unsigned long)ids->max_idx))
            ids->max_idx--;
}

void ipc_set_key_private(struct ipc_ids *ids, struct ipc_perm_k *p)
{
    key_unlink(ids, p);
    p->key = IPC_PRIVATE;
}

struct ipc_perm_k *ipc_obtain_idx(struct ipc_ids *ids, int idx)
{
    if (idx < 0)
        return NULL;
    return radix_get(&ids->idx, (unsigned long)(idx % IPCMNI));
}

struct ipc_perm_k *ipc_obtain_check(struct ipc_ids *ids, int id)
{
    struct ipc_perm_k *p = ipc_obtain_idx(ids, id);
    return p && (unsigned)(id / IPCMNI) == p->seq ? p : NULL;
}

int ipc_max_idx(const struct ipc_ids *ids)
{
    if (!ids->in_use)
        return -1;
    if (ids->in_use == IPCMNI)
        return IPCMNI - 1;
    return ids->max_idx;
}

struct each_ctx {
    void (*fn)(struct ipc_perm_k *p, void *ctx);
    void *ctx;
};

static bool each_one(void **slot, unsigned long index, void *c)
{
    (void)index;
    struct each_ctx *e = c;
    e->fn(*slot, e->ctx);
    return true;
}

void ipc_each(struct ipc_ids *ids, void (*fn)(struct ipc_perm_k *p, void *ctx), void *ctx)
{
    struct each_ctx e = { fn, ctx };
    radix_each(&ids->idx, 0, each_one, &e);
}

int ipc_get(struct thread *t, struct ipc_ids *ids, int key, unsigned flag,
            int (*more)(struct ipc_perm_k *p, void *arg),
            int (*make)(struct thread *t, int key, unsigned flag, void *arg), void *arg)
{
    if (key == IPC_PRIVATE)
        return make(t, key, flag, arg);
    struct ipc_perm_k *p = ipc_find_key(ids, key);
    if (!p)
        return flag & IPC_CREAT ? make(t, key, flag, arg) : -ENOENT;
    if ((flag & IPC_CREAT) && (flag & IPC_EXCL))
        return -EEXIST;
    int e = more ? more(p, arg) : 0;
    if (!e)
        e = ipc_perms(t, p, flag);
    return e ? e : p->id;
}

int ipc_update_perm(const struct ipc64_perm *in, struct ipc_perm_k *p)
{
    if (in->uid == ~0u || in->gid == ~0u)
        return -EINVAL;
    p->uid = in->uid;
    p->gid = in->gid;
    p->mode = (p->mode & ~S_IRWXUGO) | (in->mode & S_IRWXUGO);
    return 0;
}

void ipc_to_user_perm(const struct ipc_perm_k *p, struct ipc64_perm *out)
{
    *out = (struct ipc64_perm){ .key = p->key, .uid = p->uid, .gid = p->gid, .cuid = p->cuid,
                                .cgid = p->cgid, .mode = p->mode,
                                .seq = (unsigned short)p->seq };
}

int64_t ipc_seconds(void)
{
    return (int64_t)(clock_realtime() / 1000000000ull);
}

/* --- /proc/sysvipc ------------------------------------------------------------------------- */

void ipc_show_printf(struct ipc_show *s, const char *fmt, ...)
{
    if (s->len >= s->size)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(s->buf + s->len, s->size - s->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        s->len += (size_t)n;
}

struct show_ctx {
    void (*row)(struct ipc_perm_k *p, struct ipc_show *s);
    struct ipc_show *s;
};

static void show_row(struct ipc_perm_k *p, void *c)
{
    struct show_ctx *x = c;
    x->row(p, x->s);
}

size_t ipc_proc_show(struct ipc_ids *ids, const char *header,
                     void (*row)(struct ipc_perm_k *p, struct ipc_show *s), char *buf,
                     size_t size)
{
    struct ipc_show s = { buf, size, 0 };
    ipc_show_printf(&s, "%s", header);
    struct show_ctx x = { row, &s };
    ipc_each(ids, show_row, &x);
    return s.len < size ? s.len : size;
}

/* --- paged arrays -------------------------------------------------------------------------- */

bool paged_init(struct paged *a, unsigned n, unsigned size)
{
    a->size = size;
    a->per_page = (unsigned)(LX_PAGE / size);
    a->npages = (n + a->per_page - 1) / a->per_page;
    if (!a->npages)
        a->npages = 1;
    a->pages = kmalloc(a->npages * sizeof(void *));
    if (!a->pages)
        return false;
    for (unsigned i = 0; i < a->npages; i++)
        if (!(a->pages[i] = page_alloc())) {
            paged_free(a);
            return false;
        }
    return true;
}

void paged_free(struct paged *a)
{
    if (!a->pages)
        return;
    for (unsigned i = 0; i < a->npages; i++)
        if (a->pages[i])
            page_free(a->pages[i]);
    kfree(a->pages);
    a->pages = NULL;
}

/* --- a process's end ------------------------------------------------------------------------ */

void ipc_exit_begin(struct process *p)
{
    shm_closing(process_pid(p));
}

void ipc_exit_end(void)
{
    shm_closing(0);
}

void ipc_process_exit(struct process *p)
{
    shm_closing(0);
    sem_exit(p);
}

void ipc_each_remove(struct ipc_ids *ids, void (*destroy)(struct ipc_perm_k *p))
{
    for (int idx = 0; ids->in_use && idx <= ids->max_idx; idx++) {
        struct ipc_perm_k *p = radix_get(&ids->idx, (unsigned long)idx);
        if (p)
            destroy(p);
    }
}

void ipc_shutdown(void)
{
    sem_shutdown();
    msg_shutdown();
    shm_shutdown();
    mqueue_shutdown();
}
