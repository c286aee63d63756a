/* Host stand-in for kernel/arch/x86_64/api/arch.h (found first through -I tests/host/kshim).
 *
 * The generic kernel files under test (mapdb.c, slab.c) include "arch.h".  The real one is
 * what they get (its declarations are harmless on the host; kstubs.c implements the few arch
 * functions the mapping database calls), with the page-table code's own paging.h, whose entry
 * bits and PML4 slots the harness reads. */
#ifndef HOST_ARCH_H
#define HOST_ARCH_H

#include_next "arch.h"
#include "paging.h"

#endif
