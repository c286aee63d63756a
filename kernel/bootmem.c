/* Physical memory decisions at boot.
 *
 * Programs in the X.2 test bar run identity-mapped at fixed physical addresses (sigma0 near
 * 15 MiB, the root task from 16 MiB, scratch memory from 32 MiB), so the kernel keeps its image
 * below 15 MiB and takes its pool from the top of RAM (contract §7.2).  Modules that lie where
 * a server is loaded, in 15-64 MiB, or where the pool goes are moved to high memory. */
#include "bootmem.h"
#include "boot.h"

#ifndef BOOTMEM_HOST_TEST
#include "lib.h"
#include "console.h"
#include "arch.h"
#include "config.h"
#endif

struct bootmem bootmem;

bool range_overlaps(struct phys_range a, struct phys_range b)
{
    return a.start < b.end && b.start < a.end;
}

paddr_t bootmem_find_top(const struct boot_region *mem, unsigned nmem, word_t size, word_t align,
                         paddr_t limit, const struct phys_range *busy, unsigned nbusy)
{
    paddr_t best = 0;
    for (unsigned i = 0; i < nmem; i++) {
        if (mem[i].type != BOOT_MEM_USABLE)
            continue;
        paddr_t lo = mem[i].start, hi = mem[i].end < limit ? mem[i].end : limit;
        if (lo < 0x1000)
            lo = 0x1000;                /* never hand out (part of) physical page 0 */
        /* Walk down from the top of the region, stepping below each busy range we hit. */
        while (hi > lo && hi - lo >= size) {
            paddr_t cand = (hi - size) & ~(align - 1);
            if (cand < lo)
                break;
            struct phys_range r = { cand, cand + size };
            bool clash = false;
            for (unsigned b = 0; b < nbusy; b++) {
                if (range_overlaps(r, busy[b])) {
                    hi = busy[b].start;
                    clash = true;
                    break;
                }
            }
            if (!clash) {
                if (cand > best)
                    best = cand;
                break;
            }
        }
    }
    return best;
}

#ifndef BOOTMEM_HOST_TEST
bool phys_kernel_reserved(paddr_t pa, word_t size)
{
    struct phys_range r = { pa, pa + size };
    return range_overlaps(r, bootmem.image) || range_overlaps(r, bootmem.pool);
}

extern char _image_phys_start[], _bss_end_phys[];

#define LOW_WINDOW_START MB(15)         /* kept free for identity-mapped X.2 programs */
#define LOW_WINDOW_END   MB(64)

static struct phys_range busy[64];
static unsigned nbusy;

static void busy_add(paddr_t start, paddr_t end)
{
    if (nbusy == ARRAY_SIZE(busy))
        panic("bootmem: too many busy ranges");
    busy[nbusy++] = (struct phys_range){ start, end };
}

static bool in_usable_ram(struct phys_range r)
{
    for (unsigned i = 0; i < boot_params.nmem; i++) {
        const struct boot_region *m = &boot_params.mem[i];
        if (m->type == BOOT_MEM_USABLE && m->start <= r.start && r.end <= m->end)
            return true;
    }
    return false;
}

static word_t pool_size(void)
{
    word_t ram = 0;
    for (unsigned i = 0; i < boot_params.nmem; i++)
        if (boot_params.mem[i].type == BOOT_MEM_USABLE)
            ram += boot_params.mem[i].end - boot_params.mem[i].start;
    word_t size = ram / CONFIG_KMEM_FRACTION;
    const char *v;
    if (boot_option("kmem", &v)) {
        const char *end;
        size = strtoul(v, &end, 0);
        if (*end == 'M' || *end == 'm')
            size <<= 20;
        else if (*end == 'K' || *end == 'k')
            size <<= 10;
    }
    size = MAX(size, CONFIG_KMEM_MIN);
    size = MIN(size, CONFIG_KMEM_MAX);
    return ALIGN_UP(size, MB(2));
}

static void parse_servers(void)
{
    if (boot_params.nmod < BOOTMEM_SERVERS)
        panic("boot: need at least two modules (sigma0, root task), got %u", boot_params.nmod);
    for (unsigned i = 0; i < BOOTMEM_SERVERS; i++) {
        struct boot_module *m = &boot_params.mod[i];
        enum elf_error e = elf_parse(phys_to_virt(m->start), m->end - m->start, &bootmem.elf[i]);
        if (e != ELF_OK)
            panic("boot: module %u (%s): %s", i, m->cmdline, elf_strerror(e));
        struct phys_range r = { ALIGN_DOWN(bootmem.elf[i].plow, PAGE_SIZE),
                                ALIGN_UP(bootmem.elf[i].phigh, PAGE_SIZE) };
        if (!in_usable_ram(r))
            panic("boot: module %u (%s) is linked at %lx-%lx, which is not usable RAM",
                  i, m->cmdline, r.start, r.end);
        if (range_overlaps(r, bootmem.image))
            panic("boot: module %u (%s) overlaps the kernel image", i, m->cmdline);
        for (unsigned j = 0; j < i; j++)
            if (range_overlaps(r, bootmem.server[j]))
                panic("boot: modules %u and %u are linked at overlapping addresses", j, i);
        bootmem.server[i] = r;
    }
}

