/* Boot information for the root task. */
#ifndef BOOTINFO_H
#define BOOTINFO_H

#include "types.h"

paddr_t bootinfo_build(void);

#endif
