/* The kernel's own address space: physmap, kernel image, TCB array, user-visible kernel pages
 * and the TSS window.  Built once at boot from a static pool of page-table pages; afterwards the
 * kernel half never changes above the leaf level, so every space can share it. */
#include "paging.h"
#include "x86.h"
#include "cpu.h"
#include "boot.h"
#include "console.h"
#include "lib.h"
#include "kmem.h"
#include "space.h"

#define BOOT_TABLES 48

static uint8_t boot_tables[BOOT_TABLES][PAGE_SIZE] __attribute__((aligned(4096)));
static unsigned boot_tables_used;

pte_t *kernel_pml4;
paddr_t kernel_pml4_phys;
word_t pte_nx;
word_t pte_global;
paddr_t iowin_shared_pdpt_phys;

/* Pages with fixed roles, shared by all spaces. */
static uint8_t zero_page[PAGE_SIZE] __attribute__((aligned(4096)));
static uint8_t ones_page[PAGE_SIZE] __attribute__((aligned(4096)));
uint8_t gs_page[PAGE_SIZE] __attribute__((aligned(4096)));

extern char _text_start[], _text_end[], _user_text_start[], _user_text_end[];
extern char _rodata_start[], _rodata_end[], _data_start[], _kernel_end[];

paddr_t kernel_virt_to_phys(const void *v)
{
    word_t a = (word_t)v;
    if (a >= KERNEL_VMA_BASE)
        return a - KERNEL_VMA_BASE;
    if (a >= PHYSMAP_BASE && a < PHYSMAP_BASE + PHYSMAP_MAX)
        return a - PHYSMAP_BASE;
    panic("kernel_virt_to_phys: %p is not a kernel address", v);
}

paddr_t paging_zero_page(void)
{
    return kernel_virt_to_phys(zero_page);
}

static pte_t *boot_table(void)
{
    if (boot_tables_used == BOOT_TABLES)
        panic("paging: out of boot page tables (too much physical memory without 1 GiB pages)");
    return (pte_t *)boot_tables[boot_tables_used++];
}

/* Walk to the table at `level` for va, creating intermediate tables from the boot pool. */
static pte_t *walk_create(word_t va, unsigned level, word_t table_flags)
{
    pte_t *t = kernel_pml4;
    for (unsigned l = 3; l > level; l--) {
        pte_t *e = &t[pt_index(va, l)];
        if (!(*e & PTE_P))
            *e = kernel_virt_to_phys(boot_table()) | PTE_P | PTE_W | table_flags;
        t = (pte_t *)(KERNEL_VMA_BASE + (*e & PTE_ADDR));   /* boot tables live in the image */
    }
    return &t[pt_index(va, level)];
}

void paging_map_kernel_page(word_t va, paddr_t pa, word_t flags)
{
    pte_t *e = walk_create(va, 0, 0);
    *e = pa | PTE_P | flags;
    invlpg(va);
}

static bool range_has_ram(paddr_t start, paddr_t end)
{
    for (unsigned i = 0; i < boot_params.nmem; i++) {
        const struct boot_region *r = &boot_params.mem[i];
        if (r->type == BOOT_MEM_USABLE && r->start < end && r->end > start)
            return true;
    }
    return false;
}

static void map_physmap(void)
{
    paddr_t end = GB(4);
    for (unsigned i = 0; i < boot_params.nmem; i++)
        if (boot_params.mem[i].type == BOOT_MEM_USABLE && boot_params.mem[i].end > end)
            end = boot_params.mem[i].end;
    end = ALIGN_UP(end, GB(1));
    if (end > PHYSMAP_MAX)
        panic("paging: more than 512 GiB of physical address space");

    /* Device ranges are mapped uncacheable; RAM write-back. */
    for (paddr_t pa = 0; pa < end; ) {
        if (cpu_features.pdpe1gb) {
            word_t attr = range_has_ram(pa, pa + GB(1)) ? 0 : PTE_PCD | PTE_PWT;
            *walk_create(PHYSMAP_BASE + pa, 2, 0) = pa | PTE_P | PTE_W | PTE_PS | pte_global | pte_nx | attr;
            pa += GB(1);
        } else {
            word_t attr = range_has_ram(pa, pa + MB(2)) ? 0 : PTE_PCD | PTE_PWT;
            *walk_create(PHYSMAP_BASE + pa, 1, 0) = pa | PTE_P | PTE_W | PTE_PS | pte_global | pte_nx | attr;
            pa += MB(2);
        }
    }
}

