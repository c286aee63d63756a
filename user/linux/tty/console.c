/* The console device under the tty (tty.c): where the bytes of the Linux console go and
 * where they come from (docs/linux/tty.md).
 *
 * With `console=serial` on lx's command line the console is the user-level serial driver
 * (user/drivers/serial, docs/drivers.md).  Output is SERIAL_WRITE_RAW, a Call to the driver:
 * bounded (the driver hands the bytes to the UART and answers) and trusted, so lx may make
 * it; the line discipline has already done the output processing (ONLCR), so the driver
 * must not add carriage returns.  Input needs a reader that may block, which lx's one
 * thread never does: an input thread in lx's own space loops on SERIAL_READ and hands
 * each batch of bytes to lx's main thread as a Call of its own (CONSOLE_INPUT), which the
 * receive loop serves like any other message (console_input).  Its Call is the flow
 * control: the thread asks the driver again only after lx has taken the bytes, and the
 * driver keeps what arrives meanwhile in its ring.
 *
 * Without it (the tests that only read output) the console is lx's own printf path, the
 * kernel console on COM1, as before: write-only, reads give end of file.  Both paths are
 * synchronous, so process output and lx's (and every server's) messages reach the serial
 * line in the order they were made.
 *
 * `quiet=1` silences lx's own messages (process ends, unimplemented calls), for `make run`,
 * where the console belongs to the shell. */
#include "tty/console.h"
#include "lib/server.h"
#include "tty/tty.h"
#include <libl4/serial.h>
#include <stdio.h>
#include <string.h>

#define CONSOLE_INPUT   0x5449      /* input thread -> lx: MR1 count, MR2.. the bytes */
#define INPUT_UTCB      0xBF000400ul    /* lx's second UTCB slot (the first is its own) */
#define INPUT_PRIO      100

static l4_word_t driver;            /* the serial driver, 0: the printf console */
static l4_word_t input_gid, input_lid;
static char input_stack[4096] __attribute__((aligned(16)));

bool console_has_input(void)
{
    return input_gid != 0;
}

/* The input thread: never touches lx's data, only its own stack and message registers. */
static void input_loop(void)
{
    for (;;) {
        char buf[SERIAL_MAX];
        unsigned n = serial_read(driver, buf, sizeof buf);
        if (!n)
            continue;               /* "ask again" (or a failed IPC) */
        serial_put_bytes(CONSOLE_INPUT, buf, n);    /* the driver's format, lx's label */
        l4_call(lx_self);
    }
}

/* The words of lx's command line before the first program: is `word` among them? */
static bool option(const char *word)
{
    const char *s = l4_task_cmdline();
    size_t n = strlen(word);
    while (*s) {
        while (*s == ' ')
            s++;
        const char *w = s;
        while (*s && *s != ' ')
            s++;
        if ((s - w == 2 && !strncmp(w, "--", 2)) || !strncmp(w, "init=", 5))
            return false;
        if ((size_t)(s - w) == n && !strncmp(w, word, n))
            return true;
    }
    return false;
}

static void discard(int c)
{
    (void)c;
}

void console_init(void)
{
    if (option("quiet=1"))
        l4_putc_hook = discard;     /* `make run`: the console is the shell's alone */
    if (!option("console=serial"))
        return;
    driver = l4_name_lookup("serial");      /* the driver may register after we start */
    if (!driver) {
        printf("lx: no serial driver: the console is output only\n");
        return;
    }
    l4_word_t err, t = lx_thread_start(INPUT_UTCB, INPUT_PRIO, input_stack + sizeof input_stack,
                                       input_loop, &err);
    if (!t) {
        printf("lx: no console input thread (error %lu)\n", err);
        return;
    }
    input_gid = t;
    input_lid = l4_local_id_of(t);
}

bool console_is_input(l4_word_t from)
{
    return input_gid && (from == input_gid || from == input_lid);
}

bool console_input(l4_word_t tag)
{
    if (l4_tag_label(tag) != CONSOLE_INPUT || l4_tag_u(tag) < 1)
        return false;
    unsigned words = l4_tag_u(tag) - 1;
    l4_word_t n = l4_mr(1), w[SERIAL_MAX / 8];
    if (words > SERIAL_MAX / 8)
        words = SERIAL_MAX / 8;
    if (n > words * 8)
        n = words * 8;
    for (unsigned i = 0; i < words; i++)
        w[i] = l4_mr(2 + i);
    tty_receive((const char *)w, n);        /* echoes: clobbers the MRs */
    l4_set_mr(0, 0);
    return true;
}

void console_write(const char *buf, size_t n)
{
    if (driver) {
        serial_write_raw(driver, buf, (unsigned)n);
        return;
    }
    /* The kernel console turns "\n" into "\r\n" itself: drop the tty's "\r" before "\n"
     * so that the byte stream stays what it was before the tty. */
    for (size_t i = 0; i < n; i++)
        if (!(buf[i] == '\r' && i + 1 < n && buf[i + 1] == '\n'))
            putchar((unsigned char)buf[i]);
}
