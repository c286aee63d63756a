/*
 * The cache model of the cachesim plugin (cachesim.c, docs/cache-partitioning.md), kept free of
 * QEMU so that tests/host/cachesim_test.c runs it on the host.
 *
 * A level is set-associative and physically indexed with true LRU replacement (a use stamp per
 * line; the oldest stamp of the set is the victim).  Two levels: an L1 data cache and a unified
 * L2, neither inclusive nor exclusive (a miss fills both, an L1 eviction does not touch the L2),
 * write-allocate, no write-back cost.  An access is charged by the first level that holds its
 * line: l1_hit, l2_hit or mem cycles.  An access that crosses a line boundary is charged for its
 * first line only (the guest's aligned loads and stores never cross one).
 */
#ifndef CACHESIM_MODEL_H
#define CACHESIM_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

struct cache_level {
    uint64_t *tags;                     /* sets * ways; line number + 1, 0 for an empty way */
    uint64_t *stamps;                   /* last use of each way */
    uint64_t clock;
    unsigned sets, ways, line_shift;
    uint64_t hits, misses;
};

static inline bool cache_is_pow2(uint64_t x)
{
    return x && !(x & (x - 1));
}

/* 0 on success; -1 unless size, ways and line give a power-of-two number of sets and a
 * power-of-two line. */
static inline int cache_level_init(struct cache_level *c, uint64_t size, unsigned ways,
                                   unsigned line)
{
    if (!ways || !cache_is_pow2(line) || size % ((uint64_t)ways * line) ||
        !cache_is_pow2(size / ((uint64_t)ways * line)))
        return -1;
    c->sets = (unsigned)(size / ((uint64_t)ways * line));
    c->ways = ways;
    c->line_shift = (unsigned)__builtin_ctz(line);
    c->tags = calloc((size_t)c->sets * ways, sizeof *c->tags);
    c->stamps = calloc((size_t)c->sets * ways, sizeof *c->stamps);
    c->clock = c->hits = c->misses = 0;
    return c->tags && c->stamps ? 0 : -1;
}

static inline void cache_level_free(struct cache_level *c)
{
    free(c->tags);
    free(c->stamps);
    c->tags = c->stamps = NULL;
}

/* True on a hit; a miss replaces the set's least recently used way. */
static inline bool cache_level_access(struct cache_level *c, uint64_t paddr)
{
    uint64_t line = paddr >> c->line_shift;
    unsigned set = (unsigned)(line & (c->sets - 1));
    uint64_t *tags = c->tags + (size_t)set * c->ways, *stamps = c->stamps + (size_t)set * c->ways;
    unsigned victim = 0;
    c->clock++;
    for (unsigned w = 0; w < c->ways; w++) {
        if (tags[w] == line + 1) {
            stamps[w] = c->clock;
            c->hits++;
            return true;
        }
        if (stamps[w] < stamps[victim])
            victim = w;
    }
    tags[victim] = line + 1;
    stamps[victim] = c->clock;
    c->misses++;
    return false;
}

/* Page colours of a physically indexed cache: the sets one 4 KiB page maps to repeat every
 * size / ways bytes. */
static inline unsigned cache_level_colours(const struct cache_level *c)
{
    uint64_t way_bytes = (uint64_t)c->sets << c->line_shift;
    return way_bytes > 4096 ? (unsigned)(way_bytes / 4096) : 1;
}

struct cache_costs {
    unsigned insn, l1_hit, l2_hit, mem;
};

struct cache_model {
    struct cache_level l1d, l2;
    struct cache_costs cost;
};

/* The modelled cycles of one data access (the instruction's own cycle is not included). */
static inline unsigned cache_model_data(struct cache_model *m, uint64_t paddr)
{
    if (cache_level_access(&m->l1d, paddr))
        return m->cost.l1_hit;
    if (cache_level_access(&m->l2, paddr))
        return m->cost.l2_hit;
    return m->cost.mem;
}

#endif
