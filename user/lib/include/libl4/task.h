/* Tasks started by the root task: the start record, and the root task's service protocol
 * (docs/root-task.md). */
#ifndef LIBL4_TASK_H
#define LIBL4_TASK_H

#include <l4/types.h>

/* The root task starts a boot module with RSP pointing at this record (crt0 keeps it). */
#define L4_TASK_START_MAGIC 0x314E43504B534154ull       /* "TASKPCN1" */
#define L4_TASK_CMDLINE_MAX 256

struct l4_task_start {
    l4_word_t magic;
    l4_word_t root;                     /* the root task's service thread */
    l4_word_t heap_base, heap_size;     /* anonymous memory the root task pages on demand */
    char cmdline[L4_TASK_CMDLINE_MAX];  /* the module's command line (path and arguments) */
};

/* NULL when the program was not started by the root task (e.g. it is the root task). */
const struct l4_task_start *l4_task_start(void);
const char *l4_task_cmdline(void);

/* --- the root task's service (labels of a Call to l4_task_start()->root) --------------------
 * Replies carry the result in MR1 (a thread id, or 0) and an L4 error code in MR2.  Thread
 * ids in requests are global ids.  Only tasks the root task started from boot modules
 * (trusted servers) may use it, except ROOT_NAME_LOOKUP, which any task may use; tasks
 * created through the service are not trusted.  A thread or task can be deleted only by its
 * creator (docs/root-task.md). */
#define ROOT_TASK_CREATE    0x7201  /* MR1 pager (not nil), MR2 priority, MR3 flags
                                     * (ROOT_TASK_*): a new space (KIP area 0xBFF00000,
                                     * UTCB area 0xBF000000, 256 KiB) with one thread (UTCB at
                                     * the area's base), active, waiting for its start message
                                     * from the pager -> MR1 thread id */
#define ROOT_TASK_FOREIGN   0x1     /* the foreign system-call ABI (docs/linux-abi.md) */
#define ROOT_TASK_CONFINED  0x2     /* its IPC to other spaces goes to the pager (redirector) */
#define ROOT_THREAD_CREATE  0x7202  /* MR1 a thread of the target space (the caller's or one
                                     * it created), MR2 pager, MR3 UTCB location, MR4 priority
                                     * -> MR1 thread id (waiting for its start message) */
#define ROOT_THREAD_DELETE  0x7203  /* MR1 thread (the last thread of a space ends the space) */
#define ROOT_IRQ_ATTACH     0x7204  /* MR1 interrupt line, MR2 handler thread (the caller's
                                     * space): associate; MR2 = 0: detach */
#define ROOT_NAME_REGISTER  0x7205  /* MR1, MR2 a name (16 bytes, NUL-padded), MR3 thread:
                                     * publish a service (trusted tasks only; a name
                                     * belongs to the task that published it first) */
#define ROOT_NAME_LOOKUP    0x7206  /* MR1, MR2 a name -> MR1 its thread; the reply waits
                                     * until the name is registered (any task may look up) */

/* Client side (task.c): the root task's service thread from the start record. */
l4_word_t l4_root_call(l4_word_t label, l4_word_t a, l4_word_t b, l4_word_t c, l4_word_t d,
                       l4_word_t *error);
l4_word_t l4_name_lookup(const char *name);     /* waits until it is registered */
bool l4_name_register(const char *name, l4_word_t thread);

#endif
