/* Channels: native IPC for the threads of a foreign space (docs/linux-abi.md §9).  The
 * space's handler names the threads they may reach (at most L4_CHANNEL_PARTNERS, each with or
 * without the right to map); a `syscall` with L4_FOREIGN_IPC_NR is then an X.2 Ipc whose
 * message travels in registers, checked here before anything is sent: the destination and a
 * closed receive's source must be partners, and an open receive accepts partners only
 * (ipc_accepts asks channel_accepts).  Mappings land only inside the space's window, which the
 * handler sets: the acceptor a native receive names is cut to it.  Nothing else becomes possible: every other `syscall`
 * is still a message to the handler. */
#include "channel.h"
#include "glue.h"
#include "ipc.h"
#include "mapdb.h"
#include "space.h"
#include "thread.h"
#include <l4/control.h>
#include <l4/fpage.h>
#include <l4/message.h>
#include <l4/utcb.h>
#include <l4/pecan.h>

static struct channel_partner *lookup(struct space *s, word_t gid)
{
    for (unsigned i = 0; i < s->nchan; i++)
        if (s->chan[i].gid == gid)
            return &s->chan[i];
    return NULL;
}

/* What t's typed items hold (walked as the transfer walks them): map or grant items, grant
 * items.  A foreign space's pages are its handler's: a grant would move the handler's mapping
 * out of the space, to outlive it and the handler's later reuse of the page.  String items
 * need no right: they name the sender's own addresses and the receiver's own buffers. */
enum { ITEMS_MAP = 1, ITEMS_GRANT = 2 };
static unsigned mapping_items(const struct tcb *t)
{
    word_t tag = t->mr[0];
    unsigned u = l4_tag_u(tag), end = u + l4_tag_t(tag), kinds = 0;
    for (unsigned i = u + 1; i <= end && i < L4_MR_COUNT; ) {
        word_t w0 = t->mr[i];
        if (l4_item_is_string(w0)) {
            i += 1 + l4_string_substrings(w0);  /* its addresses are no items */
            continue;
        }
        if (l4_item_is_map(w0) || l4_item_is_grant(w0))
            kinds |= ITEMS_MAP | (l4_item_is_grant(w0) ? ITEMS_GRANT : 0);
        i += 2;
    }
    return kinds;
}

/* After a revocation or a change of the map right: a native IPC of s's threads that names a
 * partner s lost (a send to it, a closed receive from it; an open receive once no partner is
 * left), or waits to send map items to a partner without the map right (check() saw the
 * right at the call, the message leaves later), fails with error 3 (canceled), as
 * ExchangeRegisters' abort would. */
static void cancel_revoked(struct space *s)
{
    for (struct tcb *t = s->threads; t; t = t->space_next) {
        if (!(t->flags & TF_NATIVE_IPC))
            continue;
        bool lost = false;
        if (t->state == TS_WAIT_SEND && t->ipc.partner) {
            struct channel_partner *p = lookup(s, t->ipc.partner->gid);
            lost = !p || (!p->map && l4_tag_t(t->mr[0]) && mapping_items(t));
        }
        else if (t->state == TS_WAIT_RECV)
            lost = t->ipc.wait_for == L4_ANYTHREAD ? s->nchan == 0 : !lookup(s, t->ipc.wait_for);
        if (lost)
            ipc_abort(t, true, true);
    }
}

/* A new window: what the old one holds leaves the space (the handler reuses those
 * addresses), and a native receive waiting with an acceptor cut to the old one is canceled:
 * also a call still in its send phase (its receive would use that acceptor). */
