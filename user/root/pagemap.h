/* Which pages of root's pool are handed out: one bit per page, and a summary bit per 64-page
 * word that is full, so that finding the lowest free page skips 4096 used pages per step. */
#ifndef ROOT_PAGEMAP_H
#define ROOT_PAGEMAP_H

#include <stdbool.h>
#include <stdint.h>

#define PAGEMAP_PAGES  (1ul << 22)                  /* ROOT_HEAP_SIZE / 4096 */
#define PAGEMAP_NONE   PAGEMAP_PAGES

void pagemap_mark(unsigned long first, unsigned long n, bool used);
bool pagemap_used(unsigned long page);
/* The lowest run of n free pages (first fit); PAGEMAP_NONE if there is none. */
unsigned long pagemap_find(unsigned long n);
void pagemap_reset(void);

/* Bitmap words looked at by pagemap_find since the start: its cost, for the tests
 * (tests/host/root_pagemap_test.c bounds it per allocation). */
extern unsigned long pagemap_words_examined;

#endif
