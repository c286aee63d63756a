/* Halting and idling. */
#include "arch.h"

void arch_halt_forever(void)
{
    for (;;)
        __asm__ volatile("cli; hlt");
}

void arch_idle(void)
{
    __asm__ volatile("sti; hlt; cli" ::: "memory");
}
