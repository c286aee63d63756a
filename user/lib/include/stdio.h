/* Minimal libc for native Pecan programs: formatted output.
 * Supported conversions: d i u x X o c s p %, flags - 0 + space #, width and precision
 * (also as *), length modifiers hh h l ll z j t.  No floating point. */
#ifndef LIBL4_STDIO_H
#define LIBL4_STDIO_H

#include <stddef.h>
#include <stdarg.h>

#define EOF (-1)

/* Where printf/puts/putchar write; default: the kernel debugger's putc (l4_kdb_putc).
 * Replace it, e.g. with a serial driver's output function. */
extern void (*l4_putc_hook)(int c);

int printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int vprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
int snprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));
int puts(const char *s);
int putchar(int c);

/* The formatting engine: calls out(c, arg) for every character, returns the count. */
int l4_vformat(void (*out)(int c, void *arg), void *arg, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

#endif
