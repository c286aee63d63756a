/* Host unit test of the boot-time placement logic, compiled with the real kernel/bootmem.c
 * (-DBOOTMEM_HOST_TEST: the pure part, bootmem_find_top, bootmem_plan and their helpers).
 *
 * bootmem_find_top(mem, nmem, size, align, limit, busy, nbusy) promises the highest aligned
 * [x, x + size) inside one usable region, ending at or below `limit`, overlapping no busy
 * range, never touching physical page 0; 0 if there is none.  Directed cases, then random
 * memory maps compared with a brute-force search.
 *
 * bootmem_plan(request, plan) decides where the pool, the boot data and every module go
 * (bootmem.h, docs/architecture.md section 1): directed cases (QEMU's memory maps with the
 * issue's 1.5 GiB module among them, GRUB-like layouts, the pool and σ0's areas in the way),
 * then random small worlds checked against a brute-force search of every arrangement. */
#include "unit_check.h"
#include "bootmem.h"
#include "boot.h"

#define K 1024ul
#define M (1024ul * 1024ul)
#define G (1024ul * M)
#define USABLE BOOT_MEM_USABLE
#define RSVD 2u

static paddr_t find(const struct boot_region *mem, unsigned nmem, word_t size, word_t align,
                    paddr_t limit, const struct phys_range *busy, unsigned nbusy)
{
    return bootmem_find_top(mem, nmem, size, align, limit, busy, nbusy);
}

static void test_range_overlaps(void)
{
    struct phys_range a = { 0x1000, 0x3000 };
    CHECK(range_overlaps(a, (struct phys_range){ 0x2000, 0x4000 }), "partial overlap above");
    CHECK(range_overlaps(a, (struct phys_range){ 0x0, 0x1001 }), "partial overlap below");
    CHECK(range_overlaps(a, (struct phys_range){ 0x1800, 0x1900 }), "contained range");
    CHECK(range_overlaps(a, (struct phys_range){ 0x0, 0x10000 }), "containing range");
    CHECK(range_overlaps(a, a), "identical ranges");
    CHECK(!range_overlaps(a, (struct phys_range){ 0x3000, 0x4000 }), "touching above: no overlap ([start, end))");
    CHECK(!range_overlaps(a, (struct phys_range){ 0x0, 0x1000 }), "touching below: no overlap");
    CHECK(!range_overlaps(a, (struct phys_range){ 0x8000, 0x9000 }), "disjoint");
    CHECK(range_overlaps((struct phys_range){ 0, ~0ul }, (struct phys_range){ ~0ul - 1, ~0ul }),
          "ranges at the top of the address space");
}

static void test_top_of_region(void)
{
    struct boot_region mem[] = { { 0, 640 * K, USABLE }, { 1 * M, 128 * M, USABLE } };
    CHECK_EQ(find(mem, 2, 4 * M, 2 * M, 4 * G, NULL, 0), 124 * M, "4 MiB pool at the top of RAM");
    CHECK_EQ(find(mem, 2, 16 * K, 4 * K, 4 * G, NULL, 0), 128 * M - 16 * K, "16 KiB, page aligned, at the very top");
    CHECK_EQ(find(mem, 2, 4 * M, 2 * M, 64 * M, NULL, 0), 60 * M, "limit below the end of the region");
    CHECK_EQ(find(mem, 2, 2 * M, 2 * M, 63 * M + 4 * K, NULL, 0), 60 * M,
             "unaligned limit: the block still ends below it");
    CHECK_EQ(find(mem, 2, 4 * K, 4 * K, 1 * M, NULL, 0), 640 * K - 4 * K,
             "limit inside the hole: the low region is used");
    CHECK_EQ(find(mem, 2, 1 * M, 4 * K, 1 * M, NULL, 0), 0, "nothing of 1 MiB fits below 1 MiB");
    CHECK_EQ(find(mem, 2, 256 * M, 4 * K, 4 * G, NULL, 0), 0, "larger than any region: 0");
    CHECK_EQ(find(mem, 2, 128 * M - 1 * M, 4 * K, 4 * G, NULL, 0), 1 * M, "exactly the size of the region");
    CHECK_EQ(find(mem, 2, 4 * M, 2 * M, 0, NULL, 0), 0, "limit 0: nothing");

    /* Unordered regions: the highest fit over all of them. */
    struct boot_region un[] = { { 512 * M, 1 * G, USABLE }, { 1 * M, 256 * M, USABLE }, { 4 * G, 6 * G, USABLE } };
    CHECK_EQ(find(un, 3, 8 * M, 2 * M, 4 * G, NULL, 0), 1 * G - 8 * M, "highest region below the limit");
    CHECK_EQ(find(un, 3, 8 * M, 2 * M, 8 * G, NULL, 0), 6 * G - 8 * M, "region above 4 GiB when the limit allows");
    CHECK_EQ(find(un, 3, 300 * M, 2 * M, 1 * G - 1, NULL, 0), 722 * M, "unaligned limit cuts the top region");
    CHECK_EQ(find(un, 3, 600 * M, 2 * M, 4 * G, NULL, 0), 0,
             "600 MiB fits only in the region above the limit: 0");

    /* Non-usable regions are never used, even if higher. */
    struct boot_region rs[] = { { 1 * M, 64 * M, USABLE }, { 64 * M, 128 * M, RSVD }, { 0xFEC00000ul, 0xFEE01000ul, RSVD } };
    CHECK_EQ(find(rs, 3, 4 * M, 2 * M, 4 * G, NULL, 0), 60 * M, "reserved regions are skipped");
    struct boot_region only_rsvd[] = { { 1 * M, 64 * M, RSVD } };
    CHECK_EQ(find(only_rsvd, 1, 4 * K, 4 * K, 4 * G, NULL, 0), 0, "no usable region: 0");
    CHECK_EQ(find(rs, 0, 4 * K, 4 * K, 4 * G, NULL, 0), 0, "empty memory map: 0");
}

