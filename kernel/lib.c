/* Freestanding library routines used by the kernel. */
#include "lib.h"

void *memmove(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (d <= s || d >= s + n)
        return memcpy(dst, src, n);
    while (n--)
        d[n] = s[n];
    return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;
    for (; n; n--, x++, y++)
        if (*x != *y)
            return *x - *y;
    return 0;
}

size_t strlen(const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}

int strcmp(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
    for (; n; n--, a++, b++) {
        if (*a != *b)
            return (unsigned char)*a - (unsigned char)*b;
        if (!*a)
            return 0;
    }
    return 0;
}

char *strstr(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (!strncmp(hay, needle, n))
            return (char *)hay;
    return n ? NULL : (char *)hay;
}

word_t strtoul(const char *s, const char **end, int base)
{
    word_t v = 0;
    if ((base == 0 || base == 16) && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s += 2;
        base = 16;
    } else if (base == 0) {
        base = 10;
    }
    for (;; s++) {
        int d;
        if (*s >= '0' && *s <= '9')      d = *s - '0';
        else if (*s >= 'a' && *s <= 'z') d = *s - 'a' + 10;
        else if (*s >= 'A' && *s <= 'Z') d = *s - 'A' + 10;
        else break;
        if (d >= base)
            break;
        v = v * base + d;
    }
    if (end)
        *end = s;
    return v;
}

/* printf subset: %d %i %u %x %X %p %s %c %%, flags '-' '0', width, precision for %s,
 * length modifiers l, ll, z. */
static void emit_num(putc_fn out, void *ctx, word_t v, bool neg, int base, bool upper,
                     int width, bool zero, bool left)
{
    char buf[24];
    int n = 0;
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    do {
        buf[n++] = digits[v % base];
        v /= base;
    } while (v);
    int len = n + (neg ? 1 : 0);
    if (!left && !zero)
        for (; width > len; width--)
            out(ctx, ' ');
    if (neg)
        out(ctx, '-');
    if (!left && zero)
        for (; width > len; width--)
            out(ctx, '0');
    while (n)
        out(ctx, buf[--n]);
    if (left)
        for (; width > len; width--)
            out(ctx, ' ');
}

void vformat(putc_fn out, void *ctx, const char *fmt, va_list ap)
{
    for (; *fmt; fmt++) {
        if (*fmt != '%') {
            out(ctx, *fmt);
            continue;
        }
        fmt++;
        bool left = false, zero = false;
        for (;; fmt++) {
            if (*fmt == '-') left = true;
            else if (*fmt == '0') zero = true;
            else break;
        }
        int width = 0, prec = -1;
        while (*fmt >= '0' && *fmt <= '9')
            width = width * 10 + (*fmt++ - '0');
        if (*fmt == '.') {
            prec = 0;
            for (fmt++; *fmt >= '0' && *fmt <= '9'; fmt++)
                prec = prec * 10 + (*fmt - '0');
        }
        int lng = 0;
        while (*fmt == 'l' || *fmt == 'z') {
            lng++;
            fmt++;
        }
        switch (*fmt) {
        case 'd': case 'i': {
            long v = lng ? va_arg(ap, long) : va_arg(ap, int);
            emit_num(out, ctx, v < 0 ? -(word_t)v : (word_t)v, v < 0, 10, false, width, zero, left);
            break;
        }
        case 'u': case 'x': case 'X': {
            word_t v = lng ? va_arg(ap, unsigned long) : va_arg(ap, unsigned int);
            emit_num(out, ctx, v, false, *fmt == 'u' ? 10 : 16, *fmt == 'X', width, zero, left);
            break;
        }
        case 'p':
            out(ctx, '0');
            out(ctx, 'x');
            emit_num(out, ctx, (word_t)va_arg(ap, void *), false, 16, false, 16, true, false);
            break;
        case 's': {
            const char *s = va_arg(ap, const char *);
            if (!s)
                s = "(null)";
            int len = 0;
            while (s[len] && (prec < 0 || len < prec))
                len++;
            if (!left)
                for (int i = len; i < width; i++)
                    out(ctx, ' ');
            for (int i = 0; i < len; i++)
                out(ctx, s[i]);
            if (left)
                for (int i = len; i < width; i++)
                    out(ctx, ' ');
            break;
        }
        case 'c':
            out(ctx, (char)va_arg(ap, int));
            break;
        case '%':
            out(ctx, '%');
            break;
        default:
            out(ctx, '%');
            if (*fmt)
                out(ctx, *fmt);
            else
                fmt--;
        }
    }
}

struct bufctx {
    char *buf;
    size_t size, pos;
};

static void buf_putc(void *ctx, char c)
{
    struct bufctx *b = ctx;
    if (b->pos + 1 < b->size)
        b->buf[b->pos] = c;
    b->pos++;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
    struct bufctx b = { buf, size, 0 };
    va_list ap;
    va_start(ap, fmt);
    vformat(buf_putc, &b, fmt, ap);
    va_end(ap);
    if (size)
        buf[b.pos < size ? b.pos : size - 1] = 0;
    return (int)b.pos;
}
