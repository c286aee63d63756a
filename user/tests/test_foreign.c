/* In-system test: the foreign system-call ABI (docs/linux-abi.md).  Threads of a foreign
 * space run code of this image (mapped 1:1 by tu_foreign_serve on their page faults) that speaks only
 * Linux: `syscall` with the number in RAX.  Each system call, exception, page fault and
 * interrupt reaches the space's handler (this thread) as a message, and its reply sets the
 * thread's registers. */
#include "testlib.h"
#include "testutil.h"
#include <l4/pecan.h>

#define KIP_AREA   0xBFF00000ul
#define UTCB_AREA  0xBF000000ul

/* What the foreign threads saw, written to memory they share with us. */
static volatile l4_word_t seen[8];
static volatile l4_word_t spin_count;
static volatile l4_word_t tls_word = 0x7153;
static uint8_t stacks[4][8192] __attribute__((aligned(4096)));

static inline l4_word_t lx_syscall(l4_word_t nr, l4_word_t a1, l4_word_t a2, l4_word_t a3)
{
    l4_word_t ret;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a1), "S"(a2), "d"(a3)
                     : "rcx", "r11", "memory");
    return ret;
}

/* Report a value and wait for the answer: system call 1000 + slot. */
static l4_word_t report(unsigned slot, l4_word_t v)
{
    seen[slot] = v;
    return lx_syscall(1000 + slot, v, 0, 0);
}

/* exit(0), as often as it takes (the tests kill the thread once it has reported). */
static void __attribute__((noreturn)) linux_exit(void)
{
    for (;;)
        lx_syscall(60, 0, 0, 0);
}

static void __attribute__((noreturn)) report_and_exit(unsigned slot, l4_word_t v)
{
    report(slot, v);
    linux_exit();
}

/* The message is the foreign system call number nr. */
static bool is_syscall(l4_word_t tag, l4_word_t nr)
{
    return l4_tag_is_proto(tag, L4_PROTO_FOREIGN_SYSCALL) && l4_mr(L4_FSC_RAX) == nr;
}

/* A thread of a new foreign space (handler `handler`, pager us) that starts at fn on the
 * given stack; 0 on failure.  Its first page fault comes to the handler. */
static l4_word_t foreign_thread(void (*fn)(void), unsigned stack, l4_word_t handler)
{
    return tu_foreign_thread(fn, (l4_word_t)&stacks[stack][8192 - 8], handler, UTCB_AREA);
}

/* The next message from t. */
static l4_word_t next_from(l4_word_t t)
{
    return tu_foreign_serve(t, l4_receive(t));
}

/* Reply to t (the message is in our MRs), then its next message. */
static l4_word_t reply_next(l4_word_t t)
{
    l4_word_t from;
    return tu_foreign_serve(t, l4_ipc(t, t, 0, &from));
}

static void resume(l4_word_t rax)
{
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_RESUME, 1, 0));
    l4_set_mr(1, rax);
}

/* --- system calls -------------------------------------------------------------------------- */

static void calls_main(void)
{
    register l4_word_t r10 __asm__("r10") = 44;
    register l4_word_t r8 __asm__("r8") = 55;
    register l4_word_t r9 __asm__("r9") = 66;
    register l4_word_t r12 __asm__("r12") = 0x1212;
    register l4_word_t r15 __asm__("r15") = 0x1515;
    l4_word_t ret = 39, rcx, rbx = 0xB0B0, rdi = 11, rsi = 22, rdx = 33;
    __asm__ volatile("pushq %%rbp\n\t"
                     "movq $0x5151, %%rbp\n\t"
                     "syscall\n\t"
                     "movq %%rbp, %%rdi\n\t"
                     "popq %%rbp"
                     : "+a"(ret), "=c"(rcx), "+b"(rbx), "+D"(rdi), "+S"(rsi), "+d"(rdx),
                       "+r"(r12), "+r"(r15), "+r"(r10), "+r"(r8), "+r"(r9)
                     :: "r11", "memory");
    seen[1] = rcx;
    seen[2] = (rbx == 0xB0B0 && rdi == 0x5151 && rsi == 22 && rdx == 33 && r12 == 0x1212 &&
               r15 == 0x1515 && r10 == 44 && r8 == 55 && r9 == 66);
    report_and_exit(0, ret);
}