static void test_alignment(void)
{
    struct boot_region mem[] = { { 1 * M + 123, 100 * M + 4 * K + 17, USABLE } };
    static const word_t aligns[] = { 4 * K, 8 * K, 64 * K, 1 * M, 2 * M, 16 * M };
    for (unsigned i = 0; i < sizeof(aligns) / sizeof(aligns[0]); i++) {
        paddr_t x = find(mem, 1, 3 * M, aligns[i], 4 * G, NULL, 0);
        CHECK(x && x % aligns[i] == 0 && x >= mem[0].start && x + 3 * M <= mem[0].end &&
              x + aligns[i] + 3 * M > mem[0].end,
              "align %#lx: %#lx is aligned, inside the region and the highest such", aligns[i], x);
    }
    struct boot_region small[] = { { 5 * M + 1, 6 * M + 1, USABLE } };
    CHECK_EQ(find(small, 1, 1 * M, 1 * M, 4 * G, NULL, 0), 0,
             "1 MiB region not containing an aligned 1 MiB block: 0");
    CHECK_EQ(find(small, 1, 1 * M - 4 * K, 4 * K, 4 * G, NULL, 0), 5 * M + 4 * K,
             "the same region with page alignment");
}

static void test_busy(void)
{
    struct boot_region mem[] = { { 1 * M, 128 * M, USABLE } };
    struct phys_range b1[] = { { 120 * M, 126 * M } };
    CHECK_EQ(find(mem, 1, 4 * M, 2 * M, 4 * G, b1, 1), 116 * M, "steps below a busy range");
    struct phys_range b2[] = { { 100 * M, 101 * M }, { 127 * M, 128 * M }, { 110 * M, 125 * M } };
    CHECK_EQ(find(mem, 1, 4 * M, 2 * M, 4 * G, b2, 3), 106 * M, "unordered busy ranges, several steps");
    CHECK_EQ(find(mem, 1, 10 * M, 2 * M, 4 * G, b2, 3), 90 * M, "a block too large for the gaps goes below all");
    CHECK_EQ(find(mem, 1, 2 * M, 2 * M, 4 * G, b2, 3), 108 * M, "a 2 MiB hole between busy ranges");
    struct phys_range b3[] = { { 125 * M, 126 * M } };
    CHECK_EQ(find(mem, 1, 1 * M, 1 * M, 4 * G, b3, 1), 127 * M, "above a busy range if it fits there");
    struct phys_range touch[] = { { 124 * M, 126 * M }, { 126 * M, 128 * M } };
    CHECK_EQ(find(mem, 1, 4 * M, 2 * M, 4 * G, touch, 2), 120 * M, "touching busy ranges: block ends at their start");
    struct phys_range all[] = { { 0, 4 * G } };
    CHECK_EQ(find(mem, 1, 4 * K, 4 * K, 4 * G, all, 1), 0, "everything busy: 0");
    struct boot_region two[] = { { 1 * M, 64 * M, USABLE }, { 64 * M, 128 * M, USABLE } };
    struct phys_range hi[] = { { 63 * M, 128 * M } };
    CHECK_EQ(find(two, 2, 4 * M, 2 * M, 4 * G, hi, 1), 58 * M, "busy across two regions: the lower one below it");
    struct phys_range outside[] = { { 200 * M, 300 * M }, { 0, 1 * M } };
    CHECK_EQ(find(mem, 1, 4 * M, 2 * M, 4 * G, outside, 2), 124 * M, "busy ranges outside the region do not matter");
}

static void test_page_zero(void)
{
    struct boot_region low[] = { { 0, 640 * K, USABLE } };
    paddr_t x = find(low, 1, 640 * K - 4 * K, 4 * K, 4 * G, NULL, 0);
    CHECK_EQ(x, 4 * K, "region at 0 exactly one page too large: placed at page 1");
    CHECK_EQ(find(low, 1, 640 * K, 4 * K, 4 * G, NULL, 0), 0, "a block that would need page 0 does not fit");
    struct boot_region tiny[] = { { 0, 4 * K, USABLE } };
    CHECK_EQ(find(tiny, 1, 4 * K, 4 * K, 4 * G, NULL, 0), 0, "region of only page 0: 0");
    struct boot_region big[] = { { 0, 4 * M, USABLE } };
    CHECK_EQ(find(big, 1, 2 * M, 2 * M, 4 * G, NULL, 0), 2 * M, "2 MiB alignment from a region at 0");
    struct phys_range busy[] = { { 2 * M, 4 * M } };
    CHECK_EQ(find(big, 1, 2 * M, 2 * M, 4 * G, busy, 1), 0, "the only remaining 2 MiB block would be at 0");
    CHECK_EQ(find(big, 1, 8 * K, 4 * K, 4 * G, busy, 1), 2 * M - 8 * K, "below the busy range, above page 0");
}

/* The function promises never to hand out physical page 0.  The kernel calls it with page or
 * 2 MiB alignment only; with a smaller alignment `lo = align` lets a block start inside page 0. */
static void test_page_zero_subpage_align(void)
{
    static const word_t aligns[] = { 1, 16, 512, 2 * K };
    for (unsigned i = 0; i < sizeof(aligns) / sizeof(aligns[0]); i++) {
        struct boot_region r[] = { { 0, 6 * K, USABLE } };
        paddr_t y = find(r, 1, 4 * K, aligns[i], 4 * G, NULL, 0);
        CHECK(y == 0 || y >= 4 * K,
              "align %#lx, region [0, 6 KiB), size 4 KiB: result %#lx must not overlap page 0 "
              "(0 = none, or >= 0x1000)", aligns[i], y);
    }
}

/* --- random maps against brute force --------------------------------------------------- */
static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static bool fits(paddr_t x, word_t size, const struct phys_range *busy, unsigned nbusy)
{
    struct phys_range r = { x, x + size };
    for (unsigned b = 0; b < nbusy; b++)
        if (r.start < busy[b].end && busy[b].start < r.end)
            return false;
    return true;
}

