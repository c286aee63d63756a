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
#include "cmdline.h"
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
    /* Registers after a kernel return: #UD; the handler resumes after it (RFLAGS ~0); then
     * RAX = RFLAGS, RBX = CS, RCX = SS and #UD again. */
    ".global cs_readback, cs_recv_readback\n"
    "cs_readback: ud2\n"
    "cs_readback2: pushfq\n popq %rax\n movl %cs, %ebx\n movl %ss, %ecx\n"
    "    pushq $0x202\n popfq\n ud2\n"
    /* The same after a closed receive (RAX = the Ipc stub, RDX = the sender). */
    "cs_recv_readback: xorl %esi, %esi\n xorl %r8d, %r8d\n xorl %r9d, %r9d\n"
    "    pushq %rbp\n call *%rax\n popq %rbp\n jmp cs_readback2\n"
    /* AC, NT and DF set by the thread across a system call (R14: a stub) and an exception:
     * RBX = RFLAGS after the call, R12 = after the exception, then #UD. */
    ".global cs_user_flags\n"
    "cs_user_flags: pushq $0x44602\n popfq\n"
    "    xorl %edi, %edi\n movl $2000, %eax\n"
    "    pushq %rbp\n call *%r14\n popq %rbp\n"
    "    pushfq\n popq %rbx\n"
    "    ud2\n"
    "    pushfq\n popq %r12\n"
    "    pushq $0x202\n popfq\n ud2\n"
    /* Single steps (TF) through a system call (R14: a stub), a syscall right after a load of
     * SS (which defers a debug trap by one instruction), and an exception. */
    ".global cs_single_step\n"
    "cs_single_step: pushfq\n orq $0x100, (%rsp)\n popfq\n"
    "    nop\n"
    "    xorl %edi, %edi\n movl $2001, %eax\n"
    "    pushq %rbp\n call *%r14\n popq %rbp\n"
    "    movl %ss, %eax\n movl %eax, %ss\n syscall\n"
    "    ud2\n"
    "    pushfq\n andq $-257, (%rsp)\n popfq\n"
    "    movl $" XSTR(CS_DONE) ", %r12d\n ud2\n"
    /* FPU state of its own (R14: the Ipc stub, R13: the thread to report to): MXCSR 0 (every
     * SIMD exception unmasked), x87 zero divide unmasked and pending, then a report; fwait
     * (#MF), fnclex, divss by 0 (#XM); RAX = MXCSR | FCW << 32. */
    ".global cs_fpu_child\n"
    "cs_fpu_child: pushq $0\n ldmxcsr (%rsp)\n movw $0x37B, (%rsp)\n fldcw (%rsp)\n popq %rax\n"
    "    fldz\n fld1\n fdiv %st(1), %st\n"
    "    movq %r13, %rsi\n movq %r13, %rdx\n xorl %r8d, %r8d\n movq $0x770000, %r9\n"
    "    pushq %rbp\n call *%r14\n popq %rbp\n"
    "    fwait\n"
    "    fnclex\n"
    "    xorps %xmm1, %xmm1\n movl $0x3F800000, %eax\n movd %eax, %xmm0\n"
    "    divss %xmm1, %xmm0\n"
    "    pushq $0\n stmxcsr (%rsp)\n fnstcw 4(%rsp)\n popq %rax\n"
    "    movl $" XSTR(CS_DONE) ", %r12d\n ud2\n"
    /* Kernel entries of every kind with FS and GS bases the handler chose: an exception, two
     * system calls, a page fault (RBX: an untouched page), timer interrupts and an interrupt
     * message while spinning until *R13 != 0, a report. */
    ".global cs_bases_child\n"
    "cs_bases_child: ud2\n"
    "    movl $3000, %eax\n syscall\n"
    "    movl $3001, %eax\n syscall\n"
    "    movq (%rbx), %rax\n"
    "1:  cmpq $0, (%r13)\n je 1b\n"
    "    movl $3002, %eax\n syscall\n"
    "    movl $" XSTR(CS_DONE) ", %r12d\n ud2\n"
    /* An NMI's target: #UD (the handler sets the bases), spin until *R13 != 0, report. */
    ".global cs_spin_bases\n"
    "cs_spin_bases: ud2\n"
    "1:  cmpq $0, (%r13)\n je 1b\n"
    "    movl $3002, %eax\n syscall\n"
    "    movl $" XSTR(CS_DONE) ", %r12d\n ud2\n"
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
    cs_probes_end, cs_readback, cs_recv_readback, cs_user_flags, cs_single_step, cs_fpu_child,
    cs_bases_child, cs_spin_bases;
void cs_run(const l4_word_t *words, const char *stub, l4_word_t foreign, l4_word_t index);

enum probe_kind {
    FAULT,          /* raises (vector, error) */
    FRAME,          /* pops a frame from CS_MR(2): raises (vector, error) if the calibration
                     * frame was popped, else what the calibration raised */
    CALIBRATE,      /* a valid iretq from CS_MR(2): lands at cs_landed (#UD) or faults */
    INT_N,          /* int $sel: #GP with the IDT entry's error code (vector 3: #BP) */
    FLAGS_KEPT,     /* #UD with RAX = flags in which IOPL, VM, VIF, VIP are 0 and IF is 1 */
    SDM_OR_QEMU,    /* raises (vector, error) as the SDM says, or a #UD inside the stub where QEMU
                     * 7.2's TCG differs: at the ud2 after an instruction whose check it lacks
                     * (reserved MXCSR bits), at an instruction it does not have (icebp) */
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

/* The children a case started: reap() deletes them, whether the case passed or not. */
static l4_word_t children[8];
static unsigned nchildren;

static l4_word_t track(l4_word_t t)
{
    if (t && nchildren < sizeof(children) / sizeof(children[0]))
        children[nchildren++] = t;
    return t;
}

static void reap(void)
{
    while (nchildren)
        tu_kill(children[--nchildren]);
}

static struct probe *child_probes;
static unsigned child_count;
static volatile bool child_foreign;
static volatile bool child_scans_ldt;       /* count_visible(1) before the end */
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
    if (child_scans_ldt)
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
    l4_word_t error, rip, rsp, rflags, rax, rbx, rcx, r12, addr;
};

