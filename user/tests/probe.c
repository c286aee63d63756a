/* The probes of test_cpustate and their children (probe.h). */
#include "probe.h"
#include "testlib.h"
#include "testutil.h"
#include <l4/pecan.h>

#define RFLAGS_IF   0x200ul
#define RFLAGS_HIGH_KERNEL (0x3000ul | (1ul << 17) | (1ul << 19) | (1ul << 20))  /* IOPL VM VIF VIP */

/* --- the probe page: one page of code, so that a foreign child never faults between planting
 * and probing (a page-fault message would overwrite MR1 and MR2) ------------------------------ */

__asm__(
    ".section .text.cs_probes, \"ax\"\n"
    ".balign 4096\n"
    /* cs_run(words, stub, foreign, index): RBX = words[0], MR2..MR7 = words[1..6], R12 = index,
     * then the stub; the handler resumes us at cs_resume. */
    ".global cs_run\n"
    "cs_run:\n"
    "    pushq %rbx\n    pushq %rbp\n    pushq %r12\n    pushq %r13\n    pushq %r14\n    pushq %r15\n"
    "    movq %rsp, %r13\n"
    "    movq %rsi, %r14\n"
    "    movq %rcx, %r12\n"
    "    movq 0(%rdi), %rbx\n"
    "    testq %rdx, %rdx\n"
    "    jnz 1f\n"
    "    movq 8(%rdi), %rax\n    movq %rax, " XSTR(CS_MR(2)) "\n"
    "    movq 16(%rdi), %rax\n   movq %rax, " XSTR(CS_MR(3)) "\n"
    "    movq 24(%rdi), %rax\n   movq %rax, " XSTR(CS_MR(4)) "\n"
    "    movq 32(%rdi), %rax\n   movq %rax, " XSTR(CS_MR(5)) "\n"
    "    movq 40(%rdi), %rax\n   movq %rax, " XSTR(CS_MR(6)) "\n"
    "    movq 48(%rdi), %rax\n   movq %rax, " XSTR(CS_MR(7)) "\n"
    "    jmp *%r14\n"
    "1:  movq 16(%rdi), %rsi\n"
    "    movq 24(%rdi), %rdx\n"
    "    movq 32(%rdi), %r10\n"
    "    movq 40(%rdi), %r8\n"
    "    movq 48(%rdi), %r9\n"
    "    movq 8(%rdi), %rdi\n"
    "    movl $" XSTR(CS_PLANT) ", %eax\n"
    "    syscall\n"
    "    jmp *%r14\n"
    ".global cs_resume\n"
    "cs_resume:\n"
    "    movq %r13, %rsp\n"
    "    popq %r15\n    popq %r14\n    popq %r13\n    popq %r12\n    popq %rbp\n    popq %rbx\n"
    "    ret\n"
    ".global cs_finish\n"
    "cs_finish:\n"
    "    movl $" XSTR(CS_DONE) ", %r12d\n"
    "    ud2\n"
    "    jmp cs_finish\n"
    /* An iretq/lretq/far transfer that wrongly succeeded lands here. */
    ".global cs_landed\n"
    "cs_landed: ud2\n"
    /* Segment loads, far transfers through memory operands, frames popped from CS_MR(2). */
    ".global cs_mov_ds, cs_mov_es, cs_mov_fs, cs_mov_gs, cs_mov_ss\n"
    "cs_mov_ds: movl %ebx, %ds\n ud2\n"
    "cs_mov_es: movl %ebx, %es\n ud2\n"
    "cs_mov_fs: movl %ebx, %fs\n ud2\n"
    "cs_mov_gs: movl %ebx, %gs\n ud2\n"
    "cs_mov_ss: movl %ebx, %ss\n ud2\n"
    ".global cs_lcall64, cs_ljmp64, cs_lcall32, cs_ljmp32, cs_lret, cs_iret\n"
    "cs_lcall64:\n"                             /* m16:64: offset (8 bytes), selector */
    "    leaq cs_landed(%rip), %rax\n    pushq %rbx\n    pushq %rax\n"
    "    .byte 0x48, 0xff, 0x1c, 0x24\n"        /* rex.w lcall *(%rsp) */
    "    ud2\n"
    "cs_ljmp64:\n"
    "    leaq cs_landed(%rip), %rax\n    pushq %rbx\n    pushq %rax\n"
    "    .byte 0x48, 0xff, 0x2c, 0x24\n"        /* rex.w ljmp *(%rsp) */
    "    ud2\n"
    "cs_lcall32:\n"                             /* m16:32: offset (4 bytes), selector */
    "    leaq cs_landed(%rip), %rax\n    movq %rbx, %rcx\n    shlq $32, %rcx\n"
    "    orq %rcx, %rax\n    pushq %rax\n"
    "    .byte 0xff, 0x1c, 0x24\n"              /* lcall *(%rsp) */
    "    ud2\n"
    "cs_ljmp32:\n"
    "    leaq cs_landed(%rip), %rax\n    movq %rbx, %rcx\n    shlq $32, %rcx\n"
    "    orq %rcx, %rax\n    pushq %rax\n"
    "    .byte 0xff, 0x2c, 0x24\n"              /* ljmp *(%rsp) */
    "    ud2\n"
    "cs_lret: movq $" XSTR(CS_MR(2)) ", %rsp\n lretq\n ud2\n"
    "cs_iret: movq $" XSTR(CS_MR(2)) ", %rsp\n iretq\n ud2\n"
    /* Privileged and system instructions (RBX: an operand). */
    ".global cs_sgdt, cs_sidt, cs_sldt, cs_str, cs_smsw, cs_lgdt, cs_lidt, cs_lldt, cs_ltr\n"
    "cs_sgdt: subq $16, %rsp\n sgdt (%rsp)\n ud2\n"
    "cs_sidt: subq $16, %rsp\n sidt (%rsp)\n ud2\n"
    "cs_sldt: movq $-1, %rax\n sldt %eax\n ud2\n"
    "cs_str:  movq $-1, %rax\n str %eax\n ud2\n"
    "cs_smsw: movq $-1, %rax\n smsw %eax\n ud2\n"
    "cs_lgdt: pushq $0\n pushq $0\n lgdt (%rsp)\n ud2\n"
    "cs_lidt: pushq $0\n pushq $0\n lidt (%rsp)\n ud2\n"
    "cs_lldt: lldt %bx\n ud2\n"
    "cs_ltr:  ltr %bx\n ud2\n"
    ".global cs_rdcr0, cs_rdcr4, cs_wrcr3, cs_rddr7, cs_wrdr7, cs_rddr0, cs_rdmsr, cs_wrmsr\n"
    "cs_rdcr0: movq %cr0, %rax\n ud2\n"
    "cs_rdcr4: movq %cr4, %rax\n ud2\n"
    "cs_wrcr3: movq %rbx, %cr3\n ud2\n"
    "cs_rddr7: movq %dr7, %rax\n ud2\n"
    "cs_wrdr7: movq %rbx, %dr7\n ud2\n"
    "cs_rddr0: movq %dr0, %rax\n ud2\n"
    "cs_rdmsr: movl %ebx, %ecx\n rdmsr\n ud2\n"
    "cs_wrmsr: movl %ebx, %ecx\n xorl %eax, %eax\n xorl %edx, %edx\n wrmsr\n ud2\n"
    ".global cs_rdpmc, cs_swapgs, cs_clts, cs_invlpg, cs_wbinvd, cs_hlt, cs_cli, cs_sti\n"
    "cs_rdpmc: xorl %ecx, %ecx\n rdpmc\n ud2\n"
    "cs_swapgs: swapgs\n ud2\n"
    "cs_clts: clts\n ud2\n"
    "cs_invlpg: invlpg (%rsp)\n ud2\n"
    "cs_wbinvd: wbinvd\n ud2\n"
    "cs_hlt: hlt\n ud2\n"
    "cs_cli: cli\n ud2\n"
    "cs_sti: sti\n ud2\n"
    ".global cs_xsetbv, cs_sysenter, cs_rdpkru, cs_icebp, cs_into, cs_popf_all\n"
    "cs_xsetbv: xorl %ecx, %ecx\n movl $7, %eax\n xorl %edx, %edx\n xsetbv\n ud2\n"
    "cs_sysenter: sysenter\n ud2\n"
    "cs_rdpkru: xorl %ecx, %ecx\n .byte 0x0f, 0x01, 0xee\n ud2\n"
    "cs_icebp: .byte 0xf1\n ud2\n"              /* int1: #DB, a trap */
    "cs_into: .byte 0xce\n ud2\n"               /* invalid in 64-bit mode */
    /* popf with every bit but TF: RAX = what the CPU kept; flags back to 0x202, then #UD. */
    "cs_popf_all: pushq $-257\n popfq\n pushfq\n popq %rax\n pushq $0x202\n popfq\n ud2\n"
    /* Memory: RBX = the address. */
    ".global cs_read, cs_write, cs_exec\n"
    "cs_read: movq (%rbx), %rax\n ud2\n"
    "cs_write: movq %rax, (%rbx)\n ud2\n"
    "cs_exec: call *%rbx\n ud2\n"
    /* FPU/SSE state (RBX: an image). */
    ".global cs_ldmxcsr, cs_fxrstor, cs_xrstor\n"
    "cs_ldmxcsr: pushq $-1\n ldmxcsr (%rsp)\n ud2\n"
    "cs_fxrstor: fxrstor64 (%rbx)\n ud2\n"
    "cs_xrstor: movl $-1, %eax\n movl $-1, %edx\n xrstor64 (%rbx)\n ud2\n"
    /* int $n for every n: 4 bytes each (CD nn, ud2). */
    ".global cs_int_n\n"
    "cs_int_n:\n"
    ".set cs_n, 0\n"
    ".rept 256\n"
    "    .byte 0xcd, cs_n\n    ud2\n"
    "    .set cs_n, cs_n + 1\n"
    ".endr\n"
    ".global cs_probes_end\n"
    "cs_probes_end:\n"
    ".text\n");

