/* The 8259 pair: remapped out of the exception vectors, and either masked for good (I/O APIC
 * mode) or used for the 16 ISA lines. */
#include "pic.h"
#include "x86.h"

static uint16_t pic_mask = 0xFFFF;

/* The pair's command and data ports, and their edge/level registers (ELCR): the kernel's,
 * whether it drives the ISA lines through them or keeps them masked (I/O APIC mode). */
static const struct { uint16_t base, size; } pic_ports[] = {
    { 0x20, 2 }, { 0xA0, 2 }, { 0x4D0, 2 },
};

bool arch_kernel_ports(unsigned i, uint32_t *base, uint32_t *size)
{
    if (i >= sizeof pic_ports / sizeof pic_ports[0])
        return false;
    *base = pic_ports[i].base;
    *size = pic_ports[i].size;
    return true;
}

static void write_mask(void)
{
    outb(0x21, pic_mask & 0xFF);
    outb(0xA1, pic_mask >> 8);
}

void pic_init(unsigned vector_base)
{
    outb(0x20, 0x11); outb(0xA0, 0x11);             /* ICW1: edge, cascade, ICW4 */
    outb(0x21, vector_base); outb(0xA1, vector_base + 8);
    outb(0x21, 4); outb(0xA1, 2);                   /* master has the slave on line 2 */
    outb(0x21, 1); outb(0xA1, 1);                   /* 8086 mode */
    pic_mask = 0xFFFF & ~(1u << 2);                 /* cascade stays open */
    write_mask();
}

void pic_disable(void)
{
    pic_mask = 0xFFFF;
    write_mask();
}

void pic_mask_line(unsigned n)
{
    pic_mask |= 1u << n;
    write_mask();
}

void pic_unmask_line(unsigned n)
{
    pic_mask &= ~(1u << n);
    write_mask();
}

void pic_eoi(unsigned n)
{
    if (n >= 8)
        outb(0xA0, 0x20);
    outb(0x20, 0x20);
}