TEST(syscall_message_and_result)
{
    l4_word_t t = foreign_thread(calls_main, 0, tu_main_tid());
    CHECK(t != 0);
    l4_word_t tag = next_from(t);
    CHECK(l4_tag_is_proto(tag, L4_PROTO_FOREIGN_SYSCALL), "tag %lx", tag);
    CHECK_EQ(l4_tag_u(tag), L4_FSC_WORDS);
    CHECK_EQ(l4_mr(L4_FSC_RAX), 39);
    CHECK_EQ(l4_mr(L4_FSC_RDI), 11); CHECK_EQ(l4_mr(L4_FSC_RSI), 22);
    CHECK_EQ(l4_mr(L4_FSC_RDX), 33); CHECK_EQ(l4_mr(L4_FSC_R10), 44);
    CHECK_EQ(l4_mr(L4_FSC_R8), 55);  CHECK_EQ(l4_mr(L4_FSC_R9), 66);
    l4_word_t rip = l4_mr(L4_FSC_RIP);
    CHECK(rip > (l4_word_t)calls_main && rip < (l4_word_t)calls_main + 512, "rip %lx", rip);
    CHECK(l4_mr(L4_FSC_RSP) > (l4_word_t)stacks[0] &&
          l4_mr(L4_FSC_RSP) <= (l4_word_t)&stacks[0][8192]);
    CHECK(l4_mr(L4_FSC_RFLAGS) & 0x200);
    resume(4242);
    tag = reply_next(t);
    CHECK(is_syscall(tag, 1000), "tag %lx, number %lu", tag, l4_mr(L4_FSC_RAX));
    CHECK_EQ(seen[0], 4242);
    CHECK_EQ(seen[1], rip);                 /* as Linux: RCX = RIP after the syscall */
    CHECK_EQ(seen[2], 1);                   /* every other register as it was */
    tu_kill(t);
}

/* --- the register set: GET_REGS, SET_REGS (FS base, RIP) -------------------------------------- */

static void after_jump(void)
{
    l4_word_t v;
    __asm__ volatile("movq %%fs:0, %0" : "=r"(v));
    report_and_exit(1, v);
}

static void regs_main(void)
{
    register l4_word_t r13 __asm__("r13") = 0x1313;
    __asm__ volatile("syscall" : "+r"(r13) : "a"(158ul) : "rcx", "r11", "memory");
    linux_exit();                       /* never: the reply moves RIP */
}

TEST(get_and_set_register_set)
{
    l4_word_t t = foreign_thread(regs_main, 0, tu_main_tid());
    CHECK(t != 0);
    l4_word_t tag = next_from(t);
    CHECK(is_syscall(tag, 158), "tag %lx, number %lu", tag, l4_mr(L4_FSC_RAX));
    l4_word_t rip = l4_mr(L4_FSC_RIP), rsp = l4_mr(L4_FSC_RSP);
    /* GET_REGS: the answer is the register set, and the thread still waits for us. */
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_GET_REGS, 0, 0));
    tag = l4_call(t);
    CHECK(l4_tag_is_proto(tag, L4_PROTO_FOREIGN_REGS), "tag %lx", tag);
    CHECK_EQ(l4_tag_u(tag), L4_FREG_WORDS);
    CHECK_EQ(l4_mr(L4_FREG_RIP), rip);
    CHECK_EQ(l4_mr(L4_FREG_RCX), rip);
    CHECK_EQ(l4_mr(L4_FREG_RSP), rsp);
    CHECK_EQ(l4_mr(L4_FREG_RAX), 158);
    CHECK_EQ(l4_mr(L4_FREG_FS_BASE), 0);
    CHECK_EQ(l4_mr(L4_FREG_GS_BASE), 0);     /* no %gs page for Linux programs */
    CHECK_EQ(l4_mr(L4_FREG_R13), 0x1313);
    /* SET_REGS: a new RIP and the FS base, everything else as it was. */
    l4_word_t regs[L4_FREG_WORDS + 1];
    for (unsigned i = 1; i <= L4_FREG_WORDS; i++)
        regs[i] = l4_mr(i);
    regs[L4_FREG_RIP] = (l4_word_t)after_jump;
    regs[L4_FREG_RSP] = rsp & ~15ul;
    regs[L4_FREG_FS_BASE] = (l4_word_t)&tls_word;
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_SET_REGS, L4_FREG_WORDS, 0));
    for (unsigned i = 1; i <= L4_FREG_WORDS; i++)
        l4_set_mr(i, regs[i]);
    tag = reply_next(t);
    CHECK(is_syscall(tag, 1001), "tag %lx, number %lu", tag, l4_mr(L4_FSC_RAX));
    CHECK_EQ(seen[1], 0x7153);              /* %fs:0 read through the base we set */
    /* The base stays across system calls and switches: read it back. */
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_GET_REGS, 0, 0));
    tag = l4_call(t);
    CHECK(l4_tag_is_proto(tag, L4_PROTO_FOREIGN_REGS), "tag %lx", tag);
    CHECK_EQ(l4_mr(L4_FREG_FS_BASE), (l4_word_t)&tls_word);
    /* A non-canonical base would fault the kernel: it becomes 0. */
    for (unsigned i = 1; i <= L4_FREG_WORDS; i++)
        regs[i] = l4_mr(i);
    regs[L4_FREG_FS_BASE] = 0x8000000000000000ul;
    regs[L4_FREG_RIP] = (l4_word_t)after_jump;
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_SET_REGS, L4_FREG_WORDS, 0));
    for (unsigned i = 1; i <= L4_FREG_WORDS; i++)
        l4_set_mr(i, regs[i]);
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_SET_REGS, L4_FREG_WORDS, 0));
    tag = reply_next(t);
    CHECK_EQ(tag & L4_PROTO_MASK, L4_PROTO_PAGEFAULT);    /* %fs:0 at address 0 */
    CHECK_EQ(l4_mr(L4_PF_ADDR), 0);
    tu_kill(t);
}

