/* The descriptor-attack phase of test_fuzz (issue 12): what its threads (fuzz_desc_thread.c)
 * and the main thread (fuzz_desc.c) share: the layout of the threads' spaces and of the
 * control page through which they talk. */
#ifndef FUZZ_DESC_H
#define FUZZ_DESC_H

#include "fuzz_segmodel.h"
#include <libl4.h>

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

/* The words fd_exec reads and writes, at these offsets (its assembly uses them). */
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
    volatile uint64_t db_traps;
    /* the round */
    l4_word_t tid, seed, foreign, index, exh_first, exh_count, random, probe;
    /* results */
    volatile uint64_t ops, faults[16], inline_done, transfers, retried, kernel_changed, skipped;
    volatile uint64_t done, violations, changed_example[3];
    /* the first violation */
    volatile uint64_t bad_what, bad_op, bad_form, bad_sel, bad_other, bad_target, bad_flags;
    volatile uint64_t bad_fflags, bad_exp[4], bad_got[4], bad_alt[4], bad_alt_addr, bad_alt_desc[2];
    volatile uint64_t bad_alt_differs;  /* 0: the CPU did what an LDT at linear 0 would do */
};

#define FD_AT(field, off) _Static_assert(__builtin_offsetof(struct fd_slot, field) == off, #off)
FD_AT(form, FD_FORM);
FD_AT(target, FD_TARGET);
FD_AT(other, FD_OTHER);
FD_AT(fflags, FD_FFLAGS);
FD_AT(flags, FD_FLAGS);
FD_AT(setbases, FD_SETBASES);
FD_AT(dest, FD_DEST);
FD_AT(frameoff, FD_FRAMEOFF);
FD_AT(op_rip, FD_OP_RIP);
FD_AT(op_rsp, FD_OP_RSP);
FD_AT(next_rip, FD_NEXT_RIP);
FD_AT(result, FD_RESULT);
FD_AT(flags_after, FD_FLAGS_AFTER);
FD_AT(sel, FD_SEL);
FD_AT(pre, FD_PRE);
FD_AT(bases, FD_BASES);
FD_AT(plant, FD_PLANT);
FD_AT(saved_rsp, FD_SAVED_RSP);
FD_AT(outcome, FD_OUTCOME);
FD_AT(seg_after, FD_SEG_AFTER);
FD_AT(bases_after, FD_BASES_AFTER);
FD_AT(pad, FD_PAD);
FD_AT(ring0, FD_RING0);

/* The control page: mapped read-write into the descriptor fuzz spaces (nothing else of ours is
 * writable there). */
struct fd_ctl {
    uint64_t gdt[8];                /* the model's copy of Pecan's GDT (fd_gdt_model) */
    unsigned gdt_limit;
    unsigned slice, per_op;         /* the run's exhaustive slice: its first selector, size */
    bool stack_quirk;               /* far transfers fault on their stack (sm_tables) */
    bool native_resumable;          /* ... and a native thread gets that as an exception */
    bool strict;                    /* descstrict=1: selectors must survive the kernel */
    bool keep;                      /* desckeep=1: go on after a violation */
    struct fd_slot slot[FD_THREADS];
};
extern struct fd_ctl fd_ctl;
_Static_assert(sizeof(struct fd_ctl) <= 4096, "one page");

/* The forms: each operation has one or more instructions. */
enum {
    F_MOV_DS_R, F_MOV_ES_R, F_MOV_FS_R, F_MOV_GS_R, F_MOV_SS_R,
    F_MOV_DS_M, F_MOV_ES_M, F_MOV_FS_M, F_MOV_GS_M, F_MOV_SS_M,
    F_POP_FS, F_POP_GS, F_LFS, F_LGS, F_LSS,
    F_LCALL, F_LJMP, F_LRET, F_LRET16, F_IRET,
    F_LAR_R, F_LAR_M, F_LSL_R, F_LSL_M, F_VERR_R, F_VERR_M, F_VERW_R, F_VERW_M,
    F_LLDT, F_LTR, F_RDFSBASE, F_COUNT
};

/* Which check failed (a violation's bad_what). */
enum { W_OUTCOME = 1, W_VECTOR, W_RIP, W_RSP, W_RFLAGS, W_DB, W_SEG, W_BASE, W_EXC_SEG,
       W_PAD_CS, W_PAD_SS, W_PAD_RSP, W_PAD_FLAGS, W_PAD_STACK, W_ZF, W_FLAGS, W_RESULT,
       W_RING0, W_ADDR, W_KERNEL_SEG, W_COUNT };

/* The assembly routines and labels (fuzz_desc_thread.c). */
void fd_exec(struct fd_slot *s);
void fd_tell(void);
extern char fd_pad[], fd_resume[], fd_after[], fd_entry[], fd_report[], fd_park[];

#endif