static paddr_t brute(const struct boot_region *mem, unsigned nmem, word_t size, word_t align,
                     paddr_t limit, const struct phys_range *busy, unsigned nbusy)
{
    paddr_t best = 0;
    for (unsigned i = 0; i < nmem; i++) {
        if (mem[i].type != USABLE)
            continue;
        paddr_t end = mem[i].end < limit ? mem[i].end : limit;
        for (paddr_t x = (mem[i].start + align - 1) & ~(align - 1); x + size <= end; x += align)
            if (x >= 4 * K && x > best && fits(x, size, busy, nbusy))
                best = x;
    }
    return best;
}

static void test_random(void)
{
    unsigned mismatches = 0, found = 0, none = 0;
    for (unsigned iter = 0; iter < 4000; iter++) {
        struct boot_region mem[6];
        struct phys_range busy[8];
        unsigned nmem = 1 + rnd() % 5, nbusy = rnd() % 8;
        for (unsigned i = 0; i < nmem; i++) {
            paddr_t s = (rnd() % (64 * M)) & ~(rnd() % 2 ? 4 * K - 1 : 0);
            if (rnd() % 6 == 0)
                s = 0;
            paddr_t e = s + 4 * K + rnd() % (32 * M);
            mem[i] = (struct boot_region){ s, e, rnd() % 4 ? USABLE : RSVD };
        }
        for (unsigned b = 0; b < nbusy; b++) {
            paddr_t s = (rnd() % (96 * M)) & ~(4 * K - 1);
            busy[b] = (struct phys_range){ s, s + 4 * K + ((rnd() % (8 * M)) & ~(4 * K - 1)) };
        }
        static const word_t aligns[] = { 4 * K, 8 * K, 64 * K, 1 * M, 2 * M };
        word_t align = aligns[rnd() % 5];
        word_t size = 4 * K + ((rnd() % (6 * M)) & ~(4 * K - 1));
        paddr_t limit = rnd() % 3 ? 4 * G : (rnd() % (100 * M));
        paddr_t want = brute(mem, nmem, size, align, limit, busy, nbusy);
        paddr_t got = find(mem, nmem, size, align, limit, busy, nbusy);
        if (want) found++; else none++;
        if (got != want) {
            mismatches++;
            if (mismatches <= 10) {
                CHECKQ(false, "random map %u: size %#lx align %#lx limit %#lx: got %#lx, expected %#lx",
                       iter, size, align, limit, got, want);
                for (unsigned i = 0; i < nmem; i++)
                    printf("     region [%#lx, %#lx) type %u\n", mem[i].start, mem[i].end, mem[i].type);
                for (unsigned b = 0; b < nbusy; b++)
                    printf("     busy   [%#lx, %#lx)\n", busy[b].start, busy[b].end);
            }
        }
    }
    CHECK(mismatches == 0, "4000 random memory maps agree with brute force (%u placed, %u without fit, %u mismatches)",
          found, none, mismatches);
}

/* --- the placement plan: directed cases ---------------------------------------------------- */

#define PAGE (4 * K)

/* A boot as the kernel sees it: the memory map, the fixed ranges (low MiB, the image at 1 MiB,
 * 15-64 MiB with sigma0 and the root task linked there), σ0's KIP and UTCB areas, the modules
 * as the loader put them, the pool as the kernel sizes it. */
struct world {
    struct boot_region mem[8];
    unsigned nmem;
    struct phys_range fixed[BOOTMEM_FIXED_MAX];
    unsigned nfixed;
    struct phys_range nodata[2];
    unsigned nnodata;
    struct phys_range mod[BOOT_MAX_MODULES];
    unsigned nmod;
    struct bootmem_request rq;
    struct bootmem_plan plan;
};

/* The kernel's default pool for `ram` bytes (kernel/config.h: RAM / 8, 4-256 MiB). */
static word_t pool_for(word_t ram)
{
    word_t size = ram / 8;
    size = size < 4 * M ? 4 * M : size > 256 * M ? 256 * M : size;
    return (size + 2 * M - 1) & ~(2 * M - 1);
}

static void world_fixed(struct world *w)
{
    static const struct phys_range fixed[] = {
        { 0, 1 * M }, { 1 * M, 0x166000 }, { 15 * M, 64 * M },
        { 0xF00000, 0xF56000 }, { 16 * M, 0x1030000 },
    };
    static const struct phys_range nodata[] = {
        { 0xBF000000ul, 0xBF040000ul }, { 0xBFF00000ul, 0xBFF01000ul },
    };
    w->nfixed = 5;
    memcpy(w->fixed, fixed, sizeof(fixed));
    w->nnodata = 2;
    memcpy(w->nodata, nodata, sizeof(nodata));
}

/* QEMU 7.2's q35 machine with `ram` bytes and SeaBIOS: RAM below 4 GiB up to 2 GiB once there
 * are 2.75 GiB or more, the rest from 4 GiB; the firmware keeps the top 0x21000 bytes of low
 * RAM.  Modules follow the kernel image page by page, as QEMU's multiboot loader puts them. */
static void q35(struct world *w, word_t ram)
{
    memset(w, 0, sizeof(*w));
    word_t low = ram >= 0xB0000000ul ? 2 * G : ram;
    w->mem[0] = (struct boot_region){ 0, 0x9FC00, USABLE };
    w->mem[1] = (struct boot_region){ 1 * M, low - 0x21000, USABLE };
    w->nmem = 2;
    if (ram > low)
        w->mem[w->nmem++] = (struct boot_region){ 4 * G, 4 * G + ram - low, USABLE };
    world_fixed(w);
}

/* One usable region [start, end), the kernel's fixed ranges, no modules yet. */
static void one_region(struct world *w, paddr_t start, paddr_t end)
{
    memset(w, 0, sizeof(*w));
    w->mem[0] = (struct boot_region){ start, end, USABLE };
    w->nmem = 1;
    world_fixed(w);
}

