/* Minimal libc: number parsing (strtoul and friends, ISO C semantics; out-of-range values
 * saturate, there is no errno). */
#include <stdlib.h>
#include <stdbool.h>
#include <limits.h>

static bool is_space(int c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

static int digit_value(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'z') return c - 'a' + 10;
    if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
    return 99;
}

/* Parses [space][sign][prefix]digits; returns the magnitude (saturated at ULLONG_MAX, with
 * *overflow set), *negative for a '-' sign.  *end = s if there are no digits. */
static unsigned long long parse(const char *s, char **end, int base, bool *negative, bool *overflow)
{
    const char *p = s;
    unsigned long long v = 0;
    bool any = false;

    *negative = false;
    *overflow = false;
    if (base < 0 || base == 1 || base > 36) {
        if (end)
            *end = (char *)s;
        return 0;
    }
    while (is_space((unsigned char)*p))
        p++;
    if (*p == '+' || *p == '-')
        *negative = *p++ == '-';
    if ((base == 0 || base == 16) && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
        digit_value((unsigned char)p[2]) < 16) {
        p += 2;
        base = 16;
    } else if (base == 0) {
        base = p[0] == '0' ? 8 : 10;
    }
    for (int d; (d = digit_value((unsigned char)*p)) < base; p++) {
        any = true;
        if (v > (ULLONG_MAX - (unsigned)d) / (unsigned)base) {
            *overflow = true;
            v = ULLONG_MAX;
        } else if (!*overflow) {
            v = v * (unsigned)base + (unsigned)d;
        }
    }
    if (end)
        *end = (char *)(any ? p : s);
    return any ? v : 0;
}

unsigned long long strtoull(const char *restrict s, char **restrict end, int base)
{
    bool neg, ovf;
    unsigned long long v = parse(s, end, base, &neg, &ovf);
    if (ovf)
        return ULLONG_MAX;
    return neg ? 0ull - v : v;
}

long long strtoll(const char *restrict s, char **restrict end, int base)
{
    bool neg, ovf;
    unsigned long long v = parse(s, end, base, &neg, &ovf);
    if (neg)
        return (ovf || v > (unsigned long long)LLONG_MAX + 1) ? LLONG_MIN : (long long)(0ull - v);
    return (ovf || v > (unsigned long long)LLONG_MAX) ? LLONG_MAX : (long long)v;
}

unsigned long strtoul(const char *restrict s, char **restrict end, int base)
{
    return strtoull(s, end, base);
}

long strtol(const char *restrict s, char **restrict end, int base)
{
    return strtoll(s, end, base);
}

int atoi(const char *s)
{
    return (int)strtol(s, NULL, 10);
}
