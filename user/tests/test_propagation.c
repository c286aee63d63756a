/* In-system test: IPC propagation (contract §5.9) and redirection (§5.10, the Manual's
 * semantics, which Pecan implements: docs/x2-deviations.md). */
#include "testlib.h"
#include "testutil.h"

#define LABEL_GO    0x210
#define LABEL_MSG   0x220
#define LABEL_SEEN  0x230
#define LABEL_SENT  0x240

#define GO_PROPAGATE 1ul            /* MR3 of a go message: set MR0.p */
#define GO_ZERO_TIME 2ul            /*                      send with timeout zero */

/* --- partners ------------------------------------------------------------------------- */

/* Sender: on each go message from the main thread (MR1 destination, MR2 VirtualSender, MR3
 * GO_* flags) sends LABEL_MSG with one word to the destination and reports the send's tag
 * and error code in shared memory, then waits for the next go. */
static volatile l4_word_t sent_tag, sent_error, sent_count;

static void sender(void)
{
    for (;;) {
        l4_word_t tag = l4_receive(tu_main_tid());
        if (l4_ipc_failed(tag) || l4_tag_label(tag) != LABEL_GO)
            continue;
        l4_word_t dest = l4_mr(1), vs = l4_mr(2), flags = l4_mr(3);
        l4_set_virtual_sender(vs);
        l4_set_mr(0, l4_tag_make(LABEL_MSG, 1, 0) | (flags & GO_PROPAGATE ? L4_TAG_P : 0));
        l4_set_mr(1, 0x5eed);
        l4_word_t r = l4_send_timeout(dest, flags & GO_ZERO_TIME ? L4_ZERO_TIME : L4_NEVER);
        sent_error = l4_ipc_failed(r) ? l4_error_code() : 0;
        sent_tag = r;
        sent_count++;
    }
}

static void go_message(l4_word_t dest, l4_word_t vs, l4_word_t flags)
{
    l4_set_mr(0, l4_tag_make(LABEL_GO, 3, 0));
    l4_set_mr(1, dest);
    l4_set_mr(2, vs);
    l4_set_mr(3, flags);
}

static void go(l4_word_t sender_tid, l4_word_t dest, l4_word_t vs, l4_word_t flags)
{
    go_message(dest, vs, flags);
    l4_send(sender_tid);
}

/* Go, and in the same system call wait for a message from `from` only: we are waiting
 * before the sender can send. */
static l4_word_t go_and_receive(l4_word_t sender_tid, l4_word_t dest, l4_word_t vs,
                                l4_word_t flags, l4_word_t from, uint16_t rcv_timeout,
                                l4_word_t *sender_out)
{
    go_message(dest, vs, flags);
    return l4_ipc(sender_tid, from, l4_timeouts(L4_NEVER, rcv_timeout), sender_out);
}

/* Recorder: receives one message from anybody, records what it saw, replies to `from` with
 * LABEL_SEEN (MR1 = the word it got), and repeats. */
static volatile l4_word_t seen_from, seen_tag, seen_actual, seen_intended, seen_word, seen_count;

static void recorder(void)
{
    for (;;) {
        l4_word_t from, tag = l4_wait(&from);
        seen_from = from;
        seen_tag = tag;
        seen_actual = l4_actual_sender();
        seen_intended = l4_intended_receiver();
        seen_word = l4_mr(1);
        seen_count++;
        l4_set_mr(0, l4_tag_make(LABEL_SEEN, 1, 0));
        l4_set_mr(1, seen_word);
        l4_reply(from);
    }
}

/* Forwarder: receives a call from anybody in its space and passes it on, propagated, to
 * forward_to on behalf of the caller (global id forward_for). */
static volatile l4_word_t forward_to, forward_for, forward_error;

static void forwarder(void)
{
    for (;;) {
        l4_word_t from, tag = l4_wait(&from);
        (void)from;
        l4_set_virtual_sender(forward_for);
        l4_set_mr(0, tag | L4_TAG_P);
        l4_word_t r = l4_send(forward_to);
        forward_error = l4_ipc_failed(r) ? l4_error_code() : 0;
    }
}

static void sleeper(void)
{
    l4_sleep_forever();
}

/* --- propagation ------------------------------------------------------------------------ */

