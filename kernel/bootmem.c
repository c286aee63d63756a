/* Physical memory decisions at boot.
 *
 * Programs in the X.2 test bar run identity-mapped at fixed physical addresses (sigma0 near
 * 15 MiB, the root task from 16 MiB, scratch memory from 32 MiB), so the kernel keeps its image
 * below 15 MiB, keeps 15-64 MiB free and takes its pool from the top of RAM below 4 GiB
 * (contract §7.2).  Boot modules stay where the loader put them unless they lie in one of those
 * places; the pool goes where it makes the fewest module bytes move, and a module that must
 * move goes to the highest place it fits, anywhere in RAM.  Copying hundreds of MiB costs
 * seconds under TCG, so not moving is what the plan optimises for (docs/architecture.md,
 * section 1.1). */
#include "bootmem.h"
#include "boot.h"

#ifndef BOOTMEM_HOST_TEST
#include "lib.h"
#include "console.h"
#include "arch.h"
#include "platform.h"
#include "config.h"
#else
#define PAGE_SIZE 4096ul        /* the host test has no arch headers */
#endif

struct bootmem bootmem;

bool range_overlaps(struct phys_range a, struct phys_range b)
{
    return a.start < b.end && b.start < a.end;
}

static word_t range_size(struct phys_range r)
{
    return r.end - r.start;
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

bool bootmem_in_ram(const struct boot_region *mem, unsigned nmem, struct phys_range r)
{
    paddr_t pos = r.start;
    while (pos < r.end) {
        paddr_t next = pos;
        for (unsigned i = 0; i < nmem; i++)
            if (mem[i].type == BOOT_MEM_USABLE && mem[i].start <= pos && pos < mem[i].end)
                next = MAX(next, mem[i].end);
        if (next == pos)
            return false;
        pos = next;
    }
    return true;
}

word_t bootmem_ram_present(const struct boot_region *mem, unsigned nmem)
{
    word_t ram = 0;
    for (unsigned i = 0; i < nmem; i++)
        if (mem[i].type == BOOT_MEM_USABLE)
            ram += mem[i].end - mem[i].start;
    return ram;
}

/* --- the plan ---------------------------------------------------------------------------- */

struct avoid {
    struct phys_range r[BOOTMEM_FIXED_MAX + 2 + 2 * BOOT_MAX_MODULES];
    unsigned n;
};

static void avoid_add(struct avoid *a, struct phys_range r)
{
    if (r.end > r.start)
        a->r[a->n++] = r;
}

/* fixed, and with `nodata` the nodata ranges too */
static void avoid_fixed(struct avoid *a, const struct bootmem_request *rq, bool nodata)
{
    a->n = 0;
    for (unsigned i = 0; i < rq->nfixed; i++)
        avoid_add(a, rq->fixed[i]);
    for (unsigned i = 0; nodata && i < rq->nnodata; i++)
        avoid_add(a, rq->nodata[i]);
}

static paddr_t place(const struct bootmem_request *rq, word_t size, word_t align, paddr_t limit,
                     const struct avoid *a)
{
    return bootmem_find_top(rq->mem, rq->nmem, size, align, limit, a->r, a->n);
}

static bool moved(const struct bootmem_request *rq, const struct bootmem_plan *p, unsigned i)
{
    return p->mod[i].start != rq->mod[i].start;
}

/* Every module in `move`, in `order`, to the highest place clear of everything: fixed and
 * nodata ranges, the pool, every other module where it was and where it goes.  Its own old
 * place may be reused (the copy handles the overlap).  Returns the index of a module that
 * found no place, or BOOT_MAX_MODULES. */
static unsigned place_modules(const struct bootmem_request *rq, struct bootmem_plan *p,
                              const bool *move, const unsigned *order)
{
    for (unsigned i = 0; i < rq->nmod; i++)
        p->mod[i] = rq->mod[i];
    for (unsigned k = 0; k < rq->nmod; k++) {
        unsigned i = order[k];
        if (!move[i])
            continue;
        struct avoid a;
        avoid_fixed(&a, rq, true);
        avoid_add(&a, p->pool);
        for (unsigned j = 0; j < rq->nmod; j++) {
            if (j == i)
                continue;
            avoid_add(&a, rq->mod[j]);
            if (moved(rq, p, j))
                avoid_add(&a, p->mod[j]);
        }
        word_t size = range_size(rq->mod[i]);
        paddr_t x = place(rq, size, PAGE_SIZE, ~0ul, &a);
        if (!x)
            return i;
        p->mod[i] = (struct phys_range){ x, x + size };
    }
    return BOOT_MAX_MODULES;
}

/* The modules in `move`, largest first; when one finds no place, again with that one first
 * (a large module at the top can take the only place a smaller one fits), at most once per
 * module.  Then the boot data, which makes no module move: 16 KiB fit into some gap. */
static enum bootmem_status place_rest(const struct bootmem_request *rq, struct bootmem_plan *p,
                                      const bool *move, const unsigned *largest_first)
{
    unsigned order[BOOT_MAX_MODULES], nmove = 0;
    for (unsigned k = 0; k < rq->nmod; k++) {
        order[k] = largest_first[k];
        nmove += move[k];
    }
    for (unsigned attempt = 0; ; attempt++) {
        unsigned failed = place_modules(rq, p, move, order);
        if (failed == BOOT_MAX_MODULES)
            break;
        if (!attempt)
            p->module = failed;         /* reported if no order works */
        if (attempt + 1 >= nmove) {
            for (unsigned i = 0; i < rq->nmod; i++)
                p->mod[i] = rq->mod[i];
            return BOOTMEM_MODULE_NO_ROOM;
        }
        unsigned k = 0;
        while (order[k] != failed)
            k++;
        for (; k > 0; k--)
            order[k] = order[k - 1];
        order[0] = failed;
    }
    struct avoid a;
    avoid_fixed(&a, rq, true);
    avoid_add(&a, p->pool);
    for (unsigned i = 0; i < rq->nmod; i++)
        avoid_add(&a, p->mod[i]);
    paddr_t bd = place(rq, rq->bootdata_size, PAGE_SIZE, rq->bootdata_limit, &a);
    if (!bd)
        return BOOTMEM_NO_BOOTDATA;
    p->bootdata = (struct phys_range){ bd, bd + rq->bootdata_size };
    return BOOTMEM_OK;
}

/* A place for the pool and the bytes of modules it would make move (besides those that must
 * move anyway). */
struct pool_candidate {
    paddr_t at;
    word_t cost;
};

#define POOL_CANDIDATES 128

/* Keep the POOL_CANDIDATES best places, cheapest first, then highest. */
static unsigned add_candidate(struct pool_candidate *c, unsigned n, struct pool_candidate x)
{
    unsigned k = n;
    for (unsigned i = 0; i < n; i++)
        if (c[i].at == x.at)
            return n;
    for (; k > 0 && (c[k - 1].cost > x.cost || (c[k - 1].cost == x.cost && c[k - 1].at < x.at)); k--)
        if (k < POOL_CANDIDATES)
            c[k] = c[k - 1];
    if (k < POOL_CANDIDATES)
        c[k] = x;
    return n < POOL_CANDIDATES ? n + 1 : n;
}

/* The pool at `at` (aligned, below its limit) if it lies in one usable region clear of the
 * fixed ranges: its cost. */
static void pool_candidate(const struct bootmem_request *rq, const struct boot_region *m,
                           const bool *must_move, paddr_t at, struct pool_candidate *c,
                           unsigned *n)
{
    struct phys_range r = { at, at + rq->pool_size };
    if (at < MAX(m->start, PAGE_SIZE) || r.end > m->end || r.end > rq->pool_limit || r.end < at)
        return;
    word_t cost = 0;
    for (unsigned f = 0; f < rq->nfixed; f++)
        if (range_overlaps(r, rq->fixed[f]))
            return;
    for (unsigned i = 0; i < rq->nmod; i++)
        if (!must_move[i] && range_overlaps(r, rq->mod[i]))
            cost += range_size(rq->mod[i]);
    *n = add_candidate(c, *n, (struct pool_candidate){ at, cost });
}

/* The edges a pool may start or end at: its region's, the limit, fixed and nodata ranges',
 * modules'. */
static paddr_t pool_edge(const struct bootmem_request *rq, const struct boot_region *m,
                         unsigned e)
{
    if (e < 3)
        return e == 0 ? m->start : e == 1 ? m->end : rq->pool_limit;
    e -= 3;
    const struct phys_range *r = e / 2 < rq->nfixed ? &rq->fixed[e / 2] :
                                 e / 2 < rq->nfixed + rq->nnodata ? &rq->nodata[e / 2 - rq->nfixed] :
                                 &rq->mod[e / 2 - rq->nfixed - rq->nnodata];
    return (e & 1) ? r->end : r->start;
}

/* The places worth trying for the pool: in each usable region, starting or ending at an edge.
 * A pool elsewhere can mostly slide to one of them without covering another module (not
 * always: tests/host/bootmem_test.c counts the rare crowded cases where that misses a plan). */
static unsigned pool_candidates(const struct bootmem_request *rq, const bool *must_move,
                                struct pool_candidate *c)
{
    unsigned n = 0, nedges = 3 + 2 * (rq->nfixed + rq->nnodata + rq->nmod);
    word_t size = rq->pool_size, align = rq->pool_align;
    for (unsigned i = 0; i < rq->nmem; i++) {
        const struct boot_region *m = &rq->mem[i];
        for (unsigned e = 0; m->type == BOOT_MEM_USABLE && e < nedges; e++) {
            paddr_t b = pool_edge(rq, m, e);
            if (b < m->start || b > m->end)
                continue;
            pool_candidate(rq, m, must_move, ALIGN_UP(b, align), c, &n);
            if (b >= size)
                pool_candidate(rq, m, must_move, ALIGN_DOWN(b - size, align), c, &n);
        }
    }
    return n;
}

void bootmem_plan(const struct bootmem_request *rq, struct bootmem_plan *plan)
{
    *plan = (struct bootmem_plan){ .status = BOOTMEM_OK };
    if (rq->nmod > BOOT_MAX_MODULES || rq->nfixed + rq->nnodata > BOOTMEM_FIXED_MAX) {
        plan->status = BOOTMEM_BAD_REQUEST;
        return;
    }
    bool must_move[BOOT_MAX_MODULES], move[BOOT_MAX_MODULES];
    unsigned order[BOOT_MAX_MODULES];
    for (unsigned i = 0; i < rq->nmod; i++) {
        plan->mod[i] = rq->mod[i];
        if (!bootmem_in_ram(rq->mem, rq->nmem, rq->mod[i])) {
            plan->status = BOOTMEM_MODULE_OUTSIDE_RAM;
            plan->module = i;
            return;
        }
        must_move[i] = false;
        for (unsigned f = 0; f < rq->nfixed; f++)
            must_move[i] |= range_overlaps(rq->mod[i], rq->fixed[f]);
        for (unsigned f = 0; f < rq->nnodata; f++)
            must_move[i] |= range_overlaps(rq->mod[i], rq->nodata[f]);
        /* Insertion into `order`, largest first, ties in module order. */
        unsigned k = i;
        for (; k > 0 && range_size(rq->mod[order[k - 1]]) < range_size(rq->mod[i]); k--)
            order[k] = order[k - 1];
        order[k] = i;
    }
    /* The cheapest place for the pool that lets everything else fit, the highest of equals;
     * a failure is reported as the cheapest place met it. */
    static struct pool_candidate cand[POOL_CANDIDATES];
    unsigned n = pool_candidates(rq, must_move, cand);
    if (!n) {
        plan->status = BOOTMEM_NO_POOL;
        return;
    }
    struct bootmem_plan first = *plan;
    for (unsigned c = 0; c < n; c++) {
        struct bootmem_plan *p = c ? plan : &first;
        for (unsigned i = 0; i < rq->nmod; i++)
            move[i] = must_move[i] || range_overlaps(rq->mod[i], (struct phys_range){
                          cand[c].at, cand[c].at + rq->pool_size });
        p->pool = (struct phys_range){ cand[c].at, cand[c].at + rq->pool_size };
        p->status = place_rest(rq, p, move, order);
        if (p->status == BOOTMEM_OK) {
            if (!c)
                *plan = first;
            return;
        }
    }
    *plan = first;
}

/* Does the request fit with `extra` bytes more at the end of region `top`? */
static bool fits_with(const struct bootmem_request *rq, unsigned top, word_t extra,
                      word_t (*pool_for)(word_t ram))
{
    static struct boot_region mem[BOOT_MAX_REGIONS];
    for (unsigned i = 0; i < rq->nmem; i++)
        mem[i] = rq->mem[i];
    mem[top].end += extra;
    struct bootmem_request more = *rq;
    more.mem = mem;
    more.pool_size = pool_for(bootmem_ram_present(mem, rq->nmem));
    static struct bootmem_plan p;
    bootmem_plan(&more, &p);
    return p.status == BOOTMEM_OK;
}

word_t bootmem_ram_to_fit(const struct bootmem_request *rq, word_t (*pool_for)(word_t ram))
{
    /* More RAM extends the highest usable region (as it does in QEMU's machines): double the
     * extra until the plan works, then halve the step to the least MiB that works. */
    unsigned top = BOOT_MAX_REGIONS;
    if (rq->nmem > BOOT_MAX_REGIONS)
        return 0;
    for (unsigned i = 0; i < rq->nmem; i++)
        if (rq->mem[i].type == BOOT_MEM_USABLE &&
            (top == BOOT_MAX_REGIONS || rq->mem[i].end > rq->mem[top].end))
            top = i;
    if (top == BOOT_MAX_REGIONS || fits_with(rq, top, 0, pool_for))
        return 0;
    word_t hi = MB(1);
    while (!fits_with(rq, top, hi, pool_for))
        if ((hi <<= 1) > GB(512))
            return 0;
    word_t lo = hi >> 1;                /* lo does not fit (or is the first step), hi does */
    while (hi - lo > MB(1)) {
        word_t mid = ALIGN_UP(lo + (hi - lo) / 2, MB(1));
        if (fits_with(rq, top, mid, pool_for))
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

#ifndef BOOTMEM_HOST_TEST
bool phys_kernel_reserved(paddr_t pa, word_t size)
{
    struct phys_range r = { pa, pa + size }, dev;
    if (range_overlaps(r, bootmem.image) || range_overlaps(r, bootmem.pool))
        return true;
    for (unsigned i = 0; arch_kernel_device(i, &dev.start, &dev.end); i++)
        if (range_overlaps(r, dev))
            return true;
    return false;
}

#define LOW_WINDOW_START MB(15)         /* kept free for identity-mapped X.2 programs */
#define LOW_WINDOW_END   MB(64)

/* The pool for `ram` bytes of RAM: a fraction of it, or kmem=. */
static word_t pool_size_for(word_t ram)
{
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
        if (!bootmem_in_ram(boot_params.mem, boot_params.nmem, r))
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

static word_t mib_up(word_t bytes)
{
    return ALIGN_UP(bytes, MB(1)) >> 20;
}

static NORETURN void module_does_not_fit(const struct bootmem_request *rq,
                                         const struct bootmem_plan *p)
{
    unsigned i = p->module;
    const struct boot_module *m = &boot_params.mod[i];
    word_t size = mib_up(m->end - m->start);
    word_t have = bootmem_ram_present(rq->mem, rq->nmem);
    word_t more = bootmem_ram_to_fit(rq, pool_size_for);
    const char *why = p->status == BOOTMEM_MODULE_OUTSIDE_RAM ?
                      "is not all in RAM (the loader could not load it whole)" : "does not fit";
    if (!more)
        panic("boot: module %u (%s, %lu MiB) %s, %lu MiB of RAM present", i, m->cmdline, size,
              why, have >> 20);
    panic("boot: module %u (%s, %lu MiB) %s: %lu MiB of RAM needed, %lu MiB present", i,
          m->cmdline, size, why, mib_up(have + more), have >> 20);
}

/* Copy [from, from + size) to `to`; the two may overlap.  Upwards, in pieces no larger than
 * the distance, from the top, so that each piece is read before it is overwritten. */
static void move_range(paddr_t to, paddr_t from, word_t size)
{
    if (to <= from || to >= from + size) {
        memmove(phys_to_virt(to), phys_to_virt(from), size);
        return;
    }
    word_t step = to - from;
    for (word_t left = size; left; ) {
        word_t n = MIN(step, left);
        left -= n;
        memcpy(phys_to_virt(to + left), phys_to_virt(from + left), n);
    }
}

static void print_ram(void)
{
    printk("mem: RAM");
    for (unsigned i = 0; i < boot_params.nmem; i++)
        if (boot_params.mem[i].type == BOOT_MEM_USABLE)
            printk(" %lx-%lx", boot_params.mem[i].start, boot_params.mem[i].end);
    printk(" (%lu MiB)\n", bootmem_ram_present(boot_params.mem, boot_params.nmem) >> 20);
}

void bootmem_init(void)
{
    bootmem.image = (struct phys_range){ (paddr_t)_image_phys_start,
                                         ALIGN_UP((paddr_t)_bss_end_phys, PAGE_SIZE) };
    if (bootmem.image.end > LOW_WINDOW_START)
        panic("boot: kernel image reaches beyond 15 MiB");
    print_ram();

    static struct phys_range mods[BOOT_MAX_MODULES];
    for (unsigned i = 0; i < boot_params.nmod; i++) {
        bootmem.orig_mod[i] = (struct phys_range){ boot_params.mod[i].start, boot_params.mod[i].end };
        mods[i] = (struct phys_range){ ALIGN_DOWN(boot_params.mod[i].start, PAGE_SIZE),
                                       ALIGN_UP(boot_params.mod[i].end, PAGE_SIZE) };
    }
    struct phys_range fixed[] = {
        { 0, MB(1) },                           /* real-mode area, BIOS data, VGA, ROMs */
        bootmem.image,
        { LOW_WINDOW_START, LOW_WINDOW_END },
        { 0, 0 }, { 0, 0 },                     /* the servers' load ranges, below */
    };
    static const struct phys_range nodata[] = {
        { INITIAL_UTCB_AREA, INITIAL_UTCB_AREA + (1ul << INITIAL_UTCB_LOG2) },
        { INITIAL_KIP_AREA, INITIAL_KIP_AREA + PAGE_SIZE },
    };
    struct bootmem_request rq = {
        .mem = boot_params.mem, .nmem = boot_params.nmem,
        .fixed = fixed, .nfixed = ARRAY_SIZE(fixed),
        .nodata = nodata, .nnodata = ARRAY_SIZE(nodata),
        .mod = mods, .nmod = boot_params.nmod,
        .pool_size = pool_size_for(bootmem_ram_present(boot_params.mem, boot_params.nmem)),
        .pool_align = MB(2), .pool_limit = GB(4),
        .bootdata_size = BOOTDATA_SIZE, .bootdata_limit = GB(4),    /* multiboot: 32 bits */
    };
    /* A module the loader could not load whole is garbage: say so before reading one. */
    static struct bootmem_plan plan;
    for (unsigned i = 0; i < boot_params.nmod; i++)
        if (!bootmem_in_ram(boot_params.mem, boot_params.nmem, mods[i])) {
            plan = (struct bootmem_plan){ .status = BOOTMEM_MODULE_OUTSIDE_RAM, .module = i };
            module_does_not_fit(&rq, &plan);
        }
    parse_servers();
    fixed[3] = bootmem.server[0];
    fixed[4] = bootmem.server[1];
    /* The loader's information structure (already copied) may be overwritten now. */

    bootmem_plan(&rq, &plan);
    switch (plan.status) {
    case BOOTMEM_OK:
        break;
    case BOOTMEM_MODULE_OUTSIDE_RAM:
    case BOOTMEM_MODULE_NO_ROOM:
        module_does_not_fit(&rq, &plan);
    case BOOTMEM_NO_POOL:
        panic("boot: no room for a %lu MiB kernel memory pool below 4 GiB", rq.pool_size >> 20);
    case BOOTMEM_NO_BOOTDATA:
        panic("boot: no room for the boot information");
    case BOOTMEM_BAD_REQUEST:
        panic("boot: too many ranges to plan");
    }
    bootmem.pool = plan.pool;
    bootmem.bootdata = plan.bootdata;
    /* Each destination avoids every other module's old and new place: any order works. */
    for (unsigned i = 0; i < boot_params.nmod; i++) {
        if (plan.mod[i].start == mods[i].start)
            continue;
        struct boot_module *m = &boot_params.mod[i];
        printk("boot: module %u (%lu KiB) moves from %lx to %lx\n", i,
               range_size(mods[i]) >> 10, mods[i].start, plan.mod[i].start);
        move_range(plan.mod[i].start, mods[i].start, range_size(mods[i]));
        m->start = plan.mod[i].start + (m->start - mods[i].start);
        m->end = m->start + range_size(bootmem.orig_mod[i]);
    }
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
