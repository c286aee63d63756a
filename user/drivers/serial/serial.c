/* The serial console driver: COM1 at user level (issue 4 item 7).  It gets the UART's ports
 * through I/O faults (its pager, the root task, has them from sigma0) and IRQ 4 through the
 * interrupt protocol (the root task associates it, ThreadControl being privileged), and serves
 * console reads and writes by IPC (libl4/serial.h).  The kernel keeps writing its own debug
 * output to the same UART, polled (contract decision 10). */
#include <libl4.h>
#include <libl4/serial.h>
#include <stdio.h>
#include <string.h>

#define COM1      0x3F8
#define IRQ       4
#define RBR       0       /* receive buffer */
#define THR       0       /* transmit holding */
#define IER       1
#define FCR       2
#define MCR       4
#define LSR       5
#define LSR_DR    0x01
#define LSR_THRE  0x20

static inline uint8_t inb(uint16_t p)             { uint8_t v; __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(p)); return v; }
static inline void outb(uint16_t p, uint8_t v)    { __asm__ volatile("outb %0, %1" :: "a"(v), "Nd"(p)); }

#define RING 1024
static char ring[RING];
static unsigned head, tail;         /* bytes in [tail, head) */

#define MAX_READERS 8
static struct { l4_word_t tid, max; } readers[MAX_READERS];

static void put_char(char c)
{
    for (int i = 0; i < 100000 && !(inb(COM1 + LSR) & LSR_THRE); i++)
        ;
    outb(COM1 + THR, (uint8_t)c);
}

static void drain_input(void)
{
    while (inb(COM1 + LSR) & LSR_DR) {
        char c = (char)inb(COM1 + RBR);
        if (head - tail < RING)
            ring[head++ % RING] = c;
    }
}

/* Compose a read reply of at most `max` bytes from the ring. */
static void take_input(l4_word_t max)
{
    unsigned n = head - tail;
    if (n > max)
        n = (unsigned)max;
    if (n > SERIAL_MAX)
        n = SERIAL_MAX;
    l4_word_t w[60] = { 0 };
    for (unsigned i = 0; i < n; i++)
        ((char *)w)[i] = ring[tail++ % RING];
    unsigned words = (n + 7) / 8;
    l4_set_mr(0, l4_tag_make(0, 1 + words, 0));
    l4_set_mr(1, n);
    for (unsigned i = 0; i < words; i++)
        l4_set_mr(2 + i, w[i]);
}

/* Answer waiting readers while there is input (zero send timeout: never block on clients). */
static void serve_readers(void)
{
    for (unsigned i = 0; i < MAX_READERS && head != tail; i++)
        if (readers[i].tid) {
            take_input(readers[i].max);
            l4_reply(readers[i].tid);
            readers[i].tid = 0;
        }
}

/* A reader waits for input.  A client is blocked in one call at a time, so a new request
 * replaces its old one (whose call may have timed out); with every slot taken, the oldest
 * reader is answered with a count of 0 ("nothing yet, ask again") to make room. */
static unsigned next_evict;

static void add_reader(l4_word_t tid, l4_word_t max)
{
    unsigned slot = MAX_READERS;
    for (unsigned i = 0; i < MAX_READERS; i++)
        if (readers[i].tid == tid || (!readers[i].tid && slot == MAX_READERS))
            slot = i;
    if (slot == MAX_READERS) {
        slot = next_evict++ % MAX_READERS;
        l4_set_mr(0, l4_tag_make(0, 1, 0));
        l4_set_mr(1, 0);
        l4_reply(readers[slot].tid);
    }
    readers[slot].tid = tid;
    readers[slot].max = max;
}

int main(void)
{
    l4_image_touch();           /* lx's console: no fault of ours once memory may be short */
    l4_word_t me = l4_my_global_id(), irq = l4_global_id(IRQ, 1), err;
    outb(COM1 + IER, 0);                    /* the first port accesses fault the ports in */
    (void)inb(COM1 + LSR);
    (void)inb(COM1 + RBR);
    outb(COM1 + FCR, 0xC7);
    outb(COM1 + MCR, 0x0B);                 /* DTR, RTS, OUT2 (the IRQ line) */
    if (!l4_root_call(ROOT_IRQ_ATTACH, IRQ, me, 0, 0, &err) || err) {
        printf("serial: cannot attach IRQ %d (error %lu)\n", IRQ, err);
        return 1;
    }
    drain_input();
    outb(COM1 + IER, 0x01);                 /* interrupt on received data */
    l4_name_register("serial", me);
    printf("serial: COM1 driver ready (IRQ %d)\n", IRQ);

    l4_word_t from;
    l4_word_t tag = l4_wait(&from);
    for (;;) {
        bool reply = false;
        if (l4_ipc_failed(tag)) {
            tag = l4_wait(&from);
            continue;
        }
        if (from == irq) {
            drain_input();
            serve_readers();
            /* Acknowledge (the line stays masked until then) and wait for the next event. */
            l4_set_mr(0, 0);
            tag = l4_ipc(irq, L4_ANYTHREAD, l4_timeouts(L4_ZERO_TIME, L4_NEVER), &from);
            continue;
        }
        switch (l4_tag_label(tag)) {
        case SERIAL_WRITE:
        case SERIAL_WRITE_RAW: {
            /* The count is clipped to the bytes the message carries (MR2..MRu). */
            unsigned u = l4_tag_u(tag), words = u > 1 ? u - 1 : 0;
            l4_word_t n = u ? l4_mr(1) : 0;
            if (n > words * 8)
                n = words * 8;
            l4_word_t w[62];
            for (unsigned i = 0; i < words; i++)
                w[i] = l4_mr(2 + i);
            for (unsigned i = 0; i < n; i++) {
                char c = ((char *)w)[i];
                if (c == '\n' && l4_tag_label(tag) == SERIAL_WRITE)
                    put_char('\r');
                put_char(c);
            }
            l4_set_mr(0, 0);
            reply = true;
            break;
        }
        case SERIAL_READ:
            if (head != tail) {
                take_input(l4_tag_u(tag) ? l4_mr(1) : 0);
                reply = true;
            } else {
                add_reader(from, l4_tag_u(tag) ? l4_mr(1) : 0);
            }
            break;
        }
        tag = reply ? l4_ipc(from, L4_ANYTHREAD, l4_timeouts(L4_ZERO_TIME, L4_NEVER), &from)
                    : l4_wait(&from);
    }
}
