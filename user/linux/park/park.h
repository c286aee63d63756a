/* Parked calls (park.c; docs/linux-server.md, "Parked calls"): a handler that cannot
 * finish now parks its caller, lx serves everyone else, and the call runs again when what
 * it waits for is woken or its deadline passes.  Also what every handler gets (the call's
 * arguments) and the special results it may return instead of a value. */
#ifndef LX_PARK_PARK_H
#define LX_PARK_PARK_H

#include <libl4.h>
#include <stdbool.h>
#include <stdint.h>

struct task;

/* The message being served (MRs copied out once: the handlers may use IPC). */
struct sysargs {
    l4_word_t nr, a[6], rip, rsp, rflags;
};
/* serve_syscall copies it from MR1..MR10 in one piece. */
_Static_assert(sizeof(struct sysargs) == L4_FSC_WORDS * sizeof(l4_word_t) &&
               L4_FSC_RAX == 1 && L4_FSC_RDI == 2 && L4_FSC_RIP == 8 && L4_FSC_RFLAGS == 10,
               "struct sysargs is MR1..MR10 of the foreign system-call message");

/* What a handler returns besides a value for RAX. */
#define LX_NOREPLY  (-0x7FFFFFFFFFFFFFFFl)  /* the handler answered (or ended) the caller */
#define LX_REPLIED  (-0x7FFFFFFFFFFFFFFEl)  /* the handler put its own reply into the MRs */
#define LX_PARK     (-0x7FFFFFFFFFFFFFFDl)  /* the handler parked the caller (park_call) */

/* What a process waits for when lx has not answered its last message yet (a parked call:
 * lx goes on serving everyone else and replies when the condition holds). */
enum park {
    PARK_NONE,
    PARK_FORK_REGS,                 /* fork: its registers (GET_REGS) are on their way */
    PARK_FORK_FPU,                  /* fork: it saves its FPU state (the signal page) */
    PARK_VFORK,                     /* vfork: until the child (park_pid) execs or ends */
    PARK_CALL,                      /* a call that runs again when woken (park.c) */
    PARK_START,                     /* a new child: its first message gets the registers */
};

void park_wake(struct task *t);     /* t's parked call runs again */
/* Park t's call (after waitq_add on what it waits for): returns LX_PARK for the handler to
 * return.  deadline: lx_now() value at which the call runs again anyway; 0 for none. */
long park_call(struct task *t, uint64_t deadline);
bool park_retrying(const struct task *t);   /* the handler runs for a parked call */
/* End t's parked call without running it (a signal): true if it was parked; the caller
 * answers it. */
bool park_cancel(struct task *t);
void park_task_exit(struct task *t);
/* The receive loop's part (main.c). */
extern uint64_t park_ready;
extern unsigned park_ntimed;
/* Anything woken or timed at all?  The loop's one test per message when nothing is. */
static inline bool park_busy(void) { return park_ready | park_ntimed; }
void park_parked(struct task *t, const struct sysargs *a);  /* the handler said LX_PARK */
bool park_pending(void);            /* calls to run again now */
void park_run(void);                /* run them; clobbers the MRs */
uint16_t park_timeout(void);        /* the receive timeout until the next deadline */

#endif
