/* Memory: brk, mmap (anonymous, fixed, errors), munmap, mprotect with faults in children,
 * MAP_SHARED across fork, copy-on-write. */
#include <sys/mman.h>
#include <sys/wait.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "corpus.h"

static void in_child(const char *what, void (*fn)(void *), void *arg)
{
    pid_t pid = fork();
    if (pid == 0) {
        fn(arg);
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    show_status(what, st);
}

static void store(void *p) { *(volatile char *)p = 1; }
static void load(void *p) { (void)*(volatile char *)p; }

int main(void)
{
    corpus_init();
    long pg = sysconf(_SC_PAGESIZE);
    printf("page size %ld\n", pg);

    uintptr_t b0 = syscall(SYS_brk, 0);
    uintptr_t b1 = syscall(SYS_brk, b0 + 3 * pg);
    printf("brk grows: %d\n", b1 == b0 + 3 * pg);
    memset((void *)b0, 0x5a, 3 * pg);
    uintptr_t b2 = syscall(SYS_brk, b0 + pg);
    printf("brk shrinks: %d\n", b2 == b0 + pg);
    uintptr_t b3 = syscall(SYS_brk, b0 + ((uintptr_t)1 << 46));
    printf("huge brk refused, break unchanged: %d\n", b3 == b2);
    uintptr_t b4 = syscall(SYS_brk, b0 + 2 * pg);
    printf("regrown page is zero: %d\n", ((char *)b0)[pg] == 0);
    (void)b4;

    char *p = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    printf("mmap: %s, aligned %d\n", p == MAP_FAILED ? errname(errno) : "ok",
           ((uintptr_t)p & (pg - 1)) == 0);
    int zero = 1;
    for (long i = 0; i < 4 * pg; i++)
        zero &= p[i] == 0;
    printf("zero filled: %d\n", zero);
    memset(p, 'x', 4 * pg);
    SHOW("munmap the second page", munmap(p + pg, pg));
    in_child("load from the hole", load, p + pg);
    in_child("load next to the hole", load, p + 2 * pg);
    SHOW("mprotect read-only", mprotect(p, pg, PROT_READ));
    in_child("store to read-only", store, p);
    in_child("load from read-only", load, p);
    SHOW("mprotect none", mprotect(p + 2 * pg, pg, PROT_NONE));
    in_child("load from PROT_NONE", load, p + 2 * pg);
    SHOW("mprotect back", mprotect(p + 2 * pg, pg, PROT_READ | PROT_WRITE));
    printf("content kept: %c\n", p[2 * pg]);
    SHOW("mprotect unaligned", mprotect(p + 1, pg, PROT_READ));
    SHOW("mprotect bad prot", mprotect(p, pg, 0x100));
    SHOW("mprotect of the hole", mprotect(p + pg, pg, PROT_READ));
    SHOW("munmap unaligned", munmap(p + 1, pg));
    SHOW("munmap length 0", munmap(p, 0));
    SHOW("munmap of the hole again", munmap(p + pg, pg));

    void *q = mmap(p + pg, pg, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    printf("MAP_FIXED into the hole: %d\n", q == p + pg);
    q = mmap(p, pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    printf("MAP_FIXED_NOREPLACE on a mapping: %s\n", q == MAP_FAILED ? errname(errno) : "mapped");
    q = mmap(NULL, 0, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    printf("mmap length 0: %s\n", q == MAP_FAILED ? errname(errno) : "mapped");
    q = mmap(NULL, pg, PROT_READ, MAP_ANONYMOUS, -1, 0);
    printf("mmap neither private nor shared: %s\n", q == MAP_FAILED ? errname(errno) : "mapped");
    q = mmap(p + 1, pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    printf("MAP_FIXED unaligned: %s\n", q == MAP_FAILED ? errname(errno) : "mapped");
    q = mmap(NULL, pg, PROT_READ, MAP_PRIVATE, 99, 0);
    printf("file mapping of a bad fd: %s\n", q == MAP_FAILED ? errname(errno) : "mapped");

    /* Copy-on-write: the child's writes stay its own; MAP_SHARED is shared. */
    char *s = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    strcpy(s, "parent");
    strcpy(p + 3 * pg, "parent");
    pid_t pid = fork();
    if (pid == 0) {
        strcpy(s, "child");
        strcpy(p + 3 * pg, "child");
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    printf("after the child wrote: shared '%s', private '%s'\n", s, p + 3 * pg);
    SHOW("munmap all", munmap(p, 4 * pg));
    SHOW("munmap shared", munmap(s, pg));
    return 0;
}
