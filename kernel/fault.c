/* Faults and exceptions as IPC.  The kernel composes the message in the thread's UTCB and
 * calls the handler on the thread's behalf; every UTCB word the call can change is saved on
 * the kernel stack and restored before the thread runs again (contract §5.12): the message's
 * words, which also bound what of the reply is stored (ipc_kernel_call). */
#include "fault.h"
#include "glue.h"
#include "foreign.h"
#include "ipc.h"
#include "sched.h"
#include "space.h"
#include "mapdb.h"
#include "thread.h"
#include "timeout.h"
#include "lib.h"
#include "console.h"
#include <l4/message.h>
#include <l4/utcb.h>
#include <l4/fpage.h>
#include <l4/pecan.h>

/* The largest message: an exception (MR0..MR20).  A page fault saves MR0..MR2 (its reply is
 * a map item), a preemption message MR0..MR3. */
#define SAVED_MRS (1 + L4_EXC_WORDS)
#define PAGEFAULT_MRS (1 + L4_PF_WORDS)
#define PREEMPTION_MRS (1 + L4_TIMEFAULT_WORDS)

struct saved_utcb {
    word_t mr[SAVED_MRS];
    word_t error, vsender, intended;
};

static void save_utcb(struct tcb *t, struct saved_utcb *s, unsigned nmrs)
{
    memcpy(s->mr, t->mr, nmrs * sizeof(word_t));
    s->error = utcb_get(t, L4_UTCB_ERROR_CODE);
    s->vsender = utcb_get(t, L4_UTCB_VIRT_ACT_SENDER);
    s->intended = utcb_get(t, L4_UTCB_INTENDED_RCV);
}

static void restore_utcb(struct tcb *t, const struct saved_utcb *s, unsigned nmrs)
{
    memcpy(t->mr, s->mr, nmrs * sizeof(word_t));
    utcb_set(t, L4_UTCB_ERROR_CODE, s->error);
    utcb_set(t, L4_UTCB_VIRT_ACT_SENDER, s->vsender);
    utcb_set(t, L4_UTCB_INTENDED_RCV, s->intended);
}

/* The handler named in a TCR, if it exists. */
static struct tcb *handler_of(struct tcb *t, int tcr)
{
    word_t h = utcb_get(t, tcr);
    return h ? ipc_resolve(t, h) : NULL;
}

static void unhandled(struct tcb *t, const char *what, word_t a, word_t b)
{
    printk("thread %lx: %s (%lx, ip %lx) and no handler: halted\n", t->gid, what, a, b);
    thread_halt_current();
}

/* *label: the reply's label (when it succeeded and label is not NULL). */
static bool pagefault_ipc(struct tcb *t, struct tcb *pager, word_t tag, word_t mr1, word_t mr2,
                          word_t acceptor, word_t *label)
{
    struct saved_utcb sv;
    save_utcb(t, &sv, PAGEFAULT_MRS);
    t->mr[0] = tag;
    t->mr[L4_PF_ADDR] = mr1;
    t->mr[L4_PF_IP] = mr2;
    bool ok = ipc_kernel_call(t, pager->gid, acceptor, PAGEFAULT_MRS);
    if (label)
        *label = l4_tag_label(t->mr[0]);
    restore_utcb(t, &sv, PAGEFAULT_MRS);
    return ok;
}

void fault_page(struct tcb *t, word_t addr, unsigned access, word_t ip)
{
    if (t->space->sigma0) {
        /* sigma0's space is the identity map of physical memory: no IPC (§7.5). */
        if (!mapdb_sigma0_fault(t->space, addr, access & FAULT_W))
            unhandled(t, "sigma0 fault the kernel cannot resolve", addr, ip);
        return;
    }
    if (t->flags & TF_FOREIGN) {
        foreign_page_fault(t, addr, access, ip);
        return;
    }
    struct tcb *pager = handler_of(t, L4_UTCB_PAGER);
    if (!pager)
        unhandled(t, "page fault", addr, ip);
    word_t tag = l4_pagefault_tag(L4_PROTO_PAGEFAULT, access);
    if (!pagefault_ipc(t, pager, tag, addr, ip, L4_COMPLETE_FPAGE, NULL) && !handler_of(t, L4_UTCB_PAGER))
        unhandled(t, "page fault", addr, ip);
    /* Return to the faulting instruction; it faults again if the page is still missing. */
}

