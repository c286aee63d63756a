/* ExchangeRegisters, ProcessorControl and MemoryControl: validate, then apply (syscall.h).
 * Which register carries which argument is arch code (arch/x86_64/syscall_abi.c). */
#include "syscall.h"
#include "foreign.h"
#include "ipc.h"
#include "thread.h"
#include "space.h"
#include <l4/message.h>
#include <l4/fpage.h>
#include <l4/control.h>
#include <l4/utcb.h>
#include <l4/pecan.h>

static inline void set_error(struct tcb *t, word_t e)
{
    utcb_set(t, L4_UTCB_ERROR_CODE, e);
}

word_t syscall_global_id(struct tcb *self, word_t id)
{
    if (id == L4_NILTHREAD || id == L4_ANYTHREAD || !l4_is_local_id(id))
        return id;
    return ipc_local_to_global(self, id);
}

/* --- ExchangeRegisters ------------------------------------------------------------------- */

bool exchange_registers(struct tcb *self, word_t dest, struct exregs *r)
{
    word_t ctl = r->ctl;
    bool local = dest != L4_NILTHREAD && l4_is_local_id(dest) && dest != L4_ANYLOCALTHREAD;
    struct tcb *t = local ? tcb_lookup(ipc_local_to_global(self, dest)) :
                    (dest != L4_NILTHREAD ? tcb_lookup(dest) : NULL);
    /* A foreign space's handler may name that space's threads (docs/linux-abi.md). */
    bool handler = t && t->space && t->space->foreign && t->space->foreign_handler == self->gid;
    if (!t || (t->space != self->space && !handler) || !t->mr) {
        set_error(self, L4_ERR_INVALID_THREAD);
        return false;
    }
    thread_start_settle(t);
    word_t old_ctl = ((t->state == TS_HALTED || (t->flags & TF_HALT_PENDING)) ? L4_EXREGS_WAS_HALTED : 0) |
                     ipc_exregs_state(t) |
                     ((t->flags & TF_FOREIGN_INTR) ? L4_EXREGS_OUT_INTERRUPT : 0);
    /* Pecan's extension (docs/x2-deviations.md): FS/GS bases, the old ones back only if
     * asked.  A non-canonical base refuses the whole call. */
    if (((ctl & L4_EXREGS_SET_FS_BASE) && !arch_canonical(r->fs_base)) ||
        ((ctl & L4_EXREGS_SET_GS_BASE) && !arch_canonical(r->gs_base))) {
        set_error(self, L4_ERR_INVALID_PARAM);
        return false;
    }
    word_t old_fs = arch_thread_fs_base(t), old_gs = arch_thread_gs_base(t);
    word_t old_sp = arch_user_sp(t), old_ip = arch_user_ip(t), old_fl = arch_user_flags(t);
    word_t old_u = utcb_get(t, L4_UTCB_USER_HANDLE), old_p = utcb_get(t, L4_UTCB_PAGER);

    if (ctl & L4_EXREGS_SET_SP)     arch_set_user_sp(t, r->sp);
    if (ctl & L4_EXREGS_SET_IP)     arch_set_user_ip(t, r->ip);
    if (ctl & L4_EXREGS_SET_FLAGS)  arch_set_user_flags(t, r->flags);
    if (ctl & L4_EXREGS_SET_HANDLE) utcb_set(t, L4_UTCB_USER_HANDLE, r->user_handle);
    if (ctl & L4_EXREGS_SET_PAGER)  utcb_set(t, L4_UTCB_PAGER, r->pager);
    if ((ctl & L4_EXREGS_APPLY_INTERRUPT) && (t->flags & TF_FOREIGN)) {
        if (ctl & L4_EXREGS_INTERRUPT)
            foreign_raise_interrupt(t);     /* delivered before it next runs user code */
        else
            t->flags &= ~TF_FOREIGN_INTR;
    }
    if (ctl & (L4_EXREGS_SET_FS_BASE | L4_EXREGS_SET_GS_BASE))
        arch_set_thread_bases(t, ctl & L4_EXREGS_SET_FS_BASE ? r->fs_base : old_fs,
                              ctl & L4_EXREGS_SET_GS_BASE ? r->gs_base : old_gs);
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
    r->result = local ? t->gid : t->local_id;
    r->ctl = old_ctl;
    r->sp = old_sp;
    r->ip = old_ip;
    r->flags = old_fl;
    r->user_handle = old_u;
    r->pager = old_p;
    r->fs_base = old_fs;
    r->gs_base = old_gs;
    return true;
}

/* --- ProcessorControl, MemoryControl ------------------------------------------------------ */

word_t processor_control(struct tcb *self, word_t cpu)
{
    word_t e = !self->space->privileged ? L4_ERR_NO_PRIVILEGE :
               cpu >= 1 ? L4_ERR_INVALID_PARAM : 0;
    if (e)
        set_error(self, e);
    return e ? 0 : 1;                   /* frequencies and voltage: accepted, no effect */
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

word_t memory_control(struct tcb *self, unsigned k, const word_t attr[4])
{
    word_t *mr = self->mr;
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
    return e ? 0 : 1;
}
