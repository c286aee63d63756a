/* Futexes (futex.c; docs/linux/futex.md): wait queues keyed by a user word, the calls
 * futex(2) and futex_waitv(2) (syscalls/sys_futex.c), and what thread exit needs from them:
 * the wake of CLONE_CHILD_CLEARTID and the walk of the robust list. */
#ifndef LX_TASK_FUTEX_H
#define LX_TASK_FUTEX_H

#include <libl4.h>
#include <stdbool.h>
#include <stdint.h>

struct thread;

/* futex(2)'s operations and flags (linux/futex.h). */
#define FUTEX_WAIT              0
#define FUTEX_WAKE              1
#define FUTEX_FD                2   /* gone since 2.6.26: ENOSYS */
#define FUTEX_REQUEUE           3
#define FUTEX_CMP_REQUEUE       4
#define FUTEX_WAKE_OP           5
#define FUTEX_LOCK_PI           6
#define FUTEX_UNLOCK_PI         7
#define FUTEX_TRYLOCK_PI        8
#define FUTEX_WAIT_BITSET       9
#define FUTEX_WAKE_BITSET       10
#define FUTEX_WAIT_REQUEUE_PI   11
#define FUTEX_CMP_REQUEUE_PI    12
#define FUTEX_LOCK_PI2          13
#define FUTEX_PRIVATE_FLAG      128
#define FUTEX_CLOCK_REALTIME    256
#define FUTEX_CMD_MASK          (~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME))
#define FUTEX_BITSET_MATCH_ANY  0xffffffffu

/* The word of a PI or robust futex. */
#define FUTEX_WAITERS           0x80000000u
#define FUTEX_OWNER_DIED        0x40000000u
#define FUTEX_TID_MASK          0x3fffffffu

#define FUTEX_WAITV_MAX         128 /* futex_waitv's entries */

/* futex(2) after its timeout was decoded: deadline is lx_now()'s value when a timed wait
 * ends (0: none), val2 the fourth argument as a count (REQUEUE, WAKE_OP).  A value for RAX
 * or LX_PARK. */
long futex_call(struct thread *t, l4_word_t uaddr, int op, uint32_t val, uint64_t deadline,
                l4_word_t uaddr2, uint32_t val2, uint32_t val3);
/* futex_waitv(2) with its arguments checked: n entries at uwaiters (1..128). */
long futex_waitv(struct thread *t, l4_word_t uwaiters, unsigned n, uint64_t deadline);

/* Linux's limit on the entries of a robust list walked at a thread's death. */
#define ROBUST_LIST_LIMIT       2048

/* Wake up to nr threads waiting on the word at uaddr of t's memory (as FUTEX_WAKE, shared
 * key unless private; bitset FUTEX_BITSET_MATCH_ANY): the number woken, or -errno (EFAULT,
 * EINVAL for a misaligned word).  Thread exit with CLONE_CHILD_CLEARTID: write 0 to the
 * word, then futex_wake(t, clear_child_tid, 1, false). */
long futex_wake(struct thread *t, l4_word_t uaddr, int nr, bool private_);

/* The futex word at uaddr belonged to the dying thread t: as Linux's handle_futex_death,
 * if its TID is t's, set FUTEX_OWNER_DIED (keeping FUTEX_WAITERS) and, if there are waiters
 * (or pending_op and FUTEX_WAITERS is set), wake one.  pi: the entry is a PI futex (only the
 * word changes; its waiters are handed on as UNLOCK_PI would).  pending_op: the entry is the
 * list_op_pending one.  0 or -EFAULT. */
int futex_robust_died(struct thread *t, l4_word_t uaddr, bool pi, bool pending_op);

/* What t's death does to futexes, as Linux's futex_exit_release: walk its robust list
 * (t->robust_list, set_robust_list's head) as exit_robust_list (at most ROBUST_LIST_LIMIT
 * entries, the pending op last, each through futex_robust_died), then hand every PI lock it
 * still holds with waiters queued to the first of them with FUTEX_OWNER_DIED
 * (exit_pi_state_list).  Call it at every thread's death, also without a robust list,
 * before the thread's memory goes (exit, exec, a fatal signal). */
void futex_exit_robust_list(struct thread *t);

#endif