/* --- exceptions and page faults ------------------------------------------------------------- */

/* A load with a three-byte instruction (48 8b 02). */
static inline void load(l4_word_t addr)
{
    l4_word_t v;
    __asm__ volatile("movq (%%rdx), %%rax" : "=a"(v) : "d"(addr) : "memory");
}

static void exceptions_main(void)
{
    report(0, 1);
    __asm__ volatile("ud2");                        /* #UD: vector 6 */
    report(0, 2);
    __asm__ volatile("lock; nop");                  /* KernelInterface in X.2: here #UD */
    report(0, 3);
    __asm__ volatile("int3");                       /* no kernel debugger: vector 3 */
    report(0, 4);
    __asm__ volatile("int $0x80");                  /* #GP, error 0x80 * 8 + 2 */
    report(0, 5);
    __asm__ volatile("inb $0x80, %%al" ::: "rax");  /* no I/O-fault protocol: #GP */
    report(0, 6);
    load(0x7000000000ul);                           /* a page fault outside our image */
    report(0, 7);
    load(UTCB_AREA);                                /* its UTCB is the kernel's */
    report_and_exit(0, 8);
}

/* Expect the exception `vector` (error code `error`) at an instruction of `len` bytes and
 * resume after it with a RIP-only SET_REGS reply. */
static bool skip_exception(l4_word_t t, l4_word_t tag, unsigned vector, l4_word_t error,
                           unsigned len)
{
    if (!l4_tag_is_proto(tag, L4_PROTO_FOREIGN_EXCEPTION) || l4_tag_u(tag) != L4_FEXC_WORDS ||
        l4_mr(L4_FEXC_VECTOR) != vector || l4_mr(L4_FEXC_ERROR) != error) {
        test_note("tag %lx vector %lu error %lx", tag, l4_mr(L4_FEXC_VECTOR),
                  l4_mr(L4_FEXC_ERROR));
        return false;
    }
    l4_word_t rip = l4_mr(L4_FREG_RIP);
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_SET_REGS, 1, 0));
    l4_set_mr(1, rip + len);
    return true;
}

static bool next_step(l4_word_t t, l4_word_t *tag, l4_word_t step)
{
    *tag = reply_next(t);
    if (!l4_tag_is_proto(*tag, L4_PROTO_FOREIGN_SYSCALL) || seen[0] != step)
        return false;
    resume(0);
    *tag = reply_next(t);
    return true;
}

