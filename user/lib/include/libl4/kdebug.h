/* libl4: kernel-debugger conventions (contract §6.8): int3 followed by a marker. */
#ifndef LIBL4_KDEBUG_H
#define LIBL4_KDEBUG_H

#include <l4/types.h>

/* CC 3C 00: print the low byte of RAX. */
static inline void l4_kdb_putc(int c)
{
    __asm__ volatile("int3\n\tcmpb $0, %%al" : : "a"((l4_word_t)(unsigned char)c) : "memory", "cc");
}

/* CC 3C 01: print the NUL-terminated string at RAX. */
static inline void l4_kdb_puts(const char *s)
{
    __asm__ volatile("int3\n\tcmpb $1, %%al" : : "a"(s) : "memory", "cc");
}

/* CC 3C 0D: wait for a console character. */
static inline int l4_kdb_getc(void)
{
    l4_word_t c;
    __asm__ volatile("int3\n\tcmpb $13, %%al" : "=a"(c) : : "memory", "cc");
    return (int)(c & 0xFF);
}

/* CC 3C 08: the next console character, or -1 if there is none (the kernel returns ~0). */
static inline int l4_kdb_getc_nonblock(void)
{
    l4_word_t c;
    __asm__ volatile("int3\n\tcmpb $8, %%al" : "=a"(c) : : "memory", "cc");
    return c == ~0ull ? -1 : (int)(c & 0xFF);
}

/* CC EB 07 48 C7 C0 <imm32>: print the string at the sign-extended imm32 address and enter
 * the debugger.  L4_KDB_ENTER takes a string literal (its address becomes the immediate,
 * which needs a program linked below 2 GB); l4_kdb_enter takes any string and copies it
 * into a static buffer first (not reentrant; long messages are truncated). */
#define L4_KDB_ENTER(literal)                                                     \
    __asm__ volatile("int3\n\t"                                                   \
                     "jmp 1f\n\t"                                                 \
                     "movq $%c0, %%rax\n"                                         \
                     "1:" : : "i"(literal) : "rax", "memory", "cc")
void l4_kdb_enter(const char *msg);

/* Default output hook of printf (l4_putc_hook). */
void l4lib_kdb_putc_hook(int c);

#endif