static void map_image(void)
{
    for (char *p = _text_start; p < _kernel_end; p += PAGE_SIZE) {
        word_t flags = pte_global;
        if (p >= _text_start && p < _user_text_end)
            flags |= 0;                         /* read-only, executable */
        else if (p >= _rodata_start && p < _rodata_end)
            flags |= pte_nx;                    /* read-only */
        else
            flags |= PTE_W | pte_nx;            /* data, bss */
        *walk_create((word_t)p, 0, 0) = kernel_virt_to_phys(p) | PTE_P | flags;
    }
}

/* The page of system-call stubs (user-executable, read-only) and the %gs page (user read-only):
 * U must be set on every level of their translation (contract §2.7). */
static void map_user_kpages(void)
{
    *walk_create(SYSCALL_PAGE_USER, 0, PTE_U) =
        kernel_virt_to_phys(_user_text_start) | PTE_P | PTE_U | pte_global;
    *walk_create(GS_PAGE_USER, 0, PTE_U) =
        kernel_virt_to_phys(gs_page) | PTE_P | PTE_U | pte_nx | pte_global;
}

/* TCB array: every 2 MiB slot of the array initially points at one shared page table whose
 * entries all map the zero page read-only, so looking up a thread that does not exist reads
 * zeros instead of faulting (002 §5.2.5).  Creating a TCB gives its slot a private table. */
static void map_tcb_area(void)
{
    pte_t *zero_pt = boot_table();
    for (int i = 0; i < 512; i++)
        zero_pt[i] = kernel_virt_to_phys(zero_page) | PTE_P | pte_nx | pte_global;
    paddr_t zero_pt_phys = kernel_virt_to_phys(zero_pt);
    for (word_t va = TCB_AREA_BASE; va < TCB_AREA_BASE + TCB_AREA_SIZE; va += MB(2))
        *walk_create(va, 1, 0) = zero_pt_phys | PTE_P;   /* read-only through the PD entry */
}

/* TSS window (PML4 entry 509): TSS page, then the I/O bitmap pages, then the terminator byte.
 * This is the shared version for spaces without I/O ports: the bitmap denies everything. */
static void map_iowin(void)
{
    paddr_t ones = kernel_virt_to_phys(ones_page);
    memset(ones_page, 0xFF, PAGE_SIZE);
    *walk_create(IOWIN_BASE, 0, 0) = kernel_virt_to_phys(cpu_tss_page()) | PTE_P | pte_nx;
    for (int i = 1; i <= 3; i++)
        *walk_create(IOWIN_BASE + i * PAGE_SIZE, 0, 0) = ones | PTE_P | pte_nx;
    iowin_shared_pdpt_phys = kernel_pml4[PML4_IOWIN] & PTE_ADDR;
}

void paging_init(void)
{
    pte_nx = cpu_features.nx ? PTE_NX : 0;
    if (cpu_features.nx)                /* before any table holds an NX bit */
        wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_NXE);
    pte_global = cpu_features.pge ? PTE_G : 0;
    kernel_pml4 = boot_table();
    kernel_pml4_phys = kernel_virt_to_phys(kernel_pml4);

    /* All kernel PML4 entries the kernel will ever use are created here, so spaces can copy
     * them once at creation. */
    map_physmap();
    map_image();
    map_user_kpages();
    map_tcb_area();
    map_iowin();
    write_cr3(kernel_pml4_phys);
}

/* --- TCB backing ------------------------------------------------------------------------ */

static paddr_t zero_pt_phys(void)
{
    /* The PD entries of the TCB array initially share one table (map_tcb_area). */
    static paddr_t cached;
    if (!cached) {
        pte_t *pd = walk_create(TCB_AREA_BASE, 1, 0);
        cached = *pd & PTE_ADDR;
    }
    return cached;
}

/* Back the 8 KiB TCB slot at va with fresh frames; false if kernel memory is exhausted. */
/* A kernel-half translation changed.  invlpg reaches the current address-space tag only
 * (and global entries); with PCIDs, other tags may still cache the old entry or the table
 * above it, so then everything is flushed: toggling CR4.PGE drops all TLB and
 * paging-structure-cache entries of every PCID.  Rare: thread creation and deletion. */
static void kernel_translation_changed(word_t va)
{
    if (!cpu_has_pcid) {
        invlpg(va);
        return;
    }
    word_t cr4 = read_cr4();
    write_cr4(cr4 ^ CR4_PGE);
    write_cr4(cr4);
}

/* The region of va has no backed slot left: back to the shared table, free the private one.
 * Its translations all named the zero page, as the shared table's do; what must go are cached
 * references to the table itself (invlpg drops the paging-structure caches; with PCIDs
 * kernel_translation_changed flushes everything). */
