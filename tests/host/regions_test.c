/* Host unit test of sigma0's physical-memory ranges, compiled with the real
 * user/sigma0/regions.c.
 *
 * The array must always be sorted, cover [0, 2^64) without gaps, and (after every successful
 * call) hold no two neighbours of the same kind and owner.  Memory descriptors applied in index
 * order override earlier ones (contract §2.6); regions_available/claim/find_free follow the σ0
 * protocol (§6.6).  A random sequence of set/claim calls is compared with a point model that
 * simply replays the calls for each elementary interval. */
#include "unit_check.h"
#include "regions.h"

#define ALL ~0ull

static const char *kind_name(unsigned k)
{
    static const char *const n[] = { "reserved", "conv", "nonconv", "shared" };
    return k < 4 ? n[k] : "?";
}

static void dump_range(unsigned from, unsigned to)
{
    if (from > 0)
        printf("     ... (%u regions before)\n", from);
    for (unsigned i = from; i < nregions && i < to; i++)
        printf("     %4u [%#llx, %#llx] %s owner %#llx\n", i, (unsigned long long)regions[i].first,
               (unsigned long long)regions[i].last, kind_name(regions[i].kind),
               (unsigned long long)regions[i].owner);
    if (nregions > to)
        printf("     ... (%u regions after)\n", nregions - to);
}

static void dump(void)
{
    dump_range(0, 40);
}

/* Sorted, gap-free cover of the 64-bit range; `merged`: no equal neighbours. */
static bool well_formed(bool merged, const char *when)
{
    bool ok = nregions >= 1 && nregions <= MAX_REGIONS && regions[0].first == 0 &&
              regions[nregions - 1].last == ALL;
    unsigned bad = 0;
    const char *why = ok ? "" : "ends";
    for (unsigned i = 0; ok && i < nregions; i++) {
        if (regions[i].first > regions[i].last || regions[i].kind > R_SHARED)
            ok = false, why = "empty or bad region";
        else if (i > 0 && regions[i].first != regions[i - 1].last + 1)
            ok = false, why = "gap or overlap between neighbours";
        else if (merged && i > 0 && regions[i].kind == regions[i - 1].kind &&
                 regions[i].owner == regions[i - 1].owner)
            ok = false, why = "equal neighbours not merged";
        bad = i;
    }
    if (!ok) {
        CHECKQ(false, "%s: region array is not a %ssorted cover of [0, 2^64): %s at index %u", when,
               merged ? "merged, " : "", why, bad);
        dump_range(bad > 3 ? bad - 3 : 0, bad + 3);
    }
    return ok;
}

static bool is(uint64_t addr, unsigned kind, uint64_t owner)
{
    const struct region *r = regions_lookup(addr);
    return r && r->kind == kind && r->owner == owner;
}

static void test_init(void)
{
    regions_init();
    CHECK_EQ(nregions, 1, "one region after init");
    CHECK(regions[0].first == 0 && regions[0].last == ALL && regions[0].kind == R_RESERVED &&
          regions[0].owner == 0, "the whole range starts reserved and unowned");
    CHECK(regions_lookup(0) == &regions[0] && regions_lookup(ALL) == &regions[0],
          "lookup of 0 and 2^64-1");
    CHECK(!regions_available(0, 0xFFF, 1, true), "nothing is available after init");
    CHECK_EQ(regions_find_free(12), ALL, "find_free finds nothing after init");
}

