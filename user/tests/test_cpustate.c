/* In-system test: the CPU state a user thread can reach (docs/cpu-state.md, issue 12).  Most
 * cases are tables of probes (probe.h: one instruction each that must raise an exception, run
 * by a native and by a foreign child); the others follow a child through the kernel returns
 * that set its registers, single steps, FPU switches, FS/GS bases and an NMI. */
#include "testlib.h"
#include "testutil.h"
#include "cmdline.h"
#include "probe.h"
#include <l4/pecan.h>
#include <string.h>

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

#define RFLAGS_USER 0x8D5ul         /* CF PF AF ZF SF OF: what a handler may set (contract 4.4.2) */

/* Stubs for single cases (any page). */
__asm__(
    ".text\n"
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
    /* Jump to R14. */
    ".global cs_jump_r14\n"
    "cs_jump_r14: jmp *%r14\n"
    ".global cs_spin_bases\n"
    "cs_spin_bases: ud2\n"
    "1:  cmpq $0, (%r13)\n je 1b\n"
    "    movl $3002, %eax\n syscall\n"
    "    movl $" XSTR(CS_DONE) ", %r12d\n ud2\n"
    );
extern stub_t cs_readback, cs_recv_readback, cs_user_flags, cs_single_step, cs_fpu_child,
    cs_bases_child, cs_spin_bases, cs_jump_r14;

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

/* --- the last bytes of the lower half ------------------------------------------------------------- */

/* An instruction that ends at 2^47 leaves a non-canonical RIP in the frame without anybody
 * setting it: RCX after `syscall` (sysret would #GP in ring 0 on Intel, on the user's stack),
 * the return address of int3, KernelInterface's skip over `lock; nop`.  The kernel checks
 * every frame on its way to user mode (entry.S USER_RIP_CHECK): the thread's #GP instead. */
#define TOP_PAGE 0x00007FFFFFFFF000ul
#define TOP_END  0x0000800000000000ul

static uint8_t top_page[4096] __attribute__((aligned(4096)));

/* A child that jumps to the last `len` bytes of the lower half, where code is: its first
 * message is the page fault there, which we answer with top_page; its next message. */
static l4_word_t at_the_top(bool foreign, const uint8_t *code, unsigned len, l4_word_t *t)
{
    memset(top_page, 0x90, sizeof(top_page));
    memcpy(top_page + 4096 - len, code, len);
    l4_word_t tag;
    *t = spawn(foreign, cs_jump_r14, 0, 0, 0, TOP_END - len, &tag);
    if (!*t || (tag & L4_PROTO_MASK) != L4_PROTO_PAGEFAULT || l4_mr(L4_PF_ADDR) != TOP_END - len) {
        test_note("tag %lx addr %lx", tag, l4_mr(L4_PF_ADDR));
        return 0;
    }
    l4_set_mr(0, l4_tag_make(0, 0, 2));
    l4_set_mr(1, l4_map_item(TOP_PAGE));
    l4_set_mr(2, l4_fpage_log2((l4_word_t)top_page, 12) | L4_RWX);
    l4_word_t from;
    return l4_ipc(*t, *t, 0, &from);
}

static bool is_gp_at_top(l4_word_t tag)
{
    struct event e = decode(tag);
    if (e.exception && e.vector == 13 && e.error == 0 && e.rip == TOP_END)
        return true;
    test_note("tag %lx vector %u error %lx rip %lx", tag, e.vector, e.error, e.rip);
    return false;
}

TEST(syscall_at_the_top_foreign)
{
    static const uint8_t code[] = { 0x0F, 0x05 };           /* syscall */
    l4_word_t t, tag = at_the_top(true, code, sizeof(code), &t);
    CHECK(l4_tag_is_proto(tag, L4_PROTO_FOREIGN_SYSCALL) && l4_mr(L4_FSC_RIP) == TOP_END,
          "tag %lx rip %lx", tag, l4_mr(L4_FSC_RIP));
    CHECK(is_gp_at_top(resume_syscall(t)));                 /* sysret refused */
    reap();
}

TEST(int3_at_the_top_foreign)
{
    static const uint8_t code[] = { 0xCC };                 /* int3 */
    l4_word_t t, tag = at_the_top(true, code, sizeof(code), &t);
    struct event e = decode(tag);
    CHECK(e.exception && e.vector == 3 && e.rip == TOP_END, "vector %u rip %lx", e.vector, e.rip);
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_RESUME, 0, 0));     /* no register changes */
    l4_word_t from;
    CHECK(is_gp_at_top(l4_ipc(t, t, 0, &from)));            /* iretq refused */
    reap();
}

TEST(kernel_interface_at_the_top_native)
{
    static const uint8_t code[] = { 0xF0, 0x90 };           /* lock; nop */
    l4_word_t t, tag = at_the_top(false, code, sizeof(code), &t);
    CHECK(is_gp_at_top(tag));                               /* its skip: RIP = 2^47 */
    reap();
}

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
    /* "ready", then a "tick" every 16 ms while it spins: the test injects an NMI after a
     * line, when we are back in our sleep (an NMI right after another one, or during the
     * kernel's printing, would find the kernel). */
    test_note("nmi: ready");
    unsigned i;
    for (i = 0; i < 100000 && !(inb(0x3F8 + 5) & 1); i++) {
        l4_receive_timeout(t, l4_period_from_us(1000)); /* it spins meanwhile */
        if (i % 16 == 15)
            test_note("nmi: tick");
    }
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
