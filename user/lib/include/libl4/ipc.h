/* libl4: IPC convenience forms (contract §5.1) on top of l4_ipc/l4_lipc, and helpers to
 * put messages into and take them out of the message registers. */
#ifndef LIBL4_IPC_H
#define LIBL4_IPC_H

#include <stddef.h>
#include <l4/types.h>
#include <l4/thread.h>
#include <l4/time.h>
#include <l4/message.h>
#include <l4/fpage.h>
#include "utcb.h"
#include "syscall.h"

/* --- result checks ------------------------------------------------------------------- */
static inline bool l4_ipc_failed(l4_word_t tag)    { return (tag & L4_TAG_E) != 0; }
static inline bool l4_ipc_succeeded(l4_word_t tag) { return (tag & L4_TAG_E) == 0; }
/* After a failed IPC: the 3-bit error code (L4_IPC_TIMEOUT ... L4_IPC_ABORTED) from the
 * ErrorCode TCR.  (include/l4/message.h's l4_ipc_error_code(ec) decodes a raw word; the raw
 * TCR is l4_error_code().) */
static inline unsigned  l4_ipc_last_error(void)     { return l4_ipc_error_code(l4_error_code()); }
static inline bool      l4_ipc_last_error_rcv(void) { return l4_ipc_error_is_rcv(l4_error_code()); }
static inline l4_word_t l4_ipc_last_error_offset(void) { return l4_ipc_error_offset(l4_error_code()); }

/* --- the common forms ---------------------------------------------------------------- */
static inline l4_word_t l4_call_timeouts(l4_word_t to, uint16_t snd, uint16_t rcv)
{
    return l4_ipc(to, to, l4_timeouts(snd, rcv), NULL);
}
static inline l4_word_t l4_call(l4_word_t to)
{
    return l4_ipc(to, to, l4_timeouts(L4_NEVER, L4_NEVER), NULL);
}
static inline l4_word_t l4_send_timeout(l4_word_t to, uint16_t snd)
{
    return l4_ipc(to, L4_NILTHREAD, l4_timeouts(snd, L4_NEVER), NULL);
}
static inline l4_word_t l4_send(l4_word_t to) { return l4_send_timeout(to, L4_NEVER); }
/* Send with timeout zero: fails at once unless the partner is waiting. */
static inline l4_word_t l4_reply(l4_word_t to) { return l4_send_timeout(to, L4_ZERO_TIME); }

static inline l4_word_t l4_receive_timeout(l4_word_t from, uint16_t rcv)
{
    return l4_ipc(L4_NILTHREAD, from, l4_timeouts(L4_NEVER, rcv), NULL);
}
static inline l4_word_t l4_receive(l4_word_t from) { return l4_receive_timeout(from, L4_NEVER); }

static inline l4_word_t l4_wait_timeout(uint16_t rcv, l4_word_t *from)
{
    return l4_ipc(L4_NILTHREAD, L4_ANYTHREAD, l4_timeouts(L4_NEVER, rcv), from);
}
static inline l4_word_t l4_wait(l4_word_t *from) { return l4_wait_timeout(L4_NEVER, from); }

/* Reply (send timeout zero) and wait for the next message from anybody. */
static inline l4_word_t l4_reply_wait_timeout(l4_word_t to, uint16_t rcv, l4_word_t *from)
{
    return l4_ipc(to, L4_ANYTHREAD, l4_timeouts(L4_ZERO_TIME, rcv), from);
}
static inline l4_word_t l4_reply_wait(l4_word_t to, l4_word_t *from)
{
    return l4_reply_wait_timeout(to, L4_NEVER, from);
}

/* Local forms via Lipc (usually with local ids; LreplyWait waits for anylocalthread). */
static inline l4_word_t l4_lcall(l4_word_t to)
{
    return l4_lipc(to, to, l4_timeouts(L4_NEVER, L4_NEVER), NULL);
}
static inline l4_word_t l4_lreply_wait(l4_word_t to, l4_word_t *from)
{
    return l4_lipc(to, L4_ANYLOCALTHREAD, l4_timeouts(L4_ZERO_TIME, L4_NEVER), from);
}

/* Sleep: receive from oneself, which never succeeds (§5.3), with a period timeout.
 * Returns the IPC's tag (an error: timeout, or canceled if ExchangeRegisters aborted it).
 * 0 us returns at once; more than the largest period (~25 days) sleeps forever.
 * Overwrites MR0-MR7 like every IPC. */
#define L4_MAX_PERIOD_US (1023ull << 31)
static inline l4_word_t l4_sleep_us(l4_word_t us)
{
    /* (l4_period_from_us alone turns ~0 into zero: its rounding overflows.) */
    uint16_t t = us > L4_MAX_PERIOD_US ? L4_NEVER : l4_period_from_us(us);
    return l4_receive_timeout(l4_my_global_id(), t);
}
static inline l4_word_t l4_sleep_ms(l4_word_t ms) { return l4_sleep_us(ms * 1000); }
/* Block forever (loops in case something aborts the receive). */
static inline __attribute__((noreturn)) void l4_sleep_forever(void)
{
    for (;;)
        l4_receive(l4_my_global_id());
}