static void add_module(struct world *w, word_t size)
{
    paddr_t at = w->nmod ? w->mod[w->nmod - 1].end : 0x167000;
    w->mod[w->nmod++] = (struct phys_range){ at, at + ((size + PAGE - 1) & ~(PAGE - 1)) };
}

/* sigma0, the root task, a small program and then `size` bytes of data, as QEMU loads them. */
static void qemu_modules(struct world *w, word_t size)
{
    add_module(w, 0x14458);
    add_module(w, 0x2AE70);
    add_module(w, 0x13350);
    add_module(w, size);
}

static void plan(struct world *w);

/* QEMU booting sigma0, the root task, a program and `data` bytes of data with `ram`, planned. */
static void qemu_boot(struct world *w, word_t ram, word_t data)
{
    q35(w, ram);
    qemu_modules(w, data);
    plan(w);
}

static void plan(struct world *w)
{
    w->rq = (struct bootmem_request){
        .mem = w->mem, .nmem = w->nmem, .fixed = w->fixed, .nfixed = w->nfixed,
        .nodata = w->nodata, .nnodata = w->nnodata, .mod = w->mod, .nmod = w->nmod,
        .pool_size = pool_for(bootmem_ram_present(w->mem, w->nmem)), .pool_align = 2 * M,
        .pool_limit = 4 * G, .bootdata_size = 16 * K, .bootdata_limit = 4 * G,
    };
    bootmem_plan(&w->rq, &w->plan);
}

static bool rng_in(struct phys_range r, const struct boot_region *mem, unsigned nmem)
{
    for (unsigned i = 0; i < nmem; i++)
        if (mem[i].type == USABLE && mem[i].start <= r.start && r.end <= mem[i].end)
            return true;
    return false;
}

static bool clear_of(struct phys_range r, const struct phys_range *v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (range_overlaps(r, v[i]))
            return false;
    return true;
}

/* Is the plan one the kernel may carry out?  The rules of bootmem.h, checked one by one;
 * `why` says which failed. */
static bool plan_valid(const struct bootmem_request *rq, const struct bootmem_plan *p,
                       const char **why)
{
    struct phys_range pool = p->pool, bd = p->bootdata;
    *why = "pool: size, alignment, limit, RAM, page 0";
    if (pool.end - pool.start != rq->pool_size || pool.start % rq->pool_align ||
        pool.end > rq->pool_limit || !rng_in(pool, rq->mem, rq->nmem) || pool.start < PAGE)
        return false;
    *why = "pool over a fixed range";
    if (!clear_of(pool, rq->fixed, rq->nfixed))
        return false;
    *why = "boot data: size, alignment, limit, RAM, page 0, fixed, nodata, pool";
    if (bd.end - bd.start != rq->bootdata_size || bd.start % PAGE || bd.end > rq->bootdata_limit ||
        !rng_in(bd, rq->mem, rq->nmem) || bd.start < PAGE || !clear_of(bd, rq->fixed, rq->nfixed) ||
        !clear_of(bd, rq->nodata, rq->nnodata) || range_overlaps(bd, pool))
        return false;
    for (unsigned i = 0; i < rq->nmod; i++) {
        struct phys_range m = p->mod[i], o = rq->mod[i];
        *why = "module: size, fixed, nodata, pool, boot data";
        if (m.end - m.start != o.end - o.start || !clear_of(m, rq->fixed, rq->nfixed) ||
            !clear_of(m, rq->nodata, rq->nnodata) || range_overlaps(m, pool) ||
            range_overlaps(m, bd))
            return false;
        if (m.start == o.start)
            continue;
        *why = "moved module: alignment, RAM, page 0";
        if (m.start % PAGE || !rng_in(m, rq->mem, rq->nmem) || m.start < PAGE)
            return false;
        *why = "moved module over another module's old or new place";
        for (unsigned j = 0; j < rq->nmod; j++)
            if (j != i && (range_overlaps(m, rq->mod[j]) || range_overlaps(m, p->mod[j])))
                return false;
    }
    return true;
}

static void check_valid(struct world *w, const char *what)
{
    const char *why = "";
    CHECK(w->plan.status == BOOTMEM_OK && plan_valid(&w->rq, &w->plan, &why),
          "%s: a plan the kernel can carry out (status %d; %s)", what, w->plan.status,
          w->plan.status == BOOTMEM_OK ? why : "-");
}

static void check_stays(struct world *w, unsigned from, unsigned to, const char *what)
{
    for (unsigned i = from; i < to; i++)
        CHECK(w->plan.mod[i].start == w->mod[i].start && w->plan.mod[i].end == w->mod[i].end,
              "%s: module %u stays at %#lx", what, i, w->mod[i].start);
}

/* Does the request fit with `extra` bytes more at the top of the highest region, the pool
 * sized by pool_fn? */
static bool fits_more(const struct world *w, word_t extra, word_t (*pool_fn)(word_t))
{
    struct world more = *w;
    unsigned top = 0;
    for (unsigned i = 0; i < more.nmem; i++)
        if (more.mem[i].type == USABLE && (more.mem[top].type != USABLE || more.mem[i].end > more.mem[top].end))
            top = i;
    more.mem[top].end += extra;
    more.rq.mem = more.mem;
    more.rq.pool_size = pool_fn(bootmem_ram_present(more.mem, more.nmem));
    bootmem_plan(&more.rq, &more.plan);
    return more.plan.status == BOOTMEM_OK;
}

static void check_ram_to_fit(struct world *w, const char *what)
{
    word_t more = bootmem_ram_to_fit(&w->rq, pool_for);
    CHECK(more && more % M == 0 && fits_more(w, more, pool_for) && !fits_more(w, more - M, pool_for),
          "%s: %lu MiB more RAM make it fit, one MiB less does not", what, more >> 20);
}

