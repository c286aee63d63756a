/* In-system test: the IPC system call in every form (contract §5), its error paths, timeouts,
 * sender queue order, aborts and deletion (issue 3). */
#include "testlib.h"
#include "testutil.h"
#include <string.h>

#define LABEL_ECHO 0x100

static volatile l4_word_t shared[64];
static volatile l4_word_t partner_tid;

/* --- partners ------------------------------------------------------------------------- */

/* Echo server: replies to each call with the same untyped words plus 1. */
static void echo_server(void)
{
    l4_word_t from;
    l4_word_t tag = l4_wait(&from);
    for (;;) {
        unsigned u = l4_tag_u(tag);
        for (unsigned i = 1; i <= u; i++)
            l4_set_mr(i, l4_mr(i) + 1);
        l4_set_mr(0, l4_tag_make(LABEL_ECHO, u, 0));
        tag = l4_reply_wait(from, &from);
    }
}

static void sleeper(void)
{
    l4_sleep_forever();
}

TEST(call_reply_same_space)
{
    l4_word_t srv = tu_thread(echo_server, 200);
    l4_set_mr(0, l4_tag_make(1, 3, 0));
    l4_set_mr(1, 10); l4_set_mr(2, 20); l4_set_mr(3, 30);
    l4_word_t from;
    l4_word_t tag = l4_ipc(srv, srv, 0, &from);
    CHECK(!l4_ipc_failed(tag));
    CHECK_EQ(l4_tag_label(tag), LABEL_ECHO);
    CHECK_EQ(l4_tag_u(tag), 3);
    CHECK_EQ(l4_mr(1), 11); CHECK_EQ(l4_mr(2), 21); CHECK_EQ(l4_mr(3), 31);
    CHECK_EQ(from, l4_local_id_of(srv));        /* same space: the local id (§5.3) */
    tu_kill(srv);
}

TEST(call_reply_other_space)
{
    l4_word_t srv = tu_space_thread(echo_server, 200);
    l4_set_mr(0, l4_tag_make(2, 2, 0));
    l4_set_mr(1, 5); l4_set_mr(2, 6);
    l4_word_t from;
    l4_word_t tag = l4_ipc(srv, srv, 0, &from);
    CHECK(!l4_ipc_failed(tag));
    CHECK_EQ(from, srv);                        /* other space: the global id */
    CHECK_EQ(l4_mr(1), 6); CHECK_EQ(l4_mr(2), 7);
    /* Now everything is mapped: a plain call. */
    l4_set_mr(0, l4_tag_make(2, 1, 0));
    l4_set_mr(1, 99);
    tag = l4_call(srv);
    CHECK(!l4_ipc_failed(tag));
    CHECK_EQ(l4_mr(1), 100);
    tu_kill(srv);
}

TEST(lipc_with_local_ids)
{
    l4_word_t srv = tu_thread(echo_server, 200);
    l4_word_t local = l4_local_id_of(srv);
    l4_set_mr(0, l4_tag_make(3, 1, 0));
    l4_set_mr(1, 41);
    l4_word_t from;
    l4_word_t tag = l4_lipc(local, local, 0, &from);
    CHECK(!l4_ipc_failed(tag));
    CHECK_EQ(l4_mr(1), 42);
    CHECK_EQ(from, local);
    tu_kill(srv);
}

TEST(sixty_three_words)
{
    l4_word_t srv = tu_thread(echo_server, 200);
    l4_set_mr(0, l4_tag_make(4, 63, 0));
    for (int i = 1; i <= 63; i++)
        l4_set_mr(i, 1000 + i);
    l4_word_t tag = l4_call(srv);
    CHECK(!l4_ipc_failed(tag));
    CHECK_EQ(l4_tag_u(tag), 63);
    for (int i = 1; i <= 63; i++)
        CHECK_EQ(l4_mr(i), 1001 + i);
    tu_kill(srv);
}

TEST(too_long_message_overflows)
{
    l4_word_t srv = tu_thread(echo_server, 200);
    l4_set_mr(0, l4_tag_make(5, 60, 4));          /* u + t = 64 > 63 */
    l4_word_t tag = l4_send_timeout(srv, L4_ZERO_TIME);
    CHECK(l4_ipc_failed(tag));
    CHECK_EQ(l4_ipc_last_error(), L4_IPC_OVERFLOW);
    CHECK(!l4_ipc_last_error_rcv());
    tu_kill(srv);
}