/* --- the child --------------------------------------------------------------------------------- */

static l4_word_t children[8];
static unsigned nchildren;

l4_word_t track(l4_word_t t)
{
    if (t && nchildren < sizeof(children) / sizeof(children[0]))
        children[nchildren++] = t;
    return t;
}

void reap(void)
{
    while (nchildren)
        tu_kill(children[--nchildren]);
}

static struct probe *child_probes;
static unsigned child_count;
volatile bool child_foreign;
volatile bool child_scans_ldt;       /* count_visible(1) before the end */
uint8_t child_stack[16384] __attribute__((aligned(16)));

/* Selectors with TI = 1 that lar, lsl, verr and verw find usable (a null LDT: none). */
volatile unsigned ldt_visible;

static unsigned count_visible(unsigned ti)
{
    unsigned n = 0;
    for (unsigned i = 0; i < 8192; i++) {
        l4_word_t sel = (i << 3) | (ti << 2) | 3, r;
        uint8_t lar, lsl, verr, verw;
        __asm__ volatile("larq %5, %0\n\tsetz %1\n\t"
                         "lslq %5, %0\n\tsetz %2\n\t"
                         "verr %w5\n\tsetz %3\n\t"
                         "verw %w5\n\tsetz %4"
                         : "=&r"(r), "=&r"(lar), "=&r"(lsl), "=&r"(verr), "=&r"(verw)
                         : "r"(sel) : "cc");
        n += lar + lsl + verr + verw;
    }
    return n;
}

