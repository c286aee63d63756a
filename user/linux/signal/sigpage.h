/* The signal page (sigpage.c): the code page every process has for entering handlers and
 * returning from them with the FPU state saved and restored in user mode, and fork's way to
 * save the parent's FPU state. */
#ifndef LX_SIGNAL_SIGPAGE_H
#define LX_SIGNAL_SIGPAGE_H

#include <libl4.h>

struct region;

#define LX_SIGPAGE 0x4000ul         /* below mmap_min_addr, between the KIP and the UTCBs */
/* Its region, below mmap_min_addr (so munmap and mprotect cannot reach it): mm_init puts
 * it into every new memory model. */
void sigpage_region(struct region *r);
l4_word_t sigpage_entry(void);
l4_word_t sigpage_entry_nosave(void);   /* the entry without the fxsave (signal_return) */
l4_word_t sigpage_return(void);
/* Where on the return path rip is: 0 before the fxrstor, 1 after it (RSP still the area),
 * 2 at the final `ret` (RSP = the word holding the interrupted RIP); -1 elsewhere. */
int sigpage_return_step(l4_word_t rip);
#define LX_SYS_FORK_FPU 0x7f000001ul  /* the fork path's private call (no Linux number) */
l4_word_t sigpage_fork(void);       /* fxsave at RSP, then LX_SYS_FORK_FPU */
l4_word_t sigpage_fork_end(void);   /* the RIP that call reports */

#endif
