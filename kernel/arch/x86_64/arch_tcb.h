/* The x86-64 part of a TCB. */
#ifndef ARCH_TCB_H
#define ARCH_TCB_H

#include "types.h"

struct arch_tcb {
    /* The thread's user FS and GS bases.  While it runs they are in the CPU (the thread may
     * move them with wrfsbase/wrgsbase) and these words are stale; the switch tail
     * (switch_tail.h) saves them when it stops running.  New threads: FS 0, GS GS_PAGE_USER
     * (%gs:0 = the UTCB pointer, X.2). */
    word_t fs_base;
    word_t gs_base;
    bool fpu_used;              /* the FPU area holds this thread's state */
};

#endif