TEST(exceptions_and_faults_go_to_the_handler)
{
    l4_word_t t = foreign_thread(exceptions_main, 1, tu_main_tid()), tag;
    CHECK(t != 0);
    tag = next_from(t);
    CHECK(l4_tag_is_proto(tag, L4_PROTO_FOREIGN_SYSCALL) && seen[0] == 1);
    resume(0);
    tag = reply_next(t);
    CHECK(skip_exception(t, tag, 6, 0, 2));
    CHECK(next_step(t, &tag, 2));
    CHECK(skip_exception(t, tag, 6, 0, 2));
    CHECK(next_step(t, &tag, 3));
    /* int3 is a trap: RIP is already past it. */
    CHECK(skip_exception(t, tag, 3, 0, 0));
    CHECK(next_step(t, &tag, 4));
    /* The error code names IDT entry 0x80 (the SDM: n * 8 + 2; QEMU's TCG reports the
     * 16-byte long-mode entry's offset, n * 16 + 2). */
    CHECK(skip_exception(t, tag, 13, l4_mr(L4_FEXC_ERROR) == 0x802 ? 0x802 : 0x402, 2));
    CHECK(next_step(t, &tag, 5));
    CHECK(skip_exception(t, tag, 13, 0, 2));
    CHECK(next_step(t, &tag, 6));
    /* A page fault uses the page-fault message; the reply may set registers (a signal). */
    CHECK_EQ(tag & L4_PROTO_MASK, L4_PROTO_PAGEFAULT);
    CHECK_EQ(l4_mr(L4_PF_ADDR), 0x7000000000ul);
    l4_word_t rip = l4_mr(L4_PF_IP);
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_SET_REGS, L4_FREG_RIP, 0));
    l4_set_mr(L4_FREG_RIP, rip + 3);
    CHECK(next_step(t, &tag, 7), "seen %lu", seen[0]);
    CHECK_EQ(tag & L4_PROTO_MASK, L4_PROTO_PAGEFAULT);
    CHECK_EQ(l4_mr(L4_PF_ADDR), UTCB_AREA);
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_SET_REGS, L4_FREG_RIP, 0));
    l4_set_mr(L4_FREG_RIP, l4_mr(L4_PF_IP) + 3);
    CHECK(next_step(t, &tag, 8), "seen %lu", seen[0]);
    tu_kill(t);
}

/* --- no X.2 system calls -------------------------------------------------------------------- */

static void stub_main(void)
{
    /* The KIP's Ipc stub, called the way libl4 does: still a foreign system call. */
    l4_word_t entry = l4lib_syscalls.ipc, ret;
    __asm__ volatile("pushq %%rbp\n\tcall *%1\n\tpopq %%rbp"
                     : "=a"(ret) : "r"(entry), "a"(77ul), "S"(L4_NILTHREAD), "d"(L4_NILTHREAD)
                     : "rbx", "rcx", "rdi", "r8", "r9", "r10", "r11", "r12", "r13", "r14",
                       "r15", "memory");
    report_and_exit(0, ret);
}

TEST(stub_calls_are_foreign_system_calls)
{
    l4_word_t t = foreign_thread(stub_main, 2, tu_main_tid());
    CHECK(t != 0);
    l4_word_t tag = next_from(t);
    CHECK(is_syscall(tag, 77), "tag %lx, number %lu", tag, l4_mr(L4_FSC_RAX));
    CHECK(l4_mr(L4_FSC_RIP) >= 0xFFFFFF0000000000ul, "rip %lx", l4_mr(L4_FSC_RIP));
    resume(31);
    tag = reply_next(t);
    CHECK(l4_tag_is_proto(tag, L4_PROTO_FOREIGN_SYSCALL), "tag %lx", tag);
    CHECK_EQ(seen[0], 31);
    tu_kill(t);
}

/* --- YIELD: the reply of a sched_yield ------------------------------------------------------- */

static volatile l4_word_t ticket;

static void yield_a_main(void)
{
    seen[5] = 99;                       /* fault the pages in before the call */
    ticket = ticket;
    lx_syscall(1003, 0, 0, 0);
    seen[5] = ticket++;
    report_and_exit(3, 0);
}

static void yield_b_main(void)
{
    seen[6] = 99;
    ticket = ticket;
    lx_syscall(1004, 0, 0, 0);
    seen[6] = ticket++;
    report_and_exit(4, 0);
}

/* A YIELD reply puts its thread behind a ready thread of its priority (b), which a plain
 * reply would not: the reply's direct switch would run a first. */
