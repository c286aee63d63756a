/* Thread identifiers (contract §1.1). */
#ifndef L4_THREAD_H
#define L4_THREAD_H

#include "types.h"

#define L4_NILTHREAD        0x0000000000000000ull
#define L4_ANYTHREAD        0xFFFFFFFFFFFFFFFFull
#define L4_ANYLOCALTHREAD   0xFFFFFFFFFFFFFFC0ull

/* Global id: bits 0-31 version, bits 32-63 thread number. Local id: low 6 bits zero. */
static inline l4_word_t l4_global_id(l4_word_t number, l4_word_t version)
{
    return (number << 32) | (version & 0xFFFFFFFFull);
}

static inline l4_word_t l4_thread_no(l4_word_t id)  { return id >> 32; }
static inline l4_word_t l4_version(l4_word_t id)    { return id & 0xFFFFFFFFull; }
static inline bool l4_is_local_id(l4_word_t id)     { return (id & 0x3F) == 0; }
static inline bool l4_is_global_id(l4_word_t id)    { return (id & 0x3F) != 0; }
static inline bool l4_is_nil(l4_word_t id)          { return id == L4_NILTHREAD; }

/* A version can be used only if its low six bits are not all zero. */
static inline bool l4_version_valid(l4_word_t version) { return (version & 0x3F) != 0; }

#endif
