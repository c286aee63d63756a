/* Host unit test of the boot-time placement logic, compiled with the real kernel/bootmem.c
 * (-DBOOTMEM_HOST_TEST: only bootmem_find_top and range_overlaps).
 *
 * bootmem_find_top(mem, nmem, size, align, limit, busy, nbusy) promises the highest aligned
 * [x, x + size) inside one usable region, ending at or below `limit`, overlapping no busy
 * range, never touching physical page 0; 0 if there is none.  Directed cases, then random
 * memory maps compared with a brute-force search. */
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

static const struct uc_case cases[] = {
    UC_CASE(test_range_overlaps),
    UC_CASE(test_top_of_region),
    UC_CASE(test_alignment),
    UC_CASE(test_busy),
    UC_CASE(test_page_zero),
    UC_CASE(test_page_zero_subpage_align),
    UC_CASE(test_random),
};

int main(int argc, char **argv)
{
    return uc_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