static void probe_child(void)
{
    if (!child_foreign)
        l4_set_exception_handler(tu_main_tid());
    for (unsigned i = 0; i < child_count; i++)
        cs_run(child_probes[i].words, child_probes[i].stub, child_foreign, i);
    if (child_scans_ldt)
        ldt_visible = count_visible(1);
    __asm__ volatile("jmp cs_finish");
    for (;;)
        ;
}

/* --- the handler ------------------------------------------------------------------------------- */


/* A foreign message's register set has the X.2 exception message's order (then the
 * bases), so that L4_EXC_* index both. */
_Static_assert((int)L4_FREG_RIP == (int)L4_EXC_RIP && (int)L4_FREG_RSP == (int)L4_EXC_RSP &&
               (int)L4_FREG_RFLAGS == (int)L4_EXC_RFLAGS && (int)L4_FREG_R12 == (int)L4_EXC_R12,
               "register order");

struct event decode(l4_word_t tag)
{
    struct event e = { 0 };
    bool x2 = l4_tag_is_proto(tag, L4_PROTO_EXCEPTION);
    if (x2 || l4_tag_is_proto(tag, L4_PROTO_FOREIGN_EXCEPTION)) {
        e.exception = true;
        e.vector = (unsigned)l4_mr(x2 ? L4_EXC_VECTOR : L4_FEXC_VECTOR);
        e.error = l4_mr(x2 ? L4_EXC_ERROR : L4_FEXC_ERROR);
        e.addr = x2 ? 0 : l4_mr(L4_FEXC_ADDR);
        e.rip = l4_mr(L4_EXC_RIP);
        e.rsp = l4_mr(L4_EXC_RSP);
        e.rflags = l4_mr(L4_EXC_RFLAGS);
        e.rax = l4_mr(L4_EXC_RAX);
        e.rbx = l4_mr(L4_EXC_RBX);
        e.rcx = l4_mr(L4_EXC_RCX);
        e.r12 = l4_mr(L4_EXC_R12);
    } else if ((tag & L4_PROTO_MASK) == L4_PROTO_PAGEFAULT) {
        e.pagefault = true;
        e.addr = l4_mr(L4_PF_ADDR);
        e.rip = l4_mr(L4_PF_IP);
    }
    return e;
}

