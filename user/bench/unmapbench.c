/* How long the kernel's longest operations run with interrupts off (the kernel never enables
 * them, docs/architecture.md): one Unmap of a large region of 4 KiB mappings, and deleting an
 * address space that holds many mappings.  Root task; run it under -icount shift=0, where the
 * guest TSC advances once per guest instruction, so a TSC difference around one system call
 * is the number of guest instructions the kernel ran with interrupts off (plus the entry and
 * exit, and at most one timer tick taken right after the return: a few hundred to a few
 * thousand instructions, negligible here).
 *
 * The region: every 4 KiB page σ0 still has (requested one page at a time, so that every
 * mapping is a 4 KiB leaf), at REGION in our space.  A chain of `depth` new spaces S1..Sd:
 * we map the whole region to S1, S1 maps it on to S2, and so on, so each space holds one
 * mapping per page, each derived from the one before.  Measured:
 *   unmap_dD_nN      our Unmap of the whole region (not flushing our own pages): removes the
 *                    N x D mappings derived from ours
 *   delete_dD_nN     ThreadControl deleting S1's only thread, which deletes S1: removes S1's
 *                    N mappings and the N x (D - 1) derived from them
 * Output: BENCH name=<name> iters=<mappings removed> tsc_per_op=<instructions per mapping>
 *         tsc=<instructions for the whole call> ns=<the same in the guest clock>;
 *         a final "# worst ..." note; BENCH-DONE.
 *
 *     tools/qemu_run.py --icount build/kernel.bin sigma0 unmapbench
 */
#include <libl4.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "../tests/testutil.h"

void qemu_exit(unsigned code);

#define REGION      0x100000000ul       /* 4 GiB: far from the image, KIP and UTCB areas */
#define WINDOW_LOG2 30                  /* receive window: REGION .. +1 GiB */
#define MAX_PAGES   (1ul << 18)         /* 1 GiB of 4 KiB pages: more than the guest has */
#define MAX_DEPTH   32
#define MAX_PIECES  32
#define LABEL_DONE  0x700

static volatile l4_word_t chain[MAX_DEPTH + 1];     /* chain[0] = us, chain[i] = S_i's thread */
static volatile unsigned depth;
static l4_word_t pieces[MAX_PIECES];                /* the region (first n pages) as fpages */
static volatile unsigned npieces;
static uint64_t worst_tsc, worst_maps;
static const char *worst_name = "";

static inline uint64_t tsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi) :: "memory");
    return ((uint64_t)hi << 32) | lo;
}

/* [REGION, REGION + n pages) as aligned power-of-two fpages, largest first. */
static void cut(unsigned long n)
{
    l4_word_t base = REGION;
    npieces = 0;
    for (int b = 63; b >= 0; b--)
        if (n & (1ul << b)) {
            pieces[npieces++] = l4_fpage_log2(base, 12 + b) | L4_RWX;
            base += (4096ul << b);
        }
}

static l4_word_t map_region(l4_word_t to)
{
    l4_set_mr(0, l4_tag_make(0, 0, 2 * npieces));
    for (unsigned i = 0; i < npieces; i++) {
        l4_set_mr(1 + 2 * i, l4_map_item(pieces[i] & ~0xFFFul));
        l4_set_mr(2 + 2 * i, pieces[i]);
    }
    return l4_send(to);
}

/* S_i's thread: receive the region from S_{i-1}, pass it on; the last one tells us. */
static void link(void)
{
    unsigned me = 0;
    for (unsigned i = 1; i <= depth; i++)
        if (chain[i] == l4_my_global_id())
            me = i;
    for (;;) {
        l4_set_br(0, l4_fpage_log2(REGION, WINDOW_LOG2));
        l4_word_t tag = l4_receive(chain[me - 1]);
        if (l4_ipc_failed(tag) || l4_tag_t(tag) != 2 * npieces) {
            tu_report(LABEL_DONE, 0);
            continue;
        }
        if (me < depth) {
            if (l4_ipc_failed(map_region(chain[me + 1])))
                tu_report(LABEL_DONE, 0);
        } else {
            tu_report(LABEL_DONE, 1);
        }
    }
}

static void fail(const char *what)
{
    printf("BENCH-ERROR what=%s\n", what);
    qemu_exit(1);
}

