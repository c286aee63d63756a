/* Host unit test of the cachesim plugin's cache model (tools/qemu_plugins/cachesim_model.h):
 * geometry, LRU, the sweeps the model must get right (docs/cache-partitioning.md), and page
 * colours.  Cases by name; --list prints them.  Driven by test_cachesim.py. */
#include "cachesim_model.h"
#include "unit_check.h"

static void test_geometry_is_checked(void)
{
    struct cache_level c;
    CHECK(cache_level_init(&c, 256 << 10, 4, 64) == 0 && c.sets == 1024 && c.line_shift == 6,
          "256 KiB 4-way 64 B: 1024 sets");
    CHECK(cache_level_colours(&c) == 16, "16 colours of 4 KiB");
    cache_level_free(&c);
    CHECK(cache_level_init(&c, 256 << 10, 1, 32) == 0 && cache_level_colours(&c) == 64,
          "the paper's direct-mapped 256 KiB: 64 colours");
    cache_level_free(&c);
    CHECK(cache_level_init(&c, 48 << 10, 4, 64) == -1, "192 sets refused");
    CHECK(cache_level_init(&c, 256 << 10, 4, 48) == -1, "a 48-byte line refused");
    CHECK(cache_level_init(&c, 256 << 10, 0, 64) == -1, "no ways refused");
}

/* A sweep of a buffer twice the cache misses every line on every pass (LRU evicts the oldest
 * line of a set just before it is used again); one that fits hits on every pass after the
 * first. */
static void test_sweeps(void)
{
    struct cache_level c;
    cache_level_init(&c, 256 << 10, 4, 64);
    for (int pass = 0; pass < 3; pass++)
        for (uint64_t a = 0; a < 512 << 10; a += 8)
            cache_level_access(&c, 0x100000 + a);
    CHECK_EQ(c.misses, 3 * (512 << 10) / 64, "the large sweep misses every line");
    CHECK_EQ(c.hits, 3 * (512 << 10) / 8 - c.misses, "and hits the other words of a line");
    cache_level_free(&c);

    cache_level_init(&c, 256 << 10, 4, 64);
    for (int pass = 0; pass < 3; pass++)
        for (uint64_t a = 0; a < 256 << 10; a += 64)
            cache_level_access(&c, 0x100000 + a);
    CHECK_EQ(c.misses, (256 << 10) / 64, "a sweep that fits misses only on the first pass");
    cache_level_free(&c);
}

static void test_lru_replaces_the_oldest_way(void)
{
    struct cache_level c;
    cache_level_init(&c, 4 * 64 * 2, 4, 64);           /* 2 sets of 4 ways */
    const uint64_t stride = 2 * 64;                     /* same set */
    for (uint64_t i = 0; i < 4; i++)
        cache_level_access(&c, i * stride);
    CHECK(cache_level_access(&c, 0), "line 0 still there");
    CHECK(!cache_level_access(&c, 4 * stride), "a fifth line misses...");
    CHECK(!cache_level_access(&c, 1 * stride), "...and evicted line 1, the least recent");
    CHECK(cache_level_access(&c, 0) && cache_level_access(&c, 4 * stride), "0 and 4 stay");
    CHECK(!cache_level_access(&c, 64), "the other set is empty");
    cache_level_free(&c);
}

/* Pages of different colours never share a set; pages of one colour compete for its ways. */
static void test_colours_isolate(void)
{
    struct cache_model m = {.cost = {1, 0, 10, 100}};
    cache_level_init(&m.l1d, 16 << 10, 4, 64);
    cache_level_init(&m.l2, 256 << 10, 4, 64);
    unsigned colours = cache_level_colours(&m.l2);
    /* colour 0: pages 0, 16, 32, 48 fill its 4 ways */
    for (int pass = 0; pass < 2; pass++)
        for (uint64_t p = 0; p < 4; p++)
            for (uint64_t a = 0; a < 4096; a += 64)
                cache_model_data(&m, (p * colours) << 12 | a);
    uint64_t l2_misses = m.l2.misses;
    /* a hostile sweep of 1 MiB over every colour but 0 */
    for (uint64_t p = 0; p < 256; p++)
        if (p % colours)
            for (uint64_t a = 0; a < 4096; a += 64)
                cache_model_data(&m, (1024 + p) << 12 | a);
    uint64_t cycles = 0, before = m.l2.misses;
    for (uint64_t p = 0; p < 4; p++)
        for (uint64_t a = 0; a < 4096; a += 64)
            cycles += cache_model_data(&m, (p * colours) << 12 | a);
    CHECK_EQ(m.l2.misses - before, 0, "colour 0 survives a sweep of the others");
    CHECK_EQ(cycles, 4 * 64 * 10, "its lines cost an L2 hit each (L1 was swept)");
    CHECK_EQ(l2_misses, 4 * 64, "only the first pass missed");
    /* the same sweep over colour 0 evicts it */
    for (uint64_t p = 0; p < 64; p++)
        for (uint64_t a = 0; a < 4096; a += 64)
            cache_model_data(&m, (1024 + p * colours) << 12 | a);
    cycles = 0;
    for (uint64_t p = 0; p < 4; p++)
        for (uint64_t a = 0; a < 4096; a += 64)
            cycles += cache_model_data(&m, (p * colours) << 12 | a);
    CHECK_EQ(cycles, 4 * 64 * 100, "a sweep of colour 0 costs it memory on every line");
    cache_level_free(&m.l1d);
    cache_level_free(&m.l2);
}

static const struct uc_case cases[] = {
    UC_CASE(test_geometry_is_checked),
    UC_CASE(test_sweeps),
    UC_CASE(test_lru_replaces_the_oldest_way),
    UC_CASE(test_colours_isolate),
};

int main(int argc, char **argv)
{
    return uc_main(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
