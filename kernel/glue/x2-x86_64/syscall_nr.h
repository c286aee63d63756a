/* Slots of the system-call stub page; `syscall` in slot n returns to slot start + 2 (+3 for
 * MemoryControl, whose stub first moves R11). */
#ifndef SYSCALL_NR_H
#define SYSCALL_NR_H

#define SYSCALL_SLOT             32
#define SYS_IPC                  0     /* Ipc and Lipc: one stub, the same semantics (§4.4.7) */
#define SYS_UNMAP                1
#define SYS_EXCHANGE_REGISTERS   2
#define SYS_SYSTEM_CLOCK         3
#define SYS_THREAD_SWITCH        4
#define SYS_SCHEDULE             5
#define SYS_THREAD_CONTROL       6
#define SYS_SPACE_CONTROL        7
#define SYS_PROCESSOR_CONTROL    8
#define SYS_MEMORY_CONTROL       9
#define SYS_COUNT                10

#define SYSCALL_STUB_OFFSET(nr)  ((nr) * SYSCALL_SLOT)
/* The user RIP after `syscall` in a stub. */
#define SYSCALL_RET_OFFSET(nr)   ((nr) * SYSCALL_SLOT + ((nr) == SYS_MEMORY_CONTROL ? 5 : 2))

#endif
