/* mem: the minimal memory calls a static Linux program makes before main and in malloc: brk
 * (grow, touch, shrink, a failed grow leaves it unchanged), anonymous mmap, munmap of one page in
 * the middle of a mapping and MAP_FIXED_NOREPLACE into that hole (which succeeds only if the
 * page really went away).  Prints no addresses; exit status 0 when every step holds. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

static int failures;

static void check(const char *what, int ok)
{
    printf("%s: %s\n", what, ok ? "ok" : "WRONG");
    if (!ok)
        failures++;
}

/* The raw system call: musl's sbrk() refuses to move the break, and the libc wrappers hide
 * the kernel's return value (the new break, or the old one on failure). */
static uintptr_t sys_brk(uintptr_t addr)
{
    return (uintptr_t)syscall(SYS_brk, addr);
}

int main(void)
{
    const long page = sysconf(_SC_PAGESIZE);
    check("page size 4096", page == 4096);

    uintptr_t start = sys_brk(0);
    uintptr_t grown = sys_brk(start + 8 * page);
    check("brk grows", grown == start + 8 * page);
    if (grown == start + 8 * page) {
        memset((void *)start, 0x5a, 8 * page);
        check("brk memory writable", ((volatile unsigned char *)start)[8 * page - 1] == 0x5a);
    }
    check("brk shrinks", sys_brk(start) == start);
    /* Far beyond any memory: Linux refuses and returns the current break unchanged. */
    check("brk refuses huge", sys_brk(start + ((uintptr_t)1 << 46)) == start);
    check("brk unchanged", sys_brk(0) == start);

    unsigned char *m = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    check("mmap anonymous", m != MAP_FAILED);
    if (m == MAP_FAILED)
        return 1;
    check("mmap page aligned", ((uintptr_t)m & (page - 1)) == 0);
    int zero = 1;
    for (long i = 0; i < 3 * page; i++)
        zero &= m[i] == 0;
    check("mmap zero filled", zero);
    memset(m, 0xa5, 3 * page);
    check("mmap writable", m[3 * page - 1] == 0xa5);

    check("munmap middle page", munmap(m + page, page) == 0);
    check("neighbours intact", m[0] == 0xa5 && m[2 * page] == 0xa5);
    void *hole = mmap(m + page, page, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    check("hole is free (MAP_FIXED_NOREPLACE)", hole == m + page);
    check("remapped page zero", hole == m + page && m[page] == 0);
    errno = 0;
    void *clash = mmap(m, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
                       -1, 0);
    check("MAP_FIXED_NOREPLACE on a mapping fails EEXIST", clash == MAP_FAILED && errno == EEXIST);
    check("munmap all", munmap(m, 3 * page) == 0);
    errno = 0;
    check("munmap unaligned fails EINVAL", munmap(m + 1, page) == -1 && errno == EINVAL);
    return failures != 0;
}
