/* In-system test: the CPU state a user thread can reach (docs/cpu-state.md, issue 12).
 *
 * The core is a table of probes: one instruction each that must fault, run by a child thread
 * that is either a native X.2 thread in a new space or a thread of a foreign space (its
 * exceptions are messages to us, its handler; docs/linux-abi.md).  Each child's UTCB lies at
 * CS_UTCB, inside the first 64 KiB, where a TI=1 selector made the CPU read a descriptor while
 * the LDTR kept its reset value (base 0, limit 0xFFFF).  Before each probe the child plants the
 * probe's six words in MR2..MR7 of its UTCB: a native thread stores them (its UTCB is its
 * memory), a foreign thread puts them in RDI, RSI, RDX, R10, R8, R9 and makes a system call
 * that takes the kernel's slow path, which writes those registers into MR2..MR7 (its UTCB is
 * mapped for the kernel only) -- the attack of issue 12.  The probe's instruction must raise
 * exactly the exception the SDM gives, which reaches us as one exception message; we resume
 * the child at cs_resume, and it goes on with the next probe.
 *
 * Frame probes (iretq, lretq) pop their frame from MR2..MR6 (RSP = CS_MR(2)).  QEMU 7.2 (TCG)
 * reads the frame of a user-mode iretq/lretq with supervisor rights (the SDM: user rights), so
 * with SMAP it faults on a user page before it looks at the selectors: a #PF with U clear,
 * which the kernel reports as an exception (traps.c, pager_can_resolve), not as a page fault
 * its pager could map (it spun for ever, issue 12 item 3).  A foreign thread's UTCB is a
 * kernel page, so there the same frames reach the selector checks.  Each child's first probe,
 * a valid iretq, tells which of the two the CPU does; the frame probes expect the same. */
#include "testlib.h"
#include "testutil.h"
#include <l4/pecan.h>
#include <string.h>

#define CS_UTCB     0x8000ul
#define CS_MR(n)    (CS_UTCB + 0x200 + 8 * (n))
#define SEL_GATE    0x8227          /* TI = 1, RPL 3: the 16-byte descriptor at CS_MR(4) */
#define SEL_DATA    0x8237          /* the descriptor at CS_MR(6) */
#define SEL_HIGH    0x823F          /* the descriptor at CS_MR(7) */
#define DESC_DATA   0x00CFF2000000FFFFul        /* DPL 3 data, writable, base 0, 4 GiB */
#define DESC_CODE64 0x00AFFA000000FFFFul        /* DPL 3 64-bit code */
/* A 64-bit call gate, DPL 3, to 0x08:GATE_TARGET: any kernel address (here the physmap, not
 * executable: a gate that worked would end in a kernel page fault, not run anything). */
#define GATE_TARGET 0xFFFF800000000000ul
#define GATE_LO     ((GATE_TARGET & 0xFFFF) | (0x08ul << 16) | (0xECul << 40) | \
                     (((GATE_TARGET >> 16) & 0xFFFF) << 48))
#define GATE_HI     (GATE_TARGET >> 32)
#define USER_CS     0x23
#define USER_SS     0x1B
#define KERNEL_CS   0x08

#define CS_PLANT    1000            /* the foreign child's planting system call */
#define CS_DONE     0xD0E           /* R12 at the child's final ud2 */
#define RFLAGS_USER 0x8D5ul         /* CF PF AF ZF SF OF: what a handler may set (contract 4.4.2) */
#define RFLAGS_IF   0x200ul
#define RFLAGS_IOPL 0x3000ul
#define RFLAGS_HIGH_KERNEL (RFLAGS_IOPL | (1ul << 17) | (1ul << 19) | (1ul << 20))  /* VM VIF VIP */

/* A receive timeout that is not `never`: the foreign system-call fast path only serves a
 * handler that waits without one, so with it every foreign system call takes the C path,
 * which writes the registers into the thread's MRs (it never expires: the child answers). */
#define SLOW_RCV    l4_timeouts(L4_NEVER, l4_period_from_us(10000000))

/* --- the probes (one page of code, so that a foreign child never faults between planting and
 * probing: a page-fault message would overwrite MR1 and MR2) ---------------------------------- */

#define XSTR(x) STR(x)
#define STR(x) #x
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

typedef char stub_t[];
extern stub_t cs_resume, cs_finish, cs_landed, cs_mov_ds, cs_mov_es, cs_mov_fs, cs_mov_gs,
    cs_mov_ss, cs_lcall64, cs_ljmp64, cs_lcall32, cs_ljmp32, cs_lret, cs_iret, cs_sgdt, cs_sidt,
    cs_sldt, cs_str, cs_smsw, cs_lgdt, cs_lidt, cs_lldt, cs_ltr, cs_rdcr0, cs_rdcr4, cs_wrcr3,
    cs_rddr7, cs_wrdr7, cs_rddr0, cs_rdmsr, cs_wrmsr, cs_rdpmc, cs_swapgs, cs_clts, cs_invlpg,
    cs_wbinvd, cs_hlt, cs_cli, cs_sti, cs_xsetbv, cs_sysenter, cs_rdpkru, cs_icebp, cs_into,
    cs_popf_all, cs_read, cs_write, cs_exec, cs_ldmxcsr, cs_fxrstor, cs_xrstor, cs_int_n,
    cs_probes_end;
