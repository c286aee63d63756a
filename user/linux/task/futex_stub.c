/* STUB until branch lxfutex lands (it owns task/futex.[ch]): weak definitions of what thread
 * exit calls, so that lxthreads builds alone.  futex.c's strong definitions replace them at
 * link time; delete this file when both branches are merged. */
#include "task/futex.h"

__attribute__((weak)) long futex_wake(struct thread *t, l4_word_t uaddr, int nr, bool private_)
{
    (void)t, (void)uaddr, (void)nr, (void)private_;
    return 0;                       /* nobody can wait on a futex without futex.c */
}

__attribute__((weak)) void futex_exit_robust_list(struct thread *t)
{
    (void)t;                        /* futex.c walks the list */
}
