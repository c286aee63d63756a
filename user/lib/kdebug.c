/* libl4: kernel-debugger helpers that are not inline. */
#include <libl4/kdebug.h>

/* KDB_Enter takes the message address as an imm32 in the instruction stream, so a message
 * that is not a literal is copied here first. */
static char kdb_message[256];

void l4_kdb_enter(const char *msg)
{
    unsigned i = 0;
    if (msg) {
        for (; i < sizeof kdb_message - 1 && msg[i] != '\0'; i++)
            kdb_message[i] = msg[i];
    }
    kdb_message[i] = '\0';
    L4_KDB_ENTER(kdb_message);
}

void l4lib_kdb_putc_hook(int c)
{
    l4_kdb_putc(c);
}