/* The contract's descriptor order (§7.2): later descriptors override earlier ones. */
static void test_descriptor_order(void)
{
    regions_init();
    struct { uint64_t lo, hi; unsigned kind; } d[] = {
        { 0, ALL, R_SHARED },                           /* 1. shared background */
        { 0, 0x9FBFF, R_CONV },                         /* 2. memory map */
        { 0x9FC00, 0x9FFFF, R_NONCONV },
        { 0xF0000, 0xFFFFF, R_NONCONV },
        { 0x100000, 0x7FDFFFF, R_CONV },
        { 0x7FE0000, 0x7FFFFFF, R_NONCONV },
        { 0xFFFC0000, 0xFFFFFFFF, R_NONCONV },
        { 0xA0000, 0xBFFFF, R_SHARED },                 /* 3. VGA, ROMs */
        { 0xC0000, 0xEFFFF, R_SHARED },
        { 0x100000, 0x2FFFFF, R_RESERVED },             /* 4. kernel image, pool, KIP */
        { 0x7C00000, 0x7DFFFFF, R_RESERVED },
        { 0xF00000, 0xF53FFF, R_NONCONV },              /* 5. sigma0 and root images */
        { 0x1000000, 0x10FFFFF, R_NONCONV },
        { 0x7BFF000, 0x7BFFFFF, R_NONCONV },            /* 7. boot info */
    };
    unsigned n = sizeof(d) / sizeof(d[0]);
    bool all_ok = true;
    for (unsigned i = 0; i < n; i++)
        all_ok &= regions_set(d[i].lo, d[i].hi, d[i].kind, 0);
    CHECK(all_ok, "all %u descriptors applied", n);
    CHECK(well_formed(true, "descriptors"), "sorted, covering, merged (%u regions)", nregions);
    /* Every boundary +-1: the last descriptor covering the point wins. */
    unsigned bad = 0, points = 0;
    for (unsigned i = 0; i < n; i++) {
        uint64_t pts[] = { d[i].lo, d[i].hi, d[i].lo - 1, d[i].hi + 1 };
        for (unsigned p = 0; p < 4; p++) {
            uint64_t a = pts[p];
            unsigned want = R_RESERVED;
            for (unsigned j = 0; j < n; j++)
                if (d[j].lo <= a && a <= d[j].hi)
                    want = d[j].kind;
            points++;
            if (!is(a, want, 0)) {
                bad++;
                CHECKQ(false, "address %#llx: kind %s, expected %s", (unsigned long long)a,
                       regions_lookup(a) ? kind_name(regions_lookup(a)->kind) : "none", kind_name(want));
            }
        }
    }
    CHECK(bad == 0, "%u boundary points have the kind of the last covering descriptor", points);
    CHECK(is(0x500, R_CONV, 0) && is(0xB8000, R_SHARED, 0) && is(0x200000, R_RESERVED, 0) &&
          is(0xF00000, R_NONCONV, 0) && is(0x2000000, R_CONV, 0) && is(0xFEC00000, R_SHARED, 0) &&
          is(0x100000000ull, R_SHARED, 0), "spot checks: RAM, VGA, kernel, sigma0 image, RAM, MMIO, above 4 GiB");
}

/* 1 MiB each of conventional, non-conventional, shared and reserved memory from 0x100000. */
static void four_kinds(void)
{
    regions_init();
    regions_set(0x100000, 0x1FFFFF, R_CONV, 0);
    regions_set(0x200000, 0x2FFFFF, R_NONCONV, 0);
    regions_set(0x300000, 0x3FFFFF, R_SHARED, 0);
    regions_set(0x400000, 0x4FFFFF, R_RESERVED, 0);
}

