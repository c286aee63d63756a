/* The foreign system-call ABI (docs/linux-abi.md).  A thread of a foreign space cannot make
 * X.2 system calls: whatever it does that enters the kernel becomes a Call to its space's
 * handler, composed from its registers by the arch glue, and the handler's reply sets them.
 * The UTCB of such a thread is kernel memory mapped nowhere in its space (space_utcb_alloc),
 * so its MRs are the kernel's scratch: nothing is saved around these calls, and the program
 * cannot forge a reply or redirect its faults by writing its TCRs. */
#include "foreign.h"
#include "channel.h"
#include "glue.h"
#include "ipc.h"
#include "sched.h"
#include "space.h"
#include "thread.h"
#include "console.h"
#include <l4/message.h>
#include <l4/utcb.h>
#include <l4/fpage.h>
#include <l4/pecan.h>
#include <l4/time.h>

struct tcb *foreign_handler(struct tcb *t)
{
    return t->space && t->space->foreign ? tcb_lookup(t->space->foreign_handler) : NULL;
}

word_t foreign_check_control(struct space *s, bool on, word_t handler)
{
    if (on && !tcb_lookup(handler))
        return L4_ERR_INVALID_THREAD;
    /* The bit decides how UTCBs are mapped and what `syscall` means: fixed once a thread of
     * the space is active.  The handler may change at any time. */
    if (on != s->foreign)
        for (struct tcb *t = s->threads; t; t = t->space_next)
            if (t->local_id)
                return L4_ERR_INVALID_PARAM;
    return L4_ERR_OK;
}

void foreign_set_control(struct space *s, bool on, word_t handler)
{
    /* The bit decides whether the UTCB area holds UTCB pages or the program's mappings: it
     * starts empty either way (no thread is active, foreign_check_control). */
    if (on != s->foreign)
        space_clear_utcb_area(s);
    s->foreign = on;
    s->foreign_handler = on ? handler : 0;
    space_update_ipc_slow(s);
    for (struct tcb *t = s->threads; t; t = t->space_next)
        foreign_thread_mark(t, on);
}

void foreign_thread_mark(struct tcb *t, bool on)
{
    if (on) {
        t->flags |= TF_FOREIGN;
        arch_set_thread_bases(t, 0, 0);     /* as Linux starts a process (no %gs page) */
    } else {
        t->flags &= ~TF_FOREIGN;
        arch_thread_init_bases(t);
    }
}

static void orphaned(struct tcb *t, const char *what)
{
    printk("thread %lx: %s and its foreign space has no handler: halted\n", t->gid, what);
    thread_halt_current();
}

/* A Call to the handler with the message in t's MRs; false if it failed. */
static bool call_handler(struct tcb *t)
{
    struct tcb *h = foreign_handler(t);
    return h && ipc_kernel_call(t, h->gid, L4_COMPLETE_FPAGE, L4_FREG_WORDS + 1);
}

/* Apply the handler's reply in t's MRs.  GET_REGS is answered with the register message,
 * and the reply to that applies in turn. */
static void apply_reply(struct tcb *t, bool syscall, const char *what)
{
    for (;;) {
        word_t tag = t->mr[0];
        unsigned u = l4_tag_u(tag);
        switch (l4_tag_label(tag)) {
        case L4_FOREIGN_SET_REGS:
            arch_foreign_set_regs(t, &t->mr[1], u < L4_FREG_WORDS ? u : L4_FREG_WORDS);
            return;
        case L4_FOREIGN_GET_REGS:
            t->mr[0] = L4_PROTO_FOREIGN_REGS | L4_FREG_WORDS;
            arch_foreign_get_regs(t, &t->mr[1]);
            if (!call_handler(t)) {
                if (!foreign_handler(t))
                    orphaned(t, what);
                return;
            }
            continue;
        default:
            if (syscall && u >= 1)
                arch_foreign_set_result(t, t->mr[1]);
            return;
        }
    }
}

/* A kernel message of t (composed in its MRs) and the reply, for exceptions, page faults and
 * interrupts; a failed call (aborted by ExchangeRegisters) changes nothing. */
