/* oom: memory exhaustion and large memory (tests/system/test_lx_mm.py, docs/linux/memory.md
 * §4).  A Linux program; lx's tests run it from busybox sh as pid 1.
 *
 *   oom eat          touch page after page of a 64 GiB MAP_NORESERVE mapping: the out-of-
 *                    memory killer ends it (SIGKILL) when memory is gone
 *   oom hold         a child waits on a pipe; the parent fills a 64 GiB MAP_NORESERVE buffer
 *                    with read() from /dev/zero (user copy, not page faults) until memory is
 *                    gone, then lets the child touch 16 fresh pages.  The parent holds the
 *                    most memory: it is the one to end, not the child that touches little
 *   oom sibling N    N rounds of: map 16 pages, touch them, unmap them; prints when done
 *   oom touch MIB    map MIB MiB (private, writable: promised), write a byte to every page,
 *                    check them, print the sum */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PG 4096ul

static void say(const char *s)
{
    if (write(1, s, strlen(s)) < 0)
        _exit(99);
}

static char *huge_noreserve(void)
{
    char *p = mmap(NULL, 64ul << 30, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        perror("oom: mmap");
        exit(2);
    }
    return p;
}

static int eat(void)
{
    volatile char *p = huge_noreserve();
    say("eat: touching\n");
    for (unsigned long i = 0; i < 64ul << 30; i += PG)
        p[i] = 1;
    say("eat: 64 GiB touched\n");
    return 1;
}

static int touch_pages(unsigned long n)
{
    char *p = mmap(NULL, n * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return 0;
    for (unsigned long i = 0; i < n; i++)
        p[i * PG] = (char)i;
    int ok = 1;
    for (unsigned long i = 0; i < n; i++)
        ok &= p[i * PG] == (char)i;
    munmap(p, n * PG);
    return ok;
}

static int hold(void)
{
    int go[2];
    if (pipe(go))
        return 2;
    pid_t child = fork();
    if (child == 0) {
        char c;
        close(go[1]);
        if (read(go[0], &c, 1) < 0)     /* the parent's byte, or its end */
            _exit(3);
        say(touch_pages(16) ? "hold: the small child touched 16 fresh pages\n"
                            : "hold: the small child could not touch its pages\n");
        _exit(0);
    }
    close(go[0]);
    /* Everything the parent does after filling memory is done once before, so that it
     * needs no new page then (its code, stack and stdio are present): on a kernel that
     * ends the faulting process, the child would be the one to go. */
    int st = 0;
    char full[] = "hold: memory is full and the parent lives on\n", go_byte = 'g';
    char ended[] = "hold: the child ended with status %d\n";
    printf("hold: filling memory (%d)\n", st);
    waitpid(-1, &st, WNOHANG);
    char *p = huge_noreserve();
    int zero = open("/dev/zero", O_RDONLY);
    unsigned long held = 0;
    for (;;) {
        long r = read(zero, p + held, 1 << 20);
        if (r <= 0)
            break;
        held += (unsigned long)r;
        if (r < 1 << 20)
            break;
    }
    say(full);
    if (write(go[1], &go_byte, 1) != 1)
        return 4;
    waitpid(child, &st, 0);
    printf(ended, st);
    return 0;
}

static int sibling(long rounds)
{
    for (long i = 0; i < rounds; i++)
        if (!touch_pages(16)) {
            printf("sibling: no memory in round %ld\n", i);
            return 1;
        }
    printf("sibling: %ld rounds of 16 fresh pages\n", rounds);
    return 0;
}

static int touch(unsigned long mib)
{
    unsigned long n = (mib << 20) / PG;
    unsigned char *p = mmap(NULL, n * PG, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("oom: mmap");
        return 2;
    }
    for (unsigned long i = 0; i < n; i++)
        p[i * PG] = (unsigned char)(i * 7);
    unsigned long sum = 0, bad = 0;
    for (unsigned long i = 0; i < n; i++) {
        sum += p[i * PG];
        bad += p[i * PG] != (unsigned char)(i * 7);
    }
    printf("touch: %lu MiB in %lu pages, %lu wrong, sum %lu\n", mib, n, bad, sum);
    return bad != 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc >= 2 && !strcmp(argv[1], "eat"))
        return eat();
    if (argc >= 2 && !strcmp(argv[1], "hold"))
        return hold();
    if (argc >= 3 && !strcmp(argv[1], "sibling"))
        return sibling(atol(argv[2]));
    if (argc >= 3 && !strcmp(argv[1], "touch"))
        return touch(strtoul(argv[2], NULL, 0));
    fprintf(stderr, "usage: oom eat | hold | sibling N | touch MIB\n");
    return 2;
}
