/*
 * Native-Linux reference benchmarks: shared helpers.
 *
 * These programs run ONLY as /init of a QEMU Linux guest (see
 * tools/linuxref/README.md), never on the host.  Under
 * `qemu -icount shift=0` the guest TSC advances by one per executed guest
 * instruction, so TSC deltas are instruction counts; without icount they are
 * host TSC ticks and only the ns figures are meaningful.
 */
#ifndef LINUXREF_BENCH_H
#define LINUXREF_BENCH_H

#include <stdint.h>
#include <time.h>

#define PAGE_SIZE 4096UL

/* lfence keeps rdtsc from being hoisted over earlier work on real CPUs;
 * under TCG it is simply one more (constant) instruction. */
static inline uint64_t tsc_now(void)
{
    uint32_t lo, hi;
    __asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
    return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t ns_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Console output with plain write(2): nothing stays buffered across fork(),
 * and a line is never split by our own buffering. */
void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* One result line: BENCH name=.. iters=.. tsc_per_op=.. ns_per_op=.. tsc=.. ns=..
 * tsc/ns are the totals over the timed part, so the host can recompute. */
void report(const char *name, long iters, uint64_t tsc, uint64_t ns);

/* For benchmarks whose timed part is a subset of a loop (setup excluded):
 * ns for the subset is tsc_part scaled by the whole loop's ns/tsc ratio,
 * because calling clock_gettime around every fragment would cost more than
 * the fragment itself. */
void report_scaled(const char *name, long iters, uint64_t tsc_part,
                   uint64_t tsc_all, uint64_t ns_all);

/* Reports a failure inside a benchmark; the benchmark then returns nonzero. */
void bench_fail(const char *name, const char *what);

/* Benchmarks: return 0 on success. Each runs in its own forked child of
 * init, so a crash or leaked mapping cannot affect the next one. */
int bench_tsc_calib(long iters, long warmup);
int bench_pipe_pingpong(long iters, long warmup);
int bench_futex_pingpong(long iters, long warmup);
int bench_getpid(long iters, long warmup);
int bench_trap(long iters, long warmup);
int bench_pagefault_anon(long iters, long warmup);
int bench_appel1(long iters, long warmup);
int bench_appel2(long iters, long warmup);

#endif
