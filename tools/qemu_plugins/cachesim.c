/*
 * cachesim: a cache model for the guest and modelled cycles of marked code regions
 * (docs/cache-partitioning.md; the model itself is cachesim_model.h).
 *
 * Every data load and store of the whole guest (kernel, servers, lx and its processes) goes
 * through a physically indexed L1 data cache and a unified L2 (QEMU's plugin API gives the
 * guest physical address of a data access).  Instruction fetches are not modelled: QEMU 7.2
 * gives a fetch's virtual address and a host address (qemu_plugin_insn_haddr), never its guest
 * physical address, so code costs insn cycles per instruction and occupies no cache line.
 *
 * A region is marked in the guest by two multi-byte nops, which execute as nops everywhere:
 *   start: nopl 0x4353ss01(%rax)   = 0f 1f 80 01 ss 53 43     (ss: the region id, 0-255)
 *   end:   nopl 0x4353ss02(%rax)   = 0f 1f 80 02 ss 53 43
 * (include/l4/cachesim.h has them as macros).  Between a start and the next end of the same id
 * the plugin counts the region instance's cycles twice: "own" counts only the instructions whose
 * address lies in own=LO-HI (the measured task's code: its interruptions by the kernel and other
 * tasks are left out, their effect on the cache stays in) and their data accesses; "all" counts
 * every instruction the vCPU ran.  Counting is per translation block, so the few instructions
 * that share a block with a marker may fall on the wrong side of it.
 *
 *   -plugin build/qemu_plugins/cachesim.so,out=FILE[,own=LO-HI][,load=LO-HI]
 *           [,l1=SIZE:WAYS:LINE][,l2=SIZE:WAYS:LINE][,cost=INSN:L1HIT:L2HIT:MEM]
 *
 * At QEMU's exit it writes FILE:
 *   # cachesim 1
 *   model l1 SIZE:WAYS:LINE l2 SIZE:WAYS:LINE colours N cost INSN L1HIT L2HIT MEM
 *   total INSNS ACCESSES L1_MISSES L2_MISSES
 *   l2_misses_by_colour own|other N0 N1 ...   (L2 misses by the L2 colour of the page)
 *   accesses_by_colour own|load|other N0 N1 ... (data accesses by the L2 colour of the page;
 *                                   load: the instructions in load=LO-HI, other: the rest)
 *   region ID SEQ OWN_CYCLES OWN_INSNS OWN_ACCESSES OWN_L1_MISSES OWN_L2_MISSES ALL_CYCLES
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

#include "cachesim_model.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MARK_MAGIC 0x4353u             /* "CS" in the marker's top half */
#define MARK_START 1
#define MARK_END 2
#define MAX_REGIONS 256

struct counters {
    uint64_t cycles, insns, accesses, l1_misses, l2_misses;
};

struct region {
    bool open;
    uint64_t seq;
    struct counters own_at_start;
    uint64_t all_at_start;
};

static struct cache_model model;
static uint64_t own_lo, own_hi;         /* [lo, hi); both 0: everything is own */
static uint64_t load_lo, load_hi;       /* [lo, hi) of another task's code; both 0: none */
static char *out_path;
static FILE *out;

/* One vCPU (the harness runs -smp 1 under -icount): no atomics needed. */
static struct counters all, own;
/* Whose instructions run: a translation block's side, by the address it starts at. */
enum side { OTHER, OWN, LOAD, SIDES };
static enum side current_side;
static struct region regions[MAX_REGIONS];
/* L2 misses by the L2 colour of their page, own and the rest: does a partition hold? */
#define MAX_COLOURS 256
static uint64_t own_misses_by_colour[MAX_COLOURS], other_misses_by_colour[MAX_COLOURS];
/* Every data access by the L2 colour of its page, per side: which colours a task uses. */
static uint64_t accesses_by_colour[SIDES][MAX_COLOURS];

static void count(struct counters *c, uint64_t cycles, unsigned insns, unsigned accesses,
                  unsigned l1m, unsigned l2m)
{
    c->cycles += cycles;
    c->insns += insns;
    c->accesses += accesses;
    c->l1_misses += l1m;
    c->l2_misses += l2m;
}

