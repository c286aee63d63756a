/* Linux's x86-64 rt_sigframe (sigframe.c; docs/linux/signals.md, "The frame"). */
#ifndef LX_SIGNAL_SIGFRAME_H
#define LX_SIGNAL_SIGFRAME_H

#include "signal/sigstate.h"
#include <libl4.h>
#include <stdint.h>

struct thread;

/* Build the frame for sig on t's stack and turn regs into the handler's; 0 or -EFAULT. */
int sigframe_setup(struct thread *t, int sig, const struct k_sigaction *ka,
                   const struct k_siginfo *info, uint64_t oldmask, l4_word_t *regs);
/* rt_sigreturn: regs (18 words) from the frame at rsp - 8; 0 or -EFAULT. */
int sigframe_restore(struct thread *t, l4_word_t rsp, l4_word_t *regs);
/* The 128-byte struct siginfo of a signal. */
void sigframe_siginfo(int sig, const struct k_siginfo *info, void *out);
/* sigaltstack's flags for a stack pointer. */
int sigframe_ss_flags(const struct thread *t, l4_word_t sp);

#endif