/* The child t's next message after our reply (foreign: page faults in our image served). */
static l4_word_t reply_next(l4_word_t t, bool foreign)
{
    l4_word_t from;
    l4_word_t tag = l4_ipc(t, t, SLOW_RCV, &from);
    return foreign ? tu_foreign_serve_timeouts(t, tag, SLOW_RCV) : tag;
}

/* Resume the child at rip with a reply that sets only RIP. */
l4_word_t resume_at(l4_word_t t, bool foreign, l4_word_t rip)
{
    l4_set_mr(0, l4_tag_make(foreign ? L4_FOREIGN_SET_REGS : 0, 1, 0));
    l4_set_mr(1, rip);
    return reply_next(t, foreign);
}

static bool is_plant(l4_word_t tag)
{
    return l4_tag_is_proto(tag, L4_PROTO_FOREIGN_SYSCALL) && l4_mr(L4_FSC_RAX) == CS_PLANT;
}

/* Does event e satisfy probe p?  calib: what the calibration frame raised. */
static bool matches(const struct probe *p, const struct event *e, const struct event *calib,
                    bool foreign)
{
    switch (p->kind) {
    case CALIBRATE:
        /* Popped: #UD at cs_landed.  Refused: a #PF exception (QEMU's supervisor read that
         * SMAP refuses) or, for a foreign thread, a page fault at the frame (a user read of
         * its kernel-only UTCB).  Never a page fault of a native thread: its UTCB is mapped,
         * and a pager can do nothing about it (that was the spin of issue 12 item 3). */
        return (e->exception && e->vector == 6 && e->rip == (l4_word_t)cs_landed) ||
               (e->exception && e->vector == 14 && (e->error & 5) == 1) ||
               (foreign && e->pagefault && e->addr == CS_MR(2));
    case FRAME:
        if (!(calib->exception && calib->vector == 6))
            return e->exception == calib->exception && e->pagefault == calib->pagefault &&
                   e->vector == calib->vector && e->error == calib->error &&
                   e->addr == calib->addr;
        break;
    case INT_N: {
        l4_word_t n = p->words[0];
        if (n == 3)
            return e->exception && e->vector == 3 && e->error == 0;
        /* The SDM: IDT entry n's offset in 8-byte units, n * 8 + 2; QEMU's TCG reports the
         * 16-byte long-mode entry's, n * 16 + 2. */
        return e->exception && e->vector == 13 && (e->error == n * 8 + 2 || e->error == n * 16 + 2);
    }
    case SDM_OR_QEMU:
        if (e->exception && e->vector == 6 && e->rip >= (l4_word_t)p->stub &&
            e->rip < (l4_word_t)p->stub + 16)
            return true;
        break;
    case FLAGS_KEPT:
        return e->exception && e->vector == 6 && !(e->rax & RFLAGS_HIGH_KERNEL) &&
               (e->rax & RFLAGS_IF);
    case FAULT:
        break;
    }
    return e->exception && e->vector == p->vector && e->error == p->error;
}