/* Build the chain S1..Sd and map the first n pages of the region down it; false if the
 * kernel ran out of memory for the mappings (the chain is then deleted). */
static bool build(unsigned long n, unsigned d)
{
    cut(n);
    depth = d;
    chain[0] = l4_my_global_id();
    for (unsigned i = 1; i <= d; i++)
        chain[i] = 0;
    for (unsigned i = 1; i <= d; i++) {
        chain[i] = tu_space_thread(link, 200);
        if (!chain[i])
            fail("space_thread");
    }
    l4_word_t from, tag = map_region(chain[1]);
    if (!l4_ipc_failed(tag))
        tag = tu_serve(&from);
    if (l4_ipc_failed(tag) || l4_tag_label(tag) != LABEL_DONE || l4_mr(1) != 1) {
        for (unsigned i = 1; i <= d; i++)
            tu_kill(chain[i]);
        return false;
    }
    return true;
}

static void report(const char *kind, unsigned long n, unsigned d, uint64_t t, uint64_t maps)
{
    char name[48];
    snprintf(name, sizeof(name), "%s_d%u_n%lu", kind, d, n);
    printf("BENCH name=%s iters=%llu tsc_per_op=%llu.%02llu tsc=%llu ns=%llu\n", name,
           (unsigned long long)maps, (unsigned long long)(t / maps),
           (unsigned long long)(t % maps * 100 / maps), (unsigned long long)t,
           (unsigned long long)t);
    if (t > worst_tsc) {
        worst_tsc = t;
        worst_maps = maps;
        worst_name = kind;
    }
}

static void kill_chain(unsigned from)
{
    for (unsigned i = from; i <= depth; i++)
        tu_kill(chain[i]);
}

static bool measure_unmap(unsigned long n, unsigned d)
{
    if (!build(n, d))
        return false;
    for (unsigned i = 0; i < npieces; i++)
        l4_set_mr(i, pieces[i]);
    uint64_t t0 = tsc();
    l4_unmap(npieces - 1);                  /* all rights, not our own pages (no flush) */
    uint64_t t1 = tsc();
    report("unmap", n, d, t1 - t0, (uint64_t)n * d);
    kill_chain(1);
    return true;
}

static void measure_delete(unsigned long n, unsigned d)
{
    if (!build(n, d))
        fail("chain");
    uint64_t t0 = tsc();
    tu_kill(chain[1]);
    uint64_t t1 = tsc();
    report("delete", n, d, t1 - t0, (uint64_t)n * d);
    kill_chain(2);
}

extern char __executable_start[], _end[];

int main(void)
{
    /* Have every page of our image first (tu_space_thread maps it to the new spaces): then
     * take every page σ0 has left, one 4 KiB page at a time. */
    for (char *p = __executable_start; p < _end; p += 4096)
        (void)*(volatile char *)p;
    unsigned long n = 0;
    while (n < MAX_PAGES) {
        l4_word_t got = l4_sigma0_get_any(l4_sigma0_tid(), 12, l4_fpage_log2(REGION + n * 4096, 12));
        if (l4_is_nil_fpage(got))
            break;
        n++;
    }
    /* Power-of-two counts for the slope, and the largest region memory allows. */
    printf("# unmapbench: %lu pages (%lu MiB) from sigma0\n", n, n >> 8);
    if (n < 1024)
        fail("too_little_memory");
    static const unsigned long sizes[] = { 1024, 4096, 16384 };
    for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]) && sizes[i] < n; i++) {
        measure_unmap(sizes[i], 1);
        measure_delete(sizes[i], 1);
    }
    /* The whole region, then longer and longer chains until the kernel's memory for
     * mappings runs out: the most mappings one call can ever remove in this guest. */
    for (unsigned d = 1; d <= MAX_DEPTH; d = d < 4 ? 2 * d : d + 1) {
        if (!measure_unmap(n, d))
            break;
        measure_delete(n, d);
    }
    printf("# worst: %s of %llu mappings, %llu guest instructions with interrupts off\n",
           worst_name, (unsigned long long)worst_maps, (unsigned long long)worst_tsc);
    printf("BENCH-DONE\n");
    qemu_exit(0);
    return 0;
}
