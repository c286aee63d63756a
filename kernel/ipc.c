/* IPC, the slow path (contract §5).
 *
 * A blocked sender waits on its kernel stack in the receiver's send queue (FIFO) and performs
 * the transfer itself when the receiver arrives (WAKE_GO), so that faults on its side are its
 * own.  A message without strings cannot fault, so a receiver that finds such a sender
 * queued copies it at once (WAKE_DONE for the sender).  A thread blocked in a user-level
 * receive has nothing left on its kernel stack: it resumes through ipc_user_return(), which
 * loads the message the sender put into its UTCB into its registers (or the fast path passes
 * the registers directly).  Whoever completes or fails a receive writes the receiver's result
 * (MR0, ErrorCode, ipc_from); a sender learns its result from its wake reason. */
#include "ipc.h"
#include "glue.h"
#include "foreign.h"
#include "channel.h"
#include "sched.h"
#include "timeout.h"
#include "space.h"
#include "thread.h"
#include "irq.h"
#include "lib.h"
#include "console.h"
#include "invariants.h"
#include "list.h"
#include <l4/message.h>
#include <l4/control.h>
#include <l4/time.h>
#include <l4/utcb.h>

/* --- send queues --------------------------------------------------------------------- */

static void sendq_append(struct tcb *r, struct tcb *s)
{
    RING_APPEND(r->sendq, s, sendq_next, sendq_prev);
}

void ipc_sendq_remove(struct tcb *r, struct tcb *s)
{
    if (s->sendq_next)
        RING_REMOVE(r->sendq, s, sendq_next, sendq_prev);
}

void ipc_sendq_append(struct tcb *r, struct tcb *s)
{
    sendq_append(r, s);
}

/* The id a sender presents to r: its virtual sender if it propagates. */
static struct tcb *apparent_sender(struct tcb *s)
{
    return s->ipc.vsender ? s->ipc.vsender : s;
}

bool ipc_accepts(struct tcb *r, struct tcb *s)
{
    word_t w = r->ipc.wait_for;
    struct tcb *a = apparent_sender(s);
    if ((r->flags & TF_NATIVE_IPC) && !channel_accepts(r, a, s))
        return false;                   /* a foreign thread hears its partners only */
    if (w == L4_ANYTHREAD)
        return true;
    if (w == L4_ANYLOCALTHREAD)
        return a->space == r->space;
    return w == a->gid || w == s->gid;
}

/* The first queued sender r accepts (FIFO). */
static struct tcb *find_sender(struct tcb *r)
{
    struct tcb *h = r->sendq;
    if (!h)
        return NULL;
    struct tcb *s = h;
    do {
        if (ipc_accepts(r, s))
            return s;
        s = s->sendq_next;
    } while (s != h);
    return NULL;
}

/* --- ids and timeouts ---------------------------------------------------------------- */

word_t ipc_local_to_global(struct tcb *self, word_t local)
{
    if (!l4_is_local_id(local) || local == L4_NILTHREAD || local == L4_ANYLOCALTHREAD)
        return L4_NILTHREAD;
    for (struct tcb *t = self->space->threads; t; t = t->space_next)
        if (t->local_id == local)
            return t->gid;
    return L4_NILTHREAD;
}

struct tcb *ipc_resolve(struct tcb *self, word_t id)
{
    if (l4_is_local_id(id))
        id = ipc_local_to_global(self, id);
    return id ? tcb_lookup(id) : NULL;
}

enum timeout_kind { TO_NEVER, TO_ZERO, TO_AT };

/* The timeout t of a phase `self` starts now. */
static enum timeout_kind timeout_of_thread(struct tcb *self, uint16_t t, uint64_t *deadline)
{
    if (l4_time_is_never(t)) {
        if (self->kdeadline) {          /* a kernel IPC bounded by a transfer timeout */
            *deadline = self->kdeadline;
            return *deadline <= arch_clock_us() ? TO_ZERO : TO_AT;
        }
        return TO_NEVER;
    }
    uint64_t now = arch_clock_us();
    if (l4_time_is_point(t)) {
        *deadline = l4_point_to_clock(t, now);
        return *deadline <= now ? TO_ZERO : TO_AT;
    }
    if (l4_time_is_zero(t))
        return TO_ZERO;
    *deadline = now + l4_period_us(t);
    return TO_AT;
}

static enum timeout_kind timeout_of(uint16_t t, uint64_t *deadline)
{
    return timeout_of_thread(current(), t, deadline);
}

