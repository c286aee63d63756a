/* Host unit test of libl4's small libc (user/lib/printf.c, string.c, strtol.c), compiled
 * for the host with renamed symbols (l4t_*) and compared with the host C library.  Every
 * check prints "ok NAME" or "FAIL NAME: ..."; the exit status is the number of failures. */
#include <stdio.h>
#include <stdarg.h>
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <stdlib.h>
#include <limits.h>
#include <sys/types.h>

int l4t_snprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int l4t_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int l4_vformat(void (*out)(int c, void *arg), void *arg, const char *fmt, va_list ap);

void *l4t_memcpy(void *dst, const void *src, size_t n);
void *l4t_memmove(void *dst, const void *src, size_t n);
void *l4t_memset(void *dst, int c, size_t n);
int l4t_memcmp(const void *a, const void *b, size_t n);
size_t l4t_strlen(const char *s);
size_t l4t_strnlen(const char *s, size_t max);
int l4t_strcmp(const char *a, const char *b);
int l4t_strncmp(const char *a, const char *b, size_t n);
char *l4t_strchr(const char *s, int c);
char *l4t_strrchr(const char *s, int c);
char *l4t_strcpy(char *dst, const char *src);
char *l4t_strncpy(char *dst, const char *src, size_t n);
char *l4t_strstr(const char *h, const char *n);
unsigned long l4t_strtoul(const char *s, char **end, int base);
long l4t_strtol(const char *s, char **end, int base);
unsigned long long l4t_strtoull(const char *s, char **end, int base);
long long l4t_strtoll(const char *s, char **end, int base);
int l4t_atoi(const char *s);

static int failures, checks;

static void check(const char *name, int ok, const char *detail)
{
    checks++;
    if (ok) {
        printf("ok   %s\n", name);
    } else {
        printf("FAIL %s%s%s\n", name, detail ? ": " : "", detail ? detail : "");
        failures++;
    }
}

/* --- printf: compare with the host's snprintf ---------------------------------------- */
static void compare(const char *name, const char *mine, int rmine, const char *host, int rhost)
{
    char detail[600];
    snprintf(detail, sizeof detail, "got \"%s\" (%d), host \"%s\" (%d)", mine, rmine, host, rhost);
    check(name, strcmp(mine, host) == 0 && rmine == rhost, detail);
}

#define CMP(...)                                                                    \
    do {                                                                            \
        char mine_[256], host_[256];                                                \
        int rm_ = l4t_snprintf(mine_, sizeof mine_, __VA_ARGS__);                   \
        int rh_ = snprintf(host_, sizeof host_, __VA_ARGS__);                       \
        compare("printf(" #__VA_ARGS__ ")", mine_, rm_, host_, rh_);                \
    } while (0)

static void expect_fmt(const char *name, const char *want, const char *fmt, ...)
{
    char buf[256], detail[600];
    va_list ap;
    va_start(ap, fmt);
    int r = l4t_vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    snprintf(detail, sizeof detail, "got \"%s\" (%d), want \"%s\"", buf, r, want);
    check(name, strcmp(buf, want) == 0 && r == (int)strlen(want), detail);
}

struct collect { char buf[64]; int n; };
static void collect_out(int c, void *arg)
{
    struct collect *col = arg;
    if (col->n < 63)
        col->buf[col->n++] = (char)c;
    col->buf[col->n] = '\0';
}
static int format_via_callback(struct collect *col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = l4_vformat(collect_out, col, fmt, ap);
    va_end(ap);
    return r;
}

static void test_printf(void)
{
    CMP("plain text");
    CMP("%d|%d|%d|%d|%d", 0, 42, -42, INT_MAX, INT_MIN);
    CMP("%i|%i", 7, -7);
    /* '0' is ignored with '-' and with a precision (ISO C); gcc warns about such literal
     * formats, so these go through a variable. */
    const char *zero_minus = "%5d|%-5d|%05d|%-05d|";
    const char *zero_prec = "%.3d|%.0d|%.0d|%8.3d|%-8.3d|%08.3d|%08.3x|";
    CMP(zero_minus, 42, 42, -42, -42);
    CMP(zero_prec, 7, 0, 1, -7, 7, 7, 0xAu);
    CMP("%+d|% d|%+d|% d|%+5d|% 05d", 5, 5, -5, -5, 3, 3);
    CMP("%u|%lu|%llu", UINT_MAX, ULONG_MAX, ULLONG_MAX);
    CMP("%ld|%lld|%ld|%lld", LONG_MIN, LLONG_MIN, LONG_MAX, LLONG_MAX);
    CMP("%x|%X|%#x|%#X|%o|%#o", 255u, 255u, 255u, 255u, 8u, 8u);
    CMP("%#x|%#o|%#.0o|%.0x|%#.3o|", 0u, 0u, 0u, 0u, 8u);
    CMP("%#010x|%#-10x|%010x|%-#10X|", 255u, 255u, 255u, 255u);
    CMP("%lx|%llX|%#lo", 0xDEADBEEFCAFEBABEul, 0x0123456789ABCDEFull, 0777ul);
    CMP("%hhd|%hhu|%hhx|%hd|%hu|%hx", 300, 256, 0x1FF, 70000, -1, 0x12345);
    CMP("%zu|%zd|%zx", (size_t)-1, (ssize_t)-5, (size_t)0x1234);
    CMP("%jd|%ju|%td|%tx", (intmax_t)-1, (uintmax_t)UINTMAX_MAX, (ptrdiff_t)-3, (ptrdiff_t)0x40);
    CMP("%c|%3c|%-3c|%c", 'a', 'b', 'c', 0x41);
    CMP("%s|%10s|%-10s|%.2s|%10.3s|%-10.3s|%.0s|", "hello", "hello", "hello", "hello", "hello", "hello", "hello");
    CMP("%s|%s", "", "x");
    CMP("%p|%20p|%-20p|", (void *)0x1234, (void *)0xFFFF800000001000ul, (void *)0x10);
    CMP("%p|%10p|", (void *)0, (void *)0);
    CMP("%%|100%%|%d%%", 5);
    CMP("%*d|%-*d|%.*d|%*.*s|", 5, 42, 5, 42, 3, 7, 6, 2, "abc");
    CMP("%*d|%.*d|%.*s|", -5, 42, -1, 42, -1, "abc");
    CMP("%5.2d|%-6.4x|%+.3d", 3, 0xAu, 9);
    CMP("%d %s %x %c %u %ld", -1, "mix", 0xABCu, 'z', 12u, -123456789012l);

    /* Truncation and return value */
    char buf[16];
    int r = l4t_snprintf(buf, 5, "%s", "hello world");
    check("snprintf truncates to size-1 and returns the full length", r == 11 && strcmp(buf, "hell") == 0, NULL);
    r = l4t_snprintf(NULL, 0, "%d", 12345);
    check("snprintf(NULL, 0) returns the length", r == 5, NULL);
    memset(buf, 'x', sizeof buf);
    r = l4t_snprintf(buf, 1, "abc");
    check("snprintf with size 1 writes only the terminator", r == 3 && buf[0] == '\0' && buf[1] == 'x', NULL);
    memset(buf, 'x', sizeof buf);
    r = l4t_snprintf(buf, 4, "abc");
    check("snprintf exact fit", r == 3 && strcmp(buf, "abc") == 0, NULL);
    memset(buf, 'x', sizeof buf);
    r = l4t_snprintf(buf, 0, "abc");
    check("snprintf with size 0 writes nothing", r == 3 && buf[0] == 'x', NULL);

    /* Our own choices, not compared with the host */
    const char *unknown = "a%qb";     /* non-literal format: no -Wformat */
    expect_fmt("unknown conversion printed as written", "a%qb", unknown);
    const char *trailing = "abc%";
    expect_fmt("trailing '%' printed", "abc%", trailing);
    const char *nullstr = "%s";
    expect_fmt("NULL string", "(null)", nullstr, (char *)NULL);

    struct collect col = { "", 0 };
    r = format_via_callback(&col, "[%s:%03d]", "cb", 7);
    check("l4_vformat calls the output function per character", r == 8 && strcmp(col.buf, "[cb:007]") == 0, col.buf);
}

/* --- string.h ------------------------------------------------------------------------ */
static int sign(int v) { return (v > 0) - (v < 0); }

static void test_string(void)
{
    char a[64], b[64];
    for (int i = 0; i < 64; i++)
        a[i] = (char)i;

    memset(b, 0, sizeof b);
    check("memcpy returns dst", l4t_memcpy(b, a, 40) == b, NULL);
    check("memcpy copies", memcmp(a, b, 40) == 0 && b[40] == 0, NULL);
    check("memcpy 0 bytes", l4t_memcpy(b, a, 0) == b, NULL);

    char m[64], ref[64];
    for (int i = 0; i < 64; i++)
        m[i] = ref[i] = (char)('A' + i % 26);
    memmove(ref + 5, ref, 30);
    check("memmove overlapping forward (dst > src)", l4t_memmove(m + 5, m, 30) == m + 5 && memcmp(m, ref, 64) == 0, NULL);
    for (int i = 0; i < 64; i++)
        m[i] = ref[i] = (char)('a' + i % 26);
    memmove(ref, ref + 7, 40);
    l4t_memmove(m, m + 7, 40);
    check("memmove overlapping backward (dst < src)", memcmp(m, ref, 64) == 0, NULL);
    l4t_memmove(m, m, 10);
    check("memmove onto itself", memcmp(m, ref, 64) == 0, NULL);
    l4t_memmove(m + 1, m, 0);
    check("memmove 0 bytes", memcmp(m, ref, 64) == 0, NULL);

    memset(b, 0x55, sizeof b);
    check("memset returns dst", l4t_memset(b + 1, 0x1AB, 10) == b + 1, NULL);
    check("memset fills with (unsigned char)c", b[0] == 0x55 && (unsigned char)b[1] == 0xAB &&
          (unsigned char)b[10] == 0xAB && b[11] == 0x55, NULL);

    check("memcmp equal", l4t_memcmp("abc", "abc", 3) == 0, NULL);
    check("memcmp less (unsigned bytes)", l4t_memcmp("a\x01", "a\xff", 2) < 0, NULL);
    check("memcmp greater", l4t_memcmp("b", "a", 1) > 0, NULL);
    check("memcmp 0 bytes", l4t_memcmp("a", "b", 0) == 0, NULL);

    check("strlen", l4t_strlen("hello") == 5 && l4t_strlen("") == 0, NULL);
    check("strnlen", l4t_strnlen("hello", 3) == 3 && l4t_strnlen("hi", 10) == 2 && l4t_strnlen("x", 0) == 0, NULL);

    const char *pairs[][2] = { { "abc", "abc" }, { "abc", "abd" }, { "abd", "abc" }, { "ab", "abc" },
                               { "abc", "ab" }, { "", "" }, { "\xff", "a" }, { "a", "\xff" } };
    int bad = 0;
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        bad += sign(l4t_strcmp(pairs[i][0], pairs[i][1])) != sign(strcmp(pairs[i][0], pairs[i][1]));
        for (size_t n = 0; n < 5; n++)
            bad += sign(l4t_strncmp(pairs[i][0], pairs[i][1], n)) != sign(strncmp(pairs[i][0], pairs[i][1], n));
    }
    check("strcmp/strncmp signs agree with the host", bad == 0, NULL);

    const char *s = "hello world";
    check("strchr", l4t_strchr(s, 'o') == s + 4 && l4t_strchr(s, 'z') == NULL && l4t_strchr(s, '\0') == s + 11, NULL);
    check("strrchr", l4t_strrchr(s, 'o') == s + 7 && l4t_strrchr(s, 'z') == NULL && l4t_strrchr(s, '\0') == s + 11, NULL);

    check("strcpy", l4t_strcpy(b, "copy me") == b && strcmp(b, "copy me") == 0, NULL);
    memset(b, 'x', sizeof b);
    l4t_strncpy(b, "ab", 5);
    check("strncpy pads with NULs", memcmp(b, "ab\0\0\0x", 6) == 0, NULL);
    memset(b, 'x', sizeof b);
    l4t_strncpy(b, "abcdef", 3);
    check("strncpy truncates without terminator", memcmp(b, "abcx", 4) == 0, NULL);

    check("strstr", l4t_strstr(s, "wor") == s + 6 && l4t_strstr(s, "") == s && l4t_strstr(s, "xyz") == NULL &&
          l4t_strstr(s, "hello world!") == NULL && l4t_strstr("aaab", "aab") != NULL, NULL);
}

