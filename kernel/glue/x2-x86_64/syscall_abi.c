/* System calls on x86-64: decoding the registers of the stub that was used (contract §4.2)
 * and putting the results back.  The semantics live with their objects (docs/architecture.md,
 * "System calls: decode and apply"): Ipc in ipc.c, ThreadControl in thread.c, SpaceControl in
 * space.c, Schedule and ThreadSwitch in sched.c, Unmap in mapdb.c, ExchangeRegisters,
 * ProcessorControl and MemoryControl in syscall.c.  Also here: the IPC return's registers
 * (ipc_user_return) and the KIP's system-call links. */
#include "arch.h"
#include "glue.h"
#include "frame.h"
#include "x86.h"
#include "paging.h"
#include "syscall_nr.h"
#include "syscall.h"
#include "tcb.h"
#include "sched.h"
#include "ipc.h"
#include "thread.h"
#include "space.h"
#include "mapdb.h"
#include "fault.h"
#include "foreign.h"
#include "invariants.h"
#include <l4/message.h>
#include <l4/kip.h>
#include <l4/control.h>
#include <l4/utcb.h>
#include <l4/pecan.h>

static inline void set_error(struct tcb *t, word_t e)
{
    utcb_set(t, L4_UTCB_ERROR_CODE, e);
}

static inline word_t to_global(struct tcb *self, word_t id)
{
    return syscall_global_id(self, id);
}

/* --- Ipc / Lipc -------------------------------------------------------------------------- */

static void sys_ipc(struct tcb *self, struct frame *f)
{
    word_t *mr = self->mr;
    mr[0] = f->r9;  mr[1] = f->rax; mr[2] = f->rbx; mr[3] = f->r10;
    mr[4] = f->r12; mr[5] = f->r13; mr[6] = f->r14; mr[7] = f->r15;
    ipc(self, f->rsi, f->rdx, f->r8, false);
    ipc_user_return(self);
}

/* The continuation of every thread that blocked in an Ipc: MR0-MR7, the sender and the own
 * local id into the registers the stub returns (contract §4.4.7). */
void ipc_user_return(struct tcb *t)
{
    if (t->flags & TF_FOREIGN) {            /* the only IPC such a thread makes */
        foreign_syscall_return(t);
        return;
    }
    struct frame *f = tcb_frame(t);
    word_t *mr = t->mr;
    f->r9 = mr[0];
    f->rax = mr[1];
    f->rbx = mr[2];
    f->r10 = mr[3];
    f->r12 = mr[4];
    f->r13 = mr[5];
    f->r14 = mr[6];
    f->r15 = mr[7];
    f->rsi = t->ipc.ipc_from;
    f->rdi = t->local_id;
    f->rdx = f->r8 = f->rbp = 0;
    thread_return_to_user_checks(t);
    invariants_check("IPC return");
}

/* --- ExchangeRegisters ------------------------------------------------------------------- */

static void sys_exchange_registers(struct tcb *self, struct frame *f)
{
    struct exregs r = {
        .ctl = f->rsi, .sp = f->rdx, .ip = f->r8, .flags = f->r9, .user_handle = f->r10,
        .pager = f->rdi, .fs_base = f->r12, .gs_base = f->r13,  /* Pecan: R12, R13 */
    };
    word_t ctl = r.ctl;
    if (!exchange_registers(self, f->rax, &r)) {
        f->rax = L4_NILTHREAD;
        return;
    }
    f->rax = r.result;
    f->rsi = r.ctl;
    f->rdx = r.sp;
    f->r8 = r.ip;
    f->r9 = r.flags;
    f->r10 = r.user_handle;
    f->rdi = r.pager;
    if (ctl & L4_EXREGS_GET_BASES) {
        f->r12 = r.fs_base;
        f->r13 = r.gs_base;
    }
}
/* --- ThreadControl ----------------------------------------------------------------------- */

static void sys_thread_control(struct tcb *self, struct frame *f)
{
    word_t e = thread_control(self, f->rdi, to_global(self, f->r8), to_global(self, f->rdx),
                              to_global(self, f->rsi), f->r9);
    if (e)
        set_error(self, e);
    f->rax = e ? 0 : 1;
}

/* --- SpaceControl ------------------------------------------------------------------------ */

static void sys_space_control(struct tcb *self, struct frame *f)
{
    word_t old;
    /* R10: the handler, or a channel's partner */
    word_t handler = f->rsi & (L4_SPACE_CTL_FOREIGN | L4_SPACE_CTL_CHANNEL) ?
                     to_global(self, f->r10) : 0;
    word_t e = space_control(self, to_global(self, f->rdi), f->rsi, f->rdx, f->r8,
                             to_global(self, f->r9), handler, &old);
    if (e)
        set_error(self, e);
    f->rax = e ? 0 : 1;
    f->rdx = old;                       /* the old control word */
}

/* --- Schedule, ThreadSwitch, SystemClock ------------------------------------------------ */

static void sys_schedule(struct tcb *self, struct frame *f)
{
    word_t state, old_time;
    word_t e = sched_schedule(self, to_global(self, f->rdi), f->rdx, f->r8, f->rsi, f->r9,
                              &state, &old_time);
    if (e) {
        set_error(self, e);
        f->rax = L4_SCHEDULE_ERROR;
        return;
    }
    f->rax = state;
    f->rdx = old_time;
}

static void sys_thread_switch(struct tcb *self, struct frame *f)
{
    sched_thread_switch(self, to_global(self, f->rdi));
}