/* --- results ------------------------------------------------------------------------- */

/* Complete the receive of r with the message from s (err = 0) or fail it. */
static void finish_receive(struct tcb *r, struct tcb *s, int err, word_t offset)
{
    word_t tag = s->mr[0];
    struct tcb *a = apparent_sender(s);
    r->ipc.ipc_from = ipc_sender_id(a, r);
    tag &= ~L4_TAG_FLAGS;
    if (s->ipc.vsender) {
        tag |= L4_TAG_P;
        utcb_set(r, L4_UTCB_VIRT_ACT_SENDER, s->gid);
    }
    if (s->ipc.intended) {
        tag |= L4_TAG_R;
        utcb_set(r, L4_UTCB_INTENDED_RCV, s->ipc.intended);
    }
    if (err) {
        tag |= L4_TAG_E;
        utcb_set(r, L4_UTCB_ERROR_CODE, l4_ipc_error(err, true, offset));
    }
    r->mr[0] = tag;
    r->ipc.partner = NULL;
    if (a->space == r->space)
        r->last_sender = a;
}

/* Fail a receive phase that never got a message. */
void ipc_fail_receive(struct tcb *r, int err)
{
    r->mr[0] = L4_TAG_E;
    r->ipc.ipc_from = L4_NILTHREAD;
    utcb_set(r, L4_UTCB_ERROR_CODE, l4_ipc_error(err, true, 0));
}

static word_t fail_send(struct tcb *s, int err, word_t offset, bool keep_tag)
{
    s->mr[0] = keep_tag ? (s->mr[0] & ~L4_TAG_FLAGS) | L4_TAG_E : L4_TAG_E;
    s->ipc.ipc_from = L4_NILTHREAD;
    utcb_set(s, L4_UTCB_ERROR_CODE, l4_ipc_error(err, false, offset));
    return s->mr[0];
}

/* Make r runnable after its receive finished; the caller picks who runs. */
static void receiver_done(struct tcb *r, int err)
{
    wake(r, err ? WAKE_ERROR : WAKE_DONE);
}

/* s (running) delivers its message to r, which waits for it (WAIT_RECV or XFER_RECV). */
static int deliver(struct tcb *s, struct tcb *r, word_t *offset)
{
    timeout_cancel(r);
    r->state = TS_XFER_RECV;
    r->ipc.partner = s;
    word_t r_gid = r->gid;
    int err = ipc_transfer(s, r, offset);
    if (r->gid != r_gid || r->state != TS_XFER_RECV || r->ipc.partner != s)
        return err ? err : L4_IPC_ABORTED;      /* r was deleted or aborted meanwhile */
    /* Transfer timeouts are reported from each side's point of view (§5.7). */
    int rerr = err == L4_IPC_XFER_TIMEOUT_OWN ? L4_IPC_XFER_TIMEOUT_PEER :
               err == L4_IPC_XFER_TIMEOUT_PEER ? L4_IPC_XFER_TIMEOUT_OWN : err;
    finish_receive(r, s, rerr, *offset);
    receiver_done(r, rerr);
    return err;
}

/* --- the send phase ------------------------------------------------------------------ */

/* Propagation (§5.9): the sender speaks for VirtualSender if it may. */
static struct tcb *propagation_for(struct tcb *s, struct tcb *dest)
{
    if (!(s->mr[0] & L4_TAG_P))
        return NULL;
    struct tcb *vs = ipc_resolve(s, utcb_get(s, L4_UTCB_VIRT_ACT_SENDER));
    if (!vs || vs->state == TS_IRQ || (vs->space != s->space && s->space != dest->space))
        return NULL;
    return vs;
}

/* A virtual sender waiting in a closed receive for the propagating thread now waits for the
 * final receiver, so that it can reply directly. */
static void redirect_virtual_sender(struct tcb *vs, struct tcb *s, struct tcb *dest)
{
    if (vs->state == TS_WAIT_RECV && vs->ipc.wait_for == s->gid)
        vs->ipc.wait_for = dest->gid;
}

/* Redirection (§5.10): IPC from a space with a redirector to a thread outside it goes to the
 * redirector, which learns the intended receiver. */
static struct tcb *redirect(struct tcb *s, struct tcb *dest)
{
    struct space *sp = s->space;
    if (!sp->redirector || dest->space == sp || dest->gid == sp->redirector ||
        (s->flags & TF_FOREIGN))            /* it only ever calls its handler */
        return dest;
    struct tcb *red = tcb_lookup(sp->redirector);
    if (!red || red == s)
        return dest;
    return red;
}

