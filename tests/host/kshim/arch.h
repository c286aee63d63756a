/* Host stand-in for kernel/arch/x86_64/api/arch.h (found first through -I tests/host/kshim).
 *
 * The generic kernel files under test (mapdb.c, slab.c) include "arch.h"; the real one declares
 * CPU, console, timer and thread interfaces that a host build must not see.  This one provides
 * the same paging part: types, layout, paging.h and pagetable.h (the real ones), and the few
 * arch_* functions the mapping database uses (implemented in kstubs.c). */
#ifndef ARCH_H
#define ARCH_H

#include "types.h"
#include "config.h"
#include "layout.h"
#include "paging.h"
#include "pagetable.h"

bool arch_has_1g_pages(void);
bool arch_has_nx(void);
bool arch_phys_addressable(paddr_t pa);
void arch_iowin_build(pte_t *pdpt, pte_t *pd, pte_t *pt, paddr_t bitmap);   /* iospace_test.c */

#endif