/* A foreign message's register set has the X.2 exception message's order (then the
 * bases), so that L4_EXC_* index both. */
_Static_assert((int)L4_FREG_RIP == (int)L4_EXC_RIP && (int)L4_FREG_RSP == (int)L4_EXC_RSP &&
               (int)L4_FREG_RFLAGS == (int)L4_EXC_RFLAGS && (int)L4_FREG_R12 == (int)L4_EXC_R12,
               "register order");

static struct event decode(l4_word_t tag)
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

/* Run probes p[0..n) in a new child (foreign or native); every probe must raise what it
 * expects, and the child must end at cs_finish.  Notes every mismatch. */
static bool run_probes(bool foreign, struct probe *p, unsigned n)
{
    reap();
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
            test_note("iretq frame (%s): %s", foreign ? "foreign, kernel page" : "native, user page",
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

#define NPROBES(a) (sizeof(a) / sizeof((a)[0]))

/* A case: prepare the table (setup may be NULL), then run it in one child. */
static void probe_case(bool foreign, struct probe *p, unsigned n, void (*setup)(void))
{
    if (setup)
        setup();
    CHECK(run_probes(foreign, p, n));
}
#define PROBE_CASE(foreign, table, setup) probe_case(foreign, table, NPROBES(table), setup)

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

static void ldt_selectors_fault(bool foreign)
{
    child_scans_ldt = true;
    ldt_visible = ~0u;
    bool ok = run_probes(foreign, ldt_probes, NPROBES(ldt_probes));
    child_scans_ldt = false;
    CHECK(ok);
    CHECK_EQ(ldt_visible, 0);
}

TEST(ldt_selectors_fault_native)  { ldt_selectors_fault(false); }
TEST(ldt_selectors_fault_foreign) { ldt_selectors_fault(true); }


/* --- children for single cases ------------------------------------------------------------------ */

/* The entry of a child: native children name us their exception handler; then the code at
 * child_entry_stub with RAX, RDX, R13, R14 from child_regs. */
static const char *child_entry_stub;
static l4_word_t child_regs[4];             /* RAX, RDX, R13, R14 */

static void stub_child(void)
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
static l4_word_t spawn(bool foreign, const char *stub, l4_word_t rax, l4_word_t rdx,
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

/* The register set of the message just received: an X.2 exception's MR1..MR18 or a foreign
 * message's MR1..MR20 (indices L4_EXC_*, then the bases). */
struct regs {
    bool foreign;
    l4_word_t w[L4_FREG_WORDS + 1];
};

static struct regs get_regs(bool foreign)
{
    struct regs r = { .foreign = foreign };
    for (unsigned i = 1; i <= (foreign ? L4_FREG_WORDS : L4_EXC_REGS); i++)
        r.w[i] = l4_mr(i);
    return r;
}

/* Reply to t with every register of r; its next message (a foreign thread's page faults in
 * our image served), received with these timeouts. */
static l4_word_t put_regs(l4_word_t t, const struct regs *r, l4_word_t timeouts)
{
    unsigned n = r->foreign ? L4_FREG_WORDS : L4_EXC_REGS;
    l4_set_mr(0, l4_tag_make(r->foreign ? L4_FOREIGN_SET_REGS : 0, n, 0));
    for (unsigned i = 1; i <= n; i++)
        l4_set_mr(i, r->w[i]);
    l4_word_t from, tag = l4_ipc(t, t, timeouts, &from);
    return r->foreign ? tu_foreign_serve_timeouts(t, tag, timeouts) : tag;
}

/* Reply to t with every register of the message just received, RIP and RFLAGS replaced. */
static l4_word_t resume_all(l4_word_t t, bool foreign, l4_word_t rip, l4_word_t rflags)
{
    struct regs r = get_regs(foreign);
    r.w[L4_EXC_RIP] = rip;
    r.w[L4_EXC_RFLAGS] = rflags;
    return put_regs(t, &r, 0);
}

/* Answer a foreign system call with RAX = 0 and return the next message. */
static l4_word_t resume_syscall(l4_word_t t)
{
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_RESUME, 1, 0));
    l4_set_mr(1, 0);
    l4_word_t from;
    return tu_foreign_serve(t, l4_ipc(t, t, 0, &from));
}

static bool is_ud_at(const struct event *e, const char *where)
{
    return e->exception && e->vector == 6 && e->rip == (l4_word_t)where;
}

/* RFLAGS after a handler asked for every bit: only the user-modifiable ones (contract
 * 4.4.2) changed, IF still set, IOPL, NT, AC, TF, RF, VM, VIF, VIP, ID as they were (0). */
#define ALL_USER_FLAGS (0x202ul | RFLAGS_USER)

/* --- issue 12 item 3: iretq to CS 0x8, once, resumable, killable --------------------------------- */

static struct probe iret_kernel_cs[] = {
    { "iretq with a valid frame", cs_iret, FRAME_AT(cs_landed, USER_CS, USER_SS, 0),
      6, 0, CALIBRATE },
    { "iretq to CS 0x8", cs_iret, FRAME_AT(cs_landed, KERNEL_CS, USER_SS, 0), GP_FRAME(KERNEL_CS) },
    { "iretq to CS 0x8 again", cs_iret, FRAME_AT(cs_landed, KERNEL_CS, USER_SS, 0),
      GP_FRAME(KERNEL_CS) },
    { "iretq to CS 0xb", cs_iret, FRAME_AT(cs_landed, KERNEL_CS | 3, USER_SS, 0),
      GP_FRAME(KERNEL_CS) },
};

/* run_probes takes each message as it comes: one exception per probe, resumed, and the child
 * reaches its end (a second message for one iretq would be read as the next probe's). */
TEST(iretq_to_kernel_cs_native) { PROBE_CASE(false, iret_kernel_cs, NULL); }

TEST(iretq_to_kernel_cs_foreign) { PROBE_CASE(true, iret_kernel_cs, NULL); }

/* The faulting thread can also be deleted at its exception, and nothing follows. */
TEST(iretq_to_kernel_cs_killed)
{
    for (unsigned foreign = 0; foreign < 2; foreign++) {
        l4_word_t tag, t = spawn(foreign, cs_iret, 0, 0, 0, 0, &tag);
        CHECK(t != 0);
        struct event e = decode(tag);
        CHECK(e.exception || e.pagefault, "tag %lx", tag);
        tu_kill(t);
        CHECK_EQ(tu_state(t), L4_SCHEDULE_ERROR);
        CHECK(l4_ipc_failed(l4_receive_timeout(t, l4_period_from_us(1000))));
    }
}

/* --- the GDT as user mode sees it ------------------------------------------------------------------ */

TEST(gdt_seen_from_user_mode)
{
    /* lar, lsl, verr, verw over every GDT selector (RPL 3): only the user data segment
     * (0x18) and the user code segment (0x20); no gate, no TSS, no system descriptor. */
    unsigned lar = 0, verw = 0, verr = 0;
    for (unsigned i = 0; i < 8192; i++) {
        l4_word_t sel = (i << 3) | 3, ar = 0, limit = 0;
        uint8_t a, l, r, w;
        __asm__ volatile("larq %6, %0\n\tsetz %2\n\t"
                         "lslq %6, %1\n\tsetz %3\n\t"
                         "verr %w6\n\tsetz %4\n\t"
                         "verw %w6\n\tsetz %5"
                         : "+r"(ar), "+r"(limit), "=&r"(a), "=&r"(l), "=&r"(r), "=&r"(w)
                         : "r"(sel) : "cc");
        CHECK(a == l, "lar and lsl disagree on %lx", sel);
        if (a) {
            lar++;
            CHECK(sel == USER_SS || sel == USER_CS, "%lx usable from user mode", sel);
            CHECK_EQ((ar >> 13) & 3, 3);                    /* DPL 3 */
            CHECK_EQ(limit, 0xFFFFFFFFul);
            if (sel == USER_CS)
                CHECK(((ar >> 8) & 0x1A) == 0x1A && (ar & (1u << 21)), "ar %lx", ar);  /* code, readable, L */
            else
                CHECK_EQ((ar >> 8) & 0x1A, 0x12);           /* data, writable */
        }
        verr += r;
        if (w) {
            verw++;
            CHECK_EQ(sel, USER_SS);
        }
    }
    CHECK_EQ(lar, 2);
    CHECK_EQ(verr, 2);
    CHECK_EQ(verw, 1);
}

/* --- privileged and system instructions -------------------------------------------------------- */

#define GP0 GP(0)

static struct probe priv_probes[] = {
    { "sgdt", cs_sgdt, { 0 }, GP0 },            /* [0..4]: UMIP (fix_priv_probes) */
    { "sidt", cs_sidt, { 0 }, GP0 },
    { "sldt", cs_sldt, { 0 }, GP0 },
    { "str", cs_str, { 0 }, GP0 },
    { "smsw", cs_smsw, { 0 }, GP0 },
    { "sysenter", cs_sysenter, { 0 }, GP0 },
    { "lgdt", cs_lgdt, { 0 }, GP0 },
    { "lidt", cs_lidt, { 0 }, GP0 },
    { "lldt", cs_lldt, { 0 }, GP0 },
    { "ltr", cs_ltr, { 0x28 }, GP0 },
    { "mov from CR0", cs_rdcr0, { 0 }, GP0 },
    { "mov from CR4", cs_rdcr4, { 0 }, GP0 },
    { "mov to CR3", cs_wrcr3, { 0 }, GP0 },
    { "mov from DR7", cs_rddr7, { 0 }, GP0 },
    { "mov to DR7", cs_wrdr7, { 0x401 }, GP0 },
    { "mov from DR0", cs_rddr0, { 0 }, GP0 },
    { "rdmsr GS_BASE", cs_rdmsr, { 0xC0000101 }, GP0 },
    { "wrmsr KERNEL_GS_BASE", cs_wrmsr, { 0xC0000102 }, GP0 },
    { "wrmsr SYSENTER_EIP", cs_wrmsr, { 0x176 }, GP0 },
    { "rdpmc", cs_rdpmc, { 0 }, GP0 },
    { "swapgs", cs_swapgs, { 0 }, GP0 },
    { "clts", cs_clts, { 0 }, GP0 },
    { "invlpg", cs_invlpg, { 0 }, GP0 },
    { "wbinvd", cs_wbinvd, { 0 }, GP0 },
    { "hlt", cs_hlt, { 0 }, GP0 },
    { "cli", cs_cli, { 0 }, GP0 },
    { "sti", cs_sti, { 0 }, GP0 },
    { "xsetbv", cs_xsetbv, { 0 }, GP0 },
    { "rdpkru (CR4.PKE clear)", cs_rdpkru, { 0 }, UD },
    { "into (invalid in 64-bit mode)", cs_into, { 0 }, UD },
    { "int1 (icebp)", cs_icebp, { 0 }, 1, 0, SDM_OR_QEMU },
    { "popf cannot set IOPL, VM, VIF, VIP or clear IF", cs_popf_all, { 0 }, 6, 0, FLAGS_KEPT },
    /* The kernel's GDT entries, the TSS, the TSS's upper half and past the limit. */
    { "mov 0x08 to DS", cs_mov_ds, { 0x08 | 3 }, GP(0x08) },
    { "mov 0x10 to DS", cs_mov_ds, { 0x10 | 3 }, GP(0x10) },
    { "mov 0x28 (TSS) to DS", cs_mov_ds, { 0x28 | 3 }, GP(0x28) },
    { "mov 0x30 to ES", cs_mov_es, { 0x30 | 3 }, GP(0x30) },
    { "mov 0x38 (past the GDT) to FS", cs_mov_fs, { 0x38 | 3 }, GP(0x38) },
    { "mov 0x08 to GS", cs_mov_gs, { 0x08 | 3 }, GP(0x08) },
    { "mov null to SS", cs_mov_ss, { 0 }, GP(0) },
    { "mov 0x18 (RPL 0) to SS", cs_mov_ss, { 0x18 }, GP(0x18) },
    { "mov 0x23 (code) to SS", cs_mov_ss, { USER_CS }, GP(0x20) },
    { "mov 0x13 to SS", cs_mov_ss, { 0x10 | 3 }, GP(0x10) },
    { "ljmp to 0x08", cs_ljmp64, { KERNEL_CS }, GP(KERNEL_CS) },
    { "lcall to the TSS", cs_lcall64, { 0x28 | 3 }, GP(0x28) },
    { "lcall to 0x10", cs_lcall64, { 0x10 | 3 }, GP(0x10) },
};

/* Expectations that depend on the CPU: without UMIP the five instructions run (#UD at the
 * ud2 after them); sysenter is #UD on AMD in long mode, xsetbv without CR4.OSXSAVE. */
static void fix_priv_probes(void)
{
    for (unsigned i = 0; i < NPROBES(priv_probes); i++) {
        struct probe *p = &priv_probes[i];
        if (i < 5 && !cpu.umip)
            p->vector = 6;
        if ((p->stub == cs_sysenter && !cpu.intel) || (p->stub == cs_xsetbv && !cpu.osxsave))
            p->vector = 6;
    }
}

TEST(privileged_instructions_fault_native) { PROBE_CASE(false, priv_probes, fix_priv_probes); }

TEST(privileged_instructions_fault_foreign) { PROBE_CASE(true, priv_probes, fix_priv_probes); }

/* Without UMIP the descriptor-table instructions run; what they tell is harmless: no LDT,
 * the TSS selector.  (With UMIP they fault: privileged_instructions_*.) */
TEST(ldtr_and_tr_as_user_mode_reads_them)
{
    if (cpu.umip) {
        test_note("UMIP: sldt and str fault (privileged_instructions_*)");
        return;
    }
    uint16_t ldtr = 0xFFFF, tr = 0;
    __asm__ volatile("sldt %0" : "=m"(ldtr));
    __asm__ volatile("str %0" : "=m"(tr));
    CHECK_EQ(ldtr, 0);
    CHECK_EQ(tr, 0x28);
}

/* --- the IDT: only vector 3 may be raised by int n ------------------------------------------------ */

static struct probe int_probes[256];

static void fill_int_probes(void)
{
    for (unsigned n = 0; n < 256; n++)
        int_probes[n] = (struct probe){ "int n", cs_int_n + 4 * n, { n }, 13, 0, INT_N };
}

TEST(idt_gates_native) { PROBE_CASE(false, int_probes, fill_int_probes); }

TEST(idt_gates_foreign) { PROBE_CASE(true, int_probes, fill_int_probes); }

/* --- kernel memory from user mode: exceptions, never the pager ----------------------------------- */

#define PF(err) 14, (err), FAULT
static struct probe kernel_page_probes[] = {
    { "read the TSS", cs_read, { 0xFFFFFE8000000F98ul }, PF(5) },
    { "read the I/O bitmap", cs_read, { 0xFFFFFE8000001000ul }, PF(5) },
    { "read the kernel image", cs_read, { 0 }, PF(5) },         /* [2]: fill_kernel_probes */
    { "read the physmap", cs_read, { 0xFFFF800000000000ul }, PF(5) },
    { "read the TCB array", cs_read, { 0xFFFFC00000000000ul }, PF(5) },
    { "read an unmapped kernel address", cs_read, { 0xFFFF900000000000ul }, PF(4) },
    { "write the stub page", cs_write, { 0xFFFFFF0000000000ul }, PF(7) },
    { "write the %gs page", cs_write, { 0xFFFFFF0000001000ul }, PF(7) },
    { "execute the %gs page", cs_exec, { 0xFFFFFF0000001000ul }, PF(0x15) },
    { "execute the kernel image", cs_exec, { 0 }, PF(0x15) },   /* [9] */
    { "execute the physmap", cs_exec, { 0xFFFF800000000000ul }, PF(0x15) },
    { "read a non-canonical address", cs_read, { 0x8000000000000000ul }, GP0 },
};

/* The last page of the kernel image (bss, mapped), from the KIP's reserved descriptor of the
 * image (which starts at 1 MiB), at the kernel's virtual address. */
static void fill_kernel_probes(void)
{
    l4_word_t page = 0;
    for (unsigned i = 0; i < l4_kip_memdesc_count(); i++) {
        const struct l4_memdesc *d = l4_kip_memdesc(i);
        if (l4_memdesc_type(d) == L4_MEMDESC_RESERVED && !l4_memdesc_virtual(d) &&
            l4_memdesc_low(d) == 0x100000)
            page = (l4_memdesc_high(d) & ~0xFFFul) + 0xFFFFFFFF80000000ul;
    }
    kernel_page_probes[2].words[0] = kernel_page_probes[9].words[0] = page;
}

TEST(kernel_pages_fault_native) { PROBE_CASE(false, kernel_page_probes, fill_kernel_probes); }

TEST(kernel_pages_fault_foreign) { PROBE_CASE(true, kernel_page_probes, fill_kernel_probes); }

/* --- RFLAGS, CS and SS on the way back to user mode ------------------------------------------------ */

/* Exception reply (native) or SET_REGS (foreign) with RFLAGS = ~0, through iretq. */
static void flags_after_reply(bool foreign)
{
    l4_word_t tag, t = spawn(foreign, cs_readback, 0, 0, 0, 0, &tag);
    CHECK(t != 0);
    struct event e = decode(tag);
    CHECK(is_ud_at(&e, cs_readback), "tag %lx vector %u rip %lx", tag, e.vector, e.rip);
    e = decode(resume_all(t, foreign, e.rip + 2, ~0ul));
    CHECK(e.exception && e.vector == 6, "vector %u", e.vector);
    CHECK_EQ(e.rax, ALL_USER_FLAGS);
    CHECK_EQ(e.rbx, USER_CS);
    CHECK_EQ(e.rcx, USER_SS);
    tu_kill(t);
}

TEST(flags_after_exception_reply)  { flags_after_reply(false); reap(); }
TEST(flags_after_foreign_set_regs) { flags_after_reply(true); reap(); }

/* A thread of our space (ExchangeRegisters reaches it) blocked in a closed receive from us,
 * which returns through sysret into cs_readback2. */
static l4_word_t receiving_child(void)
{
    reap();
    child_foreign = false;
    child_entry_stub = cs_recv_readback;
    child_regs[0] = l4lib_syscalls.ipc;
    child_regs[1] = tu_main_tid();
    l4_word_t t = track(tu_thread(stub_child, 100));
    if (t)
        tu_wait_blocked();
    return t;
}

/* ExchangeRegisters on a thread blocked in a receive, which returns through sysret. */
TEST(flags_after_exchange_registers)
{
    l4_word_t t = receiving_child();
    CHECK(t != 0);
    struct l4_exregs old;
    CHECK(l4_exchange_registers(t, L4_EXREGS_SET_FLAGS, 0, 0, ~0ul, 0, L4_NILTHREAD, &old) != L4_NILTHREAD);
    CHECK(old.control & L4_EXREGS_WAS_RECEIVING);
    l4_set_mr(0, 0);
    CHECK(!l4_ipc_failed(l4_send(t)));
    struct event e = decode(l4_receive(t));
    CHECK(e.exception && e.vector == 6, "vector %u", e.vector);
    CHECK_EQ(e.rax, ALL_USER_FLAGS);
    CHECK_EQ(e.rbx, USER_CS);
    CHECK_EQ(e.rcx, USER_SS);
    tu_kill(t);
}

/* AC, NT and DF that the thread sets itself stay its own across a system call and an
 * exception (the debug kernel checks that none of them is set inside the kernel). */
static void own_flags_kept(bool foreign)
{
    l4_word_t tag, t = spawn(foreign, cs_user_flags, 0, 0, 0, l4lib_syscalls.thread_switch, &tag);
    CHECK(t != 0);
    if (foreign) {
        CHECK(l4_tag_is_proto(tag, L4_PROTO_FOREIGN_SYSCALL), "tag %lx", tag);
        tag = resume_syscall(t);
    }
    struct event e = decode(tag);
    CHECK(e.exception && e.vector == 6, "tag %lx vector %u", tag, e.vector);
    CHECK_EQ(e.rflags & 0x44600, 0x44600);
    e = decode(resume_at(t, foreign, e.rip + 2));
    CHECK(e.exception && e.vector == 6, "vector %u", e.vector);
    CHECK_EQ(e.rbx & 0x44600, 0x44600);         /* after the system call (sysret) */
    CHECK_EQ(e.r12 & 0x44600, 0x44600);         /* after the exception (iretq) */
    tu_kill(t);
}

TEST(own_ac_nt_df_kept_native)  { own_flags_kept(false); reap(); }
TEST(own_ac_nt_df_kept_foreign) { own_flags_kept(true); reap(); }

/* Single-stepping never traps inside the kernel: every #DB reports a user RIP, through a
 * system call, a syscall in the shadow of a load of SS, and an exception. */
static void single_steps(bool foreign)
{
    l4_word_t tag, t = spawn(foreign, cs_single_step, 0, 0, 0, l4lib_syscalls.thread_switch, &tag);
    CHECK(t != 0);
    unsigned steps = 0, n;
    for (n = 0; n < 200; n++) {
        if (foreign && l4_tag_is_proto(tag, L4_PROTO_FOREIGN_SYSCALL)) {
            tag = resume_syscall(t);
            continue;
        }
        struct event e = decode(tag);
        CHECK(e.exception, "tag %lx", tag);
        CHECK(e.rip < 0x0000800000000000ul || (e.rip >> 12) == (0xFFFFFF0000000000ul >> 12),
              "vector %u at %lx", e.vector, e.rip);
        if (e.vector == 1) {
            steps++;
            tag = resume_at(t, foreign, e.rip);
        } else if (e.vector == 6 && e.r12 == CS_DONE) {
            break;
        } else {
            CHECK(e.vector == 6, "vector %u at %lx", e.vector, e.rip);
            tag = resume_at(t, foreign, e.rip + 2);     /* ud2, or a native syscall */
        }
    }
    CHECK(n < 200);
    CHECK(steps >= 8, "%u single steps", steps);
    tu_kill(t);
}

TEST(single_step_native)  { single_steps(false); reap(); }
TEST(single_step_foreign) { single_steps(true); reap(); }

/* --- RIP and RSP the CPU cannot return to ------------------------------------------------------ */

#define NONCANONICAL 0x0000800000000000ul
#define KERNEL_HALF  0xFFFF800000000000ul   /* canonical: the physmap, present, supervisor */

static volatile l4_word_t landed;

static void land(void)
{
    landed = 1;
    __asm__ volatile("movl $" XSTR(CS_DONE) ", %%r12d\n\tud2" ::: "r12");
}

/* The start message's IP (the third word names us the exception handler, Pecan). */
TEST(noncanonical_rip_from_start_message)
{
    reap();
    l4_word_t me = tu_main_tid(), t = track(tu_thread_create(100));
    CHECK(t != 0);
    l4_set_mr(0, l4_tag_make(0, 3, 0));
    l4_set_mr(1, NONCANONICAL);
    l4_set_mr(2, (l4_word_t)&child_stack[sizeof(child_stack) - 8]);
    l4_set_mr(3, me);
    CHECK(!l4_ipc_failed(l4_send(t)));
    struct event e = decode(l4_receive(t));
    CHECK(e.exception && e.vector == 13 && e.error == 0 && e.rip == NONCANONICAL,
          "vector %u error %lx rip %lx", e.vector, e.error, e.rip);
    landed = 0;
    e = decode(resume_at(t, false, (l4_word_t)land));
    CHECK(e.exception && e.vector == 6 && e.r12 == CS_DONE, "vector %u rip %lx", e.vector, e.rip);
    CHECK_EQ(landed, 1);
    tu_kill(t);
}

/* ExchangeRegisters on a thread blocked in a receive (it would leave through sysret). */
TEST(noncanonical_rip_from_exchange_registers)
{
    l4_word_t t = receiving_child();
    CHECK(t != 0);
    struct l4_exregs old;
    CHECK(l4_exchange_registers(t, L4_EXREGS_SET_IP | L4_EXREGS_ABORT_RECV, 0, NONCANONICAL, 0, 0,
                                L4_NILTHREAD, &old) != L4_NILTHREAD);
    struct event e = decode(l4_receive(t));
    CHECK(e.exception && e.vector == 13 && e.error == 0 && e.rip == NONCANONICAL,
          "vector %u error %lx rip %lx", e.vector, e.error, e.rip);
    /* A kernel-half RIP is canonical: the CPU returns to it and faults in user mode. */
    e = decode(resume_at(t, false, KERNEL_HALF));
    CHECK(e.exception && e.vector == 14 && e.error == 0x15 && e.rip == KERNEL_HALF,
          "vector %u error %lx rip %lx", e.vector, e.error, e.rip);
    landed = 0;
    e = decode(resume_at(t, false, (l4_word_t)land));
    CHECK(e.exception && e.vector == 6 && e.r12 == CS_DONE);
    CHECK_EQ(landed, 1);
    tu_kill(t);
}

/* Exception reply (native) and SET_REGS (foreign): a non-canonical RIP is the thread's #GP,
 * once; a non-canonical RSP its #SS (or #GP) at the first use of the stack. */
static void bad_rip_and_rsp(bool foreign)
{
    l4_word_t tag, t = spawn(foreign, cs_readback, 0, 0, 0, 0, &tag);
    CHECK(t != 0);
    struct event e = decode(tag);
    CHECK(is_ud_at(&e, cs_readback), "tag %lx", tag);
    l4_word_t rsp = e.rsp;
    e = decode(resume_at(t, foreign, NONCANONICAL));
    CHECK(e.exception && e.vector == 13 && e.error == 0 && e.rip == NONCANONICAL,
          "vector %u error %lx rip %lx", e.vector, e.error, e.rip);
    e = decode(resume_at(t, foreign, KERNEL_HALF));
    CHECK(e.exception && e.vector == 14 && e.error == 0x15 && e.rip == KERNEL_HALF,
          "vector %u error %lx rip %lx", e.vector, e.error, e.rip);
    /* RSP non-canonical, RIP at the pushfq after the first ud2. */
    struct regs r = get_regs(foreign);
    r.w[L4_EXC_RIP] = (l4_word_t)cs_readback + 2;
    r.w[L4_EXC_RSP] = NONCANONICAL + 64;
    e = decode(put_regs(t, &r, 0));
    CHECK(e.exception && (e.vector == 12 || e.vector == 13) && e.error == 0 &&
          e.rip == (l4_word_t)cs_readback + 2, "vector %u error %lx rip %lx", e.vector, e.error, e.rip);
    /* Back to a good stack: it runs on. */
    r = get_regs(foreign);
    r.w[L4_EXC_RSP] = rsp;
    e = decode(put_regs(t, &r, 0));
    CHECK(e.exception && e.vector == 6 && e.rbx == USER_CS, "vector %u", e.vector);
    tu_kill(t);
}

TEST(bad_rip_rsp_exception_reply) { bad_rip_and_rsp(false); reap(); }
TEST(bad_rip_rsp_foreign_set_regs) { bad_rip_and_rsp(true); reap(); }

/* --- FPU/SSE state ----------------------------------------------------------------------------- */

static uint8_t bad_fx[512] __attribute__((aligned(64)));
static uint8_t bad_xsave[1024] __attribute__((aligned(64)));

static struct probe fpu_probes[] = {
    { "ldmxcsr with reserved bits", cs_ldmxcsr, { 0 }, 13, 0, SDM_OR_QEMU },
    { "fxrstor with a bad MXCSR", cs_fxrstor, { (l4_word_t)bad_fx }, 13, 0, SDM_OR_QEMU },
    { "xrstor with a reserved XSTATE_BV bit", cs_xrstor, { (l4_word_t)bad_xsave }, GP0 },
};

static void fill_fpu_images(void)
{
    memset(bad_fx, 0, sizeof(bad_fx));
    *(uint16_t *)bad_fx = 0x37F;
    *(uint32_t *)(bad_fx + 24) = 0xFFFFFFFF;            /* MXCSR: every reserved bit */
    memset(bad_xsave, 0, sizeof(bad_xsave));
    *(uint16_t *)bad_xsave = 0x37F;
    *(uint32_t *)(bad_xsave + 24) = 0x1F80;
    *(uint64_t *)(bad_xsave + 512) = 1ul << 62;         /* XSTATE_BV: a component not in XCR0 */
    if (!cpu.osxsave)
        fpu_probes[2].vector = 6;
}

TEST(fpu_images_fault_in_user_mode_native) { PROBE_CASE(false, fpu_probes, fill_fpu_images); }

TEST(fpu_images_fault_in_user_mode_foreign) { PROBE_CASE(true, fpu_probes, fill_fpu_images); }

/* A thread's MXCSR and FCW, and a pending x87 exception, stay its own across switches to a
 * thread that uses the FPU; its exceptions arrive in user mode as #MF and #XM. */
TEST(fpu_state_is_the_threads_own)
{
    reap();
    child_foreign = false;
    child_entry_stub = cs_fpu_child;
    child_regs[2] = tu_main_tid();
    child_regs[3] = l4lib_syscalls.ipc;
    l4_word_t t = track(tu_thread(stub_child, 100));
    CHECK(t != 0);
    l4_word_t tag = l4_receive(t);
    CHECK_EQ(l4_tag_label(tag), 0x77);
    /* Our own state: the initial one, untouched by t's; use it (masked zero divides). */
    uint32_t mxcsr = 0;
    uint16_t fcw = 0;
    __asm__ volatile("stmxcsr %0\n\tfnstcw %1" : "=m"(mxcsr), "=m"(fcw));
    CHECK_EQ(mxcsr & 0xFFC0, 0x1F80);
    CHECK_EQ(fcw, 0x37F);
    __asm__ volatile("fldz\n\tfld1\n\tfdiv %%st(1), %%st\n\tfstp %%st(0)\n\tfstp %%st(0)\n\tfwait\n\t"
                     "xorps %%xmm1, %%xmm1\n\tdivss %%xmm1, %%xmm0" ::: "memory");
    l4_set_mr(0, 0);
    l4_word_t from;
    struct event e = decode(l4_ipc(t, t, 0, &from));
    CHECK(e.exception && e.vector == 16, "vector %u at %lx", e.vector, e.rip);   /* fwait */
    e = decode(resume_at(t, false, e.rip + 1));
    /* divss: #XM as the SDM says; QEMU's TCG raises no SIMD exceptions (it only sets the flag). */
    if (e.exception && e.vector == 19)
        e = decode(resume_at(t, false, e.rip + 4));
    CHECK(e.exception && e.vector == 6 && e.r12 == CS_DONE, "vector %u", e.vector);
    CHECK_EQ(e.rax & 0xFF80, 0);                        /* its MXCSR: every exception unmasked */
    CHECK_EQ((e.rax >> 32) & 0xFFFF, 0x37B);            /* its FCW */
    __asm__ volatile("stmxcsr %0\n\tfnstcw %1" : "=m"(mxcsr), "=m"(fcw));
    CHECK_EQ(mxcsr & 0xFF80, 0x1F80);
    CHECK_EQ(fcw, 0x37F);
    tu_kill(t);
}

/* --- FS and GS base at every kernel entry ---------------------------------------------------------- */

#define ODD_FS 0x00007FFFFFFFE000ul         /* canonical, unmapped: a kernel use would fault */
#define ODD_GS 0x00007FFFFFFFF000ul

static uint8_t bases_touch[4096] __attribute__((aligned(4096)));
static volatile l4_word_t bases_stop;

/* tag is t's report (system call 3002); are its bases (GET_REGS) still the odd ones? */
static bool odd_bases_kept(l4_word_t t, l4_word_t tag)
{
    if (!l4_tag_is_proto(tag, L4_PROTO_FOREIGN_SYSCALL) || l4_mr(L4_FSC_RAX) != 3002) {
        test_note("tag %lx, not the report", tag);
        return false;
    }
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_GET_REGS, 0, 0));
    tag = l4_call(t);
    test_note("bases %lx %lx", l4_mr(L4_FREG_FS_BASE), l4_mr(L4_FREG_GS_BASE));
    return l4_tag_is_proto(tag, L4_PROTO_FOREIGN_REGS) && l4_mr(L4_FREG_FS_BASE) == ODD_FS &&
           l4_mr(L4_FREG_GS_BASE) == ODD_GS;
}

