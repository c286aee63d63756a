/* lx's PRNG (random.c), shared by /dev/[u]random and getrandom. */
#ifndef LX_LIB_RANDOM_H
#define LX_LIB_RANDOM_H

#include <stddef.h>

void lx_random_bytes(void *buf, size_t n);

#endif