TEST(send_and_receive_separately)
{
    l4_word_t t = tu_thread(echo_server, 50);       /* lower priority: it runs when we block */
    l4_set_mr(0, l4_tag_make(6, 1, 0));
    l4_set_mr(1, 7);
    l4_word_t tag = l4_send(t);
    CHECK(!l4_ipc_failed(tag));
    CHECK_EQ(l4_tag_u(tag), 1);                     /* our own tag, e = 0 */
    l4_word_t from;
    tag = l4_ipc(0, t, 0, &from);                   /* closed receive */
    CHECK(!l4_ipc_failed(tag));
    CHECK_EQ(l4_mr(1), 8);
    tu_kill(t);
}

TEST(nil_nil_returns_at_once)
{
    l4_set_mr(0, l4_tag_make(7, 0, 0));
    l4_word_t tag = l4_ipc(0, 0, 0, NULL);
    CHECK(!l4_ipc_failed(tag));
}

/* --- errors ----------------------------------------------------------------------------- */

TEST(send_to_nonexistent_thread)
{
    l4_word_t bogus = l4_global_id(l4_kip_user_base() + 5000, 7);
    l4_set_mr(0, 0);
    l4_word_t tag = l4_send(bogus);
    CHECK(l4_ipc_failed(tag));
    CHECK_EQ(l4_ipc_last_error(), L4_IPC_NOPARTNER);
    CHECK(!l4_ipc_last_error_rcv());
}

TEST(receive_from_nonexistent_thread)
{
    l4_word_t bogus = l4_global_id(l4_kip_user_base() + 5001, 7);
    l4_word_t tag = l4_receive(bogus);
    CHECK(l4_ipc_failed(tag));
    CHECK_EQ(l4_ipc_last_error(), L4_IPC_NOPARTNER);
    CHECK(l4_ipc_last_error_rcv());
}

TEST(send_zero_timeout_partner_not_ready)
{
    l4_word_t t = tu_thread(sleeper, 50);
    tu_wait_blocked();
    l4_set_mr(0, 0);
    l4_word_t tag = l4_send_timeout(t, L4_ZERO_TIME);
    CHECK(l4_ipc_failed(tag));
    CHECK_EQ(l4_ipc_last_error(), L4_IPC_TIMEOUT);
    CHECK(!l4_ipc_last_error_rcv());
    tu_kill(t);
}

TEST(receive_zero_timeout_nobody_sending)
{
    l4_word_t tag = l4_wait_timeout(L4_ZERO_TIME, NULL);
    CHECK(l4_ipc_failed(tag));
    CHECK_EQ(l4_ipc_last_error(), L4_IPC_TIMEOUT);
    CHECK(l4_ipc_last_error_rcv());
}

TEST(receive_from_self_is_a_sleep)
{
    l4_word_t t0 = l4_system_clock();
    l4_word_t tag = l4_receive_timeout(l4_my_global_id(), l4_period_from_us(5000));
    CHECK(l4_ipc_failed(tag));
    CHECK_EQ(l4_ipc_last_error(), L4_IPC_TIMEOUT);
    CHECK(l4_system_clock() - t0 >= 5000);
}

TEST(every_zero_period_encoding_is_zero)
{
    /* m = 0 with any e != 0 means zero (contract §1.3). */
    for (unsigned e = 1; e < 32; e++) {
        l4_word_t t0 = l4_system_clock();
        l4_word_t tag = l4_wait_timeout((uint16_t)(e << 10), NULL);
        CHECK(l4_ipc_failed(tag) && l4_ipc_last_error() == L4_IPC_TIMEOUT);
        CHECK(l4_system_clock() - t0 < 1000, "e = %u waited", e);
    }
}

