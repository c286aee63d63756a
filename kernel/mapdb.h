/* The mapping database: for every page frame, the tree of mappings derived from it by map and
 * grant (004 appendix A).  Roots are sigma0's identity mappings; every other mapping is a child
 * of the mapping it was made from, so Unmap can revoke recursively. */
#ifndef MAPDB_H
#define MAPDB_H

#include "types.h"
#include "arch.h"

struct space;

struct mapnode {
    struct space *space;
    word_t va;                  /* start of the mapping, aligned to its size */
    pte_t *pte;                 /* its page-table entry (the shadow slot points back here) */
    struct mapnode *parent;     /* NULL for sigma0's roots */
    struct mapnode *child;      /* first derived mapping */
    struct mapnode *next, *prev;/* siblings: mappings derived from the same parent */
    uint8_t level;              /* page-table level of the leaf: 0 = 4 KiB, 1 = 2 MiB, 2 = 1 GiB */
};

/* Outcome of mapping one item. */
enum map_result { MAP_OK, MAP_NOMEM };

/* Map (or grant) the pages of [src_va, src_va + size) of `src` with at most `rights` to
 * `dst` at dst_va.  Pages the source does not have are skipped.  Caller has clipped the
 * ranges to the user area and aligned them to 4 KiB. */
enum map_result mapdb_map(struct space *src, word_t src_va, struct space *dst, word_t dst_va,
                          word_t size, unsigned rights, bool grant);

/* Revoke `rights` from all mappings derived from src's mappings in [va, va + size) and, if
 * `own`, from those mappings too; return the accumulated referenced/written status
 * (as rwx bits) and reset it. */
unsigned mapdb_unmap(struct space *s, word_t va, word_t size, unsigned rights, bool own);

/* Remove every user mapping of s in the range (own included) with everything derived. */
static inline void mapdb_flush_range(struct space *s, word_t va, word_t size, bool own)
{
    mapdb_unmap(s, va, size, 7, own);
}

/* Unmap (contract §4.4.8) of the n fpages (memory or I/O) of s in fpages[]: rights
 * revoked from what was derived from them (and, if `flush`, from s's own mappings); each
 * memory fpage gets back its access status in its rights bits.  Cannot fail. */
void mapdb_unmap_fpages(struct space *s, word_t *fpages, unsigned n, bool flush);

/* sigma0: make sure its identity mapping of [pa, pa + size) exists (creating roots). */
bool mapdb_sigma0_fault(struct space *s, word_t va, bool write);

/* For debugging and tests: number of live mapping nodes. */
word_t mapdb_node_count(void);

#endif
