/* The PC's interrupt controllers (local APIC, I/O APIC, 8259s) and the vectors they use. */
#ifndef INTCTL_H
#define INTCTL_H

#include "types.h"

#define VEC_IRQ_BASE   0x20
#define VEC_TIMER      0xF0
#define VEC_SPURIOUS   0xFF

#define LAPIC_ID        0x020
#define LAPIC_TPR       0x080
#define LAPIC_EOI       0x0B0
#define LAPIC_SVR       0x0F0
#define LAPIC_LVT_TIMER 0x320
#define LAPIC_LVT_LINT0 0x350
#define LAPIC_LVT_LINT1 0x360
#define LAPIC_TIMER_INIT 0x380
#define LAPIC_TIMER_CUR  0x390
#define LAPIC_TIMER_DIV  0x3E0

extern bool intctl_pit_tick;
extern uint64_t intctl_timer_ticks;      /* the kernel's timer interrupts so far (nmiwatch.c) */

/* An interrupt on vector v (>= 32; trap_dispatch): the kernel's tick, a device line (its
 * interrupt thread's IPC, irq.c), or anything else (acknowledged). */
void intctl_interrupt(unsigned v);
/* Route ISA line isa through the I/O APIC as an NMI (edge, its polarity): false where there is
 * no I/O APIC line for it. */
bool intctl_route_nmi(unsigned isa);
void nmiwatch_init(void);
bool lapic_present(void);
uint32_t lapic_read(unsigned reg);
void lapic_write(unsigned reg, uint32_t v);

#endif