TEST(send_timeout_expires)
{
    l4_word_t t = tu_thread(sleeper, 50);
    tu_wait_blocked();
    l4_set_mr(0, 0);
    l4_word_t t0 = l4_system_clock();
    l4_word_t tag = l4_send_timeout(t, l4_period_from_us(20000));
    l4_word_t dt = l4_system_clock() - t0;
    CHECK(l4_ipc_failed(tag));
    CHECK_EQ(l4_ipc_last_error(), L4_IPC_TIMEOUT);
    CHECK(!l4_ipc_last_error_rcv());
    CHECK(dt >= 20000 && dt < 20000 + 3000 + 3 * l4_kip_schedule_precision(), "took %lu us", dt);
    tu_kill(t);
}

/* A time point: bits e..e+9 of the clock = m, bit e+10 = c (contract §1.3). */
static uint16_t point_at(l4_word_t clock, unsigned e)
{
    return (uint16_t)(0x8000 | (e << 11) | (((clock >> (e + 10)) & 1) << 10) | ((clock >> e) & 0x3FF));
}

TEST(absolute_timeout_point)
{
    l4_word_t target = l4_system_clock() + 30000;
    unsigned e = 6;                                 /* 64 us resolution */
    l4_word_t t0 = l4_system_clock();
    l4_word_t tag = l4_wait_timeout(point_at(target, e), NULL);
    l4_word_t now = l4_system_clock();
    CHECK(l4_ipc_failed(tag));
    CHECK_EQ(l4_ipc_last_error(), L4_IPC_TIMEOUT);
    CHECK(now + 64 >= target, "woke at %lu, point %lu", now, target);
    CHECK(now < target + 3000 + 3 * l4_kip_schedule_precision(), "woke %lu us late", now - target);
    (void)t0;
    /* A point that has passed in the current window has expired (a point names an instant
     * in the current or the following 2^(e+10) us window, so only the current one can lie
     * in the past). */
    e = 10;
    t0 = l4_system_clock();
    if (((t0 - 5000) >> (e + 10)) == (t0 >> (e + 10))) {
        tag = l4_wait_timeout(point_at(t0 - 5000, e), NULL);
        CHECK(l4_ipc_failed(tag) && l4_ipc_last_error() == L4_IPC_TIMEOUT);
        CHECK(l4_system_clock() - t0 < 2000);
    }
}

/* --- sender queue ------------------------------------------------------------------------ */

static void queued_sender(void)
{
    l4_set_mr(0, l4_tag_make(0x77, 1, 0));
    l4_set_mr(1, l4_my_global_id());
    l4_send(tu_main_tid());
    l4_sleep_forever();
}

TEST(senders_are_served_in_fifo_order)
{
    l4_word_t t[4];
    for (int i = 0; i < 4; i++) {
        t[i] = tu_thread(queued_sender, 100);
        tu_wait_blocked();                        /* t[i] is now blocked in its send */
    }
    for (int i = 0; i < 4; i++) {
        l4_word_t from;
        l4_word_t tag = l4_wait(&from);
        CHECK(!l4_ipc_failed(tag));
        CHECK_EQ(l4_mr(1), t[i]);
    }
    for (int i = 0; i < 4; i++)
        tu_kill(t[i]);
}

TEST(closed_receive_picks_its_sender)
{
    l4_word_t t[3];
    for (int i = 0; i < 3; i++) {
        t[i] = tu_thread(queued_sender, 100);
        tu_wait_blocked();
    }
    l4_word_t from;
    l4_word_t tag = l4_ipc(0, t[2], 0, &from);      /* the last one first */
    CHECK(!l4_ipc_failed(tag));
    CHECK_EQ(l4_mr(1), t[2]);
    tag = l4_wait(&from);
    CHECK_EQ(l4_mr(1), t[0]);
    tag = l4_wait(&from);
    CHECK_EQ(l4_mr(1), t[1]);
    for (int i = 0; i < 3; i++)
        tu_kill(t[i]);
}

static void remote_sender(void)
{
    l4_set_mr(0, l4_tag_make(0x78, 1, 0));
    l4_set_mr(1, 1);
    l4_send((l4_word_t)partner_tid);
    l4_sleep_forever();
}

