/* Kernel console: debug output on the serial line (and read while in the debugger). */
#ifndef CONSOLE_H
#define CONSOLE_H

#include "types.h"

void console_init(void);
void console_putc(char c);
void console_write(const char *s, size_t n);
int  console_getc(void);          /* blocking */
int  console_getc_nonblock(void); /* -1 if none */
void printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void vprintk(const char *fmt, va_list ap);
NORETURN void panic(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
