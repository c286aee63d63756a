/* /dev/l4chan on lx (docs/linux/l4chan.md): two processes get a channel of native L4 IPC and
 * reach each other without lx in the path; everything else is refused; Linux system calls go
 * on working in the same thread; a signal interrupts a blocked native IPC; a partner that
 * exits ends the other's IPC with an error and takes the rights with it.  lx only: on Linux
 * there is no /dev/l4chan. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../../lib/include/l4chan.h"

static volatile sig_atomic_t got_usr1;

static void on_usr1(int sig)
{
    (void)sig;
    got_usr1 = 1;
}

static unsigned code(uint64_t err)
{
    return (unsigned)((err >> 1) & 7);
}

/* A child's end once joined: answers label 1 with MR1 + 1; on label 2 signals its parent
 * (which waits in its call) and goes on; on label 99 exits without answering. */
static void serve(int ready)
{
    (void)!write(ready, "j", 1);
    uint64_t mr[8], sender;
    uint64_t err = l4chan_receive(L4CHAN_ANYTHREAD, mr, &sender);
    for (;;) {
        if (err) {
            printf("child receive error %u\n", code(err));
            _exit(1);
        }
        uint64_t label = mr[0] >> 16;
        if (label == 99)
            _exit(0);
        if (label == 2) {
            kill(getppid(), SIGUSR1);
            err = l4chan_receive(L4CHAN_ANYTHREAD, mr, &sender);
            continue;
        }
        mr[0] = l4chan_tag(0, 1, 0);
        mr[1] += 1;
        err = l4chan_reply_wait(sender, mr, &sender);
    }
}

static void join_or_exit(int fd)
{
    struct l4chan_ends ends;
    if (ioctl(fd, L4CHAN_IOC_JOIN, &ends) != 0 || !ends.partner) {
        printf("child join failed: %s\n", strerror(errno));
        _exit(1);
    }
}

static void child(int fd, int ready)
{
    join_or_exit(fd);
    serve(ready);
}

/* Two channels join the same two processes: the last close of one leaves the other working
 * (the kernel's set names the partner once). */
static void two_channels(void)
{
    int a = open("/dev/l4chan", O_RDWR), b = open("/dev/l4chan", O_RDWR), p[2];
    struct l4chan_ends ends;
    if (a < 0 || b < 0 || ioctl(a, L4CHAN_IOC_JOIN, &ends) || ioctl(b, L4CHAN_IOC_JOIN, &ends) ||
        pipe(p))
        return;
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        join_or_exit(a);
        join_or_exit(b);
        close(a);                           /* the parent's went already: released */
        serve(p[1]);
    }
    close(a);
    close(p[1]);
    char c;
    (void)!read(p[0], &c, 1);
    ioctl(b, L4CHAN_IOC_PEER, &ends);
    uint64_t mr[8] = { l4chan_tag(1, 1, 0), 7 };
    uint64_t err = l4chan_call(ends.partner, mr);
    printf("other channel closed: error %u, answer %lu\n", code(err), (unsigned long)mr[1]);
    mr[0] = l4chan_tag(99, 0, 0);
    l4chan_send(ends.partner, mr);
    int status;
    waitpid(pid, &status, 0);
    close(b);
    close(p[0]);
}

/* ---- string items (long IPC) ------------------------------------------------------------ */

static unsigned char str_in[3 * 4096 + 100];    /* the child's buffers: untouched before */
static unsigned char str_src[12000];

