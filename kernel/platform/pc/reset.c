/* Leaving the machine: rebooting a PC, ending a QEMU run. */
#include "platform.h"
#include "arch.h"
#include "x86.h"

/* QEMU's isa-debug-exit device (iobase 0xf4): the process exits with status (code << 1) | 1. */
void arch_qemu_exit(unsigned code)
{
    outl(0xF4, code);
    arch_halt_forever();
}

void arch_reboot(void)
{
    /* Keyboard controller reset, then a triple fault as the fallback. */
    for (int i = 0; i < 1000 && (inb(0x64) & 2); i++)
        ;
    outb(0x64, 0xFE);
    struct PACKED { uint16_t limit; uint64_t base; } idtr = { 0, 0 };
    __asm__ volatile("lidt %0; int3" :: "m"(idtr));
    arch_halt_forever();
}
