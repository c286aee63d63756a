/* In-system test: string items (contract §5.6, §5.7): single copies between spaces, scatter
 * and gather, buffer boundaries, page faults on either side, transfer timeouts, aborts. */
#include "testlib.h"
#include "testutil.h"
#include <string.h>

#define L_DONE   0x51
#define L_RESULT 0x52

static uint8_t src[3 * 4096] __attribute__((aligned(4096)));
static uint8_t dst[3 * 4096] __attribute__((aligned(4096)));

static void fill(uint8_t *p, size_t n, uint8_t seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(seed + i * 7);
}

static bool same(const uint8_t *p, const uint8_t *q, size_t n)
{
    return memcmp(p, q, n) == 0;
}

/* Receive buffers: BR0 = strings accepted, BR1.. = the given items. */
static void accept_buffers(const l4_word_t *brs, unsigned n)
{
    l4_set_br(0, L4_ACCEPT_STRINGS);
    for (unsigned i = 0; i < n; i++)
        l4_set_br(1 + i, brs[i]);
}

/* --- a receiver thread in our space, driven by shared parameters ------------------------ */

static struct {
    l4_word_t brs[16];
    unsigned nbrs;
    l4_word_t xfer_timeouts;
    bool no_strings;
    l4_word_t tag, error, mr1;
} rx;

static void receiver_thread(void)
{
    accept_buffers(rx.brs, rx.nbrs);
    if (rx.no_strings)
        l4_set_br(0, 0);
    l4_set_xfer_timeouts(rx.xfer_timeouts);
    l4_word_t from;
    rx.tag = l4_wait(&from);
    rx.error = l4_ipc_failed(rx.tag) ? l4_error_code() : 0;
    rx.mr1 = l4_mr(1);
    tu_report(L_DONE, 0);
    l4_sleep_forever();
}

/* Send one message with MR1.. = words to a fresh receiver thread and wait for it. */
static l4_word_t send_to_receiver(const l4_word_t *words, unsigned t, l4_word_t *err)
{
    l4_word_t r = tu_thread(receiver_thread, 100);
    tu_wait_blocked();                          /* the receiver waits now */
    l4_set_mr(0, l4_tag_make(0x33, 0, t));
    for (unsigned i = 0; i < t; i++)
        l4_set_mr(1 + i, words[i]);
    l4_word_t tag = l4_send(r);
    *err = l4_ipc_failed(tag) ? l4_error_code() : 0;
    l4_word_t from;
    l4_receive(r);                              /* its report */
    (void)from;
    tu_kill(r);
    return tag;
}

TEST(simple_string)
{
    fill(src, 256, 1);
    memset(dst, 0, 512);
    rx.brs[0] = l4_string_item(256, 1, false); rx.brs[1] = (l4_word_t)dst; rx.nbrs = 2;
    l4_word_t w[2] = { l4_string_item(256, 1, false), (l4_word_t)src }, err;
    l4_word_t tag = send_to_receiver(w, 2, &err);
    CHECK(!l4_ipc_failed(tag) && !l4_ipc_failed(rx.tag), "err %lx / %lx", err, rx.error);
    CHECK(same(src, dst, 256));
    CHECK_EQ(l4_tag_t(rx.tag), 2);
    CHECK_EQ(rx.mr1, w[0]);                     /* the item words are copied as they are */
}

TEST(substrings_into_one_buffer)
{
    fill(src, 4096, 2);
    memset(dst, 0, 4096);
    rx.brs[0] = l4_string_item(256, 1, false); rx.brs[1] = (l4_word_t)dst; rx.nbrs = 2;
    l4_word_t w[5] = { l4_string_item(64, 4, false), (l4_word_t)src, (l4_word_t)src + 1000,
                       (l4_word_t)src + 2000, (l4_word_t)src + 3000 }, err;
    l4_word_t tag = send_to_receiver(w, 5, &err);
    CHECK(!l4_ipc_failed(tag) && !l4_ipc_failed(rx.tag));
    CHECK(same(dst, src, 64) && same(dst + 64, src + 1000, 64) && same(dst + 128, src + 2000, 64) &&
          same(dst + 192, src + 3000, 64));
}

