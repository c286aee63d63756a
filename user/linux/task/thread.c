/* Threads: allocation, and the hash from L4 thread id to struct thread that every message
 * goes through (serve() in main.c).  The root task hands out thread numbers densely from the
 * bottom and reuses freed ones (a new version each time), so the low bits of the thread number
 * index the buckets directly: with fewer live threads than buckets each chain has about one
 * entry, and a lookup is a shift, a mask, a load and a compare.  The bucket array is lx's bss,
 * which the root task pages on demand: the buckets of numbers never used cost nothing. */
#include "task/thread.h"
#include "lib/kmalloc.h"
#include "task/pid.h"
#include <stdio.h>
#include <string.h>

#define BUCKETS (1u << 16)          /* thread numbers beyond it share chains */

static struct thread *buckets[BUCKETS];
static unsigned long nthreads;

static unsigned bucket_of(l4_word_t l4)
{
    return (unsigned)(l4 >> 14) & (BUCKETS - 1);    /* the thread number, without the version */
}

struct thread *thread_by_l4(l4_word_t l4)
{
    struct thread *t = buckets[bucket_of(l4)];
    while (t && t->l4 != l4)
        t = t->l4_next;
    return t;
}

void thread_hash_add(struct thread *t)
{
    struct thread **b = &buckets[bucket_of(t->l4)];
    t->l4_next = *b;
    *b = t;
    nthreads++;
}

void thread_hash_del(struct thread *t)
{
    for (struct thread **pp = &buckets[bucket_of(t->l4)]; *pp; pp = &(*pp)->l4_next)
        if (*pp == t) {
            *pp = t->l4_next;
            t->l4_next = NULL;
            nthreads--;
            return;
        }
}

unsigned long thread_count(void)
{
    return nthreads;
}

struct thread *thread_alloc(void)
{
    struct thread *t = kmalloc(sizeof *t);
    if (!t)
        return NULL;
    list_init(&t->proc_link);
    list_init(&t->sig.kick_link);
    park_init(t);
    return t;
}

void thread_free(struct thread *t)
{
    kfree(t);
}

void thread_set_comm(struct thread *t, const char *path)
{
    const char *base = path;
    for (const char *p = path; *p; p++)
        if (*p == '/' && p[1])
            base = p + 1;
    memset(t->comm, 0, sizeof t->comm);
    strncpy(t->comm, base, sizeof t->comm - 1);
}

void thread_reply(struct thread *t, long value)
{
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_RESUME, 1, 0));
    l4_set_mr(1, (l4_word_t)value);
    /* The thread waits in its call's receive phase: a send that cannot block lx. */
    if (l4_ipc_failed(l4_reply(t->l4)))
        printf("lx: tid %d: cannot answer its call\n", t->tid->nr);
}
