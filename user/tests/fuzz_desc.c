/* In-system test, a phase of test_fuzz: descriptor attacks (issue 12).  Unprivileged threads,
 * two native X.2 spaces' or one native and one foreign space's (docs/linux-abi.md), plant
 * descriptors in every byte of the first 64 KiB they can write (their UTCB's MRs and the rest of
 * its page, their stack, the pages around the KIP, the registers a foreign thread's exception
 * message leaves in its MRs): data and code descriptors of every type and DPL, 64-bit call,
 * interrupt and trap gates to CS 0x08 at kernel addresses (and at a "ring-0 canary" in our
 * code), TSS and LDT descriptors.  Through LDTR's reset value (base 0, limit 0xFFFF) the CPU
 * would read them all.  Then each thread executes, with random selectors and with every one of
 * the 65,536 over a campaign (desc=N: N of them per operation and run, the slice chosen by the
 * seed), every instruction that takes a selector: mov/pop/lfs/lgs/lss into DS, ES, FS, GS and
 * SS, lcall and ljmp through m16:64, lretq [imm16], iretq with the selector as CS or as SS
 * (and random RFLAGS: IOPL, NT, VM, AC, TF, RF, ...), lar, lsl, verr, verw, lldt, ltr.
 *
 * Before each instruction the thread knows the outcome from an exact model (fuzz_segmodel.c)
 * of Pecan's GDT (cpu.c) and a null LDT: done (and what changed: the selector read back, the
 * FS/GS base, CS, SS, RSP, RFLAGS and the stack at the landing pad of a far transfer, ZF and the
 * result of lar/lsl) or which exception with which error code.  Exceptions reach the main thread
 * (this file's second half) as exception messages, native or foreign; it records vector, error
 * code, RIP, RSP and RFLAGS in the thread's slot and resumes the thread at fd_resume, where the
 * thread compares.  A difference is a violation; so is any return to our code with CS & 3 = 0
 * (the landing pad is the target of planted call gates too) and any page fault in the first
 * 64 KiB while an instruction runs (a descriptor read through an LDT, refused by SMAP).  The
 * first violation of a thread is printed at once (the thread stops), with what the model with
 * LDTR at its reset value says, so a kernel without `lldt` is seen loading the planted
 * descriptors.  docs/testing.md ("Descriptor attacks") says what QEMU does differently from
 * the SDM. */
#include "fuzz.h"
#include "fuzz_segmodel.h"
#include "testlib.h"
#include "testutil.h"
#include "cmdline.h"
#include <l4/pecan.h>
#include <string.h>

/* --- the spaces --------------------------------------------------------------------------- */

/* Everything a descriptor fuzz thread owns lies in the first 64 KiB (what an LDT at base 0 with
 * limit 0xFFFF covers): the KIP, the UTCBs, the stacks, and pages of our memory around them. */
#define FD_LOW_END      0x10000ul
#define FD_KIP_AREA     0x4000ul
#define FD_UTCB_AREA    0x8000ul        /* 8 KiB: thread k's UTCB at + k * 4 KiB */
#define FD_UTCB_LOG2    13
#define FD_UTCB_OF(k)   (FD_UTCB_AREA + (l4_word_t)(k) * 0x1000)
#define FD_STACK_OF(k)  (0xC000ul + (l4_word_t)(k) * 0x1000)   /* thread k's stack page */
#define FD_STACK_TOP(k) (FD_STACK_OF(k) + 0x1000 - 8)          /* its slot's address */
#define FD_STACK_PLANT  0x700           /* descriptors in the stack page's first bytes */
#define FD_PAGES        16
#define FD_SPACES       2
#define FD_PER_SPACE    2
#define FD_THREADS      (FD_SPACES * FD_PER_SPACE)
#define FD_PRIO         100
#define FD_CHUNK        192             /* exhaustive items per thread and round */
#define FD_RANDOM       64              /* random operations per thread and round */
#define FD_GDT_SELS     0x40            /* selectors 0-0x3f: every run, exhaustively */

#define FD_TEXT SM_TEXT

/* --- a thread's slot: its part of the control page, shared with the main thread ------------ */

/* The words fd_exec reads and writes, at these offsets (the assembly below uses them). */
#define FD_FORM         0
#define FD_SEL          8       /* the selector word as the instruction reads it */
#define FD_TARGET       16      /* far pointer offset; lretq/iretq frame RIP */
#define FD_OTHER        24      /* iretq: the frame's SS word (FD_SEL is its CS word) */
#define FD_FFLAGS       32      /* iretq: the frame's RFLAGS */
#define FD_FLAGS        40      /* RFLAGS at the instruction (popfq'd) */
#define FD_PRE          48      /* DS, ES, FS, GS loaded before */
#define FD_BASES        80      /* FS and GS base set before (with FD_SETBASES) */
#define FD_SETBASES     96
#define FD_PLANT        104     /* R10, R12-R15 during the instruction */
#define FD_DEST         144     /* lar/lsl: the destination before */
#define FD_FRAMEOFF     152     /* iretq: frame RSP = RSP at the instruction - this */
#define FD_SAVED_RSP    160
#define FD_OP_RIP       168
#define FD_OP_RSP       176
#define FD_NEXT_RIP     184
#define FD_OUTCOME      192
#define FD_RESULT       200     /* lar/lsl: the destination after */
#define FD_FLAGS_AFTER  208
#define FD_SEG_AFTER    216     /* DS, ES, FS, GS, SS */
#define FD_BASES_AFTER  256
#define FD_PAD          272     /* at the landing pad: CS, SS, RSP, RFLAGS, [RSP], [RSP+8] */
#define FD_RING0        320

/* fd_exec's outcome (FD_OUTCOME) */
#define OUT_INLINE      1       /* the instruction completed in line */
#define OUT_PAD         2       /* a far transfer arrived at fd_pad */
#define OUT_EXCEPTION   3       /* an exception; the main thread resumed us at fd_resume */

struct fd_slot {
    /* fd_exec's words (offsets above) */
    uint64_t form, sel, target, other, fflags, flags, pre[4], bases[2], setbases, plant[5];
    uint64_t dest, frameoff, saved_rsp, op_rip, op_rsp, next_rip, outcome, result, flags_after;
    uint64_t seg_after[5], bases_after[2], pad[6], ring0;
    /* the main thread's: an exception during the instruction, #DB traps */
    volatile uint64_t in_op, exc_vector, exc_error, exc_rip, exc_rsp, exc_rflags, exc_addr;
    volatile uint64_t exc_pf;       /* it came as a page-fault message: no RSP, RFLAGS */
    volatile uint64_t db_traps, db_rip;
    /* the round */
    l4_word_t tid, seed, foreign, index, exh_first, exh_count, random, probe;
    /* results */
    volatile uint64_t ops, faults[16], inline_done, transfers, retried, kernel_changed, skipped;
    volatile uint64_t done, violations, stuck, changed_example[3];
    /* the first violation */
    volatile uint64_t bad_what, bad_op, bad_form, bad_sel, bad_other, bad_target, bad_flags;
    volatile uint64_t bad_fflags, bad_exp[4], bad_got[4], bad_alt[4], bad_alt_addr, bad_alt_desc[2];
};

_Static_assert(__builtin_offsetof(struct fd_slot, sel) == FD_SEL, "FD_SEL");
_Static_assert(__builtin_offsetof(struct fd_slot, pre) == FD_PRE, "FD_PRE");
_Static_assert(__builtin_offsetof(struct fd_slot, bases) == FD_BASES, "FD_BASES");
_Static_assert(__builtin_offsetof(struct fd_slot, plant) == FD_PLANT, "FD_PLANT");
_Static_assert(__builtin_offsetof(struct fd_slot, saved_rsp) == FD_SAVED_RSP, "FD_SAVED_RSP");
_Static_assert(__builtin_offsetof(struct fd_slot, outcome) == FD_OUTCOME, "FD_OUTCOME");
_Static_assert(__builtin_offsetof(struct fd_slot, seg_after) == FD_SEG_AFTER, "FD_SEG_AFTER");
_Static_assert(__builtin_offsetof(struct fd_slot, bases_after) == FD_BASES_AFTER, "FD_BASES_A");
_Static_assert(__builtin_offsetof(struct fd_slot, pad) == FD_PAD, "FD_PAD");
_Static_assert(__builtin_offsetof(struct fd_slot, ring0) == FD_RING0, "FD_RING0");

/* The control page: mapped read-write into the descriptor fuzz spaces (nothing else of ours is
 * writable there). */
static struct fd_ctl {
    uint64_t gdt[8];                /* the model's copy of Pecan's GDT (fd_gdt_model) */
    unsigned gdt_limit;
    unsigned slice, per_op;         /* the run's exhaustive slice: its first selector, size */
    bool stack_quirk;               /* far transfers fault on their stack (sm_tables) */
    bool native_resumable;          /* ... and a native thread gets that as an exception */
    bool strict;                    /* descstrict=1: selectors must survive the kernel */
    bool keep;                      /* desckeep=1: go on after a violation */
    struct fd_slot slot[FD_THREADS];
} fd_ctl __attribute__((aligned(4096)));
_Static_assert(sizeof(struct fd_ctl) <= 4096, "one page");

/* Our memory behind each space's pages of the first 64 KiB (but the KIP and the UTCBs). */
static uint8_t fd_low[FD_SPACES][FD_PAGES][4096] __attribute__((aligned(4096)));

/* --- the instructions: one assembly routine runs one of them -------------------------------- */