static void test_plan_issue_case(void)
{
    /* Issue 12 item 5: 1.5 GiB of data on 4 GiB panicked.  q35 has 2 GiB below 4 GiB there;
     * the pool takes the top of it, the module the top of the 2 GiB above. */
    struct world w;
    qemu_boot(&w, 4 * G, 1536 * M);
    check_valid(&w, "4 GiB, 1.5 GiB module");
    CHECK_EQ(w.plan.pool.start, 0x6FE00000ul, "256 MiB pool at the top below 4 GiB");
    CHECK_EQ(w.plan.mod[3].start, 6 * G - 1536 * M, "the module at the top of RAM above 4 GiB");
    CHECK_EQ(w.plan.bootdata.start, 0x7FFDF000ul - 16 * K, "boot data at the top of low RAM");
    check_stays(&w, 0, 3, "4 GiB");

    /* 2 GiB, all below 4 GiB: the module moves up onto its own old place, below the pool. */
    qemu_boot(&w, 2 * G, 1536 * M);
    check_valid(&w, "2 GiB, 1.5 GiB module");
    CHECK_EQ(w.plan.mod[3].start, 0x6FE00000ul - 1536 * M, "the module right below the pool");
    CHECK(range_overlaps(w.plan.mod[3], w.mod[3]), "over its own old place");
    check_stays(&w, 0, 3, "2 GiB");

    /* 1 GiB: QEMU could not load it whole. */
    qemu_boot(&w, 1 * G, 1536 * M);
    CHECK(w.plan.status == BOOTMEM_MODULE_OUTSIDE_RAM && w.plan.module == 3,
          "1 GiB: module 3 lies outside RAM (status %d, module %u)", w.plan.status, w.plan.module);
    check_ram_to_fit(&w, "1 GiB, 1.5 GiB module");
    word_t more = bootmem_ram_to_fit(&w.rq, pool_for);
    CHECK(bootmem_ram_present(w.mem, w.nmem) + more > 1536 * M + 64 * M + 128 * M,
          "needs room for the module above 64 MiB and a pool: %lu MiB in all",
          (bootmem_ram_present(w.mem, w.nmem) + more) >> 20);
}

static void test_plan_no_room(void)
{
    /* 200 MiB loaded whole into 256 MiB, but it must leave 15-64 MiB and nothing else holds
     * it: the first module that does not fit is named. */
    struct world w;
    qemu_boot(&w, 256 * M, 200 * M);
    CHECK(w.plan.status == BOOTMEM_MODULE_NO_ROOM && w.plan.module == 3,
          "256 MiB: module 3 has no room (status %d, module %u)", w.plan.status, w.plan.module);
    check_ram_to_fit(&w, "256 MiB, 200 MiB module");
    word_t all = bootmem_ram_present(w.mem, w.nmem) + bootmem_ram_to_fit(&w.rq, pool_for);
    CHECK_EQ((all + M - 1) >> 20, 303ul, "303 MiB of RAM in all (a 304 MiB guest boots it)");

    qemu_boot(&w, 304 * M, 200 * M);
    check_valid(&w, "304 MiB, 200 MiB module");
    CHECK_EQ(bootmem_ram_to_fit(&w.rq, pool_for), 0, "no more RAM needed once it fits");
}

static void test_plan_modules_stay(void)
{
    /* GRUB and QEMU put small modules right after the kernel: nothing moves. */
    struct world w;
    qemu_boot(&w, 128 * M, 3 * M);
    check_valid(&w, "128 MiB, small modules");
    check_stays(&w, 0, 4, "small modules");
    CHECK_EQ(w.plan.pool.start, 0x7E00000ul - 16 * M, "16 MiB pool at the top (2 MiB aligned)");

    /* A loader that puts a module at the top of RAM: the pool goes below it. */
    q35(&w, 128 * M);
    add_module(&w, 0x14458);
    add_module(&w, 0x2AE70);
    w.mod[w.nmod++] = (struct phys_range){ 100 * M, 120 * M };
    plan(&w);
    check_valid(&w, "module at the top");
    check_stays(&w, 0, 3, "module at the top");
    CHECK_EQ(w.plan.pool.start, 84 * M, "the pool right below the module");
}

static void test_plan_pool_spares_the_largest(void)
{
    /* No place for the pool clear of both modules: it avoids the larger, the smaller moves. */
    struct world w;
    one_region(&w, 1 * M, 128 * M);
    w.mod[0] = (struct phys_range){ 64 * M, 112 * M };
    w.mod[1] = (struct phys_range){ 120 * M, 126 * M };
    w.nmod = 2;
    plan(&w);
    check_valid(&w, "two modules in the pool's way");
    CHECK_EQ(w.plan.pool.start, 112 * M, "the pool above the large module");
    check_stays(&w, 0, 1, "the large module");
    CHECK_EQ(w.plan.mod[1].start, 9 * M, "the small one moves below 15 MiB, the highest room left");
}

static void test_plan_modules_first(void)
{
    /* Two RAM ranges below 4 GiB.  The pool at the top of the higher one leaves no room for
     * the 90 MiB module that must leave 15-64 MiB; placed first, the module takes that top
     * and the pool fits in the lower range, over the module's old place. */
    struct world w;
    memset(&w, 0, sizeof(w));
    w.mem[0] = (struct boot_region){ 1 * M, 100 * M, USABLE };
    w.mem[1] = (struct boot_region){ 200 * M, 300 * M, USABLE };
    w.nmem = 2;
    world_fixed(&w);
    w.mod[0] = (struct phys_range){ 2 * M, 92 * M };
    w.nmod = 1;
    plan(&w);
    check_valid(&w, "the module first");
    CHECK_EQ(w.plan.mod[0].start, 210 * M, "the module at the top");
    CHECK_EQ(w.plan.pool.start, 74 * M, "the 26 MiB pool at the top of the lower range");
}