bool run_probes(bool foreign, struct probe *p, unsigned n)
{
    reap();
    if (((l4_word_t)cs_run >> 12) != (((l4_word_t)cs_probes_end - 1) >> 12)) {
        test_note("the probe page overflows: %lx-%lx", (l4_word_t)cs_run, (l4_word_t)cs_probes_end);
        return false;
    }
    child_probes = p;
    child_count = n;
    child_foreign = foreign;
    l4_word_t t, tag;
    if (foreign) {
        t = track(tu_foreign_thread(probe_child,
                                    (l4_word_t)&child_stack[sizeof(child_stack) - 8],
                                    tu_main_tid(), CS_UTCB));
        if (!t)
            return false;
        tag = tu_foreign_serve_timeouts(t, l4_receive_timeout(t, l4_period_from_us(10000000)),
                                        SLOW_RCV);
    } else {
        t = track(tu_space_thread_utcb(probe_child, 100, CS_UTCB));
        if (!t)
            return false;
        tag = l4_receive_timeout(t, l4_period_from_us(10000000));
    }
    struct event calib = { .exception = true, .vector = 6 };
    bool ok = true;
    for (unsigned i = 0; i < n; i++) {
        if (foreign) {
            if (!is_plant(tag)) {
                test_note("%s: expected the planting system call, tag %lx", p[i].name, tag);
                ok = false;
                break;
            }
            l4_set_mr(0, l4_tag_make(L4_FOREIGN_RESUME, 1, 0));
            l4_set_mr(1, 0);
            tag = reply_next(t, true);
        }
        struct event e = decode(tag);
        if (!e.exception && !e.pagefault) {
            test_note("%s: neither exception nor page fault, tag %lx", p[i].name, tag);
            ok = false;
            break;
        }
        if (p[i].kind == CALIBRATE) {
            calib = e;
            test_note("iretq frame (%s): %s", foreign ? "foreign, no page" : "native, user page",
                      e.vector == 6 ? "popped" : e.pagefault ? "page fault" : "#PF (supervisor read)");
        }
        if (!matches(&p[i], &e, &calib, foreign)) {
            test_note("%s (%s): %s vector %u error %lx at %lx (rax %lx addr %lx), expected %u/%lx",
                      p[i].name, foreign ? "foreign" : "native",
                      e.pagefault ? "page fault" : "exception", e.vector, e.error, e.rip,
                      e.rax, e.addr, p[i].vector, p[i].error);
            ok = false;
        }
        if (e.exception && e.r12 != i && !e.pagefault) {
            test_note("%s: R12 %lx, not the probe's index %u", p[i].name, e.r12, i);
            ok = false;
            break;
        }
        tag = resume_at(t, foreign, (l4_word_t)cs_resume);
    }
    if (ok) {
        struct event e = decode(tag);
        if (!e.exception || e.vector != 6 || e.r12 != CS_DONE) {
            test_note("expected the end, tag %lx vector %u rip %lx", tag, e.vector, e.rip);
            ok = false;
        }
    }
    reap();
    return ok;
}