static void test_available_claim(void)
{
    const uint64_t T1 = 0x40001, T2 = 0x80001;
    four_kinds();
    regions_set(0x500000, 0x5FFFFF, R_CONV, 0);

    CHECK(regions_available(0x100000, 0x100FFF, T1, true), "free conventional: available");
    CHECK(regions_available(0x200000, 0x200FFF, T1, true), "free non-conventional: available by address");
    CHECK(regions_available(0x300000, 0x300FFF, T1, true), "shared: available");
    CHECK(!regions_available(0x400000, 0x400FFF, T1, true), "reserved: never available");
    CHECK(!regions_available(0x3FF000, 0x400FFF, T1, true), "a range touching reserved memory: not available");
    CHECK(!regions_available(0x0, 0xFFF, T1, true), "undefined memory (initial reserved): not available");
    /* Page faults (nonconv = false): no free non-conventional memory; the rest as before. */
    CHECK(regions_available(0x100000, 0x100FFF, T1, false), "page fault: free conventional: available");
    CHECK(!regions_available(0x200000, 0x200FFF, T1, false), "page fault: free non-conventional: not available");
    CHECK(regions_available(0x300000, 0x300FFF, T1, false), "page fault: shared: available");

    CHECK(regions_claim(0x101000, 0x102FFF, T1), "claim two pages of RAM for T1");
    CHECK(is(0x101000, R_CONV, T1) && is(0x102FFF, R_CONV, T1), "claimed pages owned by T1, still conventional");
    CHECK(is(0x100FFF, R_CONV, 0) && is(0x103000, R_CONV, 0), "neighbouring pages stay free");
    CHECK(regions_available(0x101000, 0x101FFF, T1, true), "own page: available to the owner again");
    CHECK(!regions_available(0x101000, 0x101FFF, T2, true), "someone else's page: not available");
    CHECK(!regions_available(0x100000, 0x103FFF, T2, true), "a range containing someone else's page: not available");
    CHECK(regions_available(0x100000, 0x103FFF, T1, true), "free + own pages: available to the owner");
    CHECK(well_formed(true, "claim"), "well formed after a claim (%u regions)", nregions);
    CHECK(regions_claim(0x201000, 0x201FFF, T1), "claim a non-conventional page by address");
    CHECK(regions_available(0x201000, 0x201FFF, T1, false), "page fault on its own non-conventional page: available");
    CHECK(!regions_available(0x201000, 0x201FFF, T2, true), "someone else's non-conventional page: not available");

    CHECK(regions_claim(0x100000, 0x103FFF, T1), "claim a range around the own pages");
    CHECK(is(0x100000, R_CONV, T1) && regions_lookup(0x100000) == regions_lookup(0x103FFF),
          "own pieces merged into one region");
    CHECK(well_formed(true, "claim around own"), "merged after extending a claim (%u regions)", nregions);

    CHECK(regions_claim(0x2FF000, 0x300FFF, T2), "claim across non-conventional and shared memory");
    CHECK(is(0x2FF000, R_NONCONV, T2), "non-conventional part owned, kind kept");
    CHECK(is(0x300000, R_SHARED, 0) && is(0x300FFF, R_SHARED, 0), "shared part stays unowned");
    CHECK(regions_available(0x300000, 0x300FFF, T1, true), "shared memory stays available to others");
    CHECK(regions_claim(0x300000, 0x300FFF, T1) && is(0x300000, R_SHARED, 0), "claiming shared memory changes nothing");

    /* Ownership is released by setting the range again (what a descriptor does). */
    regions_set(0x100000, 0x1FFFFF, R_CONV, 0);
    CHECK(is(0x101000, R_CONV, 0) && regions_lookup(0x100000) == regions_lookup(0x1FFFFF),
          "re-setting a range drops its owners and merges");
    CHECK(well_formed(true, "reset"), "well formed after reset (%u regions)", nregions);
}

/* A claim the kernel could not map is given back (sigma0's take_back): what the owner held of
 * the range is free again with its kind, other owners and shared memory untouched. */
static void test_release(void)
{
    const uint64_t T1 = 0x40001, T2 = 0x80001;
    four_kinds();
    CHECK(!regions_owns_part(0x100000, 0x3FFFFF, T1), "nothing owned yet");
    CHECK(regions_claim(0x100000, 0x100FFF, T1) && regions_claim(0x101000, 0x101FFF, T2) &&
          regions_claim(0x1FF000, 0x300FFF, T1), "claims by two owners, across kinds");
    CHECK(regions_owns_part(0x100000, 0x100FFF, T1) && regions_owns_part(0x0, ~0ull, T2) &&
          !regions_owns_part(0x101000, 0x1FEFFF, T1) && !regions_owns_part(0x300000, 0x3FFFFF, T1),
          "owns_part: the owner's pieces only, not shared memory");
    CHECK(regions_release(0x1FF000, 0x300FFF, T1), "release the claim across kinds");
    CHECK(is(0x1FF000, R_CONV, 0) && is(0x200000, R_NONCONV, 0) && is(0x2FFFFF, R_NONCONV, 0) &&
          is(0x300000, R_SHARED, 0), "free again, kinds kept");
    CHECK(is(0x100000, R_CONV, T1) && is(0x101000, R_CONV, T2), "other claims untouched");
    CHECK(regions_release(0x100000, 0x101FFF, T1) && is(0x100000, R_CONV, 0) &&
          is(0x101000, R_CONV, T2), "a release leaves another owner's piece in its range");
    CHECK(regions_release(0x101000, 0x101FFF, T2) &&
          regions_lookup(0x100000) == regions_lookup(0x1FFFFF), "all free: merged into one");
    CHECK(well_formed(true, "release"), "well formed after releases (%u regions)", nregions);
}

