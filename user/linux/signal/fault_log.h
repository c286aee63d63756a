/* The kernel log's lines for faults no handler takes (fault_log.c): Linux's
 * show_unhandled_signals.  regs: the thread's (L4_FREG order). */
#ifndef LX_SIGNAL_FAULT_LOG_H
#define LX_SIGNAL_FAULT_LOG_H

#include <libl4.h>

struct thread;
/* A page fault's SIGSEGV at addr with the page-fault error code err. */
void fault_log_segfault(struct thread *t, l4_word_t addr, int err, const l4_word_t *regs);
/* An exception's signal: type "trap " or "", desc "invalid opcode", the error code. */
void fault_log_trap(struct thread *t, const char *type, const char *desc, long err,
                    const l4_word_t *regs);

#endif