TEST(anylocal_accepts_only_own_space)
{
    partner_tid = tu_main_tid();
    l4_word_t remote = tu_space_thread(remote_sender, 100);
    tu_wait_blocked();                                /* remote is now blocked sending to us */
    l4_word_t tag = l4_ipc(0, L4_ANYLOCALTHREAD, l4_timeouts(0, L4_ZERO_TIME), NULL);
    CHECK(l4_ipc_failed(tag) && l4_ipc_last_error() == L4_IPC_TIMEOUT);
    l4_word_t local = tu_thread(queued_sender, 100);
    tu_wait_blocked();
    l4_word_t from;
    tag = l4_ipc(0, L4_ANYLOCALTHREAD, l4_timeouts(0, L4_ZERO_TIME), &from);
    CHECK(!l4_ipc_failed(tag));
    CHECK_EQ(from, l4_local_id_of(local));
    tag = l4_wait_timeout(L4_ZERO_TIME, &from);     /* anythread gets the remote one */
    CHECK(!l4_ipc_failed(tag));
    CHECK_EQ(from, remote);
    CHECK_EQ(l4_tag_label(tag), 0x78);
    tu_kill(remote);
    tu_kill(local);
}

/* --- aborts and deletion -------------------------------------------------------------- */

static void blocked_sender_reports(void)
{
    l4_set_mr(0, 0);
    l4_word_t tag = l4_send((l4_word_t)partner_tid);
    tu_report(0x80, l4_ipc_failed(tag) ? l4_error_code() : 0xFFFF);
    l4_sleep_forever();
}

static void blocked_receiver_reports(void)
{
    l4_word_t tag = l4_receive((l4_word_t)partner_tid);
    tu_report(0x81, l4_ipc_failed(tag) ? l4_error_code() : 0xFFFF);
    l4_sleep_forever();
}

TEST(exregs_cancels_pending_send)
{
    partner_tid = tu_thread(sleeper, 40);
    l4_word_t t = tu_thread(blocked_sender_reports, 100);
    tu_wait_blocked();
    struct l4_exregs old;
    l4_exchange_registers(t, L4_EXREGS_ABORT_SEND, 0, 0, 0, 0, 0, &old);
    CHECK_EQ(old.control & 6, 4);                   /* it was in a send phase */
    l4_word_t from, tag = l4_wait(&from);
    CHECK_EQ(l4_tag_label(tag), 0x80);
    CHECK_EQ(l4_mr(1) & 0xF, (L4_IPC_CANCELED << 1) | 0);
    tu_kill(t);
    tu_kill(partner_tid);
}

TEST(exregs_cancels_pending_receive)
{
    partner_tid = tu_thread(sleeper, 40);
    l4_word_t t = tu_thread(blocked_receiver_reports, 100);
    tu_wait_blocked();
    struct l4_exregs old;
    l4_exchange_registers(t, L4_EXREGS_ABORT_RECV, 0, 0, 0, 0, 0, &old);
    CHECK_EQ(old.control & 6, 2);                   /* it was in a receive phase */
    l4_word_t from, tag = l4_wait(&from);
    CHECK_EQ(l4_tag_label(tag), 0x81);
    CHECK_EQ(l4_mr(1) & 0xF, (L4_IPC_CANCELED << 1) | 1);
    tu_kill(t);
    tu_kill(partner_tid);
}

TEST(deleting_partner_fails_blocked_senders)
{
    partner_tid = tu_thread(sleeper, 40);
    l4_word_t t = tu_thread(blocked_sender_reports, 100);
    tu_wait_blocked();
    tu_kill(partner_tid);
    l4_word_t from, tag = l4_wait(&from);
    CHECK_EQ(l4_tag_label(tag), 0x80);
    CHECK_EQ(l4_mr(1) & 0xF, (L4_IPC_NOPARTNER << 1) | 0);
    tu_kill(t);
}

TEST(deleting_partner_fails_blocked_receivers)
{
    partner_tid = tu_thread(sleeper, 40);
    l4_word_t t = tu_thread(blocked_receiver_reports, 100);
    tu_wait_blocked();
    tu_kill(partner_tid);
    l4_word_t from, tag = l4_wait(&from);
    CHECK_EQ(l4_tag_label(tag), 0x81);
    CHECK_EQ(l4_mr(1) & 0xF, (L4_IPC_NOPARTNER << 1) | 1);
    tu_kill(t);
}