/* --- Unmap --------------------------------------------------------------------------------- */

static void sys_unmap(struct tcb *self, struct frame *f)
{
    word_t *mr = self->mr;
    mr[0] = f->r9;  mr[1] = f->rax; mr[2] = f->rbx; mr[3] = f->r10;
    mr[4] = f->r12; mr[5] = f->r13; mr[6] = f->r14; mr[7] = f->r15;
    mapdb_unmap_fpages(self->space, mr, (f->rdx & L4_UNMAP_COUNT_MASK) + 1, f->rdx & L4_UNMAP_FLUSH);
    f->r9 = mr[0];  f->rax = mr[1]; f->rbx = mr[2]; f->r10 = mr[3];
    f->r12 = mr[4]; f->r13 = mr[5]; f->r14 = mr[6]; f->r15 = mr[7];
    f->rdi = self->local_id;
}

/* --- ProcessorControl, MemoryControl ------------------------------------------------------ */

static void sys_processor_control(struct tcb *self, struct frame *f)
{
    f->rax = processor_control(self, f->rdi);
}

static void sys_memory_control(struct tcb *self, struct frame *f)
{
    word_t *mr = self->mr;
    mr[1] = f->rax; mr[2] = f->rbx; mr[3] = f->r10;
    mr[4] = f->r12; mr[5] = f->r13; mr[6] = f->r14; mr[7] = f->r15;
    word_t attr[4] = { f->r9, f->rsi, f->r8, f->rbp };     /* attribute 3 via the stub's RBP */
    f->rdx = memory_control(self, f->rdx & 0x3F, attr);
    f->rbp = mr[0];                     /* the stub moves it into RCX */
    f->rax = mr[1];
    f->rdi = self->local_id;
}

/* --- dispatch ------------------------------------------------------------------------------- */

void syscall_dispatch(struct frame *f)
{
    struct tcb *self = current();
    entry_check_syscall(f);
    invariants_check("syscall entry");
    /* A thread of a foreign space makes no X.2 system calls, not even through the stubs:
     * every `syscall` of it is a message to its handler. */
    if (self->flags & TF_FOREIGN) {
        foreign_syscall(self);
        return;
    }
    word_t off = f->rip - SYSCALL_PAGE_USER;
    unsigned nr = (unsigned)(off / SYSCALL_SLOT);
    if (f->rip < SYSCALL_PAGE_USER || nr >= SYS_COUNT || off != SYSCALL_RET_OFFSET(nr)) {
        /* `syscall` outside the KIP stubs: an invalid-opcode exception at that instruction. */
        f->rip -= 2;
        f->vector = 0;
        fault_exception(self, EXC_UD, 0);
        thread_return_to_user_checks(self);
        return;
    }
    switch (nr) {
    case SYS_IPC:                sys_ipc(self, f); break;
    case SYS_UNMAP:              sys_unmap(self, f); break;
    case SYS_EXCHANGE_REGISTERS: sys_exchange_registers(self, f); break;
    case SYS_SYSTEM_CLOCK:       f->rax = arch_clock_us(); break;
    case SYS_THREAD_SWITCH:      sys_thread_switch(self, f); break;
    case SYS_SCHEDULE:           sys_schedule(self, f); break;
    case SYS_THREAD_CONTROL:     sys_thread_control(self, f); break;
    case SYS_SPACE_CONTROL:      sys_space_control(self, f); break;
    case SYS_PROCESSOR_CONTROL:  sys_processor_control(self, f); break;
    case SYS_MEMORY_CONTROL:     sys_memory_control(self, f); break;
    }
    thread_return_to_user_checks(self);
    invariants_check("syscall exit");
}

/* --- the KIP's links, the fast path switch ------------------------------------------------ */

word_t arch_syscall_link(unsigned kip_off)
{
    unsigned nr;
    switch (kip_off) {
    case L4_KIP_OFF_SPACE_CONTROL:  nr = SYS_SPACE_CONTROL; break;
    case L4_KIP_OFF_THREAD_CONTROL: nr = SYS_THREAD_CONTROL; break;
    case L4_KIP_OFF_PROC_CONTROL:   nr = SYS_PROCESSOR_CONTROL; break;
    case L4_KIP_OFF_MEMORY_CONTROL: nr = SYS_MEMORY_CONTROL; break;
    case L4_KIP_OFF_UNMAP:          nr = SYS_UNMAP; break;
    case L4_KIP_OFF_EXREGS:         nr = SYS_EXCHANGE_REGISTERS; break;
    case L4_KIP_OFF_SYSTEM_CLOCK:   nr = SYS_SYSTEM_CLOCK; break;
    case L4_KIP_OFF_THREAD_SWITCH:  nr = SYS_THREAD_SWITCH; break;
    case L4_KIP_OFF_SCHEDULE:       nr = SYS_SCHEDULE; break;
    default:                        nr = SYS_IPC; break;    /* Ipc and Lipc */
    }
    return SYSCALL_PAGE_USER + SYSCALL_STUB_OFFSET(nr);
}

/* The return address of the Ipc stub's syscall, or 0: syscall_entry compares RCX with it
 * (fastpath.S, foreign_fastpath.S). */
word_t ipc_fast_rip;

void arch_ipc_fastpath(bool on)
{
    ipc_fast_rip = on ? SYSCALL_PAGE_USER + SYSCALL_RET_OFFSET(SYS_IPC) : 0;
}

bool arch_ipc_fastpath_on(void) { return ipc_fast_rip != 0; }
