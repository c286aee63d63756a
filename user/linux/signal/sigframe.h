/* Linux's x86-64 rt_sigframe (sigframe.c; docs/linux/signals.md, "The frame"). */
#ifndef LX_SIGNAL_SIGFRAME_H
#define LX_SIGNAL_SIGFRAME_H

#include "signal/sigstate.h"
#include <libl4.h>
#include <stdint.h>

struct thread;

/* Build the frame for sig on t's stack and turn regs into the handler's; 0 or -EFAULT.
 * fpsrc: 0, the FPU registers are the interrupted code's (the signal page saves them into the
 * frame); else the user address of an FPU area holding that state, copied into the frame. */
int sigframe_setup(struct thread *t, int sig, const struct k_sigaction *ka,
                   const struct k_siginfo *info, uint64_t oldmask, l4_word_t *regs,
                   l4_word_t fpsrc);
/* rt_sigreturn: regs (18 words, RIP and RSP the interrupted code's) from the frame at
 * rsp - 8, the mask and the alternate stack; *fpstate: the frame's FPU area (0: none); 0 or
 * -EFAULT. */
int sigframe_restore(struct thread *t, l4_word_t rsp, l4_word_t *regs, l4_word_t *fpstate);
/* The way back through the signal page: the FPU area restored there, then RIP and RSP as in
 * regs (the words it needs written below regs' RSP); regs become the page's.  0 or -EFAULT. */
int sigframe_return(struct thread *t, l4_word_t *regs, l4_word_t fpstate);
/* regs stopped on that way back (sigpage_return_step): turned into the interrupted code's
 * (RIP and RSP from the words the way back uses), *fpstate the area whose FPU state is still
 * to be restored (0: already restored).  Other regs stay as they are. */
void sigframe_unwind_return(struct thread *t, l4_word_t *regs, l4_word_t *fpstate);
/* The 128-byte struct siginfo of a signal. */
void sigframe_siginfo(int sig, const struct k_siginfo *info, void *out);
/* sigaltstack's flags for a stack pointer. */
int sigframe_ss_flags(const struct thread *t, l4_word_t sp);

#endif