/* The foreign register set just received, with RIP = rip and the odd bases. */
static struct regs odd_bases(l4_word_t rip)
{
    struct regs r = get_regs(true);
    r.w[L4_FREG_RIP] = rip;
    r.w[L4_FREG_FS_BASE] = ODD_FS;
    r.w[L4_FREG_GS_BASE] = ODD_GS;
    return r;
}

/* The kernel uses neither FS nor GS (no swapgs anywhere): a foreign thread with bases of its
 * handler's choosing takes an exception, system calls (fast and C path), a page fault, timer
 * interrupts and an interrupt message, and keeps its bases. */
TEST(user_bases_on_every_kernel_entry)
{
    bases_stop = 0;
    l4_word_t tag, from, t = spawn(true, cs_bases_child, 0, 0, (l4_word_t)&bases_stop, 0, &tag);
    CHECK(t != 0);
    struct event e = decode(tag);
    CHECK(is_ud_at(&e, cs_bases_child), "tag %lx", tag);
    struct regs r = odd_bases(e.rip + 2);
    r.w[L4_FREG_RBX] = (l4_word_t)bases_touch;
    tag = put_regs(t, &r, 0);                           /* the fast path where it applies */
    CHECK(l4_tag_is_proto(tag, L4_PROTO_FOREIGN_SYSCALL) && l4_mr(L4_FSC_RAX) == 3000, "tag %lx", tag);
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_RESUME, 1, 0));
    l4_set_mr(1, 0);
    tag = l4_ipc(t, t, SLOW_RCV, &from);                /* the C path */
    CHECK(l4_tag_is_proto(tag, L4_PROTO_FOREIGN_SYSCALL) && l4_mr(L4_FSC_RAX) == 3001, "tag %lx", tag);
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_RESUME, 1, 0));
    l4_set_mr(1, 0);
    tag = l4_ipc(t, t, 0, &from);
    /* The page fault on bases_touch, served; then it spins: our receive times out after
     * timer interrupts have hit it, and we interrupt it. */
    CHECK((tag & L4_PROTO_MASK) == L4_PROTO_PAGEFAULT && l4_mr(L4_PF_ADDR) == (l4_word_t)bases_touch,
          "tag %lx", tag);
    tag = tu_foreign_serve_timeouts(t, tag, l4_timeouts(L4_NEVER, l4_period_from_us(3000)));
    CHECK_EQ(tag, 0);                                   /* it spins: nothing came */
    struct l4_exregs old;
    l4_exchange_registers(t, L4_EXREGS_APPLY_INTERRUPT | L4_EXREGS_INTERRUPT, 0, 0, 0, 0, 0, &old);
    tag = l4_receive(t);
    CHECK(l4_tag_is_proto(tag, L4_PROTO_FOREIGN_INTERRUPT), "tag %lx", tag);
    CHECK_EQ(l4_mr(L4_FREG_FS_BASE), ODD_FS);
    CHECK_EQ(l4_mr(L4_FREG_GS_BASE), ODD_GS);
    bases_stop = 1;
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_RESUME, 0, 0));
    tag = l4_ipc(t, t, 0, &from);
    CHECK(odd_bases_kept(t, tag));
    tu_kill(t);
}

