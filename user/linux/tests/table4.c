/* table4: the native-IPC rows of the 1997 paper's Table 4 (issue 15 item 2) between two
 * Linux processes under lx, through a /dev/l4chan channel (docs/linux/l4chan.md); make bench
 * runs it as lx's first process.  The pipe rows, (1) and (1a), are lxbench's pipe_pingpong and
 * pipe_64k on Linux and on lx (tools/table4bench.py).
 *
 *   table4 [ROW...]    one line per row, as lxbench's:
 *     BENCH name=t4_ROW iters=N tsc_per_op=X tsc=T
 *     BENCH-NA name=t4_ROW errno=E what=CALL
 *   then BENCH-DONE.
 *
 * Rows: l4pipe_rtt, l4pipe_64k (2: l4pipe.h, string items: the kernel copies each write
 * from the writer's buffer into the reader's), rpc_rtt, rpc_64k (3: a call
 * of MR1-MR7 per 56 bytes, the reply empty), maprpc_rtt, maprpc_64k (4: a call answered by
 * a mapping of 4 KiB or of 64 KiB into the caller's window, read once per page, then unmapped
 * by the caller's native Unmap of its window, l4chan_unmap with the flush bit).  rtt: per 1-byte round trip; 64k: per 64 KiB
 * block moved from the child to the parent.  rdtsc deltas: guest instructions under -icount
 * shift=0.  Never run on the host. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../../lib/include/l4pipe.h"

#define BENCH_PREFIX "t4_"
#include "bench_lines.h"

#define KIB64 65536
#define RPC_CHUNK 56u                       /* (3): MR1-MR7 per call */

static unsigned char buf[KIB64];

/* A channel to a child that runs serve(partner, arg): 0 and the child's pid and thread, or
 * an errno and *what failed. */
struct partner {
    pid_t pid;
    uint64_t thread;
    int fd;             /* with a window: the channel, else -1 */
};

static int start_partner(void (*serve)(uint64_t partner, long arg), long arg,
                         struct partner *p, const char **what, void *window)
{
    struct l4chan_ends ends;
    p->fd = -1;
    struct l4chan_join_map jm = { 0, 0, (uintptr_t)window, KIB64 };
    int ready[2];
    *what = "open_dev_l4chan";
    int fd = open("/dev/l4chan", O_RDWR);
    if (fd < 0)
        return errno;
    *what = window ? "ioctl_join_map" : "ioctl_join";
    if (window ? ioctl(fd, L4CHAN_IOC_JOIN_MAP, &jm) : ioctl(fd, L4CHAN_IOC_JOIN, &ends)) {
        int e = errno;
        close(fd);
        return e;
    }
    *what = "pipe";
    if (pipe(ready)) {
        int e = errno;
        close(fd);
        return e;
    }
    p->pid = fork();
    if (p->pid == 0) {
        close(ready[0]);
        if (ioctl(fd, L4CHAN_IOC_JOIN, &ends) != 0 || !ends.partner)
            _exit(4);
        (void)!write(ready[1], "j", 1);
        close(ready[1]);
        serve(ends.partner, arg);
        _exit(0);
    }
    int e = p->pid < 0 ? errno : 0;
    char c;
    close(ready[1]);
    *what = "fork";
    if (!e) {
        *what = "child_join";
        if (read(ready[0], &c, 1) != 1 || ioctl(fd, L4CHAN_IOC_PEER, &ends) != 0 ||
            !ends.partner)
            e = EIO;
    }
    close(ready[0]);
    if (window)
        p->fd = fd;     /* L4CHAN_IOC_UNMAP; closed by finish */
    else
        close(fd);      /* the child's copy keeps the channel until it exits */
    p->thread = ends.partner;
    return e;
}

static int finish(const char *name, pid_t pid, long iters, uint64_t ticks, uint64_t err)
{
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (err)
        return na(name, "ipc_error_code", (int)((err >> 1) & 7));
    if (!WIFEXITED(st) || WEXITSTATUS(st))
        return na(name, "child_status", st);
    return report(name, iters, ticks);
}

/* ---- (3) RPC ---------------------------------------------------------------------------- */

/* Answers each call (MR1 + 1 for a 1-word call, nothing for a data call); label 99 ends. */
static void serve_rpc(uint64_t partner, long arg)
{
    (void)partner;
    (void)arg;
    uint64_t mr[8] = { 0 }, sender;
    uint64_t err = l4chan_receive(L4CHAN_ANYTHREAD, mr, &sender);
    while (!err && mr[0] >> 16 != 99) {
        if ((mr[0] & 63) == 7) {
            memcpy(buf, &mr[1], RPC_CHUNK);      /* the data lands in the server's buffer */
            mr[0] = l4chan_tag(0, 0, 0);
        } else {
            mr[0] = l4chan_tag(0, 1, 0);
            mr[1] += 1;
        }
        err = l4chan_reply_wait(sender, mr, &sender);
    }
    if (err)
        _exit(5);
}

