/* Host unit test of the buddy allocator, compiled with the real kernel/kmem.c
 * (-DKMEM_HOST_TEST: only kmem_pool_init/alloc/free).
 *
 * The pool's frames are a malloc'ed buffer: to_virt(pa) = buffer + (pa - BASE).  A reference
 * model (which pages are allocated, in which block) is compared with the allocator's free lists
 * after every operation: every page is in exactly one free or allocated block, free blocks are
 * naturally aligned (relative to the pool base), buddies are always coalesced, free_pages is
 * consistent, and allocated memory is never written by the allocator. */
#include "unit_check.h"
#include "kmem.h"

/* kmem.c's private free-list link, at the start of each free block (mirrored to walk the lists). */
struct kmem_free {
    struct kmem_free *next, *prev;
};

#define BASE 0x40000000ul           /* physical base of the test pools (non-zero: 0 = failure) */
#define NOT_FREE 0xFF
#define MAXP 8192u

static uint8_t *frames;             /* the pool's memory */
static word_t frames_pages;

static void *to_virt(paddr_t pa)
{
    if (pa < BASE || pa >= BASE + frames_pages * 4096ul) {
        printf("FAIL to_virt(%#lx) outside the pool\n", pa);
        abort();
    }
    return frames + (pa - BASE);
}

/* --- reference model ------------------------------------------------------------------- */
struct block { word_t idx; unsigned order; };
static struct block allocated[MAXP];
static unsigned nallocated;
static int16_t owner[MAXP];         /* per page: index+1 of the allocated block, 0 if free */

static uint8_t fill_byte(word_t idx) { return (uint8_t)(0x5A ^ idx ^ (idx >> 8)); }

static void fill_block(word_t idx, unsigned order)
{
    memset(frames + idx * 4096ul, fill_byte(idx), 4096ul << order);
}

static bool block_intact(word_t idx, unsigned order)
{
    const uint8_t *p = frames + idx * 4096ul;
    for (word_t i = 0; i < (4096ul << order); i++)
        if (p[i] != fill_byte(idx))
            return false;
    return true;
}

/* Walk the free lists; compare with the model.  Returns the number of problems. */
static unsigned verify(struct kmem_pool *p, word_t npages, const char *when)
{
    static int8_t seen[MAXP];
    unsigned bad = 0;
    memset(seen, 0, sizeof(seen));
    word_t free_count = 0;
    for (unsigned o = 0; o <= KMEM_MAX_ORDER; o++) {
        unsigned guard = 0;
        const struct kmem_free *prev = NULL;
        for (struct kmem_free *f = p->free[o]; f; f = f->next) {
            if (++guard > npages + 1) {
                CHECKQ(false, "%s: free list %u is cyclic", when, o);
                bad++;
                break;
            }
            word_t off = (word_t)((uint8_t *)f - frames);
            word_t idx = off / 4096;
            if (off % 4096 || idx >= npages) {
                CHECKQ(false, "%s: free block %p of order %u is not a pool page", when, (void *)f, o);
                bad++;
                break;
            }
            if (f->prev != prev) {
                CHECKQ(false, "%s: free list %u: bad prev link at page %lu", when, o, idx);
                bad++;
            }
            prev = f;
            if (idx & ((1ul << o) - 1)) {
                CHECKQ(false, "%s: free block at page %lu of order %u is not naturally aligned", when, idx, o);
                bad++;
            }
            if (idx + (1ul << o) > npages) {
                CHECKQ(false, "%s: free block at page %lu of order %u reaches beyond the pool (%lu pages)",
                       when, idx, o, npages);
                bad++;
                continue;
            }
            if (p->order_of[idx] != o) {
                CHECKQ(false, "%s: order_of[%lu] = %u, but the block is on free list %u", when, idx,
                       p->order_of[idx], o);
                bad++;
            }
            for (word_t i = idx; i < idx + (1ul << o); i++) {
                if (seen[i]) {
                    CHECKQ(false, "%s: page %lu is in two free blocks", when, i);
                    bad++;
                }
                if (owner[i]) {
                    CHECKQ(false, "%s: page %lu is free and allocated (block at %lu)", when, i,
                           allocated[owner[i] - 1].idx);
                    bad++;
                }
                seen[i] = 1;
            }
            free_count += 1ul << o;
            /* Maximal coalescing: the buddy of a free block is never a free block of the same order. */
            if (o < KMEM_MAX_ORDER) {
                word_t buddy = idx ^ (1ul << o);
                if (buddy + (1ul << o) <= npages && p->order_of[buddy] == o) {
                    CHECKQ(false, "%s: buddies at pages %lu and %lu (order %u) are both free, not merged",
                           when, idx, buddy, o);
                    bad++;
                }
            }
        }
    }
    for (word_t i = 0; i < npages; i++)
        if (!seen[i] && !owner[i]) {
            CHECKQ(false, "%s: page %lu is neither free nor allocated (leaked)", when, i);
            bad++;
            break;
        }
    word_t in_use = 0;
    for (unsigned b = 0; b < nallocated; b++)
        in_use += 1ul << allocated[b].order;
    if (free_count + in_use != npages || p->free_pages != free_count) {
        CHECKQ(false, "%s: free_pages = %lu, free lists hold %lu, allocated %lu, pool %lu", when,
               p->free_pages, free_count, in_use, npages);
        bad++;
    }
    return bad;
}