/* --- putting messages into MRs ------------------------------------------------------- */
/* MR0 = tag, MR1..MRn = words; returns the tag.  n = u + t of the tag. */
static inline l4_word_t l4_msg_load(l4_word_t tag, const l4_word_t *words, unsigned n)
{
    volatile l4_word_t *mr = l4_utcb();
    for (unsigned i = 0; i < n; i++)
        mr[1 + i] = words[i];
    mr[0] = tag;
    return tag;
}
/* Copy MR1..MR(u+t) of the received message (tag) into words (at most max); returns u+t. */
static inline unsigned l4_msg_store(l4_word_t tag, l4_word_t *words, unsigned max)
{
    volatile l4_word_t *mr = l4_utcb();
    unsigned n = l4_tag_u(tag) + l4_tag_t(tag);
    for (unsigned i = 0; i < n && i < max; i++)
        words[i] = mr[1 + i];
    return n;
}
/* Shorthands for small untyped messages. */
static inline l4_word_t l4_msg_put0(l4_word_t label)
{
    return l4_msg_load(l4_tag_make(label, 0, 0), NULL, 0);
}
static inline l4_word_t l4_msg_put1(l4_word_t label, l4_word_t w1)
{
    l4_word_t tag = l4_tag_make(label, 1, 0);
    l4_set_mr(1, w1);
    l4_set_mr(0, tag);
    return tag;
}
static inline l4_word_t l4_msg_put2(l4_word_t label, l4_word_t w1, l4_word_t w2)
{
    l4_word_t tag = l4_tag_make(label, 2, 0);
    l4_set_mr(1, w1);
    l4_set_mr(2, w2);
    l4_set_mr(0, tag);
    return tag;
}

/* A message under construction in the MRs: untyped words first, typed items after them.
 * A word appended after typed items is inserted before them (the items move up). */
struct l4_msg {
    l4_word_t label;
    unsigned u, t;
};

static inline void l4_msg_init(struct l4_msg *m, l4_word_t label)
{
    m->label = label;
    m->u = 0;
    m->t = 0;
}
/* Returns false (and appends nothing) when MR63 would be exceeded. */
static inline bool l4_msg_append_word(struct l4_msg *m, l4_word_t w)
{
    volatile l4_word_t *mr = l4_utcb();
    if (m->u + m->t + 1 > 63)
        return false;
    for (unsigned i = m->u + m->t; i > m->u; i--)
        mr[i + 1] = mr[i];
    mr[1 + m->u] = w;
    m->u++;
    return true;
}
static inline bool l4_msg_append_item(struct l4_msg *m, l4_word_t w0, l4_word_t w1)
{
    volatile l4_word_t *mr = l4_utcb();
    if (m->u + m->t + 2 > 63)
        return false;
    mr[1 + m->u + m->t] = w0;
    mr[2 + m->u + m->t] = w1;
    m->t += 2;
    return true;
}
/* Map/grant item: SndBase (word 0) and the send fpage with the rights to give (word 1). */
static inline bool l4_msg_append_map(struct l4_msg *m, l4_word_t sndbase, l4_word_t fpage)
{
    return l4_msg_append_item(m, l4_map_item(sndbase), fpage);
}
static inline bool l4_msg_append_grant(struct l4_msg *m, l4_word_t sndbase, l4_word_t fpage)
{
    return l4_msg_append_item(m, l4_grant_item(sndbase), fpage);
}
/* Simple string item (one substring). */
static inline bool l4_msg_append_string(struct l4_msg *m, const void *addr, l4_word_t len)
{
    return l4_msg_append_item(m, l4_string_item(len, 1, false), (l4_word_t)addr);
}
/* Write the tag into MR0; returns it. */
static inline l4_word_t l4_msg_commit(const struct l4_msg *m)
{
    l4_word_t tag = l4_tag_make(m->label, m->u, m->t);
    l4_set_mr(0, tag);
    return tag;
}

/* --- receiving: acceptor and buffers (§1.6) ------------------------------------------ */
/* BR0 = acceptor: receive window for map/grant items (L4_NILPAGE: none;
 * L4_COMPLETE_FPAGE: anywhere), plus L4_ACCEPT_STRINGS. */
static inline void l4_accept(l4_word_t acceptor) { l4_set_br(0, acceptor); }
static inline void l4_accept_mappings(l4_word_t window) { l4_set_br(0, window & ~0xFull); }
/* Accept one string into buf[0..len) in addition to mappings into window. */
static inline void l4_accept_string(l4_word_t window, void *buf, l4_word_t len)
{
    l4_set_br(1, l4_string_item(len, 1, false));
    l4_set_br(2, (l4_word_t)buf);
    l4_set_br(0, (window & ~0xFull) | L4_ACCEPT_STRINGS);
}

#endif
