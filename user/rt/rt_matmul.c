/* A real-time L4 task (docs/cache-partitioning.md): each period it multiplies two 64x64
 * matrices, at a priority above lx's, released by IPC timeouts.  The multiplication is the
 * cachesim plugin's region 1, whose modelled cycles the plugin records per period; this task
 * records per period the release jitter (the kernel clock at the start of the work minus the
 * planned release) and whether the work ended after its deadline (the next release).
 *
 * Command line (after the path; the root task reads prio=, heap= and colours= too):
 *   periods=N      periods to run (default 50); then it ends QEMU (it is the experiment)
 *   period_us=P    the period (default 50000; a multiple of the tick)
 *   chunk=R        0: run each multiplication in one piece (alone, or preempted every 100 us
 *                  by rt_flood on the 100 us-tick kernel); R: sleep one timer tick after
 *                  every R rows, letting lower priorities (lx and its load) run: the
 *                  "interrupted" runs on the default kernel (its 1 ms tick cannot wake
 *                  anything at 100 us, and nothing of lower priority can preempt us, so we
 *                  step aside ourselves)
 *   exit=0         do not end QEMU after the last period (default 1)
 * Output: "rt: period K late_us=J end_us=E missed=M sum=S" per period, then
 *         "rt: done periods=N missed=M late_max_us=J late_avg_us=A". */
#include <libl4.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_option.h"

#include "cachesim_mark.h"

#define N 64
#define HEAP 0x100000000ul              /* the root task's anonymous heap region */

typedef uint32_t matrix[N][N];

static inline void outl_port(unsigned short port, unsigned v)
{
    __asm__ volatile("outl %0, %1" :: "a"(v), "Nd"(port));
}

/* Apart from multiply(), so that multiply's own data accesses are the matrices' and its stack
 * frame's only (tests/system/test_rt.py counts them by colour; the IPC's are the UTCB's). */
static __attribute__((noinline)) void step_aside(void)
{
    l4_sleep_us(1);                     /* to the next tick */
}

/* C = A x B, stepping aside after every `chunk` rows; returns a checksum of C. */
static __attribute__((noinline)) uint32_t multiply(const matrix *a, const matrix *b, matrix *c, unsigned chunk)
{
    for (unsigned i = 0; i < N; i++) {
        for (unsigned j = 0; j < N; j++) {
            const uint32_t *row = (*a)[i], *col = &(*b)[0][j];
            uint32_t s = 0;
            for (unsigned k = 0; k < N; k++, col += N)
                s += row[k] * *col;
            (*c)[i][j] = s;
        }
        if (chunk && (i + 1) % chunk == 0 && i + 1 < N)
            step_aside();
    }
    uint32_t sum = 0;
    for (unsigned i = 0; i < N; i++)
        sum = sum * 31 + (*c)[i][i];
    return sum;
}

int main(void)
{
    unsigned periods = (unsigned)rt_option("periods", 50), chunk = (unsigned)rt_option("chunk", 0);
    l4_word_t period = rt_option("period_us", 50000);
    matrix *a = (matrix *)HEAP, *b = a + 1, *c = a + 2;
    for (unsigned i = 0; i < N; i++)
        for (unsigned j = 0; j < N; j++) {
            (*a)[i][j] = i * 7 + j;
            (*b)[i][j] = i ^ (j * 3);
            (*c)[i][j] = 0;
        }
    printf("rt: matmul %ux%u, %u periods of %lu us, chunk %u\n", N, N, periods,
           (unsigned long)period, chunk);

    unsigned missed = 0;
    l4_word_t late_max = 0, late_sum = 0;
    /* Releases on timer ticks (timeouts end at ticks: docs/scheduling.md), so the lateness
     * measured is the kernel's, not the phase of our first release. */
    l4_word_t tick = l4_kip_schedule_precision() ?: 1000;
    l4_word_t release = (l4_system_clock() / tick + 1) * tick + period;
    for (unsigned k = 0; k < periods; k++) {
        /* A timeout ends at the first tick at or after now + the period asked for, and
         * the kernel's now is a little later than ours: ask for half a tick less, so the
         * timeout ends at the release tick, not the one after. */
        l4_word_t now = l4_system_clock();
        if (now + tick / 2 < release)
            l4_sleep_us(release - now - tick / 2);
        l4_word_t start = l4_system_clock();
        CACHESIM_START(1);
        uint32_t sum = multiply(a, b, c, chunk);
        CACHESIM_END(1);
        l4_word_t end = l4_system_clock(), late = start > release ? start - release : 0;
        bool miss = end > release + period;
        missed += miss;
        late_sum += late;
        if (late > late_max)
            late_max = late;
        printf("rt: period %u late_us=%lu end_us=%lu missed=%u sum=%x\n", k,
               (unsigned long)late, (unsigned long)(end - release), (unsigned)miss, sum);
        release += period;
    }
    printf("rt: done periods=%u missed=%u late_max_us=%lu late_avg_us=%lu\n", periods, missed,
           (unsigned long)late_max, (unsigned long)(periods ? late_sum / periods : 0));
    if (rt_option("exit", 1))
        outl_port(0xF4, 0);             /* QEMU's isa-debug-exit: status 1 */
    l4_sleep_forever();
}
