/* sigma0's view of physical memory: sorted, non-overlapping ranges with a kind and an owner. */
#ifndef REGIONS_H
#define REGIONS_H

#include <stdint.h>
#include <stdbool.h>

enum region_kind {
    R_RESERVED = 0,     /* the kernel's, or undefined: never handed out */
    R_CONV,             /* conventional RAM */
    R_NONCONV,          /* dedicated, boot-loader, architecture-specific: only by address */
    R_SHARED,           /* any number of owners (device memory, VGA, ROM) */
};

struct region {
    uint64_t first, last;       /* inclusive: the whole 64-bit range is representable */
    uint8_t kind;
    uint64_t owner;             /* global thread id, 0 = free */
};

#define MAX_REGIONS 8192

extern struct region regions[MAX_REGIONS];
extern unsigned nregions;

void regions_init(void);
/* Give [first, last] a kind (and no owner), overriding what was there. */
bool regions_set(uint64_t first, uint64_t last, enum region_kind kind, uint64_t owner);
/* May `who` have [first, last]?  Free conventional memory, shared memory and its own are
 * available; free non-conventional memory only if `nonconv` (by request, not on a page
 * fault: contract §6.6). */
bool regions_available(uint64_t first, uint64_t last, uint64_t who, bool nonconv);
/* Record `who` as the owner of [first, last] except where it is shared. */
bool regions_claim(uint64_t first, uint64_t last, uint64_t who);
/* Does `who` own any part of [first, last] (shared memory aside)? */
bool regions_owns_part(uint64_t first, uint64_t last, uint64_t who);
/* Make what `who` owns of [first, last] free again (kinds kept): a claim whose mapping the
 * kernel refused.  False (nothing changed) only if the table has no room for the ends. */
bool regions_release(uint64_t first, uint64_t last, uint64_t who);
/* A free, naturally aligned block of conventional memory of 2^log2 bytes; ~0 if none. */
uint64_t regions_find_free(unsigned log2);
const struct region *regions_lookup(uint64_t addr);

#endif