TEST(stale_id_does_not_reach_new_thread)
{
    l4_word_t me = tu_main_tid();
    l4_word_t old = tu_new_tid();
    l4_word_t utcb = 0xBF000000ul + 200 * 1024;
    CHECK(l4_thread_control(old, me, me, me, utcb));
    CHECK(l4_thread_control(old, 0, 0, 0, ~0ul));              /* delete */
    l4_word_t fresh = l4_global_id(l4_thread_no(old), 2);      /* same number, new version */
    CHECK(l4_thread_control(fresh, me, me, me, utcb));
    l4_set_mr(0, 0);
    l4_word_t tag = l4_send_timeout(old, L4_ZERO_TIME);
    CHECK(l4_ipc_failed(tag));
    CHECK_EQ(l4_ipc_last_error(), L4_IPC_NOPARTNER);
    tag = l4_send_timeout(fresh, L4_ZERO_TIME);                /* waiting for its start */
    CHECK(l4_ipc_failed(tag) == 0 || l4_ipc_last_error() != L4_IPC_NOPARTNER);
    tu_kill(fresh);
}

/* A reply to a local id reaches a thread of the replier's space only.  The fast path finds
 * the destination of a local id in its last sender (docs/ipc.md §2.2) without comparing
 * spaces: when that sender is deleted, a thread of another space may take its slot, with the
 * same UTCB address and so the same local id, and wait for anybody. */
static void call_main_once(void)
{
    l4_set_mr(0, l4_tag_make(0x90, 0, 0));
    l4_call(tu_main_tid());
    l4_sleep_forever();
}

static void report_first_message(void)
{
    l4_word_t from, tag = l4_wait(&from);
    l4_set_mr(0, l4_tag_make(0x91, 2, 0));
    l4_set_mr(1, l4_tag_label(tag));
    l4_set_mr(2, from);
    l4_call(tu_main_tid());
    l4_sleep_forever();
}

TEST(reply_to_a_local_id_stays_in_the_space)
{
    l4_word_t a = tu_thread_create(200), from;
    l4_word_t local = l4_local_id_of(a);
    tu_start(a, call_main_once);
    l4_word_t tag = l4_wait(&from);             /* a is now our last sender */
    CHECK_EQ(l4_tag_label(tag), 0x90);
    CHECK_EQ(from, local);
    tu_kill(a);
    /* Its slot, and its UTCB address, for a thread of a new space waiting for anybody. */
    l4_word_t b = tu_space_thread_id(l4_global_id(l4_thread_no(a), 2), report_first_message, 255,
                                     local - L4_UTCB_MR0_OFFSET);
    CHECK(b != 0);
    /* Let it run into its receive, without IPC of our own (any message from a thread of our
     * space, tu_wait_blocked's too, would make that thread our last sender). */
    for (int i = 0; i < 10 && tu_state(b) != L4_SCHEDULE_WAITING; i++)
        l4_thread_switch(b);
    CHECK_EQ(tu_state(b), L4_SCHEDULE_WAITING);
    /* ReplyWait to the old local id, as a server replies (the fast path's form: receive
     * timeout never): no thread of ours has it, so the send phase fails and ends the call. */
    l4_set_mr(0, l4_tag_make(0x92, 0, 0));
    tag = l4_ipc(local, L4_ANYTHREAD, l4_timeouts(L4_ZERO_TIME, L4_NEVER), &from);
    CHECK(l4_ipc_failed(tag));
    CHECK_EQ(l4_ipc_last_error(), L4_IPC_NOPARTNER);
    CHECK(!l4_ipc_last_error_rcv());
    /* b's first message is the one we send now. */
    l4_set_mr(0, l4_tag_make(0x93, 0, 0));
    CHECK(!l4_ipc_failed(l4_send(b)));
    tag = tu_serve(&from);
    CHECK_EQ(l4_tag_label(tag), 0x91);
    CHECK_EQ(l4_mr(1), 0x93);
    CHECK_EQ(l4_mr(2), tu_main_tid());
    tu_kill(b);
}

int main(void)
{
    tests_run("ipc");
}
