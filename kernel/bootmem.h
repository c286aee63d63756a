/* Physical memory at boot: where the kernel pool, the boot data and the initial servers go,
 * and which boot modules must move out of their way, to where. */
#ifndef BOOTMEM_H
#define BOOTMEM_H

#include "types.h"
#include "elf.h"
#include "boot.h"

struct phys_range {
    paddr_t start, end;         /* [start, end) */
};

#define BOOTMEM_SERVERS 2       /* module 0 = sigma0, module 1 = root task */
#define BOOTDATA_SIZE   (4 * 4096ul)

/* The initial servers' KIP and UTCB areas (contract §7.4).  In σ0's identity map the kernel's
 * pages sit there, so σ0 cannot hand out the physical memory behind them: no module and no
 * boot data may lie there (the kernel pool may). */
#define INITIAL_KIP_AREA   0xBFF00000ul
#define INITIAL_UTCB_AREA  0xBF000000ul
#define INITIAL_UTCB_LOG2  18

struct bootmem {
    struct phys_range image;    /* kernel image (text .. bss) */
    struct phys_range pool;     /* kernel memory pool */
    struct phys_range bootdata; /* boot information and the multiboot-info copy */
    struct phys_range server[BOOTMEM_SERVERS];  /* where sigma0 and the root task are loaded */
    struct elf_image elf[BOOTMEM_SERVERS];
    struct phys_range orig_mod[BOOT_MAX_MODULES];   /* module extents before any move */
};

extern struct bootmem bootmem;

void bootmem_init(void);
void bootmem_load_servers(void);

/* Highest aligned [x, x + size) inside a usable region, below `limit`, overlapping none of
 * `busy`; 0 if none.  Pure function, unit-tested on the host. */
paddr_t bootmem_find_top(const struct boot_region *mem, unsigned nmem, word_t size, word_t align,
                         paddr_t limit, const struct phys_range *busy, unsigned nbusy);

/* --- the placement plan (pure, unit-tested on the host) ---------------------------------
 *
 * What must go where: the memory map, ranges nothing may use (`fixed`), ranges no module and
 * no boot data may use (`nodata`; the pool may), the modules as the loader placed them
 * (page-rounded), and the pool and boot-data sizes with their alignment and limits. */
#define BOOTMEM_FIXED_MAX 12    /* fixed plus nodata ranges */

struct bootmem_request {
    const struct boot_region *mem;
    unsigned nmem;
    const struct phys_range *fixed;
    unsigned nfixed;
    const struct phys_range *nodata;
    unsigned nnodata;
    const struct phys_range *mod;       /* at most BOOT_MAX_MODULES */
    unsigned nmod;
    word_t pool_size, pool_align;
    paddr_t pool_limit;                 /* the pool ends at or below it */
    word_t bootdata_size;
    paddr_t bootdata_limit;
};

enum bootmem_status {
    BOOTMEM_OK,
    BOOTMEM_MODULE_OUTSIDE_RAM,         /* the loader put `module` (partly) outside usable RAM */
    BOOTMEM_MODULE_NO_ROOM,             /* `module` must move and fits nowhere */
    BOOTMEM_NO_POOL,
    BOOTMEM_NO_BOOTDATA,
    BOOTMEM_BAD_REQUEST,                /* more ranges than the planner holds */
};

struct bootmem_plan {
    enum bootmem_status status;
    unsigned module;                    /* the module a MODULE_ status is about */
    struct phys_range pool, bootdata;
    struct phys_range mod[BOOT_MAX_MODULES];    /* where each module ends up */
};

/* Modules stay where they are unless they overlap a fixed or nodata range, or the pool; the
 * pool goes where the fewest module bytes must move; a module that must move goes to the
 * highest place it fits, anywhere in RAM (docs/architecture.md, section 1.1).  On failure,
 * `module` names the first module that found no place. */
void bootmem_plan(const struct bootmem_request *rq, struct bootmem_plan *plan);
/* How much more RAM, at the end of the highest usable region, would make the request fit,
 * the pool growing with RAM as pool_for says: a multiple of 1 MiB, the least such found; 0 if
 * it fits already or no amount up to 512 GiB helps. */
word_t bootmem_ram_to_fit(const struct bootmem_request *rq, word_t (*pool_for)(word_t ram));
word_t bootmem_ram_present(const struct boot_region *mem, unsigned nmem);
/* Is all of r usable RAM (possibly across adjacent regions)? */
bool bootmem_in_ram(const struct boot_region *mem, unsigned nmem, struct phys_range r);

bool range_overlaps(struct phys_range a, struct phys_range b);
/* Does [pa, pa + size) touch memory the kernel keeps for itself (image, pool) or the pages
 * of its own devices (arch_kernel_device)?  sigma0 cannot map such memory. */
bool phys_kernel_reserved(paddr_t pa, word_t size);

#endif
