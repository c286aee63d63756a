/* crt0 for native Pecan programs: own stack, zeroed .bss, libl4 start-up, main(), exit().
 * The kernel starts initial servers with RSP = 0 (contract §7.4), so the first thing is a
 * stack of our own.  Register contents at entry are not used. */

#define STACK_SIZE 0x10000

    .section .text.crt0, "ax", @progbits
    .globl _start
    .type _start, @function
_start:
    /* A task started by the root task finds its start record at the initial RSP (see
     * libl4/task.h); initial servers start with RSP = 0.  Keep it across the .bss clear. */
    movq    %rsp, %r15
    /* .bss is zero per ELF, but loaders other than the kernel's may skip it; clearing it
     * here (before the stack inside it is used) makes that harmless. */
    cld
    movq    $__bss_start, %rdi
    movq    $_end, %rcx
    subq    %rdi, %rcx
    xorl    %eax, %eax
    rep stosb

    movq    %r15, l4lib_start_sp(%rip)
    movq    $l4lib_stack_top, %rsp
    xorl    %ebp, %ebp
    call    l4lib_init
    call    main
    movl    %eax, %edi
    call    exit
    /* exit() does not return; if a replacement does, stop in the debugger for good. */
1:  int3
    jmp     2f
    movq    $crt0_stopped, %rax
2:  jmp     1b
    .size _start, . - _start

    .section .rodata.crt0, "a", @progbits
crt0_stopped:
    .asciz "crt0: exit() returned"

    .section .bss.l4lib_stack, "aw", @nobits
    .balign 4096
    .globl l4lib_stack_bottom, l4lib_stack_top
l4lib_stack_bottom:
    .skip STACK_SIZE
l4lib_stack_top:

    .section .note.GNU-stack, "", @progbits
