/* The threads of the descriptor-attack phase (fuzz_desc.c says what the phase does): in
 * section fuzztext, the only code their spaces hold.  fd_exec runs one instruction that takes
 * a selector; fd_main plants descriptors, then prepares, runs and checks operation after
 * operation against the model (fuzz_segmodel.c). */
#include "fuzz.h"
#include "fuzz_desc.h"

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
        /* After a violation (desckeep=1) CS and SS may hold planted descriptors: back to
         * ours (ljmp: no stack access, see fuzz_segmodel.h). */
        "movl $0x1B, %eax\n movw %ax, %ss\n"
        "movw %cs, %ax\n cmpw $0x23, %ax\n je 1f\n"
        "leaq 1f(%rip), %rax\n movq %rax, -16(%rsp)\n movq $0x23, -8(%rsp)\n"
        "rex64 ljmp *-16(%rsp)\n"
        "1:\n"
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

/* ===================================================================================
 * The threads (section fuzztext: nothing here may call code outside it).
 * =================================================================================== */
#pragma GCC push_options
#pragma GCC optimize("no-jump-tables", "no-tree-switch-conversion", \
                     "no-tree-loop-distribute-patterns")

#define FD_INLINE static inline __attribute__((always_inline))

struct fd {
    uint64_t x;                     /* xorshift64* */
    struct fd_slot *s;
    struct sm_tables t;             /* Pecan's GDT, a null LDT */
    unsigned k;                     /* index in the space */
    bool bases;                     /* FSGSBASE usable */
};

FD_INLINE uint64_t rnd(struct fd *f)
{
    return fz_xorshift(&f->x);
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
        /* CS, SS, RSP, RFLAGS (pushfq clears RF and VM): W_PAD_CS + i if one differs */
        uint64_t pad[4] = { e->cs, e->ss, e->rsp, e->flags & ~(SM_RF | SM_VM) };
        for (unsigned i = 0; i < 4; i++) {
            got[1] = s->pad[i];
            got[2] = pad[i];
            if (s->pad[i] != pad[i])
                return W_PAD_CS + i;
        }
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
        got[1] = 4;
        got[2] = s->seg_after[4];
        return s->seg_after[4] == e->ss ? 0 : W_SEG;
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
        /* Does the CPU do exactly what that model says (all of fd_compare's checks)? */
        uint64_t ignored[4];
        s->bad_alt_differs = ctx.unreadable || a.privileged || a.compat ? ~0ul :
                             fd_compare(f, op, in, &a, ignored);
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