static int send_phase(struct tcb *s, struct tcb *dest, uint16_t timeout, word_t *offset,
                      struct tcb **woken)
{
    *offset = 0;
    *woken = NULL;
    if (dest->state == TS_IRQ && irq_acknowledge(s, dest, timeout) == 0)
        return 0;

    struct tcb *target = redirect(s, dest);
    s->ipc.intended = target != dest ? dest->gid : 0;
    s->ipc.vsender = propagation_for(s, target);
    if (s->ipc.vsender)
        redirect_virtual_sender(s->ipc.vsender, s, target);

    int err;
    if (target->state == TS_WAIT_RECV && ipc_accepts(target, s)) {
        err = deliver(s, target, offset);
        s->ipc.vsender = NULL;
        s->ipc.intended = 0;
        if (target->state == TS_READY)
            *woken = target;
        return err;
    }

    uint64_t deadline = 0;
    enum timeout_kind tk = timeout_of(timeout, &deadline);
    if (tk == TO_ZERO) {
        s->ipc.vsender = NULL;
        s->ipc.intended = 0;
        return L4_IPC_TIMEOUT;
    }
    sendq_append(target, s);
    s->ipc.partner = target;
    if (tk == TO_AT)
        timeout_set(s, deadline);
    enum wake_reason why = block_current(TS_WAIT_SEND);
    /* Whoever woke us has taken us off target's queue. */
    s->ipc.partner = NULL;
    switch (why) {
    case WAKE_GO:
        err = deliver(s, target, offset);
        if (target->state == TS_READY)
            *woken = target;
        break;
    case WAKE_DONE:     err = 0; break;
    case WAKE_ERROR:    err = (int)s->ipc.ipc_error; *offset = s->ipc.ipc_offset; break;
    case WAKE_TIMEOUT:  err = L4_IPC_TIMEOUT; break;
    case WAKE_CANCEL:   err = L4_IPC_CANCELED; break;
    case WAKE_ABORT:    err = L4_IPC_ABORTED; *offset = s->ipc.ipc_offset; break;
    default:            err = L4_IPC_NOPARTNER; break;
    }
    s->ipc.vsender = NULL;
    s->ipc.intended = 0;
    return err;
}

/* --- the receive phase ---------------------------------------------------------------- */

/* A queued user-level caller whose message was just taken enters its receive phase at once,
 * on its behalf: its kernel stack holds nothing but that, so it resumes through
 * ipc_user_return like any receiver.  This keeps call/reply pairs in phase: the reply finds
 * the caller waiting (and can take the fast path) instead of queueing behind it.  False if
 * the receive would not simply block (a sender already queued for it, zero timeout, no such
 * partner): then the caller runs its own receive phase. */
static bool enter_receive_for(struct tcb *s)
{
    word_t spec = s->ipc.rcv_spec, wf;
    if (spec == L4_ANYTHREAD || spec == L4_ANYLOCALTHREAD) {
        wf = spec;
    } else {
        struct tcb *src = ipc_resolve(s, spec);
        if (!src)
            return false;
        wf = src->gid;
    }
    uint64_t deadline = 0;
    enum timeout_kind tk = timeout_of_thread(s, s->ipc.rcv_timeout, &deadline);
    if (tk == TO_ZERO)
        return false;
    word_t saved = s->ipc.wait_for;
    s->ipc.wait_for = wf;
    if (find_sender(s)) {
        s->ipc.wait_for = saved;
        return false;
    }
    timeout_cancel(s);
    if (tk == TO_AT)
        timeout_set(s, deadline);
    s->ipc.partner = NULL;
    s->ipc.user_rcv = false;
    s->state = TS_WAIT_RECV;
    s->cont = ipc_user_return;
    s->wake = WAKE_NONE;
    return true;
}

