/* Small objects for lx's own structures from the page pool (kmalloc.c). */
#ifndef LX_LIB_KMALLOC_H
#define LX_LIB_KMALLOC_H

#include <stddef.h>

void *kmalloc(size_t n);            /* zeroed; NULL when exhausted; n <= 4096 */
void kfree(void *p);

#endif
