/* The interrupter of docs/cache-partitioning.md, the paper's "synthetic load that maximizes
 * cache conflicts": a native L4 task above the real-time task's priority that wakes at every
 * timer tick (100 us with the benchmark's kernel, build/kernel-tick100.bin) and writes one word
 * of every cache line of its buffer, then sleeps to the next tick.  So the real-time task is
 * preempted every 100 us of virtual time, whatever it is doing, and finds the L2 (in the
 * colours the flood may use) swept each time.
 *
 * Command line (after the path; the root task reads prio=, heap= and colours= too):
 *   kib=K      the buffer swept per tick (default 256: the default model's L2)
 *   line=B     the stride, the L2's line size (default 64)
 * Output: "rt_flood: sweeping K KiB every tick (T us)" once. */
#include <libl4.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_option.h"

#define HEAP 0x100000000ul              /* the root task's anonymous heap region */

int main(void)
{
    l4_word_t bytes = rt_option("kib", 256) << 10, stride = rt_option("line", 64);
    if (!stride || stride % sizeof(l4_word_t))
        stride = 64;
    volatile l4_word_t *buf = (volatile l4_word_t *)HEAP;
    printf("rt_flood: sweeping %lu KiB every tick (%u us)\n", (unsigned long)(bytes >> 10),
           l4_kip_schedule_precision());
    for (l4_word_t pass = 0;; pass++) {
        for (l4_word_t i = 0; i < bytes / sizeof *buf; i += stride / sizeof *buf)
            buf[i] = pass;
        l4_sleep_us(1);                 /* to the next tick */
    }
}
