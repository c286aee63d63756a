/* Signals: for now only recorded (the signal layer replaces this: docs/linux/signals.md). */
#include "signal.h"

void signal_raise(struct task *t, int sig)
{
    if (sig > 0 && sig <= 64 && t->state == TASK_RUNNING)
        t->sigpending |= 1ull << (sig - 1);
}

int signal_raise_pgrp(int pgid, int sig)
{
    int n = 0;
    for (unsigned i = 0; i < LX_MAX_TASKS; i++) {
        struct task *t = task_slot(i);
        if (t->state == TASK_RUNNING && t->pgid == pgid) {
            signal_raise(t, sig);
            n++;
        }
    }
    return n;
}
