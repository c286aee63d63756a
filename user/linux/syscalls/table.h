/* The system-call table (table.c): every x86-64 Linux number has an entry, a handler or
 * none (ENOSYS, counted); names.c has their names. */
#ifndef LX_SYSCALLS_TABLE_H
#define LX_SYSCALLS_TABLE_H

#include "park/park.h"

struct thread;

#define LX_NSYSCALLS   464              /* numbers 0..463 have an entry */

typedef long (*sys_handler)(struct thread *t, const struct sysargs *a);
/* How much of Linux's call an entry does (table.c says what each means). */
enum sys_status { SYS_NONE, SYS_FULL, SYS_PARTIAL, SYS_STUB };
struct sys_entry {
    sys_handler fn;                 /* NULL: ENOSYS */
    enum sys_status status;
    const char *note;               /* what is missing or differs, for docs/linux/syscalls.md */
};
/* Run the handler of a->nr for t: a value for RAX, or LX_NOREPLY, LX_REPLIED, LX_PARK
 * (park/park.h).  Pending signals are delivered on the way out. */
long syscall_dispatch(struct thread *t, const struct sysargs *a);
void syscall_report(void);          /* the debug hook: unimplemented calls seen, by number */
unsigned long syscall_unimplemented(unsigned nr);  /* ENOSYS count of a number (/proc/lx) */
extern const char *const sys_names[LX_NSYSCALLS];

#endif