static uint64_t fnv(const unsigned char *p, uint64_t n)
{
    uint64_t h = 14695981039346656037ull;
    for (uint64_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* The receiving child: per case, its buffer (size, address) and acceptor; after each receive
 * it reports the ErrorCode, the hash of what arrived and the sender's string length. */
static void string_child(int fd, int ready, uintptr_t readonly)
{
    join_or_exit(fd);
    (void)!write(ready, "j", 1);
    struct l4chan_ends e;
    ioctl(fd, L4CHAN_IOC_PEER, &e);
    const struct { uint64_t size; uintptr_t addr; uint64_t acceptor; } cases[] = {
        { 10000, (uintptr_t)str_in + 50, L4CHAN_ACCEPT_STRINGS },
        { 100, (uintptr_t)str_in, L4CHAN_ACCEPT_STRINGS },
        { 500, (uintptr_t)str_in, L4CHAN_ACCEPT_STRINGS },
        { 8192, (uintptr_t)str_in, L4CHAN_ACCEPT_STRINGS },
        { 500, 0xFFFF800000000000ul, L4CHAN_ACCEPT_STRINGS },
        { 500, readonly, L4CHAN_ACCEPT_STRINGS },
        { 500, (uintptr_t)str_in, 0 },
    };
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t w[8] = { L4CHAN_STRING_ITEM(cases[i].size), cases[i].addr };
        uint64_t mr[8] = { 0 };
        uint64_t err = l4chan_buffers(2, w, 0);
        if (!err)
            err = l4chan_ipc(L4CHAN_NILTHREAD, e.partner, 0, cases[i].acceptor, mr, 0);
        uint64_t got = err ? l4chan_error_offset(err) : mr[1] >> 10;
        uint64_t hash = got && cases[i].addr < 0x800000000000ul ?
                        fnv((const unsigned char *)cases[i].addr, got) : 0;
        uint64_t report[8] = { l4chan_tag(0, 3, 0), err, hash, mr[1] };
        if (l4chan_send(e.partner, report))
            _exit(3);
        if (i == 2) {                       /* after the refused copy: a signal for the call */
            if (l4chan_receive(e.partner, mr, 0))
                _exit(4);
            kill(getppid(), SIGUSR1);
        }
        if (i)
            memset(str_in, 0, sizeof str_in);
    }
    _exit(0);
}

/* Send n bytes at src as one string; the child's report into rep[0..3]: our ErrorCode. */
static uint64_t string_to(uint64_t partner, const void *src, uint64_t n, uint64_t rep[8])
{
    uint64_t mr[8] = { l4chan_tag(0, 0, 2), L4CHAN_STRING_ITEM(n), (uint64_t)(uintptr_t)src };
    uint64_t err = l4chan_send(partner, mr);
    if (l4chan_receive(partner, rep, NULL))
        rep[1] = rep[2] = ~0ul;
    return err;
}

static void string_tests(const char *self_path)
{
    int fd = open("/dev/l4chan", O_RDWR), p[2];
    struct l4chan_ends ends;
    unsigned char *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    unsigned char *none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    int file = open(self_path, O_RDONLY);
    unsigned char *image = file < 0 ? MAP_FAILED :
                           mmap(NULL, 8192, PROT_READ, MAP_PRIVATE, file, 0);
    if (fd < 0 || ioctl(fd, L4CHAN_IOC_JOIN, &ends) || pipe(p) || ro == MAP_FAILED ||
        none == MAP_FAILED || image == MAP_FAILED) {
        printf("string setup failed\n");
        return;
    }
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        string_child(fd, p[1], (uintptr_t)ro);
    }
    close(p[1]);
    char c;
    (void)!read(p[0], &c, 1);
    ioctl(fd, L4CHAN_IOC_PEER, &ends);
    uint64_t w9[8] = { 0 }, rep[8];
    printf("string buffers of nine words: %lu\n", (unsigned long)l4chan_buffers(9, w9, 0));
    for (unsigned i = 0; i < sizeof str_src; i++)
        str_src[i] = (unsigned char)(i * 13 + 5);

    uint64_t err = string_to(ends.partner, str_src, 10000, rep);
    printf("string: error %u, receiver error %u, whole and exact %d\n", code(err),
           code(rep[1]), rep[2] == fnv(str_src, 10000) && rep[3] >> 10 == 10000);
    err = string_to(ends.partner, str_src, 300, rep);
    printf("longer than the buffer: error %u at %lu, receiver error %u at %lu, bytes %d\n",
           code(err), (unsigned long)l4chan_error_offset(err), code(rep[1]),
           (unsigned long)l4chan_error_offset(rep[1]), rep[2] == fnv(str_src, 100));
    err = string_to(ends.partner, none + 8, 300, rep);
    printf("from memory the sender cannot read: error %u at %lu, receiver error %u at %lu\n",
           code(err), (unsigned long)l4chan_error_offset(err), code(rep[1]),
           (unsigned long)l4chan_error_offset(rep[1]));
    /* lx refused that fault without taking it for a SIGSEGV of ours (whose registers it would
     * wait for, noting no other signal meanwhile): the child's signal interrupts our call. */
    got_usr1 = 0;
    signal(SIGUSR1, on_usr1);
    uint64_t mr[8] = { l4chan_tag(2, 0, 0) };
    err = l4chan_call(ends.partner, mr);
    printf("a signal after the refused copy: error %u, handler %d\n", code(err), (int)got_usr1);
    err = string_to(ends.partner, image, 8192, rep);
    printf("from file pages lx pages in: error %u, receiver error %u, the file's bytes %d\n",
           code(err), code(rep[1]), rep[2] == fnv(image, 8192));
    err = string_to(ends.partner, str_src, 300, rep);
    printf("buffer outside user space: error %u at %lu, receiver error %u\n", code(err),
           (unsigned long)l4chan_error_offset(err), code(rep[1]));
    err = string_to(ends.partner, str_src, 300, rep);
    printf("buffer read-only: error %u at %lu, receiver error %u\n", code(err),
           (unsigned long)l4chan_error_offset(err), code(rep[1]));
    err = string_to(ends.partner, str_src, 300, rep);
    printf("strings not accepted: error %u at %lu, receiver error %u\n", code(err),
           (unsigned long)l4chan_error_offset(err), code(rep[1]));
    int status;
    waitpid(pid, &status, 0);
    printf("string child status %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    close(fd);
    close(p[0]);
    close(file);
}

/* ---- the map right (JOIN_MAP's window) ---------------------------------------------------- */

#define WIN 65536ul
static unsigned char src[2 * WIN];          /* the child's memory it maps (64 KiB aligned) */
static sigjmp_buf segv_env;

static void on_segv(int sig)
{
    (void)sig;
    siglongjmp(segv_env, 1);
}

/* 1 if reading *addr faults (SIGSEGV), else 0 and *out the byte. */
static int faults(volatile const unsigned char *addr, unsigned char *out)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_segv;
    sigaction(SIGSEGV, &sa, &old);
    int f = sigsetjmp(segv_env, 1);
    if (!f)
        *out = *addr;
    sigaction(SIGSEGV, &old, NULL);
    return f;
}