static void test_find_free(void)
{
    regions_init();
    regions_set(0x9F000, 0x9FFFF, R_CONV, 0);           /* one page */
    regions_set(0x100000, 0x7FFFFFF, R_CONV, 0);        /* 1 MiB .. 128 MiB */
    regions_set(0x0, 0x9EFFF, R_NONCONV, 0);
    regions_set(0x8000000, 0x8FFFFFF, R_SHARED, 0);
    CHECK_EQ(regions_find_free(12), 0x9F000, "lowest free page");
    CHECK_EQ(regions_find_free(13), 0x100000, "8 KiB: the single page is too small");
    CHECK_EQ(regions_find_free(21), 0x200000, "2 MiB: naturally aligned, not at 1 MiB");
    CHECK_EQ(regions_find_free(26), 0x4000000, "64 MiB: at 64 MiB");
    CHECK_EQ(regions_find_free(27), ALL, "128 MiB: no aligned block inside the region");
    CHECK_EQ(regions_find_free(0), 0x9F000, "1 byte: the first free address");
    regions_claim(0x9F000, 0x9FFFF, 7);
    CHECK_EQ(regions_find_free(12), 0x100000, "owned pages are skipped");
    regions_claim(0x200000, 0x200FFF, 7);
    CHECK_EQ(regions_find_free(21), 0x400000, "a 2 MiB block containing an owned page is skipped");
    CHECK_EQ(regions_find_free(12), 0x100000, "pages below the owned one are still found");
    /* Shared and non-conventional memory is never handed out as "any" memory. */
    regions_init();
    regions_set(0x100000, 0x1FFFFF, R_SHARED, 0);
    regions_set(0x200000, 0x2FFFFF, R_NONCONV, 0);
    CHECK_EQ(regions_find_free(12), ALL, "only shared and non-conventional memory: nothing");
    /* The top of the 64-bit range. */
    regions_init();
    regions_set(ALL - 0xFFF, ALL, R_CONV, 0);
    CHECK_EQ(regions_find_free(12), ALL - 0xFFF, "the last page of the address space");
    CHECK_EQ(regions_find_free(13), ALL, "8 KiB at the top: none (no wrap-around)");
    regions_init();
    regions_set(1ull << 63, ALL, R_CONV, 0);
    CHECK_EQ(regions_find_free(63), 1ull << 63, "2^63 bytes at 2^63");
    CHECK_EQ(regions_find_free(62), 1ull << 63, "2^62 bytes: the first aligned block");
    regions_set(0, ALL, R_CONV, 0);
    CHECK_EQ(regions_find_free(63), 0, "the whole range free: 2^63 block at 0");
}

static void test_merge(void)
{
    regions_init();
    regions_set(0x1000, 0x1FFF, R_CONV, 0);
    regions_set(0x2000, 0x2FFF, R_CONV, 0);
    CHECK_EQ(nregions, 3, "adjacent equal ranges merge: reserved, conv, reserved");
    regions_set(0x1800, 0x27FF, R_SHARED, 0);
    CHECK_EQ(nregions, 5, "a range in the middle splits");
    regions_set(0x1800, 0x27FF, R_CONV, 0);
    CHECK_EQ(nregions, 3, "setting it back merges again");
    regions_set(0x1000, 0x2FFF, R_RESERVED, 0);
    CHECK_EQ(nregions, 1, "setting it to the background restores the single region");
    regions_set(0, ALL, R_CONV, 5);
    CHECK(nregions == 1 && is(0, R_CONV, 5) && is(ALL, R_CONV, 5), "the whole range at once");
    regions_set(0, 0, R_SHARED, 0);
    regions_set(ALL, ALL, R_SHARED, 0);
    CHECK(nregions == 3 && is(0, R_SHARED, 0) && is(1, R_CONV, 5) && is(ALL, R_SHARED, 0) &&
          is(ALL - 1, R_CONV, 5), "single-byte ranges at both ends");
    CHECK(well_formed(true, "ends"), "well formed (%u regions)", nregions);
    unsigned before = nregions;
    regions_set(0x5000, 0x4FFF, R_NONCONV, 0);          /* first > last: an empty range */
    CHECK(nregions == before && is(0x5000, R_CONV, 5) && is(0x4FFF, R_CONV, 5), "an empty range (first > last) changes nothing");
}