static word_t set_window(struct space *s, word_t fpage)
{
    unsigned order = l4_fpage_order(fpage);
    if (!l4_is_nil_fpage(fpage) && (l4_is_io_fpage(fpage) || order < 12 || order >= 47 ||
                                    l4_fpage_base(fpage) > L4_USER_AREA_END - (1ul << order)))
        return L4_ERR_INVALID_PARAM;
    if (!l4_is_nil_fpage(s->chan_window))
        mapdb_flush_range(s, l4_fpage_base(s->chan_window), 1ul << l4_fpage_order(s->chan_window),
                          true);
    s->chan_window = l4_is_nil_fpage(fpage) ? 0 : fpage & ~7ull;
    for (struct tcb *t = s->threads; t; t = t->space_next)
        if ((t->flags & TF_NATIVE_IPC) && (t->state == TS_WAIT_RECV ||
                                            (t->state == TS_WAIT_SEND &&
                                             t->ipc.rcv_spec != L4_NILTHREAD)))
            ipc_abort(t, true, true);
    return L4_ERR_OK;
}

/* The acceptor a native receive may use: the part of the program's acceptor inside the
 * window (two aligned fpages: one holds the other, or they do not meet), and its strings bit
 * (BR0.s: strings go to the buffers the thread loaded itself, channel_buffers; without them
 * BR1 is 0, a buffer of no bytes: message overflow). */
static word_t cut_to_window(word_t acceptor, word_t window)
{
    word_t strings = acceptor & L4_ACCEPT_STRINGS;
    if (l4_is_nil_fpage(acceptor) || l4_is_nil_fpage(window))
        return strings;
    unsigned a = l4_fpage_order(acceptor), w = l4_fpage_order(window);
    word_t abase = l4_fpage_base(acceptor), wbase = l4_fpage_base(window);
    if (a >= w)
        return (a >= 64 || (wbase & ~((1ul << a) - 1)) == abase ? window : 0) | strings;
    return ((abase & ~((1ul << w) - 1)) == wbase ? acceptor & ~7ull : 0) | strings;
}

word_t channel_control(struct space *s, word_t ctl, word_t partner)
{
    if (ctl & ~(L4_SPACE_CTL_CHANNEL | L4_SPACE_CTL_CHAN_REVOKE | L4_SPACE_CTL_CHAN_MAP |
                L4_SPACE_CTL_CHAN_WINDOW) || !s->foreign ||
        ((ctl & L4_SPACE_CTL_CHAN_WINDOW) && (ctl & ~(L4_SPACE_CTL_CHANNEL |
                                                      L4_SPACE_CTL_CHAN_WINDOW))))
        return L4_ERR_INVALID_PARAM;
    if (ctl & L4_SPACE_CTL_CHAN_WINDOW)
        return set_window(s, partner);
    if (ctl & L4_SPACE_CTL_CHAN_REVOKE) {
        if (partner == L4_ANYTHREAD) {
            s->nchan = 0;
        } else {
            struct channel_partner *p = lookup(s, partner);
            if (p)
                *p = s->chan[--s->nchan];
        }
        cancel_revoked(s);
        return L4_ERR_OK;
    }
    struct tcb *t = tcb_lookup(partner);
    if (!t)
        return L4_ERR_INVALID_THREAD;
    if (t->space == s)                  /* one process's threads share memory: no channel */
        return L4_ERR_INVALID_PARAM;
    struct channel_partner *p = lookup(s, partner);
    if (!p) {
        if (s->nchan == L4_CHANNEL_PARTNERS)
            return L4_ERR_NO_MEM;
        p = &s->chan[s->nchan++];
        p->gid = partner;
    }
    p->map = ctl & L4_SPACE_CTL_CHAN_MAP;
    cancel_revoked(s);
    return L4_ERR_OK;
}

bool channel_accepts(struct tcb *r, struct tcb *a, struct tcb *s)
{
    struct channel_partner *p = lookup(r->space, a->gid);
    return p && (p->map || l4_tag_t(s->mr[0]) == 0 || !mapping_items(s));
}