static struct kmem_pool pool;
static uint8_t meta[MAXP + 1];      /* one guard byte behind the largest pool */

static void setup(word_t npages)
{
    free(frames);
    frames = malloc(npages * 4096ul);
    frames_pages = npages;
    nallocated = 0;
    memset(owner, 0, sizeof(owner));
    memset(meta, 0xA5, sizeof(meta));
    kmem_pool_init(&pool, BASE, npages, meta, to_virt);
}

/* Allocate through the model: checks the block and records it; returns the page index or -1. */
static long model_alloc(word_t npages, unsigned order, bool quiet)
{
    paddr_t pa = kmem_pool_alloc(&pool, order);
    if (!pa)
        return -1;
    word_t off = pa - BASE;
    word_t idx = off / 4096;
    bool ok = pa >= BASE && off % (4096ul << order) == 0 && idx + (1ul << order) <= npages;
    UC_REPORT(ok, quiet, "alloc order %u -> %#lx: inside the pool and naturally aligned", order, pa);
    if (!ok)
        return -1;
    for (word_t i = idx; i < idx + (1ul << order); i++)
        if (owner[i]) {
            CHECKQ(false, "alloc order %u -> page %lu overlaps the block at page %lu", order, idx,
                   allocated[owner[i] - 1].idx);
            return -1;
        }
    allocated[nallocated] = (struct block){ idx, order };
    nallocated++;
    for (word_t i = idx; i < idx + (1ul << order); i++)
        owner[i] = (int16_t)nallocated;
    fill_block(idx, order);
    return (long)idx;
}

static void model_free(unsigned b, bool quiet)
{
    struct block blk = allocated[b];
    UC_REPORT(block_intact(blk.idx, blk.order), quiet,
              "block at page %lu (order %u) unchanged while allocated", blk.idx, blk.order);
    for (word_t i = blk.idx; i < blk.idx + (1ul << blk.order); i++)
        owner[i] = 0;
    allocated[b] = allocated[--nallocated];
    if (b < nallocated) {           /* the last block moved into slot b */
        struct block m = allocated[b];
        for (word_t i = m.idx; i < m.idx + (1ul << m.order); i++)
            owner[i] = (int16_t)(b + 1);
    }
    kmem_pool_free(&pool, BASE + blk.idx * 4096ul, blk.order);
}

/* The canonical free-block set right after init, to compare with after everything is freed. */
struct fb { word_t idx; unsigned order; };
static unsigned snapshot(struct fb *out)
{
    unsigned n = 0;
    for (unsigned o = 0; o <= KMEM_MAX_ORDER; o++)
        for (struct kmem_free *f = pool.free[o]; f; f = f->next)
            out[n++] = (struct fb){ (word_t)((uint8_t *)f - frames) / 4096, o };
    for (unsigned i = 1; i < n; i++)            /* insertion sort by page */
        for (unsigned j = i; j > 0 && out[j - 1].idx > out[j].idx; j--) {
            struct fb t = out[j]; out[j] = out[j - 1]; out[j - 1] = t;
        }
    return n;
}

