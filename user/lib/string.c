/* Minimal libc: string and memory functions.  memcpy/memset/memmove use the string
 * instructions, so the compiler cannot turn them into calls to themselves; eight bytes per
 * step (movsq/stosq) and the odd bytes after, as Linux's copy_page and glibc do: a page is
 * 512 steps, not 4096 (under TCG, and so in guest instructions, every step counts). */
#include <string.h>
#include <stdint.h>

/* Forwards, [d, d + n) from [s, s + n). */
static void copy_forwards(void *d, const void *s, size_t n)
{
    size_t q = n / 8, b = n % 8;
    __asm__ volatile("rep movsq\n\tmov %3, %%rcx\n\trep movsb"
                     : "+D"(d), "+S"(s), "+c"(q) : "r"(b) : "memory");
}

void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    copy_forwards(dst, src, n);
    return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
    if ((uintptr_t)dst - (uintptr_t)src >= n) {
        /* dst below src, or no overlap: copy forwards (by eight bytes is safe too: each
         * word is read before the word that overlaps it is written). */
        copy_forwards(dst, src, n);
    } else if (n > 0) {
        /* dst overlaps the tail of src: copy backwards (DF is restored at once). */
        char *d = (char *)dst + n - 1;
        const char *s = (const char *)src + n - 1;
        __asm__ volatile("std\n\trep movsb\n\tcld" : "+D"(d), "+S"(s), "+c"(n) : : "memory", "cc");
    }
    return dst;
}

void *memset(void *dst, int c, size_t n)
{
    void *d = dst;
    size_t q = n / 8, b = n % 8;
    uint64_t v = (uint8_t)c * 0x0101010101010101ull;
    __asm__ volatile("rep stosq\n\tmov %3, %%rcx\n\trep stosb"
                     : "+D"(d), "+c"(q), "+a"(v) : "r"(b) : "memory");
    return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
    const unsigned char *p = a, *q = b;
    for (size_t i = 0; i < n; i++) {
        if (p[i] != q[i])
            return p[i] < q[i] ? -1 : 1;
    }
    return 0;
}

void *memchr(const void *s, int c, size_t n)
{
    const unsigned char *p = s;
    for (size_t i = 0; i < n; i++)
        if (p[i] == (unsigned char)c)
            return (void *)(p + i);
    return NULL;
}

size_t strlen(const char *s)
{
    size_t n = 0;
    while (s[n] != '\0')
        n++;
    return n;
}

size_t strnlen(const char *s, size_t max)
{
    size_t n = 0;
    while (n < max && s[n] != '\0')
        n++;
    return n;
}

int strcmp(const char *a, const char *b)
{
    const unsigned char *p = (const unsigned char *)a, *q = (const unsigned char *)b;
    while (*p != '\0' && *p == *q) {
        p++;
        q++;
    }
    return *p < *q ? -1 : *p > *q ? 1 : 0;
}

int strncmp(const char *a, const char *b, size_t n)
{
    const unsigned char *p = (const unsigned char *)a, *q = (const unsigned char *)b;
    for (; n > 0; n--, p++, q++) {
        if (*p != *q)
            return *p < *q ? -1 : 1;
        if (*p == '\0')
            break;
    }
    return 0;
}

char *strchr(const char *s, int c)
{
    for (;; s++) {
        if (*s == (char)c)
            return (char *)s;
        if (*s == '\0')
            return NULL;
    }
}

char *strrchr(const char *s, int c)
{
    const char *last = NULL;
    for (;; s++) {
        if (*s == (char)c)
            last = s;
        if (*s == '\0')
            return (char *)last;
    }
}

char *strcpy(char *restrict dst, const char *restrict src)
{
    char *d = dst;
    while ((*d++ = *src++) != '\0')
        ;
    return dst;
}

char *strncpy(char *restrict dst, const char *restrict src, size_t n)
{
    size_t i = 0;
    for (; i < n && src[i] != '\0'; i++)
        dst[i] = src[i];
    for (; i < n; i++)
        dst[i] = '\0';
    return dst;
}

char *strstr(const char *haystack, const char *needle)
{
    size_t n = strlen(needle);
    if (n == 0)
        return (char *)haystack;
    for (; *haystack != '\0'; haystack++) {
        if (*haystack == *needle && strncmp(haystack, needle, n) == 0)
            return (char *)haystack;
    }
    return NULL;
}