static void tb_exec(unsigned int vcpu, void *udata)
{
    uintptr_t packed = (uintptr_t)udata;
    unsigned n = (unsigned)(packed >> 2);
    (void)vcpu;
    current_side = (enum side)(packed & 3);
    count(&all, (uint64_t)n * model.cost.insn, n, 0, 0, 0);
    if (current_side == OWN)
        count(&own, (uint64_t)n * model.cost.insn, n, 0, 0, 0);
}

static void mem_access(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr,
                       void *udata)
{
    (void)vcpu, (void)udata;
    struct qemu_plugin_hwaddr *hw = qemu_plugin_get_hwaddr(info, vaddr);
    if (!hw || qemu_plugin_hwaddr_is_io(hw))
        return;
    uint64_t l1m = model.l1d.misses, l2m = model.l2.misses;
    uint64_t pa = qemu_plugin_hwaddr_phys_addr(hw);
    unsigned cycles = cache_model_data(&model, pa);
    l1m = model.l1d.misses - l1m;
    l2m = model.l2.misses - l2m;
    unsigned colour = (unsigned)((pa >> 12) % cache_level_colours(&model.l2)) % MAX_COLOURS;
    accesses_by_colour[current_side][colour]++;
    if (l2m)
        (current_side == OWN ? own_misses_by_colour : other_misses_by_colour)[colour]++;
    count(&all, cycles, 0, 1, (unsigned)l1m, (unsigned)l2m);
    if (current_side == OWN)
        count(&own, cycles, 0, 1, (unsigned)l1m, (unsigned)l2m);
}

static void mark(unsigned int vcpu, void *udata)
{
    unsigned kind = (unsigned)((uintptr_t)udata >> 8), id = (unsigned)((uintptr_t)udata & 0xff);
    struct region *r = &regions[id];
    (void)vcpu;
    if (kind == MARK_START) {
        r->open = true;
        r->own_at_start = own;
        r->all_at_start = all.cycles;
    } else if (r->open) {
        r->open = false;
        fprintf(out, "region %u %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
                " %" PRIu64 " %" PRIu64 "\n", id, r->seq++,
                own.cycles - r->own_at_start.cycles, own.insns - r->own_at_start.insns,
                own.accesses - r->own_at_start.accesses,
                own.l1_misses - r->own_at_start.l1_misses,
                own.l2_misses - r->own_at_start.l2_misses, all.cycles - r->all_at_start);
    }
}

/* The marker's kind << 8 | id, or 0 for any other instruction. */
static unsigned marker_of(struct qemu_plugin_insn *insn)
{
    const uint8_t *b = qemu_plugin_insn_data(insn);
    if (qemu_plugin_insn_size(insn) != 7 || b[0] != 0x0f || b[1] != 0x1f || b[2] != 0x80)
        return 0;
    uint32_t disp = (uint32_t)b[3] | (uint32_t)b[4] << 8 | (uint32_t)b[5] << 16 |
                    (uint32_t)b[6] << 24;
    unsigned kind = disp & 0xff;
    if (disp >> 16 != MARK_MAGIC || (kind != MARK_START && kind != MARK_END))
        return 0;
    return kind << 8 | ((disp >> 8) & 0xff);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    uint64_t va = qemu_plugin_tb_vaddr(tb);
    size_t n = qemu_plugin_tb_n_insns(tb);
    enum side side = (!own_lo && !own_hi) || (va >= own_lo && va < own_hi) ? OWN
                     : va >= load_lo && va < load_hi ? LOAD : OTHER;
    qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS,
                                         (void *)(uintptr_t)(n << 2 | side));
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        unsigned m = marker_of(insn);
        if (m)
            qemu_plugin_register_vcpu_insn_exec_cb(insn, mark, QEMU_PLUGIN_CB_NO_REGS,
                                                   (void *)(uintptr_t)m);
        qemu_plugin_register_vcpu_mem_cb(insn, mem_access, QEMU_PLUGIN_CB_NO_REGS,
                                         QEMU_PLUGIN_MEM_RW, NULL);
    }
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
    (void)id, (void)p;
    fprintf(out, "total %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", all.insns,
            all.accesses, all.l1_misses, all.l2_misses);
    unsigned colours = cache_level_colours(&model.l2);
    for (int own_side = 1; own_side >= 0; own_side--) {
        fprintf(out, "l2_misses_by_colour %s", own_side ? "own" : "other");
        for (unsigned c = 0; c < colours && c < MAX_COLOURS; c++)
            fprintf(out, " %" PRIu64, (own_side ? own_misses_by_colour : other_misses_by_colour)[c]);
        fprintf(out, "\n");
    }
    static const char *const side_names[SIDES] = { [OWN] = "own", [LOAD] = "load", [OTHER] = "other" };
    static const enum side order[SIDES] = { OWN, LOAD, OTHER };
    for (unsigned i = 0; i < SIDES; i++) {
        fprintf(out, "accesses_by_colour %s", side_names[order[i]]);
        for (unsigned c = 0; c < colours && c < MAX_COLOURS; c++)
            fprintf(out, " %" PRIu64, accesses_by_colour[order[i]][c]);
        fprintf(out, "\n");
    }
    fclose(out);
}