/* The forms: each operation has one or more instructions. */
enum {
    F_MOV_DS_R, F_MOV_ES_R, F_MOV_FS_R, F_MOV_GS_R, F_MOV_SS_R,
    F_MOV_DS_M, F_MOV_ES_M, F_MOV_FS_M, F_MOV_GS_M, F_MOV_SS_M,
    F_POP_FS, F_POP_GS, F_LFS, F_LGS, F_LSS,
    F_LCALL, F_LJMP, F_LRET, F_LRET16, F_IRET,
    F_LAR_R, F_LAR_M, F_LSL_R, F_LSL_M, F_VERR_R, F_VERR_M, F_VERW_R, F_VERW_M,
    F_LLDT, F_LTR, F_RDFSBASE, F_COUNT
};
static const char *const fd_form_names[F_COUNT] = {
    "mov %cx,%ds", "mov %cx,%es", "mov %cx,%fs", "mov %cx,%gs", "mov %cx,%ss",
    "mov (%rsp),%ds", "mov (%rsp),%es", "mov (%rsp),%fs", "mov (%rsp),%gs", "mov (%rsp),%ss",
    "pop %fs", "pop %gs", "lfs m16:32", "lgs m16:32", "lss m16:32",
    "lcall *m16:64", "ljmp *m16:64", "lretq", "lretq $16", "iretq",
    "lar %cx,%rax", "lar (%rsp),%rax", "lsl %cx,%rax", "lsl (%rsp),%rax", "verr %cx",
    "verr (%rsp)", "verw %cx", "verw (%rsp)", "lldt %cx", "ltr %cx", "rdfsbase",
};
static const char *const fd_op_names[SM_NOPS] = {
    "mov ds", "mov es", "mov fs", "mov gs", "mov ss", "lcall", "ljmp", "lretq", "iretq cs",
    "iretq ss", "lar", "lsl", "verr", "verw", "lldt", "ltr",
};

#define S_(x) #x
#define S(x) S_(x)
/* Record where the instruction is, set RFLAGS, execute it (label 1), then fd_after. */
#define FD_OP(insn)                                                     \
    "leaq 1f(%rip), %rdx\n movq %rdx, " S(FD_OP_RIP) "(%rbx)\n"       \
    "leaq 2f(%rip), %rdx\n movq %rdx, " S(FD_NEXT_RIP) "(%rbx)\n"     \
    "movq %rsp, " S(FD_OP_RSP) "(%rbx)\n"                              \
    "pushq " S(FD_FLAGS) "(%rbx)\n popfq\n"                            \
    "1: " insn "\n"                                                    \
    "2: jmp fd_after\n"
/* m16 at (%rsp); m16:64 at (%rsp) (offset FD_TARGET, selector) */
#define FD_M16      "movw %cx, (%rsp)\n"
#define FD_M16_64   "movq " S(FD_TARGET) "(%rbx), %rdx\n movq %rdx, (%rsp)\n movw %cx, 8(%rsp)\n"
/* m16:32 for lfs, lgs, lss: with REX.W the SDM reads m16:64 and QEMU (7.2) m16:32, as AMD */
#define FD_M16_32   "movq " S(FD_TARGET) "(%rbx), %rdx\n movl %edx, (%rsp)\n movw %cx, 4(%rsp)\n"
#define FD_CASE(n)  "cmpq $" S(n) ", %rdx\n je fd_f" S(n) "\n"

void fd_exec(struct fd_slot *s);
extern char fd_pad[], fd_resume[], fd_after[], fd_entry[];

/* fd_exec(slot): load DS, ES, FS, GS (and the FS/GS bases) from the slot, then the planted
 * registers, execute the slot's instruction with RFLAGS from the slot, and record the outcome:
 * at fd_after (the instruction completed in line), at fd_pad (a far transfer arrived) or at
 * fd_resume (the main thread resumed us there after an exception, RSP = FD_OP_RSP). */
__asm__(".pushsection fuzztext, \"ax\", @progbits\n"
        ".p2align 12\n"
        ".globl fd_exec\n"
        ".type fd_exec, @function\n"
        "fd_exec:\n"
        "pushq %rbx\n pushq %rbp\n pushq %r12\n pushq %r13\n pushq %r14\n pushq %r15\n"
        "movq %rdi, %rbx\n"
        "movl $0x1B, %eax\n movw %ax, %ss\n"       /* (desckeep=1 after a planted SS) */
        "movq " S(FD_PRE) "(%rbx), %rax\n movw %ax, %ds\n"
        "movq " S(FD_PRE) "+8(%rbx), %rax\n movw %ax, %es\n"
        "movq " S(FD_PRE) "+16(%rbx), %rax\n movw %ax, %fs\n"
        "movq " S(FD_PRE) "+24(%rbx), %rax\n movw %ax, %gs\n"
        "cmpq $0, " S(FD_SETBASES) "(%rbx)\n je 1f\n"
        "movq " S(FD_BASES) "(%rbx), %rax\n wrfsbase %rax\n"
        "movq " S(FD_BASES) "+8(%rbx), %rax\n wrgsbase %rax\n"
        "1: movq %rsp, " S(FD_SAVED_RSP) "(%rbx)\n"
        "subq $256, %rsp\n andq $-16, %rsp\n"
        "movq " S(FD_PLANT) "(%rbx), %r10\n movq " S(FD_PLANT) "+8(%rbx), %r12\n"
        "movq " S(FD_PLANT) "+16(%rbx), %r13\n movq " S(FD_PLANT) "+24(%rbx), %r14\n"
        "movq " S(FD_PLANT) "+32(%rbx), %r15\n"
        "movq " S(FD_DEST) "(%rbx), %rax\n"
        "movq " S(FD_SEL) "(%rbx), %rcx\n"
        "movq " S(FD_FORM) "(%rbx), %rdx\n"
        FD_CASE(0) FD_CASE(1) FD_CASE(2) FD_CASE(3) FD_CASE(4) FD_CASE(5) FD_CASE(6)
        FD_CASE(7) FD_CASE(8) FD_CASE(9) FD_CASE(10) FD_CASE(11) FD_CASE(12) FD_CASE(13)
        FD_CASE(14) FD_CASE(15) FD_CASE(16) FD_CASE(17) FD_CASE(18) FD_CASE(19) FD_CASE(20)
        FD_CASE(21) FD_CASE(22) FD_CASE(23) FD_CASE(24) FD_CASE(25) FD_CASE(26) FD_CASE(27)
        FD_CASE(28) FD_CASE(29) FD_CASE(30)
        "ud2\n"
        "fd_f0:\n" FD_OP("movw %cx, %ds")
        "fd_f1:\n" FD_OP("movw %cx, %es")
        "fd_f2:\n" FD_OP("movw %cx, %fs")
        "fd_f3:\n" FD_OP("movw %cx, %gs")
        "fd_f4:\n" FD_OP("movw %cx, %ss")
        "fd_f5:\n" FD_M16 FD_OP("movw (%rsp), %ds")
        "fd_f6:\n" FD_M16 FD_OP("movw (%rsp), %es")
        "fd_f7:\n" FD_M16 FD_OP("movw (%rsp), %fs")
        "fd_f8:\n" FD_M16 FD_OP("movw (%rsp), %gs")
        "fd_f9:\n" FD_M16 FD_OP("movw (%rsp), %ss")
        "fd_f10:\n pushq %rcx\n" FD_OP("popq %fs")
        "fd_f11:\n pushq %rcx\n" FD_OP("popq %gs")
        "fd_f12:\n" FD_M16_32 FD_OP("lfs (%rsp), %eax")
        "fd_f13:\n" FD_M16_32 FD_OP("lgs (%rsp), %eax")
        "fd_f14:\n movl %esp, (%rsp)\n movw %cx, 4(%rsp)\n"                 /* RSP stays */
        FD_OP("lss (%rsp), %esp")
        "fd_f15:\n" FD_M16_64 FD_OP("rex64 lcall *(%rsp)")
        "fd_f16:\n" FD_M16_64 FD_OP("rex64 ljmp *(%rsp)")
        "fd_f17:\n movq " S(FD_TARGET) "(%rbx), %rdx\n movq %rdx, (%rsp)\n movq %rcx, 8(%rsp)\n"
        FD_OP("lretq")
        "fd_f18:\n movq " S(FD_TARGET) "(%rbx), %rdx\n movq %rdx, (%rsp)\n movq %rcx, 8(%rsp)\n"
        FD_OP("lretq $16")
        "fd_f19:\n movq " S(FD_TARGET) "(%rbx), %rdx\n movq %rdx, (%rsp)\n movq %rcx, 8(%rsp)\n"
        "movq " S(FD_FFLAGS) "(%rbx), %rdx\n movq %rdx, 16(%rsp)\n"
        "movq %rsp, %rdx\n subq " S(FD_FRAMEOFF) "(%rbx), %rdx\n movq %rdx, 24(%rsp)\n"
        "movq " S(FD_OTHER) "(%rbx), %rdx\n movq %rdx, 32(%rsp)\n"
        FD_OP("iretq")
        "fd_f20:\n" FD_OP("lar %rcx, %rax")
        "fd_f21:\n" FD_M16 FD_OP("lar (%rsp), %rax")
        "fd_f22:\n" FD_OP("lsl %rcx, %rax")
        "fd_f23:\n" FD_M16 FD_OP("lsl (%rsp), %rax")
        "fd_f24:\n" FD_OP("verr %cx")
        "fd_f25:\n" FD_M16 FD_OP("verr (%rsp)")
        "fd_f26:\n" FD_OP("verw %cx")
        "fd_f27:\n" FD_M16 FD_OP("verw (%rsp)")
        "fd_f28:\n" FD_OP("lldt %cx")
        "fd_f29:\n" FD_OP("ltr %cx")
        "fd_f30:\n" FD_OP("rdfsbase %rax")
        /* Completed in line: ZF (lar, lsl, verr, verw) and the destination. */
        ".globl fd_after\n"
        "fd_after:\n"
        "pushfq\n popq " S(FD_FLAGS_AFTER) "(%rbx)\n"
        "pushq $0x202\n popfq\n"
        "movq %rax, " S(FD_RESULT) "(%rbx)\n"
        "movq $" S(OUT_INLINE) ", " S(FD_OUTCOME) "(%rbx)\n"
        "jmp fd_record\n"
        /* A far transfer's target.  Under TF (iretq) the first three instructions trap. */
        ".globl fd_pad\n"
        "fd_pad:\n"
        "pushfq\n pushq $0x202\n popfq\n"
        "popq " S(FD_PAD) "+24(%rbx)\n"
        "movq %rsp, " S(FD_PAD) "+16(%rbx)\n"
        "movq (%rsp), %rax\n movq %rax, " S(FD_PAD) "+32(%rbx)\n"
        "movq 8(%rsp), %rax\n movq %rax, " S(FD_PAD) "+40(%rbx)\n"
        "xorl %eax, %eax\n movw %cs, %ax\n movq %rax, " S(FD_PAD) "(%rbx)\n"
        "movw %ss, %ax\n movq %rax, " S(FD_PAD) "+8(%rbx)\n"
        "testb $3, " S(FD_PAD) "(%rbx)\n jnz 1f\n"
        /* CPL 0: only a call gate brings us here.  Say so, and go back to user mode through
         * the frame the gate pushed (SS, RSP, CS, RIP). */
        "movq $1, " S(FD_RING0) "(%rbx)\n"
        "lretq\n"
        "1: movq $" S(OUT_PAD) ", " S(FD_OUTCOME) "(%rbx)\n"
        "jmp fd_record\n"
        /* After an exception: the main thread set RIP, RSP and RBX.  TF may still be set. */
        ".globl fd_resume\n"
        "fd_resume:\n"
        "pushq $0x202\n popfq\n"
        "movq $" S(OUT_EXCEPTION) ", " S(FD_OUTCOME) "(%rbx)\n"
        "fd_record:\n"
        "xorl %eax, %eax\n"
        "movw %ds, %ax\n movq %rax, " S(FD_SEG_AFTER) "(%rbx)\n"
        "movw %es, %ax\n movq %rax, " S(FD_SEG_AFTER) "+8(%rbx)\n"
        "movw %fs, %ax\n movq %rax, " S(FD_SEG_AFTER) "+16(%rbx)\n"
        "movw %gs, %ax\n movq %rax, " S(FD_SEG_AFTER) "+24(%rbx)\n"
        "movw %ss, %ax\n movq %rax, " S(FD_SEG_AFTER) "+32(%rbx)\n"
        "cmpq $0, " S(FD_SETBASES) "(%rbx)\n je 1f\n"
        "rdfsbase %rax\n movq %rax, " S(FD_BASES_AFTER) "(%rbx)\n"
        "rdgsbase %rax\n movq %rax, " S(FD_BASES_AFTER) "+8(%rbx)\n"
        "1: movq " S(FD_SAVED_RSP) "(%rbx), %rsp\n"
        "popq %r15\n popq %r14\n popq %r13\n popq %r12\n popq %rbp\n popq %rbx\n"
        "ret\n"
        ".size fd_exec, . - fd_exec\n"
        /* A thread starts here: RSP points at its slot's address. */
        ".globl fd_entry\n"
        "fd_entry:\n"
        "movq (%rsp), %rdi\n"
        "andq $-16, %rsp\n"
        "call fd_main\n"
        "ud2\n"
        /* Exceptions at these two are messages: a violation to print, the end. */
        ".globl fd_report\n"
        "fd_report: ud2\n"
        ".globl fd_park\n"
        "fd_park: ud2\n"
        /* desckeep=1: report a violation and go on (the main thread skips the ud2). */
        ".globl fd_tell\n"
        "fd_tell: ud2\n ret\n"
        ".popsection\n");
