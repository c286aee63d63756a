/* System calls: decoding the registers of the stub that was used (contract §4.2) and the
 * calls other than Ipc, whose semantics live in ipc.c. */
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
#include "lib.h"
#include "console.h"
#include "invariants.h"
#include <l4/message.h>
#include <l4/fpage.h>
#include <l4/time.h>
#include <l4/pecan.h>
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

#define EXR_H  (1ul << 0)
#define EXR_R  (1ul << 1)
#define EXR_S  (1ul << 2)
#define EXR_SP (1ul << 3)
#define EXR_IP (1ul << 4)
#define EXR_FL (1ul << 5)
#define EXR_U  (1ul << 6)
#define EXR_P  (1ul << 7)
#define EXR_HH (1ul << 8)

static void sys_exchange_registers(struct tcb *self, struct frame *f)
{
    word_t dest = f->rax, ctl = f->rsi;
    bool local = dest != L4_NILTHREAD && l4_is_local_id(dest) && dest != L4_ANYLOCALTHREAD;
    struct tcb *t = local ? tcb_lookup(ipc_local_to_global(self, dest)) :
                    (dest != L4_NILTHREAD ? tcb_lookup(dest) : NULL);
    if (!t || t->space != self->space || !t->mr) {
        set_error(self, L4_ERR_INVALID_THREAD);
        f->rax = L4_NILTHREAD;
        return;
    }
    thread_start_settle(t);
    word_t old_ctl = ((t->state == TS_HALTED || (t->flags & TF_HALT_PENDING)) ? 1 : 0) |
                     ipc_exregs_state(t);
    word_t old_sp = arch_user_sp(t), old_ip = arch_user_ip(t), old_fl = arch_user_flags(t);
    word_t old_u = utcb_get(t, L4_UTCB_USER_HANDLE), old_p = utcb_get(t, L4_UTCB_PAGER);

    if (ctl & EXR_SP) arch_set_user_sp(t, f->rdx);
    if (ctl & EXR_IP) arch_set_user_ip(t, f->r8);
    if (ctl & EXR_FL) arch_set_user_flags(t, f->r9);
    if (ctl & EXR_U)  utcb_set(t, L4_UTCB_USER_HANDLE, f->r10);
    if (ctl & EXR_P)  utcb_set(t, L4_UTCB_PAGER, f->rdi);
    if (ctl & (EXR_R | EXR_S))
        ipc_abort(t, ctl & EXR_R, ctl & EXR_S);
    if (ctl & EXR_HH) {
        if (ctl & EXR_H) {
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
}

/* --- ThreadControl ----------------------------------------------------------------------- */

/* A UTCB location for thread t (NULL: one being created) in space s: aligned, inside the
 * UTCB area, and not the UTCB of another active thread there (activation would clear it). */
static bool utcb_location_valid(struct space *s, word_t loc, struct tcb *t)
{
    if ((loc & (L4_UTCB_SIZE - 1)) || !space_initialised(s) ||
        loc < l4_fpage_base(s->utcb_area) ||
        loc + L4_UTCB_SIZE - l4_fpage_base(s->utcb_area) > (1ul << l4_fpage_size_log2(s->utcb_area)))
        return false;
    for (struct tcb *o = s->threads; o; o = o->space_next)
        if (o != t && o->mr && o->utcb_location == loc)
            return false;
    return true;
}

/* The thread a space specifier names, if it may name a space: a user thread.  An interrupt
 * thread has no space, and the idle thread's is the kernel's own: a thread put there would run
 * on the kernel's page tables, and deleting it would destroy the kernel space. */
static struct tcb *space_specifier(word_t id)
{
    struct tcb *t = tcb_lookup(id);
    return t && t->state != TS_IRQ && t->state != TS_IDLE ? t : NULL;
}

static word_t thread_control(struct tcb *self, word_t dest, word_t space_spec, word_t sched,
                             word_t pager, word_t utcb)
{
    if (!self->space->privileged)
        return L4_ERR_NO_PRIVILEGE;
    if (!l4_is_global_id(dest) || l4_thread_no(dest) >= CONFIG_MAX_THREADS)
        return L4_ERR_INVALID_THREAD;
    word_t no = l4_thread_no(dest);
    struct tcb *t = tcb_of_number(no);
    if (no < kip_system_base()) {
        if (l4_version(dest) != 1 || pager == L4_NILTHREAD)
            return L4_ERR_INVALID_THREAD;
        return irq_control(t, pager);
    }
    if (no < kip_user_base())
        return L4_ERR_INVALID_THREAD;

    if (space_spec == L4_NILTHREAD) {                       /* delete */
        if (t->gid != dest)
            return L4_ERR_OK;                               /* does not exist: nothing to do */
        if (t == self)
            return L4_ERR_INVALID_THREAD;
        thread_delete(t);
        return L4_ERR_OK;
    }

    if (t->gid) {                                           /* modify */
        struct tcb *sp = space_specifier(space_spec);
        if (!sp)
            return L4_ERR_INVALID_SPACE;
        struct space *target = sp->space;
        struct tcb *sch = sched != L4_NILTHREAD ? tcb_lookup(sched) : NULL;
        if (sched != L4_NILTHREAD && !sch)
            return L4_ERR_INVALID_SCHED;
        bool active = t->mr != NULL;
        if (utcb != ~0ul && (active || !utcb_location_valid(target, utcb, t)))
            return L4_ERR_UTCB_AREA;
        if (target != t->space) {
            /* Migration to another space: the UTCB must be valid there. */
            word_t loc = utcb != ~0ul ? utcb : t->utcb_location;
            if (active || t == self)
                return L4_ERR_INVALID_THREAD;
            if (loc != ~0ul && !utcb_location_valid(target, loc, t))
                return L4_ERR_UTCB_AREA;
        }
        if (pager != L4_NILTHREAD && !active) {
            word_t loc = utcb != ~0ul ? utcb : t->utcb_location;
            if (!space_initialised(target))
                return L4_ERR_INVALID_SPACE;
            if (loc == ~0ul || !utcb_location_valid(target, loc, t))
                return L4_ERR_UTCB_AREA;
        }
        /* Everything checked: apply. */
        if (target != t->space) {
            struct space *old = t->space;
            space_remove_thread(old, t);
            space_add_thread(target, t);
            if (old->nthreads == 0)
                space_destroy(old);
        }
        if (utcb != ~0ul)
            t->utcb_location = utcb;
        if (sch)
            t->scheduler = sched;
        if (l4_version(dest) != l4_version(t->gid)) {
            t->gid = dest;
            if (t->mr)
                utcb_set(t, L4_UTCB_MY_GLOBAL_ID, dest);
        }
        if (pager != L4_NILTHREAD) {
            if (active) {
                utcb_set(t, L4_UTCB_PAGER, pager);
            } else {
                int e = thread_activate(t, pager);
                if (e)
                    return e;
            }
        }
        return L4_ERR_OK;
    }

    /* create */
    if (sched == L4_NILTHREAD || !tcb_lookup(sched))
        return L4_ERR_INVALID_SCHED;
    struct space *target;
    bool new_space = space_spec == dest;
    if (new_space) {
        target = NULL;
    } else {
        struct tcb *sp = space_specifier(space_spec);
        if (!sp || !sp->space)
            return L4_ERR_INVALID_SPACE;
        target = sp->space;
    }
    if (pager != L4_NILTHREAD) {
        if (new_space || !space_initialised(target))
            return L4_ERR_INVALID_SPACE;
        if (utcb == ~0ul || !utcb_location_valid(target, utcb, NULL))
            return L4_ERR_UTCB_AREA;
    }
    if (new_space && !(target = space_create()))
        return L4_ERR_NO_MEM;
    struct tcb *nt = thread_create(dest, target, sched);
    if (!nt) {
        if (new_space)
            space_destroy(target);
        return L4_ERR_NO_MEM;
    }
    nt->utcb_location = utcb;
    if (pager != L4_NILTHREAD) {
        int e = thread_activate(nt, pager);
        if (e) {
            thread_delete(nt);
            return e;
        }
    }
    return L4_ERR_OK;
}

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
    word_t e = L4_ERR_OK;
    struct tcb *t = space_specifier(to_global(self, f->rdi));
    word_t red = to_global(self, f->r9);
    if (!self->space->privileged)
        e = L4_ERR_NO_PRIVILEGE;
    else if (!t || !t->space)
        e = L4_ERR_INVALID_SPACE;
    else if (red != L4_NILTHREAD && red != L4_ANYTHREAD && !tcb_lookup(red))
        e = L4_ERR_INVALID_THREAD;
    else if (!space_initialised(t->space))
        e = space_setup_areas(t->space, f->rdx, f->r8);
    word_t old = t && t->space && t->space->foreign ? L4_SPACE_CTL_FOREIGN : 0;
    if (!e && red != L4_NILTHREAD) {
        t->space->redirector = red == L4_ANYTHREAD ? 0 : red;
        space_update_ipc_slow(t->space);
    }
    /* Pecan's control word (docs/linux-abi.md): bit 63 applies bits 0..62, so that the 0
     * every X.2 program passes changes nothing. */
    if (!e && (f->rsi & L4_SPACE_CTL_APPLY))
        space_set_foreign(t->space, f->rsi & L4_SPACE_CTL_FOREIGN);
    if (e)
        set_error(self, e);
    f->rax = e ? 0 : 1;
    f->rdx = old;                       /* the old control word */
}

/* --- Schedule, ThreadSwitch, SystemClock ------------------------------------------------ */

static uint16_t us_to_period(uint64_t us, bool zero_is_never)
{
    if (us == 0 && zero_is_never)
        return L4_NEVER;
    return l4_period_from_us(us);
}

static unsigned schedule_state(struct tcb *t)
{
    if (t->state == TS_IRQ)
        return 2;
    if (t->state == TS_INACTIVE)
        return 1;
    if (t->state == TS_HALTED || (t->flags & TF_HALT_PENDING))
        return 2;
    unsigned s = ipc_schedule_state(t);
    return s ? s : 3;
}

static void sys_schedule(struct tcb *self, struct frame *f)
{
    word_t dest = to_global(self, f->rdi);
    word_t time = f->rdx, proc = f->r8, prio = f->rsi, pre = f->r9;
    struct tcb *t = dest ? tcb_lookup(dest) : NULL;
    word_t e = 0;
    bool priv = self->space->privileged;
    if (!t || t->state == TS_IDLE || (t->state == TS_IRQ && !irq_associated(t)))
        e = L4_ERR_INVALID_THREAD;
    else if (!priv && t->scheduler != self->gid)
        e = L4_ERR_NO_PRIVILEGE;
    else if (prio != ~0ul && (prio & 0x1FF) <= 255 && !priv && (prio & 0x1FF) > self->prio)
        e = L4_ERR_NO_PRIVILEGE;
    else if (pre != ~0ul && ((pre >> 16) & 0xFF) > self->prio && !priv)
        e = L4_ERR_NO_PRIVILEGE;
    else if (time != ~0ul && (((uint16_t)time != 0xFFFF && l4_time_is_point((uint16_t)time)) ||
                              ((uint16_t)(time >> 16) != 0xFFFF && l4_time_is_point((uint16_t)(time >> 16)))))
        e = L4_ERR_INVALID_PARAM;       /* time points make no sense here; 0xFFFF: unchanged */
    else if (proc != ~0ul && (proc & 0xFFFF) >= 1)
        e = L4_ERR_INVALID_PARAM;
    if (e) {
        set_error(self, e);
        f->rax = 0;
        return;
    }
    f->rdx = ((word_t)us_to_period(t->timeslice_us ? t->slice_left_us : 0, true) << 16) |
             (t->quantum_us == QUANTUM_UNLIMITED ? L4_NEVER : l4_period_from_us(t->quantum_us));
    if (prio != ~0ul && (prio & 0x1FF) <= 255)
        sched_set_prio(t, prio & 0xFF);
    if (time != ~0ul) {
        uint16_t slice = (uint16_t)(time >> 16), quantum = (uint16_t)time;
        if (slice != 0xFFFF) {
            t->timeslice_us = l4_time_is_never(slice) ? 0 : l4_period_us(slice);
            t->slice_left_us = t->timeslice_us;
        }
        if (quantum != 0xFFFF)
            t->quantum_us = l4_time_is_never(quantum) ? QUANTUM_UNLIMITED : l4_period_us(quantum);
    }
    if (pre != ~0ul) {
        t->max_delay_us = pre & 0xFFFF;
        t->sensitive_prio = (pre >> 16) & 0xFF;
    }
    f->rax = schedule_state(t);
    /* A priority change may have made another thread more important than the caller: the
     * check on the way back to user mode (thread_return_to_user_checks) preempts it. */
}

static void sys_thread_switch(struct tcb *self, struct frame *f)
{
    word_t dest = to_global(self, f->rdi);
    struct tcb *t = dest ? tcb_lookup(dest) : NULL;
    if (t == self)
        return;
    if (t && t->state == TS_READY)
        sched_donate(t);
    else {
        sched_preemption_done(self);
        sched_yield();
    }
}

/* --- Unmap --------------------------------------------------------------------------------- */

static void sys_unmap(struct tcb *self, struct frame *f)
{
    word_t *mr = self->mr;
    mr[0] = f->r9;  mr[1] = f->rax; mr[2] = f->rbx; mr[3] = f->r10;
    mr[4] = f->r12; mr[5] = f->r13; mr[6] = f->r14; mr[7] = f->r15;
    unsigned k = f->rdx & 0x3F;
    bool flush = f->rdx & 0x40;
    for (unsigned i = 0; i <= k; i++) {
        word_t fp = mr[i];
        if (l4_is_io_fpage(fp)) {
            if (l4_fpage_rights(fp))
                iospace_unmap(self->space, fp, flush);
            continue;
        }
        unsigned order = l4_fpage_order(fp);
        if (l4_is_nil_fpage(fp) || order < 12)
            continue;
        word_t base = l4_fpage_base(fp);
        word_t size = order >= 47 ? L4_USER_AREA_END : 1ul << order;
        if (base >= L4_USER_AREA_END)
            continue;
        size = MIN(size, L4_USER_AREA_END - base);
        unsigned status = mapdb_unmap(self->space, base, size, l4_fpage_rights(fp), flush);
        mr[i] = l4_fpage_set_rights(fp, status);
    }
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
    word_t off = f->rip - SYSCALL_PAGE_USER;
    unsigned nr = (unsigned)(off / SYSCALL_SLOT);
    if (f->rip < SYSCALL_PAGE_USER || nr >= SYS_COUNT || off != SYSCALL_RET_OFFSET(nr)) {
        /* `syscall` outside the KIP stubs: a foreign system call in a space with that ABI,
         * else an invalid-opcode exception at that instruction. */
        if (self->flags & TF_FOREIGN) {
            fault_foreign_syscall(self);
            thread_return_to_user_checks(self);
            return;
        }
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
