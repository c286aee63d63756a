/* Interrupt controllers: I/O APIC when the MADT lists one, otherwise the 8259 pair (contract
 * decision 10).  Interrupt line n (= GSI n, = interrupt thread n) arrives on vector
 * VEC_IRQ_BASE + n.  The kernel's timer is the local-APIC timer (the PIT where there is no
 * local APIC). */
#include "intctl.h"
#include "acpi.h"
#include "pic.h"
#include "cpu.h"
#include "x86.h"
#include "paging.h"
#include "irq.h"
#include "console.h"

#define IOAPIC_REGSEL 0x00
#define IOAPIC_WIN    0x10

enum mode { MODE_PIC, MODE_IOAPIC };
static enum mode mode;
static unsigned nlines;
static uint8_t level_triggered[224 / 8];      /* masked in hardware until acknowledged */
bool intctl_pit_tick;           /* the PIT (line 0) is the kernel's timer */

static volatile uint32_t *lapic;

/* --- local APIC ---------------------------------------------------------------------- */

uint32_t lapic_read(unsigned reg)              { return lapic[reg / 4]; }
void lapic_write(unsigned reg, uint32_t v)     { lapic[reg / 4] = v; }

bool lapic_present(void)
{
    return lapic != NULL;
}

void lapic_eoi(void)
{
    if (lapic)
        lapic_write(LAPIC_EOI, 0);
}

static void lapic_init(void)
{
    if (!cpu_features.apic)
        return;
    paddr_t base = acpi_info.lapic_addr;
    wrmsr(MSR_APIC_BASE, (rdmsr(MSR_APIC_BASE) & 0xFFF) | base | (1u << 11));
    lapic = phys_to_virt(base);
    lapic_write(LAPIC_TPR, 0);
    lapic_write(LAPIC_LVT_LINT0, 1u << 16);
    /* External NMIs arrive on LINT1 (the PC wiring; QEMU's monitor NMI too): delivered as
     * NMIs, which the kernel reports on their IST stack (traps.c, docs/cpu-state.md). */
    lapic_write(LAPIC_LVT_LINT1, 4u << 8);
    lapic_write(LAPIC_LVT_TIMER, 1u << 16);
    lapic_write(LAPIC_SVR, VEC_SPURIOUS | (1u << 8));
}

/* --- I/O APIC ------------------------------------------------------------------------ */

static volatile uint32_t *ioapic_regs(unsigned gsi, unsigned *pin)
{
    for (unsigned i = 0; i < acpi_info.nioapic; i++) {
        struct ioapic_info *io = &acpi_info.ioapic[i];
        volatile uint32_t *r = phys_to_virt(io->addr);
        r[IOAPIC_REGSEL / 4] = 1;
        unsigned pins = ((r[IOAPIC_WIN / 4] >> 16) & 0xFF) + 1;
        if (gsi >= io->gsi_base && gsi < io->gsi_base + pins) {
            *pin = gsi - io->gsi_base;
            return r;
        }
    }
    return NULL;
}

static uint32_t ioapic_read(volatile uint32_t *r, unsigned reg)
{
    r[IOAPIC_REGSEL / 4] = reg;
    return r[IOAPIC_WIN / 4];
}

static void ioapic_write(volatile uint32_t *r, unsigned reg, uint32_t v)
{
    r[IOAPIC_REGSEL / 4] = reg;
    r[IOAPIC_WIN / 4] = v;
}

static void ioapic_set_mask(unsigned gsi, bool masked)
{
    unsigned pin;
    volatile uint32_t *r = ioapic_regs(gsi, &pin);
    if (!r)
        return;
    uint32_t lo = ioapic_read(r, 0x10 + 2 * pin);
    lo = masked ? lo | (1u << 16) : lo & ~(1u << 16);
    ioapic_write(r, 0x10 + 2 * pin, lo);
}

static void ioapic_init(void)
{
    nlines = 0;
    for (unsigned i = 0; i < acpi_info.nioapic; i++) {
        volatile uint32_t *r = phys_to_virt(acpi_info.ioapic[i].addr);
        unsigned pins = ((ioapic_read(r, 1) >> 16) & 0xFF) + 1;
        unsigned end = acpi_info.ioapic[i].gsi_base + pins;
        if (end > nlines)
            nlines = end;
    }
    if (nlines > 224)
        nlines = 224;
    for (unsigned gsi = 0; gsi < nlines; gsi++) {
        unsigned pin;
        volatile uint32_t *r = ioapic_regs(gsi, &pin);
        if (!r)
            continue;
        /* ISA lines are edge/active-high unless overridden; the rest level/active-low. */
        bool level = gsi >= 16, low = gsi >= 16;
        for (unsigned isa = 0; isa < 16; isa++) {
            struct isa_override *o = &acpi_info.isa[isa];
            if (o->present && o->gsi == gsi) {
                level = o->level;
                low = o->active_low;
            }
        }
        uint32_t lo = (VEC_IRQ_BASE + gsi) | (1u << 16) | (low ? 1u << 13 : 0) | (level ? 1u << 15 : 0);
        if (level)
            level_triggered[gsi / 8] |= 1u << (gsi % 8);
        ioapic_write(r, 0x10 + 2 * pin + 1, 0);         /* destination: APIC id 0 */
        ioapic_write(r, 0x10 + 2 * pin, lo);
    }
}

/* --- generic interface --------------------------------------------------------------- */

void intctl_init(void)
{
    acpi_init();
    lapic_init();
    pic_init(VEC_IRQ_BASE);
    if (lapic && acpi_info.nioapic) {
        mode = MODE_IOAPIC;
        pic_disable();
        ioapic_init();
    } else {
        mode = MODE_PIC;
        nlines = 16;
    }
    printk("irq: %s, %u lines, timer: %s\n", mode == MODE_IOAPIC ? "I/O APIC" : "8259 PIC",
           nlines, lapic ? "local APIC" : "PIT");
}

unsigned arch_irq_lines(void)
{
    return nlines;
}

bool arch_irq_available(unsigned n)
{
    if (n >= nlines)
        return false;
    if (mode == MODE_PIC && (n == 2 || (n == 0 && intctl_pit_tick)))
        return false;                   /* cascade, kernel timer */
    return true;
}

void arch_irq_mask(unsigned n)
{
    if (mode == MODE_IOAPIC)
        ioapic_set_mask(n, true);
    else if (n != 2)
        pic_mask_line(n);
}

void arch_irq_unmask(unsigned n)
{
    if (mode == MODE_IOAPIC)
        ioapic_set_mask(n, false);
    else
        pic_unmask_line(n);
}

/* A device interrupt: a level-triggered line is masked until its handler acknowledges (an
 * edge-triggered one stays open: irq.c remembers an edge that comes meanwhile), then EOI. */
void intctl_line_interrupt(unsigned n)
{
    if (mode == MODE_IOAPIC && (level_triggered[n / 8] & (1u << (n % 8))))
        arch_irq_mask(n);
    if (mode == MODE_IOAPIC)
        lapic_eoi();
    else
        pic_eoi(n);
    irq_raise(n);
}

void intctl_timer_eoi(void)
{
    if (intctl_pit_tick)
        pic_eoi(0);
    else
        lapic_eoi();
}