TEST(yield_reply_runs_a_ready_thread_of_the_same_priority_first)
{
    ticket = 0;
    l4_word_t a = foreign_thread(yield_a_main, 0, tu_main_tid());
    CHECK(a != 0);
    CHECK(is_syscall(next_from(a), 1003), "number %lu", l4_mr(L4_FSC_RAX));
    l4_word_t b = foreign_thread(yield_b_main, 1, tu_main_tid());
    CHECK(b != 0);
    CHECK(is_syscall(next_from(b), 1004), "number %lu", l4_mr(L4_FSC_RAX));
    resume(0);
    CHECK(!l4_ipc_failed(l4_reply(b)));     /* b is ready and has not run since */
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_YIELD, 1, 0));
    l4_set_mr(1, 0);
    l4_word_t tag = reply_next(a);
    CHECK(is_syscall(tag, 1003), "tag %lx, number %lu", tag, l4_mr(L4_FSC_RAX));
    CHECK_EQ(seen[6], 0);                   /* b took the first ticket */
    CHECK_EQ(seen[5], 1);
    tu_kill(a);
    tu_kill(b);
}

/* --- interrupts ------------------------------------------------------------------------------ */

static void spin_main(void)
{
    spin_count = 0;                     /* fault its page in before we report */
    report(2, 0);
    for (;;)
        spin_count++;
}

static void interrupted(void)
{
    report_and_exit(2, spin_count);
}

TEST(interrupt_running_thread)
{
    l4_word_t t = foreign_thread(spin_main, 3, tu_main_tid());
    CHECK(t != 0);
    l4_word_t tag = next_from(t);
    CHECK(l4_tag_is_proto(tag, L4_PROTO_FOREIGN_SYSCALL), "tag %lx", tag);
    resume(0);
    l4_reply(t);
    /* Let it run user code: donate our time until it has counted. */
    for (unsigned i = 0; i < 1000 && spin_count == 0; i++)
        l4_thread_switch(t);
    CHECK(spin_count > 0);
    struct l4_exregs old;
    l4_exchange_registers(t, L4_EXREGS_APPLY_INTERRUPT | L4_EXREGS_INTERRUPT, 0, 0, 0, 0, 0, &old);
    CHECK_EQ(old.control & 7, 0);       /* running: neither halted nor in IPC */
    tag = next_from(t);
    CHECK(l4_tag_is_proto(tag, L4_PROTO_FOREIGN_INTERRUPT), "tag %lx", tag);
    CHECK_EQ(l4_tag_u(tag), L4_FREG_WORDS);
    l4_word_t rip = l4_mr(L4_FREG_RIP);
    CHECK(rip >= (l4_word_t)spin_main && rip < (l4_word_t)spin_main + 64, "rip %lx", rip);
    /* Deliver "the signal": run `interrupted` on the same stack. */
    l4_word_t rsp = l4_mr(L4_FREG_RSP);
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_SET_REGS, L4_FREG_RSP, 0));
    l4_set_mr(L4_FREG_RIP, (l4_word_t)interrupted);
    l4_set_mr(L4_FREG_RSP, (rsp & ~15ul) - 8);
    tag = reply_next(t);
    CHECK(is_syscall(tag, 1002), "tag %lx, number %lu", tag, l4_mr(L4_FSC_RAX));
    CHECK(seen[2] > 0);
    tu_kill(t);
}

static void blocked_main(void)
{
    l4_word_t r = lx_syscall(0, 0, 0, 0);   /* "read": the handler answers later */
    report_and_exit(3, r);
}

TEST(interrupt_blocked_thread)
{
    l4_word_t t = foreign_thread(blocked_main, 3, tu_main_tid());
    CHECK(t != 0);
    l4_word_t tag = next_from(t);
    CHECK(l4_tag_is_proto(tag, L4_PROTO_FOREIGN_SYSCALL), "tag %lx", tag);
    l4_word_t rip = l4_mr(L4_FSC_RIP);
    /* It waits for our reply: raise, cancel, raise again. */
    struct l4_exregs old;
    l4_exchange_registers(t, L4_EXREGS_APPLY_INTERRUPT | L4_EXREGS_INTERRUPT, 0, 0, 0, 0, 0, &old);
    CHECK_EQ(old.control & 7, 2);       /* in its receive phase */
    l4_exchange_registers(t, L4_EXREGS_APPLY_INTERRUPT, 0, 0, 0, 0, 0, &old);
    CHECK(old.control & L4_EXREGS_OUT_INTERRUPT);
    l4_exchange_registers(t, 0, 0, 0, 0, 0, 0, &old);
    CHECK(!(old.control & L4_EXREGS_OUT_INTERRUPT));
    l4_exchange_registers(t, L4_EXREGS_APPLY_INTERRUPT | L4_EXREGS_INTERRUPT, 0, 0, 0, 0, 0, &old);
    /* The reply completes the call; the interrupt follows before any user instruction. */
    resume((l4_word_t)-4);              /* -EINTR */
    tag = reply_next(t);
    CHECK(l4_tag_is_proto(tag, L4_PROTO_FOREIGN_INTERRUPT), "tag %lx", tag);
    CHECK_EQ(l4_mr(L4_FREG_RIP), rip);
    CHECK_EQ(l4_mr(L4_FREG_RAX), (l4_word_t)-4);
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_RESUME, 0, 0));
    tag = reply_next(t);
    CHECK(l4_tag_is_proto(tag, L4_PROTO_FOREIGN_SYSCALL), "tag %lx", tag);
    CHECK_EQ(seen[3], (l4_word_t)-4);
    tu_kill(t);
}

