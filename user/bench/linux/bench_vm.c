/*
 * Virtual-memory benchmarks after Appel & Li, as used in Table 5 of
 * "The Performance of u-Kernel-Based Systems" (SOSP'97, section 6.2):
 *
 *   trap           write to a write-protected page until the SIGSEGV handler
 *                  is entered (the paper's "Trap" latency).  The same run
 *                  also reports trap_unprot: until the write has completed
 *                  after the handler unprotected the page and returned.
 *   pagefault_anon first write to a fresh anonymous page (demand-zero fault),
 *                  per page.  Stands in for the paper's "Fault" (user-level
 *                  pager), which has no native-Linux equivalent.
 *   appel1         trap+prot1+unprot: write to a randomly chosen protected
 *                  page; the handler unprotects it and protects the page it
 *                  unprotected last time.  Per access.
 *   appel2         protN+trap+unprot: protect 100 pages with one mprotect,
 *                  then write them in random order; the handler unprotects
 *                  only the faulting page.  Per page (protN amortized).
 *
 * Protection is PROT_READ and access is a write, and all pages are populated
 * before timing, so every trap is a protection fault, never a demand fault.
 * Random orders come from a fixed-seed generator and are computed outside
 * the timed parts: runs are deterministic under icount.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "bench.h"

#define APPEL_PAGES 100 /* the "100 pages" of Appel2; Appel1 uses the same region */
#define TRAP_PAGES 256  /* pages protected per batch in the trap benchmark */
#define FAULT_CHUNK 1024 /* pages mapped per mmap in pagefault_anon (4 MiB) */

enum mode { M_TRAP, M_APPEL1, M_APPEL2 };

static char *g_region;
static size_t g_pages;
static enum mode g_mode;
static long g_unprot = -1;          /* appel1: the one currently writable page */
static volatile uint64_t g_t_entry; /* trap: TSC at handler entry */
static volatile long g_faults;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    uint64_t t = tsc_now(); /* first thing: this is where "trap" ends */
    (void)sig;
    (void)uc;
    char *a = si->si_addr;
    if (a < g_region || a >= g_region + g_pages * PAGE_SIZE) {
        /* A real bug: let the re-executed access kill us with SIGSEGV. */
        signal(SIGSEGV, SIG_DFL);
        return;
    }
    g_t_entry = t;
    g_faults++;
    long pg = (a - g_region) / PAGE_SIZE;
    mprotect(g_region + pg * PAGE_SIZE, PAGE_SIZE, PROT_READ | PROT_WRITE);
    if (g_mode == M_APPEL1) {
        if (g_unprot >= 0)
            mprotect(g_region + g_unprot * PAGE_SIZE, PAGE_SIZE, PROT_READ);
        g_unprot = pg;
    }
}

static int setup_region(const char *name, size_t pages, enum mode mode)
{
    g_region = mmap(NULL, pages * PAGE_SIZE, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (g_region == MAP_FAILED) {
        bench_fail(name, "mmap");
        return 1;
    }
    /* 4 KiB PTEs, as in the paper; THP would change what mprotect splits. */
    madvise(g_region, pages * PAGE_SIZE, MADV_NOHUGEPAGE);
    for (size_t i = 0; i < pages; i++)
        g_region[i * PAGE_SIZE] = 1;
    g_pages = pages;
    g_mode = mode;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, &sa, NULL)) {
        bench_fail(name, "sigaction");
        return 1;
    }
    return 0;
}

static inline void touch(char *p)
{
    *(volatile char *)p = 2;
}

/* xorshift32: fixed seed, so the "random" sequences repeat exactly. */
static uint32_t g_rng = 0x9e3779b9u;
static uint32_t rnd(uint32_t n)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 17;
    g_rng ^= g_rng << 5;
    return g_rng % n;
}

static int check_faults(const char *name, long expect)
{
    if (g_faults != expect) {
        out("BENCH-ERROR name=%s reason=fault-count got=%ld want=%ld\n", name, (long)g_faults, expect);
        return 1;
    }
    return 0;
}

/* Smallest TSC delta of two back-to-back reads: subtracted from the per-fault
 * samples of the trap benchmark, where the reads are inside the timed span. */
static uint64_t tsc_pair_overhead(void)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 1000; i++) {
        uint64_t a = tsc_now(), b = tsc_now();
        if (b - a < best)
            best = b - a;
    }
    return best;
}