TEST(propagation_from_receivers_space)
{
    /* The sender is in our space: it may speak for any thread, here one of another space. */
    l4_word_t other = tu_space_thread(sleeper, 100);
    l4_word_t s = tu_thread(sender, 100);
    CHECK(other && s);
    go(s, l4_my_global_id(), other, GO_PROPAGATE);
    l4_word_t from, tag = l4_wait(&from);
    CHECK(!l4_ipc_failed(tag));
    CHECK_EQ(l4_tag_label(tag), LABEL_MSG);
    CHECK(tag & L4_TAG_P, "tag %lx", tag);
    CHECK_EQ(from, other);                       /* the virtual sender, global (other space) */
    CHECK_EQ(l4_actual_sender(), s);             /* the real sender, always global */
    CHECK_EQ(l4_mr(1), 0x5eed);
    tu_kill(s);
    tu_kill(other);
}

TEST(propagation_on_behalf_of_own_space_thread)
{
    /* A sender in another space may speak for a thread of its own space. */
    l4_word_t s = tu_space_thread(sender, 100);
    l4_word_t peer = tu_space_thread(sleeper, 100);     /* a different space again */
    CHECK(s && peer);
    /* Not of its own space, and we are not in its space: p is dropped, nothing else. */
    go(s, l4_my_global_id(), peer, GO_PROPAGATE);
    l4_word_t from, tag = l4_wait(&from);
    CHECK(!l4_ipc_failed(tag));
    CHECK(!(tag & L4_TAG_P), "tag %lx", tag);
    CHECK_EQ(from, s);
    /* For itself, by its global id: allowed (same space). */
    go(s, l4_my_global_id(), s, GO_PROPAGATE);
    tag = l4_wait(&from);
    CHECK(tag & L4_TAG_P, "tag %lx", tag);
    CHECK_EQ(from, s);
    CHECK_EQ(l4_actual_sender(), s);
    tu_kill(s);
    tu_kill(peer);
}

TEST(nonexistent_virtual_sender_drops_p)
{
    l4_word_t s = tu_thread(sender, 100);
    l4_word_t ghost = l4_global_id(l4_thread_no(tu_new_tid()), 7);
    go(s, l4_my_global_id(), ghost, GO_PROPAGATE);
    l4_word_t from, tag = l4_wait(&from);
    CHECK(!l4_ipc_failed(tag));
    CHECK(!(tag & L4_TAG_P), "tag %lx", tag);
    CHECK_EQ(from, l4_local_id_of(s));           /* an ordinary message from our space */
    tu_kill(s);
}

TEST(closed_receive_accepts_the_virtual_sender)
{
    l4_word_t other = tu_space_thread(sleeper, 100);
    l4_word_t s = tu_thread(sender, 100);
    CHECK(other && s);
    /* We wait for `other` only; s's plain message is not accepted (its zero-timeout send
     * fails while we wait)... */
    unsigned before = sent_count;
    l4_word_t r = go_and_receive(s, l4_my_global_id(), 0, GO_ZERO_TIME, other,
                                 l4_period_from_us(1000), NULL);
    CHECK(l4_ipc_failed(r) && l4_ipc_last_error() == L4_IPC_TIMEOUT && l4_ipc_last_error_rcv());
    CHECK_EQ(sent_count, before + 1);
    CHECK_EQ(sent_error, L4_IPC_TIMEOUT << 1);          /* send phase, timeout */
    /* ...but the same message on behalf of `other` is. */
    before = sent_count;
    r = go_and_receive(s, l4_my_global_id(), other, GO_PROPAGATE | GO_ZERO_TIME, other,
                       L4_NEVER, NULL);
    CHECK(!l4_ipc_failed(r));
    CHECK(r & L4_TAG_P);
    CHECK_EQ(l4_actual_sender(), s);
    tu_wait_blocked();
    CHECK_EQ(sent_count, before + 1);
    CHECK_EQ(sent_error, 0);
    tu_kill(s);
    tu_kill(other);
}

TEST(final_server_replies_to_original_caller)
{
    /* We call a forwarder in our space; it passes the call on, on our behalf, to a server in
     * another space.  Our closed receive (waiting for the forwarder) now waits for the
     * server, which sees us as the sender and replies to us directly. */
    l4_word_t srv = tu_space_thread(recorder, 100);
    forward_to = srv;
    forward_for = l4_my_global_id();
    l4_word_t fwd = tu_thread(forwarder, 100);
    unsigned before = seen_count;
    l4_set_mr(0, l4_tag_make(LABEL_MSG, 1, 0));
    l4_set_mr(1, 77);
    l4_word_t from, tag = l4_ipc(fwd, fwd, 0, &from);
    CHECK(!l4_ipc_failed(tag), "error %lx", l4_error_code());
    CHECK_EQ(l4_tag_label(tag), LABEL_SEEN);
    CHECK_EQ(from, srv);
    CHECK_EQ(l4_mr(1), 77);
    CHECK_EQ(seen_count, before + 1);
    CHECK_EQ(seen_from, l4_my_global_id());
    CHECK(seen_tag & L4_TAG_P);
    CHECK_EQ(seen_actual, fwd);
    CHECK_EQ(forward_error, 0);
    tu_kill(fwd);
    tu_kill(srv);
}

