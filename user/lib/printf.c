/* Minimal libc: the printf formatting engine and the string variants.  Plain C with no
 * system dependencies, so tests/host can compile it for the host and compare it with the
 * host's printf. */
#include <stdio.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

enum {
    F_LEFT  = 1 << 0,   /* '-' */
    F_ZERO  = 1 << 1,   /* '0' */
    F_PLUS  = 1 << 2,   /* '+' */
    F_SPACE = 1 << 3,   /* ' ' */
    F_ALT   = 1 << 4,   /* '#' */
};

enum length { LEN_INT, LEN_CHAR, LEN_SHORT, LEN_LONG, LEN_LLONG, LEN_SIZE, LEN_MAX, LEN_PTRDIFF };

struct spec {
    unsigned flags;
    int width;          /* 0: none */
    int prec;           /* -1: none */
};

struct sink {
    void (*out)(int c, void *arg);
    void *arg;
    int count;
};

static void put(struct sink *s, int c)
{
    s->out(c, s->arg);
    s->count++;
}

static void pad(struct sink *s, int c, int n)
{
    while (n-- > 0)
        put(s, c);
}

/* A string of len characters, padded to the field width. */
static void field(struct sink *s, const struct spec *sp, const char *str, int len)
{
    int fill = sp->width > len ? sp->width - len : 0;
    if (!(sp->flags & F_LEFT))
        pad(s, ' ', fill);
    for (int i = 0; i < len; i++)
        put(s, (unsigned char)str[i]);
    if (sp->flags & F_LEFT)
        pad(s, ' ', fill);
}

/* An integer: [sign or 0x prefix][zero padding][digits], padded to the field width. */
static void integer(struct sink *s, const struct spec *sp, unsigned long long v, bool negative,
                    bool is_signed, unsigned base, bool upper, bool force_hex_prefix)
{
    const char *digitset = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    char digits[24];
    int nd = 0;
    bool nonzero = v != 0;

    if (!(v == 0 && sp->prec == 0)) {
        do {
            digits[nd++] = digitset[v % base];
            v /= base;
        } while (v);
    }

    int zeros = sp->prec > nd ? sp->prec - nd : 0;
    if (base == 8 && (sp->flags & F_ALT) && zeros == 0 && (nd == 0 || digits[nd - 1] != '0'))
        zeros = 1;

    char prefix[2];
    int np = 0;
    if (is_signed) {
        if (negative)
            prefix[np++] = '-';
        else if (sp->flags & F_PLUS)
            prefix[np++] = '+';
        else if (sp->flags & F_SPACE)
            prefix[np++] = ' ';
    }
    if (base == 16 && (((sp->flags & F_ALT) && nonzero) || force_hex_prefix)) {
        prefix[np++] = '0';
        prefix[np++] = upper ? 'X' : 'x';
    }

    int len = np + zeros + nd;
    int fill = sp->width > len ? sp->width - len : 0;
    bool zero_fill = (sp->flags & F_ZERO) && !(sp->flags & F_LEFT) && sp->prec < 0;

    if (!(sp->flags & F_LEFT) && !zero_fill)
        pad(s, ' ', fill);
    for (int i = 0; i < np; i++)
        put(s, prefix[i]);
    if (zero_fill)
        pad(s, '0', fill);
    pad(s, '0', zeros);
    while (nd > 0)
        put(s, digits[--nd]);
    if (sp->flags & F_LEFT)
        pad(s, ' ', fill);
}

