/* Kernel interface page layout (contract §2). */
#ifndef L4_KIP_H
#define L4_KIP_H

#include "types.h"

#define L4_KIP_MAGIC            0x4BE6344Cu   /* 'L' '4' 0xE6 'K' */
#define L4_KIP_API_VERSION      0x84050000ull  /* X.2, subversion 5 (Pistachio's word) */
#define L4_KIP_API_FLAGS        0x4ull         /* little endian, 64-bit */
#define L4_KIP_KERNEL_ID        0x06010000ull  /* Pecan: id 6, subid 1 */

/* Byte offsets of the KIP fields. */
#define L4_KIP_OFF_MAGIC          0x000
#define L4_KIP_OFF_API_VERSION    0x008
#define L4_KIP_OFF_API_FLAGS      0x010
#define L4_KIP_OFF_KERNEL_VER_PTR 0x018
#define L4_KIP_OFF_KDEBUG_INIT    0x020
#define L4_KIP_OFF_KDEBUG_ENTRY   0x028
#define L4_KIP_OFF_KDEBUG_LOW     0x030
#define L4_KIP_OFF_KDEBUG_HIGH    0x038
#define L4_KIP_OFF_SIGMA0         0x040   /* sp, ip, low, high */
#define L4_KIP_OFF_SIGMA1         0x060
#define L4_KIP_OFF_ROOT           0x080
#define L4_KIP_OFF_MEMORY_INFO    0x0A8
#define L4_KIP_OFF_RESERVED_MEM0  0x0D0
#define L4_KIP_OFF_UTCB_INFO      0x150
#define L4_KIP_OFF_KIP_AREA_INFO  0x158
#define L4_KIP_OFF_BOOT_INFO      0x170
#define L4_KIP_OFF_PROC_DESC_PTR  0x178
#define L4_KIP_OFF_CLOCK_INFO     0x180
#define L4_KIP_OFF_THREAD_INFO    0x188
#define L4_KIP_OFF_PAGE_INFO      0x190
#define L4_KIP_OFF_PROCESSOR_INFO 0x198
#define L4_KIP_OFF_SPACE_CONTROL  0x1A0
#define L4_KIP_OFF_THREAD_CONTROL 0x1A8
#define L4_KIP_OFF_PROC_CONTROL   0x1B0
#define L4_KIP_OFF_MEMORY_CONTROL 0x1B8
#define L4_KIP_OFF_IPC            0x1C0
#define L4_KIP_OFF_LIPC           0x1C8
#define L4_KIP_OFF_UNMAP          0x1D0
#define L4_KIP_OFF_EXREGS         0x1D8
#define L4_KIP_OFF_SYSTEM_CLOCK   0x1E0
#define L4_KIP_OFF_THREAD_SWITCH  0x1E8
#define L4_KIP_OFF_SCHEDULE       0x1F0
#define L4_KIP_OFF_ARCH_SYSCALL0  0x220
#define L4_KIP_FIXED_END          0x240

static inline l4_word_t l4_kip_word(const void *kip, unsigned off)
{
    return *(const l4_word_t *)((const char *)kip + off);
}

/* ThreadInfo: bits 0-7 t, 8-19 SystemBase, 20-31 UserBase. */
static inline unsigned l4_threadinfo_bits(l4_word_t ti)       { return (unsigned)(ti & 0xFF); }
static inline unsigned l4_threadinfo_system_base(l4_word_t ti) { return (unsigned)((ti >> 8) & 0xFFF); }
static inline unsigned l4_threadinfo_user_base(l4_word_t ti)   { return (unsigned)((ti >> 20) & 0xFFF); }

/* UtcbAreaInfo: bits 0-9 m, 10-15 a, 16-21 s.  KipAreaInfo: bits 0-5 s. */
#define L4_KIP_UTCB_INFO      0x000C2801ull
#define L4_KIP_KIP_AREA_INFO  0xCull

/* Memory descriptors (§2.6). */
#define L4_MEMDESC_UNDEFINED     0x0
#define L4_MEMDESC_CONVENTIONAL  0x1
#define L4_MEMDESC_RESERVED      0x2
#define L4_MEMDESC_DEDICATED     0x3
#define L4_MEMDESC_SHARED        0x4
#define L4_MEMDESC_BOOTLOADER    0xE
#define L4_MEMDESC_ARCH          0xF

#define L4_BOOTLOADER_SUB_TABLE   1   /* boot info, MBI copy */
#define L4_BOOTLOADER_SUB_SERVER  2   /* initial server image */
#define L4_BOOTLOADER_SUB_MODULE  3   /* boot module */

struct l4_memdesc {
    l4_word_t lo;   /* bits 0-3 type, 4-7 subtype, 9 virtual, 10-63 low address */
    l4_word_t hi;   /* bits 10-63 high address; range ends at hi | 0x3FF */
};

static inline struct l4_memdesc l4_memdesc_make(l4_word_t low, l4_word_t high_incl,
                                                unsigned type, unsigned subtype, bool virt)
{
    struct l4_memdesc d;
    d.lo = (low & ~0x3FFull) | ((l4_word_t)virt << 9) | ((subtype & 0xF) << 4) | (type & 0xF);
    d.hi = high_incl & ~0x3FFull;
    return d;
}
static inline unsigned  l4_memdesc_type(const struct l4_memdesc *d)    { return d->lo & 0xF; }
static inline unsigned  l4_memdesc_subtype(const struct l4_memdesc *d) { return (d->lo >> 4) & 0xF; }
static inline bool      l4_memdesc_virtual(const struct l4_memdesc *d) { return (d->lo >> 9) & 1; }
static inline l4_word_t l4_memdesc_low(const struct l4_memdesc *d)     { return d->lo & ~0x3FFull; }
static inline l4_word_t l4_memdesc_high(const struct l4_memdesc *d)    { return d->hi | 0x3FF; }

/* Generic boot information (§7.3). */
#define L4_BOOTINFO_MAGIC        0x14B0021Dull
#define L4_BOOTREC_MODULE        0x0001
#define L4_BOOTREC_SIMPLE_EXEC   0x0002
#define L4_BOOTREC_MULTIBOOT     0x0102

struct l4_bootinfo {
    l4_word_t magic, version, size, first_entry, num_entries, reserved[3];
};

struct l4_bootrec {
    l4_word_t type, version, offset_next;
};

struct l4_bootrec_module {
    struct l4_bootrec rec;
    l4_word_t start, size, cmdline_offset;
};

struct l4_bootrec_multiboot {
    struct l4_bootrec rec;
    l4_word_t address;
};

#endif
