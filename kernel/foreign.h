/* The foreign system-call ABI (docs/linux-abi.md): threads of a foreign space run programs of
 * another operating system.  Their system calls, exceptions, page faults and interrupts are
 * messages to the space's handler, whose replies set their registers. */
#ifndef FOREIGN_H
#define FOREIGN_H

#include "tcb.h"

struct space;

/* The handler of t's foreign space, if it exists. */
struct tcb *foreign_handler(struct tcb *t);
/* SpaceControl: validate a change of the foreign bit and handler (an error code or 0);
 * then apply it (cannot fail). */
word_t foreign_check_control(struct space *s, bool on, word_t handler);
void foreign_set_control(struct space *s, bool on, word_t handler);
/* t joins (or leaves) a foreign space: its flag, and FS and GS base 0 as Linux starts them. */
void foreign_thread_mark(struct tcb *t, bool on);

/* `syscall` by t (the current thread): the system-call message; t waits for the reply with
 * the ordinary IPC continuation, which calls foreign_syscall_return. */
void foreign_syscall(struct tcb *t);
void foreign_syscall_return(struct tcb *t);
/* A CPU exception of t other than a paging fault, and t's page faults. */
void foreign_exception(struct tcb *t, unsigned vector, word_t error, word_t addr);
void foreign_page_fault(struct tcb *t, word_t addr, unsigned access, word_t ip);
/* The interrupt the handler raised with ExchangeRegisters, delivered before t next runs
 * user code (thread_return_to_user_checks). */
void foreign_interrupt(struct tcb *t);
/* ExchangeRegisters raises that interrupt (and cancels a native IPC t is blocked in). */
void foreign_raise_interrupt(struct tcb *t);

#endif
