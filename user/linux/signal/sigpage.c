/* The signal page: a page of code lx maps into every process (read and execute, at
 * LX_SIGPAGE, below mmap_min_addr where a program cannot map anything), through which a
 * handler is entered and rt_sigreturn returns.  It exists because lx cannot read or set a
 * process's FPU/SSE registers (the foreign ABI carries the integer registers only), and
 * Linux's frame holds them: the process saves and restores them itself, in user mode, as
 * Linux's vDSO does other work for it (docs/linux/signals.md, "The frame").
 *
 *   entry   (RDX = &ucontext, R11 = the handler; lx's SET_REGS sets both): fxsave the
 *           interrupted code's FPU state into the frame's FPU area (uc_mcontext.fpstate),
 *           give the handler the initial FPU state as Linux does (fninit, MXCSR 0x1F80),
 *           RAX = 0, jump to the handler.  `nosave` skips the fxsave: a signal delivered at
 *           rt_sigreturn gets the FPU state lx copied from the frame it returns from (the
 *           registers still hold the handler's).
 *   return  (RSP = the frame's FPU area, every other register already restored by lx):
 *           fxrstor from it, then RSP = the word lx left at area + 464 (in the fxsave
 *           layout's bytes for software, which fxrstor ignores), which points 136 bytes
 *           below the interrupted RSP at the interrupted RIP: `ret $128` takes it and leaves
 *           RSP where it was.  No register and no flag is touched on the way back.
 *   fork    (RSP = a scratch area below the parent's stack): fxsave there and make the
 *           private call LX_SYS_FORK_FPU; lx then creates the child, which inherits the
 *           area and starts on the return path above, so it gets its parent's FPU state
 *           (task/clone.c). */
#include "signal/sigpage.h"
#include "mm/mm.h"

__asm__(".pushsection .rodata\n"
        ".balign 4096\n"
        ".globl lx_sigpage\n"
        "lx_sigpage:\n"
        "  movq 224(%rdx), %rax\n"         /* uc->uc_mcontext.fpstate */
        "  fxsave64 (%rax)\n"
        ".globl lx_sigpage_nosave\n"
        "lx_sigpage_nosave:\n"             /* the area is written already (rt_sigreturn) */
        "  fninit\n"
        "  ldmxcsr lx_sigpage_mxcsr(%rip)\n"
        "  xorl %eax, %eax\n"
        "  jmp *%r11\n"
        ".globl lx_sigpage_return\n"
        "lx_sigpage_return:\n"
        "  fxrstor64 (%rsp)\n"
        ".globl lx_sigpage_return_sp\n"
        "lx_sigpage_return_sp:\n"
        "  movq 464(%rsp), %rsp\n"
        ".globl lx_sigpage_return_ret\n"
        "lx_sigpage_return_ret:\n"
        "  ret $128\n"
        ".globl lx_sigpage_fork\n"
        "lx_sigpage_fork:\n"               /* fork: RSP = the scratch area below the stack */
        "  fxsave64 (%rsp)\n"
        "  movl $0x7f000001, %eax\n"       /* LX_SYS_FORK_FPU */
        "  syscall\n"
        ".globl lx_sigpage_fork_end\n"
        "lx_sigpage_fork_end:\n"
        "  ud2\n"
        "lx_sigpage_mxcsr: .long 0x1f80\n"
        ".balign 4096\n"
        ".popsection\n");

extern const char lx_sigpage[], lx_sigpage_nosave[], lx_sigpage_return[],
                  lx_sigpage_return_sp[], lx_sigpage_return_ret[], lx_sigpage_fork[],
                  lx_sigpage_fork_end[];

void sigpage_region(struct region *r)
{
    *r = (struct region){ .start = LX_SIGPAGE, .end = LX_SIGPAGE + LX_PAGE,
                          .prot = PROT_READ | PROT_EXEC, .fdata = (l4_word_t)lx_sigpage,
                          .fstart = LX_SIGPAGE, .fend = LX_SIGPAGE + LX_PAGE };
}

l4_word_t sigpage_entry(void)
{
    return LX_SIGPAGE;
}

l4_word_t sigpage_entry_nosave(void)
{
    return LX_SIGPAGE + (l4_word_t)(lx_sigpage_nosave - lx_sigpage);
}

l4_word_t sigpage_return(void)
{
    return LX_SIGPAGE + (l4_word_t)(lx_sigpage_return - lx_sigpage);
}

int sigpage_return_step(l4_word_t rip)
{
    const char *p = lx_sigpage + (rip - LX_SIGPAGE);
    return p == lx_sigpage_return ? 0 : p == lx_sigpage_return_sp ? 1 :
           p == lx_sigpage_return_ret ? 2 : -1;
}

l4_word_t sigpage_fork(void)
{
    return LX_SIGPAGE + (l4_word_t)(lx_sigpage_fork - lx_sigpage);
}

l4_word_t sigpage_fork_end(void)
{
    return LX_SIGPAGE + (l4_word_t)(lx_sigpage_fork_end - lx_sigpage);
}
