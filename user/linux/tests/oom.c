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
 *                    check them, print the sum
 *   oom spread N     up to N children that each touch 64 pages 2 MiB apart (64 page tables
 *                    of the kernel's each) and wait: run with a small kernel pool, the
 *                    kernel's memory runs out before lx's; fork failing or a child killed
 *                    ends the round, then all are let go and reaped, with a count */
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

/* A child: 64 pages, 2 MiB apart, then one byte on `up`, then wait for the end of `end`. */
static void spread_child(int up, int end)
{
    char *p = mmap(NULL, 128ul << 20, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        _exit(2);
    for (unsigned long i = 0; i < 64; i++)
        p[i << 21] = 1;
    char c = 'u';
    if (write(up, &c, 1) != 1)
        _exit(3);
    while (read(end, &c, 1) > 0)
        ;
    _exit(0);
}

static int spread(int n)
{
    int *end_w = calloc((size_t)n, sizeof *end_w);
    pid_t *pids = calloc((size_t)n, sizeof *pids);
    int forked = 0, ready = 0;
    const char *why = "the count";
    for (; forked < n; forked++) {
        int up[2], end[2];
        if (pipe(up) || pipe(end)) {
            why = "pipe failed";
            break;
        }
        pid_t pid = fork();
        if (pid < 0) {
            why = "fork failed";
            close(up[0]), close(up[1]), close(end[0]), close(end[1]);
            break;
        }
        if (pid == 0) {
            close(up[0]);
            close(end[1]);
            spread_child(up[1], end[0]);
        }
        close(up[1]);
        close(end[0]);
        end_w[forked] = end[1];
        pids[forked] = pid;
        char c;
        long r = read(up[0], &c, 1);    /* its byte, or EOF: it was killed first */
        close(up[0]);
        if (r != 1) {
            why = "a child ended before it was ready";
            forked++;
            break;
        }
        ready++;
        int st;
        pid_t gone = waitpid(-1, &st, WNOHANG);     /* the OOM killer's victim, if any */
        if (gone > 0) {
            why = "a child was killed";
            for (int i = 0; i <= forked; i++)
                if (pids[i] == gone)
                    pids[i] = -st - 1;      /* reaped: its status kept */
            forked++;
            break;
        }
    }
    for (int i = 0; i < forked; i++)
        close(end_w[i]);
    int exited = 0, killed = 0, other = 0;
    for (int i = 0; i < forked; i++) {
        int st = -pids[i] - 1;
        if (pids[i] > 0 && waitpid(pids[i], &st, 0) != pids[i])
            other++;
        else if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
            exited++;
        else if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
            killed++;
        else
            other++;
    }
    printf("spread: %d forked, %d ready, stopped by %s; %d exited, %d killed, %d other\n",
           forked, ready, why, exited, killed, other);
    return other != 0;
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
    if (argc >= 3 && !strcmp(argv[1], "spread"))
        return spread(atoi(argv[2]));
    fprintf(stderr, "usage: oom eat | hold | sibling N | touch MIB | spread N\n");
    return 2;
}