/* --- strtol family: compare with the host -------------------------------------------- */
static void test_strtol(void)
{
    const char *inputs[] = { "0", "42", "  42", "\t\n-42", "+7", "-0", "0x1F", "0X1f", "017", "0x", "0xg",
                             "zzz", "", "123abc", "7fffffffffffffff", "8000000000000000", "ffffffffffffffff",
                             "10000000000000000", "9223372036854775807", "9223372036854775808",
                             "-9223372036854775808", "-9223372036854775809", "18446744073709551615",
                             "18446744073709551616", "-1", "1012", "Zz", "  -0x10", "- 5", "08", "0b11" };
    const int bases[] = { 0, 2, 8, 10, 16, 36 };
    int bad_ul = 0, bad_l = 0, bad_ull = 0, bad_ll = 0;
    char detail[200] = "";

    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
        for (size_t j = 0; j < sizeof bases / sizeof bases[0]; j++) {
            const char *in = inputs[i];
            int base = bases[j];
            char *e1, *e2;
            unsigned long u1 = l4t_strtoul(in, &e1, base), u2 = strtoul(in, &e2, base);
            if (u1 != u2 || e1 != e2) {
                if (!bad_ul++)
                    snprintf(detail, sizeof detail, "strtoul(\"%s\", %d): %lu/+%td vs %lu/+%td", in, base,
                             u1, e1 - in, u2, e2 - in);
            }
            long l1 = l4t_strtol(in, &e1, base), l2 = strtol(in, &e2, base);
            if (l1 != l2 || e1 != e2) {
                if (!bad_l++)
                    snprintf(detail, sizeof detail, "strtol(\"%s\", %d): %ld/+%td vs %ld/+%td", in, base,
                             l1, e1 - in, l2, e2 - in);
            }
            unsigned long long q1 = l4t_strtoull(in, &e1, base), q2 = strtoull(in, &e2, base);
            bad_ull += q1 != q2 || e1 != e2;
            long long r1 = l4t_strtoll(in, &e1, base), r2 = strtoll(in, &e2, base);
            bad_ll += r1 != r2 || e1 != e2;
        }
    }
    check("strtoul agrees with the host (values and end pointers)", bad_ul == 0, detail);
    check("strtol agrees with the host (values and end pointers)", bad_l == 0, detail);
    check("strtoull agrees with the host", bad_ull == 0, NULL);
    check("strtoll agrees with the host", bad_ll == 0, NULL);
    check("strtoul with end == NULL", l4t_strtoul("99", NULL, 10) == 99, NULL);
    check("atoi", l4t_atoi("  -123x") == -123 && l4t_atoi("abc") == 0, NULL);
    char *end;
    check("invalid base", l4t_strtoul("12", &end, 1) == 0 && *end == '1', NULL);
}

int main(void)
{
    test_printf();
    test_string();
    test_strtol();
    printf("%d checks, %d failed\n", checks, failures);
    return failures > 100 ? 100 : failures;
}
