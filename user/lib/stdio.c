/* Minimal libc: console output through a replaceable hook. */
#include <stdio.h>
#include <libl4/kdebug.h>

void (*l4_putc_hook)(int c) = l4lib_kdb_putc_hook;

static void hook_out(int c, void *arg)
{
    (void)arg;
    l4_putc_hook(c);
}

int vprintf(const char *fmt, va_list ap)
{
    return l4_vformat(hook_out, NULL, fmt, ap);
}

int printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vprintf(fmt, ap);
    va_end(ap);
    return n;
}

int putchar(int c)
{
    l4_putc_hook((unsigned char)c);
    return (unsigned char)c;
}

int puts(const char *s)
{
    while (*s)
        l4_putc_hook((unsigned char)*s++);
    l4_putc_hook('\n');
    return 1;
}