static void test_plan_sigma0_areas(void)
{
    /* A loader's module behind σ0's UTCB area moves (σ0 could not hand it out); the pool may
     * lie there. */
    struct world w;
    one_region(&w, 1 * M, 0xE0000000ul);
    w.mod[0] = (struct phys_range){ 0xBF000000ul - 8 * M, 0xBF000000ul + 8 * M };
    w.nmod = 1;
    plan(&w);
    check_valid(&w, "module behind the UTCB area");
    CHECK_EQ(w.plan.mod[0].start, 0xD0000000ul - 16 * M, "moved below the pool");

    w.mem[0].end = 0xC0000000ul;                /* the pool's place covers both areas */
    w.mod[0] = (struct phys_range){ 2 * M, 3 * M };
    plan(&w);
    check_valid(&w, "pool over σ0's areas");
    CHECK_EQ(w.plan.pool.start, 0xB0000000ul, "the pool at the top, over the areas");
    CHECK_EQ(w.plan.bootdata.start, 0xB0000000ul - 16 * K, "the boot data below it");
}

static void test_plan_bootdata_moves_nothing(void)
{
    /* Modules fill every gap: the boot data has no room, and no module moves for it. */
    struct world w;
    one_region(&w, 1 * M, 96 * M);
    w.mod[0] = (struct phys_range){ 0x166000, 15 * M };
    w.mod[1] = (struct phys_range){ 64 * M, 84 * M };
    w.nmod = 2;
    plan(&w);
    CHECK(w.plan.status == BOOTMEM_NO_BOOTDATA, "no room for the boot data (status %d)",
          w.plan.status);
    w.mod[1].end = 83 * M;
    plan(&w);
    check_valid(&w, "one MiB for the boot data");
    CHECK_EQ(w.plan.bootdata.start, 84 * M - 16 * K, "boot data between module and pool");
}

static void test_plan_requests(void)
{
    /* Modules across adjacent regions are in RAM; in a hole or in reserved memory they are
     * not; an empty module is. */
    struct boot_region mem[] = { { 1 * M, 64 * M, USABLE }, { 64 * M, 128 * M, USABLE },
                                 { 128 * M, 130 * M, RSVD }, { 200 * M, 300 * M, USABLE } };
    CHECK(bootmem_in_ram(mem, 4, (struct phys_range){ 60 * M, 70 * M }), "across adjacent regions");
    CHECK(!bootmem_in_ram(mem, 4, (struct phys_range){ 120 * M, 129 * M }), "into reserved memory");
    CHECK(!bootmem_in_ram(mem, 4, (struct phys_range){ 150 * M, 210 * M }), "from a hole");
    CHECK(!bootmem_in_ram(mem, 4, (struct phys_range){ 0, 2 * M }), "below the first region");
    CHECK(bootmem_in_ram(mem, 4, (struct phys_range){ 250 * M, 250 * M }), "empty");
    CHECK_EQ(bootmem_ram_present(mem, 4), 227 * M, "usable RAM only");

    struct world w;
    q35(&w, 128 * M);
    qemu_modules(&w, 1 * M);
    w.nfixed = BOOTMEM_FIXED_MAX;               /* with the two nodata ranges: too many */
    plan(&w);
    CHECK(w.plan.status == BOOTMEM_BAD_REQUEST, "more fixed ranges than the planner holds");
    w.nfixed = 5;
    w.mod[4] = (struct phys_range){ 2 * M, 2 * M };   /* an empty file */
    w.nmod = 5;
    plan(&w);
    check_valid(&w, "an empty module");
    check_stays(&w, 0, 5, "an empty module");
}

/* --- the placement plan: random small worlds against brute force ---------------------------
 *
 * Worlds of up to 96 MiB where every range starts and ends on a MiB, so that every place the
 * plan can choose lies on a MiB too and a search over MiB positions sees every arrangement:
 * the pool anywhere it may go, each module staying or anywhere it may go, then some free MiB
 * for the boot data.  The plan must succeed exactly when such an arrangement exists, move no
 * module that need not move, and put each moved module and the boot data as high as they
 * go. */

static word_t random_pool_size;
static word_t random_pool_for(word_t ram)
{
    (void)ram;
    return random_pool_size;
}

struct bf {
    const struct bootmem_request *rq;
    bool forced[BOOT_MAX_MODULES];          /* over a fixed or nodata range: must move */
    bool only_forced;                       /* the others must stay */
    struct phys_range pool, fin[BOOT_MAX_MODULES];
};

static bool in_one_region(const struct bootmem_request *rq, struct phys_range r)
{
    return r.start >= PAGE && rng_in(r, rq->mem, rq->nmem);
}

/* May module k go to r, with modules below k placed (bf->fin) and the pool at bf->pool? */
static bool bf_module_fits(const struct bf *b, unsigned k, struct phys_range r)
{
    const struct bootmem_request *rq = b->rq;
    if (!in_one_region(rq, r) || !clear_of(r, rq->fixed, rq->nfixed) ||
        !clear_of(r, rq->nodata, rq->nnodata) || range_overlaps(r, b->pool))
        return false;
    for (unsigned j = 0; j < rq->nmod; j++)
        if (j != k && (range_overlaps(r, rq->mod[j]) || (j < k && range_overlaps(r, b->fin[j]))))
            return false;
    return true;
}

/* The end of the highest free MiB below the boot-data limit, 0 if none. */
static paddr_t bf_bootdata_top(const struct bootmem_request *rq, struct phys_range pool,
                               const struct phys_range *fin)
{
    for (paddr_t u = rq->bootdata_limit / M; u-- > 0; ) {
        struct phys_range r = { u * M, (u + 1) * M };
        if (in_one_region(rq, r) && clear_of(r, rq->fixed, rq->nfixed) &&
            clear_of(r, rq->nodata, rq->nnodata) && !range_overlaps(r, pool) &&
            clear_of(r, fin, rq->nmod))
            return r.end;
    }
    return 0;
}

