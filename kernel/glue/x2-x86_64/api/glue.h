/* The interface between the generic kernel and the X.2 binary interface on x86-64
 * (kernel/glue/x2-x86_64): which registers carry a system call's arguments and results, the
 * register maps of the exception and foreign messages, the stub page the KIP points to, the
 * IPC fast paths.  I/O ports, also x86's part of X.2, have their own header (iospace.h).
 * How generic code reaches the layers: api/arch.h. */
#ifndef GLUE_H
#define GLUE_H

#include "types.h"

struct tcb;

/* --- system calls (syscall_abi.c) ------------------------------------------------------ */
/* The user address of the stub of the system call whose KIP link field is at kip_off. */
word_t arch_syscall_link(unsigned kip_off);
/* The IPC fast path on or off (boot option fastpath=off). */
void arch_ipc_fastpath(bool on);
bool arch_ipc_fastpath_on(void);
/* The continuation of every thread that blocked in an Ipc: MR0-MR7, the sender and its own
 * local id into the registers the stub returns, then back to user mode.  The fast paths know
 * a partner waiting in a user-level receive by it. */
void ipc_user_return(struct tcb *t);

/* --- exception messages (exc_regs.c) ---------------------------------------------------- */
/* The exception message's register map (contract §6.2): t's user registers into
 * mr[L4_EXC_RIP..L4_EXC_RFLAGS], and back from the reply (all of them count: the thread
 * returns with every register as given). */
void arch_exception_regs(struct tcb *t, word_t *mr);
void arch_exception_set_regs(struct tcb *t, const word_t *mr);
/* t's user IP is one the CPU cannot return to (a start message, ExchangeRegisters, an
 * exception reply or a foreign SET_REGS can set any): that is t's own general-protection
 * fault, sent to its exception handler until a reply gives an IP that is (contract §4.1). */
void arch_user_ip_check(struct tcb *t);

/* --- the foreign system-call ABI (foreign_regs.c, docs/linux-abi.md) -------------------- */
/* For the current thread t; the message words start at MR1 (include/l4/pecan.h gives their
 * order). */
void arch_foreign_syscall_message(struct tcb *t, word_t *mr);
void arch_foreign_set_result(struct tcb *t, word_t value);
void arch_foreign_get_regs(struct tcb *t, word_t *mr);
void arch_foreign_set_regs(struct tcb *t, const word_t *mr, unsigned n);
/* The number of t's `syscall` (RAX).  Native IPC through a channel (channel.c): the
 * arguments (MR0-MR7 into t's MRs), then the results (the ErrorCode, MR0-MR7, the sender). */
word_t arch_foreign_syscall_nr(struct tcb *t);
void arch_channel_ipc_args(struct tcb *t, word_t *to, word_t *from, word_t *timeouts,
                           word_t *acceptor);
void arch_channel_ipc_result(struct tcb *t, word_t error);
/* Native Unmap (L4_FOREIGN_UNMAP_NR): MR0-MR7 loaded, the control word returned; the
 * result (0, or L4_ERR_INVALID_PARAM) and the fpages' access status back into the registers. */
word_t arch_channel_unmap_args(struct tcb *t);
void arch_channel_unmap_result(struct tcb *t, word_t result);
/* Native string buffers (L4_FOREIGN_BUFFERS_NR): the word count, the XferTimeouts, the words
 * into t->mr[0..7]; the result into RAX. */
void arch_channel_buffers_args(struct tcb *t, word_t *n, word_t *xfer_timeouts);
void arch_channel_buffers_result(struct tcb *t, word_t result);

#endif
