/* The kernel's debug console on COM1, polled.  The kernel only writes here (and reads while in
 * the debugger), so a user-level COM1 driver can coexist with it (contract §9.4 #10). */
#include "types.h"
#include "x86.h"

#define COM1 0x3F8

void arch_serial_init(void)
{
    outb(COM1 + 1, 0x00);       /* no interrupts from the kernel's side */
    outb(COM1 + 3, 0x80);       /* DLAB */
    outb(COM1 + 0, 0x01);       /* 115200 baud */
    outb(COM1 + 1, 0x00);
    outb(COM1 + 3, 0x03);       /* 8N1 */
    outb(COM1 + 2, 0xC7);       /* FIFO on, cleared */
    outb(COM1 + 4, 0x0B);       /* DTR, RTS, OUT2 */
}

void arch_serial_putc(char c)
{
    for (int i = 0; i < 100000 && !(inb(COM1 + 5) & 0x20); i++)
        __asm__ volatile("pause");
    outb(COM1, (uint8_t)c);
}

int arch_serial_getc(void)
{
    if (inb(COM1 + 5) & 0x01)
        return inb(COM1);
    return -1;
}
