/* IPC round trips between two threads (issue 3 item 5), as root task.  Prints one line per
 * measurement:  BENCH name=<name> iters=<n> tsc_per_op=<x> tsc=<total> ns=<total>
 * Under qemu -icount shift=0 the TSC advances by one per guest instruction, so tsc_per_op is
 * the number of guest instructions per round trip, user-level stubs and loop included.
 *
 * The partners use the IPC system call with the message in registers, the way X.2's own
 * pingpong does: `push %rbp; call *Ipc; pop %rbp` with MR0 in R9 and MR1-MR7 in RAX, RBX,
 * R10, R12-R15 (contract §4.2); words beyond 7 go through the UTCB.
 *
 * A second convention, ipc_pistachio_*: the instruction sequence a program built against
 * Pistachio's libl4 executes (contract §4.1), measured the way Pistachio's pingpong measures
 * (both partners Call each other; instructions per one-way IPC, iters = messages):
 *   inter, intra  Pistachio's pingpong IPC: RDI = %gs:0, tag in R9 (via RAX), R8 = 0,
 *                 `push %rbp; call *<Ipc entry variable>; pop %rbp`, the tag back into RAX
 *   lipc          libl4's Lipc call: MR1-MR7 loaded from the UTCB into RAX, RBX, R10,
 *                 R12-R15, the tag from UTCB MR0 into R9, the same call through a variable,
 *                 then R9, RAX, RBX, R10, R12-R15 stored back into UTCB MR0-MR7. */
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

/* --- Pistachio's calling sequence ------------------------------------------------------------ */

/* The entry points as libl4 keeps them: in variables, called memory-indirect. */
static l4_word_t pist_ipc_entry, pist_lipc_entry;
static volatile l4_word_t pist_partner;         /* the ping thread, for the pong side */

static inline l4_word_t *gs_utcb(void)
{
    l4_word_t *u;
    __asm__ volatile("movq %%gs:0, %0" : "=r"(u));
    return u;
}

/* Pistachio's pingpong IPC: a Call to dest with `untyped` in the tag. */
static inline l4_word_t pist_call(l4_word_t dest, l4_word_t untyped)
{
    l4_word_t d_out, s_out;
    __asm__ volatile("movq %%rax, %%r9\n\t"
                     "xorq %%r8, %%r8\n\t"
                     "pushq %%rbp\n\t"
                     "call *%[entry]\n\t"
                     "popq %%rbp\n\t"
                     "movq %%r9, %%rax"
                     : "=S"(s_out), "+a"(untyped), "=d"(d_out)
                     : "d"(dest), "S"(dest), "D"(gs_utcb()), [entry] "m"(pist_ipc_entry)
                     : "rbx", "rcx", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
                       "memory");
    return untyped;
}

/* libl4's Lipc as L4_Lcall uses it: MR0 (the tag, set in the UTCB) and MR1-MR7 from the UTCB,
 * results back into it; returns the received tag. */
static inline l4_word_t pist_lcall(l4_word_t dest, l4_word_t untyped)
{
    l4_word_t *utcb = gs_utcb();
    utcb[0] = untyped;
    l4_word_t d_out, s_out, mr0 = utcb[0], mr1, mr2;
    __asm__ volatile("xorq %%r8, %%r8\n\t"
                     "movq %%rcx, %%r9\n\t"
                     "movq 8(%%rdi), %%rax\n\t"
                     "movq 16(%%rdi), %%rbx\n\t"
                     "movq 24(%%rdi), %%r10\n\t"
                     "movq 32(%%rdi), %%r12\n\t"
                     "movq 40(%%rdi), %%r13\n\t"
                     "movq 48(%%rdi), %%r14\n\t"
                     "movq 56(%%rdi), %%r15\n\t"
                     "pushq %%rbp\n\t"
                     "call *%[entry]\n\t"
                     "popq %%rbp\n\t"
                     "movq %%r9, %%rcx\n\t"
                     "movq %%r10, 24(%%rdi)\n\t"
                     "movq %%r12, 32(%%rdi)\n\t"
                     "movq %%r13, 40(%%rdi)\n\t"
                     "movq %%r14, 48(%%rdi)\n\t"
                     "movq %%r15, 56(%%rdi)"
                     : "=S"(s_out), "=d"(d_out), "+c"(mr0), "=a"(mr1), "=b"(mr2)
                     : "d"(dest), "S"(dest), "D"(utcb), [entry] "m"(pist_lipc_entry)
                     : "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "memory");
    utcb[0] = mr0;
    utcb[1] = mr1;
    utcb[2] = mr2;
    return mr0;
}

/* The pong side: Call the ping thread forever (the first Call's send meets ping's receive). */
static void pist_pong(void)
{
    l4_word_t untyped = 0, ping = pist_partner;
    for (;;)
        untyped = pist_call(ping, untyped);
}

static void pist_lpong(void)
{
    l4_word_t untyped = 0, ping = l4_local_id_of(pist_partner);
    for (;;)
        untyped = l4_tag_u(pist_lcall(ping, untyped));
}

/* One measurement: `pong` is started by `start`, we take its first message, then Call it
 * ROUNDS times; every Call is two one-way IPCs. */
static void pist_series(const char *name, l4_word_t pong, bool lipc)
{
    l4_receive(pong);               /* its first Call: now it waits for our reply */
    for (int i = 0; i < WARMUP; i++)
        lipc ? pist_lcall(pong, 0) : pist_call(pong, 0);
    uint64_t c0 = l4_system_clock(), t0 = tsc();
    if (lipc)
        for (int i = 0; i < ROUNDS; i++)
            pist_lcall(pong, 0);
    else
        for (int i = 0; i < ROUNDS; i++)
            pist_call(pong, 0);
    uint64_t t1 = tsc(), c1 = l4_system_clock();
    report(name, 2 * ROUNDS, t1 - t0, c1 - c0);
}

static void pistachio_series(void)
{
    pist_ipc_entry = ipc_entry;
    pist_lipc_entry = lipc_entry;
    pist_partner = l4_my_global_id();
    pist_series("ipc_pistachio_inter_0w", tu_space_thread(pist_pong, 255), false);
    pist_series("ipc_pistachio_intra_0w", tu_thread(pist_pong, 255), false);
    pist_series("ipc_pistachio_lipc_0w", tu_thread(pist_lpong, 255), true);
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
