/* Time (clock.c; docs/linux/time.md): lx's clocks and the user's time values. */
#ifndef LX_TIME_CLOCK_H
#define LX_TIME_CLOCK_H

#include <libl4.h>
#include <stdint.h>

struct mm;

#define NSEC_PER_SEC 1000000000ull

uint64_t lx_now(void);              /* nanoseconds since boot (the kernel's clock) */

/* Read the CMOS RTC once (lx's start): the wall clock runs from it. */
void clock_init(void);
uint64_t clock_realtime(void);      /* ns since the epoch */
void clock_set_realtime(uint64_t ns);
int64_t clock_realtime_offset(void); /* REALTIME - lx_now(), ns */

/* A struct timespec / timeval from the process as ns: 0, -EFAULT or -EINVAL (a negative
 * or out-of-range field). */
int timespec_get(struct mm *mm, l4_word_t uts, uint64_t *ns);
int timeval_get(struct mm *mm, l4_word_t utv, uint64_t *ns);
int timespec_put(struct mm *mm, l4_word_t uts, uint64_t ns);
int timeval_put(struct mm *mm, l4_word_t utv, uint64_t ns);

/* The time-stamp counter, for CPU time (cheap on every system call) and its value in ns. */
static inline uint64_t tsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (uint64_t)hi << 32 | lo;
}
uint64_t clock_tsc_ns(uint64_t ticks);

#endif