static void message(struct tcb *t, const char *what)
{
    if (call_handler(t))
        apply_reply(t, false, what);
    else if (!foreign_handler(t))
        orphaned(t, what);
}

void foreign_syscall(struct tcb *t)
{
    if (arch_foreign_syscall_nr(t) == L4_FOREIGN_IPC_NR && t->space->nchan) {
        channel_ipc(t);                 /* native IPC with the partners the handler named */
        return;
    }
    if (arch_foreign_syscall_nr(t) == L4_FOREIGN_UNMAP_NR && t->space->nchan) {
        channel_unmap(t);               /* X.2 Unmap of its own space */
        return;
    }
    if (arch_foreign_syscall_nr(t) == L4_FOREIGN_BUFFERS_NR && t->space->nchan) {
        channel_buffers(t);             /* its receive buffers for string items */
        return;
    }
    struct tcb *h = foreign_handler(t);
    if (!h) {
        orphaned(t, "system call");
        return;
    }
    t->mr[0] = L4_PROTO_FOREIGN_SYSCALL | L4_FSC_WORDS;
    arch_foreign_syscall_message(t, &t->mr[1]);
    utcb_set(t, L4_UTCB_BR(0), L4_COMPLETE_FPAGE);      /* the reply may map */
    /* An ordinary Call, so that the reply can come through any IPC path; the receive phase
     * blocks with ipc_user_return, which sends foreign threads to foreign_syscall_return. */
    ipc(t, h->gid, h->gid, l4_timeouts(L4_NEVER, L4_NEVER), false);
    foreign_syscall_return(t);                          /* the send phase failed */
}

void foreign_syscall_return(struct tcb *t)
{
    if (t->flags & TF_NATIVE_IPC) {     /* its own IPC's receive, not the handler's reply */
        channel_ipc_return(t);
        return;
    }
    if (!(t->mr[0] & L4_TAG_E)) {
        /* A YIELD reply (the handler's sched_yield) rotates t behind the threads of its
         * priority: the reply itself switched to t directly, which would let a thread that
         * yields in a loop keep the CPU from a ready thread of its own priority. */
        bool yield = l4_tag_label(t->mr[0]) == L4_FOREIGN_YIELD;
        apply_reply(t, true, "system call");
        if (yield)
            sched_yield();
    } else if (!foreign_handler(t)) {
        orphaned(t, "system call");
    }
    /* else aborted by ExchangeRegisters: the registers are as they were */
    thread_return_to_user_checks(t);
}

void foreign_exception(struct tcb *t, unsigned vector, word_t error, word_t addr)
{
    t->mr[0] = L4_PROTO_FOREIGN_EXCEPTION | L4_FEXC_WORDS;
    arch_foreign_get_regs(t, &t->mr[1]);
    t->mr[L4_FEXC_VECTOR] = vector;
    t->mr[L4_FEXC_ERROR] = error;
    t->mr[L4_FEXC_ADDR] = addr;
    message(t, "exception");
}

void foreign_page_fault(struct tcb *t, word_t addr, unsigned access, word_t ip)
{
    t->mr[0] = l4_pagefault_tag(L4_PROTO_PAGEFAULT, access);
    t->mr[1] = addr;
    t->mr[2] = ip;
    message(t, "page fault");
}

void foreign_raise_interrupt(struct tcb *t)
{
    t->flags |= TF_FOREIGN_INTR;
    /* A thread blocked in native IPC would never reach user mode to deliver it: its IPC
     * fails with error 3 (canceled), then the interrupt message goes out.  In a string copy
     * (a fault IPC nested in it runs without TF_NATIVE_IPC) the copy is aborted: error 7. */
    if ((t->flags & TF_NATIVE_IPC) || t->xfer)
        ipc_abort(t, true, true);
}

void foreign_interrupt(struct tcb *t)
{
    t->mr[0] = L4_PROTO_FOREIGN_INTERRUPT | L4_FREG_WORDS;
    arch_foreign_get_regs(t, &t->mr[1]);
    message(t, "interrupt");
}