TEST(scatter_into_compound_buffer)
{
    fill(src, 256, 3);
    memset(dst, 0, 4096);
    /* 4 x 32 + 2 x 32 + 64 = 256, as one logical buffer (c bits). */
    l4_word_t b = (l4_word_t)dst;
    rx.brs[0] = l4_string_item(32, 4, true);
    rx.brs[1] = b; rx.brs[2] = b + 100; rx.brs[3] = b + 200; rx.brs[4] = b + 300;
    rx.brs[5] = l4_string_item(32, 2, true); rx.brs[6] = b + 400; rx.brs[7] = b + 500;
    rx.brs[8] = l4_string_item(64, 1, false); rx.brs[9] = b + 600;
    rx.nbrs = 10;
    l4_word_t w[2] = { l4_string_item(256, 1, false), (l4_word_t)src }, err;
    l4_word_t tag = send_to_receiver(w, 2, &err);
    CHECK(!l4_ipc_failed(tag) && !l4_ipc_failed(rx.tag), "err %lx/%lx", err, rx.error);
    CHECK(same(dst, src, 32) && same(dst + 100, src + 32, 32) && same(dst + 300, src + 96, 32));
    CHECK(same(dst + 400, src + 128, 32) && same(dst + 500, src + 160, 32));
    CHECK(same(dst + 600, src + 192, 64));
}

TEST(gather_from_compound_string)
{
    fill(src, 4096, 4);
    memset(dst, 0, 4096);
    rx.brs[0] = l4_string_item(256, 1, false); rx.brs[1] = (l4_word_t)dst; rx.nbrs = 2;
    l4_word_t w[5] = { l4_string_item(100, 1, true), (l4_word_t)src,
                       l4_string_item(50, 2, false), (l4_word_t)src + 1000, (l4_word_t)src + 2000 }, err;
    l4_word_t tag = send_to_receiver(w, 5, &err);
    CHECK(!l4_ipc_failed(tag) && !l4_ipc_failed(rx.tag));
    CHECK(same(dst, src, 100) && same(dst + 100, src + 1000, 50) && same(dst + 150, src + 2000, 50));
}

TEST(shorter_string_leaves_rest_untouched)
{
    fill(src, 256, 5);
    memset(dst, 0xEE, 512);
    rx.brs[0] = l4_string_item(256, 1, false); rx.brs[1] = (l4_word_t)dst; rx.nbrs = 2;
    l4_word_t w[2] = { l4_string_item(252, 1, false), (l4_word_t)src }, err;
    l4_word_t tag = send_to_receiver(w, 2, &err);
    CHECK(!l4_ipc_failed(tag) && !l4_ipc_failed(rx.tag));
    CHECK(same(dst, src, 252));
    CHECK(dst[252] == 0xEE && dst[255] == 0xEE);
}

TEST(longer_string_overflows_at_buffer_end)
{
    fill(src, 256, 6);
    memset(dst, 0, 512);
    rx.brs[0] = l4_string_item(252, 1, false); rx.brs[1] = (l4_word_t)dst; rx.nbrs = 2;
    l4_word_t w[2] = { l4_string_item(256, 1, false), (l4_word_t)src }, err;
    l4_word_t tag = send_to_receiver(w, 2, &err);
    CHECK(l4_ipc_failed(tag) && l4_ipc_failed(rx.tag));
    CHECK_EQ(l4_ipc_error_code(err), L4_IPC_OVERFLOW);
    CHECK_EQ(l4_ipc_error_offset(err), 252);
    CHECK(!l4_ipc_error_is_rcv(err));
    CHECK_EQ(l4_ipc_error_code(rx.error), L4_IPC_OVERFLOW);
    CHECK_EQ(l4_ipc_error_offset(rx.error), 252);
    CHECK(l4_ipc_error_is_rcv(rx.error));
    CHECK(same(dst, src, 252));
}