static void test_init_sizes(void)
{
    static const word_t sizes[] = { 1, 2, 3, 7, 512, 1000, 1023, 1024, 1025, 2048 + 7, 3 * 1024 + 5, MAXP };
    for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        word_t n = sizes[s];
        setup(n);
        CHECK(verify(&pool, n, "init") == 0, "pool of %lu pages: free lists cover it exactly", n);
        CHECK_EQ(pool.free_pages, n, "pool of %lu pages: free_pages", n);
        CHECK(meta[n] == 0xA5, "pool of %lu pages: init writes only npages bytes of bookkeeping", n);
        /* Largest blocks first: a 1024-page pool is one order-10 block. */
        unsigned blocks = 0;
        for (unsigned o = 0; o <= KMEM_MAX_ORDER; o++)
            for (struct kmem_free *f = pool.free[o]; f; f = f->next)
                blocks++;
        unsigned expect = 0;
        for (word_t rest = n, idx = 0; rest; ) {
            unsigned o = KMEM_MAX_ORDER;
            while ((1ul << o) > rest || (idx & ((1ul << o) - 1)))
                o--;
            expect++;
            idx += 1ul << o;
            rest -= 1ul << o;
        }
        CHECK_EQ(blocks, expect, "pool of %lu pages: carved into the fewest aligned blocks", n);
    }
}

static void test_all_orders(void)
{
    const word_t n = 4096;
    setup(n);
    static struct fb before[MAXP], after[MAXP];
    unsigned nb = snapshot(before);
    for (unsigned o = 0; o <= KMEM_MAX_ORDER; o++) {
        long idx = model_alloc(n, o, false);
        CHECK(idx >= 0, "alloc of order %u succeeds", o);
        CHECK(verify(&pool, n, "after alloc") == 0, "consistent after alloc of order %u", o);
    }
    CHECK(kmem_pool_alloc(&pool, KMEM_MAX_ORDER + 1) == 0, "order above KMEM_MAX_ORDER fails");
    while (nallocated) {
        model_free(0, false);
        CHECK(verify(&pool, n, "after free") == 0, "consistent after free (%u blocks left)", nallocated);
    }
    unsigned na = snapshot(after);
    bool same = na == nb;
    for (unsigned i = 0; same && i < na; i++)
        same = after[i].idx == before[i].idx && after[i].order == before[i].order;
    CHECK(same, "freeing everything coalesces back to the initial blocks (%u blocks, now %u)", nb, na);
    CHECK_EQ(pool.free_pages, n, "all pages free again");
}

static void test_split_coalesce(void)
{
    const word_t n = 1024;          /* one order-10 block */
    setup(n);
    long a = model_alloc(n, 0, false);
    CHECK_EQ(a, 0, "first page comes from the lowest block (lower half kept on split)");
    for (unsigned o = 0; o < KMEM_MAX_ORDER; o++) {
        CHECK(pool.free[o] != NULL, "split left a free block of order %u", o);
        if (pool.free[o])
            CHECK_EQ(((uint8_t *)pool.free[o] - frames) / 4096, 1ul << o,
                     "free block of order %u is the upper half at page 2^%u", o, o);
    }
    CHECK(pool.free[KMEM_MAX_ORDER] == NULL, "no order-10 block left");
    long b = model_alloc(n, 0, false);
    CHECK_EQ(b, 1, "second page is the buddy of the first");
    model_free(0, false);           /* frees page 0: buddy 1 is allocated, no merge */
    CHECK(verify(&pool, n, "free 0") == 0, "consistent after freeing page 0");
    CHECK(pool.free[0] && ((uint8_t *)pool.free[0] - frames) == 0, "page 0 is a free order-0 block");
    model_free(0, false);           /* frees page 1: merges all the way up */
    CHECK(verify(&pool, n, "free 1") == 0, "consistent after freeing page 1");
    CHECK(pool.free[KMEM_MAX_ORDER] != NULL && pool.free[KMEM_MAX_ORDER]->next == NULL,
          "both pages freed: coalesced back into the single order-10 block");
    for (unsigned o = 0; o < KMEM_MAX_ORDER; o++)
        CHECK(pool.free[o] == NULL, "no free block of order %u remains", o);
}

