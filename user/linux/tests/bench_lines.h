/* The BENCH lines of the personality's benchmark programs (lxbench.c, table4.c), which
 * tools/bench.py parses: include it after defining BENCH_PREFIX (the rows' name prefix). */
#ifndef LX_TESTS_BENCH_LINES_H
#define LX_TESTS_BENCH_LINES_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

/* Under -icount shift=0 the TSC counts guest instructions (docs/performance.md). */
static uint64_t tsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi) :: "memory");
    return ((uint64_t)hi << 32) | lo;
}

/* Lines go out with one write each: nothing stays buffered across fork. */
static void out(const char *fmt, ...)
{
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof line - 1)
        n = sizeof line - 1;
    if (write(1, line, (size_t)n) < 0)
        _exit(3);
}

static int report(const char *name, long iters, uint64_t ticks)
{
    out("BENCH name=" BENCH_PREFIX "%s iters=%ld tsc_per_op=%lu.%02lu tsc=%lu\n", name, iters,
        (unsigned long)(ticks / iters), (unsigned long)(ticks % iters * 100 / iters),
        (unsigned long)ticks);
    return 0;
}

/* A row that cannot run: the call that failed and its errno. */
static int na(const char *name, const char *what, int err)
{
    out("BENCH-NA name=" BENCH_PREFIX "%s errno=%d what=%s\n", name, err, what);
    return 1;
}

#endif