TEST(second_string_needs_second_buffer)
{
    fill(src, 256, 7);
    memset(dst, 0, 512);
    rx.brs[0] = l4_string_item(256, 1, false); rx.brs[1] = (l4_word_t)dst; rx.nbrs = 2;   /* C = 0 */
    l4_word_t w[4] = { l4_string_item(128, 1, false), (l4_word_t)src,
                       l4_string_item(128, 1, false), (l4_word_t)src + 128 }, err;
    l4_word_t tag = send_to_receiver(w, 4, &err);
    CHECK(l4_ipc_failed(tag));
    CHECK_EQ(l4_ipc_error_code(err), L4_IPC_OVERFLOW);
    CHECK_EQ(l4_ipc_error_offset(err), 128);
    /* With C = 1 and a second buffer, both strings arrive. */
    rx.brs[0] = l4_string_item(256, 1, false) | L4_ITEM_C; rx.brs[1] = (l4_word_t)dst;
    rx.brs[2] = l4_string_item(256, 1, false); rx.brs[3] = (l4_word_t)dst + 256; rx.nbrs = 4;
    memset(dst, 0, 512);
    tag = send_to_receiver(w, 4, &err);
    CHECK(!l4_ipc_failed(tag), "err %lx", err);
    CHECK(same(dst, src, 128) && same(dst + 256, src + 128, 128));
}

TEST(strings_not_accepted)
{
    fill(src, 64, 8);
    rx.no_strings = true;
    l4_word_t w[2] = { l4_string_item(64, 1, false), (l4_word_t)src }, err;
    l4_word_t tag = send_to_receiver(w, 2, &err);
    rx.no_strings = false;
    CHECK(l4_ipc_failed(tag) && l4_ipc_failed(rx.tag));
    CHECK_EQ(l4_ipc_error_code(err), L4_IPC_OVERFLOW);
    CHECK_EQ(l4_ipc_error_offset(err), 0);
    CHECK_EQ(l4_ipc_error_code(rx.error), L4_IPC_OVERFLOW);
    CHECK_EQ(rx.mr1, w[0]);                     /* the item header still arrived (§5.6) */
}

TEST(crossing_pages)
{
    fill(src, sizeof(src), 9);
    memset(dst, 0, sizeof(dst));
    size_t n = 2 * 4096 + 100;
    rx.brs[0] = l4_string_item(n, 1, false); rx.brs[1] = (l4_word_t)dst + 123; rx.nbrs = 2;
    l4_word_t w[2] = { l4_string_item(n, 1, false), (l4_word_t)src + 4000 }, err;
    l4_word_t tag = send_to_receiver(w, 2, &err);
    CHECK(!l4_ipc_failed(tag) && !l4_ipc_failed(rx.tag), "err %lx/%lx", err, rx.error);
    CHECK(same(dst + 123, src + 4000, n));
    CHECK(dst[122] == 0 && dst[123 + n] == 0);
}

/* --- faults and transfer timeouts ----------------------------------------------------------
 * The sender S lives in another space and sends to the receiver R in our space; we (the main
 * thread) page both: S's pages of TU_WINDOW, and R's accesses to TU_WINDOW in our space. */

static struct {
    l4_word_t to, from_addr, len, xfer_timeouts;
} sx;

static void remote_sender(void)
{
    l4_set_xfer_timeouts(sx.xfer_timeouts);
    l4_set_mr(0, l4_tag_make(0x34, 0, 2));
    l4_set_mr(1, l4_string_item(sx.len, 1, false));
    l4_set_mr(2, sx.from_addr);
    l4_word_t tag = l4_send(sx.to);
    tu_report(L_RESULT, l4_ipc_failed(tag) ? l4_error_code() : 0);
    l4_sleep_forever();
}

/* Run one transfer S -> R; returns S's error word (R's is in rx.error). */
static l4_word_t remote_transfer(l4_word_t from_addr, l4_word_t to_addr, l4_word_t len,
                                 l4_word_t s_xfer, l4_word_t r_xfer)
{
    rx.brs[0] = l4_string_item(len, 1, false);
    rx.brs[1] = to_addr;
    rx.nbrs = 2;
    rx.xfer_timeouts = r_xfer;
    l4_word_t r = tu_thread(receiver_thread, 100);
    tu_wait_blocked();
    sx.to = r;
    sx.from_addr = from_addr;
    sx.len = len;
    sx.xfer_timeouts = s_xfer;
    l4_word_t s = tu_space_thread(remote_sender, 100);
    /* Serve faults until both have reported. */
    l4_word_t s_err = ~0ul;
    bool r_done = false;
    while (s_err == ~0ul || !r_done) {
        l4_word_t from, tag = tu_serve(&from);
        if (l4_tag_label(tag) == L_RESULT)
            s_err = l4_mr(1);
        else if (l4_tag_label(tag) == L_DONE)
            r_done = true;
    }
    tu_kill(s);
    tu_kill(r);
    return s_err;
}

