/* Interrupt threads.  Line n is thread (n, 1).  A line is masked from the moment it fires
 * until its handler acknowledges the delivery by sending to the interrupt thread, so at most
 * one occurrence is ever pending.  An undelivered interrupt waits in the handler's send queue
 * like any blocked sender.  Level-triggered lines are masked in the interrupt controller; an
 * edge would be lost there, so edge-triggered lines stay open and an edge that comes before
 * the acknowledgement is remembered and delivered at the acknowledgement. */
#include "irq.h"
#include "platform.h"
#include "ipc.h"
#include "sched.h"
#include "thread.h"
#include "lib.h"
#include "console.h"
#include <l4/message.h>

enum irq_status { IRQ_IDLE, IRQ_ARMED, IRQ_QUEUED, IRQ_DELIVERED };

struct irq_line {
    word_t handler;             /* global id of the handler, 0 if not associated */
    uint8_t status;
    bool pending;               /* an edge came while the last delivery was unacknowledged */
};

static struct irq_line lines[256];
static unsigned nlines;

/* Valid as soon as the interrupt controllers are known (before irq_init). */
unsigned irq_count(void)
{
    return arch_irq_lines();
}

static unsigned line_of(struct tcb *irq)
{
    return (unsigned)tcb_number(irq);
}

void irq_init(void)
{
    nlines = arch_irq_lines();
    for (unsigned n = 0; n < nlines; n++) {
        struct tcb *t = thread_create(l4_global_id(n, 1), NULL, L4_NILTHREAD);
        if (!t)
            panic("no memory for interrupt threads");
        t->state = TS_IRQ;
        t->prio = CONFIG_IRQ_PRIO;
        arch_irq_mask(n);
    }
}

bool irq_associated(struct tcb *irq)
{
    return lines[line_of(irq)].handler != 0;
}

static void detach(struct tcb *irq)
{
    struct irq_line *l = &lines[line_of(irq)];
    arch_irq_mask(line_of(irq));
    if (l->status == IRQ_QUEUED) {
        struct tcb *h = tcb_lookup(l->handler);
        if (h)
            ipc_sendq_remove(h, irq);
    }
    l->handler = 0;
    l->status = IRQ_IDLE;
    l->pending = false;
    irq->ipc.partner = NULL;
}

int irq_control(struct tcb *irq, word_t handler)
{
    unsigned n = line_of(irq);
    if (!arch_irq_available(n))
        return L4_ERR_INVALID_THREAD;   /* e.g. the kernel's timer: never touched */
    if (handler == irq->gid) {
        detach(irq);
        return L4_ERR_OK;
    }
    struct tcb *h = tcb_lookup(handler);
    if (!h || h->state == TS_IRQ || h->state == TS_IDLE)
        return L4_ERR_INVALID_THREAD;
    detach(irq);
    lines[n].handler = handler;
    lines[n].status = IRQ_ARMED;
    arch_irq_unmask(n);
    return L4_ERR_OK;
}

void irq_deliver(struct tcb *irq, struct tcb *r)
{
    r->mr[0] = L4_PROTO_INTERRUPT;
    r->ipc.ipc_from = irq->gid;
    r->ipc.partner = NULL;
    lines[line_of(irq)].status = IRQ_DELIVERED;
}

void irq_raise(unsigned n)
{
    if (n >= nlines)
        return;
    struct irq_line *l = &lines[n];
    struct tcb *irq = tcb_of_number(n);
    if (l->status != IRQ_ARMED) {
        if (l->status != IRQ_IDLE)
            l->pending = true;          /* an edge before the acknowledgement */
        return;
    }
    struct tcb *h = tcb_lookup(l->handler);
    if (!h) {
        detach(irq);                    /* the handler is gone: disable the line */
        return;
    }
    if (h->state == TS_WAIT_RECV && ipc_accepts(h, irq)) {
        irq_deliver(irq, h);
        wake(h, WAKE_DONE);
        sched_wakeup(h);
    } else {
        l->status = IRQ_QUEUED;
        irq->ipc.partner = h;
        ipc_sendq_append(h, irq);
    }
}

int irq_acknowledge(struct tcb *s, struct tcb *irq, uint16_t timeout)
{
    unsigned n = line_of(irq);
    struct irq_line *l = &lines[n];
    if (l->status != IRQ_DELIVERED || l->handler != s->gid)
        return -1;
    l->status = IRQ_ARMED;
    if (l->pending) {
        l->pending = false;
        irq_raise(n);                   /* the edge that came meanwhile */
    } else {
        arch_irq_unmask(n);             /* a level still asserted fires again at once */
    }
    return 0;
}

void irq_handler_gone(struct tcb *irq)
{
    detach(irq);
}

void irq_thread_deleted(struct tcb *t)
{
    for (unsigned n = 0; n < nlines; n++)
        if (lines[n].handler == t->gid)
            detach(tcb_of_number(n));
}
