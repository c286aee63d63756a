/* The pid table: numbers 1 .. PID_MAX - 1 to struct pid, in two levels: a fixed top array of
 * leaves, each leaf a page of LEAF slots made when its first number is handed out and freed
 * with its last, so the table grows and shrinks with the processes.  New numbers go up from
 * the last one given (Linux's cyclic allocation), skipping full leaves; after PID_MAX - 1
 * they start again above RESERVED_PIDS.  Lookup is two loads; /proc walks it in order. */
#include "task/pid.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"

#define LEAF   512                  /* one page of pointers */
#define LEAVES (PID_MAX / LEAF)

struct leaf {
    struct pid *slot[LEAF];
};
_Static_assert(sizeof(struct leaf) == 4096, "a leaf is a page");
_Static_assert(PID_MAX % LEAF == 0, "whole leaves");

static struct leaf *top[LEAVES];
static unsigned short used[LEAVES];  /* numbers in use per leaf */
static int last;                    /* the number handed out last */
int pid_max = PID_MAX;
static unsigned long nused;

struct pid pid0 = { .nr = 0, .refs = 1, .pgrp = LIST_INIT(pid0.pgrp),
                    .session = LIST_INIT(pid0.session) };

static struct pid **slot_of(int nr)
{
    struct leaf *l = top[nr / LEAF];
    return l ? &l->slot[nr % LEAF] : NULL;
}

/* The first free number in [lo, hi), or 0. */
static int free_in(int lo, int hi)
{
    for (int nr = lo; nr < hi;) {
        unsigned li = (unsigned)nr / LEAF;
        if (used[li] == LEAF) {
            nr = (int)(li + 1) * LEAF;      /* a full leaf */
            continue;
        }
        if (!top[li] || !top[li]->slot[nr % LEAF])
            return nr;
        nr++;
    }
    return 0;
}

static struct pid *install(int nr);

struct pid *pid_alloc(void)
{
    int nr = free_in(last + 1, pid_max);
    if (!nr)
        nr = free_in(last >= RESERVED_PIDS ? RESERVED_PIDS : 1,
                     last + 1 < pid_max ? last + 1 : pid_max);
    if (!nr)
        return NULL;
    struct pid *p = install(nr);
    if (p)
        last = nr;
    return p;
}

struct pid *pid_alloc_at(int nr, int *err)
{
    *err = -EINVAL;
    if (nr < 1 || nr >= pid_max)
        return NULL;
    *err = -EEXIST;
    if (pid_find(nr))
        return NULL;
    struct pid *p = install(nr);    /* the cyclic cursor stays (Linux's set_tid) */
    *err = p ? 0 : -ENOMEM;
    return p;
}

static struct pid *install(int nr)
{
    unsigned li = (unsigned)nr / LEAF;
    if (!top[li] && !(top[li] = kmalloc(sizeof(struct leaf))))
        return NULL;
    struct pid *p = kmalloc(sizeof *p);
    if (!p) {
        if (!used[li]) {
            kfree(top[li]);
            top[li] = NULL;
        }
        return NULL;
    }
    p->nr = nr;
    p->refs = 1;
    list_init(&p->pgrp);
    list_init(&p->session);
    top[li]->slot[nr % LEAF] = p;
    used[li]++;
    nused++;
    return p;
}

void pid_get(struct pid *p)
{
    p->refs++;
}

void pid_put(struct pid *p)
{
    if (--p->refs || p == &pid0)
        return;
    unsigned li = (unsigned)p->nr / LEAF;
    top[li]->slot[p->nr % LEAF] = NULL;
    nused--;
    if (!--used[li]) {
        kfree(top[li]);
        top[li] = NULL;
    }
    kfree(p);
}

struct pid *pid_find(int nr)
{
    if (nr <= 0 || nr >= PID_MAX)
        return NULL;
    struct pid **s = slot_of(nr);
    return s ? *s : NULL;
}

struct pid *pid_find_ge(int nr)
{
    if (nr < 1)
        nr = 1;
    for (; nr < PID_MAX; nr++) {
        if (!top[nr / LEAF]) {
            nr = (nr / LEAF + 1) * LEAF - 1;
            continue;
        }
        struct pid *p = top[nr / LEAF]->slot[nr % LEAF];
        if (p)
            return p;
    }
    return NULL;
}

int pid_last(void)
{
    return last;
}

unsigned long pid_count(void)
{
    return nused;
}