/* Fill the array to capacity: each page-sized hole on a reserved background adds two regions. */
static void fill(unsigned leave_free)
{
    regions_init();
    for (uint64_t i = 0; nregions + 2 + leave_free <= MAX_REGIONS; i++)
        regions_set(0x100000 + i * 0x2000, 0x100FFF + i * 0x2000, R_CONV, 0);
}

static bool same_points(const uint64_t *pts, const struct region *want, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        const struct region *r = regions_lookup(pts[i]);
        if (!r || r->kind != want[i].kind || r->owner != want[i].owner)
            return false;
    }
    return true;
}

static void test_capacity(void)
{
    fill(0);
    CHECK(nregions >= MAX_REGIONS - 1, "filled to %u of %u regions", nregions, MAX_REGIONS);
    CHECK(well_formed(true, "full"), "well formed when full");
    /* Remember the meaning of the map at interesting points. */
    static uint64_t pts[64];
    static struct region want[64];
    unsigned np = 0;
    uint64_t top = regions[nregions - 2].first;
    uint64_t probe[] = { 0, 0xFFFFF, 0x100000, 0x101000, 0x102000, 0x103000, 0x104000, 0x1047FF, 0x104800,
                         0x104BFF, 0x104C00, 0x104FFF, 0x105000, top - 1, top, top + 0xFFF, top + 0x1000,
                         top + 0x100000, ALL };
    for (unsigned i = 0; i < sizeof(probe) / sizeof(probe[0]); i++) {
        pts[np] = probe[i];
        want[np++] = *regions_lookup(probe[i]);
    }
    while (nregions + 2 <= MAX_REGIONS)     /* leave exactly 0 or 1 free slots */
        regions_set(top + 0x100000 + nregions * 0x2000ull, top + 0x100FFF + nregions * 0x2000ull, R_CONV, 0);
    unsigned n0 = nregions;
    bool r = regions_set(0x104800, 0x1047FF + 0x400, R_SHARED, 0);   /* needs two more regions */
    CHECK(!r || n0 + 2 <= MAX_REGIONS, "a set needing two more regions than fit fails (returned %d, %u regions)", r, n0);
    CHECK(nregions <= MAX_REGIONS, "never more than MAX_REGIONS (%u)", nregions);
    CHECK(well_formed(false, "failed set"), "still a sorted cover after the failed set");
    CHECK(same_points(pts, want, np), "a failed set does not change what any address is");
    CHECK(!regions_set(0x103800, 0x1038FF, R_SHARED, 0), "another set in the reserved page at 0x103000 fails");
    CHECK(regions_lookup(0x103C00) && regions_lookup(0x103C00)->kind == R_RESERVED,
          "... and leaves 0x103c00 reserved (lookup: %s)",
          regions_lookup(0x103C00) ? kind_name(regions_lookup(0x103C00)->kind) : "no region");
    CHECK(!regions_available(0x103800, 0x103FFF, 1, true), "reserved memory does not become available through failed sets");
    CHECK(regions_set(0x101000, 0x101FFF, R_SHARED, 0), "overriding a whole existing region needs no space: succeeds");
    CHECK(is(0x101000, R_SHARED, 0), "... and takes effect");
    CHECK(well_formed(true, "after a successful set"), "merged again after the next successful set");
    CHECK(regions_set(0x101000, 0x101FFF, R_CONV, 0), "a set that frees regions (merging 3 into 1) succeeds");
    CHECK(nregions <= MAX_REGIONS - 2, "merging gave back two slots (%u regions)", nregions);
}

/* A claim that runs out of space must not leave part of the range claimed (σ0 then refuses the
 * request, but the pieces already recorded would belong to a thread that never got them). */