extern char fd_report[], fd_park[];
void fd_tell(void);

/* ===================================================================================
 * The threads (section fuzztext: nothing here may call code outside it).
 * =================================================================================== */
#pragma GCC push_options
#pragma GCC optimize("no-jump-tables", "no-tree-switch-conversion", \
                     "no-tree-loop-distribute-patterns")

#define FD_INLINE static inline __attribute__((always_inline))

/* Which check failed (the first violation's bad_what). */
enum { W_OUTCOME = 1, W_VECTOR, W_RIP, W_RSP, W_RFLAGS, W_DB, W_SEG, W_BASE, W_EXC_SEG,
       W_PAD_CS, W_PAD_SS, W_PAD_RSP, W_PAD_FLAGS, W_PAD_STACK, W_ZF, W_FLAGS, W_RESULT,
       W_RING0, W_ADDR, W_KERNEL_SEG, W_COUNT };

struct fd {
    uint64_t x;                     /* xorshift64* */
    struct fd_slot *s;
    struct sm_tables t;             /* Pecan's GDT, a null LDT */
    unsigned k;                     /* index in the space */
    bool bases;                     /* FSGSBASE usable */
};

FD_INLINE uint64_t rnd(struct fd *f)
{
    uint64_t x = f->x;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    f->x = x;
    return x * 0x2545F4914F6CDD1Dull;
}
#define RB(n) (rnd(f) % (uint64_t)(n))

/* A code or data descriptor (8 bytes); type_s is S << 4 | type. */
FD_INLINE uint64_t fd_segment(uint64_t base, uint64_t limit, unsigned type_s, unsigned dpl,
                              bool present, unsigned avl_l_db_g)
{
    return (limit & 0xFFFF) | ((base & 0xFFFFFF) << 16) | ((uint64_t)(type_s & 0x1F) << 40) |
           ((uint64_t)(dpl & 3) << 45) | ((uint64_t)present << 47) |
           (((limit >> 16) & 0xF) << 48) | ((uint64_t)(avl_l_db_g & 0xF) << 52) |
           (((base >> 24) & 0xFF) << 56);
}

/* A 16-byte system descriptor: a gate (selector, offset) or a TSS/LDT (base, limit). */
FD_INLINE void fd_gate(volatile uint64_t *w, unsigned type, unsigned sel, uint64_t offset,
                       unsigned dpl, bool present, uint64_t upper_type)
{
    w[0] = (offset & 0xFFFF) | ((uint64_t)(sel & 0xFFFF) << 16) | ((uint64_t)(type & 0xF) << 40) |
           ((uint64_t)(dpl & 3) << 45) | ((uint64_t)present << 47) |
           (((offset >> 16) & 0xFFFF) << 48);
    w[1] = (offset >> 32) | (upper_type << 40);
}

/* Where a planted gate leads: the kernel (image, physmap), our landing pad (the ring-0
 * canary: it notices CPL 0 and goes back), or anywhere. */
FD_TEXT static uint64_t fd_gate_target(struct fd *f)
{
    switch (RB(6)) {
    case 0: case 1: return 0xFFFFFFFF80000000ul + RB(1ul << 22);
    case 2: return 0xFFFF800000000000ul + RB(1ul << 30);
    case 3: case 4: return (uint64_t)fd_pad;
    default: return rnd(f);
    }
}

FD_TEXT static unsigned fd_gate_cs(struct fd *f)
{
    switch (RB(8)) {
    case 0: case 1: case 2: case 3: return 0x08;
    case 4: return 0x0B;
    case 5: return 0x23;
    case 6: return (unsigned)RB(0x40);
    default: return (unsigned)RB(0x10000);
    }
}

/* Descriptors of every kind into w[0..n-1]. */
FD_TEXT static void fd_plant(struct fd *f, volatile uint64_t *w, unsigned n)
{
    unsigned i = 0;
    while (i < n) {
        unsigned dpl = RB(4) ? 3 : (unsigned)RB(4);
        bool p = RB(8) != 0;
        uint64_t base = RB(2) ? 0 : rnd(f), limit = RB(2) ? 0xFFFFF : RB(1ul << 20);
        unsigned kind = (unsigned)RB(16);
        if (kind >= 5 && kind <= 10 && i + 1 < n) {
            unsigned type;
            switch (kind) {
            case 5: case 6: case 7: type = 12; break;           /* 64-bit call gate */
            case 8: type = RB(2) ? 14 : 15; break;              /* interrupt or trap gate */
            case 9: type = RB(2) ? 9 : 11; break;               /* TSS */
            default: type = 2; break;                           /* LDT */
            }
            if (type == 9 || type == 11 || type == 2) {
                w[i] = fd_segment(base, limit, type, dpl, p, (unsigned)RB(16));
                w[i + 1] = RB(2) ? 0 : rnd(f) & 0xFFFFFFFFul;
            } else {
                fd_gate(&w[i], type, fd_gate_cs(f), fd_gate_target(f), dpl, p,
                        RB(8) ? 0 : RB(32));
            }
            i += 2;
            continue;
        }
        switch (kind) {
        case 0: case 1: case 2:                 /* data: every type, DPL 3 mostly */
            w[i] = fd_segment(base, limit, 0x10 | (unsigned)RB(8), dpl, p, (unsigned)RB(16));
            break;
        case 3: case 4:                         /* code: every type, 64-bit mostly */
            w[i] = fd_segment(base, limit, 0x18 | (unsigned)RB(8), dpl, p,
                              RB(4) ? 0xA : (unsigned)RB(16));
            break;
        case 11: case 12:                       /* other system types, 8 bytes */
            w[i] = fd_segment(base, limit, (unsigned)RB(16), dpl, p, (unsigned)RB(16));
            break;
        default:
            w[i] = rnd(f);
            break;
        }
        i++;
    }
}

