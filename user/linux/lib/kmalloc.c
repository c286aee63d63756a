/* Small objects for lx's own structures (inodes, names, open files, fd tables), carved
 * from pool pages by size class.  A page holds objects of one class after a header; it
 * goes back to the pool when its last object is freed, so a run that frees everything
 * ends with the pool complete.  Requests above the largest class get a whole page (page-
 * aligned, which is how kfree tells them apart: a slab object never is). */
#include "lib/kmalloc.h"
#include "mm/page.h"

struct slab {                       /* at the start of each slab page */
    struct slab *next, *prev;       /* pages of the class with a free object */
    void *free;                     /* free objects, linked through their first word */
    unsigned used, cls;
};

#define NCLASSES 7                  /* 32 .. 2048 */
#define HDR      64                 /* objects start here (keeps 64-byte alignment) */

static struct slab *partial[NCLASSES];

static unsigned class_size(unsigned c)
{
    return 32u << c;
}

static void unlink_slab(struct slab *s)
{
    if (s->prev)
        s->prev->next = s->next;
    else
        partial[s->cls] = s->next;
    if (s->next)
        s->next->prev = s->prev;
    s->next = s->prev = NULL;
}

static void push_slab(struct slab *s)
{
    s->prev = NULL;
    s->next = partial[s->cls];
    if (s->next)
        s->next->prev = s;
    partial[s->cls] = s;
}

void *kmalloc(size_t n)
{
    unsigned c = 0;
    while (c < NCLASSES && class_size(c) < n)
        c++;
    if (c == NCLASSES)
        return n <= LX_PAGE ? page_alloc() : NULL;
    struct slab *s = partial[c];
    if (!s) {
        s = page_alloc();
        if (!s)
            return NULL;
        s->cls = c;
        unsigned size = class_size(c);
        for (l4_word_t o = LX_PAGE - size; o >= HDR; o -= size) {
            *(void **)((char *)s + o) = s->free;
            s->free = (char *)s + o;
        }
        push_slab(s);
    }
    void *p = s->free;
    s->free = *(void **)p;
    s->used++;
    if (!s->free)
        unlink_slab(s);
    unsigned size = class_size(c);
    for (unsigned i = 0; i < size / 8; i++)
        ((uint64_t *)p)[i] = 0;
    return p;
}

void kfree(void *p)
{
    if (!p)
        return;
    if (!((l4_word_t)p & ~LX_PAGE_MASK)) {
        page_free(p);
        return;
    }
    struct slab *s = (struct slab *)((l4_word_t)p & LX_PAGE_MASK);
    bool was_full = !s->free;
    *(void **)p = s->free;
    s->free = p;
    s->used--;
    if (was_full)
        push_slab(s);
    if (!s->used) {
        unlink_slab(s);
        page_free(s);
    }
}
