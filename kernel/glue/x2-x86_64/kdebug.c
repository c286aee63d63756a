/* The int3 conventions through which user code talks to the kernel debugger (contract §6.8). */
#include "kdb/kdb.h"
#include "frame.h"
#include "x86.h"
#include "paging.h"
#include "tcb.h"
#include "space.h"
#include "uaccess.h"
#include "fault.h"
#include "console.h"
#include "lib.h"

static void print_user_string(struct tcb *t, word_t va)
{
    char buf[128];
    for (;;) {
        long n = ustrncpy(t->space, va, buf, sizeof(buf));
        console_write(buf, strlen(buf));
        if (n < 0) {
            printk("<unmapped at %lx>", va + strlen(buf));
            return;
        }
        if ((size_t)n < sizeof(buf) - 1)
            return;
        va += (word_t)n;
    }
}

/* Wait for a console character while letting other threads run. */
static int getc_blocking(void)
{
    int c;
    while ((c = console_getc_nonblock()) < 0)
        arch_idle();
    return c;
}

void kdebug_trap(struct tcb *t, struct frame *f)
{
    uint8_t b[8];
    size_t have = 0;
    while (have < sizeof(b) && uread(t->space, f->rip + have, b + have, 1))
        have++;
    bool silent = have >= 1 && b[0] == 0x90;
    uint8_t *m = silent ? b + 1 : b;
    size_t mh = silent ? have - 1 : have;

    if (mh >= 2 && m[0] == 0xEB) {                  /* KDB_Enter */
        char msg[160] = "";
        if (mh >= 7 && m[2] == 0x48 && m[3] == 0xC7 && m[4] == 0xC0) {
            int32_t imm;
            if (uread(t->space, f->rip + (silent ? 1 : 0) + 5, &imm, 4))
                ustrncpy(t->space, (word_t)(int64_t)imm, msg, sizeof(msg));
        } else if (mh >= 6 && m[2] == 0xB8) {
            uint32_t imm;
            if (uread(t->space, f->rip + (silent ? 1 : 0) + 3, &imm, 4))
                ustrncpy(t->space, (word_t)imm, msg, sizeof(msg));
        }
        printk("KDB: %s (thread %lx at %lx)\n", msg, t->gid, f->rip);
        if (!silent)
            kdb_enter(msg[0] ? msg : "KDB_Enter", f);
        return;
    }
    if (mh >= 2 && m[0] == 0x3C) {
        switch (m[1]) {
        case 0x00: console_putc((char)f->rax); return;
        case 0x01: print_user_string(t, f->rax); return;
        case 0x03: return;                          /* break-in: not used */
        case 0x08: f->rax = (word_t)(long)console_getc_nonblock(); return;
        case 0x0D: f->rax = (word_t)getc_blocking(); return;
        default:
            printk("KDB: unknown kdebug operation %x (thread %lx)\n", m[1], t->gid);
            kdb_enter("unknown kdebug operation", f);
            return;
        }
    }
    /* A plain int3: an exception (vector 3, RIP after the instruction). */
    fault_exception(t, EXC_BP, 0);
}
