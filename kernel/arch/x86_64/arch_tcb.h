/* The x86-64 part of a TCB. */
#ifndef ARCH_TCB_H
#define ARCH_TCB_H

#include "types.h"

struct arch_tcb {
    word_t fs_base;             /* user FS base of a TF_FOREIGN thread (Linux TLS) */
    bool fpu_used;              /* the FPU area holds this thread's state */
};

#endif