static uint64_t stop_partner(uint64_t thread)
{
    uint64_t mr[8] = { l4chan_tag(99, 0, 0) };
    return l4chan_send(thread, mr);
}

static int row_rpc_rtt(void)
{
    enum { N = 5000, WARM = 500 };
    struct partner p;
    const char *what;
    int e = start_partner(serve_rpc, 0, &p, &what, NULL);
    if (e)
        return na("rpc_rtt", what, e);
    uint64_t mr[8] = { 0 }, err = 0, t0 = 0;
    for (int i = 0; i < WARM + N && !err; i++) {
        if (i == WARM)
            t0 = tsc();
        mr[0] = l4chan_tag(1, 1, 0);
        mr[1] = (unsigned char)i;
        err = l4chan_call(p.thread, mr);
    }
    uint64_t t1 = tsc();
    err = err ? err : stop_partner(p.thread);
    return finish("rpc_rtt", p.pid, N, t1 - t0, err);
}

/* 64 KiB from the client to the server per block, 56 bytes per call. */
static int row_rpc_64k(void)
{
    enum { N = 20, WARM = 2 };
    struct partner p;
    const char *what;
    int e = start_partner(serve_rpc, 0, &p, &what, NULL);
    if (e)
        return na("rpc_64k", what, e);
    memset(buf, 'r', sizeof buf);
    uint64_t mr[8] = { 0 }, err = 0, t0 = 0;
    for (int i = 0; i < WARM + N && !err; i++) {
        if (i == WARM)
            t0 = tsc();
        for (size_t done = 0; done < KIB64 && !err; done += RPC_CHUNK) {
            size_t len = KIB64 - done < RPC_CHUNK ? KIB64 - done : RPC_CHUNK;
            mr[0] = l4chan_tag(2, 7, 0);
            memcpy(&mr[1], buf + done, len);
            err = l4chan_call(p.thread, mr);
        }
    }
    uint64_t t1 = tsc();
    err = err ? err : stop_partner(p.thread);
    return finish("rpc_64k", p.pid, N, t1 - t0, err);
}

/* ---- (2) the L4 pipe -------------------------------------------------------------------- */

/* Echoes arg bytes, one at a time (the ping-pong's partner). */
static void serve_echo(uint64_t partner, long arg)
{
    struct l4pipe pipe;
    l4pipe_init(&pipe, partner);
    unsigned char c;
    for (long i = 0; i < arg; i++)
        if (l4pipe_read(&pipe, &c, 1) != 1 || l4pipe_write(&pipe, &c, 1) != 1)
            _exit(6);
}

/* Writes arg blocks of 64 KiB. */
static void serve_source(uint64_t partner, long arg)
{
    struct l4pipe pipe;
    l4pipe_init(&pipe, partner);
    memset(buf, 'p', sizeof buf);
    for (long i = 0; i < arg; i++)
        if (l4pipe_write(&pipe, buf, KIB64) != KIB64)
            _exit(7);
}

static int row_l4pipe_rtt(void)
{
    enum { N = 5000, WARM = 500 };
    struct partner p;
    const char *what;
    int e = start_partner(serve_echo, WARM + N, &p, &what, NULL);
    if (e)
        return na("l4pipe_rtt", what, e);
    struct l4pipe pipe;
    l4pipe_init(&pipe, p.thread);
    unsigned char c = 'x';
    uint64_t t0 = 0;
    bool ok = true;
    for (int i = 0; i < WARM + N && ok; i++) {
        if (i == WARM)
            t0 = tsc();
        ok = l4pipe_write(&pipe, &c, 1) == 1 && l4pipe_read(&pipe, &c, 1) == 1;
    }
    uint64_t t1 = tsc();
    return finish("l4pipe_rtt", p.pid, N, t1 - t0, ok ? 0 : pipe.last_error | 1);
}

static int row_l4pipe_64k(void)
{
    enum { N = 20, WARM = 2 };
    struct partner p;
    const char *what;
    int e = start_partner(serve_source, WARM + N, &p, &what, NULL);
    if (e)
        return na("l4pipe_64k", what, e);
    struct l4pipe pipe;
    l4pipe_init(&pipe, p.thread);
    static unsigned char in[KIB64];
    uint64_t t0 = 0;
    bool ok = true;
    for (int i = 0; i < WARM + N && ok; i++) {
        if (i == WARM)
            t0 = tsc();
        for (size_t done = 0; done < KIB64 && ok;) {
            long r = l4pipe_read(&pipe, in + done, KIB64 - done);
            ok = r > 0;
            done += ok ? (size_t)r : 0;
        }
    }
    uint64_t t1 = tsc();
    if (ok && in[KIB64 - 1] != 'p')
        return na("l4pipe_64k", "data", EIO);
    return finish("l4pipe_64k", p.pid, N, t1 - t0, ok ? 0 : pipe.last_error | 1);
}

