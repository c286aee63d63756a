/* Stubs for the kernel functions the mapping-database units call but do not contain, plus the
 * arena that stands in for physical memory.  See mapdb_harness.h. */
#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <sys/mman.h>
#include "mapdb_harness.h"
#include "bootmem.h"
#include "console.h"
#include "iospace.h"

unsigned long host_physmap_base;        /* PHYSMAP_BASE (host_prelude.h) */
word_t pte_nx = PTE_NX;                 /* the CPU enforces NX */
word_t pte_global = 0;

bool h_has_1g;
paddr_t h_phys_limit = 1ul << 32;

struct h_inval h_invals[H_MAX_INVALS];
unsigned h_ninvals;
bool h_invals_overflowed;

static struct phys_range reserved[64];
static unsigned nreserved;

/* --- arch ------------------------------------------------------------------------------ */
bool arch_has_1g_pages(void) { return h_has_1g; }
bool arch_has_nx(void) { return true; }
bool arch_phys_addressable(paddr_t pa) { return pa < h_phys_limit; }

/* --- bootmem --------------------------------------------------------------------------- */
void h_reserve(paddr_t start, paddr_t end)
{
    if (nreserved == sizeof(reserved) / sizeof(reserved[0])) {
        printf("FAIL harness: too many reserved ranges\n");
        abort();
    }
    reserved[nreserved++] = (struct phys_range){ start, end };
}

void h_reserve_clear(void)
{
    nreserved = 0;
}

bool phys_kernel_reserved(paddr_t pa, word_t size)
{
    if (pa < H_POOL_PHYS + H_POOL_SIZE && H_POOL_PHYS < pa + size)
        return true;
    for (unsigned i = 0; i < nreserved; i++)
        if (pa < reserved[i].end && reserved[i].start < pa + size)
            return true;
    return false;
}

/* --- space ----------------------------------------------------------------------------- */
static bool in_area(word_t fp, word_t va, word_t size)
{
    word_t base = fp & ~0x3FFul;
    word_t end = base + (1ul << ((fp >> 4) & 0x3F));
    return fp && va < end && va + size > base;
}

bool space_in_kip_area(const struct space *s, word_t va, word_t size)
{
    return in_area(s->kip_area, va, size);
}

bool space_in_utcb_area(const struct space *s, word_t va, word_t size)
{
    return !s->foreign && in_area(s->utcb_area, va, size);     /* as kernel/space.c */
}

void space_tlb_invalidate(struct space *s, word_t va, word_t size)
{
    if (h_ninvals == H_MAX_INVALS) {
        h_invals_overflowed = true;
        return;
    }
    h_invals[h_ninvals++] = (struct h_inval){ s, va, size };
}

void h_inval_reset(void)
{
    h_ninvals = 0;
    h_invals_overflowed = false;
}

bool h_inval_covers(const struct space *s, word_t va, word_t size)
{
    if (h_invals_overflowed)
        return true;
    for (unsigned i = 0; i < h_ninvals; i++)
        if (h_invals[i].s == s && h_invals[i].va <= va && va + size <= h_invals[i].va + h_invals[i].size)
            return true;
    return false;
}

/* --- iospace: Unmap's I/O fpages (mapdb_unmap_fpages); the mapdb units pass none.  Weak:
 * the iospace units link the real one. */
__attribute__((weak)) void iospace_unmap(struct space *s, word_t fp, bool own)
{
    (void)s; (void)own;
    printf("FAIL harness: iospace_unmap(%lx) called\n", fp);
    abort();
}

/* --- console --------------------------------------------------------------------------- */
void printk(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("printk: ");
    vprintf(fmt, ap);
    va_end(ap);
}

void panic(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL kernel panic: ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
    abort();
}

/* --- the arena ------------------------------------------------------------------------- */
void h_init(void)
{
    static bool done;
    if (done)
        return;
    done = true;
    /* Reserve [0, pool end) of "physical" address space, make only the pool accessible. */
    size_t span = H_POOL_PHYS + H_POOL_SIZE;
    char *base = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED || mprotect(base + H_POOL_PHYS, H_POOL_SIZE, PROT_READ | PROT_WRITE)) {
        printf("FAIL harness: cannot map the physical-memory arena\n");
        abort();
    }
    host_physmap_base = (unsigned long)base;
    kmem_init(H_POOL_PHYS, H_POOL_SIZE);
}