static bool bf_modules(struct bf *b, unsigned k)
{
    const struct bootmem_request *rq = b->rq;
    if (k == rq->nmod)
        return bf_bootdata_top(rq, b->pool, b->fin) != 0;
    struct phys_range o = rq->mod[k];
    if (!b->forced[k] && !range_overlaps(o, b->pool)) {
        b->fin[k] = o;
        if (bf_modules(b, k + 1))
            return true;
    }
    if (b->only_forced && !b->forced[k])
        return false;
    for (paddr_t x = M; x + (o.end - o.start) <= 96 * M; x += M) {
        struct phys_range r = { x, x + (o.end - o.start) };
        if (x != o.start && bf_module_fits(b, k, r)) {
            b->fin[k] = r;
            if (bf_modules(b, k + 1))
                return true;
        }
    }
    return false;
}

/* Is there any arrangement (with only_forced: one where only forced modules move)? */
static bool bf_exists(const struct bootmem_request *rq, bool only_forced)
{
    struct bf b = { .rq = rq, .only_forced = only_forced };
    for (unsigned i = 0; i < rq->nmod; i++)
        b.forced[i] = !clear_of(rq->mod[i], rq->fixed, rq->nfixed) ||
                      !clear_of(rq->mod[i], rq->nodata, rq->nnodata);
    for (paddr_t x = rq->pool_align; x + rq->pool_size <= rq->pool_limit; x += rq->pool_align) {
        b.pool = (struct phys_range){ x, x + rq->pool_size };
        if (in_one_region(rq, b.pool) && clear_of(b.pool, rq->fixed, rq->nfixed) && bf_modules(&b, 0))
            return true;
    }
    return false;
}

static void random_world(struct world *w)
{
    memset(w, 0, sizeof(*w));
    paddr_t at = 0;
    for (unsigned n = 1 + rnd() % 3; n-- && at < 90 * M; ) {
        at += (rnd() % 3 ? 0 : rnd() % 8) * M;
        paddr_t len = (2 + rnd() % 40) * M;
        if (at + len > 96 * M)
            len = 96 * M - at;
        w->mem[w->nmem++] = (struct boot_region){ at, at + len, rnd() % 6 ? USABLE : RSVD };
        at += len;
    }
    w->fixed[w->nfixed++] = (struct phys_range){ 0, 1 * M };
    for (unsigned n = rnd() % 3; n--; ) {
        paddr_t s = (rnd() % 90) * M;
        w->fixed[w->nfixed++] = (struct phys_range){ s, s + (1 + rnd() % 12) * M };
    }
    if (rnd() % 2) {
        paddr_t s = (rnd() % 90) * M;
        w->nodata[w->nnodata++] = (struct phys_range){ s, s + (1 + rnd() % 4) * M };
    }
    for (unsigned n = 1 + rnd() % 3, tries = 0; w->nmod < n && tries < 50; tries++) {
        paddr_t size = (1 + rnd() % (rnd() % 3 ? 8 : 24)) * M, s = (1 + rnd() % 88) * M;
        const struct boot_region *in = &w->mem[rnd() % w->nmem];
        for (unsigned r = 0; r < w->nmem && (in->type != USABLE || in->end - in->start < size); r++)
            in = &w->mem[r];
        if (rnd() % 8 && in->type == USABLE && in->end - in->start >= size)  /* as a loader would */
            s = in->start + (rnd() % ((in->end - in->start - size) / M + 1)) * M;
        struct phys_range r = { s, s + size };
        if (r.end <= 96 * M && clear_of(r, w->mod, w->nmod))
            w->mod[w->nmod++] = r;
    }
    w->rq = (struct bootmem_request){
        .mem = w->mem, .nmem = w->nmem, .fixed = w->fixed, .nfixed = w->nfixed,
        .nodata = w->nodata, .nnodata = w->nnodata, .mod = w->mod, .nmod = w->nmod,
        .pool_size = (1 + rnd() % 6) * 2 * M, .pool_align = 2 * M,
        .pool_limit = (rnd() % 3 ? 96 : 16 + rnd() % 80) * M,
        .bootdata_size = 16 * K, .bootdata_limit = 96 * M,     /* 4 GiB in a real boot */
    };
}

static void print_world(const struct world *w)
{
    for (unsigned i = 0; i < w->nmem; i++)
        printf("     region [%#lx, %#lx) type %u\n", w->mem[i].start, w->mem[i].end, w->mem[i].type);
    for (unsigned i = 0; i < w->nfixed; i++)
        printf("     fixed  [%#lx, %#lx)\n", w->fixed[i].start, w->fixed[i].end);
    for (unsigned i = 0; i < w->nnodata; i++)
        printf("     nodata [%#lx, %#lx)\n", w->nodata[i].start, w->nodata[i].end);
    for (unsigned i = 0; i < w->nmod; i++)
        printf("     module [%#lx, %#lx) -> [%#lx, %#lx)\n", w->mod[i].start, w->mod[i].end,
               w->plan.mod[i].start, w->plan.mod[i].end);
    printf("     pool %#lx limit %#lx -> %#lx; boot data limit %#lx -> %#lx; status %d module %u\n",
           w->rq.pool_size, w->rq.pool_limit, w->plan.pool.start, w->rq.bootdata_limit,
           w->plan.bootdata.start, w->plan.status, w->plan.module);
}

static unsigned forced_count(const struct bootmem_request *rq)
{
    unsigned n = 0;
    for (unsigned i = 0; i < rq->nmod; i++)
        n += !clear_of(rq->mod[i], rq->fixed, rq->nfixed) ||
             !clear_of(rq->mod[i], rq->nodata, rq->nnodata);
    return n;
}

/* What is wrong with the plan for w, or NULL.  The guarantees checked: a plan is valid;
 * modules outside RAM are reported; no module moves that is in nobody's way; moved modules
 * and the boot data are as high as they go.  When at most one module must move (the usual
 * boot, and the issue's): a plan exists whenever an arrangement moving only that module
 * exists, and then no other module moves.  With several that must move, packing them is a
 * greedy search that can miss (counted, not failed). */