/* Take the message of a queued sender. */
static void take_from_queue(struct tcb *r, struct tcb *s, bool kernel, struct tcb *woken)
{
    ipc_sendq_remove(r, s);
    if (s->state == TS_IRQ) {
        irq_deliver(s, r);
        if (woken)
            sched_enqueue(woken);
        return;
    }
    if (!ipc_has_strings(s)) {
        /* Cannot fault: copy now, in the receiver's context. */
        word_t offset = 0;
        s->ipc.partner = NULL;
        int err = ipc_transfer(s, r, &offset);
        finish_receive(r, s, err, offset);
        if (err || !s->ipc.user_rcv || !enter_receive_for(s)) {
            s->ipc.ipc_error = err;
            s->ipc.ipc_offset = offset;
            wake(s, err ? WAKE_ERROR : WAKE_DONE);
            sched_enqueue(s);
        }
        if (woken)
            sched_enqueue(woken);
        return;
    }
    /* Strings: the sender copies in its own context while we wait for it. */
    r->ipc.partner = s;
    wake(s, WAKE_GO);
    if (woken)
        sched_enqueue(woken);
    if (kernel) {
        block_current_to(TS_XFER_RECV, s);
    } else {
        block_current_cont_to(TS_XFER_RECV, ipc_user_return, s);
    }
}

/* `woken`: the thread our send phase made ready; it runs next if we block. */
static void receive_phase(struct tcb *r, word_t from_spec, uint16_t timeout, bool kernel,
                          struct tcb *woken)
{
    if (from_spec == L4_ANYTHREAD || from_spec == L4_ANYLOCALTHREAD) {
        r->ipc.wait_for = from_spec;
    } else {
        struct tcb *src = ipc_resolve(r, from_spec);
        if (!src) {
            ipc_fail_receive(r, L4_IPC_NOPARTNER);
            if (woken)
                sched_enqueue(woken);
            return;
        }
        r->ipc.wait_for = src->gid;     /* receiving from oneself matches nobody: a sleep */
    }

    struct tcb *s = find_sender(r);
    if (s) {
        take_from_queue(r, s, kernel, woken);
        return;
    }

    uint64_t deadline = 0;
    enum timeout_kind tk = timeout_of(timeout, &deadline);
    if (tk == TO_ZERO) {
        ipc_fail_receive(r, L4_IPC_TIMEOUT);
        if (woken)
            sched_enqueue(woken);
        return;
    }
    if (tk == TO_AT)
        timeout_set(r, deadline);
    r->ipc.partner = NULL;
    if (kernel)
        block_current_to(TS_WAIT_RECV, woken);
    else
        block_current_cont_to(TS_WAIT_RECV, ipc_user_return, woken);
}

/* --- Ipc ------------------------------------------------------------------------------- */

word_t ipc(struct tcb *self, word_t to, word_t from_spec, word_t timeouts, bool kernel)
{
    struct tcb *woken = NULL;
    self->ipc.ipc_from = L4_NILTHREAD;
    self->ipc.vsender = NULL;
    self->ipc.intended = 0;
    self->ipc.rcv_spec = from_spec;
    self->ipc.rcv_timeout = l4_rcv_timeout(timeouts);
    self->ipc.user_rcv = !kernel && from_spec != L4_NILTHREAD;
    if (to != L4_NILTHREAD) {
        if (l4_tag_u(self->mr[0]) + l4_tag_t(self->mr[0]) > 63)
            return fail_send(self, L4_IPC_OVERFLOW, 0, true);
        struct tcb *dest = ipc_resolve(self, to);
        if (!dest)
            return fail_send(self, L4_IPC_NOPARTNER, 0, false);
        word_t offset;
        word_t tag = self->mr[0];
        int err = send_phase(self, dest, l4_snd_timeout(timeouts), &offset, &woken);
        if (err) {
            if (woken)
                sched_enqueue(woken);
            return fail_send(self, err, offset, err >= L4_IPC_OVERFLOW);
        }
        self->mr[0] = tag & ~L4_TAG_FLAGS;
    }
    if (from_spec == L4_NILTHREAD) {
        /* Neither phase: nothing failed, so MR0 must not say so (the caller's e bit stays
         * behind otherwise, with a stale ErrorCode). */
        if (to == L4_NILTHREAD)
            self->mr[0] &= ~L4_TAG_FLAGS;
        /* Send only: the receiver runs now if it is more important, else later. */
        if (woken)
            sched_wakeup(woken);
        return self->mr[0];
    }
    receive_phase(self, from_spec, l4_rcv_timeout(timeouts), kernel, woken);
    return self->mr[0];
}

/* --- kernel-generated IPC --------------------------------------------------------------- */