/* Check the call before anything happens: 0, or the IPC error (code, phase). */
static word_t check(struct tcb *t, word_t to, word_t from)
{
    word_t tag = t->mr[0];
    if (to != L4_NILTHREAD) {
        struct channel_partner *p = l4_is_local_id(to) ? NULL : lookup(t->space, to);
        if (!p)
            return l4_ipc_error(L4_IPC_NOPARTNER, false, 0);
        if (l4_tag_u(tag) + l4_tag_t(tag) >= L4_FOREIGN_IPC_MRS)
            return l4_ipc_error(L4_IPC_OVERFLOW, false, 0);
        unsigned kinds = l4_tag_t(tag) ? mapping_items(t) : 0;
        if (kinds && (!p->map || (kinds & ITEMS_GRANT)))
            return l4_ipc_error(L4_IPC_OVERFLOW, false, 0);
    }
    if (from != L4_NILTHREAD && from != L4_ANYTHREAD &&
        (l4_is_local_id(from) || !lookup(t->space, from)))
        return l4_ipc_error(L4_IPC_NOPARTNER, true, 0);
    return 0;
}

void channel_ipc(struct tcb *t)
{
    word_t to, from, timeouts, acceptor;
    arch_channel_ipc_args(t, &to, &from, &timeouts, &acceptor);
    t->mr[0] &= ~L4_TAG_FLAGS;          /* no propagation, no stale flags */
    word_t err = check(t, to, from);
    if (err) {
        t->mr[0] |= L4_TAG_E;
        t->ipc.ipc_from = L4_NILTHREAD;
        arch_channel_ipc_result(t, err);
        thread_return_to_user_checks(t);
        return;
    }
    t->flags |= TF_NATIVE_IPC;
    utcb_set(t, L4_UTCB_BR(0), cut_to_window(acceptor, t->space->chan_window));
    ipc(t, to, from, timeouts, false);
    channel_ipc_return(t);              /* unless the receive blocked: then its continuation */
}

void channel_ipc_return(struct tcb *t)
{
    t->flags &= ~TF_NATIVE_IPC;
    arch_channel_ipc_result(t, t->mr[0] & L4_TAG_E ? utcb_get(t, L4_UTCB_ERROR_CODE) : 0);
    thread_return_to_user_checks(t);
}

/* X.2 Unmap for the thread of a foreign space: the operation acts only on the caller's own
 * mappings (with f) and those derived from them, i.e. the pages it mapped to partners, so it
 * gives the thread no power over anything but its own pages.  Its own pages are its
 * handler's mappings: flushing them only makes the next touch fault to the handler. */
void channel_unmap(struct tcb *t)
{
    word_t ctl = arch_channel_unmap_args(t), result = L4_ERR_OK;
    unsigned k = ctl & L4_UNMAP_COUNT_MASK;
    if (k >= L4_FOREIGN_IPC_MRS)         /* the MRs beyond the registers are the kernel's */
        result = L4_ERR_INVALID_PARAM;
    else
        mapdb_unmap_fpages(t->space, t->mr, k + 1, ctl & L4_UNMAP_FLUSH);
    arch_channel_unmap_result(t, result);
    thread_return_to_user_checks(t);
}

/* Receive buffers for string items: BR1..BRn of the thread's kernel-held UTCB (the program
 * cannot reach it) from the MR registers, and the XferTimeouts of its string copies.  The
 * buffers name the thread's own addresses only: what arrives there is what the program
 * asked for, and the copy writes through its own page table (faults to its own pager). */
void channel_buffers(struct tcb *t)
{
    word_t n, xfer_timeouts, result = L4_ERR_OK;
    arch_channel_buffers_args(t, &n, &xfer_timeouts);
    if (n > L4_FOREIGN_BUFFER_WORDS) {
        result = L4_ERR_INVALID_PARAM;
    } else {
        for (unsigned i = 0; i < n; i++)
            utcb_set(t, L4_UTCB_BR(1 + i), t->mr[i]);
        utcb_set(t, L4_UTCB_BR(1 + n), 0);      /* a buffer of no bytes ends any chain */
        utcb_set(t, L4_UTCB_XFER_TIMEOUTS, xfer_timeouts);
    }
    arch_channel_buffers_result(t, result);
    thread_return_to_user_checks(t);
}