void fault_io(struct tcb *t, unsigned port, unsigned count, word_t ip)
{
    /* The smallest aligned port fpage that holds every port the access touches (an inl
     * at 0x3FA needs 0x3F8-0x3FF, not 0x3F8-0x3FB, or it would fault for ever). */
    unsigned log2 = 0;
    while ((port >> log2) != ((port + count - 1) >> log2))
        log2++;
    word_t fp = l4_io_fpage(port & ~((1u << log2) - 1), log2);
    struct tcb *pager = handler_of(t, L4_UTCB_PAGER);
    if (t->space->sigma0 || !pager)
        unhandled(t, "I/O port fault", port, ip);
    word_t tag = l4_pagefault_tag(L4_PROTO_IO_PAGEFAULT, FAULT_R | FAULT_W);
    if (!pagefault_ipc(t, pager, tag, fp, ip, L4_COMPLETE_FPAGE, NULL) && !handler_of(t, L4_UTCB_PAGER))
        unhandled(t, "I/O port fault", port, ip);
}

int fault_ipc_for_transfer(struct tcb *t, word_t va, bool write, uint64_t deadline)
{
    struct tcb *pager = handler_of(t, L4_UTCB_PAGER);
    if (!pager || t->space->sigma0) {
        if (t->space->sigma0 && mapdb_sigma0_fault(t->space, va, write))
            return 0;
        return L4_IPC_XFER_TIMEOUT_OWN;
    }
    word_t tag = l4_pagefault_tag(L4_PROTO_PAGEFAULT, write ? FAULT_W : FAULT_R);
    /* The fault IPC is nested in t's transfer: keep the transfer's state out of its way. */
    struct tcb_ipc_state saved = t->ipc;
    /* A foreign thread's native IPC (channel.c) hears its partners only; the fault IPC nested
     * in its copy is the kernel's and waits for its pager as any thread's. */
    unsigned native = t->flags & TF_NATIVE_IPC;
    t->flags &= ~TF_NATIVE_IPC;
    t->kdeadline = deadline == ~0ull ? 0 : deadline;
    word_t label = 0;
    bool ok = pagefault_ipc(t, pager, tag, va, ~0ul, L4_COMPLETE_FPAGE, &label);
    t->kdeadline = 0;
    t->flags |= native;
    t->ipc = saved;
    if (!ok)
        return L4_IPC_XFER_TIMEOUT_OWN;
    /* A foreign thread's handler answers every fault with a label: only RESUME resolves it
     * (lx refuses a fault it would turn into SIGSEGV; a retry would only fault again). */
    return (t->flags & TF_FOREIGN) && label != L4_FOREIGN_RESUME ? L4_IPC_OVERFLOW : 0;
}

/* --- exceptions ------------------------------------------------------------------------ */

void fault_exception(struct tcb *t, unsigned vector, word_t error)
{
    if (t->flags & TF_FOREIGN) {
        foreign_exception(t, vector, error, 0);
        return;
    }
    struct tcb *h = handler_of(t, L4_UTCB_EXC_HANDLER);
    if (!h)
        unhandled(t, "exception", vector, arch_user_ip(t));
    struct saved_utcb sv;
    save_utcb(t, &sv, SAVED_MRS);
    word_t *mr = t->mr;
    mr[0] = L4_PROTO_EXCEPTION | L4_EXC_WORDS;
    arch_exception_regs(t, mr);
    mr[L4_EXC_VECTOR] = vector; mr[L4_EXC_ERROR] = error;
    word_t br0 = utcb_get(t, L4_UTCB_BR(0));     /* the acceptor stays as the thread had it */
    bool ok = ipc_kernel_call(t, h->gid, br0, SAVED_MRS);
    if (ok) {
        /* The reply overwrote MR1..MRu: load the registers from the MRs (§6.2). */
        arch_exception_set_regs(t, mr);
    }
    restore_utcb(t, &sv, SAVED_MRS);
    if (!ok && !handler_of(t, L4_UTCB_EXC_HANDLER))
        unhandled(t, "exception", vector, arch_user_ip(t));
}

void fault_preemption(struct tcb *t, bool timefault)
{
    struct tcb *sched = ipc_resolve(t, t->scheduler);
    if (!sched || sched == t || sched->state == TS_IRQ)
        return;
    struct saved_utcb sv;
    save_utcb(t, &sv, PREEMPTION_MRS);
    t->mr[0] = L4_PROTO_PREEMPTION | (timefault ? L4_TIMEFAULT_WORDS : L4_PREEMPTION_WORDS);
    t->mr[L4_PREEMPTION_CLOCK] = t->preempt_clock;
    t->mr[L4_PREEMPTION_CLOCK_HIGH] = 0;
    t->mr[L4_PREEMPTION_TIMEFAULT] = 1; /* time fault only: the total quantum is exhausted */
    ipc_kernel_call(t, sched->gid, L4_NILPAGE, PREEMPTION_MRS);
    restore_utcb(t, &sv, PREEMPTION_MRS);
}