/* A 64 KiB aligned mapping of exactly 64 KiB (the rest of a larger one unmapped). */
static unsigned char *aligned_map(int prot)
{
    unsigned char *m = mmap(NULL, 2 * WIN, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    unsigned char *a = (unsigned char *)(((uintptr_t)m + WIN - 1) & ~(WIN - 1));
    if (a > m)
        munmap(m, (size_t)(a - m));
    if (a + WIN < m + 2 * WIN)
        munmap(a + WIN, (size_t)(m + 2 * WIN - (a + WIN)));
    return a;
}

/* The mapping child: label 10 answers with a map item of its 64 KiB (byte i: i * 7 + 1),
 * 11 with one of memory it does not have, 99 ends. */
static void map_child(int fd, int ready, bool keep_fd)
{
    struct l4chan_ends ends;
    unsigned char *mine = (unsigned char *)(((uintptr_t)src + WIN - 1) & ~(WIN - 1));
    for (unsigned long i = 0; i < WIN; i++)
        mine[i] = (unsigned char)(i * 7 + 1);
    if (ioctl(fd, L4CHAN_IOC_JOIN, &ends) != 0 || !ends.partner)
        _exit(1);
    if (!keep_fd)
        close(fd);                          /* the parent's is then the last */
    (void)!write(ready, "j", 1);
    uint64_t mr[8] = { 0 }, sender;
    uint64_t err = l4chan_receive(L4CHAN_ANYTHREAD, mr, &sender);
    while (!err && mr[0] >> 16 != 99) {
        if (mr[0] >> 16 == 12) {            /* take back what we mapped: our own Unmap */
            uint64_t fp[8] = { l4chan_fpage((uint64_t)mine, 16, 7) };
            mr[1] = l4chan_unmap(0, fp);
            mr[2] = fp[0] & 7;              /* the access status */
            mr[0] = l4chan_tag(0, 2, 0);
        } else {
            uint64_t base = mr[0] >> 16 == 10 ? (uint64_t)mine : 0x300000000000ull;
            mr[0] = l4chan_tag(0, 0, 2);
            mr[1] = L4CHAN_MAP_ITEM(base);
            mr[2] = l4chan_fpage(base, 16, 7);
        }
        err = l4chan_reply_wait(sender, mr, &sender);
        if (err && !(err & 1))      /* the reply failed (no acceptor): wait for the next */
            err = l4chan_receive(L4CHAN_ANYTHREAD, mr, &sender);
    }
    _exit(err ? 2 : 0);
}

static uint64_t map_call(uint64_t partner, uint64_t label, uint64_t acceptor)
{
    uint64_t mr[8] = { l4chan_tag(label, 0, 0) };
    return l4chan_ipc(partner, partner, 0, acceptor, mr, 0);
}

static int holds_pattern(const unsigned char *w)
{
    for (unsigned long i = 0; i < WIN; i++)
        if (w[i] != (unsigned char)(i * 7 + 1))
            return 0;
    return 1;
}

static void map_tests(void)
{
    unsigned char *w = aligned_map(PROT_NONE), *other = aligned_map(PROT_READ | PROT_WRITE);
    int fd = open("/dev/l4chan", O_RDWR);
    if (!w || !other || fd < 0) {
        printf("map setup failed\n");
        return;
    }
    memset(other, 'o', WIN);
    struct l4chan_join_map jm = { 0, 0, (uintptr_t)w + 4096, WIN };
    printf("window misaligned: %d\n", ioctl(fd, L4CHAN_IOC_JOIN_MAP, &jm) ? errno : 0);
    jm.base = (uintptr_t)w;
    jm.size = 3 * 4096;
    printf("window size 12 KiB: %d\n", ioctl(fd, L4CHAN_IOC_JOIN_MAP, &jm) ? errno : 0);
    jm.base = 0x300000000000ull;
    jm.size = WIN;
    printf("window not mapped: %d\n", ioctl(fd, L4CHAN_IOC_JOIN_MAP, &jm) ? errno : 0);
    printf("unmap without a window: %d\n", ioctl(fd, L4CHAN_IOC_UNMAP) ? errno : 0);
    jm.base = (uintptr_t)w;
    printf("join with a window: %d\n", ioctl(fd, L4CHAN_IOC_JOIN_MAP, &jm) ? errno : 0);
    unsigned char c;
    printf("empty window faults: %d\n", faults(w, &c));

    int p[2];
    if (pipe(p))
        return;
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        map_child(fd, p[1], true);
    }
    close(p[1]);
    (void)!read(p[0], &c, 1);
    close(p[0]);
    struct l4chan_ends ends;
    ioctl(fd, L4CHAN_IOC_PEER, &ends);
    uint64_t child = ends.partner, complete = 1ull << 4;   /* size field 1: everything */

    uint64_t err = map_call(child, 10, complete);
    printf("mapped: error %u, the sender's bytes %d\n", code(err), !faults(w, &c) &&
           holds_pattern(w));
    int unmapped = ioctl(fd, L4CHAN_IOC_UNMAP) ? errno : 0;
    printf("unmap: %d, then faults %d\n", unmapped, faults(w, &c));
    err = map_call(child, 10, l4chan_fpage((uintptr_t)other, 16, 0));
    printf("acceptor outside the window: error %u, other kept %d, window faults %d\n",
           code(err), other[0] == 'o' && other[WIN - 1] == 'o', faults(w, &c));
    err = map_call(child, 11, complete);
    printf("memory the sender lacks: error %u, window faults %d\n", code(err), faults(w, &c));
    err = map_call(child, 10, complete);
    printf("mapped again: error %u, %d\n", code(err), !faults(w, &c) && holds_pattern(w));
    uint64_t um[8] = { l4chan_tag(12, 0, 0) };
    err = l4chan_ipc(child, child, 0, complete, um, 0);
    printf("the sender's own unmap: error %u, result %lu, status %lu, window faults %d\n",
           code(err), (unsigned long)um[1], (unsigned long)um[2], faults(w, &c));
    err = map_call(child, 10, complete);
    printf("mapped after it: error %u, %d\n", code(err), !faults(w, &c) && holds_pattern(w));
    uint64_t own[8] = { l4chan_fpage((uintptr_t)w, 16, 7), l4chan_fpage((uintptr_t)other, 16, 7) };
    unsigned long res = (unsigned long)l4chan_unmap(1 | L4CHAN_UNMAP_FLUSH, own);
    printf("flush own: result %lu, window faults %d, status %lu, other reads 'o' again %d\n",
           res, faults(w, &c), (unsigned long)(own[1] & 7),
           other[0] == 'o' && other[WIN - 1] == 'o');
    uint64_t many[8] = { 0 };
    printf("unmap of nine fpages: %lu\n", (unsigned long)l4chan_unmap(8, many));
    munmap(w, WIN);
    unsigned char *again = mmap(w, WIN, PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    printf("after munmap: fresh memory %d\n", again == w && !faults(w, &c) && c == 0);
    err = map_call(child, 10, complete);
    printf("without the window: error %u, memory kept %d\n", code(err), w[0] == 0 &&
           w[WIN - 1] == 0);
    map_call(child, 99, 0);
    int status;
    waitpid(pid, &status, 0);
    printf("map child status %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    close(fd);

    /* A new window on a new channel; its last close takes what was mapped there away. */
    unsigned char *w2 = aligned_map(PROT_NONE);
    fd = open("/dev/l4chan", O_RDWR);
    jm.base = (uintptr_t)w2;
    if (!w2 || fd < 0 || ioctl(fd, L4CHAN_IOC_JOIN_MAP, &jm) || pipe(p))
        return;
    pid = fork();
    if (pid == 0) {
        close(p[0]);
        map_child(fd, p[1], false);
    }
    close(p[1]);
    (void)!read(p[0], &c, 1);
    close(p[0]);
    ioctl(fd, L4CHAN_IOC_PEER, &ends);
    err = map_call(ends.partner, 10, complete);
    printf("second window: error %u, %d\n", code(err), !faults(w2, &c) && holds_pattern(w2));
    close(fd);
    printf("after the last close: faults %d\n", faults(w2, &c));
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    /* The close canceled the child's receive: it exits (2) or our kill comes first, as the
     * scheduler has it (a shift of a few instructions changes which). */
    printf("second child ended %d\n", (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) ||
           (WIFEXITED(status) && WEXITSTATUS(status) == 2));
}

/* After exec: the channel the process had before is gone (the number is -ENOSYS again). */
/* A windowed and a plain channel between the same two processes (the kernel names a partner
 * once): the plain JOIN after the windowed one keeps the map right; after the windowed
 * channel's last close the plain right stays, without the map right. */
static void window_and_plain(void)
{
    int a = open("/dev/l4chan", O_RDWR), b = open("/dev/l4chan", O_RDWR), p[2];
    unsigned char *w = aligned_map(PROT_NONE), c;
    struct l4chan_join_map jm = { 0, 0, (uintptr_t)w, WIN };
    struct l4chan_ends ends;
    if (a < 0 || b < 0 || !w || ioctl(a, L4CHAN_IOC_JOIN_MAP, &jm) ||
        ioctl(b, L4CHAN_IOC_JOIN, &ends) || pipe(p)) {
        printf("window and plain: setup failed\n");
        return;
    }
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        join_or_exit(a);
        join_or_exit(b);                    /* plain, after the windowed one */
        (void)!write(p[1], "j", 1);
        struct l4chan_ends e;
        ioctl(b, L4CHAN_IOC_PEER, &e);
        uint64_t mr[8];
        unsigned char *pg = (unsigned char *)(((uintptr_t)src + WIN - 1) & ~(WIN - 1));
        pg[0] = 'w';                        /* lands at the window's start */
        for (int round = 0; round < 2; round++) {
            if (l4chan_receive(e.partner, mr, 0))
                _exit(1);
            mr[0] = l4chan_tag(0, 0, 2);
            mr[1] = L4CHAN_MAP_ITEM((uintptr_t)pg);
            mr[2] = l4chan_fpage((uintptr_t)pg, 12, 5);
            uint64_t err = l4chan_send(e.partner, mr);
            if (round == 0)
                close(a);                   /* the parent's close is then the last */
            mr[0] = l4chan_tag(3, 1, 0);    /* report: a plain message */
            mr[1] = err;
            if (l4chan_send(e.partner, mr))
                _exit(2);
        }
        _exit(0);
    }
    close(p[1]);
    (void)!read(p[0], &c, 1);
    ioctl(b, L4CHAN_IOC_PEER, &ends);
    uint64_t go[8] = { l4chan_tag(1, 0, 0) }, mr[8];
    uint64_t win = l4chan_fpage((uintptr_t)w, 16, 7);
    uint64_t err = l4chan_send(ends.partner, go);
    uint64_t rerr = err ? err : l4chan_ipc(L4CHAN_NILTHREAD, ends.partner, 0, win, mr, 0);
    bool report = !rerr && mr[0] >> 16 == 3;   /* the map was refused: its report came */
    printf("window and plain: map error %u, the page %d\n", code(rerr), !report &&
           !faults(w, &c) && c == 'w');
    err = report ? 0 : l4chan_receive(ends.partner, mr, 0);
    printf("window and plain: the child's map error %u\n", err ? 99 : code(mr[1]));
    close(a);                               /* the windowed channel's last close */
    go[0] = l4chan_tag(1, 0, 0);
    err = l4chan_send(ends.partner, go);
    if (!err)
        err = l4chan_receive(ends.partner, mr, 0);
    if (err && code(err) == L4CHAN_EOVERFLOW && (err & 1))
        l4chan_receive(ends.partner, mr, 0);     /* a map item came (and failed): the report */
    printf("plain after the windowed close: message error %u, map error %u, window faults %d\n",
           code(err), code(mr[1]), faults(w, &c));
    int status;
    waitpid(pid, &status, 0);
    printf("window and plain child status %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    close(b);
    close(p[0]);
}

static int after_exec(const char *partner)
{
    uint64_t mr[8] = { l4chan_tag(1, 1, 0), 41 };
    printf("after exec: %ld\n", (long)l4chan_send(strtoull(partner, NULL, 16), mr));
    return 0;
}

/* A space's set has room for 8 partners (L4_CHANNEL_PARTNERS) partners: nine children join nine channels
 * with the parent; the ninth JOIN fails (ENOSPC) rather than leave a channel without rights. */
static void full_set(void)
{
    enum { N = 9 };
    int fds[N], result[2], release[2];
    struct l4chan_ends ends;
    if (pipe(result) || pipe(release))
        return;
    for (int i = 0; i < N; i++)
        if ((fds[i] = open("/dev/l4chan", O_RDWR)) < 0 || ioctl(fds[i], L4CHAN_IOC_JOIN, &ends))
            return;
    unsigned joined = 0;
    int ninth = -1;
    for (int i = 0; i < N; i++) {
        if (fork() == 0) {
            close(release[1]);
            char r = ioctl(fds[i], L4CHAN_IOC_JOIN, &ends) ? (char)errno : 0;
            (void)!write(result[1], &r, 1);
            (void)!read(release[0], &r, 1);     /* end of file: the parent is done */
            _exit(0);
        }
        char r;
        (void)!read(result[0], &r, 1);
        joined += !r;
        if (i == N - 1)
            ninth = r;
    }
    close(release[1]);
    while (wait(NULL) > 0)
        ;
    printf("nine partners: %u joined, the ninth's error %s\n", joined,
           ninth == ENOSPC ? "ENOSPC" : ninth ? "other" : "none");
    for (int i = 0; i < N; i++)
        close(fds[i]);
    close(result[0]), close(result[1]), close(release[0]);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc == 3 && !strcmp(argv[1], "exec"))
        return after_exec(argv[2]);
    uint64_t mr[8] = { l4chan_tag(1, 1, 0), 41 };
    uint64_t err = l4chan_send(1, mr);
    printf("without a channel: %ld\n", (long)err);
    uint64_t nofp[8] = { l4chan_fpage((uintptr_t)src, 12, 7) };
    printf("unmap without a channel: %ld\n", (long)l4chan_unmap(0, nofp));
    printf("string buffers without a channel: %ld\n", (long)l4chan_buffers(0, nofp, 0));

    int fd = open("/dev/l4chan", O_RDWR);
    if (fd < 0) {
        printf("open /dev/l4chan: %s\n", strerror(errno));
        return 0;
    }
    struct l4chan_ends ends;
    printf("peer before join: %d\n", ioctl(fd, L4CHAN_IOC_PEER, &ends) == 0 && !ends.self);
    printf("join: %d\n", ioctl(fd, L4CHAN_IOC_JOIN, &ends) == 0 && ends.self && !ends.partner);
    printf("join again: %d\n", ioctl(fd, L4CHAN_IOC_JOIN, &ends) ? errno : 0);
    printf("bad ioctl: %d\n", ioctl(fd, 0x1234, &ends) ? errno : 0);
    uint64_t self = ends.self;

    int p[2];
    if (pipe(p))
        return 1;
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        child(fd, p[1]);
    }
    close(p[1]);
    char c;
    (void)!read(p[0], &c, 1);
    ioctl(fd, L4CHAN_IOC_PEER, &ends);
    uint64_t partner = ends.partner;
    printf("peer: self %d, partner %d\n", ends.self == self, partner != 0 && partner != self);

    /* RPC through the kernel alone. */
    mr[0] = l4chan_tag(1, 1, 0);
    mr[1] = 41;
    err = l4chan_call(partner, mr);
    printf("call: error %u, answer %lu\n", code(err), (unsigned long)mr[1]);
    mr[0] = l4chan_tag(1, 1, 0);
    mr[1] = 1000;
    err = l4chan_call(partner, mr);
    printf("call again: error %u, answer %lu\n", code(err), (unsigned long)mr[1]);

    /* Nothing else: ourselves, another version of the partner, anythread; a receive from a
     * non-partner; the kernel's other calls are Linux system calls lx does not know. */
    uint64_t dests[] = { self, partner + 1, L4CHAN_ANYTHREAD };
    for (unsigned i = 0; i < 3; i++) {
        mr[0] = l4chan_tag(1, 1, 0);
        err = l4chan_send(dests[i], mr);
        printf("send to non-partner %u: error %u, %s phase\n", i, code(err),
               err & 1 ? "receive" : "send");
    }
    err = l4chan_receive(self, mr, NULL);
    printf("receive from non-partner: error %u, %s phase\n", code(err),
           err & 1 ? "receive" : "send");
    mr[0] = l4chan_tag(1, 0, 2);
    err = l4chan_send(partner, mr);
    printf("map without the right: error %u\n", code(err));
    printf("getpid in the same thread: %d\n", getpid() > 0);

    /* A signal while we wait in our call: the IPC ends with "canceled", the handler ran. */
    signal(SIGUSR1, on_usr1);
    mr[0] = l4chan_tag(2, 0, 0);
    err = l4chan_call(partner, mr);
    printf("interrupted call: error %u, %s phase, handler %d\n", code(err),
           err & 1 ? "receive" : "send", (int)got_usr1);

    /* The partner exits while we wait for its answer. */
    mr[0] = l4chan_tag(99, 0, 0);
    err = l4chan_call(partner, mr);
    printf("partner exited: error %u, %s phase\n", code(err), err & 1 ? "receive" : "send");
    int status;
    waitpid(pid, &status, 0);
    printf("child status %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    mr[0] = l4chan_tag(1, 1, 0);
    err = l4chan_send(partner, mr);
    printf("after its exit: %ld\n", (long)err);

    /* A new child joins the free end, then execs: the new program has no channel. */
    pid = fork();
    if (pid == 0) {
        if (ioctl(fd, L4CHAN_IOC_JOIN, &ends) != 0 || ends.partner != self)
            _exit(1);
        mr[0] = l4chan_tag(1, 1, 0);
        printf("second child before exec: %ld\n", (long)l4chan_send(L4CHAN_ANYTHREAD, mr));
        char hex[32];
        snprintf(hex, sizeof hex, "%llx", (unsigned long long)self);
        execl(argv[0], argv[0], "exec", hex, (char *)NULL);
        _exit(2);
    }
    waitpid(pid, &status, 0);
    printf("second child status %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    close(fd);
    map_tests();
    two_channels();
    string_tests(argv[0]);
    window_and_plain();
    full_set();
    printf("done\n");
    return 0;
}
