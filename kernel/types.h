/* Kernel-wide basic types and helpers. */
#ifndef TYPES_H
#define TYPES_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdarg.h>

typedef unsigned long word_t;   /* one machine word: 64 bits */
typedef unsigned long paddr_t;  /* physical address */
typedef uint64_t __attribute__((aligned(1))) unaligned_u64;

#define likely(x)      __builtin_expect(!!(x), 1)
#define unlikely(x)    __builtin_expect(!!(x), 0)
#define ARRAY_SIZE(a)  (sizeof(a) / sizeof((a)[0]))
#define ALIGN_UP(x, a)   (((x) + (a) - 1) & ~((word_t)(a) - 1))
#define ALIGN_DOWN(x, a) ((x) & ~((word_t)(a) - 1))
#define MIN(a, b)      ((a) < (b) ? (a) : (b))
#define MAX(a, b)      ((a) > (b) ? (a) : (b))
#define container_of(p, type, member) ((type *)((char *)(p) - offsetof(type, member)))
#define NORETURN       __attribute__((noreturn))
#define PACKED         __attribute__((packed))
#define STATIC_ASSERT(c, m) _Static_assert(c, m)

#define KB(x) ((word_t)(x) << 10)
#define MB(x) ((word_t)(x) << 20)
#define GB(x) ((word_t)(x) << 30)

#endif