static void region_release_if_unused(word_t va, pte_t *pde)
{
    pte_t *pt = phys_to_virt(*pde & PTE_ADDR);
    paddr_t zero = kernel_virt_to_phys(zero_page);
    for (int i = 0; i < 512; i++)
        if ((pt[i] & PTE_ADDR) != zero)
            return;                         /* another slot of the region is in use */
    *pde = zero_pt_phys() | PTE_P;         /* as map_tcb_area left it: read-only */
    kernel_translation_changed(va);
    kmem_free_page(pt);
}

bool arch_tcb_back(word_t va)
{
    paddr_t shared = zero_pt_phys();
    pte_t *pde = walk_create(va, 1, 0);
    if ((*pde & PTE_ADDR) == shared) {
        pte_t *pt = kmem_alloc_page();
        if (!pt)
            return false;
        for (int i = 0; i < 512; i++)
            pt[i] = kernel_virt_to_phys(zero_page) | PTE_P | pte_nx | pte_global;
        *pde = physmap_to_phys(pt) | PTE_P | PTE_W;
        kernel_translation_changed(va);
    }
    pte_t *pt = phys_to_virt(*pde & PTE_ADDR);
    paddr_t zero = kernel_virt_to_phys(zero_page);
    void *frames[2] = { NULL, NULL };
    for (int i = 0; i < 2; i++) {
        pte_t e = pt[pt_index(va + i * PAGE_SIZE, 0)];
        if ((e & PTE_ADDR) != zero)
            continue;                       /* already backed (slot reused) */
        frames[i] = kmem_alloc_page();
        if (!frames[i]) {
            if (frames[0])
                kmem_free_page(frames[0]);
            region_release_if_unused(va, pde);   /* a table made for this slot alone */
            return false;
        }
    }
    for (int i = 0; i < 2; i++) {
        if (!frames[i])
            continue;
        pt[pt_index(va + i * PAGE_SIZE, 0)] = physmap_to_phys(frames[i]) | PTE_P | PTE_W |
                                              pte_nx | pte_global;
        kernel_translation_changed(va + i * PAGE_SIZE);
    }
    return true;
}

/* Give the slot's frames back; lookups of the old thread read zeros again.  When the last
 * slot of the 2 MiB region goes, its private page table goes too and the region points at the
 * shared one again: otherwise creating and deleting threads with ever new numbers would use
 * up the pool for good (issue 7). */
void arch_tcb_release(word_t va)
{
    pte_t *pde = walk_create(va, 1, 0);
    if ((*pde & PTE_ADDR) == zero_pt_phys())
        return;                             /* never backed */
    pte_t *pt = phys_to_virt(*pde & PTE_ADDR);
    paddr_t zero = kernel_virt_to_phys(zero_page);
    for (int i = 0; i < 2; i++) {
        pte_t *e = &pt[pt_index(va + i * PAGE_SIZE, 0)];
        if ((*e & PTE_ADDR) != zero) {
            kmem_free_page(phys_to_virt(*e & PTE_ADDR));
            *e = zero | PTE_P | pte_nx | pte_global;
            kernel_translation_changed(va + i * PAGE_SIZE);
        }
    }
    region_release_if_unused(va, pde);
}

/* A space's own TSS window: TSS page, its two bitmap pages, then the 0xFF terminator page. */
void arch_iowin_build(pte_t *pdpt, pte_t *pd, pte_t *pt, paddr_t bitmap)
{
    pdpt[pt_index(IOWIN_BASE, 2)] = physmap_to_phys(pd) | PTE_P | PTE_W;
    pd[pt_index(IOWIN_BASE, 1)] = physmap_to_phys(pt) | PTE_P | PTE_W;
    pt[0] = kernel_virt_to_phys(cpu_tss_page()) | PTE_P | pte_nx;
    pt[1] = bitmap | PTE_P | pte_nx;
    pt[2] = (bitmap + PAGE_SIZE) | PTE_P | pte_nx;
    pt[3] = kernel_virt_to_phys(ones_page) | PTE_P | pte_nx;
}

/* --- top-level tables of address spaces (paging.h) ---------------------------------------- */

pte_t *pt_top_kernel(paddr_t *phys)
{
    *phys = kernel_pml4_phys;
    return kernel_pml4;
}

pte_t *pt_top_create(paddr_t *phys)
{
    pte_t *top = kmem_alloc_page();
    if (!top)
        return NULL;
    *phys = physmap_to_phys(top);
    /* The kernel half is shared: copy its top-level entries once (see layout.h). */
    for (unsigned i = PML4_KERNEL_FIRST; i < 512; i++)
        top[i] = kernel_pml4[i];
    return top;
}

void pt_set_iowin(struct space *s, pte_t *iowin_top)
{
    s->arch.pml4[PML4_IOWIN] = (iowin_top ? physmap_to_phys(iowin_top) : iowin_shared_pdpt_phys) |
                          PTE_P | PTE_W;
}