bool ipc_kernel_call(struct tcb *self, word_t handler, word_t acceptor, unsigned reply_words)
{
    word_t br0 = utcb_get(self, L4_UTCB_BR(0));
    uint8_t outer = self->kernel_rcv_words;
    utcb_set(self, L4_UTCB_BR(0), acceptor);
    self->flags |= TF_KERNEL_IPC;
    self->kernel_rcv_words = (uint8_t)reply_words;
    word_t tag = ipc(self, handler, handler, l4_timeouts(L4_NEVER, L4_NEVER), true);
    self->kernel_rcv_words = outer;
    self->flags &= ~TF_KERNEL_IPC;
    utcb_set(self, L4_UTCB_BR(0), br0);
    return !(tag & L4_TAG_E);
}

/* --- timeouts, aborts, deletion --------------------------------------------------------- */

void ipc_timeout_expired(struct tcb *t)
{
    if (t->state == TS_WAIT_SEND) {
        ipc_sendq_remove(t->ipc.partner, t);
        wake(t, WAKE_TIMEOUT);
    } else if (t->state == TS_WAIT_RECV) {
        ipc_fail_receive(t, L4_IPC_TIMEOUT);
        wake(t, WAKE_TIMEOUT);
    } else {
        return;
    }
    sched_enqueue(t);
}

/* Cancel a blocked phase that has not started a transfer (§5.11); true if t was in one. */
static bool cancel_phase(struct tcb *t, bool recv, bool send)
{
    if (t->state == TS_WAIT_SEND && send) {
        ipc_sendq_remove(t->ipc.partner, t);
        wake(t, WAKE_CANCEL);
        sched_enqueue(t);
        return true;
    }
    if (t->state == TS_WAIT_RECV && recv) {
        if (t->cont == thread_start_cont) {
            wake(t, WAKE_CANCEL);           /* start at the current IP/SP (§6.5) */
        } else {
            ipc_fail_receive(t, L4_IPC_CANCELED);
            wake(t, WAKE_CANCEL);
        }
        sched_enqueue(t);
        return true;
    }
    return false;
}

/* End the string transfer x with `code` for both partners: a partner in a fault IPC nested
 * in the transfer gives it up and finds x->aborted set.  A sender waiting for its receiver's
 * fault IPC is woken by that receiver, unless the receiver is the one being deleted. */
static void abort_transfer(struct xfer *x, int code, bool receiver_gone)
{
    x->aborted = code;
    if (!receiver_gone && (x->r->flags & TF_KERNEL_IPC))
        cancel_phase(x->r, true, true);
    if (x->s->flags & TF_KERNEL_IPC)
        cancel_phase(x->s, true, true);
    else if (receiver_gone && x->s->state == TS_XFER_WAIT) {
        wake(x->s, WAKE_GO);
        sched_enqueue(x->s);
    }
}

/* A receiver took a sender with strings from its queue and waits (TS_XFER_RECV) for it to
 * run and start the transfer (the sender is READY with WAKE_GO).  In that window the
 * transfer counts as started: aborting either partner aborts both (code 7, offset 0). */
static bool go_pending(struct tcb *s)
{
    return s->state == TS_READY && s->wake == WAKE_GO && s->ipc.partner &&
           s->ipc.partner->state == TS_XFER_RECV && s->ipc.partner->ipc.partner == s;
}

static void abort_go(struct tcb *s, int code)
{
    struct tcb *r = s->ipc.partner;
    s->wake = code == L4_IPC_ABORTED ? WAKE_ABORT : WAKE_ERROR;
    s->ipc.ipc_error = code;
    s->ipc.ipc_offset = 0;
    s->ipc.partner = NULL;
    r->ipc.partner = NULL;
    ipc_fail_receive(r, code);
    wake(r, code == L4_IPC_ABORTED ? WAKE_ABORT : WAKE_NOPARTNER);
    sched_enqueue(r);
}

bool ipc_abort(struct tcb *t, bool recv, bool send)
{
    /* Inside a string transfer (including a fault IPC nested in it): both partners fail. */
    if (t->xfer && ((t->xfer->s == t && send) || (t->xfer->r == t && recv))) {
        abort_transfer(t->xfer, L4_IPC_ABORTED, false);
        return true;
    }
    if (send && go_pending(t)) {
        abort_go(t, L4_IPC_ABORTED);
        return true;
    }
    if (recv && t->state == TS_XFER_RECV && !t->xfer && t->ipc.partner &&
        go_pending(t->ipc.partner)) {
        abort_go(t->ipc.partner, L4_IPC_ABORTED);
        return true;
    }
    return cancel_phase(t, recv, send);
}

