/* The kernel's memcpy and memset: x86 string instructions (declared in lib.h). */
#include "lib.h"

/* Quadwords first, then the tail: as fast as byte moves on current CPUs, and an eighth of
 * the iterations where each iteration is counted (TCG -icount, docs/performance.md). */
void *memcpy(void *dst, const void *src, size_t n)
{
    void *ret = dst;
    size_t q = n >> 3, r = n & 7;
    __asm__ volatile("rep movsq" : "+D"(dst), "+S"(src), "+c"(q) : : "memory");
    __asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(r) : : "memory");
    return ret;
}

void *memset(void *dst, int c, size_t n)
{
    void *ret = dst;
    size_t q = n >> 3, r = n & 7;
    uint64_t v = (uint8_t)c * 0x0101010101010101ull;
    __asm__ volatile("rep stosq" : "+D"(dst), "+c"(q) : "a"(v) : "memory");
    __asm__ volatile("rep stosb" : "+D"(dst), "+c"(r) : "a"(v) : "memory");
    return ret;
}
