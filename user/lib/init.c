/* libl4: start-up (called by crt0 before main) and the default exit(). */
#include <libl4.h>
#include <stdio.h>
#include <stdlib.h>

void *l4_kip_base;

/* Constructors (.init_array), bounded by symbols of user/lib/program.ld. */
extern void (*const __init_array_start[])(void);
extern void (*const __init_array_end[])(void);

void l4lib_init(void)
{
    l4_kip_base = l4_kernel_interface(NULL, NULL, NULL);
    l4lib_init_syscalls(l4_kip_base);
    for (void (*const *ctor)(void) = __init_array_start; ctor < __init_array_end; ctor++)
        (*ctor)();
}

/* Weak so that a program can supply its own. */
__attribute__((weak)) void exit(int code)
{
    char line[48];
    snprintf(line, sizeof line, "task exited with code %d\n", code);
    l4_kdb_puts(line);
    l4_sleep_forever();
}
