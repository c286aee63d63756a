/* vm.max_map_count (65,530): one process maps pages of alternating protection (no two can
 * merge) until mmap fails; at the limit, the calls that would need a new region fail with
 * ENOMEM (mmap, a split by mprotect or munmap) and the ones that need none still work;
 * /proc/self/maps lists every mapping, in order.  The counts are /proc/self/maps's lines
 * without [vsyscall] (Linux shows it, but it is no mapping of the process), which is
 * Linux's map_count; they are the same on both kernels, whatever the program had mapped
 * before, as long as the limit is the same. */
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include "corpus.h"

#define PG 4096ul
#define MAX_TRIES 70000

static char buf[1 << 16];
static unsigned long starts[MAX_TRIES + 8];

/* The mappings /proc/self/maps shows: their number, and whether they are in address
 * order and disjoint, every line well formed. */
static long count_maps(int *ordered)
{
    int fd = open("/proc/self/maps", O_RDONLY);
    if (fd < 0)
        return -1;
    long n = 0, r;
    unsigned long last_end = 0;
    char line[512];
    size_t len = 0;
    *ordered = 1;
    while ((r = read(fd, buf, sizeof buf)) > 0) {
        for (long i = 0; i < r; i++) {
            if (buf[i] != '\n') {
                if (len < sizeof line - 1)
                    line[len++] = buf[i];
                continue;
            }
            line[len] = 0;
            len = 0;
            if (strstr(line, "[vsyscall]"))
                continue;
            unsigned long s, e;
            char perms[8];
            if (sscanf(line, "%lx-%lx %7s", &s, &e, perms) != 3 || s >= e || s < last_end)
                *ordered = 0;
            last_end = e;
            n++;
        }
    }
    close(fd);
    return r < 0 ? -1 : n;
}

static void show_count(const char *what)
{
    int ordered;
    long n = count_maps(&ordered);
    printf("%s: %ld mappings, in order %d\n", what, n, ordered);
}

int main(void)
{
    corpus_init();
    /* Regions to split and merge at the limit, made first: three and two join (anonymous
     * memory with the same rights), trio is three regions of one page each. */
    char *three = mmap(NULL, 3 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char *two = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char *trio = mmap(NULL, 3 * PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (three == MAP_FAILED || two == MAP_FAILED || trio == MAP_FAILED ||
        mprotect(trio + PG, PG, PROT_READ | PROT_WRITE))
        printf("setup failed: %s\n", errname(errno));
    int ordered;
    long base = count_maps(&ordered);
    long made = 0;
    int err = 0;
    for (; made < MAX_TRIES; made++) {
        void *p = mmap(NULL, PG, made % 2 ? PROT_READ : PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            err = errno;
            break;
        }
        starts[made] = (unsigned long)p;
    }
    long at_limit = count_maps(&ordered);
    printf("mmap failed with %s after %s mappings; maps shows %ld, in order %d\n",
           errname(err), made + base == at_limit ? "all its" : "not all its", at_limit,
           ordered);
    /* At the limit: what would make a region more fails, what makes none works. */
    SHOW("mmap one more", (long)mmap(NULL, PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) < 0
         ? -1 : 0);
    SHOW("mprotect the middle of three pages", mprotect(three + PG, PG, PROT_READ));
    SHOW("munmap the middle of three pages", munmap(three + PG, PG));
    SHOW("mprotect the first of two pages", mprotect(two, PG, PROT_READ));
    SHOW("munmap the first of two pages", munmap(two, PG));
    SHOW("mprotect the middle of three to its neighbours' rights", mprotect(trio + PG, PG,
                                                                          PROT_READ));
    show_count("  after (three became one)");
    /* Executable anonymous pages: nothing they could merge with. */
    SHOW("mmap one more now", (long)mmap(NULL, PG, PROT_READ | PROT_EXEC,
                                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) < 0 ? -1 : 0);
    SHOW("and another", (long)mmap(NULL, PG, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
                                   -1, 0) < 0 ? -1 : 0);
    SHOW("and one more", (long)mmap(NULL, PG, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
                                    -1, 0) < 0 ? -1 : 0);
    SHOW("MAP_FIXED over the middle of three pages", (long)mmap(three + PG, PG, PROT_READ,
         MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) < 0 ? -1 : 0);
    show_count("at the limit again");
    /* The pages are usable (a sample: all would be 128 MiB); then all go. */
    long bad = 0;
    for (long i = 0; i < made; i += 64)
        ((volatile char *)starts[i])[0] = (char)i;
    for (long i = 0; i < made; i += 64)
        bad += ((volatile char *)starts[i])[0] != (char)i;
    printf("every page written kept its byte: %d\n", bad == 0);
    /* mmap placed them top-down, each right below the last: one munmap takes them all. */
    long adjacent = 1, unmapped = 0;
    for (long i = 1; i < made; i++)
        adjacent &= starts[i] == starts[i - 1] - PG;
    if (adjacent && made)
        unmapped = munmap((void *)starts[made - 1], made * PG) == 0 ? made : 0;
    else
        for (long i = 0; i < made; i++)
            unmapped += munmap((void *)starts[i], PG) == 0;
    printf("placed each right below the last: %ld; unmapped them all: %d\n", adjacent,
           unmapped == made);
    int ord2;
    long after = count_maps(&ord2);
    printf("back to %s mappings, in order %d\n",
           after <= base + 4 ? "the first" : "more than the first", ord2);
    return 0;
}