/* ---- (4) mapping RPC --------------------------------------------------------------------- */

static unsigned char server_mem[2 * KIB64];

/* Answers each call with a map item of its 64 KiB aligned memory, 2^arg bytes of it (read and
 * write); label 99 ends. */
static void serve_map(uint64_t partner, long arg)
{
    (void)partner;
    unsigned char *mem = (unsigned char *)(((uintptr_t)server_mem + KIB64 - 1) & ~(KIB64 - 1));
    memset(mem, 's', KIB64);            /* present in our space, writable: ours to map */
    uint64_t mr[8] = { 0 }, sender;
    uint64_t err = l4chan_receive(L4CHAN_ANYTHREAD, mr, &sender);
    while (!err && mr[0] >> 16 != 99) {
        mr[0] = l4chan_tag(0, 0, 2);
        mr[1] = L4CHAN_MAP_ITEM((uintptr_t)mem);
        mr[2] = l4chan_fpage((uintptr_t)mem, (unsigned)arg, 7);
        err = l4chan_reply_wait(sender, mr, &sender);
    }
    if (err)
        _exit(5);
}

/* A 64 KiB aligned reservation of 64 KiB: the window. */
static void *reserve_window(void)
{
    unsigned char *m = mmap(NULL, 2 * KIB64, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    unsigned char *a = (unsigned char *)(((uintptr_t)m + KIB64 - 1) & ~(KIB64 - 1));
    if (a > m)
        munmap(m, (size_t)(a - m));
    if (a + KIB64 < m + 2 * KIB64)
        munmap(a + KIB64, (size_t)(m + 2 * KIB64 - (a + KIB64)));
    return a;
}

/* A call answered by a mapping of 2^log2size bytes into our window, which we read once per
 * page and then unmap: mapped per message, unmapped after (the paper's mapping RPC).  The
 * unmap is our own native Unmap of the window (flush: the mappings we received are ours),
 * without lx: per call. */
static int maprpc(const char *name, unsigned log2size, int n, int warm)
{
    unsigned char *w = reserve_window();
    if (!w)
        return na(name, "mmap", errno);
    struct partner p;
    const char *what;
    int e = start_partner(serve_map, log2size, &p, &what, w);
    if (e) {
        munmap(w, KIB64);
        return na(name, what, e);
    }
    uint64_t mr[8] = { 0 }, err = 0, t0 = 0;
    unsigned sum = 0;
    int unmap_err = 0;
    for (int i = 0; i < warm + n && !err && !unmap_err; i++) {
        if (i == warm)
            t0 = tsc();
        mr[0] = l4chan_tag(1, 0, 0);
        err = l4chan_ipc(p.thread, p.thread, 0, l4chan_fpage((uintptr_t)w, 16, 0), mr, 0);
        for (unsigned long off = 0; !err && off < 1ul << log2size; off += 4096)
            sum += w[off];
        uint64_t fp[8] = { l4chan_fpage((uintptr_t)w, 16, 7) };
        if (!err && l4chan_unmap(L4CHAN_UNMAP_FLUSH, fp))
            unmap_err = EINVAL;
    }
    uint64_t t1 = tsc();
    err = err ? err : stop_partner(p.thread);
    close(p.fd);
    munmap(w, KIB64);
    if (unmap_err)
        return na(name, "l4chan_unmap", unmap_err);
    if (!err && sum != (unsigned)'s' * (unsigned)(warm + n) * (unsigned)((1ul << log2size) / 4096))
        return na(name, "data", EIO);
    return finish(name, p.pid, n, t1 - t0, err);
}

static int row_maprpc_rtt(void)
{
    return maprpc("maprpc_rtt", 12, 2000, 200);
}

static int row_maprpc_64k(void)
{
    return maprpc("maprpc_64k", 16, 2000, 200);
}

static const struct { const char *name; int (*fn)(void); } rows[] = {
    { "l4pipe_rtt", row_l4pipe_rtt },
    { "l4pipe_64k", row_l4pipe_64k },
    { "rpc_rtt", row_rpc_rtt },
    { "rpc_64k", row_rpc_64k },
    { "maprpc_rtt", row_maprpc_rtt },
    { "maprpc_64k", row_maprpc_64k },
};

int main(int argc, char **argv)
{
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        bool run = argc < 2;
        for (int a = 1; a < argc; a++)
            run |= !strcmp(argv[a], rows[i].name);
        if (run)
            rows[i].fn();
    }
    out("BENCH-DONE\n");
    return 0;
}
