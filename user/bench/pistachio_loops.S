/* The measured loops of Pistachio's pingpong (user/apps/bench/pingpong in L4Ka::Pistachio,
 * built from its source with its libl4, docs/ipc.md §4.1), instruction for instruction, so
 * that `pingpong`'s ipc_pistachio_* rows count what that binary counts per one-way IPC.
 * Written from its disassembly; nothing of its source is here.
 *
 * Both partners Call each other.  Inter- and intra-space IPC use pingpong's own Call
 * sequence (tag via RAX into R9, R8 = 0, RDI = %gs:0, `push %rbp; call *<Ipc entry variable>;
 * pop %rbp`); each Call is preceded by the trace-buffer check of its debug_printf
 * (L4_Tbuf_RecordEvent: libl4's L4_GetTraceBuffer, then a test of the result; there is no
 * trace buffer, so nothing is recorded).  Lipc uses libl4's L4_Lcall: MR0-MR7 loaded from
 * the UTCB into R9, RAX, RBX, R10, R12-R15, the call through the Lipc entry variable, the
 * eight registers stored back.  Ping counts its Calls in blocks of eight (pingpong's FACTOR)
 * on its stack; pong loops forever echoing what it received (the Lipc pong only the word
 * count).  The frame layout and the order of the instructions are the binary's. */

    .data
    .align 8
    .global pist_ipc_entry, pist_lipc_entry, pist_dest, pist_partner, pist_partner_local
pist_ipc_entry:     .quad 0         /* libl4's __L4_Ipc and __L4_Lipc: the KIP's entries */
pist_lipc_entry:    .quad 0
pist_dest:          .quad 0         /* ping's partner (pong), a global id */
pist_partner:       .quad 0         /* pong's partner (ping), its global id ... */
pist_partner_local: .quad 0         /* ... and its local id, for Lipc */
pist_tbuf_initialized: .quad 0
pist_tbuf:          .quad 0

/* pingpong_ipc, the binary's Call once dest is in RDX and the tag in RAX: the tag comes
 * back in RAX. */
.macro PINGPONG_IPC
    movq %gs:0, %rdi
    movq %rdx, %rsi
    movq %rax, %r9
    xorq %r8, %r8
    pushq %rbp
    call *pist_ipc_entry
    popq %rbp
    movq %r9, %rax
.endm

/* debug_printf's trace-buffer check before it, then on to \ipc (there is no trace buffer;
 * with one, pingpong would record the event). */
.macro TRACE_CHECK ipc
    call pist_trace_buffer
    movq %rax, %rbx
    testq %rax, %rax
    je   \ipc
    jmp  \ipc
.endm

/* L4_Lcall once dest is in RSI and MR0 in RCX, RDI the UTCB: MR0-MR7 from the UTCB into R9,
 * RAX, RBX, R10, R12-R15, the call, and MR3-MR7 back (MR0-MR2 follow in the callers'
 * orders); MR0 comes back in RCX. */
.macro LCALL
    xorl %eax, %eax
    movq %rcx, (%rdi)
    movq %rsi, %rdx
    movq %rax, %r8
    movq %rcx, %r9
    movq 8(%rdi), %rax
    movq 16(%rdi), %rbx
    movq 24(%rdi), %r10
    movq 32(%rdi), %r12
    movq 40(%rdi), %r13
    movq 48(%rdi), %r14
    movq 56(%rdi), %r15
    pushq %rbp
    call *pist_lipc_entry
    popq %rbp
    movq %r9, %rcx
    movq %r10, 24(%rdi)
    movq %r12, 32(%rdi)
    movq %r13, 40(%rdi)
    movq %r14, 48(%rdi)
    movq %r15, 56(%rdi)
.endm

/* The ping side's frame: the callee-saved registers (the Calls clobber them) and its
 * counters at negative offsets from RBP, as in the binary. */
.macro PING_FRAME
    pushq %rbp
    movq %rsp, %rbp
    pushq %r15
    pushq %r14
    pushq %r13
    pushq %r12
    pushq %rbx
    subq $0x38, %rsp
.endm

.macro PING_RETURN
    addq $0x38, %rsp
    popq %rbx
    popq %r12
    popq %r13
    popq %r14
    popq %r15
    popq %rbp
    ret
.endm

    .text

/* L4_GetTraceBuffer: once initialised, one test and one load.  Its first call looks for a
 * trace-buffer memory descriptor in the KIP; Pecan has none, so the answer is 0 (the first
 * call happens before the measured loop). */
pist_trace_buffer:
    movq pist_tbuf_initialized(%rip), %rdi
    testq %rdi, %rdi
    je   1f
    movq pist_tbuf(%rip), %rax
    ret
1:  movq $1, pist_tbuf_initialized(%rip)
    xorl %eax, %eax
    movq %rax, pist_tbuf(%rip)
    ret

/* void pist_ping(l4_word_t untyped, l4_word_t blocks): 8 * blocks Calls to pist_dest, each
 * with `untyped` words (MR1..MRu as they are). */
    .global pist_ping
pist_ping:
    PING_FRAME
    movq %rdi, -0x40(%rbp)
    movq %rsi, -0x48(%rbp)
1:  movl $8, -0x38(%rbp)
    jmp  3f
2:  movq pist_dest(%rip), %rdx
    movq -0x40(%rbp), %rax
    PINGPONG_IPC
    subl $1, -0x38(%rbp)
    je   4f
3:  TRACE_CHECK 2b
4:  subq $1, -0x48(%rbp)
    jne  1b
    PING_RETURN

/* The pong thread of inter- and intra-space IPC: Call pist_partner forever, sending back
 * the tag it received.  Its first Call meets ping's receive. */
    .global pist_pong
pist_pong:
    xorl %r14d, %r14d
    jmp  3f
2:  movq pist_partner(%rip), %rdx
    movq %r14, %rax
    PINGPONG_IPC
    movq %rax, %r14
3:  TRACE_CHECK 2b

/* Lipc: void pist_lping(l4_word_t untyped, l4_word_t blocks), L4_Lcall to pist_dest (a
 * global id, as pingpong's ping passes it). */
    .global pist_lping
pist_lping:
    PING_FRAME
    movq %rsi, -0x58(%rbp)
    movq %rdi, %rax
    movq %gs:0, %rdi
    andl $0x3f, %eax
    movq %rax, -0x48(%rbp)
1:  movl $8, -0x38(%rbp)
    nop                             /* (the binary's alignment nop, executed) */
2:  movq pist_dest(%rip), %rsi
    movq -0x48(%rbp), %rcx
    LCALL
    subl $1, -0x38(%rbp)
    movq %rax, 8(%rdi)
    movq %rbx, 16(%rdi)
    movq %rcx, (%rdi)
    jne  2b
    subq $1, -0x58(%rbp)
    jne  1b
    PING_RETURN

/* The Lipc pong: L4_Lcall to ping's local id forever, sending back the number of untyped
 * words it received. */
    .global pist_lpong
pist_lpong:
    subq $0x18, %rsp
    movq pist_partner_local(%rip), %rax
    xorl %ecx, %ecx
    movq %rax, 8(%rsp)
    movq %gs:0, %rdi
2:  movq 8(%rsp), %rsi
    andl $0x3f, %ecx
    LCALL
    movq %rcx, (%rdi)
    andl $0x3f, %ecx
    movq %rax, 8(%rdi)
    movq %rbx, 16(%rdi)
    jmp  2b

    .section .note.GNU-stack, "", @progbits