static void unmap_window(void)
{
    /* Take the window back from everybody we gave it to, so that it faults again. */
    l4_set_mr(0, l4_fpage_log2((l4_word_t)tu_window_backing, 16) | L4_RWX);
    l4_unmap(0);
}

TEST(sender_side_faults)
{
    unmap_window();
    fill(tu_window_backing, 3 * 4096, 10);
    memset(dst, 0, sizeof(dst));
    l4_word_t n = 2 * 4096 + 500;
    l4_word_t e = remote_transfer(TU_WINDOW + 300, (l4_word_t)dst, n, 0, 0);
    CHECK_EQ(e, 0);
    CHECK(!l4_ipc_failed(rx.tag), "receiver error %lx", rx.error);
    CHECK(same(dst, tu_window_backing + 300, n));
}

TEST(receiver_side_faults)
{
    unmap_window();
    fill(src, sizeof(src), 11);
    memset(tu_window_backing, 0, sizeof(tu_window_backing));
    l4_word_t n = 2 * 4096 + 77;
    l4_word_t e = remote_transfer((l4_word_t)src + 11, TU_WINDOW + 4000, n, 0, 0);
    CHECK_EQ(e, 0);
    CHECK(!l4_ipc_failed(rx.tag), "receiver error %lx", rx.error);
    CHECK(same(tu_window_backing + 4000, src + 11, n));
}

TEST(faults_on_both_sides)
{
    unmap_window();
    fill(tu_window_backing, 16384, 12);
    memset(tu_window_backing + 32768, 0, 16384);
    l4_word_t n = 3 * 4096;
    l4_word_t e = remote_transfer(TU_WINDOW + 100, TU_WINDOW + 32768 + 50, n, 0, 0);
    CHECK_EQ(e, 0);
    CHECK(!l4_ipc_failed(rx.tag), "receiver error %lx", rx.error);
    CHECK(same(tu_window_backing + 32768 + 50, tu_window_backing + 100, n));
}

#define XT(snd, rcv) l4_timeouts((snd), (rcv))

/* Transfer timeouts (§5.7): zero means "fail at the first fault"; the thread whose own
 * timeout was the shorter one gets code 5, the other code 6; equal: the sender gets 5. */
TEST(xfer_timeout_sender_zero)
{
    unmap_window();
    l4_word_t e = remote_transfer(TU_WINDOW, (l4_word_t)dst, 100, XT(L4_ZERO_TIME, L4_NEVER), 0);
    CHECK_EQ(l4_ipc_error_code(e), L4_IPC_XFER_TIMEOUT_OWN);
    CHECK_EQ(l4_ipc_error_code(rx.error), L4_IPC_XFER_TIMEOUT_PEER);
    CHECK(l4_ipc_error_is_rcv(rx.error) && !l4_ipc_error_is_rcv(e));
}

TEST(xfer_timeout_receiver_zero)
{
    unmap_window();
    fill(src, 100, 13);
    l4_word_t e = remote_transfer((l4_word_t)src, TU_WINDOW, 100, 0, XT(L4_NEVER, L4_ZERO_TIME));
    CHECK_EQ(l4_ipc_error_code(e), L4_IPC_XFER_TIMEOUT_PEER);
    CHECK_EQ(l4_ipc_error_code(rx.error), L4_IPC_XFER_TIMEOUT_OWN);
}

TEST(xfer_timeout_both_zero)
{
    unmap_window();
    l4_word_t e = remote_transfer(TU_WINDOW, (l4_word_t)dst, 100, XT(L4_ZERO_TIME, L4_NEVER),
                                  XT(L4_NEVER, L4_ZERO_TIME));
    CHECK_EQ(l4_ipc_error_code(e), L4_IPC_XFER_TIMEOUT_OWN);
    CHECK_EQ(l4_ipc_error_code(rx.error), L4_IPC_XFER_TIMEOUT_PEER);
}