/* SIZE:WAYS:LINE with SIZE in bytes or with a K/M suffix */
static int parse_level(const char *spec, struct cache_level *c)
{
    char *end;
    uint64_t size = strtoull(spec, &end, 10);
    if (*end == 'K' || *end == 'k')
        size <<= 10, end++;
    else if (*end == 'M' || *end == 'm')
        size <<= 20, end++;
    if (*end != ':')
        return -1;
    unsigned long ways = strtoul(end + 1, &end, 10);
    if (*end != ':')
        return -1;
    unsigned long line = strtoul(end + 1, &end, 10);
    if (*end || ways > 64 || line > 4096)
        return -1;
    return cache_level_init(c, size, (unsigned)ways, (unsigned)line);
}

static int parse_costs(const char *spec, struct cache_costs *c)
{
    unsigned v[4];
    char tail;
    if (sscanf(spec, "%u:%u:%u:%u%c", &v[0], &v[1], &v[2], &v[3], &tail) != 4)
        return -1;
    *c = (struct cache_costs){v[0], v[1], v[2], v[3]};
    return 0;
}

static int parse_range(const char *spec, uint64_t *lo, uint64_t *hi)
{
    char *end;
    *lo = strtoull(spec, &end, 16);
    if (*end != '-')
        return -1;
    *hi = strtoull(end + 1, &end, 16);
    return *end || *hi <= *lo ? -1 : 0;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
                                           int argc, char **argv)
{
    (void)info;
    /* The defaults (docs/cache-partitioning.md): a small PC's 16 KiB L1 data cache and a
     * 256 KiB 4-way L2 (16 colours of 4 KiB), both with 64-byte lines. */
    const char *l1 = "16K:4:64", *l2 = "256K:4:64";
    model.cost = (struct cache_costs){1, 0, 10, 100};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int bad = 0;
        if (strncmp(a, "out=", 4) == 0)
            out_path = strdup(a + 4);
        else if (strncmp(a, "own=", 4) == 0)
            bad = parse_range(a + 4, &own_lo, &own_hi);
        else if (strncmp(a, "load=", 5) == 0)
            bad = parse_range(a + 5, &load_lo, &load_hi);
        else if (strncmp(a, "l1=", 3) == 0)
            l1 = a + 3;
        else if (strncmp(a, "l2=", 3) == 0)
            l2 = a + 3;
        else if (strncmp(a, "cost=", 5) == 0)
            bad = parse_costs(a + 5, &model.cost);
        else
            bad = -1;
        if (bad) {
            fprintf(stderr, "cachesim: bad argument '%s'\n", a);
            return -1;
        }
    }
    if (parse_level(l1, &model.l1d) || parse_level(l2, &model.l2)) {
        fprintf(stderr, "cachesim: bad cache geometry (l1=%s l2=%s: SIZE:WAYS:LINE, "
                "power-of-two sets and line)\n", l1, l2);
        return -1;
    }
    if (!out_path || !(out = fopen(out_path, "w"))) {
        fprintf(stderr, "cachesim: out=FILE is required and must be writable\n");
        return -1;
    }
    fprintf(out, "# cachesim 1\nmodel l1 %s l2 %s colours %u cost %u %u %u %u\n", l1, l2,
            cache_level_colours(&model.l2), model.cost.insn, model.cost.l1_hit,
            model.cost.l2_hit, model.cost.mem);
    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}
