/* The kernel interface page: one page, mapped read-only at the KIP area of every space. */
#include "kip.h"
#include "boot.h"
#include "bootmem.h"
#include "arch.h"
#include "glue.h"
#include "platform.h"
#include "irq.h"
#include "lib.h"
#include "console.h"
#include "version.h"

uint8_t kip_page[4096] __attribute__((aligned(4096)));

#define PROC_DESC_OFFSET   0x240
#define KERNEL_DESC_OFFSET 0x260
#define MEMDESC_MAX        64

static word_t *kw(unsigned off) { return (word_t *)(kip_page + off); }

paddr_t kip_phys(void) { return kernel_virt_to_phys(kip_page); }

unsigned kip_system_base(void) { return irq_count(); }
unsigned kip_user_base(void)   { return irq_count() + CONFIG_USERBASE_OFFSET; }

static unsigned memdesc_offset;

void kip_init(void)
{
    memset(kip_page, 0, sizeof(kip_page));
    *(uint32_t *)kip_page = L4_KIP_MAGIC;
    *kw(L4_KIP_OFF_API_VERSION) = L4_KIP_API_VERSION;
    *kw(L4_KIP_OFF_API_FLAGS) = L4_KIP_API_FLAGS;
    *kw(L4_KIP_OFF_KERNEL_VER_PTR) = KERNEL_DESC_OFFSET;
    *kw(L4_KIP_OFF_UTCB_INFO) = L4_KIP_UTCB_INFO;
    *kw(L4_KIP_OFF_KIP_AREA_INFO) = L4_KIP_KIP_AREA_INFO;
    *kw(L4_KIP_OFF_PROC_DESC_PTR) = PROC_DESC_OFFSET;
    *kw(L4_KIP_OFF_CLOCK_INFO) = ((word_t)CONFIG_TICK_US << 16) | 1;
    *kw(L4_KIP_OFF_THREAD_INFO) = CONFIG_THREAD_BITS | ((word_t)kip_system_base() << 8) |
                                  ((word_t)kip_user_base() << 20);
    /* PageInfo: bit n set <=> 2^n is a page size mappings use; bits 0-2 the rights enforced.
     * 1 GiB leaves are supported by the mapping database, but σ0's roots are at most 2 MiB, so
     * no mapping is ever that large: not advertised (the contract's value, §2). */
    *kw(L4_KIP_OFF_PAGE_INFO) = (1ul << PAGE_BITS) | (1ul << SUPERPAGE_BITS) |
                                PTE_RIGHTS_R | PTE_RIGHTS_W | (arch_has_nx() ? PTE_RIGHTS_X : 0);
    *kw(L4_KIP_OFF_PROCESSOR_INFO) = (5ul << 60) | 0;       /* one CPU, 32-byte descriptors */

    /* System-call links: the stubs are arch code (arch_syscall_link). */
    static const unsigned calls[] = {
        L4_KIP_OFF_SPACE_CONTROL, L4_KIP_OFF_THREAD_CONTROL, L4_KIP_OFF_PROC_CONTROL,
        L4_KIP_OFF_MEMORY_CONTROL, L4_KIP_OFF_IPC, L4_KIP_OFF_LIPC, L4_KIP_OFF_UNMAP,
        L4_KIP_OFF_EXREGS, L4_KIP_OFF_SYSTEM_CLOCK, L4_KIP_OFF_THREAD_SWITCH,
        L4_KIP_OFF_SCHEDULE,
    };
    for (unsigned i = 0; i < ARRAY_SIZE(calls); i++)
        *kw(calls[i]) = arch_syscall_link(calls[i]);

    /* Kernel descriptor: id, generation date, version, supplier, version string, and an
     * empty feature list (contract §2.4: any feature string misleads libl4). */
    word_t *kd = kw(KERNEL_DESC_OFFSET);
    kd[0] = L4_KIP_KERNEL_ID;
    kd[1] = PECAN_BUILD_DAY | (PECAN_BUILD_MONTH << 5) | ((PECAN_BUILD_YEAR - 2000) << 9);
    kd[2] = ((word_t)PECAN_VERSION_MAJOR << 24) | ((word_t)PECAN_VERSION_MINOR << 16);
    memcpy(&kd[3], "PECN", 4);
    char *str = (char *)&kd[4];
    size_t n = strlen(PECAN_VERSION_STRING);
    memcpy(str, PECAN_VERSION_STRING, n + 1);
    str[n + 1] = 0;                                         /* end of the feature list */
    memdesc_offset = ALIGN_UP(KERNEL_DESC_OFFSET + 32 + n + 2, 16);
}

