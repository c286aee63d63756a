/* Virtual-memory micro benchmarks of the SOSP'97 paper (000, §6.2, Table 5), as root task.
 * A tester thread T runs in its own address space; this task's main thread P is T's pager and
 * owns the memory T uses (the "specialized pager associated with the thread"):
 *   vm_fault   T touches a page it does not have; P maps an existing page (fault, IPC to the
 *              pager, map, completion of the instruction), per fault;
 *   vm_trap    from T's write to a write-protected page to P receiving the fault, per trap;
 *   vm_appel1  T writes a random protected page; P unprotects it, protects another page,
 *              resumes T ("trap + prot1 + unprot"), per operation;
 *   vm_appel2  P protects 100 pages with one Unmap, T then writes them in random order and
 *              P unprotects each ("protN + trap + unprot"), per page.
 * Protecting a page is P revoking write access from the mapping derived from its own
 * (Unmap); unprotecting is mapping it again with write access.
 * Output: BENCH name=<name> iters=<n> tsc_per_op=<x> tsc=<total> ns=<total>. */
#include <libl4.h>
#include <stdio.h>
#include <string.h>
#include "../tests/testutil.h"

void qemu_exit(unsigned code);

#define REGION     0x50000000ul         /* 128 pages, P's, mapped to T at the same address */
#define REGION_LOG2 19
#define NPAGES     100
#define FAULTS     0x60000000ul         /* T's fault area: fresh addresses */
#define FAULT_ITERS 2000
#define TRAP_ITERS  2000
#define APPEL1_ITERS 2000
#define APPEL2_ROUNDS 20

enum { CMD_GET_REGION = 0x100, CMD_PROTECT_ALL, CMD_FLUSH_FAULTS, CMD_MODE, CMD_RESULT, CMD_DONE };
enum { MODE_FAULT = 1, MODE_TRAP, MODE_APPEL1, MODE_APPEL2 };

static uint8_t backing_page[4096] __attribute__((aligned(4096)));
static volatile uint64_t trap_t0;           /* T's rdtsc just before the faulting write */
static volatile uint64_t trap_sum;
static volatile unsigned mode;

static inline uint64_t tsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi) :: "memory");
    return ((uint64_t)hi << 32) | lo;
}

static void report(const char *name, unsigned long iters, uint64_t t, uint64_t us)
{
    printf("BENCH name=%s iters=%lu tsc_per_op=%lu.%02lu tsc=%llu ns=%llu\n", name, iters,
           (unsigned long)(t / iters), (unsigned long)((t % iters) * 100 / iters),
           (unsigned long long)t, (unsigned long long)us * 1000);
}

/* --- T --------------------------------------------------------------------------------- */

static l4_word_t cmd(l4_word_t label, l4_word_t arg)
{
    l4_set_mr(0, l4_tag_make(label, 1, 0));
    l4_set_mr(1, arg);
    return l4_call(tu_main_tid());
}

static uint32_t rnd = 12345;
static unsigned next_page(void)
{
    rnd = rnd * 1103515245 + 12345;
    return (rnd >> 16) % NPAGES;
}

static void tester(void)
{
    /* Receive the region (P's pages, writable). */
    l4_set_br(0, l4_fpage_log2(REGION, REGION_LOG2));
    cmd(CMD_GET_REGION, 0);
    l4_set_br(0, 0);
    for (unsigned i = 0; i < NPAGES; i++)
        *(volatile uint64_t *)(REGION + i * 4096) = i;

    /* fault: fresh addresses, each mapped by P on demand */
    cmd(CMD_MODE, MODE_FAULT);
    for (unsigned i = 0; i < 100; i++)                      /* warm-up */
        (void)*(volatile uint64_t *)(FAULTS + i * 4096);
    cmd(CMD_FLUSH_FAULTS, 0);
    uint64_t c0 = l4_system_clock(), t0 = tsc();
    for (unsigned i = 0; i < FAULT_ITERS; i++)
        (void)*(volatile uint64_t *)(FAULTS + i * 4096);
    uint64_t t1 = tsc(), c1 = l4_system_clock();
    cmd(CMD_FLUSH_FAULTS, 0);
    report("vm_fault", FAULT_ITERS, t1 - t0, c1 - c0);

    /* trap: write-protected page to the pager's receive; P sums the latencies */
    cmd(CMD_MODE, MODE_TRAP);
    trap_sum = 0;
    c0 = l4_system_clock();
    for (unsigned i = 0; i < TRAP_ITERS + 100; i++) {
        if (i == 100) {
            trap_sum = 0;
            c0 = l4_system_clock();
        }
        cmd(CMD_PROTECT_ALL, 1);                            /* protect page 0 */
        trap_t0 = tsc();
        *(volatile uint64_t *)REGION = i;
    }
    c1 = l4_system_clock();
    report("vm_trap", TRAP_ITERS, trap_sum, (c1 - c0) / 2);  /* ns: rough, half a cycle */

    /* appel1: trap + prot1 + unprot */
    cmd(CMD_PROTECT_ALL, NPAGES);
    cmd(CMD_MODE, MODE_APPEL1);
    for (unsigned i = 0; i < 100; i++)
        *(volatile uint64_t *)(REGION + next_page() * 4096) = i;
    c0 = l4_system_clock();
    t0 = tsc();
    for (unsigned i = 0; i < APPEL1_ITERS; i++)
        *(volatile uint64_t *)(REGION + next_page() * 4096) = i;
    t1 = tsc();
    c1 = l4_system_clock();
    report("vm_appel1", APPEL1_ITERS, t1 - t0, c1 - c0);

    /* appel2: protN + N x (trap + unprot) */
    cmd(CMD_MODE, MODE_APPEL2);
    static uint8_t order[NPAGES];
    c0 = l4_system_clock();
    t0 = tsc();
    for (unsigned r = 0; r < APPEL2_ROUNDS; r++) {
        for (unsigned i = 0; i < NPAGES; i++)
            order[i] = (uint8_t)i;
        for (unsigned i = NPAGES - 1; i > 0; i--) {
            unsigned j = next_page() % (i + 1);
            uint8_t x = order[i]; order[i] = order[j]; order[j] = x;
        }
        cmd(CMD_PROTECT_ALL, NPAGES);
        for (unsigned i = 0; i < NPAGES; i++)
            *(volatile uint64_t *)(REGION + order[i] * 4096) = r;
    }
    t1 = tsc();
    c1 = l4_system_clock();
    report("vm_appel2", APPEL2_ROUNDS * NPAGES, t1 - t0, c1 - c0);

    cmd(CMD_DONE, 0);
    l4_sleep_forever();
}