/* --- who may do what ------------------------------------------------------------------------ */

static volatile l4_word_t helper_result;

static void exregs_helper(void)
{
    struct l4_exregs old;
    helper_result = l4_exchange_registers((l4_word_t)seen[7], 0, 0, 0, 0, 0, 0, &old);
    tu_report(0x55, helper_result);
    l4_sleep_forever();
}

TEST(only_the_handler_names_foreign_threads)
{
    l4_word_t t = foreign_thread(blocked_main, 3, tu_main_tid());
    CHECK(t != 0);
    l4_word_t tag = next_from(t);
    CHECK(l4_tag_is_proto(tag, L4_PROTO_FOREIGN_SYSCALL), "tag %lx", tag);
    struct l4_exregs old;
    CHECK(l4_exchange_registers(t, 0, 0, 0, 0, 0, 0, &old) != L4_NILTHREAD);
    /* Another thread of our space is not the handler. */
    seen[7] = t;
    l4_word_t h = tu_thread(exregs_helper, 100);
    CHECK(h != 0);
    tag = l4_receive(h);
    CHECK_EQ(l4_tag_label(tag), 0x55);
    CHECK_EQ(l4_mr(1), L4_NILTHREAD);
    tu_kill(h);
    tu_kill(t);
}

TEST(space_control_word)
{
    l4_word_t me = tu_main_tid(), tid = tu_new_tid(), old;
    CHECK(l4_thread_control(tid, tid, me, 0, ~0ul));
    l4_word_t kip = l4_fpage_log2(KIP_AREA, 12), utcb = l4_fpage_log2(UTCB_AREA, 12);
    /* Without bit 63 the word changes nothing (X.2 programs pass 0). */
    CHECK(l4_space_control_foreign(tid, L4_SPACE_CTL_FOREIGN, kip, utcb, 0, me, &old));
    CHECK_EQ(old, 0);
    CHECK(l4_space_control(tid, 0, 0, 0, 0, &old));
    CHECK_EQ(old, 0);
    /* Unknown bits, a handler that does not exist. */
    CHECK_EQ(l4_space_control_foreign(tid, L4_SPACE_CTL_APPLY | 2, 0, 0, 0, me, &old), 0);
    CHECK_EQ(l4_error_code(), L4_ERR_INVALID_PARAM);
    CHECK_EQ(l4_space_control_foreign(tid, L4_SPACE_CTL_APPLY | L4_SPACE_CTL_FOREIGN, 0, 0, 0,
                                      tu_new_tid(), &old), 0);
    CHECK_EQ(l4_error_code(), L4_ERR_INVALID_THREAD);
    /* On and off while no thread is active; the handler can change any time. */
    CHECK(l4_space_control_foreign(tid, L4_SPACE_CTL_APPLY | L4_SPACE_CTL_FOREIGN, 0, 0, 0, me,
                                   &old));
    CHECK(l4_space_control(tid, L4_SPACE_CTL_APPLY, 0, 0, 0, &old));
    CHECK_EQ(old, L4_SPACE_CTL_FOREIGN);
    CHECK(l4_space_control(tid, 0, 0, 0, 0, &old));
    CHECK_EQ(old, 0);
    CHECK(l4_space_control_foreign(tid, L4_SPACE_CTL_APPLY | L4_SPACE_CTL_FOREIGN, 0, 0, 0, me,
                                   &old));
    CHECK(l4_thread_control(tid, tid, 0, me, UTCB_AREA));
    CHECK_EQ(l4_space_control(tid, L4_SPACE_CTL_APPLY, 0, 0, 0, &old), 0);
    CHECK_EQ(l4_error_code(), L4_ERR_INVALID_PARAM);
    CHECK(l4_space_control_foreign(tid, L4_SPACE_CTL_APPLY | L4_SPACE_CTL_FOREIGN, 0, 0, 0,
                                   l4_my_global_id(), &old));
    CHECK_EQ(old, L4_SPACE_CTL_FOREIGN);
    tu_kill(tid);
}