TEST(xfer_timeout_after_partial_copy)
{
    /* The receiver's buffer starts 1000 bytes before a page the pager refuses: the first
     * 1000 bytes arrive, then the receiver's 20 ms transfer timeout ends the transfer. */
    unmap_window();
    fill(src, 4096, 14);
    memset(tu_window_backing, 0, 8192);
    tu_window_refuse_from = TU_WINDOW + 4096;
    l4_word_t e = remote_transfer((l4_word_t)src, TU_WINDOW + 4096 - 1000, 3000,
                                  0, XT(L4_NEVER, l4_period_from_us(20000)));
    tu_window_refuse_from = ~0ul;
    CHECK_EQ(l4_ipc_error_code(rx.error), L4_IPC_XFER_TIMEOUT_OWN);
    CHECK_EQ(l4_ipc_error_code(e), L4_IPC_XFER_TIMEOUT_PEER);
    CHECK_EQ(l4_ipc_error_offset(e), 1000);
    CHECK_EQ(l4_ipc_error_offset(rx.error), 1000);
    CHECK(same(tu_window_backing + 4096 - 1000, src, 1000));
}

/* Abort and deletion while the receiver waits in a fault IPC the pager does not answer. */
static l4_word_t stuck_r, stuck_s;

static void start_stuck_transfer(void)
{
    unmap_window();
    fill(src, 4096, 15);
    tu_window_refuse_from = TU_WINDOW;
    rx.brs[0] = l4_string_item(3000, 1, false);
    rx.brs[1] = TU_WINDOW + 100;
    rx.nbrs = 2;
    rx.xfer_timeouts = 0;
    stuck_r = tu_thread(receiver_thread, 100);
    tu_wait_blocked();
    sx.to = stuck_r;
    sx.from_addr = (l4_word_t)src;
    sx.len = 3000;
    sx.xfer_timeouts = 0;
    stuck_s = tu_space_thread(remote_sender, 100);
    /* The receiver's fault arrives; we leave it unanswered. */
    tu_wait_quiet();
}

TEST(abort_during_transfer)
{
    start_stuck_transfer();
    CHECK_EQ(tu_state(stuck_s), L4_SCHEDULE_SENDING);
    CHECK_EQ(tu_state(stuck_r), L4_SCHEDULE_RECEIVING);
    struct l4_exregs old;
    l4_exchange_registers(stuck_r, L4_EXREGS_ABORT_RECV, 0, 0, 0, 0, 0, &old);
    CHECK_EQ(old.control & 6, 2);
    tu_window_refuse_from = ~0ul;
    l4_word_t s_err = ~0ul;
    bool r_done = false;
    while (s_err == ~0ul || !r_done) {
        l4_word_t from, tag = tu_serve(&from);
        if (l4_tag_label(tag) == L_RESULT)
            s_err = l4_mr(1);
        else if (l4_tag_label(tag) == L_DONE)
            r_done = true;
    }
    CHECK_EQ(l4_ipc_error_code(s_err), L4_IPC_ABORTED);
    CHECK_EQ(l4_ipc_error_code(rx.error), L4_IPC_ABORTED);
    CHECK(l4_ipc_error_is_rcv(rx.error) && !l4_ipc_error_is_rcv(s_err));
    tu_kill(stuck_s);
    tu_kill(stuck_r);
}

TEST(deleting_sender_during_transfer)
{
    start_stuck_transfer();
    tu_kill(stuck_s);
    tu_window_refuse_from = ~0ul;
    l4_word_t from, tag = tu_serve(&from);      /* the receiver's report */
    CHECK_EQ(l4_tag_label(tag), L_DONE);
    CHECK_EQ(l4_ipc_error_code(rx.error), L4_IPC_NOPARTNER);
    CHECK(l4_ipc_error_is_rcv(rx.error));
    tu_kill(stuck_r);
}

TEST(deleting_receiver_during_transfer)
{
    start_stuck_transfer();
    tu_kill(stuck_r);
    tu_window_refuse_from = ~0ul;
    l4_word_t from, tag = tu_serve(&from);      /* the sender's report */
    CHECK_EQ(l4_tag_label(tag), L_RESULT);
    CHECK_EQ(l4_ipc_error_code(l4_mr(1)), L4_IPC_NOPARTNER);
    tu_kill(stuck_s);
}

/* --- the window between a receiver taking a queued string sender and the sender running --
 * A receiver R (priority 150) takes a sender S (100) with a string from its queue; S must run
 * to copy, but a thread T (120) is ready and runs first.  T aborts or deletes one of them. */

enum go_action { GO_ABORT_RECEIVER, GO_ABORT_SENDER, GO_DELETE_RECEIVER, GO_DELETE_SENDER };