/* "No last sender" is the thread itself: a local id then resolves to a thread that is never
 * waiting when it sends, so the fast path's local-id line needs no test for none. */
void ipc_thread_init(struct tcb *t)
{
    t->ipc.wait_for = L4_NILTHREAD;
    t->last_sender = t;
}

void ipc_thread_deleted(struct tcb *t)
{
    timeout_cancel(t);
    if (t->state == TS_WAIT_SEND && t->ipc.partner)
        ipc_sendq_remove(t->ipc.partner, t);
    if (t->xfer == &xfer_sender_gone) {
        /* A receiver whose sender was deleted first, while it was in a fault IPC: there is no
         * transfer left to end (the placeholder has no partners). */
        t->xfer = NULL;
    } else if (t->xfer) {
        struct xfer *x = t->xfer;
        if (x->s == t) {
            /* The sender's stack, which holds x, dies with it: finish the receiver here, if
             * it is still in this transfer.  A receiver deleted before us has left it (and x
             * aborted): its TCB slot is free or another thread's by now. */
            struct tcb *r = x->r;
            if (r->xfer != x) {
                /* the receiver is gone */
            } else if (r->state == TS_XFER_RECV) {
                r->xfer = NULL;
                ipc_fail_receive(r, L4_IPC_NOPARTNER);
                wake(r, WAKE_NOPARTNER);
                sched_enqueue(r);
            } else {
                r->xfer = &xfer_sender_gone;    /* in a fault IPC: it notices when back */
                if (r->flags & TF_KERNEL_IPC)
                    cancel_phase(r, true, true);
            }
        } else {
            abort_transfer(x, L4_IPC_NOPARTNER, true);
        }
        t->xfer = NULL;
    }

    /* Everybody queued to send to t fails in the send phase. */
    while (t->sendq) {
        struct tcb *s = t->sendq;
        ipc_sendq_remove(t, s);
        if (s->state == TS_IRQ) {
            irq_handler_gone(s);
            continue;
        }
        wake(s, WAKE_NOPARTNER);
        sched_enqueue(s);
    }
    /* A sender told to deliver its strings to t, not yet running: its send fails. */
    for (struct tcb *x = thread_first(); x; x = x->all_next)
        if (x != t && x->state == TS_READY && x->wake == WAKE_GO && x->ipc.partner == t) {
            x->wake = WAKE_ERROR;
            x->ipc.ipc_error = L4_IPC_NOPARTNER;
            x->ipc.ipc_offset = 0;
            x->ipc.partner = NULL;
        }
    /* Everybody waiting to receive from t (closed) or for t's transfer fails.  Whoever has t
     * as its last sender forgets it: the slot may next hold a thread of another space. */
    for (struct tcb *x = thread_first(); x; x = x->all_next) {
        if (x == t)
            continue;
        if (x->last_sender == t)
            x->last_sender = x;
        if ((x->state == TS_WAIT_RECV && x->ipc.wait_for == t->gid) ||
            (x->state == TS_XFER_RECV && x->ipc.partner == t)) {
            if (x->cont == thread_start_cont) {
                x->ipc.wait_for = L4_NILTHREAD; /* keeps waiting for a start that cannot come */
                continue;
            }
            ipc_fail_receive(x, L4_IPC_NOPARTNER);
            wake(x, WAKE_NOPARTNER);
            sched_enqueue(x);
        }
    }
}

unsigned ipc_schedule_state(struct tcb *t)
{
    if (t->xfer)
        return t->xfer->s == t ? L4_SCHEDULE_SENDING : L4_SCHEDULE_RECEIVING;
    switch (t->state) {
    case TS_WAIT_SEND: return L4_SCHEDULE_PENDING_SEND;
    case TS_WAIT_RECV: return L4_SCHEDULE_WAITING;
    case TS_XFER_RECV: return L4_SCHEDULE_RECEIVING;
    default:           return 0;
    }
}

unsigned ipc_exregs_state(struct tcb *t)
{
    if (t->xfer)
        return t->xfer->s == t ? L4_EXREGS_WAS_SENDING : L4_EXREGS_WAS_RECEIVING;
    switch (t->state) {
    case TS_WAIT_SEND: return L4_EXREGS_WAS_SENDING;
    case TS_WAIT_RECV:
    case TS_XFER_RECV: return L4_EXREGS_WAS_RECEIVING;
    default:           return 0;
    }
}