void cs_run(const l4_word_t *words, const char *stub, l4_word_t foreign, l4_word_t index);

enum probe_kind {
    FAULT,          /* raises (vector, error) */
    FRAME,          /* pops a frame from CS_MR(2): raises (vector, error) if the calibration
                     * frame was popped, else what the calibration raised */
    CALIBRATE,      /* a valid iretq from CS_MR(2): lands at cs_landed (#UD) or faults */
    INT_N,          /* int $sel: #GP with the IDT entry's error code (vector 3: #BP) */
    FLAGS_KEPT,     /* #UD with RAX = flags in which IOPL, VM, VIF, VIP are 0 and IF is 1 */
};

struct probe {
    const char *name;
    const char *stub;
    l4_word_t words[7];         /* RBX, then MR2..MR7 */
    unsigned vector;
    l4_word_t error;
    enum probe_kind kind;
};

/* --- CPU features, as user mode sees them ---------------------------------------------------- */

static struct {
    bool umip, fsgsbase, smap, intel, osxsave;
} cpu;

static void cpuid(uint32_t leaf, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d)
{
    __asm__ volatile("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(0));
}

static void detect_cpu(void)
{
    uint32_t max, b, c, d;
    cpuid(0, &max, &b, &c, &d);
    cpu.intel = b == 0x756E6547;                /* "Genu" */
    cpuid(1, &max, &b, &c, &d);
    cpu.osxsave = c & (1u << 27);
    cpuid(0, &max, &b, &c, &d);
    if (max >= 7) {
        uint32_t a;
        cpuid(7, &a, &b, &c, &d);
        cpu.fsgsbase = b & 1;
        cpu.smap = b & (1u << 20);
        cpu.umip = c & (1u << 2);
    }
}

/* --- the child --------------------------------------------------------------------------------- */

static struct probe *child_probes;
static unsigned child_count;
static volatile bool child_foreign;
static uint8_t child_stack[16384] __attribute__((aligned(16)));

/* Selectors with TI = 1 that lar, lsl, verr and verw find usable (a null LDT: none). */
static volatile unsigned ldt_visible;

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
    ldt_visible = count_visible(1);
    __asm__ volatile("jmp cs_finish");
    for (;;)
        ;
}

/* --- the handler ------------------------------------------------------------------------------- */

/* One message of the child, decoded. */
struct event {
    bool exception, pagefault;
    unsigned vector;
    l4_word_t error, rip, rax, r12, addr;
};