/* Everything we may write in the first 64 KiB: our UTCB (MR1-MR63, then the rest of its page:
 * not in a foreign space, where the kernel keeps UTCBs to itself), our stack's lower part, our
 * share of the pages around the KIP. */
FD_TEXT static void fd_plant_all(struct fd *f)
{
    if (!f->s->foreign) {
        volatile uint64_t *u = (volatile uint64_t *)(FD_UTCB_OF(f->k) + 0x200);
        fd_plant(f, u + 1, 63);
        fd_plant(f, (volatile uint64_t *)(FD_UTCB_OF(f->k) + 0x400), (0x1000 - 0x400) / 8);
    }
    fd_plant(f, (volatile uint64_t *)FD_STACK_OF(f->k), FD_STACK_PLANT / 8);
    for (unsigned p = 0; p < FD_PAGES; p++) {
        l4_word_t a = (l4_word_t)p << 12;
        if (p % FD_PER_SPACE != f->k || a == FD_KIP_AREA || (a >= FD_UTCB_AREA &&
            a < FD_UTCB_AREA + (1ul << FD_UTCB_LOG2)) || (a >= FD_STACK_OF(0) &&
            a < FD_STACK_OF(FD_PER_SPACE)))
            continue;
        fd_plant(f, (volatile uint64_t *)a, 512);
    }
}

/* A selector: the GDT's, planted descriptors (our memory, the MRs a foreign thread's
 * exception message fills from R10 and R12-R15), beyond the GDT, anything. */
FD_TEXT static unsigned fd_rnd_sel(struct fd *f)
{
    l4_word_t a;
    switch (RB(16)) {
    case 0: case 1: case 2: case 3: return (unsigned)RB(0x40);
    case 4: return 0x23;
    case 5: return 0x1B;
    case 6: a = FD_UTCB_OF(RB(FD_PER_SPACE)) + 0x200 + 8 * RB(128); break;
    case 7: a = FD_UTCB_OF(RB(FD_PER_SPACE)) + 0x218 + 8 * RB(5); break;
    case 8: a = FD_STACK_OF(f->k) + RB(0x1000); break;
    case 9: a = FD_KIP_AREA - 0x1000 + RB(0x3000); break;
    case 10: return (unsigned)(0x38 + RB(0x10000 - 0x38));
    default: return (unsigned)RB(0x10000);
    }
    return (unsigned)((a & 0xFFF8) | 4 | RB(4));
}

/* A selector the operation takes (but lldt, ltr: none). */
FD_TEXT static unsigned fd_valid_sel(struct fd *f, unsigned op)
{
    switch (op) {
    case SM_LCALL: case SM_LJMP: return 0x20 | (unsigned)RB(4);
    case SM_LRET: case SM_IRET_CS: return 0x23;
    case SM_IRET_SS: case SM_MOV_SS: return 0x1B;
    default: return RB(2) ? 0x18 | (unsigned)RB(4) : RB(2) ? 0x20 | (unsigned)RB(4)
                                                              : (unsigned)RB(4);
    }
}

/* Selectors a thread may hold in DS, ES, FS, GS (all of DPL 3, or null). */
FD_TEXT static unsigned fd_rnd_data_sel(struct fd *f)
{
    unsigned v = (unsigned)RB(12);          /* (no table: .rodata is not mapped here) */
    return v < 4 ? v : v < 8 ? 0x18 + v - 4 : 0x20 + v - 8;
}

/* The iretq frame's RFLAGS: anything, with the interesting bits often. */
FD_TEXT static uint64_t fd_rnd_fflags(struct fd *f)
{
    uint64_t v = rnd(f) & (SM_ARITH | SM_DF | SM_IF | SM_IOPL);
    if (RB(4) == 0) v |= SM_NT;
    if (RB(4) == 0) v |= SM_AC;
    if (RB(8) == 0) v |= SM_TF;
    if (RB(4) == 0) v |= SM_RF;
    if (RB(8) == 0) v |= SM_VM;
    if (RB(8) == 0) v |= SM_VIF | SM_VIP;
    if (RB(8) == 0) v |= SM_ID;
    if (RB(16) == 0) v |= rnd(f);
    return v;
}

/* The instruction forms of each operation. */
FD_TEXT static unsigned fd_form_of(struct fd *f, unsigned op)
{
    switch (op) {
    case SM_MOV_DS: return RB(2) ? F_MOV_DS_R : F_MOV_DS_M;
    case SM_MOV_ES: return RB(2) ? F_MOV_ES_R : F_MOV_ES_M;
    case SM_MOV_FS: { unsigned r = (unsigned)RB(4); return r == 0 ? F_MOV_FS_R : r == 1 ?
                      F_MOV_FS_M : r == 2 ? F_POP_FS : F_LFS; }
    case SM_MOV_GS: { unsigned r = (unsigned)RB(4); return r == 0 ? F_MOV_GS_R : r == 1 ?
                      F_MOV_GS_M : r == 2 ? F_POP_GS : F_LGS; }
    case SM_MOV_SS: { unsigned r = (unsigned)RB(3); return r == 0 ? F_MOV_SS_R : r == 1 ?
                      F_MOV_SS_M : F_LSS; }
    case SM_LCALL: return F_LCALL;
    case SM_LJMP: return F_LJMP;
    case SM_LRET: return RB(2) ? F_LRET : F_LRET16;
    case SM_IRET_CS: case SM_IRET_SS: return F_IRET;
    case SM_LAR: return RB(2) ? F_LAR_R : F_LAR_M;
    case SM_LSL: return RB(2) ? F_LSL_R : F_LSL_M;
    case SM_VERR: return RB(2) ? F_VERR_R : F_VERR_M;
    case SM_VERW: return RB(2) ? F_VERW_R : F_VERW_M;
    case SM_LLDT: return F_LLDT;
    default: return F_LTR;
    }
}

FD_INLINE bool fd_transfer(unsigned op)
{
    return op == SM_LCALL || op == SM_LJMP || op == SM_LRET || op == SM_IRET_CS ||
           op == SM_IRET_SS;
}

/* Fill the slot for one operation. */
FD_TEXT static void fd_prepare(struct fd *f, unsigned op, unsigned sel)
{
    struct fd_slot *s = f->s;
    s->form = fd_form_of(f, op);
    uint64_t upper = RB(2) ? 0 : rnd(f) << 16;      /* bits an instruction must ignore */
    s->sel = sel | upper;
    s->target = RB(16) ? (uint64_t)fd_pad : 0x8000000000000000ul | rnd(f);
    s->other = 0;
    s->fflags = 0;
    s->frameoff = 512;
    if (op == SM_IRET_CS || op == SM_IRET_SS) {
        unsigned o = RB(8) ? (op == SM_IRET_CS ? 0x1B : 0x23) : fd_rnd_sel(f);
        s->other = o | (RB(2) ? 0 : rnd(f) << 16);
        if (op == SM_IRET_SS) {                         /* FD_SEL is the CS word */
            uint64_t t = s->sel;
            s->sel = s->other;
            s->other = t;
        }
        s->fflags = fd_rnd_fflags(f);
    }
    s->flags = (rnd(f) & SM_ARITH) | (RB(8) ? 0 : SM_DF) | (RB(8) ? 0 : SM_AC) |
               (RB(16) ? 0 : SM_NT) | (RB(8) ? 0 : SM_ID) | SM_IF | 2;
    for (unsigned i = 0; i < 4; i++)
        s->pre[i] = fd_rnd_data_sel(f);
    s->setbases = f->bases;
    s->bases[0] = rnd(f) & 0x00007FFFFFFFFFF8ul;
    s->bases[1] = rnd(f) & 0x00007FFFFFFFFFF8ul;
    fd_plant(f, s->plant, 5);
    s->dest = rnd(f);
}

/* The model's view of the operation just executed. */
FD_TEXT static void fd_input(const struct fd_slot *s, unsigned op, struct sm_in *in)
{
    in->op = op;
    in->sel = (unsigned)(op == SM_IRET_SS ? s->other : s->sel) & 0xFFFF;
    in->other = (unsigned)(op == SM_IRET_SS ? s->sel : s->other) & 0xFFFF;
    in->target = s->target;
    in->rsp = s->op_rsp;
    in->frame_rsp = s->op_rsp - s->frameoff;
    in->frame_flags = s->fflags;
    /* popfq at CPL 3 sets only these (IOPL and IF stay 0 and 1, RF and VM are cleared) */
    in->flags = (s->flags & (SM_ARITH | SM_TF | SM_DF | SM_NT | SM_AC | SM_ID)) | SM_IF | 2;
    in->addend = s->form == F_LRET16 ? 16 : 0;
    for (unsigned i = 0; i < 4; i++)
        in->seg[i] = (unsigned)s->pre[i];
}

/* The selectors a return to user mode through iretq (the kernel's) leaves: a null selector
 * with RPL 1-3 in DS or ES becomes 0 (QEMU; see the model's iret). */
FD_INLINE unsigned fd_after_kernel(unsigned i, unsigned sel)
{
    return i < 2 && sel < 4 ? 0 : sel;
}

/* Compare what happened with the model; 0 if it matches, else which check failed (and
 * got[] what the CPU did). */
