/* Host unit test of lx's region tree, compiled with the real user/linux/vma.c
 * (test_lx_units.py; AddressSanitizer and UndefinedBehaviorSanitizer).
 *
 * After every operation (or every few in the long runs) the tree must be a binary search
 * tree of disjoint regions with correct parent links, AVL balance, heights and subtree
 * summaries, and hold exactly the regions of a model: a plain sorted array.  Lookups, the
 * in-order walk both ways and the gap search are compared with the model's brute-force
 * answers.  The random case mixes insertions, removals, resizes and queries. */
#include "unit_check.h"
#include "mm/vma.h"

#define MAXN 70000
#define PAGE 4096ull

/* --- the model: disjoint [start, end) in address order ------------------------------------ */

static struct region *model[MAXN];
static unsigned nmodel;

static unsigned model_index(uint64_t start)     /* first with start >= start */
{
    unsigned lo = 0, hi = nmodel;
    while (lo < hi) {
        unsigned mid = (lo + hi) / 2;
        if (model[mid]->start < start)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static bool model_free(uint64_t start, uint64_t end)
{
    unsigned i = model_index(start);
    if (i < nmodel && model[i]->start < end)
        return false;
    return !(i > 0 && model[i - 1]->end > start);
}

static void model_add(struct region *r)
{
    unsigned i = model_index(r->start);
    memmove(&model[i + 1], &model[i], (nmodel - i) * sizeof model[0]);
    model[i] = r;
    nmodel++;
}

static void model_del(unsigned i)
{
    memmove(&model[i], &model[i + 1], (nmodel - i - 1) * sizeof model[0]);
    nmodel--;
}

static struct region *model_find(uint64_t addr)
{
    for (unsigned lo = 0, hi = nmodel; lo < hi;) {
        unsigned mid = (lo + hi) / 2;
        if (addr < model[mid]->start)
            hi = mid;
        else if (addr >= model[mid]->end)
            lo = mid + 1;
        else
            return model[mid];
    }
    return NULL;
}

static struct region *model_from(uint64_t addr)
{
    for (unsigned i = model_index(addr) > 0 ? model_index(addr) - 1 : 0; i < nmodel; i++)
        if (model[i]->end > addr)
            return model[i];
    return NULL;
}

/* The brute-force gap search: free intervals from the top down. */
static bool model_gap(uint64_t lo, uint64_t hi, uint64_t len, uint64_t *at)
{
    if (!len || hi <= lo || hi - lo < len)
        return false;
    uint64_t top = UINT64_MAX;
    for (unsigned i = nmodel + 1; i-- > 0;) {
        uint64_t g0 = i ? model[i - 1]->end : 0, g1 = i < nmodel ? model[i]->start : top;
        if (g0 < lo)
            g0 = lo;
        if (g1 > hi)
            g1 = hi;
        if (g1 > g0 && g1 - g0 >= len) {
            *at = g1 - len;
            return true;
        }
    }
    return false;
}

/* --- tree checks --------------------------------------------------------------------------- */

static struct vma_tree tree;
static unsigned long nodes_seen;

/* Checks n's subtree (keys within (lo, hi)): its height, or -1 after a failure. */
static int check_node(const struct region *n, const struct region *parent, uint64_t lo,
                      uint64_t hi)
{
    if (!n)
        return 0;
    nodes_seen++;
    bool ok = true;
    if (n->parent != parent) {
        CHECKQ(false, "node [%#llx, %#llx): wrong parent link", (unsigned long long)n->start,
               (unsigned long long)n->end);
        ok = false;
    }
    if (!(n->start < n->end && n->start >= lo && n->end <= hi)) {
        CHECKQ(false, "node [%#llx, %#llx) out of order or empty (bounds %#llx..%#llx)",
               (unsigned long long)n->start, (unsigned long long)n->end,
               (unsigned long long)lo, (unsigned long long)hi);
        return -1;
    }
    int hl = check_node(n->left, n, lo, n->start), hr = check_node(n->right, n, n->end, hi);
    if (hl < 0 || hr < 0 || !ok)
        return -1;
    int h = 1 + (hl > hr ? hl : hr);
    if (n->height != h || hl - hr > 1 || hr - hl > 1) {
        CHECKQ(false, "node [%#llx, %#llx): height %d (computed %d), children %d and %d",
               (unsigned long long)n->start, (unsigned long long)n->end, n->height, h, hl, hr);
        return -1;
    }
    uint64_t ss = n->left ? n->left->sub_start : n->start;
    uint64_t se = n->right ? n->right->sub_end : n->end;
    uint64_t gap = 0;
    if (n->left) {
        gap = n->left->sub_gap > gap ? n->left->sub_gap : gap;
        gap = n->start - n->left->sub_end > gap ? n->start - n->left->sub_end : gap;
    }
    if (n->right) {
        gap = n->right->sub_gap > gap ? n->right->sub_gap : gap;
        gap = n->right->sub_start - n->end > gap ? n->right->sub_start - n->end : gap;
    }
    if (n->sub_start != ss || n->sub_end != se || n->sub_gap != gap) {
        CHECKQ(false, "node [%#llx, %#llx): summary %#llx..%#llx gap %#llx, expected "
               "%#llx..%#llx gap %#llx", (unsigned long long)n->start,
               (unsigned long long)n->end, (unsigned long long)n->sub_start,
               (unsigned long long)n->sub_end, (unsigned long long)n->sub_gap,
               (unsigned long long)ss, (unsigned long long)se, (unsigned long long)gap);
        return -1;
    }
    return h;
}

/* The whole tree against the model; false (with FAIL lines) if anything differs. */
static bool check_tree(const char *when)
{
    unsigned long before = uc_failed;
    nodes_seen = 0;
    int h = check_node(tree.root, NULL, 0, UINT64_MAX);
    CHECKQ(h >= 0 && nodes_seen == nmodel, "%s: tree of %lu nodes (model %u), height %d", when,
           nodes_seen, nmodel, h);
    /* AVL: height < 1.4405 log2(n + 2) */
    double bound = 1.4405;
    for (unsigned long n = nmodel + 2; n > 1; n >>= 1)
        bound += 1.4405;
    CHECKQ(h <= bound, "%s: height %d for %u regions", when, h, nmodel);
    unsigned i = 0;
    for (struct region *r = vma_first(&tree); r && i <= nmodel; r = vma_next(r), i++)
        CHECKQ(i < nmodel && r == model[i], "%s: in-order walk, position %u", when, i);
    CHECKQ(i == nmodel, "%s: in-order walk saw %u of %u", when, i, nmodel);
    i = nmodel;
    for (struct region *r = vma_last(&tree); r && i > 0; r = vma_prev(r))
        CHECKQ(r == model[--i], "%s: backward walk, position %u", when, i);
    return uc_failed == before;
}

/* --- helpers ------------------------------------------------------------------------------- */

static struct region pool[MAXN];
static unsigned pool_next;
static struct region *free_nodes[MAXN];
static unsigned nfree_nodes;

static struct region *node_new(uint64_t start, uint64_t end)
{
    struct region *r = nfree_nodes ? free_nodes[--nfree_nodes] : &pool[pool_next++];
    memset(r, 0xA5, sizeof *r);     /* garbage links: vma_insert must set them */
    r->start = start;
    r->end = end;
    return r;
}

static void add(uint64_t start, uint64_t end)
{
    struct region *r = node_new(start, end);
    vma_insert(&tree, r);
    model_add(r);
}

static void del(unsigned i)
{
    struct region *r = model[i];
    vma_remove(&tree, r);
    model_del(i);
    free_nodes[nfree_nodes++] = r;
}

static void reset(void)
{
    tree.root = NULL;
    nmodel = pool_next = nfree_nodes = 0;
}

static uint64_t rng = 1;

static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void check_queries(uint64_t span, unsigned n)
{
    for (unsigned q = 0; q < n; q++) {
        uint64_t a = rnd() % span;
        if (nmodel && q % 2) {      /* the edges of a region */
            const struct region *r = model[rnd() % nmodel];
            a = (uint64_t[]){ r->start, r->end, r->end - 1, r->start - 1 }[rnd() % 4];
        }
        CHECKQ(vma_find(&tree, a) == model_find(a), "vma_find(%#llx)", (unsigned long long)a);
        CHECKQ(vma_from(&tree, a) == model_from(a), "vma_from(%#llx)", (unsigned long long)a);
        uint64_t lo = rnd() % span, hi = lo + rnd() % (span - lo + 1);
        uint64_t len = (1 + rnd() % 16) * PAGE;
        if (rnd() % 4 == 0)
            lo = 0, hi = UINT64_MAX;
        uint64_t at1 = 0, at2 = 0;
        bool f1 = vma_gap_down(&tree, lo, hi, len, &at1), f2 = model_gap(lo, hi, len, &at2);
        CHECKQ(f1 == f2 && (!f1 || at1 == at2),
               "vma_gap_down(%#llx, %#llx, %#llx): %d %#llx, model %d %#llx",
               (unsigned long long)lo, (unsigned long long)hi, (unsigned long long)len, f1,
               (unsigned long long)at1, f2, (unsigned long long)at2);
    }
}

/* --- cases --------------------------------------------------------------------------------- */

static void test_empty(void)
{
    reset();
    uint64_t at = 0;
    CHECK(!vma_find(&tree, 0) && !vma_from(&tree, 0) && !vma_first(&tree) && !vma_last(&tree),
          "an empty tree finds nothing");
    CHECK(vma_gap_down(&tree, 0x10000, 0x7F0000000000, PAGE, &at) && at == 0x7F0000000000 - PAGE,
          "an empty tree: the gap is right below the top");
    CHECK(!vma_gap_down(&tree, 0x10000, 0x11000, 2 * PAGE, &at), "too small a window: none");
    CHECK(!vma_gap_down(&tree, 0x10000, 0x20000, 0, &at), "length 0: none");
    add(0x20000, 0x30000);
    CHECK(check_tree("one region"), "one region");
    vma_remove(&tree, model[0]);
    model_del(0);
    CHECK(!tree.root && check_tree("emptied"), "removing it empties the tree");
}

static void test_gaps(void)
{
    reset();
    add(0x100000, 0x200000);
    add(0x300000, 0x301000);        /* a 1 MiB gap below, 0xFF000 above */
    add(0x400000, 0x500000);
    uint64_t at = 0;
    CHECK(vma_gap_down(&tree, 0x10000, 0x600000, 0x100000, &at) && at == 0x500000,
          "above the last region first");
    CHECK(vma_gap_down(&tree, 0x10000, 0x480000, 0x100000, &at) && at == 0x200000,
          "a bound inside a region: the gap below it");
    CHECK(vma_gap_down(&tree, 0x10000, 0x480000, 0xFF000, &at) && at == 0x301000,
          "the exact-fit gap above the small region");
    CHECK(!vma_gap_down(&tree, 0x10000, 0x480000, 0x100001, &at),
          "nothing below the bound is large enough: none");
    CHECK(vma_gap_down(&tree, 0x10000, 0x180000, 0xF0000, &at) && at == 0x10000,
          "the gap below the first region, down to lo exactly");
    CHECK(!vma_gap_down(&tree, 0x10000, 0x180000, 0xF1000, &at), "never below lo");
    CHECK(vma_gap_down(&tree, 0x10000, 0x700000, 0x100001, &at) && at == 0x700000 - 0x100001,
          "above every region, up to hi");
    CHECK(vma_gap_down(&tree, 0x250000, 0x2A0000, 0x50000, &at) && at == 0x250000,
          "a window inside one gap, exactly");
    check_queries(0x700000, 2000);
}

static unsigned drained;

static void count_drained(struct region *r)
{
    drained += r->left == NULL && r->right == NULL;     /* handed over as leaves */
}

/* mmap's pattern: top-down, adjacent, 65,530 regions; then every other one goes. */
static void test_many_down(void)
{
    reset();
    uint64_t top = 0x7F0000000000;
    for (unsigned i = 0; i < 65530; i++) {
        uint64_t at;
        if (!vma_gap_down(&tree, 0x10000, top, PAGE, &at)) {
            CHECK(false, "no gap for region %u", i);
            return;
        }
        struct region *r = node_new(at, at + PAGE);
        vma_insert(&tree, r);
        model[65529 - i] = r;       /* each below the last: the model fills from its end */
    }
    nmodel = 65530;
    CHECK(check_tree("65530 top-down"), "65,530 regions mapped top-down, adjacent");
    CHECK(model[0]->start == top - 65530 * PAGE, "they fill the space right below the top");
    for (unsigned i = nmodel; i-- > 0;)
        if (i % 2)
            del(i);
    CHECK(check_tree("every other removed"), "every other region removed");
    uint64_t at = 0;
    CHECK(vma_gap_down(&tree, 0x10000, top, PAGE, &at) && at == top - PAGE,
          "the highest hole is found first");
    CHECK(vma_gap_down(&tree, 0x10000, top, 2 * PAGE, &at) && at == top - 65530 * PAGE - 2 * PAGE,
          "two pages fit only below them all");
    check_queries(top + PAGE, 3000);
    while (nmodel > 1000)
        del((unsigned)(rnd() % nmodel));
    CHECK(check_tree("down to 1000"), "removed in random order down to 1,000");
    drained = 0;
    vma_drain(&tree, count_drained);
    CHECK(!tree.root && drained == nmodel, "vma_drain hands over all %u and empties the tree",
          nmodel);
    nmodel = 0;
}

static void test_ascending(void)
{
    reset();
    for (unsigned i = 0; i < 20000; i++)
        add(0x10000 + i * 3 * PAGE, 0x10000 + i * 3 * PAGE + (1 + i % 2) * PAGE);
    CHECK(check_tree("20000 ascending"), "20,000 regions inserted in ascending order");
    check_queries(0x10000 + 60000 * PAGE, 3000);
}

/* Random insertions, removals, resizes (split-like: an end moves inward; growth into free
 * space), with a full check every few steps. */
static void random_run(uint64_t seed, unsigned steps, uint64_t span_pages)
{
    reset();
    rng = seed * 0x9E3779B97F4A7C15ull + 1;
    uint64_t span = span_pages * PAGE;
    bool ok = true;
    for (unsigned s = 0; s < steps && ok; s++) {
        unsigned op = (unsigned)(rnd() % 10);
        if (op < 4 && nmodel < MAXN - 1) {
            uint64_t start = rnd() % span_pages * PAGE, len = (1 + rnd() % 8) * PAGE;
            if (start + len <= span && model_free(start, start + len))
                add(start, start + len);
        } else if (op < 6 && nmodel) {
            del((unsigned)(rnd() % nmodel));
        } else if (op < 8 && nmodel) {
            unsigned i = (unsigned)(rnd() % nmodel);
            struct region *r = model[i];
            if (r->end - r->start > PAGE) {         /* shrink from one side */
                if (rnd() % 2)
                    r->end -= PAGE;
                else
                    r->start += PAGE;
                vma_resized(&tree, r);
            }
        } else if (op < 9 && nmodel) {
            unsigned i = (unsigned)(rnd() % nmodel);
            struct region *r = model[i];
            uint64_t limit = i + 1 < nmodel ? model[i + 1]->start : span;
            if (r->end + PAGE <= limit) {           /* grow into free space */
                r->end += PAGE;
                vma_resized(&tree, r);
            }
        } else {
            check_queries(span + PAGE, 8);
        }
        if (s % 16 == 0 || s + 1 == steps)
            ok = check_tree("random step");
    }
    CHECK(ok, "seed %llu: %u random steps over %llu pages agree with the model (%u regions "
          "at the end)", (unsigned long long)seed, steps, (unsigned long long)span_pages,
          nmodel);
}

static void test_random(void)
{
    for (uint64_t seed = 1; seed <= 6; seed++)
        random_run(seed, 6000, seed % 2 ? 400 : 20000);
}

static void test_random_large(void)
{
    random_run(99, 40000, 1ull << 20);
}

int main(int argc, char **argv)
{
    static const struct uc_case cases[] = {
        UC_CASE(test_empty), UC_CASE(test_gaps), UC_CASE(test_many_down),
        UC_CASE(test_ascending), UC_CASE(test_random), UC_CASE(test_random_large),
    };
    return uc_main(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
