/* What the boot loader told us, in a loader-independent form (filled by the platform:
 * arch_read_boot_params, api/platform.h). */
#ifndef BOOT_H
#define BOOT_H

#include "types.h"

#define BOOT_MAX_REGIONS 64
#define BOOT_MAX_MODULES 32
#define BOOT_CMDLINE_MAX 256

/* Region types follow the multiboot/BIOS memory map: 1 = usable RAM, others reserved. */
#define BOOT_MEM_USABLE 1

struct boot_region {
    paddr_t start, end;         /* [start, end) */
    unsigned type;
};

struct boot_module {
    paddr_t start, end;         /* current location, [start, end) */
    char cmdline[BOOT_CMDLINE_MAX];
};

struct boot_params {
    struct boot_region mem[BOOT_MAX_REGIONS];
    unsigned nmem;
    struct boot_module mod[BOOT_MAX_MODULES];
    unsigned nmod;
    char cmdline[BOOT_CMDLINE_MAX];
    char loader[64];
    paddr_t mbi_phys;           /* the loader's information structure, to be copied for BootInfo */
    size_t mbi_size;
};

extern struct boot_params boot_params;

/* The generic kernel's start (main.c), once the platform's entry has what the loader
 * handed over. */
NORETURN void kmain(void);

/* Kernel command-line options ("key=value" words). */
bool boot_option(const char *key, const char **value);

#endif
