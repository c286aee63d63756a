/* The reflected system call (issue 7 item 2), as root task: a thread of a foreign space
 * executes Linux's getpid (`syscall` with RAX = 39) in a loop; each call reaches this thread,
 * its handler, as an IPC, and the handler replies with RAX at once.  One line per
 * measurement, as pingpong prints them:
 *   BENCH name=foreign_syscall_null iters=<n> tsc_per_op=<x> tsc=<total> ns=<total>
 * Under qemu -icount shift=0 the TSC counts guest instructions: tsc_per_op is one round trip,
 * user code of both sides included; compare it with native Linux's getpid in the same run. */
#include <libl4.h>
#include <stdio.h>
#include "../tests/testutil.h"

void qemu_exit(unsigned code);

#define ROUNDS   10000
#define WARMUP   200
#define DONE_NR  1000           /* the foreign thread's last call: MR2 = TSC delta */

static uint8_t stack[8192] __attribute__((aligned(4096)));

static inline uint64_t tsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi) :: "memory");
    return ((uint64_t)hi << 32) | lo;
}

static inline l4_word_t lx_syscall1(l4_word_t nr, l4_word_t a1)
{
    __asm__ volatile("syscall" : "+a"(nr) : "D"(a1) : "rcx", "r11", "memory");
    return nr;
}

static void client(void)
{
    for (int i = 0; i < WARMUP; i++)
        lx_syscall1(39, 0);
    uint64_t t0 = tsc();
    for (int i = 0; i < ROUNDS; i++)
        lx_syscall1(39, 0);
    uint64_t t1 = tsc();
    lx_syscall1(DONE_NR, t1 - t0);
    for (;;)
        lx_syscall1(60, 0);
}

/* ReplyWait through the Ipc stub with MR0 in R9 and MR1 in RAX (contract §4.2); returns the
 * received MR1 (the system-call number) and leaves MR2 (RDI of the caller) in *mr2. */
static inline l4_word_t reply_wait(l4_word_t entry, l4_word_t *to, l4_word_t tag,
                                   l4_word_t rax, l4_word_t *mr2)
{
    register l4_word_t r9 __asm__("r9") = tag;
    register l4_word_t r8 __asm__("r8") = 0;
    l4_word_t rsi = *to, rdx = L4_ANYTHREAD, rbx;
    __asm__ volatile("push %%rbp\n\t"
                     "call *%[entry]\n\t"
                     "pop %%rbp"
                     : "+S"(rsi), "+d"(rdx), "+r"(r9), "+r"(r8), "+a"(rax), "=b"(rbx)
                     : [entry] "r"(entry), "D"(l4_utcb())
                     : "rcx", "r10", "r11", "r12", "r13", "r14", "r15", "memory");
    *to = rsi;
    *mr2 = rbx;
    return rax;
}

int main(void)
{
    l4_word_t me = tu_main_tid(), tid = tu_new_tid(), old, from = 0, mr2;
    l4_word_t entry = l4_kip_get(L4_KIP_OFF_IPC);
    printf("# foreign: %u reflected system calls per measurement\n", ROUNDS);
    if (!l4_thread_control(tid, tid, me, 0, ~0ul) ||
        !l4_space_control_foreign(tid, L4_SPACE_CTL_APPLY | L4_SPACE_CTL_FOREIGN,
                                  l4_fpage_log2(0xBFF00000ul, 12),
                                  l4_fpage_log2(0xBF000000ul, 12), 0, me, &old) ||
        !l4_thread_control(tid, tid, 0, me, 0xBF000000ul)) {
        printf("BENCH-FAILED cannot create the foreign task\n");
        qemu_exit(1);
    }
    l4_schedule(tid, ~0ul, ~0ul, 255, ~0ul, &old);
    l4_set_mr(0, l4_tag_make(0, 2, 0));
    l4_set_mr(1, (l4_word_t)client);
    l4_set_mr(2, (l4_word_t)&stack[sizeof(stack) - 8]);
    l4_send(tid);
    /* Serve its page faults with our pages (1:1), then its system calls. */
    uint64_t c0 = l4_system_clock();
    l4_word_t nr = reply_wait(entry, &from, 0, 0, &mr2);
    for (;;) {
        l4_word_t tag = l4_mr(0);
        (void)tag;
        if (from == tid && nr == DONE_NR)
            break;
        if (from == tid && nr != 39) {
            /* a page fault: MR1 (RAX) is the address */
            l4_word_t page = nr & ~0xFFFul;
            (void)*(volatile char *)page;
            l4_set_mr(0, l4_tag_make(0, 0, 2));
            l4_set_mr(1, l4_map_item(page));
            l4_set_mr(2, l4_fpage_log2(page, 12) | L4_RWX);
            l4_word_t f = from;
            l4_word_t t = l4_reply_wait(f, &from);
            nr = l4_mr(1);
            (void)t;
            continue;
        }
        nr = reply_wait(entry, &from, l4_tag_make(0, 1, 0), 1234, &mr2);
    }
    uint64_t c1 = l4_system_clock();
    unsigned long per = (unsigned long)(mr2 / ROUNDS);
    unsigned long frac = (unsigned long)((mr2 % ROUNDS) * 100 / ROUNDS);
    printf("BENCH name=foreign_syscall_null iters=%u tsc_per_op=%lu.%02lu tsc=%lu ns=%llu\n",
           ROUNDS, per, frac, mr2, (unsigned long long)(c1 - c0) * 1000);
    printf("BENCH-DONE\n");
    qemu_exit(0);
    return 0;
}
