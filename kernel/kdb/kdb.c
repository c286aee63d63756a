/* The kernel debugger: a small command loop on the serial console.  In batch mode (kernel
 * option kdb=batch, used by the test harness) entering it prints the state and ends the QEMU
 * run with a failure status instead of waiting for input. */
#include "kdb.h"
#include "tcb.h"
#include "thread.h"
#include "space.h"
#include "sched.h"
#include "kmem.h"
#include "mapdb.h"
#include "boot.h"
#include "console.h"
#include "lib.h"
#include "arch.h"
#include "platform.h"
#include "invariants.h"

#define KDB_EXIT_CODE 2         /* QEMU exit status (2 << 1) | 1 = 5 */

static bool batch;

bool kdb_batch(void)
{
    return batch;
}

void kdb_init(void)
{
    const char *v;
    batch = boot_option("kdb", &v) && !strncmp(v, "batch", 5);
}

static const char *state_name(unsigned s)
{
    static const char *const names[] = {
        "free", "inactive", "ready", "halted", "send", "receive", "xfer-recv", "xfer-wait",
        "irq", "idle",
    };
    return s < ARRAY_SIZE(names) ? names[s] : "?";
}

static void list_threads(void)
{
    printk("  %-18s %-10s %4s %-18s %-18s %s\n", "thread", "state", "prio", "space", "ip",
           "partner/wait");
    for (struct tcb *t = thread_first(); t; t = t->all_next) {
        if (t->state == TS_IRQ)
            continue;
        printk("%c %018lx %-10s %4u %018lx %018lx %lx\n", t == current() ? '*' : ' ', t->gid,
               state_name(t->state), t->prio, (word_t)t->space, arch_user_ip(t),
               t->ipc.partner ? t->ipc.partner->gid : t->ipc.wait_for);
    }
}

static word_t parse_word(const char **s)
{
    while (**s == ' ')
        (*s)++;
    return strtoul(*s, s, 16);
}

static struct tcb *find_thread(word_t id)
{
    struct tcb *t = tcb_lookup(id);
    if (t)
        return t;
    if (id < CONFIG_MAX_THREADS) {
        t = tcb_of_number(id);
        if (t->gid)
            return t;
    }
    return NULL;
}

static void show_translation(struct tcb *t, word_t va)
{
    struct pt_ref ref;
    if (!t->space || !pt_find_leaf(t->space, va, &ref)) {
        printk("%lx: not mapped\n", va);
        return;
    }
    struct mapnode *n = *ref.node;
    printk("%lx -> phys %lx (%s page at %lx, pte %lx, rights %c%c%c)%s\n", va,
           pte_frame(*ref.pte, ref.level) + (va - ref.va),
           ref.level == 0 ? "4K" : ref.level == 1 ? "2M" : "1G", ref.va, *ref.pte,
           pte_rights(*ref.pte) & 4 ? 'r' : '-', pte_rights(*ref.pte) & 2 ? 'w' : '-',
           pte_rights(*ref.pte) & 1 ? 'x' : '-', n ? "" : " [kernel-managed]");
    if (n && n->parent)
        printk("  derived from space %lx va %lx\n", (word_t)n->parent->space, n->parent->va);
}

static void help(void)
{
    printk("commands: t (threads)  r <id> (registers)  p <id> <addr> (translation)\n"
           "          m (memory)  c (continue)  R (reboot)  q (quit QEMU)\n"
           "          H (hang with interrupts off: what the NMI watchdog must catch)\n");
}

static void read_line(char *buf, size_t n)
{
    size_t i = 0;
    for (;;) {
        int c = console_getc();
        if (c == '\r' || c == '\n') {
            console_putc('\n');
            break;
        }
        if ((c == 8 || c == 127) && i) {
            i--;
            printk("\b \b");
            continue;
        }
        if (c >= ' ' && i + 1 < n) {
            buf[i++] = (char)c;
            console_putc((char)c);
        }
    }
    buf[i] = 0;
}

void kdb_enter(const char *reason, struct frame *f)
{
    printk("\n--- kernel debugger: %s ---\n", reason);
    if (batch) {
        if (f)
            arch_dump_frame(f);
        list_threads();
        printk("KDB: batch mode, ending the run\n");
        arch_qemu_exit(KDB_EXIT_CODE);
    }
    help();
    char line[80];
    for (;;) {
        printk("kdb> ");
        read_line(line, sizeof(line));
        const char *s = line + 1;
        switch (line[0]) {
        case 't':
            list_threads();
            break;
        case 'r': {
            struct tcb *t = find_thread(parse_word(&s));
            if (t && t->state != TS_IRQ)
                arch_dump_frame(tcb_frame(t));
            else
                printk("no such thread\n");
            break;
        }
        case 'p': {
            struct tcb *t = find_thread(parse_word(&s));
            word_t va = parse_word(&s);
            if (t)
                show_translation(t, va);
            else
                printk("no such thread\n");
            break;
        }
        case 'm':
            printk("kernel memory: %lu of %lu KiB free, %lu mapping nodes\n",
                   kmem_free_bytes() >> 10, kmem_total_bytes() >> 10, mapdb_node_count());
#ifdef CONFIG_INVARIANTS
            printk("deepest kernel stack: %lu bytes\n", invariants_deepest_stack());
#endif
            break;
        case 'c':
            return;
        case 'H':
            printk("hanging with interrupts off\n");
            for (;;)
                __asm__ volatile("" ::: "memory");
        case 'R':
            arch_reboot();
        case 'q':
            arch_qemu_exit(KDB_EXIT_CODE);
        case 0:
            break;
        default:
            help();
        }
    }
}
