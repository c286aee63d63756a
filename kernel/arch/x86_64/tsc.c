/* The kernel's clock (contract §1.3: SystemClock and timeouts): the TSC, counted from boot and
 * scaled to microseconds.  The platform measures the TSC's frequency and starts it. */
#include "arch.h"
#include "cpu.h"
#include "x86.h"

static uint64_t tsc_boot, tsc_khz;
static uint64_t us_mult;                /* microseconds per TSC tick, scaled by 2^40 */
/* The SystemClock stub computes the clock in user mode from its own copies of the two
 * (the glue's syscall_stubs.S, in the user-visible stub page). */
extern uint64_t clock_tsc_boot, clock_us_mult;

uint64_t arch_tsc_khz(void) { return tsc_khz; }

uint64_t arch_clock_us(void)
{
    uint64_t d = rdtsc() - tsc_boot;
    return (uint64_t)(((unsigned __int128)d * us_mult) >> 40);
}

void tsc_clock_start(uint64_t khz)
{
    tsc_khz = khz;
    us_mult = (1000ull << 40) / tsc_khz;
    tsc_boot = rdtsc();
    /* The stub page is read-only in the image: written through the physmap. */
    *(uint64_t *)phys_to_virt(kernel_virt_to_phys(&clock_tsc_boot)) = tsc_boot;
    *(uint64_t *)phys_to_virt(kernel_virt_to_phys(&clock_us_mult)) = us_mult;
}
