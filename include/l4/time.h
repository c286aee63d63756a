/* Time values: 16-bit periods and points (contract §1.3). */
#ifndef L4_TIME_H
#define L4_TIME_H

#include "types.h"

#define L4_NEVER     0x0000u
#define L4_ZERO_TIME 0x0400u

static inline bool l4_time_is_point(uint16_t t) { return (t & 0x8000u) != 0; }
static inline bool l4_time_is_never(uint16_t t) { return t == L4_NEVER; }
static inline unsigned l4_period_e(uint16_t t) { return (t >> 10) & 0x1F; }
static inline unsigned l4_period_m(uint16_t t) { return t & 0x3FF; }

/* Any period with m = 0 and e != 0 is zero (contract §9.1 #11). */
static inline bool l4_time_is_zero(uint16_t t)
{
    return !l4_time_is_point(t) && l4_period_m(t) == 0 && l4_period_e(t) != 0;
}

/* Duration of a period in microseconds (never -> ~0). */
static inline uint64_t l4_period_us(uint16_t t)
{
    if (l4_time_is_never(t))
        return ~0ull;
    return (uint64_t)l4_period_m(t) << l4_period_e(t);
}

/* Encode a duration as a period, rounding up to the next representable value.
 * 0 us encodes as zero (0x0400), unlike Pistachio's libl4 which encodes never. */
static inline uint16_t l4_period_from_us(uint64_t us)
{
    if (us == 0)
        return L4_ZERO_TIME;
    unsigned e = 0;
    while (us > 1023) {
        us = (us >> 1) + (us & 1);  /* round up so the period is never shorter */
        e++;
    }
    if (e > 31)
        return L4_NEVER;
    return (uint16_t)((e << 10) | us);
}

/* Point: bit 15 set, bit 10 = c, bits 11-14 = e, bits 0-9 = m.  The instant T >= now at which
 * bits e..e+9 of the clock equal m and bit e+10 equals c. */
static inline unsigned l4_point_e(uint16_t t) { return (t >> 11) & 0xF; }
static inline unsigned l4_point_c(uint16_t t) { return (t >> 10) & 1; }
static inline unsigned l4_point_m(uint16_t t) { return t & 0x3FF; }

/* Absolute clock value (us) denoted by a point.  A point names an instant in the current
 * 2^(e+10) us window of the clock or in the following one: c is the parity of that window's
 * index, m << e the offset in it.  A result below `now` means the point has already passed. */
static inline uint64_t l4_point_to_clock(uint16_t t, uint64_t now)
{
    unsigned shift = l4_point_e(t) + 10;
    uint64_t window = now >> shift;
    if ((window & 1) != l4_point_c(t))
        window++;
    return (window << shift) | ((uint64_t)l4_point_m(t) << l4_point_e(t));
}

/* Timeouts word: bits 0-15 receive timeout, bits 16-31 send timeout. */
static inline l4_word_t l4_timeouts(uint16_t snd, uint16_t rcv) { return ((l4_word_t)snd << 16) | rcv; }
static inline uint16_t l4_snd_timeout(l4_word_t w) { return (uint16_t)(w >> 16); }
static inline uint16_t l4_rcv_timeout(l4_word_t w) { return (uint16_t)w; }

#endif
