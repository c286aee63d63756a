/* Host unit test of root's page map (user/root/pagemap.c): first fit against a plain model,
 * and the work per allocation (bitmap words examined) bounded where the first version walked
 * every used page.  Cases by name; --list prints them.  Driven by test_root_pagemap.py. */
#include "pagemap.h"
#include "unit_check.h"

/* The model: a byte per page over the first MODEL pages, first fit by plain scanning. */
#define MODEL 20000ul
static unsigned char model[MODEL];

static unsigned long model_find(unsigned long n)
{
    unsigned long run = 0;
    for (unsigned long i = 0; i < MODEL; i++) {
        run = model[i] ? 0 : run + 1;
        if (run == n)
            return i + 1 - n;
    }
    return PAGEMAP_NONE;
}

static unsigned long alloc(unsigned long n)
{
    unsigned long p = pagemap_find(n);
    if (p != PAGEMAP_NONE)
        pagemap_mark(p, n, true);
    return p;
}

static void test_first_fit_matches_model(void)
{
    pagemap_reset();
    memset(model, 0, sizeof model);
    srand(1);
    struct { unsigned long first, n; } live[4000];
    unsigned nlive = 0;
    for (int step = 0; step < 60000; step++) {
        if (nlive < 4000 && (nlive == 0 || rand() % 3)) {
            unsigned long n = rand() % 8 ? 1 : 1 + rand() % 200;
            unsigned long want = model_find(n);
            if (want == PAGEMAP_NONE || want + n > MODEL / 2)
                continue;                   /* stay well inside the model */
            unsigned long got = alloc(n);
            CHECKQ(got == want, "step %d: %lu pages at %lu, the model says %lu", step, n, got, want);
            if (got != want)
                return;
            memset(model + got, 1, n);
            live[nlive].first = got;
            live[nlive++].n = n;
        } else {
            unsigned i = rand() % nlive;
            pagemap_mark(live[i].first, live[i].n, false);
            memset(model + live[i].first, 0, live[i].n);
            live[i] = live[--nlive];
        }
    }
    for (unsigned long i = 0; i < MODEL; i++)
        CHECKQ(pagemap_used(i) == !!model[i], "page %lu", i);
}

/* lx's heap as root serves it: hundreds of thousands of pages touched once each, and a page
 * of root's task or thread records freed low in the pool when a Linux process's task went
 * (and taken again).  Each further page must cost a few words, not a walk over every page
 * handed out. */
static void test_single_pages_after_an_early_free(void)
{
    pagemap_reset();
    for (unsigned long i = 0; i < 200000; i++)
        alloc(1);
    pagemap_mark(5, 1, false);
    CHECKQ(alloc(1) == 5, "the freed page comes back first");
    unsigned long worst = 0, start = pagemap_words_examined;
    for (unsigned long i = 0; i < 20000; i++) {
        unsigned long before = pagemap_words_examined;
        unsigned long p = alloc(1);
        CHECKQ(p == 200000 + i, "page %lu, expected %lu", p, 200000 + i);
        if (pagemap_words_examined - before > worst)
            worst = pagemap_words_examined - before;
    }
    /* One walk from page 6 to 200,000 by the summary (49 summary words), then O(1). */
    CHECKQ(worst <= 64, "an allocation examined %lu words", worst);
    CHECKQ(pagemap_words_examined - start < 3 * 20000, "%lu words for 20,000 pages",
          pagemap_words_examined - start);
}

/* A hole too small for a run does not make every later run walk from it again. */
static void test_runs_over_a_small_hole(void)
{
    pagemap_reset();
    for (unsigned long i = 0; i < 100000; i++)
        alloc(1);
    pagemap_mark(10, 1, false);             /* a one-page hole */
    unsigned long before = pagemap_words_examined;
    CHECKQ(alloc(4) == 100000, "the run goes past the hole");
    CHECKQ(alloc(4) == 100004, "and the next one after it");
    CHECKQ(pagemap_words_examined - before <= 2 * (100000 / 4096 + 8),
          "two runs examined %lu words", pagemap_words_examined - before);
    CHECKQ(alloc(1) == 10, "the hole is still found first");
}