int bench_trap(long iters, long warmup)
{
    if (setup_region("trap", TRAP_PAGES, M_TRAP))
        return 1;
    uint64_t ovh = tsc_pair_overhead();
    uint64_t sum_entry = 0, sum_full = 0;
    long done = 0, total = warmup + iters;
    uint64_t n0 = ns_now(), t0 = tsc_now();
    while (done < total) {
        /* Re-protect a batch (untimed: that is prot, not trap). */
        mprotect(g_region, TRAP_PAGES * PAGE_SIZE, PROT_READ);
        for (long i = 0; i < TRAP_PAGES && done < total; i++, done++) {
            uint64_t a = tsc_now();
            touch(g_region + i * PAGE_SIZE);
            uint64_t b = tsc_now();
            if (done >= warmup) {
                sum_entry += g_t_entry - a - ovh;
                sum_full += b - a - ovh;
            }
        }
    }
    uint64_t t1 = tsc_now(), n1 = ns_now();
    if (check_faults("trap", total))
        return 1;
    report_scaled("trap", iters, sum_entry, t1 - t0, n1 - n0);
    report_scaled("trap_unprot", iters, sum_full, t1 - t0, n1 - n0);
    return 0;
}

int bench_pagefault_anon(long iters, long warmup)
{
    const char *name = "pagefault_anon";
    uint64_t sum = 0;
    long done = 0, total = warmup + iters;
    uint64_t n0 = ns_now(), t0 = tsc_now();
    while (done < total) {
        long n = total - done < FAULT_CHUNK ? total - done : FAULT_CHUNK;
        /* Warm-up and timed pages never share a chunk, so a chunk is
         * either entirely timed or entirely not. */
        if (done < warmup && done + n > warmup)
            n = warmup - done;
        char *p = mmap(NULL, n * PAGE_SIZE, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            bench_fail(name, "mmap");
            return 1;
        }
        madvise(p, n * PAGE_SIZE, MADV_NOHUGEPAGE);
        uint64_t a = tsc_now();
        for (long i = 0; i < n; i++)
            touch(p + i * PAGE_SIZE);
        uint64_t b = tsc_now();
        if (done >= warmup)
            sum += b - a;
        munmap(p, n * PAGE_SIZE);
        done += n;
    }
    uint64_t t1 = tsc_now(), n1 = ns_now();
    report_scaled(name, iters, sum, t1 - t0, n1 - n0);
    return 0;
}

int bench_appel1(long iters, long warmup)
{
    const char *name = "appel1";
    long total = warmup + iters;
    uint32_t *seq = malloc(total * sizeof *seq);
    if (!seq) {
        bench_fail(name, "malloc");
        return 1;
    }
    /* Consecutive pages differ, so every access hits a protected page. */
    for (long i = 0, prev = -1; i < total; i++) {
        uint32_t r = rnd(APPEL_PAGES);
        if ((long)r == prev)
            r = (r + 1) % APPEL_PAGES;
        seq[i] = r;
        prev = r;
    }
    if (setup_region(name, APPEL_PAGES, M_APPEL1))
        return 1;
    mprotect(g_region, APPEL_PAGES * PAGE_SIZE, PROT_READ);
    for (long i = 0; i < warmup; i++)
        touch(g_region + seq[i] * PAGE_SIZE);
    uint64_t n0 = ns_now(), t0 = tsc_now();
    for (long i = warmup; i < total; i++)
        touch(g_region + seq[i] * PAGE_SIZE);
    uint64_t t1 = tsc_now(), n1 = ns_now();
    if (check_faults(name, total))
        return 1;
    report(name, iters, t1 - t0, n1 - n0);
    return 0;
}

int bench_appel2(long iters, long warmup)
{
    const char *name = "appel2";
    /* Whole rounds of 100 pages: protN is amortized over exactly 100. */
    long rounds = (iters + APPEL_PAGES - 1) / APPEL_PAGES;
    long wrounds = (warmup + APPEL_PAGES - 1) / APPEL_PAGES;
    uint32_t perm[APPEL_PAGES];
    for (int i = 0; i < APPEL_PAGES; i++)
        perm[i] = i;
    if (setup_region(name, APPEL_PAGES, M_APPEL2))
        return 1;
    uint64_t sum = 0;
    uint64_t n0 = ns_now(), t0 = tsc_now();
    for (long r = 0; r < wrounds + rounds; r++) {
        for (int i = APPEL_PAGES - 1; i > 0; i--) { /* Fisher-Yates, untimed */
            uint32_t j = rnd(i + 1), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        uint64_t a = tsc_now();
        mprotect(g_region, APPEL_PAGES * PAGE_SIZE, PROT_READ);
        for (int i = 0; i < APPEL_PAGES; i++)
            touch(g_region + perm[i] * PAGE_SIZE);
        uint64_t b = tsc_now();
        if (r >= wrounds)
            sum += b - a;
    }
    uint64_t t1 = tsc_now(), n1 = ns_now();
    if (check_faults(name, (wrounds + rounds) * APPEL_PAGES))
        return 1;
    report_scaled(name, rounds * APPEL_PAGES, sum, t1 - t0, n1 - n0);
    return 0;
}