static const char *random_plan_fault(struct world *w, unsigned *outcome)
{
    const struct bootmem_request *rq = &w->rq;
    const struct bootmem_plan *p = &w->plan;
    for (unsigned i = 0; i < rq->nmod; i++) {
        bool in = true;
        for (paddr_t u = rq->mod[i].start; u < rq->mod[i].end; u += M) {
            bool unit = false;
            for (unsigned r = 0; r < rq->nmem; r++)
                unit |= rq->mem[r].type == USABLE && rq->mem[r].start <= u && u < rq->mem[r].end;
            in &= unit;
        }
        if (!in) {
            *outcome = 0;
            return p->status == BOOTMEM_MODULE_OUTSIDE_RAM && p->module == i ? NULL :
                   "a module outside RAM is the first one reported";
        }
    }
    bool exists = bf_exists(rq, false);
    if (p->status != BOOTMEM_OK) {
        *outcome = exists ? 3 : 1;
        if (forced_count(rq) <= 1 && bf_exists(rq, true))
            return "no plan, but an arrangement where only the module in a fixed or nodata "
                   "range moves exists";
        if (p->status == BOOTMEM_MODULE_NO_ROOM) {
            random_pool_size = rq->pool_size;
            word_t more = bootmem_ram_to_fit(rq, random_pool_for);
            if (more && (!fits_more(w, more, random_pool_for) ||
                         fits_more(w, more - M, random_pool_for)))
                return "bootmem_ram_to_fit is not the least MiB that fits";
        }
        return NULL;
    }
    *outcome = 2;
    const char *why;
    if (!plan_valid(rq, p, &why))
        return why;
    if (!exists)
        return "a plan, but the search finds no arrangement";
    bool forced[BOOT_MAX_MODULES], only_forced_moved = true;
    for (unsigned i = 0; i < rq->nmod; i++) {
        forced[i] = !clear_of(rq->mod[i], rq->fixed, rq->nfixed) ||
                    !clear_of(rq->mod[i], rq->nodata, rq->nnodata);
        bool moved = p->mod[i].start != rq->mod[i].start;
        if (moved && !forced[i] && !range_overlaps(rq->mod[i], p->pool))
            return "a module moved that was in nobody's way";
        only_forced_moved &= moved == forced[i];
        if (moved && (p->mod[i].start % M))
            return "a moved module off the MiB grid (the search would miss it)";
    }
    if (!only_forced_moved && bf_exists(rq, true)) {
        if (forced_count(rq) > 1) {
            *outcome = 4;               /* several must move: packing them is not exact */
            return NULL;
        }
        return "a module moved for the pool, but there is an arrangement without that";
    }
    /* Each moved module as high as it goes, given where everything else is. */
    struct bf b = { .rq = rq, .pool = p->pool };
    for (unsigned i = 0; i < rq->nmod; i++) {
        if (p->mod[i].start == rq->mod[i].start)
            continue;
        word_t size = rq->mod[i].end - rq->mod[i].start;
        for (paddr_t x = p->mod[i].start + M; x + size <= 96 * M; x += M) {
            struct phys_range r = { x, x + size };
            for (unsigned j = 0; j < rq->nmod; j++)
                b.fin[j] = j == i ? (struct phys_range){ 0, 0 } : p->mod[j];
            /* bf_module_fits looks at fin[j] for j < k only: check them all. */
            bool clear = clear_of(r, b.fin, rq->nmod);
            if (clear && bf_module_fits(&b, i, r))
                return "a moved module could go higher";
        }
    }
    if (p->bootdata.end != bf_bootdata_top(rq, p->pool, p->mod))
        return "the boot data is not as high as it goes";
    return NULL;
}

#ifndef PLAN_WORLDS
#define PLAN_WORLDS 20000u              /* -DPLAN_WORLDS=N for a longer search */
#endif

static void test_plan_random(void)
{
    unsigned faults = 0, outcomes[5] = { 0, 0, 0, 0, 0 }, moves = 0;
    rng = 0x2545F4914F6CDD1Dull;
    for (unsigned iter = 0; iter < PLAN_WORLDS; iter++) {
        struct world w;
        random_world(&w);
        bootmem_plan(&w.rq, &w.plan);
        unsigned outcome = 0;
        const char *fault = random_plan_fault(&w, &outcome);
        outcomes[outcome]++;
        for (unsigned i = 0; (outcome == 2 || outcome == 4) && i < w.nmod; i++)
            moves += w.plan.mod[i].start != w.mod[i].start;
        if (fault && ++faults <= 5) {
            CHECKQ(false, "random world %u: %s", iter, fault);
            print_world(&w);
        }
    }
    /* outcomes[3]: no plan, but an arrangement exists (several modules must move, or others
     * out of nobody's way); outcomes[4]: a plan, but one moving more than needed. */
    CHECK(faults == 0, "%u random worlds agree with the search (%u outside RAM, %u without a "
          "plan, %u planned with %u moves; crowded worlds: %u missed, %u moving more than "
          "needed; %u faults)", PLAN_WORLDS, outcomes[0], outcomes[1], outcomes[2] + outcomes[4],
          moves, outcomes[3], outcomes[4], faults);
}

static const struct uc_case cases[] = {
    UC_CASE(test_range_overlaps),
    UC_CASE(test_top_of_region),
    UC_CASE(test_alignment),
    UC_CASE(test_busy),
    UC_CASE(test_page_zero),
    UC_CASE(test_page_zero_subpage_align),
    UC_CASE(test_random),
    UC_CASE(test_plan_issue_case),
    UC_CASE(test_plan_no_room),
    UC_CASE(test_plan_modules_stay),
    UC_CASE(test_plan_pool_spares_the_largest),
    UC_CASE(test_plan_modules_first),
    UC_CASE(test_plan_sigma0_areas),
    UC_CASE(test_plan_bootdata_moves_nothing),
    UC_CASE(test_plan_requests),
    UC_CASE(test_plan_random),
};

int main(int argc, char **argv)
{
    return uc_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
