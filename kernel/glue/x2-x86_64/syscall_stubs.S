/* The system-call stubs whose user addresses the KIP publishes (contract §2.7, §4.1).  The page
 * is mapped user-executable at SYSCALL_PAGE_USER in every space.  Each stub has a 32-byte slot;
 * the kernel tells the calls apart by the return address `syscall` leaves in RCX. */
#include "syscall_nr.h"

    .section .user_text, "ax"
    .align 4096
    .global syscall_stub_page
syscall_stub_page:

.macro STUB nr
    .org syscall_stub_page + \nr * SYSCALL_SLOT
    syscall
    ret
.endm

    STUB SYS_IPC
    STUB SYS_UNMAP
    STUB SYS_EXCHANGE_REGISTERS
    /* SystemClock without entering the kernel: the TSC scaled exactly as the kernel does
     * (time.c), with the constants the kernel writes into this page at boot.  RAX = clock;
     * RDX and the flags are clobbered, which §4.2 allows. */
    .org syscall_stub_page + SYS_SYSTEM_CLOCK * SYSCALL_SLOT
    rdtsc
    shlq $32, %rdx
    orq  %rdx, %rax
    subq clock_tsc_boot(%rip), %rax
    mulq clock_us_mult(%rip)
    shrdq $40, %rdx, %rax
    ret
    STUB SYS_THREAD_SWITCH
    STUB SYS_SCHEDULE
    STUB SYS_THREAD_CONTROL
    STUB SYS_SPACE_CONTROL
    STUB SYS_PROCESSOR_CONTROL

    /* MemoryControl: attribute 3 arrives in R11, which `syscall` overwrites, so it travels in
     * RBP (free: the caller saves it); MR0 comes back in RBP because sysret needs RCX. */
    .org syscall_stub_page + SYS_MEMORY_CONTROL * SYSCALL_SLOT
    movq %r11, %rbp
    syscall
    movq %rbp, %rcx
    ret

    /* Clock constants (user-readable; the kernel writes them once through its own alias). */
    .org syscall_stub_page + 0xF00
    .global clock_tsc_boot, clock_us_mult
clock_tsc_boot: .quad 0
clock_us_mult:  .quad 0

    .org syscall_stub_page + 4096
