/* Physical memory at boot: where the kernel pool, the boot data and the initial servers go,
 * and moving boot modules out of their way. */
#ifndef BOOTMEM_H
#define BOOTMEM_H

#include "types.h"
#include "elf.h"

struct phys_range {
    paddr_t start, end;         /* [start, end) */
};

#define BOOTMEM_SERVERS 2       /* module 0 = sigma0, module 1 = root task */
#define BOOTDATA_SIZE   (4 * 4096ul)

struct bootmem {
    struct phys_range image;    /* kernel image (text .. bss) */
    struct phys_range pool;     /* kernel memory pool */
    struct phys_range bootdata; /* boot information and the multiboot-info copy */
    struct phys_range server[BOOTMEM_SERVERS];  /* where sigma0 and the root task are loaded */
    struct elf_image elf[BOOTMEM_SERVERS];
    struct phys_range orig_mod[32];             /* module extents before any relocation */
};

extern struct bootmem bootmem;

void bootmem_init(void);
void bootmem_load_servers(void);

/* Highest aligned [x, x + size) inside a usable region, below `limit`, overlapping none of
 * `busy`; 0 if none.  Pure function, unit-tested on the host. */
struct boot_region;
paddr_t bootmem_find_top(const struct boot_region *mem, unsigned nmem, word_t size, word_t align,
                         paddr_t limit, const struct phys_range *busy, unsigned nbusy);

bool range_overlaps(struct phys_range a, struct phys_range b);
/* Does [pa, pa + size) touch memory the kernel keeps for itself (image, pool)? */
bool phys_kernel_reserved(paddr_t pa, word_t size);

#endif
