/* The root task (bring-up version). */
#include <libl4.h>
#include <stdio.h>

static inline void outl_port(unsigned short port, unsigned v)
{
    __asm__ volatile("outl %0, %1" :: "a"(v), "Nd"(port));
}

int main(void)
{
    printf("root: hello, I am %llx, KIP at %p\n", (unsigned long long)l4_my_global_id(), l4_kip());
    printf("root: clock %llu us\n", (unsigned long long)l4_system_clock());
    static char buf[3 * 4096];
    for (unsigned i = 0; i < sizeof(buf); i += 4096)
        buf[i] = 1;
    printf("root: touched bss; exiting QEMU\n");
    outl_port(0xf4, 0);
    return 0;
}
