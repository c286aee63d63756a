/* IPC round trips between two threads (issue 3 item 5), as root task.  Prints one line per
 * measurement:  BENCH name=<name> iters=<n> tsc_per_op=<x> tsc=<total> ns=<total>
 * Under qemu -icount shift=0 the TSC advances by one per guest instruction, so tsc_per_op is
 * the number of guest instructions per round trip, user-level stubs and loop included.
 *
 * The partners use the IPC system call with the message in registers, the way X.2's own
 * pingpong does: `push %rbp; call *Ipc; pop %rbp` with MR0 in R9 and MR1-MR7 in RAX, RBX,
 * R10, R12-R15 (contract §4.2); words beyond 7 go through the UTCB.
 *
 * A second convention, ipc_pistachio_{inter,intra,lipc}_{0,8,63}w: what Pistachio's own
 * pingpong binary executes (its loops, instruction for instruction, are pistachio_loops.S),
 * measured the way it measures (both partners Call each other; instructions per one-way
 * IPC, iters = messages).  Run on Pecan, that binary and these rows agree (docs/ipc.md §4.1). */
#include <libl4.h>
#include <stdio.h>
#include <string.h>
#include "../tests/testutil.h"
#include "../tests/cmdline.h"

void qemu_exit(unsigned code);

#define ROUNDS   2000
#define WARMUP   200

static l4_word_t ipc_entry, lipc_entry;
static volatile l4_word_t server_words;     /* untyped words the server replies with */

static inline uint64_t tsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi) :: "memory");
    return ((uint64_t)hi << 32) | lo;
}

/* One Ipc with MR0 = tag in R9, MR1..MR7 left in whatever the registers hold. */
static inline l4_word_t ipc_regs(l4_word_t entry, l4_word_t to, l4_word_t from_spec,
                                 l4_word_t tag, l4_word_t *from)
{
    register l4_word_t r9 __asm__("r9") = tag;
    register l4_word_t r8 __asm__("r8") = 0;
    l4_word_t rsi = to, rdx = from_spec;
    __asm__ volatile("push %%rbp\n\t"
                     "call *%[entry]\n\t"
                     "pop %%rbp"
                     : "+S"(rsi), "+d"(rdx), "+r"(r9), "+r"(r8)
                     : [entry] "r"(entry), "D"(l4_utcb())
                     : "rax", "rbx", "rcx", "r10", "r11", "r12", "r13", "r14", "r15", "memory");
    if (from)
        *from = rsi;
    return r9;
}

static void report(const char *name, unsigned long iters, uint64_t t, uint64_t us);

/* --- Pistachio's pingpong ------------------------------------------------------------------ */

/* pistachio_loops.S: the loops of Pistachio's pingpong binary, instruction for instruction. */
extern l4_word_t pist_ipc_entry, pist_lipc_entry, pist_dest, pist_partner, pist_partner_local;
void pist_ping(l4_word_t untyped, l4_word_t blocks);
void pist_lping(l4_word_t untyped, l4_word_t blocks);
void pist_pong(void);
void pist_lpong(void);

/* The message sizes of the ipc_pistachio_* rows: all in registers, the first through the
 * UTCB, the largest. */
static const unsigned pist_words[] = { 0, 8, 63 };

/* One mode: `pong` was started; we take its first Call, then Call it ROUNDS times per size
 * (blocks of eight, as pingpong counts); every Call is two one-way IPCs. */
static void pist_series(const char *mode, l4_word_t pong, bool lipc)
{
    void (*ping)(l4_word_t, l4_word_t) = lipc ? pist_lping : pist_ping;
    pist_dest = pong;
    l4_receive(pong);               /* its first Call: now it waits for our reply */
    for (unsigned i = 0; i < sizeof(pist_words) / sizeof(pist_words[0]); i++) {
        char name[64];
        ping(pist_words[i], WARMUP / 8);
        uint64_t c0 = l4_system_clock(), t0 = tsc();
        ping(pist_words[i], ROUNDS / 8);
        uint64_t t1 = tsc(), c1 = l4_system_clock();
        snprintf(name, sizeof(name), "ipc_pistachio_%s_%uw", mode, pist_words[i]);
        report(name, 2 * ROUNDS, t1 - t0, c1 - c0);
    }
}

static void pistachio_series(void)
{
    pist_ipc_entry = ipc_entry;
    pist_lipc_entry = lipc_entry;
    pist_partner = l4_my_global_id();
    pist_partner_local = l4_local_id_of(pist_partner);
    pist_series("inter", tu_space_thread(pist_pong, 255), false);
    pist_series("intra", tu_thread(pist_pong, 255), false);
    pist_series("lipc", tu_thread(pist_lpong, 255), true);
}

/* The server: wait, then reply-and-wait forever, echoing the number of words. */
static void server(void)
{
    l4_word_t entry = ipc_entry;
    l4_word_t from;
    l4_word_t tag = ipc_regs(entry, 0, L4_ANYTHREAD, 0, &from);
    for (;;) {
        tag = l4_tag_make(0, (unsigned)server_words, 0);
        tag = ipc_regs(entry, from, L4_ANYTHREAD, tag, &from);
    }
}

static void lserver(void)
{
    l4_word_t entry = lipc_entry;
    l4_word_t from;
    l4_word_t tag = ipc_regs(entry, 0, L4_ANYLOCALTHREAD, 0, &from);
    for (;;) {
        tag = l4_tag_make(0, (unsigned)server_words, 0);
        tag = ipc_regs(entry, from, L4_ANYLOCALTHREAD, tag, &from);
    }
}