static volatile l4_word_t other_handler;

static void handler_thread(void)
{
    l4_sleep_forever();
}

TEST(thread_without_handler_is_halted)
{
    l4_word_t h = tu_thread(handler_thread, 100);
    CHECK(h != 0);
    other_handler = h;
    l4_word_t t = foreign_thread(blocked_main, 3, h);
    CHECK(t != 0);
        tu_wait_blocked();                  /* t waits to send its first page fault to h */
    tu_kill(h);
    tu_wait_blocked();
    CHECK(tu_state(t) == L4_SCHEDULE_INACTIVE, "state %u", tu_state(t));      /* halted */
    tu_kill(t);
}

/* --- UTCBs: the kernel's memory, mapped nowhere in the space ---------------------------------- */

/* A thread that needs no stack: its index comes in RSP (never used as a stack).  It reports
 * the index (system call 1000), then the answer it got (1001). */
void many_entry(void);
__asm__(".pushsection .text\n"
        ".globl many_entry\n"
        "many_entry:\n\t"
        "movq %rsp, %rdi\n\t"
        "movl $1000, %eax\n\t"
        "syscall\n\t"
        "movq %rax, %rdi\n\t"
        "movl $1001, %eax\n\t"
        "syscall\n\t"
        "ud2\n"
        ".popsection");

#define MANY 64
static l4_word_t many[MANY];

extern char __executable_start[], _end[];

/* The answer to a page fault inside our image: our page, 1:1. */
static bool map_our_page(l4_word_t addr)
{
    if (addr < (l4_word_t)__executable_start || addr >= (l4_word_t)_end)
        return false;
    l4_word_t page = addr & ~0xFFFul;
    (void)*(volatile char *)page;
    l4_set_mr(0, l4_tag_make(0, 0, 2));
    l4_set_mr(1, l4_map_item(page));
    l4_set_mr(2, l4_fpage_log2(page, 12) | L4_RWX);
    return true;
}

static int index_of(l4_word_t tid)
{
    for (int i = 0; i < MANY; i++)
        if (many[i] == tid)
            return i;
    return -1;
}

/* In a foreign space every thread has a UTCB of its own: more threads than the UTCB area
 * has locations, all at the same location, each with its own message registers (the old
 * kernel refused the second: error 6, the location in use). */
TEST(threads_share_a_utcb_location)
{
    l4_word_t me = tu_main_tid(), old, fill[400];
    unsigned n0 = tu_fill_spaces(fill, 400);
    for (unsigned i = 0; i < n0; i++)
        tu_kill(fill[i]);
    l4_word_t first = tu_new_tid();
    CHECK(l4_thread_control(first, first, me, 0, ~0ul));
    CHECK(l4_space_control_foreign(first, L4_SPACE_CTL_APPLY | L4_SPACE_CTL_FOREIGN,
                                   l4_fpage_log2(KIP_AREA, 12), l4_fpage_log2(UTCB_AREA, 12), 0,
                                   me, &old));
    for (int i = 0; i < MANY; i++) {
        many[i] = i ? tu_new_tid() : first;
        CHECK(l4_thread_control(many[i], first, me, me, UTCB_AREA),
              "thread %d: error %lu", i, l4_error_code());
        l4_schedule(many[i], ~0ul, ~0ul, 100, ~0ul, &old);
        l4_set_mr(0, l4_tag_make(0, 2, 0));
        l4_set_mr(1, (l4_word_t)many_entry);
        l4_set_mr(2, (l4_word_t)i);
        CHECK(!l4_ipc_failed(l4_send(many[i])));
    }
    /* Each reports its index from its own registers and gets its own answer back. */
    unsigned asked = 0, answered = 0;
    l4_word_t from, tag = l4_wait(&from);
    while (answered < MANY) {
        CHECK(!l4_ipc_failed(tag), "tag %lx", tag);
        int i = index_of(from);
        CHECK(i >= 0, "a message from %lx", from);
        if (l4_tag_is_proto(tag, L4_PROTO_PAGEFAULT)) {
            CHECK(map_our_page(l4_mr(L4_PF_ADDR)), "fault at %lx", l4_mr(L4_PF_ADDR));
        } else if (is_syscall(tag, 1000)) {
            CHECK_EQ(l4_mr(L4_FSC_RDI), (l4_word_t)i);
            resume(0x5000 + (l4_word_t)i);
            asked++;
        } else {
            CHECK(is_syscall(tag, 1001), "tag %lx", tag);
            CHECK_EQ(l4_mr(L4_FSC_RDI), 0x5000 + (l4_word_t)i);
            answered++;
            if (answered == MANY)
                break;
            tag = l4_wait(&from);
            continue;
        }
        tag = l4_reply_wait(from, &from);
    }
    CHECK_EQ(asked, MANY);
    for (int i = MANY - 1; i >= 0; i--)
        tu_kill(many[i]);
    /* Their UTCBs went back to the kernel's pool with them. */
    unsigned n1 = tu_fill_spaces(fill, 400);
    for (unsigned i = 0; i < n1; i++)
        tu_kill(fill[i]);
    CHECK_EQ(n1, n0);
}

