/* Freestanding library routines used by the kernel. */
#ifndef LIB_H
#define LIB_H

#include "types.h"

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int   memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
int   strcmp(const char *a, const char *b);
int   strncmp(const char *a, const char *b, size_t n);
char *strstr(const char *hay, const char *needle);
word_t strtoul(const char *s, const char **end, int base);

/* Formatting: the core writes characters through a sink. */
typedef void (*putc_fn)(void *ctx, char c);
void vformat(putc_fn out, void *ctx, const char *fmt, va_list ap);
int  snprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