int l4_vformat(void (*out)(int c, void *arg), void *arg, const char *fmt, va_list ap)
{
    struct sink s = { out, arg, 0 };

    for (; *fmt; fmt++) {
        if (*fmt != '%') {
            put(&s, (unsigned char)*fmt);
            continue;
        }
        const char *start = fmt++;
        struct spec sp = { 0, 0, -1 };

        for (;; fmt++) {
            if (*fmt == '-')      sp.flags |= F_LEFT;
            else if (*fmt == '0') sp.flags |= F_ZERO;
            else if (*fmt == '+') sp.flags |= F_PLUS;
            else if (*fmt == ' ') sp.flags |= F_SPACE;
            else if (*fmt == '#') sp.flags |= F_ALT;
            else break;
        }

        if (*fmt == '*') {
            int w = va_arg(ap, int);
            if (w < 0) {
                sp.flags |= F_LEFT;
                w = -w;
            }
            sp.width = w;
            fmt++;
        } else {
            while (*fmt >= '0' && *fmt <= '9')
                sp.width = sp.width * 10 + (*fmt++ - '0');
        }

        if (*fmt == '.') {
            fmt++;
            sp.prec = 0;
            if (*fmt == '*') {
                int p = va_arg(ap, int);
                sp.prec = p < 0 ? -1 : p;
                fmt++;
            } else {
                while (*fmt >= '0' && *fmt <= '9')
                    sp.prec = sp.prec * 10 + (*fmt++ - '0');
            }
        }

        enum length len = LEN_INT;
        switch (*fmt) {
        case 'h':
            len = LEN_SHORT;
            if (*++fmt == 'h') {
                len = LEN_CHAR;
                fmt++;
            }
            break;
        case 'l':
            len = LEN_LONG;
            if (*++fmt == 'l') {
                len = LEN_LLONG;
                fmt++;
            }
            break;
        case 'z': len = LEN_SIZE; fmt++; break;
        case 'j': len = LEN_MAX; fmt++; break;
        case 't': len = LEN_PTRDIFF; fmt++; break;
        default: break;
        }

        switch (*fmt) {
        case 'd':
        case 'i': {
            long long v;
            switch (len) {
            case LEN_CHAR:    v = (signed char)va_arg(ap, int); break;
            case LEN_SHORT:   v = (short)va_arg(ap, int); break;
            case LEN_LONG:    v = va_arg(ap, long); break;
            case LEN_LLONG:   v = va_arg(ap, long long); break;
            case LEN_SIZE:    v = (long long)va_arg(ap, size_t); break;
            case LEN_MAX:     v = va_arg(ap, intmax_t); break;
            case LEN_PTRDIFF: v = va_arg(ap, ptrdiff_t); break;
            default:          v = va_arg(ap, int); break;
            }
            unsigned long long mag = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
            integer(&s, &sp, mag, v < 0, true, 10, false, false);
            break;
        }
        case 'u':
        case 'x':
        case 'X':
        case 'o': {
            unsigned long long v;
            switch (len) {
            case LEN_CHAR:    v = (unsigned char)va_arg(ap, unsigned); break;
            case LEN_SHORT:   v = (unsigned short)va_arg(ap, unsigned); break;
            case LEN_LONG:    v = va_arg(ap, unsigned long); break;
            case LEN_LLONG:   v = va_arg(ap, unsigned long long); break;
            case LEN_SIZE:    v = va_arg(ap, size_t); break;
            case LEN_MAX:     v = va_arg(ap, uintmax_t); break;
            case LEN_PTRDIFF: v = (unsigned long long)va_arg(ap, ptrdiff_t); break;
            default:          v = va_arg(ap, unsigned); break;
            }
            unsigned base = *fmt == 'u' ? 10 : *fmt == 'o' ? 8 : 16;
            integer(&s, &sp, v, false, false, base, *fmt == 'X', false);
            break;
        }
        case 'p': {
            uintptr_t v = (uintptr_t)va_arg(ap, void *);
            if (v == 0) {
                struct spec plain = { sp.flags, sp.width, -1 };
                field(&s, &plain, "(nil)", 5);
            } else {
                integer(&s, &sp, v, false, false, 16, false, true);
            }
            break;
        }
        case 'c': {
            char c = (char)va_arg(ap, int);
            field(&s, &sp, &c, 1);
            break;
        }
        case 's': {
            const char *str = va_arg(ap, const char *);
            if (str == NULL)
                str = "(null)";
            int n = 0;
            while (str[n] != '\0' && (sp.prec < 0 || n < sp.prec))
                n++;
            field(&s, &sp, str, n);
            break;
        }
        case '%':
            put(&s, '%');
            break;
        default:
            /* Unknown conversion (or the format ends): print the directive as written. */
            for (const char *p = start; p <= fmt && *p; p++)
                put(&s, (unsigned char)*p);
            if (*fmt == '\0')
                fmt--;
            break;
        }
    }
    return s.count;
}

struct strbuf {
    char *buf;
    size_t size;
    size_t pos;
};

static void strbuf_out(int c, void *arg)
{
    struct strbuf *b = arg;
    if (b->pos + 1 < b->size)
        b->buf[b->pos] = (char)c;
    b->pos++;
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
    struct strbuf b = { buf, size, 0 };
    int n = l4_vformat(strbuf_out, &b, fmt, ap);
    if (size > 0)
        buf[b.pos < size ? b.pos : size - 1] = '\0';
    return n;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    return n;
}
