/* x86 interrupt controllers and vectors. */
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

void intctl_init(void);
void intctl_line_interrupt(unsigned line);
void intctl_timer_eoi(void);
bool lapic_present(void);
uint32_t lapic_read(unsigned reg);
void lapic_write(unsigned reg, uint32_t v);
void lapic_eoi(void);

#endif
