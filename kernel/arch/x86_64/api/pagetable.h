/* User page tables, as generic code sees them (part of the interface header, api/arch.h).
 * Below the PML4 every table page is allocated together with a shadow page of the same size
 * holding, per entry, the mapping-database node of that mapping (or NULL for kernel-managed
 * mappings such as the KIP and UTCBs).  Entries are opaque: the pte_* operations below are
 * the only way generic code reads or changes one (the bits are in paging.h). */
#ifndef PAGETABLE_H
#define PAGETABLE_H

#include "types.h"
#include "layout.h"

typedef uint64_t pte_t;

/* The kernel's 1:1 map of physical memory. */
static inline void *phys_to_virt(paddr_t p) { return (void *)(PHYSMAP_BASE + p); }
static inline paddr_t physmap_to_phys(const void *v) { return (word_t)v - PHYSMAP_BASE; }
paddr_t kernel_virt_to_phys(const void *v);     /* kernel image or physmap address */

struct space;
struct mapnode;

/* Levels: 3 = top, 2, 1, 0 = 4 KiB.  A leaf at level l maps 2^(12 + 9l) bytes: a table has
 * PT_ENTRIES entries, and a leaf above level 0 is as large as that many of the next level. */
static inline word_t level_size(unsigned level) { return 1ul << (12 + 9 * level); }
#define PT_ENTRIES 512
#define PT_MAX_LEAF_LEVEL 2     /* 4 KiB, 2 MiB, 1 GiB */

struct pt_ref {
    pte_t *pte;
    struct mapnode **node;      /* the shadow slot */
    unsigned level;
    word_t va;                  /* start of the range the entry maps */
};

enum pt_status { PT_OK = 0, PT_NOMEM, PT_ABSENT, PT_LEAF_ABOVE };

/* The entry for va at `level` (creating tables if `create`). If a larger leaf covers va,
 * returns PT_LEAF_ABOVE with ref describing that leaf. */
enum pt_status pt_walk(struct space *s, word_t va, unsigned level, bool create, struct pt_ref *ref);
/* pt_walk's result for va at level 0 from an earlier one, near (level 0, a table that still
 * exists), without a walk: false unless va is in near's table. */
bool pt_walk_near(const struct pt_ref *near, word_t va, struct pt_ref *ref);
/* The present leaf covering va, if any. */
bool pt_find_leaf(struct space *s, word_t va, struct pt_ref *ref);
/* Call fn for every present leaf that overlaps [start, end) (user half only); fn may clear the
 * entry but must not change the table structure. */
typedef void (*pt_leaf_fn)(struct pt_ref *ref, void *ctx);
void pt_for_each_leaf(struct space *s, word_t start, word_t end, pt_leaf_fn fn, void *ctx);
/* Replace the large leaf at ref by a table of PT_ENTRIES entries of the next level mapping the same
 * frames with the same rights (shadow slots NULL); returns the new table or NULL (no memory). */
pte_t *pt_split_leaf(struct pt_ref *ref);
/* Free the tables below the table entry ref (level >= 1) if no leaf is left in them, and
 * clear the entry: a leaf of ref's level can then take its place.  The caller flushes the
 * TLB for the range.  False (nothing changed) if a leaf remains. */
bool pt_drop_tables(struct pt_ref *ref);
/* Free every user page-table page of s (all leaves must be gone or kernel-managed). */
void pt_free_tables(struct space *s);


/* --- leaf entries -------------------------------------------------------------------- */
/* Access rights and status in X.2's encoding (rwx = 4, 2, 1). */
#define PTE_RIGHTS_R 4u
#define PTE_RIGHTS_W 2u
#define PTE_RIGHTS_X 1u

/* The few entry bits the inline operations below need (paging.h's PTE_P, PTE_A, PTE_D,
 * PTE_PS, PTE_ADDR*); undefined again at the end: generic code calls the operations. */
#define PTE_BIT_PRESENT  (1ul << 0)
#define PTE_BIT_ACCESSED (1ul << 5)
#define PTE_BIT_DIRTY    (1ul << 6)
#define PTE_BIT_LARGE    (1ul << 7)
#define PTE_FRAME_4K     0x000FFFFFFFFFF000ul
#define PTE_FRAME_2M     0x000FFFFFFFE00000ul
#define PTE_FRAME_1G     0x000FFFFFC0000000ul

pte_t pte_make_leaf(paddr_t pa, unsigned rights, unsigned level, unsigned cache_attr);
static inline bool pte_present(pte_t e) { return e & PTE_BIT_PRESENT; }
/* A present entry above level 0 that points to a table rather than mapping a leaf. */
static inline bool pte_is_table(pte_t e, unsigned level)
{
    return (e & PTE_BIT_PRESENT) && level > 0 && !(e & PTE_BIT_LARGE);
}
static inline paddr_t pte_frame(pte_t e, unsigned level)
{
    return e & (level == 0 ? PTE_FRAME_4K : level == 1 ? PTE_FRAME_2M : PTE_FRAME_1G);
}
unsigned pte_rights(pte_t e);
pte_t pte_with_rights(pte_t e, unsigned rights);
/* Referenced/written status as X.2 rights bits (r for accessed, w for dirty; x reported with r
 * for executable mappings, contract decision 12). */
unsigned pte_status(pte_t e);
static inline pte_t pte_clear_status(pte_t e) { return e & ~(PTE_BIT_ACCESSED | PTE_BIT_DIRTY); }
/* e with the status bits of `status` (rights bits as pte_status returns them) added. */
static inline pte_t pte_add_status(pte_t e, unsigned status)
{
    return e | (status & PTE_RIGHTS_R ? PTE_BIT_ACCESSED : 0) |
           (status & PTE_RIGHTS_W ? PTE_BIT_DIRTY : 0);
}
/* A kernel access through the entry, as the CPU would record it. */
static inline pte_t pte_touch(pte_t e, bool write)
{
    return e | PTE_BIT_ACCESSED | (write ? PTE_BIT_DIRTY : 0);
}
unsigned pte_cache_attr(pte_t e, unsigned level);
pte_t pte_with_cache_attr(pte_t e, unsigned level, unsigned attr);

#undef PTE_BIT_PRESENT
#undef PTE_BIT_ACCESSED
#undef PTE_BIT_DIRTY
#undef PTE_BIT_LARGE
#undef PTE_FRAME_4K
#undef PTE_FRAME_2M
#undef PTE_FRAME_1G

#endif
