/* System calls: decoding the registers of the stub that was used (contract §4.2) and putting
 * the results back.  The semantics live with their objects (docs/architecture.md, "System
 * calls: decode and apply"): Ipc in ipc.c, ThreadControl in thread.c, SpaceControl in
 * space.c, Schedule and ThreadSwitch in sched.c, Unmap in mapdb.c.  ExchangeRegisters,
 * ProcessorControl and MemoryControl are here. */
#include "arch.h"
#include "syscall_nr.h"
#include "tcb.h"
#include "sched.h"
#include "ipc.h"
#include "thread.h"
#include "space.h"
#include "mapdb.h"
#include "iospace.h"
#include "irq.h"
#include "kip.h"
#include "fault.h"
#include "foreign.h"
#include "lib.h"
#include "console.h"
#include "invariants.h"
#include <l4/message.h>
#include <l4/fpage.h>
#include <l4/time.h>
#include <l4/pecan.h>
#include <l4/control.h>
#include <l4/utcb.h>

static inline void set_error(struct tcb *t, word_t e)
{
    utcb_set(t, L4_UTCB_ERROR_CODE, e);
}

/* A thread id argument as the kernel uses it: local ids of the caller's space become global. */
static word_t to_global(struct tcb *self, word_t id)
{
    if (id == L4_NILTHREAD || id == L4_ANYTHREAD || !l4_is_local_id(id))
        return id;
    return ipc_local_to_global(self, id);
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

/* --- ExchangeRegisters ------------------------------------------------------------------- */

static void sys_exchange_registers(struct tcb *self, struct frame *f)
{
    word_t dest = f->rax, ctl = f->rsi;
    bool local = dest != L4_NILTHREAD && l4_is_local_id(dest) && dest != L4_ANYLOCALTHREAD;
    struct tcb *t = local ? tcb_lookup(ipc_local_to_global(self, dest)) :
                    (dest != L4_NILTHREAD ? tcb_lookup(dest) : NULL);
    /* A foreign space's handler may name that space's threads (docs/linux-abi.md). */
    bool handler = t && t->space && t->space->foreign && t->space->foreign_handler == self->gid;
    if (!t || (t->space != self->space && !handler) || !t->mr) {
        set_error(self, L4_ERR_INVALID_THREAD);
        f->rax = L4_NILTHREAD;
        return;
    }
    thread_start_settle(t);
    word_t old_ctl = ((t->state == TS_HALTED || (t->flags & TF_HALT_PENDING)) ? L4_EXREGS_WAS_HALTED : 0) |
                     ipc_exregs_state(t) |
                     ((t->flags & TF_FOREIGN_INTR) ? L4_EXREGS_OUT_INTERRUPT : 0);
    /* Pecan's extension (docs/x2-deviations.md): FS/GS base from R12/R13, the old ones back
     * in R12/R13 only if asked.  A non-canonical base refuses the whole call. */
    if (((ctl & L4_EXREGS_SET_FS_BASE) && !arch_canonical(f->r12)) ||
        ((ctl & L4_EXREGS_SET_GS_BASE) && !arch_canonical(f->r13))) {
        set_error(self, L4_ERR_INVALID_PARAM);
        f->rax = L4_NILTHREAD;
        return;
    }
    word_t old_fs = arch_thread_fs_base(t), old_gs = arch_thread_gs_base(t);
    word_t old_sp = arch_user_sp(t), old_ip = arch_user_ip(t), old_fl = arch_user_flags(t);
    word_t old_u = utcb_get(t, L4_UTCB_USER_HANDLE), old_p = utcb_get(t, L4_UTCB_PAGER);

    if (ctl & L4_EXREGS_SET_SP)     arch_set_user_sp(t, f->rdx);
    if (ctl & L4_EXREGS_SET_IP)     arch_set_user_ip(t, f->r8);
    if (ctl & L4_EXREGS_SET_FLAGS)  arch_set_user_flags(t, f->r9);
    if (ctl & L4_EXREGS_SET_HANDLE) utcb_set(t, L4_UTCB_USER_HANDLE, f->r10);
    if (ctl & L4_EXREGS_SET_PAGER)  utcb_set(t, L4_UTCB_PAGER, f->rdi);
    if ((ctl & L4_EXREGS_APPLY_INTERRUPT) && (t->flags & TF_FOREIGN)) {
        if (ctl & L4_EXREGS_INTERRUPT)
            t->flags |= TF_FOREIGN_INTR;    /* delivered before it next runs user code */
        else
            t->flags &= ~TF_FOREIGN_INTR;
    }
    if (ctl & (L4_EXREGS_SET_FS_BASE | L4_EXREGS_SET_GS_BASE))
        arch_set_thread_bases(t, ctl & L4_EXREGS_SET_FS_BASE ? f->r12 : old_fs,
                              ctl & L4_EXREGS_SET_GS_BASE ? f->r13 : old_gs);
    if (ctl & (L4_EXREGS_ABORT_RECV | L4_EXREGS_ABORT_SEND))
        ipc_abort(t, ctl & L4_EXREGS_ABORT_RECV, ctl & L4_EXREGS_ABORT_SEND);
    if (ctl & L4_EXREGS_SET_HALT) {
        if (ctl & L4_EXREGS_HALT) {
            if (t->state == TS_HALTED)
                ;
            else
                t->flags |= TF_HALT_PENDING;    /* it stops when it next would enter user mode */
        } else {
            t->flags &= ~TF_HALT_PENDING;
            thread_resume(t);
        }
    }
    f->rax = local ? t->gid : t->local_id;
    f->rsi = old_ctl;
    f->rdx = old_sp;
    f->r8 = old_ip;
    f->r9 = old_fl;
    f->r10 = old_u;
    f->rdi = old_p;
    if (ctl & L4_EXREGS_GET_BASES) {
        f->r12 = old_fs;
        f->r13 = old_gs;
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
    word_t handler = f->rsi & L4_SPACE_CTL_FOREIGN ? to_global(self, f->r10) : 0;
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
    word_t e = !self->space->privileged ? L4_ERR_NO_PRIVILEGE :
               f->rdi >= 1 ? L4_ERR_INVALID_PARAM : 0;
    if (e)
        set_error(self, e);
    f->rax = e ? 0 : 1;                 /* frequencies and voltage: accepted, no effect */
}

struct attr_ctx {
    unsigned attr;
};

static void set_attr_leaf(struct pt_ref *ref, void *vctx)
{
    struct attr_ctx *c = vctx;
    if (!*ref->node)
        return;                         /* KIP, UTCB */
    *ref->pte = pte_with_cache_attr(*ref->pte, ref->level, c->attr);
}

static void sys_memory_control(struct tcb *self, struct frame *f)
{
    word_t *mr = self->mr;
    mr[1] = f->rax; mr[2] = f->rbx; mr[3] = f->r10;
    mr[4] = f->r12; mr[5] = f->r13; mr[6] = f->r14; mr[7] = f->r15;
    word_t attr[4] = { f->r9, f->rsi, f->r8, f->rbp };     /* attribute 3 via the stub's RBP */
    unsigned k = f->rdx & 0x3F;
    word_t e = 0;
    if (!self->space->privileged)
        e = L4_ERR_NO_PRIVILEGE;
    for (unsigned i = 0; i <= k && !e; i++) {
        word_t a = attr[mr[i] & 3];
        if (!l4_is_nil_fpage(mr[i]) && (a == 6 || a == 7 || a > 8))
            e = L4_ERR_INVALID_PARAM;
    }
    for (unsigned i = 0; i <= k && !e; i++) {
        word_t fp = mr[i];
        if (l4_is_nil_fpage(fp) || l4_is_io_fpage(fp) || l4_fpage_order(fp) < 12)
            continue;
        word_t base = l4_fpage_base(fp);
        word_t size = l4_fpage_order(fp) >= 47 ? L4_USER_AREA_END : 1ul << l4_fpage_order(fp);
        struct attr_ctx c = { (unsigned)attr[fp & 3] };
        pt_for_each_leaf(self->space, base, base + size, set_attr_leaf, &c);
        space_tlb_invalidate(self->space, base, size);
    }
    if (e)
        set_error(self, e);
    f->rdx = e ? 0 : 1;
    f->rbp = mr[0];                     /* the stub moves it into RCX */
    f->rax = mr[1];
    f->rdi = self->local_id;
}

/* --- dispatch ------------------------------------------------------------------------------- */

void syscall_dispatch(struct frame *f)
{
    struct tcb *self = current();
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
        fault_exception(self, 6, 0);
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