static volatile l4_word_t go_r, go_s, go_action, go_s_error, go_r_error, go_s_done, go_r_done;

static void go_receiver(void)
{
    l4_receive(tu_main_tid());                  /* until told to start receiving */
    rx.brs[0] = l4_string_item(64, 1, false);
    rx.brs[1] = (l4_word_t)dst;
    accept_buffers(rx.brs, 2);
    l4_word_t from, tag = l4_wait(&from);
    go_r_error = l4_ipc_failed(tag) ? l4_error_code() : 0;
    go_r_done = 1;
    l4_sleep_forever();
}

static void go_sender(void)
{
    l4_set_mr(0, l4_tag_make(0x33, 0, 2));
    l4_set_mr(1, l4_string_item(64, 1, false));
    l4_set_mr(2, (l4_word_t)src);
    l4_word_t tag = l4_send(go_r);
    go_s_error = l4_ipc_failed(tag) ? l4_error_code() : 0;
    go_s_done = 1;
    l4_sleep_forever();
}

static void go_meddler(void)
{
    l4_receive(tu_main_tid());
    struct l4_exregs old;
    switch (go_action) {
    case GO_ABORT_RECEIVER: l4_exchange_registers(go_r, L4_EXREGS_ABORT_RECV, 0, 0, 0, 0, 0, &old); break;
    case GO_ABORT_SENDER:   l4_exchange_registers(go_s, L4_EXREGS_ABORT_SEND, 0, 0, 0, 0, 0, &old); break;
    case GO_DELETE_RECEIVER: tu_kill(go_r); break;
    case GO_DELETE_SENDER:  tu_kill(go_s); break;
    }
    tu_report(L_DONE, 0);
    l4_sleep_forever();
}

static void go_window(enum go_action action)
{
    go_action = action;
    go_s_done = go_r_done = 0;
    go_s_error = go_r_error = ~0ul;
    go_r = tu_thread(go_receiver, 150);
    l4_word_t t = tu_thread(go_meddler, 120);
    tu_wait_blocked();                          /* R and T wait for us */
    go_s = tu_thread(go_sender, 100);
    tu_wait_blocked();                          /* S is queued at R */
    l4_set_mr(0, 0);
    l4_send(t);                                 /* T ready, but we (255) go on */
    l4_set_mr(0, 0);
    l4_send(go_r);                              /* R ready */
    l4_word_t from;
    l4_receive(t);                              /* R takes S and waits; T runs before S */
    (void)from;
    tu_wait_blocked();                          /* S (if alive) has run */
    tu_kill(t);
}

TEST(abort_receiver_before_sender_copies)
{
    go_window(GO_ABORT_RECEIVER);
    CHECK(go_r_done && go_s_done);
    CHECK_EQ(l4_ipc_error_code(go_r_error), L4_IPC_ABORTED);
    CHECK(l4_ipc_error_is_rcv(go_r_error));
    CHECK_EQ(l4_ipc_error_code(go_s_error), L4_IPC_ABORTED);
    CHECK(!l4_ipc_error_is_rcv(go_s_error));
    tu_kill(go_r);
    tu_kill(go_s);
}

TEST(abort_sender_before_it_copies)
{
    go_window(GO_ABORT_SENDER);
    CHECK(go_r_done && go_s_done);
    CHECK_EQ(l4_ipc_error_code(go_s_error), L4_IPC_ABORTED);
    CHECK_EQ(l4_ipc_error_code(go_r_error), L4_IPC_ABORTED);
    tu_kill(go_r);
    tu_kill(go_s);
}

TEST(delete_receiver_before_sender_copies)
{
    go_window(GO_DELETE_RECEIVER);
    CHECK(go_s_done);
    CHECK_EQ(l4_ipc_error_code(go_s_error), L4_IPC_NOPARTNER);
    CHECK(!l4_ipc_error_is_rcv(go_s_error));
    tu_kill(go_s);
}

TEST(delete_sender_before_it_copies)
{
    go_window(GO_DELETE_SENDER);
    CHECK(go_r_done);
    CHECK_EQ(l4_ipc_error_code(go_r_error), L4_IPC_NOPARTNER);
    CHECK(l4_ipc_error_is_rcv(go_r_error));
    tu_kill(go_r);
}

int main(void)
{
    tests_run("strings");
}