static void test_claim_capacity_atomic(void)
{
    const uint64_t T1 = 0x40001;
    regions_init();
    /* Two neighbours: conventional [1 MiB, 2 MiB), non-conventional [2 MiB, 3 MiB). */
    regions_set(0x100000, 0x1FFFFF, R_CONV, 0);
    regions_set(0x200000, 0x2FFFFF, R_NONCONV, 0);
    uint64_t hole = 0;
    for (uint64_t i = 0; nregions + 2 <= MAX_REGIONS - 1; i++) {     /* each hole: +2 regions */
        hole = 0x10000000 + i * 0x2000;
        regions_set(hole, hole + 0xFFF, R_SHARED, 0);
    }
    if (nregions < MAX_REGIONS - 1)     /* next to the last hole: +1 region */
        regions_set(hole + 0x1000, hole + 0x1FFF, R_CONV, 0);
    CHECK_EQ(nregions, MAX_REGIONS - 1, "one free slot left");
    /* Claiming [1.5 MiB, 2.5 MiB) needs a split in each of the two regions: only one fits. */
    bool r = regions_claim(0x180000, 0x27FFFF, T1);
    CHECK(!r, "the claim fails for lack of space");
    CHECK(well_formed(false, "failed claim"), "still a sorted cover");
    CHECK(is(0x180000, R_CONV, 0) && is(0x1FFFFF, R_CONV, 0),
          "after the failed claim the conventional part is still free (owner %#llx)",
          regions_lookup(0x180000) ? (unsigned long long)regions_lookup(0x180000)->owner : 0ull);
    CHECK(is(0x200000, R_NONCONV, 0), "after the failed claim the non-conventional part is still free");
}

/* --- random calls against a point model ------------------------------------------------ */
struct op { int claim; uint64_t first, last; unsigned kind; uint64_t owner; };
static struct op ops[400];
static unsigned nops;

