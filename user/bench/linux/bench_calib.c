/*
 * tsc_calib: checks "TSC delta == executed guest instructions" under
 * qemu -icount shift=0.  The timed sequence is written in assembly so its
 * instruction count is known exactly: after the first rdtsc come
 * mov, mov, N x (dec; jnz), lfence, rdtsc  =  2N + 4 instructions, so under
 * icount the delta must be exactly 2N + 4 (INFO line: exact=1) and the
 * slope (delta(2N) - delta(N)) / N exactly 2.00.  The minimum over several
 * repetitions is used because a timer interrupt landing inside one
 * repetition adds the handler's instructions.
 * Without icount the figures are host TSC ticks instead.
 */
#include <stdint.h>

#include "bench.h"

#define MAX_N 1000000000L /* keeps 2N + 4 inside the 32-bit delta */

static inline uint32_t timed_spin(long n)
{
    uint32_t d;
    __asm__ volatile("lfence\n\t"
                     "rdtsc\n\t"
                     "mov %%eax, %%esi\n\t"
                     "mov %1, %%rcx\n\t"
                     "1: dec %%rcx\n\t"
                     "jnz 1b\n\t"
                     "lfence\n\t"
                     "rdtsc\n\t"
                     "sub %%esi, %%eax\n\t"
                     : "=&a"(d)
                     : "r"(n)
                     : "rcx", "rdx", "rsi", "cc", "memory");
    return d;
}

static uint64_t min_delta(long n, int reps)
{
    uint64_t best = UINT64_MAX;
    for (int r = 0; r < reps; r++) {
        uint64_t d = timed_spin(n);
        if (d < best)
            best = d;
    }
    return best;
}

static uint64_t rep_stosb_delta(unsigned long n)
{
    static char buf[4096];
    uint64_t best = UINT64_MAX;
    for (int r = 0; r < 10; r++) {
        void *dst = buf;
        unsigned long cnt = n;
        uint64_t a = tsc_now();
        __asm__ volatile("rep stosb" : "+D"(dst), "+c"(cnt) : "a"(0) : "memory");
        uint64_t b = tsc_now();
        if (b - a < best)
            best = b - a;
    }
    return best;
}

int bench_tsc_calib(long iters, long warmup)
{
    (void)warmup;
    if (iters < 1) /* dec/jnz with 0 would wrap around */
        iters = 1;
    if (iters > MAX_N)
        iters = MAX_N;
    uint64_t d1 = min_delta(iters, 10);
    uint64_t d2 = min_delta(2 * iters, 10);
    uint64_t want1 = 2 * (uint64_t)iters + 4, want2 = 4 * (uint64_t)iters + 4;
    out("INFO tsc_calib n=%ld delta_n=%llu expected_n=%llu delta_2n=%llu expected_2n=%llu exact=%d\n",
        iters, (unsigned long long)d1, (unsigned long long)want1,
        (unsigned long long)d2, (unsigned long long)want2, d1 == want1 && d2 == want2);
    /* How icount charges a rep-prefixed string instruction (the kernel
     * clears and copies pages with them): ticks per byte of rep stosb. */
    uint64_t r1 = rep_stosb_delta(1024), r4 = rep_stosb_delta(4096);
    out("INFO rep_stosb delta_1024=%llu delta_4096=%llu ticks_per_byte=%.3f\n",
        (unsigned long long)r1, (unsigned long long)r4, (double)(r4 - r1) / 3072);
    /* Per-op: TSC slope per loop iteration (2.00 under icount); ns from one
     * separate run of N iterations. */
    uint64_t s0 = ns_now();
    timed_spin(iters);
    uint64_t s1 = ns_now();
    report("tsc_calib", iters, d2 - d1, s1 - s0);
    return 0;
}
