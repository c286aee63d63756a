/* The user register frame at the top of every thread's kernel stack, and the per-CPU block.
 * Offsets are shared with entry.S; the asserts below the structures keep them in step. */
#ifndef FRAME_H
#define FRAME_H

#define GDT_KERNEL_CS   0x08
#define GDT_KERNEL_DS   0x10
#define GDT_USER_DS     0x1B    /* 0x18 | RPL 3 */
#define GDT_USER_CS     0x23    /* 0x20 | RPL 3 */
#define GDT_TSS         0x28

#define VEC_SYSCALL     0x100   /* frame.vector of a frame built by the syscall entry */

/* struct frame, in words from the lowest address */
#define FR_R15    0
#define FR_R14    1
#define FR_R13    2
#define FR_R12    3
#define FR_R11    4
#define FR_R10    5
#define FR_R9     6
#define FR_R8     7
#define FR_RBP    8
#define FR_RDI    9
#define FR_RSI    10
#define FR_RDX    11
#define FR_RCX    12
#define FR_RBX    13
#define FR_RAX    14
#define FR_VECTOR 15
#define FR_ERROR  16
#define FR_RIP    17
#define FR_CS     18
#define FR_RFLAGS 19
#define FR_RSP    20
#define FR_SS     21
#define FRAME_WORDS 22
#define FRAME_SIZE  (FRAME_WORDS * 8)

/* struct cpu_local */
#define CPU_KSTACK_TOP  0
#define CPU_USER_RSP    8
#define CPU_CURRENT     16

#ifndef __ASSEMBLER__
#include "types.h"
#include "arch.h"

struct frame {
    word_t r15, r14, r13, r12, r11, r10, r9, r8;
    word_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
    word_t vector, error;
    word_t rip, cs, rflags, rsp, ss;
};

static inline bool frame_from_user(const struct frame *f) { return (f->cs & 3) == 3; }

/* Debug kernel: the CPU state at kernel entry and exit (entry_checks.c, docs/cpu-state.md). */
#ifdef CONFIG_INVARIANTS
void entry_check_trap(const struct frame *f);
void entry_check_syscall(const struct frame *f);
void exit_check(const struct frame *f);
#else
static inline void entry_check_trap(const struct frame *f) { (void)f; }
static inline void entry_check_syscall(const struct frame *f) { (void)f; }
#endif

_Static_assert(__builtin_offsetof(struct frame, rax) == FR_RAX * 8, "FR_RAX");
_Static_assert(__builtin_offsetof(struct frame, rbp) == FR_RBP * 8, "FR_RBP");
_Static_assert(__builtin_offsetof(struct frame, vector) == FR_VECTOR * 8, "FR_VECTOR");
_Static_assert(__builtin_offsetof(struct frame, rip) == FR_RIP * 8, "FR_RIP");
_Static_assert(__builtin_offsetof(struct frame, ss) == FR_SS * 8, "FR_SS");
_Static_assert(sizeof(struct frame) == (FR_SS + 1) * 8, "struct frame size");
_Static_assert(FRAME_SIZE == ARCH_FRAME_SIZE, "ARCH_FRAME_SIZE (api/arch.h)");
_Static_assert(__builtin_offsetof(struct cpu_local, kstack_top) == CPU_KSTACK_TOP, "CPU_KSTACK_TOP");
_Static_assert(__builtin_offsetof(struct cpu_local, user_rsp) == CPU_USER_RSP, "CPU_USER_RSP");
_Static_assert(__builtin_offsetof(struct cpu_local, current) == CPU_CURRENT, "CPU_CURRENT");
#endif

#endif
