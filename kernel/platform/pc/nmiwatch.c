/* The NMI watchdog (boot option nmiwatch=US): the PIT's channel 0 raises an NMI every US
 * microseconds through the I/O APIC (delivery mode NMI on the line of ISA IRQ 0), whatever
 * the CPU is doing, interrupts off included.  The kernel runs with interrupts off, so a
 * kernel that loops for ever never sees its timer again: NMIs that find the CPU in the kernel
 * with the timer tick where the previous one left it, for nmistuck=MS milliseconds (default
 * 2000) in a row, report a lockup and enter the kernel debugger.  Armed from the first timer
 * tick on (the boot runs with interrupts off).  It is also the deterministic NMI source of
 * the tests (under -icount the PIT ticks in virtual time): docs/cpu-state.md.
 *
 * Without the option NMIs come only from outside (LINT1) and each is reported. */
#include "platform.h"
#include "intctl.h"
#include "pic.h"
#include "x86.h"
#include "boot.h"
#include "lib.h"
#include "console.h"
#include "kdb/kdb.h"

#define PIT_HZ            1193182ul
static unsigned period_us;              /* 0: no watchdog */
static uint64_t stuck_limit_us = 2000000;
static uint64_t last_tick, stuck_us;
static bool reported[2];                /* the first NMI in kernel / user mode was reported */

void nmiwatch_init(void)
{
    const char *v;
    if (!boot_option("nmiwatch", &v))
        return;
    unsigned long us = strtoul(v, NULL, 0);
    if (us < 100 || us > 50000) {
        printk("nmiwatch: period %lu us out of range (100-50000)\n", us);
        return;
    }
    if (!intctl_route_nmi(0)) {
        printk("nmiwatch: no I/O APIC line for the PIT: no watchdog\n");
        return;
    }
    unsigned div = (unsigned)(PIT_HZ * us / 1000000);
    outb(0x43, 0x34);                   /* channel 0, lo/hi, rate generator */
    outb(0x40, div & 0xFF);
    outb(0x40, div >> 8);
    period_us = (unsigned)us;
    if (boot_option("nmistuck", &v) && strtoul(v, NULL, 0))
        stuck_limit_us = strtoul(v, NULL, 0) * 1000;
    printk("nmiwatch: an NMI every %u us (lockup after %lu ms without a timer tick)\n",
           period_us, stuck_limit_us / 1000);
}

void platform_nmi(struct frame *f, bool from_user)
{
    if (!period_us) {
        printk("NMI in %s mode\n", from_user ? "user" : "kernel");
        return;
    }
    if (!reported[from_user]) {
        reported[from_user] = true;
        printk("NMI in %s mode (watchdog)\n", from_user ? "user" : "kernel");
    }
    uint64_t tick = intctl_timer_ticks;
    if (from_user || tick != last_tick || !tick) {
        last_tick = tick;
        stuck_us = 0;
        return;
    }
    stuck_us += period_us;
    if (stuck_us >= stuck_limit_us) {
        printk("\nnmiwatch: no timer tick for %lu ms in the kernel: a lockup\n",
               stuck_us / 1000);
        kdb_enter("NMI watchdog", f);
        stuck_us = 0;
    }
}