void kip_set_clock(uint64_t tsc_khz, uint64_t bus_khz)
{
    word_t *pd = kw(PROC_DESC_OFFSET);
    pd[0] = bus_khz;
    pd[1] = tsc_khz;
}

void kip_set_servers(void)
{
    static const unsigned off[2] = { L4_KIP_OFF_SIGMA0, L4_KIP_OFF_ROOT };
    for (unsigned i = 0; i < BOOTMEM_SERVERS; i++) {
        word_t *e = kw(off[i]);
        e[0] = 0;                                       /* sp: the servers set their own */
        e[1] = bootmem.elf[i].entry;
        e[2] = bootmem.server[i].start;
        e[3] = bootmem.server[i].end;
    }
    *kw(L4_KIP_OFF_RESERVED_MEM0) = bootmem.image.start;
    *kw(L4_KIP_OFF_RESERVED_MEM0 + 8) = bootmem.image.end;
}

void kip_set_bootinfo(paddr_t bootinfo)
{
    *kw(L4_KIP_OFF_BOOT_INFO) = bootinfo;
}

static unsigned nmemdesc;

static void memdesc(paddr_t lo, paddr_t hi_excl, unsigned type, unsigned sub, bool virt)
{
    if (hi_excl <= lo)
        return;
    if (memdesc_offset + (nmemdesc + 1) * 16 > sizeof(kip_page) || nmemdesc == MEMDESC_MAX)
        panic("kip: too many memory descriptors");
    struct l4_memdesc *d = (struct l4_memdesc *)(kip_page + memdesc_offset) + nmemdesc++;
    *d = l4_memdesc_make(lo, hi_excl - 1, type, sub, virt);
}

/* Contract §7.2: later descriptors override earlier ones where they overlap. */
void kip_set_memory(void)
{
    nmemdesc = 0;
    memdesc(0, ~0ul, L4_MEMDESC_SHARED, 0, false);
    for (unsigned i = 0; i < boot_params.nmem; i++) {
        const struct boot_region *r = &boot_params.mem[i];
        paddr_t lo = ALIGN_UP(r->start, 1024), hi = ALIGN_DOWN(r->end, 1024);
        if (r->type == BOOT_MEM_USABLE)
            memdesc(lo, hi, L4_MEMDESC_CONVENTIONAL, 0, false);
        else
            memdesc(ALIGN_DOWN(r->start, 1024), ALIGN_UP(r->end, 1024), L4_MEMDESC_ARCH,
                    r->type & 0xF, false);
    }
    paddr_t lo, hi;
    for (unsigned i = 0; arch_shared_memory(i, &lo, &hi); i++)
        memdesc(lo, hi, L4_MEMDESC_SHARED, 0, false);
    memdesc(bootmem.image.start, bootmem.image.end, L4_MEMDESC_RESERVED, 0, false);
    memdesc(bootmem.pool.start, bootmem.pool.end, L4_MEMDESC_RESERVED, 0, false);
    /* The kernel's devices are its own as its memory is: nobody may map them. */
    for (unsigned i = 0; arch_kernel_device(i, &lo, &hi); i++)
        memdesc(lo, hi, L4_MEMDESC_RESERVED, 0, false);
    for (unsigned i = 0; i < BOOTMEM_SERVERS; i++)
        memdesc(bootmem.server[i].start, bootmem.server[i].end, L4_MEMDESC_BOOTLOADER,
                L4_BOOTLOADER_SUB_SERVER, false);
    for (unsigned i = 0; i < boot_params.nmod; i++)
        memdesc(ALIGN_DOWN(boot_params.mod[i].start, 1024), ALIGN_UP(boot_params.mod[i].end, 1024),
                L4_MEMDESC_BOOTLOADER, L4_BOOTLOADER_SUB_MODULE, false);
    memdesc(bootmem.bootdata.start, bootmem.bootdata.end, L4_MEMDESC_BOOTLOADER,
            L4_BOOTLOADER_SUB_TABLE, false);
    memdesc(0, L4_USER_AREA_END, L4_MEMDESC_CONVENTIONAL, 0, true);
    *kw(L4_KIP_OFF_MEMORY_INFO) = ((word_t)memdesc_offset << 32) | nmemdesc;
}
