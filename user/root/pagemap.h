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

/* Page colours (docs/cache-partitioning.md): page p has colour p % PAGEMAP_COLOURS.  Root's
 * pool comes from sigma0 in 2 MiB blocks mapped at 2 MiB-aligned addresses, so a pool page's
 * colour is its physical page number's too, for every physically indexed cache with at most
 * 64 colours (a cache of C colours, C dividing 64, sees colour p % C). */
#define PAGEMAP_COLOURS 64
/* The lowest free page whose colour is in `mask` (bit c: colour c); PAGEMAP_NONE if none. */
unsigned long pagemap_find_coloured(uint64_t mask);

/* Bitmap words looked at by pagemap_find since the start: its cost, for the tests
 * (tests/host/root_pagemap_test.c bounds it per allocation). */
extern unsigned long pagemap_words_examined;

#endif