static struct event decode(l4_word_t tag)
{
    struct event e = { 0 };
    if (l4_tag_is_proto(tag, L4_PROTO_EXCEPTION)) {
        e.exception = true;
        e.vector = (unsigned)l4_mr(L4_EXC_VECTOR);
        e.error = l4_mr(L4_EXC_ERROR);
        e.rip = l4_mr(L4_EXC_RIP);
        e.rax = l4_mr(L4_EXC_RAX);
        e.r12 = l4_mr(L4_EXC_R12);
    } else if (l4_tag_is_proto(tag, L4_PROTO_FOREIGN_EXCEPTION)) {
        e.exception = true;
        e.vector = (unsigned)l4_mr(L4_FEXC_VECTOR);
        e.error = l4_mr(L4_FEXC_ERROR);
        e.rip = l4_mr(L4_FREG_RIP);
        e.rax = l4_mr(L4_FREG_RAX);
        e.r12 = l4_mr(L4_FREG_R12);
        e.addr = l4_mr(L4_FEXC_ADDR);
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
static l4_word_t resume_at(l4_word_t t, bool foreign, l4_word_t rip)
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
static bool matches(const struct probe *p, const struct event *e, const struct event *calib)
{
    switch (p->kind) {
    case CALIBRATE:
        /* Popped: #UD at cs_landed.  Refused: a #PF exception (QEMU's supervisor read) or a
         * page fault at the frame (a user read of a kernel page). */
        return (e->exception && e->vector == 6 && e->rip == (l4_word_t)cs_landed) ||
               (e->exception && e->vector == 14 && (e->error & 5) == 1) ||
               (e->pagefault && e->addr == CS_MR(2));
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
    case FLAGS_KEPT:
        return e->exception && e->vector == 6 && !(e->rax & RFLAGS_HIGH_KERNEL) &&
               (e->rax & RFLAGS_IF);
    case FAULT:
        break;
    }
    return e->exception && e->vector == p->vector && e->error == p->error;
}

/* Run probes p[0..n) in a new child (foreign or native); every probe must raise what it
 * expects, and the child must end at cs_finish.  Notes every mismatch. */
static bool run_probes(bool foreign, struct probe *p, unsigned n)
{
    child_probes = p;
    child_count = n;
    child_foreign = foreign;
    l4_word_t t, tag;
    if (foreign) {
        t = tu_foreign_thread(probe_child, (l4_word_t)&child_stack[sizeof(child_stack) - 8],
                              tu_main_tid(), CS_UTCB);
        if (!t)
            return false;
        tag = tu_foreign_serve_timeouts(t, l4_receive_timeout(t, l4_period_from_us(10000000)),
                                        SLOW_RCV);
    } else {
        t = tu_space_thread_utcb(probe_child, 100, CS_UTCB);
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
        if (p[i].kind == CALIBRATE)
            calib = e;
        if (!matches(&p[i], &e, &calib)) {
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
    tu_kill(t);
    return ok;
}

/* --- issue 12 item 1: TI=1 selectors ----------------------------------------------------------- */

/* Expected outcomes: #GP(error) (a frame probe: if the calibration frame was popped). */
#define GP(error)       13, (error), FAULT
#define GP_FRAME(error) 13, (error), FRAME
#define UD              6, 0, FAULT

#define FRAME_AT(rip, cs, ss, last) { 0, (l4_word_t)(rip), cs, 0x202, CS_MR(10), ss, last }

static struct probe ldt_probes[] = {
    { "iretq with a valid frame", cs_iret, FRAME_AT(cs_landed, USER_CS, USER_SS, 0),
      6, 0, CALIBRATE },
    { "mov to DS", cs_mov_ds, { SEL_DATA, 0, 0, 0, 0, DESC_DATA, 0 }, GP(SEL_DATA & ~3) },
    { "mov to ES", cs_mov_es, { SEL_DATA, 0, 0, 0, 0, DESC_DATA, 0 }, GP(SEL_DATA & ~3) },
    { "mov to FS", cs_mov_fs, { SEL_DATA, 0, 0, 0, 0, DESC_DATA, 0 }, GP(SEL_DATA & ~3) },
    { "mov to GS", cs_mov_gs, { SEL_DATA, 0, 0, 0, 0, DESC_DATA, 0 }, GP(SEL_DATA & ~3) },
    { "mov to SS", cs_mov_ss, { SEL_DATA, 0, 0, 0, 0, DESC_DATA, 0 }, GP(SEL_DATA & ~3) },
    { "lcall m16:64 through a call gate to CS 0x8", cs_lcall64,
      { SEL_GATE, 0, 0, GATE_LO, GATE_HI, 0, 0 }, GP(SEL_GATE & ~3) },
    { "lcall m16:32 through a call gate to CS 0x8", cs_lcall32,
      { SEL_GATE, 0, 0, GATE_LO, GATE_HI, 0, 0 }, GP(SEL_GATE & ~3) },
    { "ljmp m16:64 through a call gate", cs_ljmp64,
      { SEL_GATE, 0, 0, GATE_LO, GATE_HI, 0, 0 }, GP(SEL_GATE & ~3) },
    { "ljmp m16:32 through a call gate", cs_ljmp32,
      { SEL_GATE, 0, 0, GATE_LO, GATE_HI, 0, 0 }, GP(SEL_GATE & ~3) },
    { "lcall m16:64 to a code descriptor", cs_lcall64,
      { SEL_HIGH, 0, 0, 0, 0, 0, DESC_CODE64 }, GP(SEL_HIGH & ~3) },
    { "ljmp m16:64 to a code descriptor", cs_ljmp64,
      { SEL_HIGH, 0, 0, 0, 0, 0, DESC_CODE64 }, GP(SEL_HIGH & ~3) },
    { "lretq to a CS from the LDT", cs_lret,
      { 0, (l4_word_t)cs_landed, SEL_HIGH, 0, 0, 0, DESC_CODE64 }, GP_FRAME(SEL_HIGH & ~3) },
    { "iretq to a CS from the LDT", cs_iret, FRAME_AT(cs_landed, SEL_HIGH, USER_SS, DESC_CODE64),
      GP_FRAME(SEL_HIGH & ~3) },
    { "iretq to an SS from the LDT", cs_iret, FRAME_AT(cs_landed, USER_CS, SEL_HIGH, DESC_DATA),
      GP_FRAME(SEL_HIGH & ~3) },
    /* Issue 12 item 3: this one spun for ever. */
    { "iretq to CS 0x8", cs_iret, FRAME_AT(cs_landed, KERNEL_CS, USER_SS, 0), GP_FRAME(KERNEL_CS) },
    { "lretq to CS 0x8", cs_lret, { 0, (l4_word_t)cs_landed, KERNEL_CS, 0, 0, 0, 0 },
      GP_FRAME(KERNEL_CS) },
    { "lcall to CS 0x8", cs_lcall64, { KERNEL_CS, 0, 0, 0, 0, 0, 0 }, GP(KERNEL_CS) },
};
#define NPROBES(a) (sizeof(a) / sizeof((a)[0]))

TEST(ldt_selectors_fault_native)
{
    CHECK(run_probes(false, ldt_probes, NPROBES(ldt_probes)));
    CHECK_EQ(ldt_visible, 0);
}

TEST(ldt_selectors_fault_foreign)
{
    CHECK(run_probes(true, ldt_probes, NPROBES(ldt_probes)));
    CHECK_EQ(ldt_visible, 0);
}

int main(void)
{
    detect_cpu();
    tests_run("cpustate");
}
