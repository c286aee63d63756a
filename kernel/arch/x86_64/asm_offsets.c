/* Structure offsets and constants for the assembly code, extracted at build time into
 * asm_offsets.h (see kernel/build.mk): the assembly never hard-codes a C layout. */
#include "tcb.h"
#include "frame.h"
#include "paging.h"
#include "space.h"
#include "sched.h"
#include "ipc.h"

#define DEFINE(name, value) __asm__ volatile("\n.ascii \"->" #name " %c0\"" :: "i"(value))

void asm_offsets(void);
void asm_offsets(void)
{
    DEFINE(TCB_GID, offsetof(struct tcb, gid));
    DEFINE(TCB_LOCAL_ID, offsetof(struct tcb, local_id));
    DEFINE(TCB_MR, offsetof(struct tcb, mr));
    DEFINE(TCB_SPACE, offsetof(struct tcb, space));
    DEFINE(TCB_STATE, offsetof(struct tcb, state));
    DEFINE(TCB_PRIO, offsetof(struct tcb, prio));
    DEFINE(TCB_FLAGS, offsetof(struct tcb, flags));
    DEFINE(TCB_WAKE, offsetof(struct tcb, wake));
    DEFINE(TCB_CONT, offsetof(struct tcb, cont));
    DEFINE(TCB_WAIT_FOR, offsetof(struct tcb, ipc.wait_for));
    DEFINE(TCB_SENDQ, offsetof(struct tcb, sendq));
    DEFINE(TCB_LAST_SENDER, offsetof(struct tcb, last_sender));
    DEFINE(TCB_FS_BASE, offsetof(struct tcb, arch.fs_base));
    DEFINE(TCB_GS_BASE, offsetof(struct tcb, arch.gs_base));
    DEFINE(TCB_FRAME, TCB_SIZE - FRAME_SIZE);
    DEFINE(TCB_SIZE_, TCB_SIZE);
    DEFINE(SPACE_PML4_PHYS, offsetof(struct space, pml4_phys));
    DEFINE(SPACE_CR3, offsetof(struct space, cr3));
    DEFINE(SPACE_IPC_SLOW, offsetof(struct space, ipc_slow));
    DEFINE(SPACE_FOREIGN_HANDLER, offsetof(struct space, foreign_handler));
    DEFINE(TF_FOREIGN_, TF_FOREIGN);
    /* Where the flags are in the guard word (tcb.h). */
    DEFINE(TCB_GUARD_FLAGS_SHIFT, 8 * (offsetof(struct tcb, flags) - offsetof(struct tcb, state)));
    DEFINE(TS_WAIT_RECV_, TS_WAIT_RECV);
    DEFINE(TS_READY_, TS_READY);
    DEFINE(WAKE_DONE_, WAKE_DONE);
    DEFINE(WAKE_NONE_, WAKE_NONE);
}