/* --- NMI ------------------------------------------------------------------------------------- */

static inline uint8_t inb(uint16_t port)
{
    uint8_t v;
    __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

/* A foreign thread with FS/GS bases of its handler's choosing spins; an NMI comes from outside
 * (tests/system/test_cpu_state.py injects one through QEMU's QMP socket when it reads
 * "# nmi: ready", and sends a byte on the serial line when the kernel has reported it).
 * The NMI runs on its IST stack and returns at once (traps.c): the thread spins on with its
 * bases.  Without the word `nmi` on the command line the case has nothing to wait for. */
TEST(nmi_with_user_bases)
{
    if (!cmdline_flag("nmi")) {
        test_note("nmi: not asked for (tests/system/test_cpu_state.py asks)");
        return;
    }
    bases_stop = 0;
    l4_word_t tag, t = spawn(true, cs_spin_bases, 0, 0, (l4_word_t)&bases_stop, 0, &tag);
    CHECK(t != 0);
    struct event e = decode(tag);
    CHECK(is_ud_at(&e, cs_spin_bases), "tag %lx", tag);
    struct regs r = odd_bases(e.rip + 2);
    tag = put_regs(t, &r, l4_timeouts(L4_NEVER, l4_period_from_us(1000)));
    CHECK_EQ(tag, 0);                                   /* it spins */
    test_note("nmi: ready");
    unsigned i;
    for (i = 0; i < 100000 && !(inb(0x3F8 + 5) & 1); i++)
        l4_receive_timeout(t, l4_period_from_us(1000)); /* it spins meanwhile */
    CHECK(i < 100000, "no byte on the serial line");
    (void)inb(0x3F8);
    bases_stop = 1;
    tag = l4_receive(t);
    CHECK(odd_bases_kept(t, tag));
    reap();
}

int main(void)
{
    cmdline_init();
    detect_cpu();
    tests_run("cpustate");
}