static void test_exhaustion(void)
{
    static const word_t sizes[] = { 1, 5, 1000, 1536 + 3 };
    for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        word_t n = sizes[s];
        setup(n);
        word_t got = 0;
        while (model_alloc(n, 0, true) >= 0)
            got++;
        CHECK_EQ(got, n, "pool of %lu pages: exactly npages single pages can be allocated", n);
        CHECK_EQ(pool.free_pages, 0, "pool of %lu pages: no free pages left", n);
        for (unsigned o = 0; o <= KMEM_MAX_ORDER; o++)
            CHECKQ(kmem_pool_alloc(&pool, o) == 0, "exhausted pool: alloc of order %u returns 0", o);
        CHECK(verify(&pool, n, "exhausted") == 0, "pool of %lu pages: consistent when exhausted", n);
        while (nallocated)
            model_free(nallocated - 1, true);
        CHECK(verify(&pool, n, "refilled") == 0, "pool of %lu pages: consistent after freeing all", n);
        CHECK_EQ(pool.free_pages, n, "pool of %lu pages: everything free again", n);
    }
    /* A request larger than any free block fails even though enough pages are free. */
    setup(1024);
    long first = model_alloc(1024, 0, false);
    CHECK(first >= 0, "one page allocated from a 1024-page pool");
    CHECK(kmem_pool_alloc(&pool, KMEM_MAX_ORDER) == 0, "order 10 fails once any page is taken");
    long big = model_alloc(1024, KMEM_MAX_ORDER - 1, false);
    CHECK_EQ(big, 512, "order 9 still comes from the untouched upper half");
}

static uint64_t rng = 88172645463325252ull;
static uint64_t xorshift(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void random_run(word_t n, unsigned steps, uint64_t seed)
{
    rng = seed;
    setup(n);
    unsigned bad = 0, allocs = 0, failed_allocs = 0, frees = 0;
    for (unsigned step = 0; step < steps && !bad; step++) {
        bool do_alloc = nallocated == 0 || (xorshift() % 100) < 55;
        if (do_alloc) {
            unsigned o = (unsigned)(xorshift() % 100);
            o = o < 50 ? 0 : o < 70 ? 1 : o < 80 ? 2 : (unsigned)(xorshift() % (KMEM_MAX_ORDER + 1));
            long idx = model_alloc(n, o, true);
            if (idx < 0) {
                failed_allocs++;
                /* Failure is only allowed if no free block of that order or larger exists. */
                bool any = false;
                for (unsigned q = o; q <= KMEM_MAX_ORDER; q++)
                    any |= pool.free[q] != NULL;
                if (any) {
                    CHECKQ(false, "step %u: alloc of order %u failed although a large enough block is free", step, o);
                    bad++;
                }
            } else {
                allocs++;
            }
        } else {
            model_free((unsigned)(xorshift() % nallocated), true);
            frees++;
        }
        char when[64];
        snprintf(when, sizeof(when), "pool %lu seed %#llx step %u", n, (unsigned long long)seed, step);
        bad += verify(&pool, n, when);
    }
    while (nallocated && !bad)
        model_free(nallocated - 1, true);
    if (!bad)
        bad += verify(&pool, n, "random: all freed");
    CHECK(bad == 0, "random pool of %lu pages, seed %#llx: %u allocs (%u failed), %u frees, all consistent",
          n, (unsigned long long)seed, allocs, failed_allocs, frees);
    CHECK_EQ(pool.free_pages, n, "random pool of %lu pages: everything free at the end", n);
}

static void test_random(void)
{
    random_run(1000, 3000, 1);
    random_run(4096, 3000, 2);
    random_run(2048 + 333, 3000, 3);
    random_run(37, 2000, 4);
}

static const struct uc_case cases[] = {
    UC_CASE(test_init_sizes),
    UC_CASE(test_all_orders),
    UC_CASE(test_split_coalesce),
    UC_CASE(test_exhaustion),
    UC_CASE(test_random),
};

int main(int argc, char **argv)
{
    int rc = uc_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
    free(frames);
    return rc;
}
