/* sigma0's physical-memory ranges.  Linear scans over a sorted array: sigma0 serves few
 * requests, and all of them are for large or well-known blocks. */
#include "regions.h"
#include <string.h>

struct region regions[MAX_REGIONS];
unsigned nregions;

void regions_init(void)
{
    nregions = 1;
    regions[0] = (struct region){ 0, ~0ull, R_RESERVED, 0 };
}

static bool insert_at(unsigned i, struct region r)
{
    if (nregions == MAX_REGIONS)
        return false;
    memmove(&regions[i + 1], &regions[i], (nregions - i) * sizeof(regions[0]));
    regions[i] = r;
    nregions++;
    return true;
}

/* Make `addr` the start of a region (split the one containing it). */
static bool split_at(uint64_t addr)
{
    for (unsigned i = 0; i < nregions; i++) {
        struct region *r = &regions[i];
        if (r->first == addr)
            return true;
        if (r->first < addr && addr <= r->last) {
            struct region hi = *r;
            hi.first = addr;
            r->last = addr - 1;
            return insert_at(i + 1, hi);
        }
    }
    return true;
}

static void merge(void)
{
    unsigned w = 0;
    for (unsigned i = 1; i < nregions; i++) {
        struct region *a = &regions[w], *b = &regions[i];
        if (a->kind == b->kind && a->owner == b->owner && a->last + 1 == b->first)
            a->last = b->last;
        else
            regions[++w] = *b;
    }
    nregions = w + 1;
}

/* Does making `addr` a region start need a new region? */
static bool needs_split(uint64_t addr)
{
    const struct region *r = regions_lookup(addr);
    return r && r->first != addr;
}

/* The number of new regions regions_set(first, last, ...) needs before merging. */
static unsigned splits_for(uint64_t first, uint64_t last)
{
    return needs_split(first) + (last != ~0ull && needs_split(last + 1));
}

bool regions_set(uint64_t first, uint64_t last, enum region_kind kind, uint64_t owner)
{
    /* Check the room first: a failed call changes nothing. */
    if (first > last || nregions + splits_for(first, last) > MAX_REGIONS)
        return false;
    if (!split_at(first) || (last != ~0ull && !split_at(last + 1)))
        return false;
    for (unsigned i = 0; i < nregions; i++)
        if (regions[i].first >= first && regions[i].last <= last) {
            regions[i].kind = kind;
            regions[i].owner = owner;
        }
    merge();
    return true;
}

bool regions_available(uint64_t first, uint64_t last, uint64_t who, bool nonconv)
{
    for (unsigned i = 0; i < nregions; i++) {
        const struct region *r = &regions[i];
        if (r->last < first || r->first > last)
            continue;
        if (r->kind == R_SHARED)
            continue;
        if (r->kind == R_RESERVED)
            return false;
        if (r->owner && r->owner != who)
            return false;
        if (!r->owner && r->kind == R_NONCONV && !nonconv)
            return false;
    }
    return true;
}

/* Every piece of [first, last] that is not shared and whose owner is `who` (mine) or is not
 * (!mine) gets the owner `to`, its kind kept. */
static bool reown(uint64_t first, uint64_t last, uint64_t who, bool mine, uint64_t to)
{
    /* The pieces change one by one; only the first and the last can need a new region, so
     * checking the room for those two up front makes it all or nothing. */
    if (first > last || nregions + splits_for(first, last) > MAX_REGIONS)
        return false;
    for (unsigned i = 0; i < nregions; i++) {
        struct region r = regions[i];
        if (r.last < first || r.first > last || r.kind == R_SHARED || (r.owner == who) != mine)
            continue;
        uint64_t a = r.first > first ? r.first : first, b = r.last < last ? r.last : last;
        if (!regions_set(a, b, r.kind, to))
            return false;
        i = (unsigned)-1;   /* the array changed; rescan (claims are small) */
    }
    return true;
}

bool regions_claim(uint64_t first, uint64_t last, uint64_t who)
{
    return reown(first, last, who, false, who);
}

bool regions_owns_part(uint64_t first, uint64_t last, uint64_t who)
{
    for (unsigned i = 0; i < nregions; i++) {
        const struct region *r = &regions[i];
        if (r->last >= first && r->first <= last && r->kind != R_SHARED && r->owner == who)
            return true;
    }
    return false;
}

bool regions_release(uint64_t first, uint64_t last, uint64_t who)
{
    return reown(first, last, who, true, 0);
}

uint64_t regions_find_free(unsigned log2)
{
    uint64_t size = 1ull << log2;
    for (unsigned i = 0; i < nregions; i++) {
        const struct region *r = &regions[i];
        if (r->kind != R_CONV || r->owner)
            continue;
        uint64_t a = (r->first + size - 1) & ~(size - 1);
        if (a >= r->first && a + size - 1 <= r->last && a + size - 1 >= a)
            return a;
    }
    return ~0ull;
}

const struct region *regions_lookup(uint64_t addr)
{
    for (unsigned i = 0; i < nregions; i++)
        if (regions[i].first <= addr && addr <= regions[i].last)
            return &regions[i];
    return NULL;
}
