/* Forced include (gcc -include) for kernel sources compiled on the host.
 *
 * paging.h is included from kernel/arch/x86_64 itself (pagetable.h: #include "paging.h"), where
 * a quoted include finds the real file first, so it cannot be shadowed by an include path.
 * Instead this prelude includes the real layout.h first (its guard then keeps it from being
 * read again) and replaces PHYSMAP_BASE with a variable: phys_to_virt(p) = arena + p, where
 * the arena is the test's "physical memory" (kshim/kstubs.c). */
#ifndef HOST_PRELUDE_H
#define HOST_PRELUDE_H

#include "layout.h"

#undef PHYSMAP_BASE
extern unsigned long host_physmap_base;
#define PHYSMAP_BASE host_physmap_base

#endif
