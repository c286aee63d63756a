/* The kernel interface page (contract §2). */
#ifndef KIP_H
#define KIP_H

#include "types.h"
#include <l4/kip.h>

extern uint8_t kip_page[4096];

void kip_init(void);            /* fixed fields and the kernel descriptor */
void kip_set_memory(void);      /* memory descriptors, after boot memory is laid out */
void kip_set_servers(void);     /* sigma0 / root task entries */
void kip_set_bootinfo(paddr_t bootinfo);
void kip_set_clock(uint64_t tsc_khz, uint64_t bus_khz);
paddr_t kip_phys(void);
unsigned kip_system_base(void);
unsigned kip_user_base(void);

#endif