FD_TEXT static unsigned fd_compare(struct fd *f, unsigned op, const struct sm_in *in,
                                   const struct sm_out *e, uint64_t got[4])
{
    struct fd_slot *s = f->s;
    unsigned reg = op <= SM_MOV_SS ? op - SM_MOV_DS : 5;
    got[0] = s->outcome;
    got[1] = s->exc_vector;
    got[2] = s->exc_error;
    got[3] = reg < 5 ? s->seg_after[reg] : s->outcome == OUT_PAD ? s->pad[0] : s->result;
    if (s->ring0)
        return W_RING0;
    unsigned want = e->kind == SM_FAULT ? OUT_EXCEPTION : fd_transfer(op) ? OUT_PAD : OUT_INLINE;
    if (s->outcome != want)
        return W_OUTCOME;
    if (want == OUT_EXCEPTION) {
        if (s->exc_vector != e->vector || s->exc_error != e->error)
            return W_VECTOR;
        got[1] = s->exc_rip;
        got[2] = s->exc_rsp;
        got[3] = s->exc_rflags;
        if (s->exc_rip != (e->at_target ? e->rip : s->op_rip))
            return W_RIP;
        got[2] = s->exc_addr;
        if (e->vector == SM_PF && s->exc_addr != ~0ul && s->exc_addr != e->address)
            return W_ADDR;
        if (s->exc_pf)                          /* a page-fault message: no more to see */
            return 0;
        if (s->exc_rsp != (e->at_target ? e->rsp : s->op_rsp))
            return W_RSP;
        uint64_t fl = e->at_target ? (op == SM_IRET_CS || op == SM_IRET_SS ? e->flags : in->flags)
                                   : in->flags;
        if ((s->exc_rflags ^ fl) & ~SM_RF)      /* (RF in a fault's image: CPU-specific) */
            return W_RFLAGS;
        got[1] = s->db_traps;
        if (s->db_traps != (s->exc_rflags & SM_TF ? 2u : 0u))
            return W_DB;
        /* A failed load loaded nothing.  (The selectors themselves went through the kernel,
         * which does not keep them per thread: counted, not checked.) */
        got[1] = reg;
        got[2] = s->seg_after[reg < 5 ? reg : 0];
        if (reg < 5 && s->seg_after[reg] == in->sel && in->sel != (reg < 4 ? in->seg[reg] : 0x1B))
            return W_EXC_SEG;
        for (unsigned i = 0; i < 4; i++)
            if (s->seg_after[i] != fd_after_kernel(i, in->seg[i])) {
                got[1] = i;
                got[2] = s->seg_after[i];
                if (fd_ctl.strict)
                    return W_KERNEL_SEG;
                s->kernel_changed++;
                s->changed_example[0] = i;
                s->changed_example[1] = in->seg[i];
                s->changed_example[2] = s->seg_after[i];
            }
        if (s->setbases && (s->bases_after[0] != s->bases[0] || s->bases_after[1] != s->bases[1]))
            return W_BASE;
        return 0;
    }
    got[1] = s->db_traps;
    if (want == OUT_PAD) {
        got[1] = s->pad[0];
        got[2] = e->cs;
        if (s->pad[0] != e->cs)
            return W_PAD_CS;
        got[1] = s->pad[1];
        got[2] = e->ss;
        if (s->pad[1] != e->ss)
            return W_PAD_SS;
        got[1] = s->pad[2];
        got[2] = e->rsp;
        if (s->pad[2] != e->rsp)
            return W_PAD_RSP;
        got[1] = s->pad[3];
        got[2] = e->flags;
        if (s->pad[3] != (e->flags & ~(SM_RF | SM_VM)))    /* pushfq clears RF and VM */
            return W_PAD_FLAGS;
        got[1] = s->pad[4];
        got[2] = s->pad[5];
        if (op == SM_LCALL && (s->pad[4] != s->next_rip || s->pad[5] != 0x23))
            return W_PAD_STACK;
        got[1] = s->db_traps;
        if (s->db_traps != (e->flags & SM_TF ? 3u : 0u))
            return W_DB;
        for (unsigned i = 0; i < 4; i++) {
            got[1] = i;
            got[2] = s->seg_after[i];
            if (s->seg_after[i] != e->seg_after[i])
                return W_SEG;
        }
        return s->seg_after[4] == 0x1B ? 0 : W_SEG;
    }
    if (s->db_traps)
        return W_DB;
    if (reg < 5) {
        for (unsigned i = 0; i < 5; i++) {
            uint64_t v = i == reg ? e->seg : i < 4 ? in->seg[i] : 0x1B;
            got[1] = i;
            got[2] = s->seg_after[i];
            if (s->seg_after[i] != v)
                return W_SEG;
        }
        for (unsigned i = 0; s->setbases && i < 2; i++) {
            uint64_t v = reg == 2 + i ? e->base : s->bases[i];
            got[1] = i;
            got[2] = s->bases_after[i];
            if (s->bases_after[i] != v)
                return W_BASE;
        }
        got[1] = s->result;
        if ((s->form == F_LFS || s->form == F_LGS) && s->result != (uint32_t)s->target)
            return W_RESULT;
        return 0;
    }
    /* lar, lsl, verr, verw: ZF, the other flags as they were, the destination */
    got[1] = s->flags_after;
    if (((s->flags_after & SM_ZF) != 0) != e->zf)
        return W_ZF;
    if ((s->flags_after ^ in->flags) & ~(SM_ZF | SM_RF))
        return W_FLAGS;
    got[1] = s->result;
    uint64_t r = (op == SM_LAR || op == SM_LSL) && e->zf ? e->value : s->dest;
    if (s->result != r)
        return W_RESULT;
    for (unsigned i = 0; i < 4; i++)
        if (s->seg_after[i] != in->seg[i])
            return W_SEG;
    return 0;
}

/* The descriptor an LDT at base 0 would read: our own memory, but not a foreign space's
 * UTCBs, which the kernel keeps to itself (0, and ctx->unreadable). */
struct fd_ldt_ctx {
    bool foreign, unreadable;
};

FD_TEXT static uint64_t fd_ldt_read(const void *ctx, uint64_t addr)
{
    struct fd_ldt_ctx *c = (struct fd_ldt_ctx *)ctx;
    if (addr >= FD_LOW_END || (c->foreign && addr >= FD_UTCB_AREA &&
                               addr < FD_UTCB_AREA + (1ul << FD_UTCB_LOG2))) {
        c->unreadable = true;
        return 0;
    }
    return *(volatile uint64_t *)addr;
}

FD_TEXT static void fd_violation(struct fd *f, unsigned op, unsigned what, const struct sm_in *in,
                                 const struct sm_out *e, const uint64_t got[4])
{
    struct fd_slot *s = f->s;
    if (s->violations++)
        return;
    s->bad_what = what;
    s->bad_op = op;
    s->bad_form = s->form;
    s->bad_sel = in->sel;
    s->bad_other = in->other;
    s->bad_target = s->target;
    s->bad_flags = in->flags;
    s->bad_fflags = s->fflags;
    s->bad_exp[0] = e->kind;
    s->bad_exp[1] = e->vector;
    s->bad_exp[2] = e->error;
    s->bad_exp[3] = op <= SM_MOV_SS ? e->seg : fd_transfer(op) ? e->cs : e->value;
    for (unsigned i = 0; i < 4; i++)
        s->bad_got[i] = got[i];
    /* What LDTR's reset value (base 0, limit 0xFFFF) would have done. */
    struct sm_tables alt = f->t;
    struct sm_out a;
    alt.ldt_limit = 0xFFFF;
    alt.ldt_base = 0;
    uint64_t addr = sm_ldt_address(&alt, in->sel);
    struct fd_ldt_ctx ctx = { .foreign = s->foreign != 0, .unreadable = false };
    alt.ctx = &ctx;
    s->bad_alt_addr = addr;
    s->bad_alt_desc[0] = fd_ldt_read(alt.ctx, addr);
    s->bad_alt_desc[1] = fd_ldt_read(alt.ctx, addr + 8);
    if (addr < FD_LOW_END) {
        ctx.unreadable = false;
        sm_model(&alt, fd_ldt_read, in, &a);
        s->bad_alt[0] = ctx.unreadable ? ~0ul : a.kind;
        s->bad_alt[1] = a.vector;
        s->bad_alt[2] = a.error;
        s->bad_alt[3] = a.privileged ? ~0ul : op <= SM_MOV_SS ? a.seg : fd_transfer(op) ? a.cs
                                                                                      : a.value;
    } else {
        s->bad_alt[0] = ~0ul;
    }
}

/* One operation: prepare, execute, compare (once more if only the selectors differ: an
 * interrupt between the instruction and their read-back may have changed them). */
FD_TEXT static bool fd_op(struct fd *f, unsigned op, unsigned sel)
{
    struct fd_slot *s = f->s;
    struct sm_in in;
    struct sm_out e;
    uint64_t got[4];
    fd_prepare(f, op, sel);
    if (fd_ctl.stack_quirk && !s->foreign && !fd_ctl.native_resumable) {
        /* The CPU would fault on the stack and the kernel send us a page fault, which no
         * answer resolves: leave it out. */
        s->op_rsp = FD_STACK_TOP(f->k);
        fd_input(s, op, &in);
        sm_model(&f->t, fd_ldt_read, &in, &e);
        if (e.kind == SM_FAULT && e.vector == SM_PF) {
            s->skipped++;
            return true;
        }
    }
    for (unsigned attempt = 0; ; attempt++) {
        s->outcome = 0;
        s->ring0 = 0;
        s->db_traps = 0;
        s->exc_vector = s->exc_error = s->exc_rip = s->exc_rsp = s->exc_rflags = 0;
        s->exc_addr = ~0ul;
        s->exc_pf = 0;
        s->in_op = 1;
        fd_exec(s);
        s->in_op = 0;
        fd_input(s, op, &in);
        sm_model(&f->t, fd_ldt_read, &in, &e);
        unsigned what = fd_compare(f, op, &in, &e, got);
        if (!what) {
            s->ops++;
            if (s->outcome == OUT_EXCEPTION)
                s->faults[s->exc_vector & 15]++;
            else if (s->outcome == OUT_PAD)
                s->transfers++;
            else
                s->inline_done++;
            if (attempt)
                s->retried++;
            return true;
        }
        if (attempt == 0 && (what == W_SEG || what == W_BASE))
            continue;
        fd_violation(f, op, what, &in, &e, got);
        return false;
    }
}

