/* Interrupts as IPC: interrupt threads (contract §6.3). */
#ifndef IRQ_H
#define IRQ_H

#include "tcb.h"

void irq_init(void);
unsigned irq_count(void);                       /* = SystemBase */
/* ThreadControl on an interrupt thread: associate with `handler` or, if handler is the
 * interrupt thread itself, deassociate.  Returns an L4 error code. */
int irq_control(struct tcb *irq, word_t handler);
bool irq_associated(struct tcb *irq);
/* The line fired (called by arch code once the controller is acknowledged; level-triggered
 * lines are masked until the handler acknowledges, edge-triggered ones stay open). */
void irq_raise(unsigned line);
/* A receiver takes a queued interrupt. */
void irq_deliver(struct tcb *irq, struct tcb *r);
/* A send to an interrupt thread: 0 if it acknowledged, -1 if the sender must wait. */
int irq_acknowledge(struct tcb *s, struct tcb *irq, uint16_t timeout);
void irq_handler_gone(struct tcb *irq);
void irq_thread_deleted(struct tcb *t);

#endif
