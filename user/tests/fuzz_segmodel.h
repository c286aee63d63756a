/* An exact model of the x86-64 instructions that take a segment selector, as executed at CPL 3
 * in 64-bit mode: the outcome (done, or which exception with which error code) and what changed.
 * It follows the order of checks of the instruction pages of the Intel SDM (vol. 2: MOV, POP,
 * LDS/LSS, CALL, JMP, RET, IRET, LAR, LSL, VERR/VERW; vol. 3 ch. 5-6) as QEMU's TCG implements
 * them (target/i386/tcg/seg_helper.c); where the two differ the model says what QEMU does and
 * docs/testing.md ("Descriptor attacks") lists the difference.  The descriptor fuzzer
 * (fuzz_desc.c) predicts every operation with it before it executes the operation.
 *
 * The model reads descriptors through struct sm_tables: a copy of Pecan's GDT and an LDT that is
 * either null (what the kernel loads) or LDTR's reset value (base 0, limit 0xFFFF: a descriptor
 * read from the thread's own memory), which explains what a kernel without `lldt` does. */
#ifndef FUZZ_SEGMODEL_H
#define FUZZ_SEGMODEL_H

#include <stdbool.h>
#include <stdint.h>

/* The model's code lies in the fuzz threads' section (test_fuzz.c): they call it. */
#define SM_TEXT __attribute__((section("fuzztext"), noinline))

/* Descriptor bits in the high dword (e2). */
#define SM_A      (1u << 8)     /* accessed */
#define SM_RW     (1u << 9)     /* readable (code) / writable (data) */
#define SM_C      (1u << 10)    /* conforming (code) / expand-down (data) */
#define SM_CODE   (1u << 11)
#define SM_S      (1u << 12)    /* code or data, not a system descriptor */
#define SM_P      (1u << 15)
#define SM_L      (1u << 21)
#define SM_DB     (1u << 22)
#define SM_G      (1u << 23)

/* RFLAGS bits. */
#define SM_CF 0x1ul
#define SM_PAR 0x4ul
#define SM_AF 0x10ul
#define SM_ZF 0x40ul
#define SM_SF 0x80ul
#define SM_TF 0x100ul
#define SM_IF 0x200ul
#define SM_DF 0x400ul
#define SM_OF 0x800ul
#define SM_IOPL 0x3000ul
#define SM_NT 0x4000ul
#define SM_RF 0x10000ul
#define SM_VM 0x20000ul
#define SM_AC 0x40000ul
#define SM_VIF 0x80000ul
#define SM_VIP 0x100000ul
#define SM_ID 0x200000ul
#define SM_ARITH (SM_CF | SM_PAR | SM_AF | SM_ZF | SM_SF | SM_OF)

/* Vectors. */
#define SM_DB_VEC 1
#define SM_PF 14
#define SM_NP 11
#define SM_SS 12
#define SM_GP 13

struct sm_tables {
    const uint64_t *gdt;
    unsigned gdt_limit;         /* GDTR.limit: offset of the last byte */
    unsigned ldt_limit;         /* 0: a null LDT (LDTR 0), every TI=1 selector is outside it */
    uint64_t ldt_base;          /* linear address, read through ldt_read when ldt_limit != 0 */
    const void *ctx;            /* for ldt_read */
    /* QEMU 7.2's TCG makes the stack accesses of lretq, iretq and lcall as supervisor
     * accesses; under SMAP a user stack then faults (#PF, error P or P|W) at the first pop
     * (before any check) or push (after the checks).  The SDM: user accesses, no fault. */
    bool stack_supervisor;
};
typedef uint64_t sm_read_fn(const void *ctx, uint64_t addr);

/* The operations (one selector operand each; the iretq frame's CS or SS). */
enum sm_op {
    SM_MOV_DS, SM_MOV_ES, SM_MOV_FS, SM_MOV_GS, SM_MOV_SS,  /* also pop, lfs/lgs/lss */
    SM_LCALL, SM_LJMP,                                      /* through m16:64 */
    SM_LRET,                                                /* lretq [imm16] */
    SM_IRET_CS, SM_IRET_SS,                                 /* iretq, the selector as CS or SS */
    SM_LAR, SM_LSL, SM_VERR, SM_VERW,
    SM_LLDT, SM_LTR,
    SM_NOPS
};

/* What the CPU is asked: the selector and what else the instruction reads. */
struct sm_in {
    unsigned op;
    unsigned sel;               /* 16 bits (for iretq the frame's CS or SS, per op) */
    unsigned other;             /* iretq: the other of CS/SS */
    uint64_t target;            /* far pointer offset, or the RIP in a lretq/iretq frame */
    uint64_t rsp;               /* RSP at the instruction */
    uint64_t frame_rsp;         /* iretq: the frame's RSP */
    uint64_t frame_flags;       /* iretq: the frame's RFLAGS */
    uint64_t flags;             /* RFLAGS at the instruction */
    unsigned addend;            /* lretq imm16 */
    unsigned seg[4];            /* DS, ES, FS, GS before (their cached attributes matter to iretq) */
};

enum { SM_DONE, SM_FAULT };

struct sm_out {
    unsigned kind;              /* SM_DONE or SM_FAULT */
    unsigned vector, error;     /* a fault */
    bool at_target;             /* the fault is the fetch at the new RIP (non-canonical) */
    uint64_t address;           /* a #PF: its address */
    bool privileged;            /* a call gate to a more privileged CS (CPL < 3 afterwards) */
    bool compat;                /* the new CS is not a 64-bit code segment */
    unsigned seg;               /* a segment load: the new selector */
    uint64_t base;              /* ... and the base it loads (FS, GS) */
    unsigned cs, ss;            /* after a transfer (CS, SS) */
    uint64_t rip, rsp, flags;   /* after a transfer: the new RIP, RSP, RFLAGS */
    unsigned seg_after[4];      /* after an iretq: DS, ES, FS, GS */
    bool zf;                    /* lar, lsl, verr, verw */
    uint64_t value;             /* lar: access rights; lsl: limit */
};

/* The outcome of one operation.  ldt_read(t->ctx, addr) reads 8 bytes at a linear address
 * (only called when t->ldt_limit != 0). */
void sm_model(const struct sm_tables *t, sm_read_fn *ldt_read, const struct sm_in *in,
              struct sm_out *out);
/* The linear address of the descriptor a selector names through an LDT at base t->ldt_base, or
 * ~0 if it lies outside t's LDT or the selector names the GDT. */
uint64_t sm_ldt_address(const struct sm_tables *t, unsigned sel);
bool sm_canonical(uint64_t a);

#endif