/* A thread: its slot's address is on its stack (fd_entry). */
FD_TEXT __attribute__((used, noreturn)) void fd_main(struct fd_slot *s)
{
    struct fd fd, *f = &fd;
    f->s = s;
    f->x = s->seed;
    f->t.gdt = fd_ctl.gdt;
    f->t.gdt_limit = fd_ctl.gdt_limit;
    f->t.ldt_limit = 0;
    f->t.ldt_base = 0;
    struct fd_ldt_ctx ctx = { .foreign = s->foreign != 0, .unreadable = false };
    f->t.ctx = &ctx;
    f->t.stack_supervisor = fd_ctl.stack_quirk;
    f->k = (unsigned)(s->index % FD_PER_SPACE);
    /* Can we set FS and GS bases (FSGSBASE)?  rdfsbase is #UD if not. */
    s->form = F_RDFSBASE;
    s->setbases = 0;
    s->pre[0] = s->pre[1] = s->pre[2] = s->pre[3] = 0;
    s->flags = SM_IF | 2;
    s->in_op = 1;
    fd_exec(s);
    s->in_op = 0;
    f->bases = s->outcome == OUT_INLINE;
    if (s->probe) {
        /* Does a far return fault on its stack (sm_tables.stack_supervisor)?  The main
         * thread watches. */
        s->form = F_LRET;
        s->sel = 0x23;
        s->target = (uint64_t)fd_pad;
        s->in_op = 1;
        fd_exec(s);
        s->in_op = 0;
        s->done = 1;
        __asm__ volatile("jmp fd_park");
    }
    fd_plant_all(f);
    for (l4_word_t n = 0; n < s->exh_count + s->random; n++) {
        unsigned op, sel;
        if (n < s->exh_count) {
            l4_word_t w = s->exh_first + n;
            op = (unsigned)(w % SM_NOPS);
            l4_word_t k = w / SM_NOPS;
            sel = (unsigned)(k < fd_ctl.per_op ? fd_ctl.slice + k : k - fd_ctl.per_op) & 0xFFFF;
        } else {
            op = (unsigned)RB(SM_NOPS);
            sel = RB(4) ? fd_rnd_sel(f) : fd_valid_sel(f, op);
        }
        if (!fd_op(f, op, sel)) {
            if (!fd_ctl.keep)
                __asm__ volatile("jmp fd_report");
            fd_tell();
            s->violations = 0;
        }
    }
    s->done = 1;
    __asm__ volatile("jmp fd_park");
    __builtin_unreachable();
}

#pragma GCC pop_options

/* ===================================================================================
 * The main thread: rounds of descriptor fuzz threads, their pager and exception handler.
 * =================================================================================== */

extern char __start_fuzztext[], __stop_fuzztext[], __rodata_start[], _erodata[];

static unsigned fd_per_op = 64;     /* desc=N: selectors per operation, exhaustively */
static unsigned fd_random_rounds;   /* descrounds=N: rounds (at least; random operations) */
static bool fd_off;                 /* desc=0 */
static bool fd_foreign = true;      /* foreign=0: two native spaces */
static bool fd_strict;              /* descstrict=1: DS, ES, FS, GS must survive the kernel */
static bool fd_keep;                /* desckeep=1: threads go on after a violation */
static unsigned fd_told;            /* violations reported so far */
static uint32_t fd_mapped[FD_SPACES];   /* pages of the first 64 KiB mapped this round */
static unsigned fd_gen;
static struct {
    l4_word_t rounds, threads, foreign, ops, faults[16], inline_done, transfers, retried;
    l4_word_t kernel_changed, db_traps, page_faults, skipped, violations, changed_example[3];
} fd_st;

static l4_word_t fd_no(unsigned i) { return l4_kip_user_base() + 4300 + i; }
static l4_word_t fd_page_of(const void *p) { return (l4_word_t)p & ~0xFFFul; }

void fd_configure(void)
{
    unsigned n = (unsigned)cmdline_value("desc", 64);
    fd_per_op = 1;
    while (fd_per_op * 2 <= n && fd_per_op < 65536)     /* a power of two: slices tile */
        fd_per_op *= 2;
    fd_off = n == 0;
    fd_random_rounds = (unsigned)cmdline_value("descrounds", (fz_rounds + 3) / 4);
    fd_foreign = cmdline_value("foreign", 1) != 0;
    fd_strict = cmdline_value("descstrict", 0) != 0;
    fd_keep = cmdline_value("desckeep", 0) != 0;
}

/* The first selector of this run's exhaustive slice: the seed picks one of 65536 / N. */
static unsigned fd_slice(void)
{
    return fd_per_op ? (unsigned)(fz_seed % (65536 / fd_per_op)) * fd_per_op : 0;
}

/* Pecan's GDT as cpu.c builds it; the model cannot see what a thread cannot observe (the TSS
 * descriptor's base and limit, accessed bits of DPL-0 entries).  Loading 0x1B and 0x23 into
 * DS once sets their accessed bits (lar reports them), as any thread's first load would. */
static void fd_gdt_model(void)
{
    uint64_t *g = fd_ctl.gdt;
    g[0] = 0;
    g[1] = 0x00AF9A000000FFFFul;            /* 0x08 kernel code, 64-bit */
    g[2] = 0x00CF92000000FFFFul;            /* 0x10 kernel data */
    g[3] = 0x00CFF3000000FFFFul;            /* 0x18 user data, DPL 3, accessed */
    g[4] = 0x00AFFB000000FFFFul;            /* 0x20 user code, 64-bit, DPL 3, accessed */
    g[5] = 0x00008B0000000000ul;            /* 0x28 TSS (busy), DPL 0 */
    g[6] = 0;                               /* its upper half: type 0 */
    g[7] = 0;
    fd_ctl.gdt_limit = 7 * 8 - 1;
    __asm__ volatile("movw %w0, %%ds\n movw %w1, %%ds\n movw %w2, %%ds"
                     :: "r"(0x1B), "r"(0x23), "r"(0) : "memory");
}

static int fd_slot_of(l4_word_t from)
{
    for (int i = 0; i < FD_THREADS; i++)
        if (fd_ctl.slot[i].tid == from)
            return i;
    return -1;
}

/* What a descriptor fuzz thread gets at addr: our fuzz code, our read-only data (the compiler
 * may put constants there; these threads make no system calls that could pass it on), the
 * control page, and our memory in the first 64 KiB but for the KIP and the UTCB area. */
static bool fd_policy(unsigned space, l4_word_t addr, l4_word_t *src, unsigned *rights)
{
    l4_word_t page = addr & ~0xFFFul;
    if (page >= fd_page_of(__start_fuzztext) && page < (l4_word_t)__stop_fuzztext) {
        *src = page;
        *rights = L4_R | L4_X;
    } else if (page >= fd_page_of(__rodata_start) && page < (l4_word_t)_erodata) {
        *src = page;
        *rights = L4_R;
    } else if (page == fd_page_of(&fd_ctl)) {
        *src = page;
        *rights = L4_R | L4_W;
    } else if (addr < FD_LOW_END && page != FD_KIP_AREA &&
               (page < FD_UTCB_AREA || page >= FD_UTCB_AREA + (1ul << FD_UTCB_LOG2))) {
        *src = (l4_word_t)fd_low[space][page >> 12];
        *rights = L4_R | L4_W;
    } else {
        return false;
    }
    return true;
}

static const char *fd_outcome_name(uint64_t o)
{
    return o == OUT_INLINE ? "done in line" : o == OUT_PAD ? "arrived at the landing pad" :
           o == OUT_EXCEPTION ? "exception" : "nothing";
}

static const char *const fd_what_names[W_COUNT] = {
    [W_OUTCOME] = "outcome (got: outcome, vector, error, value)",
    [W_VECTOR] = "vector or error code (got: outcome, vector, error, value)",
    [W_RIP] = "exception RIP (got: outcome, RIP, RSP, RFLAGS)",
    [W_RSP] = "exception RSP (got: outcome, RIP, RSP, RFLAGS)",
    [W_RFLAGS] = "exception RFLAGS (got: outcome, RIP, RSP, RFLAGS)",
    [W_DB] = "single-step traps (got: outcome, traps)",
    [W_SEG] = "segment registers after it (got: outcome, register, value)",
    [W_BASE] = "FS/GS base after it (got: outcome, 0 FS / 1 GS, base)",
    [W_EXC_SEG] = "a failed load changed the register (got: outcome, register, value)",
    [W_PAD_CS] = "CS at the landing pad (got: outcome, CS, expected)",
    [W_PAD_SS] = "SS at the landing pad (got: outcome, SS, expected)",
    [W_PAD_RSP] = "RSP at the landing pad (got: outcome, RSP, expected)",
    [W_PAD_FLAGS] = "RFLAGS at the landing pad (got: outcome, RFLAGS, expected)",
    [W_PAD_STACK] = "what lcall pushed (got: outcome, RIP, CS)",
    [W_ZF] = "ZF (got: outcome, RFLAGS)",
    [W_FLAGS] = "RFLAGS but ZF (got: outcome, RFLAGS)",
    [W_RESULT] = "destination register (got: outcome, value)",
    [W_RING0] = "our code ran at CPL 0 (a call gate)",
    [W_ADDR] = "page-fault address (got: outcome, RIP, address)",
    [W_KERNEL_SEG] = "a selector changed across the kernel (got: outcome, register, value)",
};

