/* Minimal libc for native Pecan programs. */
#ifndef LIBL4_STDLIB_H
#define LIBL4_STDLIB_H

#include <stddef.h>

#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1

unsigned long strtoul(const char *restrict s, char **restrict end, int base);
long strtol(const char *restrict s, char **restrict end, int base);
unsigned long long strtoull(const char *restrict s, char **restrict end, int base);
long long strtoll(const char *restrict s, char **restrict end, int base);
int atoi(const char *s);

/* Enters the kernel debugger, then blocks forever. */
void abort(void) __attribute__((noreturn));
/* Prints "task exited with code N" through the kernel debugger and blocks forever.
 * Weak in libl4: a program may define its own. */
void exit(int code) __attribute__((noreturn));

#endif
