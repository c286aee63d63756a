/* Boot information for the root task. */
#ifndef BOOTINFO_H
#define BOOTINFO_H

#include "types.h"

paddr_t bootinfo_build(void);
/* Arch: write a copy of the loader's information (as the loader's format) at dst, whose
 * physical address is dst_phys; returns the copy's physical address. */
paddr_t multiboot_build_copy(void *dst, size_t max, paddr_t dst_phys);

#endif
