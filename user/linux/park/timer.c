/* The timer structure: a pairing heap of struct timer (Fredman, Sedgewick, Sleator and
 * Tarjan, 1986), intrusive, so arming never allocates.  Each node keeps its first child and
 * its siblings in a doubly linked list whose first node points back at the parent, which
 * lets any node leave the heap (a cancelled deadline) without a search.  Melding is the
 * only comparison: the root is the earliest deadline. */
#include "park/timer.h"
#include <stddef.h>

static struct timer *root;
void (*timer_changed)(uint64_t next);

void timer_init(struct timer *tm, void (*fire)(struct timer *tm))
{
    *tm = (struct timer){ .fire = fire };
}

/* Two heaps (roots, no siblings) as one: the later root becomes the first child. */
static struct timer *meld(struct timer *a, struct timer *b)
{
    if (!a)
        return b;
    if (!b)
        return a;
    if (b->when < a->when) {
        struct timer *t = a;
        a = b;
        b = t;
    }
    b->prev = a;
    b->next = a->child;
    if (a->child)
        a->child->prev = b;
    a->child = b;
    return a;
}

/* A list of siblings as one heap: meld them in pairs left to right, then the pairs right to
 * left (the two passes that give the amortised bound), without recursion. */
static struct timer *merge_pairs(struct timer *first)
{
    struct timer *pairs = NULL;     /* melded pairs, the last one first, linked by next */
    while (first) {
        struct timer *a = first, *b = a->next;
        first = b ? b->next : NULL;
        a->next = a->prev = NULL;
        if (b)
            b->next = b->prev = NULL;
        struct timer *m = meld(a, b);
        m->next = pairs;
        pairs = m;
    }
    struct timer *heap = NULL;
    while (pairs) {
        struct timer *n = pairs->next;
        pairs->next = NULL;
        heap = meld(heap, pairs);
        pairs = n;
    }
    return heap;
}

/* Take tm (armed) out of the heap; its children stay in it. */
static void unlink_timer(struct timer *tm)
{
    struct timer *kids = tm->child;
    tm->child = NULL;
    if (tm == root) {
        root = merge_pairs(kids);
    } else {
        if (tm->prev->child == tm)
            tm->prev->child = tm->next;     /* the first child: prev is the parent */
        else
            tm->prev->next = tm->next;
        if (tm->next)
            tm->next->prev = tm->prev;
        root = meld(root, merge_pairs(kids));
    }
    tm->next = tm->prev = NULL;
    tm->armed = false;
}

void timer_arm(struct timer *tm, uint64_t when)
{
    if (tm->armed)
        unlink_timer(tm);
    tm->when = when;
    tm->armed = true;
    root = meld(root, tm);
    if (root == tm && timer_changed)
        timer_changed(when);
}

void timer_cancel(struct timer *tm)
{
    if (tm->armed)
        unlink_timer(tm);
}

uint64_t timer_next(void)
{
    return root ? root->when : ~0ull;
}

unsigned timer_run(uint64_t now)
{
    unsigned n = 0;
    while (root && root->when <= now) {
        struct timer *tm = root;
        unlink_timer(tm);
        tm->fire(tm);
        n++;
    }
    return n;
}
