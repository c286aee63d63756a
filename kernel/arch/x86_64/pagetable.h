/* User page tables.  Below the PML4 every table page is allocated together with a shadow page
 * of the same size holding, per entry, the mapping-database node of that mapping (or NULL for
 * kernel-managed mappings such as the KIP and UTCBs). */
#ifndef PAGETABLE_H
#define PAGETABLE_H

#include "types.h"
#include "paging.h"

struct space;
struct mapnode;

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
/* The present leaf covering va, if any. */
bool pt_find_leaf(struct space *s, word_t va, struct pt_ref *ref);
/* Call fn for every present leaf that overlaps [start, end) (user half only); fn may clear the
 * entry but must not change the table structure. */
typedef void (*pt_leaf_fn)(struct pt_ref *ref, void *ctx);
void pt_for_each_leaf(struct space *s, word_t start, word_t end, pt_leaf_fn fn, void *ctx);
/* Replace the large leaf at ref by a table of 512 entries of the next level mapping the same
 * frames with the same rights (shadow slots NULL); returns the new table or NULL (no memory). */
pte_t *pt_split_leaf(struct pt_ref *ref);
/* Free the tables below the table entry ref (level >= 1) if no leaf is left in them, and
 * clear the entry: a leaf of ref's level can then take its place.  The caller flushes the
 * TLB for the range.  False (nothing changed) if a leaf remains. */
bool pt_drop_tables(struct pt_ref *ref);
/* Free every user page-table page of s (all leaves must be gone or kernel-managed). */
void pt_free_tables(struct space *s);

/* --- leaf entries -------------------------------------------------------------------- */
#define PTE_RIGHTS_R 4u
#define PTE_RIGHTS_W 2u
#define PTE_RIGHTS_X 1u

pte_t pte_make_leaf(paddr_t pa, unsigned rights, unsigned level, unsigned cache_attr);
static inline bool pte_present(pte_t e) { return e & PTE_P; }
static inline paddr_t pte_frame(pte_t e, unsigned level)
{
    return e & (level == 0 ? PTE_ADDR : level == 1 ? PTE_ADDR_L2M : PTE_ADDR_L1G);
}
unsigned pte_rights(pte_t e);
pte_t pte_kernel_only(pte_t e);
pte_t pte_with_rights(pte_t e, unsigned rights);
/* Referenced/written status as X.2 rights bits (r for accessed, w for dirty; x reported with r
 * for executable mappings, contract decision 12). */
unsigned pte_status(pte_t e);
static inline pte_t pte_clear_status(pte_t e) { return e & ~(PTE_A | PTE_D); }
unsigned pte_cache_attr(pte_t e, unsigned level);
pte_t pte_with_cache_attr(pte_t e, unsigned level, unsigned attr);

#endif
