/* libl4: start-up (called by crt0 before main) and the default exit(). */
#include <libl4.h>
#include <stdio.h>
#include <stdlib.h>

void *l4_kip_base;
l4_word_t l4lib_start_sp;           /* set by crt0: the RSP the task was started with */

const struct l4_task_start *l4_task_start(void)
{
    const struct l4_task_start *ts = (const struct l4_task_start *)l4lib_start_sp;
    return ts && ts->magic == L4_TASK_START_MAGIC ? ts : NULL;
}

const char *l4_task_cmdline(void)
{
    const struct l4_task_start *ts = l4_task_start();
    return ts ? ts->cmdline : "";
}

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

/* Every page of the image (text, read-only data, data) read once, so that its pager maps it
 * now: a server that must go on when the kernel's memory is exhausted cannot fault on a page
 * of its own code later (the pager's map would be refused, and the fault repeated for ever).
 * .bss needs nothing: crt0 has written every page of it (and the stack in it).  The pagers of
 * the servers that use this (the kernel for sigma0, sigma0 for the root task, the root task
 * for its boot modules) map a page with its region's rights whatever the access. */
extern const char __executable_start[], _edata[];

void l4_image_touch(void)
{
    for (const volatile char *p = __executable_start; p < _edata; p += 4096)
        (void)*p;
}

/* Weak so that a program can supply its own. */
__attribute__((weak)) void exit(int code)
{
    char line[48];
    snprintf(line, sizeof line, "task exited with code %d\n", code);
    l4_kdb_puts(line);
    l4_sleep_forever();
}
