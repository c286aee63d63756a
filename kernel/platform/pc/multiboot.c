/* The PC's boot loaders speak multiboot (version 1): the kernel's C entry, which keeps the
 * loader's two words for kmain; the multiboot information read into boot_params while the
 * boot page tables (identity map of the first GiB plus the same GiB at KERNEL_VMA) are still
 * in place; and the copy of it BootInfo points to. */
#include "platform.h"
#include "multiboot.h"
#include "boot.h"
#include "layout.h"
#include "console.h"
#include "lib.h"

static uint32_t loader_magic, loader_info;

/* From boot.S, in long mode on the boot stack: EAX and EBX as the loader left them. */
void platform_entry(uint32_t magic, uint32_t info)
{
    loader_magic = magic;
    loader_info = info;
    kmain();
}

/* Loader structures lie in the first GiB; read them through the kernel-half alias. */
static const void *early_phys(paddr_t p)
{
    if (p >= GB(1))
        panic("multiboot: structure at %lx is beyond the first GiB", p);
    return (const void *)(KERNEL_VMA_BASE + p);
}

static void copy_string(char *dst, size_t size, paddr_t src)
{
    const char *s = early_phys(src);
    size_t i = 0;
    for (; i + 1 < size && s[i]; i++)
        dst[i] = s[i];
    dst[i] = 0;
}

void arch_read_boot_params(void)
{
    struct boot_params *bp = &boot_params;
    paddr_t mbi_phys = loader_info;
    if (loader_magic != MULTIBOOT_BOOTLOADER_MAGIC)
        panic("not started by a multiboot loader (magic %x)", loader_magic);
    const struct multiboot_info *mbi = early_phys(mbi_phys);
    bp->mbi_phys = mbi_phys;
    bp->mbi_size = sizeof(*mbi);

    if (mbi->flags & MBI_FLAG_CMDLINE)
        copy_string(bp->cmdline, sizeof(bp->cmdline), mbi->cmdline);
    if (mbi->flags & MBI_FLAG_LOADER)
        copy_string(bp->loader, sizeof(bp->loader), mbi->boot_loader_name);

    if (mbi->flags & MBI_FLAG_MMAP) {
        for (word_t off = 0; off < mbi->mmap_length && bp->nmem < BOOT_MAX_REGIONS; ) {
            const struct multiboot_mmap *m = early_phys(mbi->mmap_addr + off);
            if (m->len) {
                struct boot_region *r = &bp->mem[bp->nmem++];
                r->start = m->addr;
                r->end = m->addr + m->len;
                r->type = m->type;
            }
            off += m->size + 4;
        }
    } else if (mbi->flags & MBI_FLAG_MEM) {
        bp->mem[0] = (struct boot_region){ 0, (paddr_t)mbi->mem_lower << 10, BOOT_MEM_USABLE };
        bp->mem[1] = (struct boot_region){ MB(1), MB(1) + ((paddr_t)mbi->mem_upper << 10), BOOT_MEM_USABLE };
        bp->nmem = 2;
    } else {
        panic("multiboot: no memory information");
    }

    if (mbi->flags & MBI_FLAG_MODS) {
        const struct multiboot_module *mods = early_phys(mbi->mods_addr);
        if (mbi->mods_count > BOOT_MAX_MODULES)
            panic("multiboot: %u modules, at most %u supported", mbi->mods_count, BOOT_MAX_MODULES);
        for (unsigned i = 0; i < mbi->mods_count; i++) {
            struct boot_module *m = &bp->mod[bp->nmod++];
            m->start = mods[i].start;
            m->end = mods[i].end;
            if (mods[i].cmdline)
                copy_string(m->cmdline, sizeof(m->cmdline), mods[i].cmdline);
        }
    }
}

/* A multiboot-info copy reflecting what the kernel did (modules possibly moved). */
paddr_t arch_loader_info_copy(void *dst, size_t max, paddr_t dst_phys)
{
    const struct boot_params *bp = &boot_params;
    uint8_t *p = dst;
    size_t off = ALIGN_UP(sizeof(struct multiboot_info), 16);
    struct multiboot_info *mbi = dst;
    memset(mbi, 0, sizeof(*mbi));
    mbi->flags = MBI_FLAG_MMAP | MBI_FLAG_MODS | MBI_FLAG_CMDLINE;

    struct multiboot_mmap *mm = (struct multiboot_mmap *)(p + off);
    mbi->mmap_addr = (uint32_t)(dst_phys + off);
    for (unsigned i = 0; i < bp->nmem; i++) {
        mm[i].size = sizeof(mm[i]) - 4;
        mm[i].addr = bp->mem[i].start;
        mm[i].len = bp->mem[i].end - bp->mem[i].start;
        mm[i].type = bp->mem[i].type;
    }
    mbi->mmap_length = bp->nmem * sizeof(*mm);
    off = ALIGN_UP(off + mbi->mmap_length, 16);

    struct multiboot_module *mods = (struct multiboot_module *)(p + off);
    mbi->mods_addr = (uint32_t)(dst_phys + off);
    mbi->mods_count = bp->nmod;
    off += bp->nmod * sizeof(*mods);
    for (unsigned i = 0; i < bp->nmod; i++) {
        size_t len = strlen(bp->mod[i].cmdline) + 1;
        if (off + len + 256 > max) {
            mbi->mods_count = i;        /* out of room: describe only the modules copied */
            break;
        }
        /* Multiboot 1 has 32-bit addresses: a module the kernel moved above 4 GiB is listed
         * as 0-0 (the boot information's Module records have its place). */
        bool low = bp->mod[i].end <= GB(4);
        mods[i].start = low ? (uint32_t)bp->mod[i].start : 0;
        mods[i].end = low ? (uint32_t)bp->mod[i].end : 0;
        mods[i].cmdline = (uint32_t)(dst_phys + off);
        memcpy(p + off, bp->mod[i].cmdline, len);
        off += len;
    }
    mbi->cmdline = (uint32_t)(dst_phys + off);
    memcpy(p + off, bp->cmdline, strlen(bp->cmdline) + 1);
    return dst_phys;
}
