/* The console device below the tty (console.c; docs/linux/tty.md): the serial driver with
 * lx's input thread (`console=serial`), or lx's own printf path. */
#ifndef LX_TTY_CONSOLE_H
#define LX_TTY_CONSOLE_H

#include <libl4.h>
#include <stdbool.h>
#include <stddef.h>

void console_init(void);                /* lx's start: `console=serial` selects the driver */
bool console_has_input(void);           /* false: the printf console, reads give EOF */
bool console_is_input(l4_word_t from);  /* a message from the input thread? */
bool console_input(l4_word_t tag);      /* serve it: true if the MRs hold the reply */
void console_write(const char *buf, size_t n);

#endif
