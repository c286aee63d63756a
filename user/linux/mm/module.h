/* lx's windows onto data modules (module.c): the initramfs and program images, read-only in
 * lx's space and paged by the root task, taken a page at a time by a call, never by a touch. */
#ifndef LX_MM_MODULE_H
#define LX_MM_MODULE_H

#include <libl4.h>
#include <stdbool.h>

#define MODULE_WINDOW_MAX  0x40000000ul     /* the largest window whose pages are counted */

/* The window [base, base + size) whose pages module_in remembers (the initramfs: one). */
bool module_window(l4_word_t base, l4_word_t size);
/* Every page of lx's [p, p + len) of a module window present, or false: the kernel or the
 * root task had no memory for one of them (out of memory: the caller's error path). */
bool module_in(const void *p, l4_word_t len);

#endif
