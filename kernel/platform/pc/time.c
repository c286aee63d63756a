/* Time on the PC: the PIT measures the TSC (the clock, arch/x86_64/tsc.c) and the local-APIC
 * timer, which gives the periodic tick (the PIT does where there is no local APIC). */
#include "platform.h"
#include "arch.h"
#include "cpu.h"
#include "x86.h"
#include "intctl.h"
#include "pic.h"
#include "config.h"
#include "console.h"

#define PIT_HZ 1193182ul

static uint64_t bus_khz;

uint64_t arch_bus_khz(void) { return bus_khz; }

/* Count `ticks` of the PIT's channel 2 (gate through port 0x61) and measure TSC and the
 * local-APIC timer meanwhile. */
static void calibrate(uint64_t *tsc_delta, uint32_t *apic_delta, unsigned ticks)
{
    outb(0x61, (inb(0x61) & ~0x02) | 0x01);     /* gate on, speaker off */
    outb(0x43, 0xB0);                           /* channel 2, lo/hi, mode 0 */
    outb(0x42, ticks & 0xFF);
    outb(0x42, ticks >> 8);
    if (lapic_present()) {
        lapic_write(LAPIC_TIMER_DIV, 0x3);          /* divide by 16 */
        lapic_write(LAPIC_TIMER_INIT, 0xFFFFFFFF);
    }
    uint8_t g = inb(0x61);
    outb(0x61, g & ~1);                         /* restart the count */
    outb(0x61, g | 1);
    uint64_t t0 = rdtsc();
    uint32_t a0 = lapic_present() ? lapic_read(LAPIC_TIMER_CUR) : 0;
    while (!(inb(0x61) & 0x20))
        ;
    uint32_t a1 = lapic_present() ? lapic_read(LAPIC_TIMER_CUR) : 0;
    *tsc_delta = rdtsc() - t0;
    *apic_delta = a0 - a1;
}

void arch_timer_init(void)
{
    const unsigned ticks = PIT_HZ / 50;             /* 20 ms */
    uint64_t dt;
    uint32_t da;
    calibrate(&dt, &da, ticks);
    uint64_t apic_hz = (uint64_t)da * PIT_HZ / ticks;
    bus_khz = apic_hz * 16 / 1000;
    tsc_clock_start(dt * PIT_HZ / ticks / 1000);
    if (lapic_present()) {
        uint32_t count = (uint32_t)(apic_hz * CONFIG_TICK_US / 1000000);
        lapic_write(LAPIC_TIMER_DIV, 0x3);
        lapic_write(LAPIC_LVT_TIMER, VEC_TIMER | (1u << 17));      /* periodic */
        lapic_write(LAPIC_TIMER_INIT, count ? count : 1);
    } else {
        unsigned div = (unsigned)(PIT_HZ * CONFIG_TICK_US / 1000000);
        outb(0x43, 0x34);                                       /* channel 0, rate generator */
        outb(0x40, div & 0xFF);
        outb(0x40, div >> 8);
        intctl_pit_tick = true;
        pic_unmask_line(0);
    }
    printk("time: TSC %lu kHz, bus %lu kHz, tick %u us\n", arch_tsc_khz(), bus_khz, CONFIG_TICK_US);
    nmiwatch_init();
}
