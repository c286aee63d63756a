/* x86-64 4-level page tables: entry bits and the kernel's own mappings. */
#ifndef PAGING_H
#define PAGING_H

#include "types.h"
#include "config.h"
#include "layout.h"
#include "pagetable.h"

/* PML4 slots of the address map (layout.h). */
#define PML4_PHYSMAP        256
#define PML4_TCB            384
#define PML4_IOWIN          509
#define PML4_USER_KPAGES    510
#define PML4_KERNEL         511
#define PML4_KERNEL_FIRST   256

/* Entry bits: only the page-table code sees them; generic code uses the pte_* operations
 * of api/pagetable.h (whose inline ones repeat the values of P, A, D, PS and the address
 * masks: change them together). */
#define PTE_P     (1ul << 0)
#define PTE_W     (1ul << 1)
#define PTE_U     (1ul << 2)
#define PTE_PWT   (1ul << 3)
#define PTE_PCD   (1ul << 4)
#define PTE_A     (1ul << 5)
#define PTE_D     (1ul << 6)
#define PTE_PS    (1ul << 7)        /* large page (PD, PDPT level) */
#define PTE_PAT4K (1ul << 7)        /* PAT bit in a 4 KiB entry */
#define PTE_G     (1ul << 8)
#define PTE_PATL  (1ul << 12)       /* PAT bit in a large entry */
#define PTE_NX    (1ul << 63)
#define PTE_ADDR  0x000FFFFFFFFFF000ul
#define PTE_ADDR_L2M 0x000FFFFFFFE00000ul
#define PTE_ADDR_L1G 0x000FFFFFC0000000ul

/* Levels: 3 = PML4, 2 = PDPT, 1 = PD, 0 = PT.  A leaf at level l maps 2^(12 + 9l) bytes. */
static inline unsigned pt_index(word_t va, unsigned level) { return (va >> (12 + 9 * level)) & 511; }

extern pte_t *kernel_pml4;
extern paddr_t kernel_pml4_phys;
extern word_t pte_nx;                           /* PTE_NX if the CPU enforces it, else 0 */
extern word_t pte_global;                       /* PTE_G if the CPU has PGE, else 0 */

struct boot_params;
void paging_init(void);
void paging_map_kernel_page(word_t va, paddr_t pa, word_t flags);
paddr_t paging_zero_page(void);

/* Physical frames of the shared TSS window structure (per-space entry 509). */
extern paddr_t iowin_shared_pdpt_phys;

/* An address space's top-level table (physmap address, physical in *phys): a new one shares
 * the kernel half (layout.h), the TSS window included (the shared deny-all I/O bitmap); NULL
 * without memory.  pt_top_kernel: the kernel's own. */
pte_t *pt_top_create(paddr_t *phys);
pte_t *pt_top_kernel(paddr_t *phys);

/* The TSS window of a space with I/O ports (the glue's iospace.c): arch_iowin_build makes
 * pdpt -> pd -> pt map the TSS page and the 8 KiB bitmap at `bitmap`; pt_set_iowin points s's
 * window at the tables whose top page is iowin_top, or at the shared one again (NULL). */
void arch_iowin_build(pte_t *pdpt, pte_t *pd, pte_t *pt, paddr_t bitmap);
void pt_set_iowin(struct space *s, pte_t *iowin_top);

#endif
