/* mlock, mlock2, munlock, mlockall, munlockall, mincore: ranges, holes, PROT_NONE, file
 * pages, flags and the errors.  (The protection-key calls are not compared: the reference
 * guest's CPU has PKU, lx's processes run without it: docs/linux/memory.md.) */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sys/mman.h>
#include <sys/syscall.h>
#include "corpus.h"

static void residency(const char *what, void *p, size_t len)
{
    unsigned char v[16];
    long r = mincore(p, len, v);
    if (r < 0) {
        printf("%s: -1 %s\n", what, errname(errno));
        return;
    }
    printf("%s:", what);
    for (size_t k = 0; k < (len + 4095) / 4096; k++)
        printf(" %d", v[k] & 1);
    printf("\n");
}

int main(void)
{
    corpus_init();
    char *m = mmap(NULL, 8 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    residency("fresh", m, 4 * 4096);
    m[4096] = 1;
    residency("one touched", m, 4 * 4096);
    SHOW("mlock 2 pages", mlock(m + 2 * 4096, 2 * 4096));
    residency("after mlock", m, 4 * 4096);
    SHOW("mlock unaligned", mlock(m + 5 * 4096 + 10, 100));
    residency("after unaligned mlock", m + 4 * 4096, 4 * 4096);
    SHOW("mlock2 ONFAULT", syscall(SYS_mlock2, m + 6 * 4096, 4096, MLOCK_ONFAULT));
    residency("after mlock2 ONFAULT", m + 6 * 4096, 2 * 4096);
    SHOW("mlock2 bad flags", syscall(SYS_mlock2, m, 4096, 2));
    SHOW("munlock", munlock(m, 8 * 4096));
    SHOW("mlock 0 bytes", mlock(m, 0));
    munmap(m + 4 * 4096, 4096);
    SHOW("mlock over a hole", mlock(m, 8 * 4096));
    SHOW("munlock over a hole", munlock(m, 8 * 4096));
    SHOW("mlock unmapped", mlock((void *)0x10000000, 4096));
    residency("over a hole", m, 8 * 4096);
    residency("hole first", m + 4 * 4096, 4096);
    SHOW("mincore unaligned", mincore(m + 1, 4096, (unsigned char[1]){0}));
    SHOW("mincore bad vector", mincore(m, 4096, (unsigned char *)8));
    SHOW("mincore past user space", mincore((void *)0x7ffffffff000, 0x2000, (unsigned char[2]){0}));
    SHOW("mincore 0", mincore(m, 0, NULL));
    char *none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    SHOW("mlock PROT_NONE", mlock(none, 4096));
    residency("PROT_NONE", none, 4096);

    /* a file mapping: pages the file has count as resident */
    FILE *f = fopen("mf", "w+");
    fwrite("data", 1, 4, f);
    fflush(f);
    char *fm = mmap(NULL, 2 * 4096, PROT_READ, MAP_SHARED, fileno(f), 0);
    residency("file mapping", fm, 2 * 4096);

    SHOW("mlockall 0", mlockall(0));
    SHOW("mlockall ONFAULT alone", mlockall(MCL_ONFAULT));
    SHOW("mlockall bad", mlockall(8));
    SHOW("mlockall CURRENT|FUTURE", mlockall(MCL_CURRENT | MCL_FUTURE));
    SHOW("munlockall", munlockall());

    return 0;
}
