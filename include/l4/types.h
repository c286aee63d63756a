/* Basic types of the L4 X.2 binary interface (amd64): one word is 64 bits. */
#ifndef L4_TYPES_H
#define L4_TYPES_H

#include <stdint.h>
#include <stdbool.h>

typedef uint64_t l4_word_t;

#define L4_WORD_BITS 64

/* The user area is the lower canonical half (contract §9.1 #15). */
#define L4_USER_AREA_END 0x0000800000000000ull

static inline bool l4_is_user_range(l4_word_t addr, l4_word_t size)
{
    return addr < L4_USER_AREA_END && size <= L4_USER_AREA_END - addr;
}

#endif