void probe_case(bool foreign, struct probe *p, unsigned n, void (*setup)(void))
{
    if (setup)
        setup();
    CHECK(run_probes(foreign, p, n));
}

/* --- children for single cases ------------------------------------------------------------------ */

/* The entry of a child: native children name us their exception handler; then the code at
 * child_entry_stub with RAX, RDX, R13, R14 from child_regs. */
const char *child_entry_stub;
l4_word_t child_regs[4];             /* RAX, RDX, R13, R14 */

void stub_child(void)
{
    if (!child_foreign)
        l4_set_exception_handler(tu_main_tid());
    register l4_word_t r13 __asm__("r13") = child_regs[2];
    register l4_word_t r14 __asm__("r14") = child_regs[3];
    __asm__ volatile("jmp *%4" :: "a"(child_regs[0]), "d"(child_regs[1]), "r"(r13), "r"(r14),
                     "r"(child_entry_stub) : "memory");
    for (;;)
        ;
}

/* A child (foreign: a thread of a new foreign space; else a native thread in a new space)
 * running stub with the given registers; *tag: its first message. */
l4_word_t spawn(bool foreign, const char *stub, l4_word_t rax, l4_word_t rdx,
                       l4_word_t r13, l4_word_t r14, l4_word_t *tag)
{
    reap();
    child_foreign = foreign;
    child_entry_stub = stub;
    child_regs[0] = rax; child_regs[1] = rdx; child_regs[2] = r13; child_regs[3] = r14;
    l4_word_t t;
    if (foreign) {
        t = track(tu_foreign_thread(stub_child,
                                    (l4_word_t)&child_stack[sizeof(child_stack) - 8],
                                    tu_main_tid(), CS_UTCB));
        *tag = t ? tu_foreign_serve(t, l4_receive_timeout(t, l4_period_from_us(10000000))) : 0;
    } else {
        t = track(tu_space_thread_utcb(stub_child, 100, CS_UTCB));
        *tag = t ? l4_receive_timeout(t, l4_period_from_us(10000000)) : 0;
    }
    return t;
}


struct regs get_regs(bool foreign)
{
    struct regs r = { .foreign = foreign };
    for (unsigned i = 1; i <= (foreign ? L4_FREG_WORDS : L4_EXC_REGS); i++)
        r.w[i] = l4_mr(i);
    return r;
}

/* Reply to t with every register of r; its next message (a foreign thread's page faults in
 * our image served), received with these timeouts. */
l4_word_t put_regs(l4_word_t t, const struct regs *r, l4_word_t timeouts)
{
    unsigned n = r->foreign ? L4_FREG_WORDS : L4_EXC_REGS;
    l4_set_mr(0, l4_tag_make(r->foreign ? L4_FOREIGN_SET_REGS : 0, n, 0));
    for (unsigned i = 1; i <= n; i++)
        l4_set_mr(i, r->w[i]);
    l4_word_t from, tag = l4_ipc(t, t, timeouts, &from);
    return r->foreign ? tu_foreign_serve_timeouts(t, tag, timeouts) : tag;
}

/* Reply to t with every register of the message just received, RIP and RFLAGS replaced. */
l4_word_t resume_all(l4_word_t t, bool foreign, l4_word_t rip, l4_word_t rflags)
{
    struct regs r = get_regs(foreign);
    r.w[L4_EXC_RIP] = rip;
    r.w[L4_EXC_RFLAGS] = rflags;
    return put_regs(t, &r, 0);
}

/* Answer a foreign system call with RAX = 0 and return the next message. */
l4_word_t resume_syscall(l4_word_t t)
{
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_RESUME, 1, 0));
    l4_set_mr(1, 0);
    l4_word_t from;
    return tu_foreign_serve(t, l4_ipc(t, t, 0, &from));
}

bool is_ud_at(const struct event *e, const char *where)
{
    return e->exception && e->vector == 6 && e->rip == (l4_word_t)where;
}
