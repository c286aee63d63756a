/* In-system test: interrupts as IPC (contract §6.3) with QEMU's real 16550 UART on COM1 in
 * loopback mode: a transmitted byte comes back as received data and raises IRQ 4.  Every case
 * restores the UART before it reports (the kernel's console shares it). */
#include "testlib.h"
#include "testutil.h"

#define COM1 0x3F8
#define IRQ  4

static inline uint8_t inb(uint16_t p)          { uint8_t v; __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(p)); return v; }
static inline void outb(uint16_t p, uint8_t v) { __asm__ volatile("outb %0, %1" :: "a"(v), "Nd"(p)); }

static l4_word_t irq_tid(void) { return l4_global_id(IRQ, 1); }

static void uart_loopback(bool on)
{
    while (inb(COM1 + 5) & 1)               /* drain */
        (void)inb(COM1);
    outb(COM1 + 4, on ? 0x1B : 0x0B);       /* LOOP | OUT2 | RTS | DTR, or normal */
    outb(COM1 + 2, on ? 0x07 : 0xC7);       /* FIFO: interrupt at 1 byte (else 14) */
    outb(COM1 + 1, on ? 0x01 : 0x00);       /* interrupt on received data */
}

static void uart_send(uint8_t b)
{
    while (!(inb(COM1 + 5) & 0x20))
        ;
    outb(COM1, b);
}

static uint8_t uart_read(void)
{
    return inb(COM1);
}

/* The looped-back byte is in the receive buffer (data ready): from then on the UART holds its
 * interrupt line raised.  A bounded poll of the device, not a wait for time to pass. */
static bool uart_received(void)
{
    for (unsigned i = 0; i < 100000; i++)
        if (inb(COM1 + 5) & 1)
            return true;
    return false;
}

static bool attach(l4_word_t handler)
{
    return l4_thread_control(irq_tid(), irq_tid(), 0, handler, ~0ul);
}

/* The handler thread: waits for the interrupt, reports the byte, acknowledges on command. */
static volatile l4_word_t got[8];
static volatile unsigned ngot;

static void handler(void)
{
    l4_word_t from = 0;
    l4_word_t tag = l4_ipc(0, irq_tid(), 0, &from);
    for (;;) {
        if (!l4_ipc_failed(tag) && from == irq_tid()) {
            got[ngot++ % 8] = l4_tag_is_proto(tag, L4_PROTO_INTERRUPT) ? uart_read() : 0xFFFF;
        }
        /* Wait for the main thread's go-ahead, then acknowledge and wait for the next. */
        l4_receive(tu_main_tid());
        l4_set_mr(0, 0);
        tag = l4_ipc(irq_tid(), irq_tid(), l4_timeouts(L4_ZERO_TIME, L4_NEVER), &from);
        from = irq_tid();
    }
}

static void go(l4_word_t h)
{
    l4_set_mr(0, 0);
    l4_send(h);
}

TEST(interrupt_delivered_masked_until_acknowledged)
{
    ngot = 0;
    l4_word_t h = tu_thread(handler, 200);
    bool ok = attach(h);
    uart_loopback(true);
    uart_send('A');
    tu_wait_blocked();                      /* the handler got it and waits for us */
    unsigned after_first = ngot;
    uart_send('B');                         /* the line is masked until acknowledged */
    tu_wait_blocked();
    unsigned still = ngot;
    go(h);                                  /* acknowledge: the pending interrupt comes at once */
    tu_wait_blocked();
    unsigned after_ack = ngot;
    uart_loopback(false);
    attach(irq_tid());
    tu_kill(h);
    CHECK(ok, "association failed");
    CHECK_EQ(after_first, 1);
    CHECK_EQ(got[0], 'A');
    CHECK_EQ(still, 1);
    CHECK_EQ(after_ack, 2);
    CHECK_EQ(got[1], 'B');
}

TEST(deassociated_line_stays_quiet)
{
    ngot = 0;
    l4_word_t h = tu_thread(handler, 200);
    attach(h);
    attach(irq_tid());                      /* deassociate again */
    uart_loopback(true);
    uart_send('C');
    bool raised = uart_received();
    tu_wait_blocked();                      /* a handler the interrupt reached has run */
    unsigned n = ngot;
    (void)uart_read();
    uart_loopback(false);
    tu_kill(h);
    CHECK(raised);
    CHECK_EQ(n, 0);
}

TEST(acknowledging_nothing_times_out)
{
    l4_word_t h = tu_thread(handler, 200);
    attach(h);
    l4_set_mr(0, 0);
    l4_word_t tag = l4_send_timeout(irq_tid(), L4_ZERO_TIME);   /* we are not the handler */
    attach(irq_tid());
    tu_kill(h);
    CHECK(l4_ipc_failed(tag));
    CHECK_EQ(l4_ipc_last_error(), L4_IPC_TIMEOUT);
}

TEST(association_errors)
{
    l4_word_t h = tu_thread(handler, 200);
    /* handler must exist; version of an interrupt thread is 1 */
    CHECK_EQ(l4_thread_control(irq_tid(), irq_tid(), 0, l4_global_id(l4_kip_user_base() + 900, 1), ~0ul), 0);
    CHECK_EQ(l4_error_code(), L4_ERR_INVALID_THREAD);
    CHECK_EQ(l4_thread_control(l4_global_id(IRQ, 2), l4_global_id(IRQ, 2), 0, h, ~0ul), 0);
    CHECK_EQ(l4_error_code(), L4_ERR_INVALID_THREAD);
    /* Schedule works on an associated interrupt thread, not on an unassociated one. */
    l4_word_t old;
    CHECK(attach(h));
    CHECK_EQ(l4_schedule(irq_tid(), ~0ul, ~0ul, 13, ~0ul, &old), 2);
    CHECK(attach(irq_tid()));
    CHECK_EQ(l4_schedule(irq_tid(), ~0ul, ~0ul, 13, ~0ul, &old), 0);
    CHECK_EQ(l4_error_code(), L4_ERR_INVALID_THREAD);
    tu_kill(h);
}

TEST(deleted_handler_disables_the_line)
{
    ngot = 0;
    l4_word_t h = tu_thread(handler, 200);
    attach(h);
    tu_kill(h);                             /* the line must not deliver to a stale id */
    uart_loopback(true);
    uart_send('D');
    bool raised = uart_received();
    tu_wait_blocked();
    (void)uart_read();
    uart_loopback(false);
    /* It can be associated again afterwards. */
    l4_word_t h2 = tu_thread(handler, 200);
    bool ok = attach(h2);
    uart_loopback(true);
    uart_send('E');
    tu_wait_blocked();
    unsigned n = ngot;
    uart_loopback(false);
    attach(irq_tid());
    tu_kill(h2);
    CHECK(raised);
    CHECK(ok);
    CHECK_EQ(n, 1);
    CHECK_EQ(got[0], 'E');
}

int main(void)
{
    /* The UART's ports, from sigma0 through our I/O faults. */
    (void)inb(COM1 + 5);
    tests_run("irq");
}