static void fd_describe_result(char *b, size_t n, unsigned kind, unsigned long vector,
                               unsigned long error, unsigned long value)
{
    if (kind == SM_FAULT)
        snprintf(b, n, "exception %lu (error %#lx)", vector, error);
    else if (kind == SM_DONE)
        snprintf(b, n, "done (%#lx)", value);
    else
        snprintf(b, n, "unknown (its descriptor lies where we cannot read)");
}

/* The first violation of thread i, as one line. */
static void fd_report_violation(unsigned i)
{
    volatile struct fd_slot *s = &fd_ctl.slot[i];
    char exp[64], alt[64];
    fd_describe_result(exp, sizeof(exp), (unsigned)s->bad_exp[0], s->bad_exp[1], s->bad_exp[2],
                       s->bad_exp[3]);
    if (s->bad_alt[0] == ~0ul)
        snprintf(alt, sizeof(alt), "unknown (a descriptor in a foreign UTCB, or not in an LDT)");
    else if (s->bad_alt[3] == ~0ul && s->bad_alt[0] == SM_DONE)
        snprintf(alt, sizeof(alt), "a call gate into CPL < 3");
    else
        fd_describe_result(alt, sizeof(alt), (unsigned)s->bad_alt[0], s->bad_alt[1],
                           s->bad_alt[2], s->bad_alt[3]);
    unsigned w = (unsigned)s->bad_what;
    static char line[640];
    snprintf(line, sizeof(line),
             "descriptor thread %u (%s) op %lu: %s [%s] selector %#lx (other %#lx, target %#lx, "
             "RFLAGS %#lx, frame RFLAGS %#lx): %s: model %s, CPU %s %#lx %#lx %#lx; with LDTR "
             "at its reset value: %s, descriptor at %#lx: %016lx %016lx",
             i, s->foreign ? "foreign" : "native", s->ops, fd_op_names[s->bad_op % SM_NOPS],
             fd_form_names[s->bad_form % F_COUNT], s->bad_sel, s->bad_other, s->bad_target,
             s->bad_flags, s->bad_fflags, w < W_COUNT && fd_what_names[w] ? fd_what_names[w] : "?",
             exp, fd_outcome_name(s->bad_got[0]), s->bad_got[1], s->bad_got[2], s->bad_got[3],
             alt, s->bad_alt_addr, s->bad_alt_desc[0], s->bad_alt_desc[1]);
    test_note("%s", line);
    snprintf(fz_msg, sizeof(fz_msg), "%s", line);
}

/* A message from thread i's CPU, not from the thread: something the model did not foresee. */
static void fd_unexpected(unsigned i, const char *what, l4_word_t a, l4_word_t b, l4_word_t c)
{
    volatile struct fd_slot *s = &fd_ctl.slot[i];
    s->stuck = 1;
    if (s->violations++)
        return;
    snprintf(fz_msg, sizeof(fz_msg), "descriptor thread %u (%s), op %lu (%s, selector %#lx): "
             "%s: %#lx %#lx %#lx", i, s->foreign ? "foreign" : "native", s->ops,
             fd_form_names[s->form % F_COUNT], s->sel & 0xFFFF, what, a, b, c);
    test_note("%s", fz_msg);
}

/* Reply to an exception of thread i: the registers of the message (in our MRs), changed. */
static void fd_reply_regs(unsigned i, l4_word_t from, bool resume)
{
    volatile struct fd_slot *s = &fd_ctl.slot[i];
    if (resume) {
        l4_set_mr(L4_EXC_RIP, (l4_word_t)fd_resume);
        l4_set_mr(L4_EXC_RSP, s->op_rsp);
        l4_set_mr(L4_EXC_RBX, (l4_word_t)s);
    }
    l4_set_mr(0, s->foreign ? l4_tag_make(L4_FOREIGN_SET_REGS, L4_FREG_WORDS, 0)
                            : l4_tag_make(0, L4_EXC_REGS, 0));
    l4_reply(from);
}

static void fd_handle(l4_word_t tag, l4_word_t from)
{
    int i = fd_slot_of(from);
    if (i < 0)
        return;
    volatile struct fd_slot *s = &fd_ctl.slot[i];
    if (l4_tag_is_proto(tag, L4_PROTO_PAGEFAULT) && l4_tag_u(tag) == 2 && l4_tag_t(tag) == 0) {
        l4_word_t addr = l4_mr(L4_PF_ADDR), src;
        unsigned access = (tag >> 16) & 7, rights;
        bool far = s->form == F_LRET || s->form == F_LRET16 || s->form == F_IRET ||
                   s->form == F_LCALL;
        if (s->in_op && far && addr + 16 >= s->op_rsp && addr < s->op_rsp + 64) {
            /* The far transfer's own stack access faulted (sm_tables.stack_supervisor). */
            if (s->probe)
                fd_ctl.stack_quirk = true;
            if (!s->foreign) {
                if (!s->probe)
                    fd_unexpected((unsigned)i, "page fault on the stack of a far transfer "
                                  "(address, RIP, access)", addr, l4_mr(L4_PF_IP), access);
                return;                         /* (no answer would help) */
            }
            s->exc_vector = SM_PF;
            s->exc_error = access & L4_W ? 3 : 1;
            s->exc_rip = l4_mr(L4_PF_IP);
            s->exc_addr = addr;
            s->exc_pf = 1;
            /* A foreign thread's page fault may be answered with its registers. */
            for (int r = 1; r <= L4_FREG_RSP; r++)
                l4_set_mr(r, 0);
            l4_set_mr(L4_FREG_RIP, (l4_word_t)fd_resume);
            l4_set_mr(L4_FREG_RBX, (l4_word_t)s);
            l4_set_mr(L4_FREG_RSP, s->op_rsp);
            l4_set_mr(0, l4_tag_make(L4_FOREIGN_SET_REGS, L4_FREG_RSP, 0));
            l4_reply(from);
            return;
        }
        if (s->in_op && addr < FD_LOW_END) {
            /* The CPU read a descriptor through an LDT: from a page not mapped yet, or one
             * SMAP refused it (a supervisor read). */
            fd_unexpected((unsigned)i, "page fault in the first 64 KiB during the instruction "
                          "(a descriptor read through an LDT at base 0; address, RIP, access)",
                          addr, l4_mr(L4_PF_IP), access);
            unsigned sp = (unsigned)i / FD_PER_SPACE, pg = (unsigned)(addr >> 12);
            if (!fd_keep || (fd_mapped[sp] & (1u << pg)) ||
                !fd_policy(sp, addr, &src, &rights))
                return;                         /* stuck: a mapped page would fault again */
            s->stuck = 0;
            s->violations = 0;
        }
        if (fd_policy((unsigned)i / FD_PER_SPACE, addr, &src, &rights) && !(access & ~rights)) {
            fd_st.page_faults++;
            if (addr < FD_LOW_END)
                fd_mapped[i / FD_PER_SPACE] |= 1u << (addr >> 12);
            l4_set_mr(0, l4_tag_make(0, 0, 2));
            l4_set_mr(1, l4_map_item(addr & ~0xFFFul));
            l4_set_mr(2, l4_fpage_log2(src, 12) | rights);
            l4_reply(from);
            return;
        }
        fd_unexpected((unsigned)i, "page fault (address, RIP, access)", addr, l4_mr(L4_PF_IP),
                      access);
        return;
    }
    unsigned vector;
    l4_word_t error;
    if (!s->foreign && l4_tag_is_proto(tag, L4_PROTO_EXCEPTION) &&
        l4_tag_u(tag) == L4_EXC_WORDS) {
        vector = (unsigned)l4_mr(L4_EXC_VECTOR);
        error = l4_mr(L4_EXC_ERROR);
    } else if (s->foreign && l4_tag_is_proto(tag, L4_PROTO_FOREIGN_EXCEPTION) &&
               l4_tag_u(tag) == L4_FEXC_WORDS) {
        vector = (unsigned)l4_mr(L4_FEXC_VECTOR);
        error = l4_mr(L4_FEXC_ERROR);
    } else {
        fd_unexpected((unsigned)i, "unexpected message (tag, MR1, MR2)", tag, l4_mr(1), l4_mr(2));
        return;
    }
    l4_word_t rip = l4_mr(L4_EXC_RIP);
    if (vector == SM_DB_VEC) {                  /* TF from an iretq frame: step on */
        s->db_traps++;
        s->db_rip = rip;
        fd_st.db_traps++;
        fd_reply_regs((unsigned)i, from, false);
        return;
    }
    if (!s->in_op) {
        if (vector == 6 && rip == (l4_word_t)&fd_tell) {
            if (fd_told++ < 100)
                fd_report_violation((unsigned)i);
            fd_st.violations++;
            l4_set_mr(L4_EXC_RIP, rip + 2);
            fd_reply_regs((unsigned)i, from, false);
            return;
        }
        if (vector == 6 && rip == (l4_word_t)fd_report)
            fd_report_violation((unsigned)i);
        else if (!(vector == 6 && rip == (l4_word_t)fd_park))
            fd_unexpected((unsigned)i, "exception outside an instruction (vector, error, RIP)",
                          vector, error, rip);
        return;                                 /* no answer: it stops */
    }
    if (vector == SM_PF && s->probe) {
        fd_ctl.stack_quirk = true;
        if (!s->foreign)
            fd_ctl.native_resumable = true;
    }
    s->exc_vector = vector;
    s->exc_error = error;
    s->exc_rip = rip;
    s->exc_addr = s->foreign ? l4_mr(L4_FEXC_ADDR) : ~0ul;
    s->exc_rsp = l4_mr(L4_EXC_RSP);
    s->exc_rflags = l4_mr(L4_EXC_RFLAGS);
    fd_reply_regs((unsigned)i, from, true);
}