static void model_at(uint64_t a, unsigned *kind, uint64_t *owner)
{
    *kind = R_RESERVED;
    *owner = 0;
    for (unsigned i = 0; i < nops; i++) {
        if (a < ops[i].first || a > ops[i].last)
            continue;
        if (!ops[i].claim) {
            *kind = ops[i].kind;
            *owner = ops[i].owner;
        } else if (*kind != R_SHARED) {
            *owner = ops[i].owner;
        }
    }
}

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static uint64_t rnd_addr(void)
{
    unsigned c = (unsigned)(rnd() % 20);
    if (c == 0) return 0;
    if (c == 1) return ALL;
    if (c == 2) return (1ull << 63) + (rnd() % 4) * 0x1000 - (rnd() % 2);
    if (c == 3) return ALL - (rnd() % 4) * 0x1000;
    return (rnd() % 256) * 0x1000 + (rnd() % 8 == 0 ? 0x7FF : 0);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Elementary intervals: boundaries of every call (sorted, unique). */
static unsigned boundaries(uint64_t *b)
{
    unsigned n = 0;
    b[n++] = 0;
    for (unsigned i = 0; i < nops; i++) {
        b[n++] = ops[i].first;
        if (ops[i].last != ALL)
            b[n++] = ops[i].last + 1;
    }
    qsort(b, n, sizeof(b[0]), cmp_u64);
    unsigned u = 0;
    for (unsigned i = 0; i < n; i++)
        if (!u || b[u - 1] != b[i])
            b[u++] = b[i];
    return u;
}

static uint64_t model_find_free(unsigned log2, const uint64_t *b, unsigned nb)
{
    uint64_t size = 1ull << log2;
    for (unsigned i = 0; i < nb; ) {
        unsigned k; uint64_t o;
        model_at(b[i], &k, &o);
        unsigned j = i + 1;         /* extend over equal neighbours: a maximal run */
        for (; j < nb; j++) {
            unsigned k2; uint64_t o2;
            model_at(b[j], &k2, &o2);
            if (k2 != k || o2 != o)
                break;
        }
        uint64_t first = b[i], last = j < nb ? b[j] - 1 : ALL;
        if (k == R_CONV && o == 0) {
            uint64_t a = (first + size - 1) & ~(size - 1);
            if (a >= first && a + size - 1 >= a && a + size - 1 <= last)
                return a;
        }
        i = j;
    }
    return ALL;
}

static void test_random(void)
{
    static uint64_t b[2 * 400 + 2];
    unsigned bad = 0;
    for (unsigned round = 0; round < 30 && !bad; round++) {
        regions_init();
        nops = 0;
        for (unsigned step = 0; step < 120 && !bad; step++) {
            struct op o;
            o.first = rnd_addr();
            o.last = rnd_addr();
            if (o.first > o.last) { uint64_t t = o.first; o.first = o.last; o.last = t; }
            o.claim = rnd() % 3 == 0;
            o.kind = (unsigned)(rnd() % 4);
            o.owner = o.claim ? 1 + rnd() % 3 : (rnd() % 5 == 0 ? 1 + rnd() % 3 : 0);
            uint64_t who = 1 + rnd() % 3;
            bool nonconv = rnd() % 2;
            /* available() before the call, checked against the model */
            unsigned nb = boundaries(b);
            bool want_avail = true;
            for (unsigned i = 0; i < nb; i++) {
                uint64_t lo = b[i], hi = i + 1 < nb ? b[i + 1] - 1 : ALL;
                if (hi < o.first || lo > o.last)
                    continue;
                unsigned k; uint64_t ow;
                model_at(lo, &k, &ow);
                if (k == R_SHARED)
                    continue;
                if (k == R_RESERVED || (ow && ow != who) || (k == R_NONCONV && !ow && !nonconv))
                    want_avail = false;
            }
            if (regions_available(o.first, o.last, who, nonconv) != want_avail) {
                bad++;
                CHECKQ(false, "round %u step %u: available(%#llx, %#llx, %llu) = %d, model %d", round, step,
                       (unsigned long long)o.first, (unsigned long long)o.last, (unsigned long long)who,
                       !want_avail, want_avail);
            }
            bool ok = o.claim ? regions_claim(o.first, o.last, o.owner)
                              : regions_set(o.first, o.last, o.kind, o.owner);
            if (!ok) {
                bad++;
                CHECKQ(false, "round %u step %u: call failed with %u regions", round, step, nregions);
            }
            ops[nops++] = o;
            if (!well_formed(true, "random"))
                bad++;
            nb = boundaries(b);
            for (unsigned i = 0; i < nb && !bad; i++) {
                uint64_t pts[3] = { b[i], b[i] - 1, b[i] + 1 };
                for (unsigned p = 0; p < 3; p++) {
                    unsigned k; uint64_t ow;
                    model_at(pts[p], &k, &ow);
                    if (!is(pts[p], k, ow)) {
                        bad++;
                        const struct region *r = regions_lookup(pts[p]);
                        CHECKQ(false, "round %u step %u (%s [%#llx, %#llx]): address %#llx is %s/%llu, model %s/%llu",
                               round, step, o.claim ? "claim" : "set", (unsigned long long)o.first,
                               (unsigned long long)o.last, (unsigned long long)pts[p],
                               r ? kind_name(r->kind) : "none", r ? (unsigned long long)r->owner : 0ull,
                               kind_name(k), (unsigned long long)ow);
                        dump();
                        break;
                    }
                }
            }
            unsigned log2 = (unsigned)(rnd() % 20) + (rnd() % 8 == 0 ? 40 : 0);
            uint64_t ff = regions_find_free(log2), mf = model_find_free(log2, b, nb);
            if (ff != mf) {
                bad++;
                CHECKQ(false, "round %u step %u: find_free(%u) = %#llx, model %#llx", round, step, log2,
                       (unsigned long long)ff, (unsigned long long)mf);
                dump();
            }
        }
    }
    CHECK(bad == 0, "30 random sequences of 120 set/claim calls agree with the point model");
}

static const struct uc_case cases[] = {
    UC_CASE(test_init),
    UC_CASE(test_descriptor_order),
    UC_CASE(test_available_claim),
    UC_CASE(test_release),
    UC_CASE(test_find_free),
    UC_CASE(test_merge),
    UC_CASE(test_capacity),
    UC_CASE(test_claim_capacity_atomic),
    UC_CASE(test_random),
};

int main(int argc, char **argv)
{
    return uc_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