static void report(const char *name, unsigned long iters, uint64_t t, uint64_t us)
{
    unsigned long per = (unsigned long)(t / iters), frac = (unsigned long)((t % iters) * 100 / iters);
    printf("BENCH name=%s iters=%lu tsc_per_op=%lu.%02lu tsc=%llu ns=%llu\n", name, iters, per, frac,
           (unsigned long long)t, (unsigned long long)us * 1000);
}

static void roundtrips(const char *name, l4_word_t entry, l4_word_t dest, unsigned words)
{
    l4_word_t tag = l4_tag_make(0, words, 0);
    server_words = words;
    for (int i = 0; i < WARMUP; i++)
        ipc_regs(entry, dest, dest, tag, NULL);
    uint64_t c0 = l4_system_clock();
    uint64_t t0 = tsc();
    for (int i = 0; i < ROUNDS; i++)
        ipc_regs(entry, dest, dest, tag, NULL);
    uint64_t t1 = tsc();
    uint64_t c1 = l4_system_clock();
    report(name, ROUNDS, t1 - t0, c1 - c0);
}

static const unsigned word_counts[] = { 0, 1, 2, 4, 8, 16, 32, 63 };

static void word_series(const char *kind, l4_word_t entry, l4_word_t dest)
{
    char name[64];
    for (unsigned i = 0; i < sizeof(word_counts) / sizeof(word_counts[0]); i++) {
        snprintf(name, sizeof(name), "ipc_roundtrip_%s_%uw", kind, word_counts[i]);
        roundtrips(name, entry, dest, word_counts[i]);
    }
}

/* --- strings ------------------------------------------------------------------------------ */

#define MAX_STRING (64 * 1024)
static uint8_t string_src[MAX_STRING] __attribute__((aligned(4096)));
static uint8_t string_dst[MAX_STRING] __attribute__((aligned(4096)));

static void string_server(void)
{
    l4_word_t from;
    l4_set_br(0, L4_ACCEPT_STRINGS);
    l4_set_br(1, l4_string_item(MAX_STRING, 1, false));
    l4_set_br(2, (l4_word_t)string_dst);
    l4_word_t tag = l4_wait(&from);
    for (;;) {
        l4_set_mr(0, 0);
        tag = l4_reply_wait(from, &from);
    }
    (void)tag;
}

static void string_series(l4_word_t dest)
{
    static const unsigned sizes[] = { 8, 64, 512, 4096, 16384, 65536 };
    char name[64];
    for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        unsigned n = sizes[i], rounds = n >= 16384 ? 200 : ROUNDS;
        for (int w = 0; w < 20; w++) {
            l4_set_mr(0, l4_tag_make(0, 0, 2));
            l4_set_mr(1, l4_string_item(n, 1, false));
            l4_set_mr(2, (l4_word_t)string_src);
            l4_call(dest);
        }
        uint64_t c0 = l4_system_clock(), t0 = tsc();
        for (unsigned r = 0; r < rounds; r++) {
            l4_set_mr(0, l4_tag_make(0, 0, 2));
            l4_set_mr(1, l4_string_item(n, 1, false));
            l4_set_mr(2, (l4_word_t)string_src);
            l4_call(dest);
        }
        uint64_t t1 = tsc(), c1 = l4_system_clock();
        snprintf(name, sizeof(name), "ipc_string_inter_%ub", n);
        report(name, rounds, t1 - t0, c1 - c0);
    }
}

/* The null system call: ThreadSwitch to oneself enters the kernel and returns at once
 * (the counterpart of Linux's getpid).  SystemClock runs in its stub, in user mode. */
static void null_syscalls(void)
{
    l4_word_t me = l4_my_global_id();
    for (int i = 0; i < WARMUP; i++)
        l4_thread_switch(me);
    uint64_t c0 = l4_system_clock(), t0 = tsc();
    for (int i = 0; i < ROUNDS * 5; i++)
        l4_thread_switch(me);
    uint64_t t1 = tsc(), c1 = l4_system_clock();
    report("syscall_null", ROUNDS * 5, t1 - t0, c1 - c0);
    c0 = l4_system_clock();
    t0 = tsc();
    for (int i = 0; i < ROUNDS * 5; i++)
        l4_system_clock();
    t1 = tsc();
    c1 = l4_system_clock();
    report("syscall_system_clock", ROUNDS * 5, t1 - t0, c1 - c0);
}

int main(void)
{
    cmdline_init();
    ipc_entry = l4_kip_get(L4_KIP_OFF_IPC);
    lipc_entry = l4_kip_get(L4_KIP_OFF_LIPC);
    memset(string_src, 0x5A, sizeof(string_src));
    memset(string_dst, 0, sizeof(string_dst));
    printf("# pingpong: %u round trips per measurement\n", ROUNDS);
    /* `pistachio`: only the Pistachio-convention series (for instruction traces, docs/ipc.md). */
    if (cmdline_flag("pistachio")) {
        pistachio_series();
        printf("BENCH-DONE\n");
        qemu_exit(0);
    }

    null_syscalls();

    l4_word_t inter = tu_space_thread(server, 255);
    word_series("inter", ipc_entry, inter);

    l4_word_t intra = tu_thread(server, 255);
    word_series("intra", ipc_entry, intra);

    l4_word_t lsrv = tu_thread(lserver, 255);
    word_series("lipc", lipc_entry, l4_local_id_of(lsrv));

    pistachio_series();

    l4_word_t ssrv = tu_space_thread(string_server, 255);
    string_series(ssrv);

    printf("BENCH-DONE\n");
    qemu_exit(0);
    return 0;
}