static void test_full_and_edges(void)
{
    pagemap_reset();
    CHECKQ(pagemap_find(0) == PAGEMAP_NONE && pagemap_find(PAGEMAP_PAGES + 1) == PAGEMAP_NONE,
          "sizes 0 and beyond the map");
    CHECKQ(alloc(PAGEMAP_PAGES) == 0, "the whole map in one run");
    CHECKQ(pagemap_find(1) == PAGEMAP_NONE, "nothing left");
    pagemap_mark(PAGEMAP_PAGES - 1, 1, false);
    CHECKQ(pagemap_find(1) == PAGEMAP_PAGES - 1, "the last page");
    CHECKQ(pagemap_find(2) == PAGEMAP_NONE, "no run of two");
    pagemap_mark(63, 2, false);             /* across a word boundary */
    CHECKQ(pagemap_find(2) == 63, "a run across words");
}

/* Coloured single pages (docs/cache-partitioning.md): only the mask's colours, lowest first,
 * around pages taken by uncoloured allocations; none when the mask's pages are all out. */
static void test_coloured_pages(void)
{
    pagemap_reset();
    const uint64_t rt = 0x0003000300030003ull;     /* colours 0, 1 of a 16-colour cache */
    CHECKQ(pagemap_find_coloured(0) == PAGEMAP_NONE, "an empty mask finds nothing");
    for (unsigned long i = 0; i < 200; i++) {
        unsigned long p = pagemap_find_coloured(rt);
        CHECKQ(p != PAGEMAP_NONE && (p % 16) < 2, "page %lu has colour %lu", p, p % 16);
        CHECKQ(p == (i / 2) * 16 + i % 2, "page %lu is the lowest of its colours", p);
        pagemap_mark(p, 1, true);
    }
    /* the rest of the map is open to the other colours, first fit, lowest first */
    for (unsigned long i = 0; i < 14 * 100; i++) {
        unsigned long p = pagemap_find_coloured(~rt);
        CHECKQ(p % 16 >= 2 && p == (i / 14) * 16 + 2 + i % 14, "the others: page %lu", p);
        pagemap_mark(p, 1, true);
    }
    CHECKQ(pagemap_find(1) == 1600, "first fit after both: the first page not handed out");
    pagemap_mark(17, 1, false);
    CHECKQ(pagemap_find_coloured(rt) == 17, "a freed page of a colour comes back");
    CHECKQ(pagemap_find_coloured(~rt) == 1600 + 2, "and is not one of the others' colours");
    pagemap_mark(0, PAGEMAP_PAGES, true);
    pagemap_mark(PAGEMAP_PAGES - 1, 1, false);      /* colour 63 */
    CHECKQ(pagemap_find_coloured(rt) == PAGEMAP_NONE, "no free page of the mask's colours");
    CHECKQ(pagemap_find_coloured(1ull << 63) == PAGEMAP_PAGES - 1, "the last page, colour 63");
}

/* The colour search's cost does not grow with the memory in use (a review finding: the first
 * version stepped from the map's lowest free page, a page of the real-time task's colours,
 * over every page the other colours had taken above it).  lx's complement mask takes 40,000
 * pages while the real-time colours stay free below them; then both alternate. */
static void test_coloured_search_cost(void)
{
    pagemap_reset();
    const uint64_t rt = 0x0003000300030003ull;
    unsigned long start = pagemap_words_examined;
    for (unsigned long i = 0; i < 40000; i++) {
        unsigned long p = pagemap_find_coloured(~rt);
        CHECKQ(p != PAGEMAP_NONE && p % 16 >= 2, "page %lu", p);
        pagemap_mark(p, 1, true);
    }
    for (unsigned long i = 0; i < 2000; i++) {
        unsigned long p = pagemap_find_coloured(i % 2 ? rt : ~rt);
        CHECKQ(p != PAGEMAP_NONE && (p % 16 < 2) == (i % 2), "page %lu", p);
        pagemap_mark(p, 1, true);
    }
    CHECKQ(pagemap_words_examined - start < 3 * 42000, "%lu words for 42,000 coloured pages",
          pagemap_words_examined - start);
    /* a freed page lowers its colour's bound again */
    pagemap_mark(5, 1, false);
    CHECKQ(pagemap_find_coloured(~rt) == 5, "the freed page 5 comes back first");
}

static const struct uc_case cases[] = {
    UC_CASE(test_first_fit_matches_model),
    UC_CASE(test_single_pages_after_an_early_free),
    UC_CASE(test_runs_over_a_small_hole),
    UC_CASE(test_full_and_edges),
    UC_CASE(test_coloured_pages),
    UC_CASE(test_coloured_search_cost),
};

int main(int argc, char **argv)
{
    return uc_main(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
