/* Flexpages: memory fpages (contract §1.2) and I/O fpages (§6.7). */
#ifndef L4_FPAGE_H
#define L4_FPAGE_H

#include "types.h"

#define L4_R  4u
#define L4_W  2u
#define L4_X  1u
#define L4_RWX 7u
#define L4_NOACCESS 0u

#define L4_NILPAGE        0x0ull
#define L4_COMPLETE_FPAGE 0x10ull

static inline l4_word_t l4_fpage_rights(l4_word_t f) { return f & 7; }
static inline l4_word_t l4_fpage_set_rights(l4_word_t f, l4_word_t r) { return (f & ~7ull) | (r & 7); }
static inline unsigned  l4_fpage_size_log2(l4_word_t f) { return (unsigned)((f >> 4) & 0x3F); }

/* An I/O fpage has the size field set to 2, which no memory fpage uses. */
static inline bool l4_is_io_fpage(l4_word_t f) { return ((f >> 4) & 0x3F) == 2; }
static inline bool l4_is_nil_fpage(l4_word_t f) { return (f & ~7ull) == 0; }
static inline bool l4_is_complete_fpage(l4_word_t f) { return (f & ~0xFull) == L4_COMPLETE_FPAGE; }

/* Memory fpage constructor: base is aligned down to the size. */
static inline l4_word_t l4_fpage_log2(l4_word_t base, unsigned log2size)
{
    if (log2size >= 64)
        return L4_COMPLETE_FPAGE;
    l4_word_t mask = log2size >= 64 ? ~0ull : ((1ull << log2size) - 1);
    return ((base & ~mask) & ~0x3FFull) | ((l4_word_t)(log2size & 0x3F) << 4);
}

/* Base address of a memory fpage (complete fpage: 0). */
static inline l4_word_t l4_fpage_base(l4_word_t f)
{
    unsigned s = l4_fpage_size_log2(f);
    if (l4_is_complete_fpage(f))
        return 0;
    l4_word_t mask = s >= 64 ? ~0ull : ((1ull << s) - 1);
    return f & ~mask & ~0x3FFull;
}

/* log2 of the size of a memory fpage; 64 for the complete fpage, 0 for nilpage. */
static inline unsigned l4_fpage_order(l4_word_t f)
{
    if (l4_is_complete_fpage(f))
        return 64;
    if (l4_is_nil_fpage(f))
        return 0;
    return l4_fpage_size_log2(f);
}

/* I/O fpages: bits 10-15 log2 of the port count, bits 16-31 the base port. */
static inline l4_word_t l4_io_fpage(unsigned port, unsigned log2count)
{
    port &= ~((1u << log2count) - 1) & 0xFFFF;
    return ((l4_word_t)port << 16) | ((l4_word_t)log2count << 10) | (2u << 4);
}

static inline unsigned l4_io_fpage_log2(l4_word_t f)  { return (unsigned)((f >> 10) & 0x3F); }
static inline unsigned l4_io_fpage_port(l4_word_t f)
{
    unsigned s = l4_io_fpage_log2(f);
    unsigned mask = s >= 16 ? 0xFFFF : ((1u << s) - 1);
    return (unsigned)((f >> 16) & 0xFFFF) & ~mask;
}

#endif
