/* Host harness for the mapping database: the real kernel/mapdb.c, kernel/arch/x86_64/pagetable.c,
 * kernel/slab.c and kernel/kmem.c (unmodified) run on an mmap'ed "physical memory" arena.
 *
 *  - physical memory: an mmap'ed arena holding the kernel pool (page tables, shadow pages,
 *    slabs of mapping nodes) at H_POOL_PHYS; phys_to_virt(p) = arena + (p - H_POOL_PHYS).
 *    The rest of the physical address space (the frames user mappings point to) is an
 *    inaccessible reservation, so any attempt to dereference a user frame crashes the test.
 *  - kernel functions outside the units under test are stubs with knobs (kstubs.c):
 *    TLB invalidations are recorded, the KIP/UTCB areas are read from struct space like the
 *    kernel does, reserved physical memory and the addressable limit are configurable.
 *  - checks: an independent walk of the page tables verifies the mapping-node tree. */
#ifndef MAPDB_HARNESS_H
#define MAPDB_HARNESS_H

#include "types.h"
#include "mapdb.h"
#include "space.h"
#include "kmem.h"
#include "pagetable.h"

#define H_POOL_PHYS   0x40000000ul      /* the kernel pool: physical 1 GiB .. 1 GiB + 32 MiB */
#define H_POOL_SIZE   (32ul << 20)
#define H_USER_END    0x0000800000000000ul

#define H_R 4u
#define H_W 2u
#define H_X 1u

/* --- knobs of the stubs ---------------------------------------------------------------- */
extern bool h_has_1g;                   /* arch_has_1g_pages() */
extern paddr_t h_phys_limit;            /* arch_phys_addressable(pa): pa < h_phys_limit */
void h_reserve(paddr_t start, paddr_t end);     /* phys_kernel_reserved: also [start, end) */
void h_reserve_clear(void);                     /* only the pool stays reserved */

struct h_inval {
    struct space *s;
    word_t va, size;
};
#define H_MAX_INVALS 65536
extern struct h_inval h_invals[H_MAX_INVALS];
extern unsigned h_ninvals;
extern bool h_invals_overflowed;
void h_inval_reset(void);
/* Was [va, va + size) of s invalidated since the last reset? (true if the log overflowed) */
bool h_inval_covers(const struct space *s, word_t va, word_t size);

/* --- setup ----------------------------------------------------------------------------- */
void h_init(void);                      /* once per process: arena, kmem_init */
struct space *h_space_new(bool sigma0);
/* Flush everything of s (own mappings too), remove kernel leaves, free its tables. */
void h_space_destroy(struct space *s);
/* Set the KIP/UTCB area of s (fpage encoding as in struct space). */
void h_set_areas(struct space *s, word_t kip_base, unsigned kip_log2, word_t utcb_base, unsigned utcb_log2);
/* A kernel-managed 4 KiB leaf (no mapping node), like the KIP page or a UTCB frame. */
bool h_kernel_leaf(struct space *s, word_t va, paddr_t pa, unsigned rights);

/* --- looking at the page tables -------------------------------------------------------- */
struct h_page {
    bool present;
    paddr_t frame;                      /* of the 4 KiB page containing va */
    unsigned rights;                    /* decoded from the entry: r=4 w=2 x=1 */
    unsigned level;                     /* leaf level: 0 = 4 KiB, 1 = 2 MiB, 2 = 1 GiB */
    word_t leaf_va;                     /* start of the leaf */
    pte_t *pte;
    struct mapnode *node;               /* the shadow slot (NULL: kernel-managed) */
};
struct h_page h_get(struct space *s, word_t va);
unsigned h_rights_of(pte_t e);          /* independent decoding of a leaf's rights */
/* Set hardware status bits on the leaf covering va (as the CPU would on access). */
void h_touch(struct space *s, word_t va, bool accessed, bool dirty);

/* Every present leaf of s (user half), in address order. */
typedef void (*h_leaf_fn)(struct space *s, pte_t *pte, struct mapnode **slot, unsigned level,
                          word_t va, void *ctx);
void h_walk(struct space *s, h_leaf_fn fn, void *ctx);

/* Leaves may carry cache-attribute bits (PWT, PCD, PAT) only if this is set. */
extern bool h_allow_cache_bits;

/* Verify the page tables of the given spaces and the mapping tree: shadow slots, node fields,
 * parent/child/sibling links, frames and rights within the parent's, levels, leaf bits, and
 * mapdb_node_count() = number of nodes found.  Prints a FAIL line per problem (at most `limit`)
 * and returns the number of problems. */
unsigned h_check_tree(struct space **spaces, unsigned n, const char *when);

/* Name of a space for messages (set by the test). */
void h_name(struct space *s, const char *name);
const char *h_name_of(const struct space *s);

#endif