/* A space of two threads: native (pager and exception handler: us), or foreign (handler us). */
static bool fd_create_space(unsigned sp, bool foreign, l4_word_t *tids)
{
    l4_word_t me = tu_main_tid(), old;
    l4_word_t a = fd_ctl.slot[sp * FD_PER_SPACE].tid;
    l4_word_t kip = l4_fpage_log2(FD_KIP_AREA, 12), utcb = l4_fpage_log2(FD_UTCB_AREA, FD_UTCB_LOG2);
    bool ok = l4_thread_control(a, a, me, L4_NILTHREAD, ~0ul) &&
              (foreign ? l4_space_control_foreign(a, L4_SPACE_CTL_APPLY | L4_SPACE_CTL_FOREIGN,
                                                  kip, utcb, 0, me, &old)
                       : l4_space_control(a, 0, kip, utcb, L4_NILTHREAD, &old)) &&
              l4_thread_control(a, a, L4_NILTHREAD, me, FD_UTCB_OF(0));
    for (unsigned k = 1; ok && k < FD_PER_SPACE; k++)
        ok = l4_thread_control(fd_ctl.slot[sp * FD_PER_SPACE + k].tid, a, me, me, FD_UTCB_OF(k));
    if (!ok) {
        snprintf(fz_msg, sizeof(fz_msg), "creating descriptor fuzz space %u failed: error %lu",
                 sp, l4_error_code());
        return false;
    }
    for (unsigned k = 0; k < FD_PER_SPACE; k++) {
        unsigned i = sp * FD_PER_SPACE + k;
        tids[k] = fd_ctl.slot[i].tid;
        /* Random time slices: preemptions at random instructions. */
        l4_word_t slice = xs_next(&fd_ctl.slot[i].seed) % 1024 + (3ul << 10), oldtc;
        l4_schedule(tids[k], (slice << 16) | 0xFFFF, ~0ul, FD_PRIO, ~0ul, &oldtc);
        /* The slot's address on top of its stack (fd_entry). */
        *(volatile l4_word_t *)&fd_low[sp][FD_STACK_TOP(k) >> 12][FD_STACK_TOP(k) & 0xFFF] =
            (l4_word_t)&fd_ctl.slot[i];
        l4_set_mr(0, l4_tag_make(0, foreign ? 2 : 3, 0));
        l4_set_mr(1, (l4_word_t)fd_entry);
        l4_set_mr(2, FD_STACK_TOP(k));
        l4_set_mr(3, me);                       /* native: the exception handler */
        if (l4_ipc_failed(l4_send(tids[k]))) {
            snprintf(fz_msg, sizeof(fz_msg), "starting descriptor fuzz thread %lx failed",
                     tids[k]);
            return false;
        }
    }
    return true;
}

/* One round: FD_THREADS threads, each with its share of the exhaustive items from *next on
 * (or, probe, each trying one far return: sm_tables.stack_supervisor). */
static bool fd_round(unsigned round, l4_word_t *next, l4_word_t items, bool probe)
{
    l4_word_t ver = 1 + 2 * ++fd_gen, tids[FD_THREADS];
    for (unsigned i = 0; i < FD_THREADS; i++) {
        struct fd_slot *s = &fd_ctl.slot[i];
        memset(s, 0, sizeof(*s));
        s->tid = l4_global_id(fd_no(i), ver);
        s->seed = fz_mix(fz_seed, 0x30000000 + (l4_word_t)fd_gen * FD_THREADS + i);
        s->foreign = fd_foreign && i / FD_PER_SPACE == FD_SPACES - 1;
        s->index = i;
        s->probe = probe;
        s->exh_first = *next;
        s->exh_count = probe ? 0 : items - *next < FD_CHUNK ? items - *next : FD_CHUNK;
        *next += s->exh_count;
        s->random = probe ? 0 : FD_RANDOM;
    }
    for (unsigned sp = 0; sp < FD_SPACES; sp++)
        fd_mapped[sp] = 0;
    for (unsigned sp = 0; sp < FD_SPACES; sp++)
        if (!fd_create_space(sp, fd_ctl.slot[sp * FD_PER_SPACE].foreign,
                             &tids[sp * FD_PER_SPACE]))
            return false;
    fz_watchdog_arm(tids, FD_THREADS);
    fz_quiet_arm();
    l4_set_br(0, 0);
    l4_word_t start = l4_system_clock();
    bool overrun = false;
    for (;;) {
        if (l4_system_clock() - start > FZ_ROUND_MAX_US) {
            overrun = true;
            break;
        }
        l4_word_t from, tag = l4_wait(&from);
        if (l4_ipc_failed(tag))
            continue;
        if (fz_is_quiet(tag, from))
            break;                              /* every thread is done or stopped */
        fd_handle(tag, from);
    }
    bool fired = fz_watchdog_disarm();
    for (unsigned i = 0; i < FD_THREADS; i++)
        tu_kill(tids[i]);
    if (probe) {
        for (unsigned i = 0; i < FD_THREADS; i++)
            if (fd_ctl.slot[i].violations)
                return false;
        return true;
    }
    fd_st.rounds++;
    bool ok = true;
    for (unsigned i = 0; i < FD_THREADS; i++) {
        struct fd_slot *s = &fd_ctl.slot[i];
        fd_st.threads++;
        fd_st.foreign += s->foreign;
        fd_st.ops += s->ops;
        for (unsigned v = 0; v < 16; v++)
            fd_st.faults[v] += s->faults[v];
        fd_st.inline_done += s->inline_done;
        fd_st.transfers += s->transfers;
        fd_st.retried += s->retried;
        fd_st.skipped += s->skipped;
        if (s->kernel_changed && !fd_st.kernel_changed)
            for (unsigned k = 0; k < 3; k++)
                fd_st.changed_example[k] = s->changed_example[k];
        fd_st.kernel_changed += s->kernel_changed;
        if (ok && s->violations)
            ok = false;                         /* fz_msg says it (printed when it happened) */
        else if (ok && !s->done) {
            snprintf(fz_msg, sizeof(fz_msg), "round %u: descriptor thread %u stopped after %lu "
                     "operations in %s, selector %#lx%s%s", round, i, s->ops,
                     fd_form_names[s->form % F_COUNT], s->sel & 0xFFFF,
                     s->in_op ? " (inside the instruction)" : "",
                     fired ? " (the watchdog ended the round)" : overrun ? " (round too long)"
                                                                          : "");
            ok = false;
        }
    }
    return ok && fz_leak_check("descriptor attacks", round);
}

bool fd_phase(void)
{
    if (fd_off) {
        test_note("descriptors: off (desc=0)");
        return true;
    }
    l4_word_t t0 = l4_system_clock();
    fd_gdt_model();
    memset(&fd_st, 0, sizeof(fd_st));
    fd_ctl.strict = fd_strict;
    fd_ctl.keep = fd_keep;
    fd_told = 0;
    fd_ctl.stack_quirk = fd_ctl.native_resumable = false;
    l4_word_t none = 0;
    if (!fd_round(0, &none, 0, true)) {
        test_note("descriptor attacks: the probe round, seed %#lx", fz_seed);
        return false;
    }
    if (fd_ctl.stack_quirk)
        test_note("descriptors: this CPU faults on the stack accesses of lretq, iretq and lcall "
                  "from user mode under SMAP (QEMU 7.2's TCG; docs/testing.md): %s",
                  fd_ctl.native_resumable ? "the kernel reports them as exceptions"
                                          : "native threads leave those out");
    /* The exhaustive items: item w is operation w % SM_NOPS with the selector w / SM_NOPS of
     * the slice (0..N-1), then of the GDT's 0-0x3f. */
    l4_word_t items = ((l4_word_t)fd_per_op + FD_GDT_SELS) * SM_NOPS, next = 0;
    unsigned slice = fd_ctl.slice = fd_slice();
    fd_ctl.per_op = fd_per_op;
    for (unsigned round = 0; next < items || round < fd_random_rounds; round++) {
        l4_word_t first = next;
        if (!fd_round(round, &next, items, false)) {
            /* (fz_msg says what happened; add where) */
            test_note("descriptor attacks: round %u, exhaustive items %lu..%lu, seed %#lx",
                      round, first, next, fz_seed);
            return false;
        }
    }
    l4_word_t us = l4_system_clock() - t0;
    if (fd_st.violations) {
        snprintf(fz_msg, sizeof(fz_msg), "%lu violations (desckeep=1), the first: %s",
                 fd_st.violations, fz_msg);
        return false;
    }
    test_note("descriptors: %lu rounds, %lu threads (%lu foreign), %lu ops (%lu #GP, %lu #NP, "
              "%lu #SS, %lu #PF, %lu done in line, %lu far transfers, %lu single-step traps), "
              "selectors %#x-%#x and 0-0x3f of each of %u operations exhaustively, %lu left "
              "out, %lu retried, %lu.%03lu s",
              fd_st.rounds, fd_st.threads, fd_st.foreign, fd_st.ops, fd_st.faults[SM_GP],
              fd_st.faults[SM_NP], fd_st.faults[SM_SS], fd_st.faults[SM_PF], fd_st.inline_done,
              fd_st.transfers, fd_st.db_traps, slice, fd_per_op ? slice + fd_per_op - 1 : 0,
              SM_NOPS, fd_st.skipped, fd_st.retried, us / 1000000, us / 1000 % 1000);
    if (fd_st.kernel_changed)
        test_note("descriptors: %lu times DS/ES/FS/GS differed after an exception from what "
                  "the thread had loaded (the kernel does not keep them per thread), e.g. %s "
                  "%#lx -> %#lx", fd_st.kernel_changed,
                  (const char *[]){ "DS", "ES", "FS", "GS" }[fd_st.changed_example[0] & 3],
                  fd_st.changed_example[1], fd_st.changed_example[2]);
    return fz_system_works();
}
