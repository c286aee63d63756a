/* The kernel's first instructions: 32-bit protected mode at physical 1 MiB (the loader's
 * header is the platform's: platform/pc/multiboot_header.S) -> long mode -> the upper half,
 * then the platform's C entry, platform_entry(EAX, EBX), with the two registers the loader
 * started the kernel with. */
#include "boot_defs.h"

    .section .boot.text, "ax"
    .code32
    .global boot_entry32
boot_entry32:
    cli
    cld
    movl $boot_stack_top, %esp
    movl %eax, %edi                             /* the loader's EAX and EBX (multiboot: */
    movl %ebx, %esi                             /* the magic and the information's address) */

    /* Long mode available? */
    movl $0x80000000, %eax
    cpuid
    cmpl $0x80000001, %eax
    jb   no_long_mode
    movl $0x80000001, %eax
    cpuid
    btl  $29, %edx
    jnc  no_long_mode

    /* Boot page tables: identity 0-1 GiB and the same 1 GiB at KERNEL_VMA (2 MiB pages). */
    movl $boot_pd, %ebx
    xorl %ecx, %ecx
1:  movl %ecx, %eax
    shll $21, %eax
    orl  $0x83, %eax                            /* present, writable, 2 MiB */
    movl %eax, (%ebx,%ecx,8)
    movl $0, 4(%ebx,%ecx,8)
    incl %ecx
    cmpl $512, %ecx
    jb   1b
    movl $boot_pd, %eax
    orl  $0x3, %eax
    movl %eax, boot_pdpt_low
    movl %eax, boot_pdpt_high + 510 * 8
    movl $boot_pdpt_low, %eax
    orl  $0x3, %eax
    movl %eax, boot_pml4
    movl $boot_pdpt_high, %eax
    orl  $0x3, %eax
    movl %eax, boot_pml4 + 511 * 8

    movl %cr4, %eax
    orl  $(1 << 5), %eax                        /* PAE */
    movl %eax, %cr4
    movl $boot_pml4, %eax
    movl %eax, %cr3
    movl $0xC0000080, %ecx                      /* EFER */
    rdmsr
    orl  $(1 << 8), %eax                        /* LME */
    wrmsr
    movl %cr0, %eax
    orl  $0x80010001, %eax                      /* PG, WP, PE */
    movl %eax, %cr0

    lgdt boot_gdt_ptr
    ljmp $0x08, $boot_entry64

no_long_mode:                                   /* (COM1 on a PC: a last word) */
    movl $msg_no_lm, %esi
2:  lodsb
    testb %al, %al
    jz   3f
    movw $0x3F8, %dx
    outb %al, %dx
    jmp  2b
3:  hlt
    jmp  3b

    .code64
boot_entry64:
    movw $0x10, %ax
    movw %ax, %ds
    movw %ax, %es
    movw %ax, %ss
    xorw %ax, %ax
    movw %ax, %fs
    movw %ax, %gs
    movabsq $kernel_stack_top_boot, %rsp
    movabsq $platform_entry, %rax
    /* edi = EAX, esi = EBX at entry: the System V argument registers */
    callq *%rax
4:  hlt
    jmp 4b

    .section .boot.data, "aw"
    .align 4096
boot_pml4:      .space 4096
boot_pdpt_low:  .space 4096
boot_pdpt_high: .space 4096
boot_pd:        .space 4096
    .space 1024
boot_stack_top:

    .align 16
boot_gdt:
    .quad 0
    .quad 0x00AF9A000000FFFF                     /* 64-bit code */
    .quad 0x00CF92000000FFFF                     /* data */
boot_gdt_ptr:
    .word boot_gdt_ptr - boot_gdt - 1
    .long boot_gdt

msg_no_lm:
    .asciz "Pecan: this CPU has no long mode\r\n"

    /* The stack kmain runs on until the first thread exists. */
    .section .bss
    .align 16
    .global kernel_stack_boot
kernel_stack_boot:
    .space 16384
kernel_stack_top_boot:
