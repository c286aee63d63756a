/* lx's random numbers, for /dev/random, /dev/urandom and getrandom(2): one xorshift64*
 * generator, seeded on first use from the L4 clock and the time-stamp counter.  Not
 * cryptographic: enough for hash seeds, temporary names and stack canaries. */
#include "lib/random.h"
#include "fs/proc/proc.h"
#include "fs/proc/sysctl.h"
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

/* kernel.random.uuid (a new version-4 UUID at each read) and kernel.random.boot_id (one,
 * made at its first read, for the whole run). */
static void show_uuid(struct out *o, const struct sysctl *s)
{
    static unsigned char boot[16];
    static bool made;
    unsigned char fresh[16], *u = s->data ? boot : fresh;
    if (!s->data || !made) {
        lx_random_bytes(u, 16);
        u[6] = (unsigned char)((u[6] & 0x0F) | 0x40);
        u[8] = (unsigned char)((u[8] & 0x3F) | 0x80);
        made |= s->data != NULL;
    }
    for (int k = 0; k < 16; k++)
        out_printf(o, "%02x%s", u[k], k == 3 || k == 5 || k == 7 || k == 9 ? "-" : "");
    out_printf(o, "\n");
}

/* The pool's figures as 6.1 shows them once it is ready (lx's is from the start). */
static int pool_bits = 256, reseed_secs = 60, wakeup_bits = 256;   /* the last two: kept only */

static struct sysctl random_sysctls[] = {
    { .path = "kernel/random/uuid", .mode = 0444, .show = show_uuid },
    { .path = "kernel/random/boot_id", .mode = 0444, .show = show_uuid, .data = (void *)1 },
    { .path = "kernel/random/entropy_avail", .mode = 0444, .show = sysctl_show_int,
      .data = &pool_bits },
    { .path = "kernel/random/poolsize", .mode = 0444, .show = sysctl_show_int,
      .data = &pool_bits },
    { .path = "kernel/random/urandom_min_reseed_secs", .mode = 0644, .show = sysctl_show_int,
      .store = sysctl_store_int, .data = &reseed_secs },
    { .path = "kernel/random/write_wakeup_threshold", .mode = 0644, .show = sysctl_show_int,
      .store = sysctl_store_int, .data = &wakeup_bits },
};
SYSCTL_TABLE(random_sysctls)