/* Move modules that sit where something else must go. */
static void relocate_modules(void)
{
    struct phys_range low = { LOW_WINDOW_START, LOW_WINDOW_END };
    for (unsigned i = 0; i < boot_params.nmod; i++) {
        struct boot_module *m = &boot_params.mod[i];
        struct phys_range r = { ALIGN_DOWN(m->start, PAGE_SIZE), ALIGN_UP(m->end, PAGE_SIZE) };
        bool move = range_overlaps(r, low) || range_overlaps(r, bootmem.pool) ||
                    range_overlaps(r, bootmem.bootdata);
        for (unsigned s = 0; s < BOOTMEM_SERVERS; s++)
            move |= range_overlaps(r, bootmem.server[s]);
        if (!move)
            continue;
        word_t size = r.end - r.start;
        paddr_t to = bootmem_find_top(boot_params.mem, boot_params.nmem, size, PAGE_SIZE,
                                      bootmem.bootdata.start, busy, nbusy);
        if (!to)
            panic("boot: no room to move module %u (%s, %lu KiB)", i, m->cmdline, size >> 10);
        memmove(phys_to_virt(to), phys_to_virt(r.start), size);
        paddr_t delta = m->start - r.start;
        m->start = to + delta;
        m->end = to + delta + (bootmem.orig_mod[i].end - bootmem.orig_mod[i].start);
        busy_add(to, to + size);
    }
}

void bootmem_init(void)
{
    bootmem.image = (struct phys_range){ (paddr_t)_image_phys_start,
                                         ALIGN_UP((paddr_t)_bss_end_phys, PAGE_SIZE) };
    if (bootmem.image.end > LOW_WINDOW_START)
        panic("boot: kernel image reaches beyond 15 MiB");

    parse_servers();
    nbusy = 0;
    busy_add(0, MB(1));                 /* real-mode area, BIOS data, VGA, ROMs */
    busy_add(bootmem.image.start, bootmem.image.end);
    busy_add(LOW_WINDOW_START, LOW_WINDOW_END);
    for (unsigned s = 0; s < BOOTMEM_SERVERS; s++)
        busy_add(bootmem.server[s].start, bootmem.server[s].end);
    for (unsigned i = 0; i < boot_params.nmod; i++) {
        bootmem.orig_mod[i] = (struct phys_range){ boot_params.mod[i].start, boot_params.mod[i].end };
        busy_add(ALIGN_DOWN(boot_params.mod[i].start, PAGE_SIZE),
                 ALIGN_UP(boot_params.mod[i].end, PAGE_SIZE));
    }
    /* The loader's information structure (already copied) may be overwritten now. */

    /* The pool goes to the top of RAM below 4 GiB; modules in its way move below it. */
    word_t size = pool_size();
    unsigned nbusy_fixed = nbusy - boot_params.nmod;
    paddr_t pool = bootmem_find_top(boot_params.mem, boot_params.nmem, size, MB(2), GB(4),
                                    busy, nbusy_fixed);
    if (!pool)
        panic("boot: no room for a %lu MiB kernel memory pool", size >> 20);
    bootmem.pool = (struct phys_range){ pool, pool + size };
    busy_add(pool, pool + size);
    /* The boot data goes below the pool, avoiding the fixed ranges and the pool (not the
     * modules: those in its way move). */
    struct phys_range avoid[ARRAY_SIZE(busy)];
    memcpy(avoid, busy, nbusy_fixed * sizeof(avoid[0]));
    avoid[nbusy_fixed] = bootmem.pool;
    paddr_t bd = bootmem_find_top(boot_params.mem, boot_params.nmem, BOOTDATA_SIZE, PAGE_SIZE,
                                  GB(4), avoid, nbusy_fixed + 1);
    if (!bd)
        panic("boot: no room for the boot information");
    bootmem.bootdata = (struct phys_range){ bd, bd + BOOTDATA_SIZE };
    busy_add(bd, bd + BOOTDATA_SIZE);
    relocate_modules();
}

/* Copy sigma0 and the root task to their physical load addresses. */
void bootmem_load_servers(void)
{
    for (unsigned i = 0; i < BOOTMEM_SERVERS; i++) {
        const struct boot_module *m = &boot_params.mod[i];
        const struct elf_image *img = &bootmem.elf[i];
        for (unsigned s = 0; s < img->nseg; s++) {
            const struct elf_segment *seg = &img->seg[s];
            memmove(phys_to_virt(seg->paddr), phys_to_virt(m->start + seg->offset), seg->filesz);
            memset(phys_to_virt(seg->paddr + seg->filesz), 0, seg->memsz - seg->filesz);
        }
    }
}
#endif