/* --- redirection ------------------------------------------------------------------------ */

/* A sender in a new space whose redirector is `red`. */
static l4_word_t redirected_sender(l4_word_t red)
{
    l4_word_t s = tu_space_thread(sender, 100), old;
    if (!s || !l4_space_control(s, 0, 0, 0, red, &old))
        return 0;
    return s;
}

TEST(redirector_gets_messages_leaving_the_space)
{
    l4_word_t s = redirected_sender(l4_my_global_id());
    l4_word_t rec = tu_thread(recorder, 100);
    CHECK(s && rec);
    unsigned seen = seen_count;
    /* We wait already when the message comes (delivered by the sender)... */
    l4_word_t from;
    l4_word_t tag = go_and_receive(s, rec, 0, 0, L4_ANYTHREAD, L4_NEVER, &from);
    CHECK(!l4_ipc_failed(tag));
    CHECK_EQ(l4_tag_label(tag), LABEL_MSG);
    CHECK(tag & L4_TAG_R, "tag %lx", tag);
    CHECK_EQ(from, s);
    CHECK_EQ(l4_intended_receiver(), rec);
    CHECK_EQ(l4_mr(1), 0x5eed);
    /* ...or it waits for us in our queue (taken by us). */
    l4_utcb_set_word(L4_UTCB_INTENDED_RCV, 0);
    go(s, rec, 0, 0);
    tu_wait_blocked();
    tag = l4_wait(&from);
    CHECK(tag & L4_TAG_R, "tag %lx", tag);
    CHECK_EQ(from, s);
    CHECK_EQ(l4_intended_receiver(), rec);
    tu_wait_blocked();
    CHECK_EQ(seen_count, seen);                  /* the recorder got nothing */
    tu_kill(s);
    tu_kill(rec);
}

TEST(messages_to_the_redirector_are_not_redirected)
{
    l4_word_t s = redirected_sender(l4_my_global_id());
    CHECK(s);
    go(s, l4_my_global_id(), 0, 0);
    l4_word_t from, tag = l4_wait(&from);
    CHECK(!l4_ipc_failed(tag));
    CHECK(!(tag & L4_TAG_R), "tag %lx", tag);
    CHECK_EQ(from, s);
    tu_kill(s);
}

TEST(redirector_anythread_switches_redirection_off)
{
    l4_word_t s = redirected_sender(l4_my_global_id());
    l4_word_t rec = tu_thread(recorder, 100), old;
    CHECK(s && rec);
    CHECK(l4_space_control(s, 0, 0, 0, L4_ANYTHREAD, &old));
    unsigned seen = seen_count;
    go(s, rec, 0, 0);
    tu_wait_blocked();
    CHECK_EQ(seen_count, seen + 1);
    CHECK_EQ(seen_from, s);
    CHECK(!(seen_tag & L4_TAG_R));
    /* nilthread leaves the redirector alone (still none). */
    CHECK(l4_space_control(s, 0, 0, 0, L4_NILTHREAD, &old));
    go(s, rec, 0, 0);
    tu_wait_blocked();
    CHECK_EQ(seen_count, seen + 2);
    tu_kill(s);
    tu_kill(rec);
}

TEST(redirected_send_blocks_until_redirector_receives)
{
    /* The redirector is busy elsewhere: a zero-timeout send fails, as if to the redirector. */
    l4_word_t s = redirected_sender(l4_my_global_id());
    l4_word_t rec = tu_thread(recorder, 100);
    unsigned before = sent_count;
    go(s, rec, 0, GO_ZERO_TIME);
    tu_wait_blocked();
    CHECK_EQ(sent_count, before + 1);
    CHECK(l4_ipc_failed(sent_tag));
    CHECK_EQ(sent_error, L4_IPC_TIMEOUT << 1);
    tu_kill(s);
    tu_kill(rec);
}

TEST(space_control_rejects_bad_redirector)
{
    l4_word_t s = tu_space_thread(sleeper, 100), old;
    CHECK(s);
    l4_word_t ghost = l4_global_id(l4_thread_no(tu_new_tid()), 9);
    CHECK_EQ(l4_space_control(s, 0, 0, 0, ghost, &old), 0);
    CHECK_EQ(l4_error_code(), L4_ERR_INVALID_THREAD);
    tu_kill(s);
}

int main(void)
{
    tests_run("propagation");
}
