/* Multiboot (version 1) information as handed over by QEMU -kernel or GRUB. */
#ifndef MULTIBOOT_H
#define MULTIBOOT_H

#include "types.h"

#define MULTIBOOT_BOOTLOADER_MAGIC 0x2BADB002

/* The kernel's C entry (boot.S calls it with the loader's EAX and EBX); never returns. */
NORETURN void platform_entry(uint32_t magic, uint32_t info);

struct PACKED multiboot_info {
    uint32_t flags;
    uint32_t mem_lower, mem_upper;
    uint32_t boot_device;
    uint32_t cmdline;
    uint32_t mods_count, mods_addr;
    uint32_t syms[4];
    uint32_t mmap_length, mmap_addr;
    uint32_t drives_length, drives_addr;
    uint32_t config_table;
    uint32_t boot_loader_name;
    uint32_t apm_table;
};

#define MBI_FLAG_MEM     (1u << 0)
#define MBI_FLAG_CMDLINE (1u << 2)
#define MBI_FLAG_MODS    (1u << 3)
#define MBI_FLAG_MMAP    (1u << 6)
#define MBI_FLAG_LOADER  (1u << 9)

struct PACKED multiboot_module {
    uint32_t start, end;
    uint32_t cmdline;
    uint32_t reserved;
};

struct PACKED multiboot_mmap {
    uint32_t size;
    uint64_t addr, len;
    uint32_t type;
};

#endif
