/* The console of Linux processes: fd 1 and 2 go to lx's own output (libl4's printf path,
 * the kernel console on COM1), as every other server's messages do.  One byte stream on the
 * serial line, so the tests read process output and lx's messages in order.  A tty on the
 * user-level serial driver (issue 8 item 5) replaces this later. */
#include "lx.h"
#include <stdio.h>

void console_write(const char *buf, size_t n)
{
    for (size_t i = 0; i < n; i++)
        putchar((unsigned char)buf[i]);
}
