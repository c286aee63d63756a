/* x86-64 instructions, control registers and MSRs as inline functions. */
#ifndef X86_H
#define X86_H

#include "types.h"

#define MSR_EFER            0xC0000080
#define MSR_STAR            0xC0000081
#define MSR_LSTAR           0xC0000082
#define MSR_SFMASK          0xC0000084
#define MSR_FS_BASE         0xC0000100
#define MSR_GS_BASE         0xC0000101
#define MSR_KERNEL_GS_BASE  0xC0000102
#define MSR_APIC_BASE       0x1B
#define MSR_SYSENTER_CS     0x174
#define MSR_SYSENTER_ESP    0x175
#define MSR_SYSENTER_EIP    0x176
#define MSR_PAT             0x277
#define MSR_TSC_DEADLINE    0x6E0

#define EFER_SCE   (1ul << 0)
#define EFER_LME   (1ul << 8)
#define EFER_NXE   (1ul << 11)

#define CR0_PE     (1ul << 0)
#define CR0_MP     (1ul << 1)
#define CR0_EM     (1ul << 2)
#define CR0_TS     (1ul << 3)
#define CR0_NE     (1ul << 5)
#define CR0_WP     (1ul << 16)
#define CR0_PG     (1ul << 31)

#define CR4_VME        (1ul << 0)
#define CR4_PVI        (1ul << 1)
#define CR4_TSD        (1ul << 2)
#define CR4_DE         (1ul << 3)
#define CR4_PAE        (1ul << 5)
#define CR4_MCE        (1ul << 6)
#define CR4_PGE        (1ul << 7)
#define CR4_PCE        (1ul << 8)
#define CR4_OSFXSR     (1ul << 9)
#define CR4_OSXMMEXCPT (1ul << 10)
#define CR4_UMIP       (1ul << 11)
#define CR4_FSGSBASE   (1ul << 16)
#define CR4_PCIDE      (1ul << 17)
#define CR4_OSXSAVE    (1ul << 18)
#define CR4_SMEP       (1ul << 20)
#define CR4_SMAP       (1ul << 21)
#define CR4_PKE        (1ul << 22)
#define CR4_CET        (1ul << 23)

#define RFLAGS_CF  (1ul << 0)
#define RFLAGS_FIXED (1ul << 1)     /* reads as 1 */
#define RFLAGS_TF  (1ul << 8)
#define RFLAGS_IF  (1ul << 9)
#define RFLAGS_DF  (1ul << 10)
#define RFLAGS_IOPL (3ul << 12)
#define RFLAGS_NT  (1ul << 14)
#define RFLAGS_RF  (1ul << 16)
#define RFLAGS_VM  (1ul << 17)
#define RFLAGS_AC  (1ul << 18)
#define RFLAGS_VIF (1ul << 19)
#define RFLAGS_VIP (1ul << 20)
#define RFLAGS_ID  (1ul << 21)
/* The bits a CPL-3 program can hold at all: the arithmetic flags, TF, IF (always 1), DF, NT,
 * RF (the CPU sets it in fault frames), AC, ID, and bit 1.  IOPL, VM, VIF and VIP stay 0. */
#define RFLAGS_CPL3_POSSIBLE (0x8D5ul | RFLAGS_FIXED | RFLAGS_TF | RFLAGS_IF | RFLAGS_DF | \
                              RFLAGS_NT | RFLAGS_RF | RFLAGS_AC | RFLAGS_ID)
/* The RFLAGS bits user code may set through ExchangeRegisters/exception replies (contract §4.4.2). */
#define RFLAGS_USER_MASK 0x8D5ul
#define RFLAGS_USER_DEFAULT 0x202ul

static inline void outb(uint16_t port, uint8_t v)  { __asm__ volatile("outb %0, %1" :: "a"(v), "Nd"(port)); }
static inline void outw(uint16_t port, uint16_t v) { __asm__ volatile("outw %0, %1" :: "a"(v), "Nd"(port)); }
static inline void outl(uint16_t port, uint32_t v) { __asm__ volatile("outl %0, %1" :: "a"(v), "Nd"(port)); }
static inline uint8_t inb(uint16_t port)  { uint8_t v;  __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port)); return v; }
static inline uint16_t inw(uint16_t port) { uint16_t v; __asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"(port)); return v; }
static inline uint32_t inl(uint16_t port) { uint32_t v; __asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port)); return v; }

static inline uint64_t rdmsr(uint32_t msr)
{
    uint32_t lo, hi;
    __asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
    return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
    __asm__ volatile("wrmsr" :: "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)) : "memory");
}

static inline uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

static inline void cpuid(uint32_t leaf, uint32_t sub, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d)
{
    __asm__ volatile("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(sub));
}

#define DEFINE_CR(n) \
    static inline word_t read_cr##n(void) { word_t v; __asm__ volatile("mov %%cr" #n ", %0" : "=r"(v)); return v; } \
    static inline void write_cr##n(word_t v) { __asm__ volatile("mov %0, %%cr" #n :: "r"(v) : "memory"); }
DEFINE_CR(0)
DEFINE_CR(2)
DEFINE_CR(3)
DEFINE_CR(4)
#undef DEFINE_CR

static inline void invlpg(word_t va) { __asm__ volatile("invlpg (%0)" :: "r"(va) : "memory"); }

static inline void invpcid(unsigned type, word_t pcid, word_t va)
{
    struct { uint64_t pcid, va; } desc = { pcid, va };
    __asm__ volatile("invpcid %0, %1" :: "m"(desc), "r"((word_t)type) : "memory");
}

static inline word_t read_rflags(void)
{
    word_t f;
    __asm__ volatile("pushfq; popq %0" : "=r"(f));
    return f;
}

static inline void xsetbv(uint32_t reg, uint64_t v)
{
    __asm__ volatile("xsetbv" :: "c"(reg), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)));
}

#endif
