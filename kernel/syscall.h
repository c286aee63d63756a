/* System calls whose semantics have no other object: ExchangeRegisters, ProcessorControl,
 * MemoryControl.  The register decoding of every system call is arch code
 * (arch/x86_64/syscall_abi.c); it calls these and the objects' own functions (ipc(),
 * thread_control(), space_control(), sched_schedule(), mapdb_unmap_fpages() ...). */
#ifndef SYSCALL_H
#define SYSCALL_H

#include "tcb.h"

/* A thread id argument as the kernel uses it: local ids of the caller's space become global. */
word_t syscall_global_id(struct tcb *self, word_t id);

/* ExchangeRegisters' words besides the destination: in, the control word and the values it
 * says to set; out, the old values and the old control word, and in `result` the thread's
 * id in the other form (global for a local destination, else local). */
struct exregs {
    word_t ctl, sp, ip, flags, user_handle, pager, fs_base, gs_base;
    word_t result;
};
/* False (error code set, r untouched) if dest names no thread self may change. */
bool exchange_registers(struct tcb *self, word_t dest, struct exregs *r);

/* The results of ProcessorControl and MemoryControl (1 success, 0 error with the error code
 * set).  MemoryControl: fpages in self->mr[0..k], attribute i in attr[i]. */
word_t processor_control(struct tcb *self, word_t cpu);
word_t memory_control(struct tcb *self, unsigned k, const word_t attr[4]);

#endif