static volatile l4_word_t area_word;

static void read_utcb_area_main(void)
{
    l4_word_t v;
    __asm__ volatile("movq (%%rdx), %%rax" : "=a"(v) : "d"(UTCB_AREA) : "memory");
    report_and_exit(4, v);
}

static uint8_t area_page[4096] __attribute__((aligned(4096)));

/* The UTCB area of a foreign space reserves no addresses: the handler maps a page there (the
 * old kernel skipped map items aimed at the UTCB area, and the thread faulted again). */
TEST(utcb_area_is_the_programs)
{
    *(volatile l4_word_t *)area_page = 0xA4EA;
    l4_word_t t = foreign_thread(read_utcb_area_main, 0, tu_main_tid());
    CHECK(t != 0);
    l4_word_t tag = next_from(t);
    CHECK_EQ(tag & L4_PROTO_MASK, L4_PROTO_PAGEFAULT);
    CHECK_EQ(l4_mr(L4_PF_ADDR), UTCB_AREA);
    l4_set_mr(0, l4_tag_make(0, 0, 2));
    l4_set_mr(1, l4_map_item(UTCB_AREA));
    l4_set_mr(2, l4_fpage_log2((l4_word_t)area_page, 12) | L4_RWX);
    tag = reply_next(t);
    CHECK(is_syscall(tag, 1004), "tag %lx, address %lx", tag, l4_mr(L4_PF_ADDR));
    CHECK_EQ(seen[4], 0xA4EA);
    tu_kill(t);
}

/* A space made foreign after an ordinary thread of it was active and deleted: the UTCB page
 * that thread left is gone (the old kernel kept it, mapped for user access, and gave it to
 * the foreign thread activated in the same page: its UTCB, open to the program). */
TEST(foreign_bit_clears_old_utcb_pages)
{
    l4_word_t me = tu_main_tid(), a = tu_new_tid(), b = tu_new_tid(), old;
    CHECK(l4_thread_control(a, a, me, 0, ~0ul));
    CHECK(l4_space_control(a, 0, l4_fpage_log2(KIP_AREA, 12), l4_fpage_log2(UTCB_AREA, 12), 0,
                           &old));
    CHECK(l4_thread_control(a, a, 0, me, UTCB_AREA));      /* backs the UTCB page */
    CHECK(l4_thread_control(b, a, me, 0, ~0ul));           /* inactive, same space */
    tu_kill(a);
    CHECK(l4_space_control_foreign(b, L4_SPACE_CTL_APPLY | L4_SPACE_CTL_FOREIGN, 0, 0, 0, me,
                                   &old));
    CHECK(l4_thread_control(b, b, 0, me, UTCB_AREA + 0x400));
    l4_schedule(b, ~0ul, ~0ul, 100, ~0ul, &old);
    l4_set_mr(0, l4_tag_make(0, 2, 0));
    l4_set_mr(1, (l4_word_t)read_utcb_area_main);
    l4_set_mr(2, (l4_word_t)&stacks[0][8192 - 8]);
    CHECK(!l4_ipc_failed(l4_send(b)));
    l4_word_t tag = next_from(b);
    CHECK((tag & L4_PROTO_MASK) == L4_PROTO_PAGEFAULT, "tag %lx (read %lx)", tag, seen[4]);
    CHECK_EQ(l4_mr(L4_PF_ADDR), UTCB_AREA);
    tu_kill(b);
}

int main(void)
{
    tests_run("foreign");
}
