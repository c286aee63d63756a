/* Kernel console: formatted output to the arch's debug serial port. */
#include "console.h"
#include "lib.h"
#include "arch.h"
#include "platform.h"
#include "kdb/kdb.h"

void console_init(void)
{
    arch_serial_init();
}

void console_putc(char c)
{
    if (c == '\n')
        arch_serial_putc('\r');
    arch_serial_putc(c);
}

void console_write(const char *s, size_t n)
{
    while (n--)
        console_putc(*s++);
}

int console_getc(void)
{
    int c;
    while ((c = arch_serial_getc()) < 0)
        arch_cpu_relax();
    return c;
}

int console_getc_nonblock(void)
{
    return arch_serial_getc();
}

static void console_sink(void *ctx, char c)
{
    console_putc(c);
}

void vprintk(const char *fmt, va_list ap)
{
    vformat(console_sink, NULL, fmt, ap);
}

void printk(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintk(fmt, ap);
    va_end(ap);
}

void panic(const char *fmt, ...)
{
    va_list ap;
    arch_irq_disable();
    printk("\nPANIC: ");
    va_start(ap, fmt);
    vprintk(fmt, ap);
    va_end(ap);
    printk("\n");
    kdb_enter("panic", NULL);
    arch_halt_forever();
}
