/* lx's random numbers, for /dev/random, /dev/urandom and getrandom(2): one xorshift64*
 * generator, seeded on first use from the L4 clock and the time-stamp counter.  Not
 * cryptographic: enough for hash seeds, temporary names and stack canaries. */
#include "lib/random.h"
#include <libl4.h>
#include <stdint.h>

static uint64_t state;

static uint64_t next(void)
{
    if (!state) {
        uint32_t lo, hi;
        __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
        uint64_t z = (uint64_t)l4_system_clock() ^ ((uint64_t)hi << 32 | lo);
        z += 0x9E3779B97F4A7C15ull;          /* splitmix64 of the seed: never 0 after */
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        state = (z ^ (z >> 31)) | 1;
    }
    state ^= state >> 12, state ^= state << 25, state ^= state >> 27;
    return state * 0x2545F4914F6CDD1Dull;
}

void lx_random_bytes(void *buf, size_t n)
{
    uint8_t *p = buf;
    while (n) {
        uint64_t v = next();
        for (unsigned k = 0; k < 8 && n; k++, n--, v >>= 8)
            *p++ = (uint8_t)v;
    }
}
