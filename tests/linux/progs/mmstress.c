/* A compiler-sized memory workload (cc1 makes thousands of mappings: malloc arenas, its
 * garbage collector's page groups, files), compared with Linux:
 *   malloc  6,000 random malloc/realloc/free of 16 bytes to 320 KiB (the C library's brk
 *           heap and its mmaps), every block's bytes checked;
 *   regions 8,000 random mmap (MAP_FIXED), munmap, mprotect and MADV_DONTNEED of page
 *           ranges inside a 16 MiB PROT_NONE reservation, against a model of every page
 *           (mapped, rights, first byte); the results of the calls, the bytes, and the
 *           number of mappings /proc/self/maps shows inside the reservation (which says
 *           that regions are split and joined as Linux's are) must be Linux's.
 * Everything printed is a count or a checksum that does not depend on addresses. */
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include "corpus.h"

#define PG 4096ul
#define RES_PAGES 4096ul                /* 16 MiB */

static uint64_t rng = 0x2545F4914F6CDD1Dull;

static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    return (h ^ v) * 0x100000001B3ull;
}

/* --- malloc ------------------------------------------------------------------------------ */

#define NBLOCKS 300

static struct { unsigned char *p; size_t n; unsigned char seed; } blocks[NBLOCKS];

static size_t block_size(void)
{
    uint64_t r = rnd() % 100;
    if (r < 80)
        return 16 + rnd() % 2048;
    if (r < 99)
        return 2048 + rnd() % 65536;
    return 65536 + rnd() % (1 << 18);       /* the C libraries mmap these */
}

static int block_ok(int i)
{
    for (size_t k = 0; k < blocks[i].n; k += 61)
        if (blocks[i].p[k] != (unsigned char)(blocks[i].seed + k))
            return 0;
    return 1;
}

static void block_fill(int i, size_t from)
{
    for (size_t k = from; k < blocks[i].n; k++)
        blocks[i].p[k] = (unsigned char)(blocks[i].seed + k);
}

static void malloc_phase(void)
{
    long bad = 0, ops = 0, failed = 0;
    uint64_t h = 0;
    for (int step = 0; step < 6000; step++) {
        int i = (int)(rnd() % NBLOCKS);
        uint64_t op = rnd() % 10;
        if (!blocks[i].p) {
            size_t n = block_size();
            blocks[i].p = malloc(n);
            if (!blocks[i].p) {
                failed++;
                continue;
            }
            blocks[i].n = n;
            blocks[i].seed = (unsigned char)rnd();
            block_fill(i, 0);
        } else if (op < 6) {
            bad += !block_ok(i);
            free(blocks[i].p);
            blocks[i].p = NULL;
        } else {
            bad += !block_ok(i);
            size_t n = block_size();
            unsigned char *q = realloc(blocks[i].p, n);
            if (!q) {
                failed++;
                continue;
            }
            size_t old = blocks[i].n;
            blocks[i].p = q;
            blocks[i].n = n;
            if (n > old)
                block_fill(i, old);
            bad += !block_ok(i);
        }
        ops++;
        h = mix(h, blocks[i].n);
    }
    for (int i = 0; i < NBLOCKS; i++)
        if (blocks[i].p) {
            bad += !block_ok(i);
            h = mix(h, blocks[i].p[blocks[i].n - 1]);
            free(blocks[i].p);
            blocks[i].p = NULL;
        }
    printf("malloc: %ld operations, %ld failed, %ld blocks with wrong bytes, sizes %016llx\n",
           ops, failed, bad, (unsigned long long)h);
}

/* --- regions ----------------------------------------------------------------------------- */

enum { HOLE = 0, NONE = 1 };            /* else 1 + PROT_* (READ 2, READ|WRITE 4) */
static unsigned char state[RES_PAGES], first[RES_PAGES];
static char *res;

static unsigned char prot_state(long prot)
{
    return (unsigned char)(1 + prot);
}

static long rand_prot(void)
{
    static const long p[] = { PROT_NONE, PROT_READ, PROT_READ | PROT_WRITE,
                              PROT_READ | PROT_WRITE, PROT_READ | PROT_WRITE };
    return p[rnd() % 5];
}

/* The mappings /proc/self/maps shows inside the reservation. */
static long maps_inside(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return -1;
    char line[512];
    long n = 0;
    unsigned long lo = (unsigned long)res, hi = lo + RES_PAGES * PG;
    while (fgets(line, sizeof line, f)) {
        unsigned long s, e;
        if (sscanf(line, "%lx-%lx", &s, &e) == 2 && s >= lo && e <= hi)
            n++;
    }
    fclose(f);
    return n;
}

static void regions_phase(void)
{
    res = mmap(NULL, RES_PAGES * PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
               -1, 0);
    if (res == MAP_FAILED) {
        printf("regions: no reservation: %s\n", errname(errno));
        return;
    }
    memset(state, NONE, sizeof state);
    uint64_t results = 0;
    long calls = 0;
    for (int step = 0; step < 8000; step++) {
        unsigned long at = rnd() % RES_PAGES, n = 1 + rnd() % (rnd() % 4 ? 8 : 64);
        if (at + n > RES_PAGES)
            n = RES_PAGES - at;
        char *p = res + at * PG;
        uint64_t op = rnd() % 100;
        long r;
        if (op < 35) {                          /* map */
            long prot = rand_prot();
            r = (long)mmap(p, n * PG, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
            r = r == (long)p ? 0 : -errno;
            if (!r)
                for (unsigned long k = at; k < at + n; k++)
                    state[k] = prot_state(prot), first[k] = 0;
        } else if (op < 45) {                   /* unmap */
            r = munmap(p, n * PG) ? -errno : 0;
            if (!r)
                memset(&state[at], HOLE, n);
        } else if (op < 75) {                   /* protect: Linux stops at the first hole */
            long prot = rand_prot();
            r = mprotect(p, n * PG, prot) ? -errno : 0;
            for (unsigned long k = at; k < at + n && state[k] != HOLE; k++)
                state[k] = prot_state(prot);
        } else if (op < 85) {                   /* discard */
            r = madvise(p, n * PG, MADV_DONTNEED) ? -errno : 0;
            for (unsigned long k = at; k < at + n; k++)
                if (state[k] != HOLE)
                    first[k] = 0;
        } else {                                /* write what may be written */
            r = 0;
            for (unsigned long k = at; k < at + n; k++)
                if (state[k] == prot_state(PROT_READ | PROT_WRITE)) {
                    first[k] = (unsigned char)(1 + rnd() % 255);
                    res[k * PG] = (char)first[k];
                }
        }
        results = mix(results, (uint64_t)r);
        calls++;
    }
    long bad = 0, readable = 0;
    uint64_t model = 0;
    for (unsigned long k = 0; k < RES_PAGES; k++) {
        model = mix(model, state[k] * 256u + first[k]);
        if (state[k] >= prot_state(PROT_READ)) {
            readable++;
            bad += (unsigned char)res[k * PG] != first[k];
        }
    }
    printf("regions: %ld calls, results %016llx, model %016llx\n", calls,
           (unsigned long long)results, (unsigned long long)model);
    printf("regions: %ld readable pages, %ld with the wrong byte; %ld mappings in the "
           "reservation\n", readable, bad, maps_inside());
    munmap(res, RES_PAGES * PG);
}

int main(void)
{
    corpus_init();
    malloc_phase();
    regions_phase();
    return 0;
}