/* --- P: the pager ---------------------------------------------------------------------- */

static void map_reply(l4_word_t sndbase, l4_word_t fpage)
{
    l4_set_mr(0, l4_tag_make(0, 0, 2));
    l4_set_mr(1, l4_map_item(sndbase));
    l4_set_mr(2, fpage);
}

/* Revoke T's write access to pages [0, n) of the region (one Unmap, up to 64 fpages). */
static void protect(unsigned n)
{
    unsigned k = 0;
    for (unsigned i = 0; i < n; ) {
        unsigned log2 = 0;
        while (!(i & ((2u << log2) - 1)) && i + (2u << log2) <= n && log2 < 7)
            log2++;
        l4_set_mr(k++, l4_fpage_log2(REGION + i * 4096ul, 12 + log2) | L4_W);
        i += 1u << log2;
    }
    l4_unmap(k - 1);
}

static unsigned last_unprotected;

int main(void)
{
    l4_word_t got = l4_sigma0_get_any(l4_sigma0_tid(), REGION_LOG2, l4_fpage_log2(REGION, REGION_LOG2));
    if (l4_is_nil_fpage(got)) {
        printf("vmbench: no memory from sigma0\n");
        qemu_exit(1);
    }
    memset((void *)REGION, 0, 1ul << REGION_LOG2);
    backing_page[0] = 1;
    l4_word_t t = tu_space_thread(tester, 255);
    printf("# vmbench: tester %lx\n", t);

    l4_word_t from, tag = l4_wait(&from);
    for (;;) {
        if (l4_ipc_failed(tag)) {
            tag = l4_wait(&from);
            continue;
        }
        if (l4_tag_is_proto(tag, L4_PROTO_PAGEFAULT)) {
            l4_word_t addr = l4_mr(L4_PF_ADDR), page = addr & ~0xFFFul;
            if (mode == MODE_TRAP)
                trap_sum += tsc() - trap_t0;
            if (addr >= FAULTS && addr < FAULTS + (1ul << 30)) {
                map_reply(page, l4_fpage_log2((l4_word_t)backing_page, 12) | L4_RWX);
            } else if (addr >= REGION && addr < REGION + (1ul << REGION_LOG2)) {
                if (mode == MODE_APPEL1) {
                    /* protect some other page: the one unprotected before */
                    l4_set_mr(0, l4_fpage_log2(REGION + last_unprotected * 4096ul, 12) | L4_W);
                    l4_unmap(0);
                    last_unprotected = (unsigned)((page - REGION) / 4096);
                }
                map_reply(page, l4_fpage_log2(page, 12) | L4_RWX);   /* unprotect */
            } else {
                /* T's image etc. (premapped, but be safe) */
                tag = tu_serve_continue(tag, &from);
                continue;
            }
            tag = l4_reply_wait(from, &from);
            continue;
        }
        switch (l4_tag_label(tag)) {
        case CMD_GET_REGION:
            map_reply(REGION, l4_fpage_log2(REGION, REGION_LOG2) | L4_RWX);
            break;
        case CMD_PROTECT_ALL:
            protect((unsigned)l4_mr(1));
            l4_set_mr(0, 0);
            break;
        case CMD_FLUSH_FAULTS:
            l4_set_mr(0, l4_fpage_log2((l4_word_t)backing_page, 12) | L4_RWX);
            l4_unmap(0);
            l4_set_mr(0, 0);
            break;
        case CMD_MODE:
            mode = (unsigned)l4_mr(1);
            l4_set_mr(0, 0);
            break;
        case CMD_DONE:
            printf("BENCH-DONE\n");
            qemu_exit(0);
            break;
        default:
            tag = l4_wait(&from);
            continue;
        }
        tag = l4_reply_wait(from, &from);
    }
}
