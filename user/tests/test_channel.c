/* In-system test: channels, native IPC for threads of foreign spaces (docs/linux-abi.md §9).
 * Three foreign spaces A, B, C (handler: this thread, which also pages them with this image,
 * 1:1) run scripts of this image that use only `syscall`: l4chan.h's native IPC with the
 * partners we name, and "Linux" system calls 1000 + slot to report.  A report stays
 * unanswered: the thread waits in it until the test kills it. */
#include "testlib.h"
#include "testutil.h"
#include <l4/pecan.h>
#include <l4chan.h>

#define UTCB_AREA  0xBF000000ul
#define WINDOW     0x50000000ul         /* B's receive window for mappings */
#define NOWHERE    0x60000000ul         /* an address A has nothing at */

extern char __executable_start[], _end[];
static uint8_t stacks[3][8192] __attribute__((aligned(4096)));
static uint8_t shared_page[4096] __attribute__((aligned(4096)));
static uint8_t probe_page[4096] __attribute__((aligned(4096)));  /* faults on it are counted */
static volatile unsigned probe_faults;
static volatile l4_word_t peer_a, peer_b, peer_c;
static volatile l4_word_t dests[16];    /* for the refusal script */
static volatile l4_word_t res_a[24], res_b[8], res_c[8];
static l4_word_t unexpected;            /* a message settle() did not expect */
static l4_word_t unexpected_word;       /* its MR1 */

static inline l4_word_t lx_syscall(l4_word_t nr)
{
    l4_word_t ret;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(nr) : "rcx", "r11", "memory");
    return ret;
}

static void __attribute__((noreturn)) report(unsigned slot)
{
    for (;;)
        lx_syscall(1000 + slot);
}

static l4_word_t start(void (*fn)(void), unsigned stack)
{
    return tu_foreign_thread(fn, (l4_word_t)&stacks[stack][8192 - 8], tu_main_tid(), UTCB_AREA);
}

static bool own_fault(l4_word_t tag)
{
    l4_word_t addr = l4_mr(L4_PF_ADDR);
    return l4_tag_is_proto(tag, L4_PROTO_PAGEFAULT) &&
           addr >= (l4_word_t)__executable_start && addr < (l4_word_t)_end;
}

static void map_reply_words(void)
{
    l4_word_t page = l4_mr(L4_PF_ADDR) & ~0xFFFul;
    (void)*(volatile char *)page;
    probe_faults += page == (l4_word_t)probe_page;
    l4_set_mr(0, l4_tag_make(0, 0, 2));
    l4_set_mr(1, l4_map_item(page));
    l4_set_mr(2, l4_fpage_log2(page, 12) | L4_RWX);
}

/* The next message from any thread that is not a page fault in our image (those are
 * answered); 0 if the receive failed. */
static l4_word_t next_any(l4_word_t *from)
{
    l4_word_t tag = l4_wait(from);
    while (!l4_ipc_failed(tag) && own_fault(tag)) {
        map_reply_words();
        /* A thread we took from our queue enters its receive when it next runs: wait. */
        tag = l4_ipc(*from, L4_ANYTHREAD, l4_timeouts(L4_NEVER, L4_NEVER), from);
    }
    return l4_ipc_failed(tag) ? 0 : tag;
}

/* Let the threads run until all are blocked, answering their page faults in our image. */
static void settle(void)
{
    for (;;) {
        tu_wait_blocked();
        l4_word_t from, tag = l4_wait_timeout(L4_ZERO_TIME, &from);
        if (l4_ipc_failed(tag))
            return;
        if (!own_fault(tag)) {
            unexpected = tag;
            unexpected_word = l4_mr(1);
            return;
        }
        map_reply_words();
        if (l4_ipc_failed(l4_send(from))) {
            unexpected = 0xdead;
            unexpected_word = l4_error_code();
        }
    }
}

/* The report (system call 1000 + slot) of thread t; faults answered on the way. */
static bool reported(l4_word_t t, unsigned slot)
{
    l4_word_t from, tag = next_any(&from);
    return from == t && l4_tag_is_proto(tag, L4_PROTO_FOREIGN_SYSCALL) &&
           l4_mr(L4_FSC_RAX) == 1000 + slot;
}

/* The reports of a (slot sa) and b (slot sb), in either order. */
static bool both_reported(l4_word_t a, unsigned sa, l4_word_t b, unsigned sb)
{
    bool ra = false, rb = false;
    for (unsigned i = 0; i < 2; i++) {
        l4_word_t from, tag = next_any(&from);
        if (!l4_tag_is_proto(tag, L4_PROTO_FOREIGN_SYSCALL))
            return false;
        ra |= from == a && l4_mr(L4_FSC_RAX) == 1000 + sa;
        rb |= from == b && l4_mr(L4_FSC_RAX) == 1000 + sb;
    }
    return ra && rb;
}

static l4_word_t ipc_err(unsigned code, bool rcv)
{
    return l4_ipc_error(code, rcv, 0);
}

/* --- without a channel ------------------------------------------------------------------- */

static void nochan_main(void)
{
    l4_word_t mr[8] = { l4chan_tag(0, 1, 0), 5 };
    res_a[0] = l4chan_send(tu_main_tid(), mr);
    l4_word_t fp[8] = { l4_fpage_log2((l4_word_t)shared_page, 12) | L4_RWX };
    res_a[1] = l4chan_unmap(0, fp);
    l4_word_t bufs[8] = { L4CHAN_STRING_ITEM(8), (l4_word_t)shared_page };
    res_a[2] = l4chan_buffers(2, bufs, 0);
    report(0);
}

TEST(without_a_channel_the_number_is_a_system_call)
{
    l4_word_t a = start(nochan_main, 0), from;
    CHECK(a != 0);
    l4_word_t tag = next_any(&from);
    CHECK(l4_tag_is_proto(tag, L4_PROTO_FOREIGN_SYSCALL), "tag %lx", tag);
    CHECK_EQ(l4_mr(L4_FSC_RAX), L4_FOREIGN_IPC_NR);
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_RESUME, 1, 0));
    l4_set_mr(1, (l4_word_t)-38);           /* what lx answers: -ENOSYS */
    l4_reply(a);
    l4_word_t tag2 = next_any(&from);      /* then native Unmap's number: a system call too */
    CHECK(l4_tag_is_proto(tag2, L4_PROTO_FOREIGN_SYSCALL), "tag %lx", tag2);
    CHECK_EQ(l4_mr(L4_FSC_RAX), L4_FOREIGN_UNMAP_NR);
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_RESUME, 1, 0));
    l4_set_mr(1, (l4_word_t)-38);
    l4_reply(a);
    l4_word_t tag3 = next_any(&from);      /* and the string buffers' number */
    CHECK(l4_tag_is_proto(tag3, L4_PROTO_FOREIGN_SYSCALL), "tag %lx", tag3);
    CHECK_EQ(l4_mr(L4_FSC_RAX), L4_FOREIGN_BUFFERS_NR);
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_RESUME, 1, 0));
    l4_set_mr(1, (l4_word_t)-38);
    l4_reply(a);
    CHECK(reported(a, 0));
    CHECK_EQ(res_a[0], (l4_word_t)-38);
    CHECK_EQ(res_a[1], (l4_word_t)-38);
    CHECK_EQ(res_a[2], (l4_word_t)-38);
    tu_kill(a);
}

/* --- partners reach each other ------------------------------------------------------------- */

static void echo_b_main(void)
{
    l4_word_t mr[8], sender;
    res_b[0] = l4chan_receive(L4CHAN_ANYTHREAD, mr, &sender);
    res_b[1] = sender;
    res_b[2] = mr[0];
    res_b[3] = mr[7];
    l4_word_t reply[8] = { l4chan_tag(0x77, 7, 0), mr[1] + 1, mr[2] * 2, 3, 4, 5, 6, 7 };
    res_b[4] = l4chan_send(sender, reply);
    report(1);
}

static void call_a_main(void)
{
    l4_word_t mr[8] = { l4chan_tag(0x42, 7, 0), 41, 100, 1, 2, 3, 4, 0x7777 };
    res_a[0] = l4chan_call(peer_b, mr);
    for (unsigned i = 0; i < 8; i++)
        res_a[1 + i] = mr[i];
    res_a[9] = lx_syscall(1005);            /* a Linux system call in the same thread */
    report(0);
}

TEST(partners_exchange_messages)
{
    l4_word_t b = start(echo_b_main, 1);
    CHECK(b != 0);
    l4_word_t a = start(call_a_main, 0);
    CHECK(a != 0);
    peer_a = a;
    peer_b = b;
    CHECK(l4_channel_control(a, 0, b));
    CHECK(l4_channel_control(b, 0, a));
    /* B's report, A's, and A's Linux system call before it (answered as lx would). */
    bool ra = false, rb = false;
    for (unsigned i = 0; i < 3; i++) {
        l4_word_t from, tag = next_any(&from);
        CHECK(l4_tag_is_proto(tag, L4_PROTO_FOREIGN_SYSCALL), "tag %lx", tag);
        if (from == a && l4_mr(L4_FSC_RAX) == 1005) {
            l4_set_mr(0, l4_tag_make(L4_FOREIGN_RESUME, 1, 0));
            l4_set_mr(1, 55);
            l4_reply(a);
        }
        ra |= from == a && l4_mr(L4_FSC_RAX) == 1000;
        rb |= from == b && l4_mr(L4_FSC_RAX) == 1001;
    }
    CHECK(ra && rb);
    CHECK_EQ(res_b[0], 0);
    CHECK_EQ(res_b[1], a);                  /* the sender's global id */
    CHECK_EQ(res_b[2], l4chan_tag(0x42, 7, 0));
    CHECK_EQ(res_b[3], 0x7777);
    CHECK_EQ(res_b[4], 0);
    CHECK_EQ(res_a[0], 0);
    CHECK_EQ(res_a[1], l4chan_tag(0x77, 7, 0));
    CHECK_EQ(res_a[2], 42);
    CHECK_EQ(res_a[3], 200);
    CHECK_EQ(res_a[8], 7);
    CHECK_EQ(res_a[9], 55);
    tu_kill(a);
    tu_kill(b);
}

/* --- everything else is refused ------------------------------------------------------------ */

static void sleep_main(void)
{
    report(1);
}

/* A thread of a new foreign space that waits in its report for ever (a partner that never
 * sends); 0 on failure. */
static l4_word_t sleeper(unsigned stack)
{
    l4_word_t t = start(sleep_main, stack);
    return t && reported(t, 1) ? t : 0;
}

/* B a sleeper (peer_b), A a new thread running fn with the map right to B: A, or 0 if
 * something failed. */
static l4_word_t mapping_to_sleeper(void (*fn)(void), l4_word_t *b)
{
    peer_b = *b = sleeper(1);
    l4_word_t a = *b ? start(fn, 0) : 0;
    return a && l4_channel_control(a, L4_SPACE_CTL_CHAN_MAP, *b) ? a : 0;
}

/* Sends to every destination in dests[] (until nilthread), then closed receives from them,
 * then the malformed messages to B: each error into res_a. */
static void refused_main(void)
{
    unsigned n = 0;
    for (unsigned i = 0; dests[i]; i++) {
        l4_word_t mr[8] = { l4chan_tag(1, 1, 0), 9 };
        res_a[n++] = l4chan_send(dests[i], mr);
    }
    for (unsigned i = 0; dests[i]; i++) {
        l4_word_t mr[8] = { 0 };
        res_a[n++] = l4chan_ipc(L4CHAN_NILTHREAD, dests[i],
                                l4chan_timeouts(L4CHAN_NEVER, L4CHAN_ZERO), 0, mr, 0);
    }
    l4_word_t big[8] = { l4chan_tag(1, 8, 0) };
    res_a[n++] = l4chan_send(peer_b, big);
    l4_word_t map[8] = { l4chan_tag(1, 0, 2), l4_map_item((l4_word_t)shared_page),
                         l4_fpage_log2((l4_word_t)shared_page, 12) | L4_RWX };
    res_a[n++] = l4chan_send(peer_b, map);
    l4_word_t none[8] = { 0 };
    res_a[n++] = l4chan_ipc(L4CHAN_NILTHREAD, L4CHAN_NILTHREAD, 0, 0, none, 0);
    report(0);
}

TEST(every_other_destination_is_refused)
{
    l4_word_t b = sleeper(1), c = sleeper(2);
    CHECK(b != 0 && c != 0);
    l4_word_t a = start(refused_main, 0);
    CHECK(a != 0);
    peer_b = b;
    CHECK(l4_channel_control(a, 0, b));     /* B only, without the right to map */
    CHECK(l4_channel_control(c, 0, a));     /* C would hear A: A may still not reach C */
    unsigned n = 0;
    dests[n++] = tu_main_tid();             /* the handler, the root task */
    dests[n++] = l4_sigma0_tid();
    dests[n++] = c;                         /* another process's thread */
    dests[n++] = L4_ANYTHREAD;
    dests[n++] = L4_ANYLOCALTHREAD;
    dests[n++] = UTCB_AREA;                 /* a local id: A's own */
    dests[n++] = l4_global_id(l4_thread_no(b), l4_version(b) + 1);  /* B's number, not B */
    dests[n++] = l4_global_id(l4_thread_no(a), l4_version(a));      /* A itself */
    dests[n] = 0;
    CHECK(reported(a, 0));                  /* nothing else reached us first */
    unsigned k = 0;
    for (unsigned i = 0; i < n; i++, k++)
        CHECK(res_a[k] == ipc_err(L4CHAN_ENOPARTNER, false), "send %u: %lx", i, res_a[k]);
    for (unsigned i = 0; i < n; i++, k++)
        CHECK(res_a[k] == ipc_err(dests[i] == L4_ANYTHREAD ? L4CHAN_ETIMEOUT : L4CHAN_ENOPARTNER,
                                  true), "receive %u: %lx", i, res_a[k]);
    CHECK_EQ(res_a[k], ipc_err(L4CHAN_EOVERFLOW, false));      /* u + t > 7 */
    k++;
    CHECK_EQ(res_a[k], ipc_err(L4CHAN_EOVERFLOW, false));      /* a map item, no right */
    k++;
    CHECK_EQ(res_a[k], 0);                  /* neither phase: nothing happens */
    tu_kill(a);
    tu_kill(b);
    tu_kill(c);
}

/* --- an open receive hears partners only ------------------------------------------------------ */

static void open_a_main(void)
{
    l4_word_t mr[8] = { 0 }, sender = 0;
    res_a[0] = 0;
    res_a[0] = lx_syscall(1004);            /* ready: touches the pages first */
    res_a[1] = l4chan_receive(L4CHAN_ANYTHREAD, mr, &sender);
    res_a[2] = sender;
    res_a[3] = mr[1];
    report(0);
}

static void send_to_a_main(void)
{
    l4_word_t mr[8] = { l4chan_tag(0, 1, 0), 0xC };
    res_c[0] = l4chan_send(peer_a, mr);     /* C may name A, A does not hear C */
    report(2);
}

static void send_b_main(void)
{
    l4_word_t mr[8] = { l4chan_tag(0, 1, 0), 0xB };
    res_b[0] = l4chan_send(peer_a, mr);
    report(1);
}

TEST(an_open_receive_hears_partners_only)
{
    res_a[1] = res_a[2] = 0;
    l4_word_t a = start(open_a_main, 0);
    CHECK(a != 0);
    peer_a = a;
    l4_word_t from, tag = next_any(&from);
    CHECK(from == a && l4_tag_is_proto(tag, L4_PROTO_FOREIGN_SYSCALL), "tag %lx", tag);
    res_c[0] = 0x99;
    l4_word_t c = start(send_to_a_main, 2);
    CHECK(c != 0);
    CHECK(l4_channel_control(c, 0, a));     /* C may name A; A does not name C */
    CHECK(l4_channel_control(a, 0, l4_sigma0_tid()));       /* a partner that never sends */
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_RESUME, 0, 0));
    l4_reply(a);                            /* A enters its open receive */
    settle();                               /* and C waits in its send to A */
    CHECK_EQ(unexpected, 0);
    CHECK_EQ(res_a[1], 0);
    CHECK_EQ(res_a[2], 0);                  /* nothing received yet */
    CHECK_EQ(res_c[0], 0x99);
    /* The handler is not heard either: A does not wait for it. */
    l4_set_mr(0, l4_tag_make(0, 0, 0));
    CHECK(l4_ipc_failed(l4_send_timeout(a, L4_ZERO_TIME)));
    CHECK_EQ(l4_error_code(), ipc_err(L4CHAN_ETIMEOUT, false));
    /* B, a partner, is: its message overtakes C's. */
    l4_word_t b = start(send_b_main, 1);
    CHECK(b != 0);
    CHECK(l4_channel_control(a, 0, b));
    CHECK(l4_channel_control(b, 0, a));
    CHECK(both_reported(a, 0, b, 1));
    CHECK_EQ(res_a[1], 0);
    CHECK_EQ(res_a[2], b);
    CHECK_EQ(res_a[3], 0xB);
    CHECK_EQ(res_b[0], 0);
    CHECK_EQ(res_c[0], 0x99);               /* C still waits */
    tu_kill(a);
    tu_kill(b);
    tu_kill(c);
}

/* --- mapping: only with the right, only the sender's own memory ------------------------------- */

static l4_word_t map_acceptor;             /* what B names; its window is WINDOW's page */

static void map_b_main(void)
{
    l4_word_t mr[8] = { 0 }, sender;
    res_b[0] = l4chan_ipc(L4CHAN_NILTHREAD, peer_a, 0, map_acceptor, mr, &sender);
    res_b[1] = mr[0];
    res_b[2] = *(volatile l4_word_t *)WINDOW;   /* a page fault to us if nothing came */
    report(1);
}

static void map_a_main(void)
{
    l4_word_t page = peer_c ? NOWHERE : (l4_word_t)shared_page;
    if (!peer_c)
        (void)*(volatile l4_word_t *)page;      /* ours now */
    l4_word_t mr[8] = { l4chan_tag(0, 0, 2), l4_map_item(page),
                        l4_fpage_log2(page, 12) | L4_RWX };
    res_a[0] = l4chan_send(peer_b, mr);
    report(0);
}

/* B (peer_b, running b_fn, its window WINDOW's page) started, then A (peer_a, a_fn); both
 * with the map right to the other.  False if something failed. */
static bool start_map_pair(void (*a_fn)(void), void (*b_fn)(void), l4_word_t *a, l4_word_t *b)
{
    peer_b = *b = start(b_fn, 1);
    peer_a = *a = *b ? start(a_fn, 0) : 0;
    return *a && l4_channel_window(*b, l4_fpage_log2(WINDOW, 12)) &&
           l4_channel_control(*a, L4_SPACE_CTL_CHAN_MAP, *b) &&
           l4_channel_control(*b, L4_SPACE_CTL_CHAN_MAP, *a);
}

/* own: A maps a page it has; acceptor: what B's receive names (the kernel cuts it to B's
 * window, WINDOW's page); cut: to nothing. */
static void map_run(bool own, l4_word_t acceptor, bool cut)
{
    peer_c = !own;
    map_acceptor = acceptor;
    *(volatile l4_word_t *)shared_page = 0x5EED;
    res_b[2] = 0;
    l4_word_t a, b;
    CHECK(start_map_pair(map_a_main, map_b_main, &a, &b));
    CHECK(reported(a, 0));
    l4_word_t from, tag;
    if (cut) {
        /* Cut to nothing: the map item has no acceptor, both sides see message overflow. */
        CHECK_EQ(res_a[0], ipc_err(L4CHAN_EOVERFLOW, false));
        tag = next_any(&from);
        CHECK_EQ(from, b);
        CHECK_EQ(res_b[0], ipc_err(L4CHAN_EOVERFLOW, true));
        CHECK(l4_tag_is_proto(tag, L4_PROTO_PAGEFAULT), "tag %lx", tag);
        tu_kill(a);
        tu_kill(b);
        return;
    }
    CHECK_EQ(res_a[0], 0);
    tag = next_any(&from);
    CHECK_EQ(from, b);
    CHECK_EQ(res_b[0], 0);
    CHECK_EQ(res_b[1], l4chan_tag(0, 0, 2));
    if (own) {
        CHECK(l4_tag_is_proto(tag, L4_PROTO_FOREIGN_SYSCALL) && l4_mr(L4_FSC_RAX) == 1001,
              "tag %lx", tag);
        CHECK_EQ(res_b[2], 0x5EED);         /* A's page, in B at the window */
    } else {
        /* A had nothing there: nothing was mapped, B faults at its window. */
        CHECK(l4_tag_is_proto(tag, L4_PROTO_PAGEFAULT), "tag %lx", tag);
        CHECK_EQ(l4_mr(L4_PF_ADDR), WINDOW);
    }
    tu_kill(a);
    tu_kill(b);
    peer_c = 0;
}

/* A grant out of a foreign space is refused, with the map right too (the handler's page
 * would outlive the space in the partner's); checked before anything is sent. */
static void grant_main(void)
{
    l4_word_t page = (l4_word_t)shared_page;
    (void)*(volatile l4_word_t *)page;          /* ours now */
    l4_word_t mr[8] = { l4chan_tag(0, 0, 2), l4_grant_item(page),
                        l4_fpage_log2(page, 12) | L4_RWX };
    res_a[0] = l4chan_ipc(peer_b, L4CHAN_NILTHREAD,
                          l4chan_timeouts(L4CHAN_ZERO, L4CHAN_ZERO), 0, mr, 0);
    report(0);
}

TEST(grant_items_are_refused_with_the_map_right)
{
    l4_word_t b, a = mapping_to_sleeper(grant_main, &b);
    CHECK(a != 0);
    CHECK(reported(a, 0));
    CHECK_EQ(res_a[0], ipc_err(L4CHAN_EOVERFLOW, false));
    tu_kill(a);
    tu_kill(b);
}

TEST(map_items_map_the_senders_own_pages)
{
    map_run(true, l4_fpage_log2(WINDOW, 12), false);
}

TEST(map_items_of_memory_the_sender_lacks_map_nothing)
{
    map_run(false, l4_fpage_log2(WINDOW, 12), false);
}

/* The acceptor is cut to the window: the complete address space means the window, a page
 * beside it means nothing. */
TEST(a_native_receive_maps_only_into_its_window)
{
    map_run(true, L4_COMPLETE_FPAGE, false);
    map_run(true, l4_fpage_log2(WINDOW + 0x10000, 12), true);
}

/* --- native Unmap: the caller's own pages and what it mapped to partners, nothing else ------ */

static void unmap_b_main(void)
{
    (void)*(volatile l4_word_t *)probe_page;       /* B's own page: the handler's mapping */
    l4_word_t mr[8] = { 0 }, sender;
    res_b[0] = l4chan_ipc(L4CHAN_NILTHREAD, peer_a, 0, l4_fpage_log2(WINDOW, 12), mr, &sender);
    res_b[1] = *(volatile l4_word_t *)WINDOW;       /* A's page */
    mr[0] = l4chan_tag(0, 0, 0);
    res_b[2] = l4chan_call(peer_a, mr);             /* A unmaps, then answers */
    res_b[3] = *(volatile l4_word_t *)probe_page;   /* still there: no fault */
    res_b[4] = *(volatile l4_word_t *)WINDOW;       /* gone: a page fault to us */
    report(1);
}

static void unmap_a_main(void)
{
    l4_word_t page = (l4_word_t)shared_page;
    (void)*(volatile l4_word_t *)page;
    l4_word_t mr[8] = { l4chan_tag(0, 0, 2), l4_map_item(page), l4_fpage_log2(page, 12) | L4_RWX };
    res_a[0] = l4chan_call(peer_b, mr);             /* maps; B answers once it read it */
    l4_word_t fp[8] = { l4_fpage_log2(page, 12) | L4_RWX,
                        l4_fpage_log2(page, 12) | L4_RWX,      /* nothing left: status 0 */
                        l4_fpage_log2(page, 11) | L4_RWX,      /* smaller than a page */
                        L4_NILPAGE,
                        l4_fpage_log2(0xFFFF800000000000ul, 12) | L4_RWX };  /* not user */
    res_a[1] = l4chan_unmap(4, fp);
    for (unsigned i = 0; i < 5; i++)
        res_a[2 + i] = fp[i];
    l4_word_t too_many[8] = { l4_fpage_log2(page, 12) | L4_RWX };
    res_a[7] = l4chan_unmap(8, too_many);           /* k > 7: refused */
    res_a[8] = too_many[0];
    /* Everything A has, its own mappings too: only A's pages go (they fault to the handler
     * again); B's own pages, the handler's, stay. */
    l4_word_t all[8] = { L4_COMPLETE_FPAGE | L4_RWX };
    res_a[9] = l4chan_unmap(L4CHAN_UNMAP_FLUSH, all);
    res_a[10] = *(volatile l4_word_t *)page;        /* mapped again by the handler */
    mr[0] = l4chan_tag(0, 0, 0);
    res_a[11] = l4chan_send(peer_b, mr);
    report(0);
}

TEST(native_unmap_takes_back_what_the_caller_mapped_only)
{
    *(volatile l4_word_t *)shared_page = 0x5EED;
    *(volatile l4_word_t *)probe_page = 0x9A6E;
    probe_faults = 0;
    l4_word_t a, b;
    CHECK(start_map_pair(unmap_a_main, unmap_b_main, &a, &b));
    bool a_done = false, b_fault = false;
    for (unsigned i = 0; i < 2; i++) {
        l4_word_t from, tag = next_any(&from);
        a_done |= from == a && l4_tag_is_proto(tag, L4_PROTO_FOREIGN_SYSCALL) &&
                  l4_mr(L4_FSC_RAX) == 1000;
        b_fault |= from == b && l4_tag_is_proto(tag, L4_PROTO_PAGEFAULT) &&
                   l4_mr(L4_PF_ADDR) == WINDOW;
    }
    CHECK(a_done && b_fault);
    CHECK_EQ(res_b[0], 0);
    CHECK_EQ(res_b[1], 0x5EED);
    CHECK_EQ(res_b[2], 0);
    CHECK_EQ(res_b[3], 0x9A6E);
    CHECK_EQ(probe_faults, 1);              /* B's first touch only: A's flush left it alone */
    CHECK_EQ(res_a[0], 0);
    CHECK_EQ(res_a[1], 0);
    l4_word_t page = (l4_word_t)shared_page;
    CHECK_EQ(res_a[2], l4_fpage_log2(page, 12) | 5);  /* B read it: r, x with r (X mapping) */
    CHECK_EQ(res_a[3], l4_fpage_log2(page, 12));
    CHECK_EQ(res_a[4], l4_fpage_log2(page, 11) | L4_RWX);     /* untouched */
    CHECK_EQ(res_a[5], L4_NILPAGE);
    CHECK_EQ(res_a[6], l4_fpage_log2(0xFFFF800000000000ul, 12) | L4_RWX);
    CHECK_EQ(res_a[7], L4_ERR_INVALID_PARAM);
    CHECK_EQ(res_a[8], l4_fpage_log2(page, 12) | L4_RWX);
    CHECK_EQ(res_a[9], 0);
    CHECK_EQ(res_a[10], 0x5EED);
    CHECK_EQ(res_a[11], 0);
    tu_kill(a);
    tu_kill(b);
}

/* A window is an fpage of at least a page in the user area (I/O fpages refused), set for a
 * foreign space only; nilpage clears it. */
TEST(channel_window_is_checked)
{
    l4_word_t b = start(map_b_main, 1);
    CHECK(b != 0);
    CHECK(!l4_channel_window(b, l4_fpage_log2(WINDOW, 11)));
    CHECK_EQ(l4_error_code(), L4_ERR_INVALID_PARAM);
    CHECK(!l4_channel_window(b, l4_fpage_log2(0x7F0000000000ul, 47)));
    CHECK_EQ(l4_error_code(), L4_ERR_INVALID_PARAM);
    CHECK(!l4_channel_window(b, l4_fpage_log2(0x800000000000ul, 16)));  /* beyond the user area */
    CHECK_EQ(l4_error_code(), L4_ERR_INVALID_PARAM);
    CHECK(!l4_channel_window(b, 0x20 | (16 << 10)));        /* an I/O fpage */
    CHECK_EQ(l4_error_code(), L4_ERR_INVALID_PARAM);
    CHECK(!l4_channel_window(l4_my_global_id(), l4_fpage_log2(WINDOW, 12)));
    CHECK_EQ(l4_error_code(), L4_ERR_INVALID_PARAM);        /* not a foreign space */
    CHECK(l4_channel_window(b, l4_fpage_log2(WINDOW, 16)));
    CHECK(l4_channel_window(b, 0));
    tu_kill(b);
}

/* --- no X.2 system call but Ipc ------------------------------------------------------------------ */

#define NSTUBS 11
#define SYSTEM_CLOCK 8                  /* its stub reads the clock without entering the kernel */

static void stubs_main(void)
{
    const l4_word_t *entry = (const l4_word_t *)&l4lib_syscalls;
    for (unsigned i = 0; i < NSTUBS; i++) {
        l4_word_t ret;
        /* Each KIP stub, called the way libl4 calls it; RAX as a number Linux lacks. */
        __asm__ volatile("leaq -128(%%rsp), %%rsp\n\tpushq %%rbp\n\tcall *%1\n\t"
                         "popq %%rbp\n\tleaq 128(%%rsp), %%rsp"
                         : "=a"(ret) : "r"(entry[i]), "a"(2000ul + i), "S"(peer_b),
                           "d"(peer_b), "D"(peer_b)
                         : "rbx", "rcx", "r8", "r9", "r10", "r11", "r12", "r13", "r14",
                           "r15", "memory");
        res_a[i] = ret;
    }
    report(0);
}

TEST(x2_calls_are_still_messages_to_the_handler)
{
    l4_word_t b, a = mapping_to_sleeper(stubs_main, &b);
    CHECK(a != 0);
    for (unsigned i = 0; i < NSTUBS; i++) {
        if (i == SYSTEM_CLOCK)
            continue;
        l4_word_t from, tag = next_any(&from);
        CHECK(from == a && l4_tag_is_proto(tag, L4_PROTO_FOREIGN_SYSCALL) &&
              l4_mr(L4_FSC_RAX) == 2000 + i, "stub %u: tag %lx rax %lu", i, tag,
              l4_mr(L4_FSC_RAX));
        l4_set_mr(0, l4_tag_make(L4_FOREIGN_RESUME, 1, 0));
        l4_set_mr(1, (l4_word_t)-38);
        l4_reply(a);
    }
    CHECK(reported(a, 0));
    for (unsigned i = 0; i < NSTUBS; i++)
        if (i != SYSTEM_CLOCK)
            CHECK_EQ(res_a[i], (l4_word_t)-38);
    tu_kill(a);
    tu_kill(b);
}

/* --- a signal, a partner's death, a revocation end a blocked native IPC -------------------------- */

static void blocked_a_main(void)
{
    l4_word_t mr[8] = { 0 };
    res_a[0] = lx_syscall(1004);            /* ready */
    res_a[1] = l4chan_ipc(L4CHAN_NILTHREAD, dests[0], 0, 0, mr, 0);
    res_a[2] = mr[0];
    res_a[3] = l4chan_ipc(dests[1], L4CHAN_NILTHREAD, 0, 0, mr, 0);
    report(0);
}

/* A (partner b) waits in a receive from rcv_from; afterwards it sends to snd_to. */
static l4_word_t blocked_a(l4_word_t b, l4_word_t rcv_from, l4_word_t snd_to)
{
    dests[0] = rcv_from;
    dests[1] = snd_to;
    for (unsigned i = 0; i < 4; i++)
        res_a[i] = 0;
    l4_word_t a = start(blocked_a_main, 0), from;
    if (!a)
        return 0;
    peer_a = a;
    if (!l4_channel_control(a, 0, b))
        return 0;
    l4_word_t tag = next_any(&from);
    if (from != a || !l4_tag_is_proto(tag, L4_PROTO_FOREIGN_SYSCALL))
        return 0;
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_RESUME, 0, 0));
    if (l4_ipc_failed(l4_reply(a)))
        return 0;
    settle();
    return a;
}

TEST(a_signal_interrupts_a_blocked_native_receive)
{
    l4_word_t b = sleeper(1);
    CHECK(b != 0);
    l4_word_t a = blocked_a(b, L4_ANYTHREAD, b);
    CHECK(a != 0);
    CHECK_EQ(res_a[1], 0);
    struct l4_exregs old;
    l4_exchange_registers(a, L4_EXREGS_APPLY_INTERRUPT | L4_EXREGS_INTERRUPT, 0, 0, 0, 0, 0, &old);
    CHECK_EQ(old.control & 7, 2);           /* it was receiving */
    l4_word_t from, tag = next_any(&from);
    CHECK(from == a && l4_tag_is_proto(tag, L4_PROTO_FOREIGN_INTERRUPT), "tag %lx", tag);
    CHECK_EQ(l4_mr(L4_FREG_RAX), ipc_err(L4CHAN_ECANCELED, true));
    CHECK(l4_mr(L4_FREG_R9) & L4_TAG_E);
    /* The "signal handler" returns; then A's send to B (not receiving) is interrupted too. */
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_RESUME, 0, 0));
    l4_reply(a);
    settle();
    l4_exchange_registers(a, L4_EXREGS_APPLY_INTERRUPT | L4_EXREGS_INTERRUPT, 0, 0, 0, 0, 0, &old);
    CHECK_EQ(old.control & 7, 4);           /* it was sending */
    tag = next_any(&from);
    CHECK(from == a && l4_tag_is_proto(tag, L4_PROTO_FOREIGN_INTERRUPT), "tag %lx", tag);
    CHECK_EQ(l4_mr(L4_FREG_RAX), ipc_err(L4CHAN_ECANCELED, false));
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_RESUME, 0, 0));
    l4_reply(a);
    CHECK(reported(a, 0));
    CHECK_EQ(res_a[1], ipc_err(L4CHAN_ECANCELED, true));
    CHECK_EQ(res_a[3], ipc_err(L4CHAN_ECANCELED, false));
    tu_kill(a);
    tu_kill(b);
}

TEST(a_partner_that_dies_unblocks_the_other)
{
    l4_word_t b = sleeper(1);
    CHECK(b != 0);
    l4_word_t a = blocked_a(b, b, L4_NILTHREAD);
    CHECK(a != 0);
    tu_kill(b);
    CHECK(reported(a, 0));
    CHECK_EQ(res_a[1], ipc_err(L4CHAN_ENOPARTNER, true));
    tu_kill(a);
}

TEST(a_revoked_partner_unblocks_its_ipc)
{
    l4_word_t b = sleeper(1);
    CHECK(b != 0);
    l4_word_t a = blocked_a(b, L4_ANYTHREAD, b);
    CHECK(a != 0);
    CHECK(res_a[0] == 1004 && tu_state(a) == 6, "res %lx state %u unexpected %lx %lx", res_a[0],
          tu_state(a), unexpected, unexpected_word);
    /* The last partner goes: the open receive ends; B again, then A sends to it. */
    CHECK(l4_channel_control(a, L4_SPACE_CTL_CHAN_REVOKE, b));
    CHECK(l4_channel_control(a, 0, b));
    settle();
    CHECK_EQ(unexpected, 0);
    CHECK(res_a[1] == ipc_err(L4CHAN_ECANCELED, true), "res %lx %lx state %u", res_a[0], res_a[1],
          tu_state(a));
    CHECK(l4_channel_control(a, L4_SPACE_CTL_CHAN_REVOKE, L4_ANYTHREAD));
    CHECK(reported(a, 0));                  /* no partner left: report is a system call */
    CHECK_EQ(res_a[3], ipc_err(L4CHAN_ECANCELED, false));
    tu_kill(a);
    tu_kill(b);
}

static void handler_loop_never(void)
{
    l4_sleep_forever();
}

/* --- string items (long IPC, docs/linux-abi.md 9.2b) ---------------------------------------- */

/* The strings' memory: A's sources and B's buffers cross page boundaries, and every page
 * is first touched by the kernel's copy (a fault to us, the pager, in the image). */
static uint8_t str_pages[4][4096] __attribute__((aligned(4096)));
#define STR_SRC   (&str_pages[0][4000])     /* 300 bytes: into page 1 */
#define STR_SRC2  (&str_pages[1][2000])
#define STR_DST   (&str_pages[2][3900])     /* into page 3 */
#define STR_DST2  (&str_pages[3][3000])
#define STR_KIP   0xBFF00000ul              /* the KIP area of our foreign spaces */
static volatile l4_word_t str_bufw[8], str_msg[8], str_acceptor;
static volatile unsigned str_nbuf;           /* ~0u: B makes no buffers call */
static volatile bool str_b_waits;           /* B first makes system call 1009 */

static void str_b_main(void)
{
    l4_word_t w[8], mr[8] = { 0 }, sender;
    for (unsigned i = 0; i < 8; i++)
        w[i] = str_bufw[i];
    if (str_b_waits)
        lx_syscall(1009);
    res_b[0] = str_nbuf == ~0u ? 0 : l4chan_buffers(str_nbuf, w, 0);
    res_b[1] = l4chan_ipc(L4CHAN_NILTHREAD, peer_a, 0, str_acceptor, mr, &sender);
    res_b[2] = mr[0];
    res_b[3] = mr[1];
    report(1);
}

static void str_a_main(void)
{
    l4_word_t mr[8];
    for (unsigned i = 0; i < 8; i++)
        mr[i] = str_msg[i];
    res_a[0] = l4chan_send(peer_b, mr);
    report(0);
}

/* Fill the sources, clear the buffers; B (buffers w[0..n-1], acceptor) and A (message m)
 * started with a plain channel (no map right: strings need none). */
static bool str_pair(unsigned n, const l4_word_t *w, l4_word_t acceptor, const l4_word_t *m,
                     l4_word_t *a, l4_word_t *b)
{
    uint8_t *src = &str_pages[0][0], *dst = &str_pages[2][0];
    for (unsigned i = 0; i < 2 * 4096; i++) {
        src[i] = (uint8_t)(i * 7 + 1);
        dst[i] = 0xEE;
    }
    for (unsigned i = 0; i < 8; i++) {
        str_bufw[i] = i < n && n != ~0u ? w[i] : 0;
        str_msg[i] = m[i];
    }
    str_nbuf = n;
    str_acceptor = acceptor;
    res_a[0] = res_b[0] = res_b[1] = res_b[2] = res_b[3] = 0xBAD;
    peer_b = *b = start(str_b_main, 1);
    peer_a = *a = *b ? start(str_a_main, 0) : 0;
    return *a && l4_channel_control(*a, 0, *b) && l4_channel_control(*b, 0, *a);
}

static bool bytes_are(const uint8_t *p, unsigned n, const uint8_t *want, uint8_t fill)
{
    for (unsigned i = 0; i < n; i++)
        if (p[i] != (want ? want[i] : fill))
            return false;
    return true;
}

TEST(a_string_arrives_whole_and_exact)
{
    /* Two strings into two buffers (the first buffer's C bit names the next), each page of
     * both sides faulted in during the copy. */
    l4_word_t w[4] = { L4CHAN_STRING_ITEM(512) | L4_ITEM_C, (l4_word_t)STR_DST,
                       L4CHAN_STRING_ITEM(64), (l4_word_t)STR_DST2 };
    l4_word_t m[8] = { l4chan_tag(0x5, 1, 4), 0x1234, L4CHAN_STRING_ITEM(300),
                       (l4_word_t)STR_SRC, L4CHAN_STRING_ITEM(20), (l4_word_t)STR_SRC2 };
    l4_word_t a, b;
    CHECK(str_pair(4, w, L4CHAN_ACCEPT_STRINGS, m, &a, &b));
    CHECK(both_reported(a, 0, b, 1), "unexpected %lx", unexpected);
    CHECK_EQ(res_b[0], 0);
    CHECK_EQ(res_a[0], 0);
    CHECK_EQ(res_b[1], 0);
    CHECK_EQ(res_b[2], l4chan_tag(0x5, 1, 4));
    CHECK_EQ(res_b[3], 0x1234);
    CHECK(bytes_are(STR_DST, 300, STR_SRC, 0));
    CHECK(bytes_are(STR_DST + 300, 212, NULL, 0xEE));  /* the rest of the buffer untouched */
    CHECK(bytes_are(STR_DST2, 20, STR_SRC2, 0));
    CHECK(bytes_are(STR_DST2 + 20, 44, NULL, 0xEE));
    tu_kill(a);
    tu_kill(b);
}

TEST(a_string_longer_than_the_buffer_overflows_with_what_fits)
{
    l4_word_t w[2] = { L4CHAN_STRING_ITEM(200), (l4_word_t)STR_DST };
    l4_word_t m[8] = { l4chan_tag(0, 0, 2), L4CHAN_STRING_ITEM(300), (l4_word_t)STR_SRC };
    l4_word_t a, b;
    CHECK(str_pair(2, w, L4CHAN_ACCEPT_STRINGS, m, &a, &b));
    CHECK(both_reported(a, 0, b, 1), "unexpected %lx", unexpected);
    CHECK_EQ(res_a[0], l4_ipc_error(L4CHAN_EOVERFLOW, false, 200));
    CHECK_EQ(res_b[1], l4_ipc_error(L4CHAN_EOVERFLOW, true, 200));
    CHECK(bytes_are(STR_DST, 200, STR_SRC, 0));
    CHECK(bytes_are(STR_DST + 200, 100, NULL, 0xEE));  /* nothing past the buffer */
    tu_kill(a);
    tu_kill(b);
}

/* The next message, which must be a transfer's page fault from t at addr (IP ~0). */
static l4_word_t fault_seen[4];            /* what copy_fault found: from, tag, address, IP */
static bool copy_fault(l4_word_t t, l4_word_t addr, bool write)
{
    l4_word_t from, tag = next_any(&from);
    fault_seen[0] = from;
    fault_seen[1] = tag;
    fault_seen[2] = l4_mr(L4_PF_ADDR);
    fault_seen[3] = l4_mr(L4_PF_IP);
    return from == t && l4_tag_is_proto(tag, L4_PROTO_PAGEFAULT) &&
           l4_mr(L4_PF_ADDR) == addr && l4_mr(L4_PF_IP) == L4_XFER_FAULT_IP &&
           !!(l4_pagefault_access(tag) & L4_W) == write;
}

TEST(a_copy_fault_goes_to_the_pager_and_a_refused_one_ends_the_ipc)
{
    l4_word_t w[2] = { L4CHAN_STRING_ITEM(512), (l4_word_t)STR_DST };
    l4_word_t m[8] = { l4chan_tag(0, 0, 2), L4CHAN_STRING_ITEM(100), NOWHERE + 8 };
    l4_word_t a, b;
    /* A's string where A has nothing: we (its pager) map probe_page there, the copy goes on. */
    for (unsigned i = 0; i < 4096; i++)
        probe_page[i] = (uint8_t)(i ^ 0x5A);
    CHECK(str_pair(2, w, L4CHAN_ACCEPT_STRINGS, m, &a, &b));
    CHECK(copy_fault(a, NOWHERE + 8, false), "from %lx (a %lx b %lx) tag %lx addr %lx ip %lx res %lx %lx %lx",
          fault_seen[0], a, b, fault_seen[1], fault_seen[2], fault_seen[3], res_a[0], res_b[0], res_b[1]);
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_RESUME, 0, 2));
    l4_set_mr(1, l4_map_item(NOWHERE));
    l4_set_mr(2, l4_fpage_log2((l4_word_t)probe_page, 12) | L4_RWX);
    CHECK(!l4_ipc_failed(l4_reply(a)));
    CHECK(both_reported(a, 0, b, 1), "unexpected %lx", unexpected);
    CHECK_EQ(res_a[0], 0);
    CHECK_EQ(res_b[1], 0);
    CHECK(bytes_are(STR_DST, 100, probe_page + 8, 0));
    tu_kill(a);
    tu_kill(b);

    /* The pager refuses (lx: what would be SIGSEGV): both IPCs end with overflow, nothing
     * was copied, and nothing retries. */
    m[2] = NOWHERE + 0x10000;
    CHECK(str_pair(2, w, L4CHAN_ACCEPT_STRINGS, m, &a, &b));
    CHECK(copy_fault(a, NOWHERE + 0x10000, false));
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_FAULT_REFUSED, 0, 0));
    CHECK(!l4_ipc_failed(l4_reply(a)));
    CHECK(both_reported(a, 0, b, 1), "unexpected %lx", unexpected);
    CHECK_EQ(res_a[0], l4_ipc_error(L4CHAN_EOVERFLOW, false, 0));
    CHECK_EQ(res_b[1], l4_ipc_error(L4CHAN_EOVERFLOW, true, 0));
    CHECK(bytes_are(STR_DST, 100, NULL, 0xEE));
    tu_kill(a);
    tu_kill(b);

    /* B's buffer where B has nothing after 96 bytes: B's fault (write), refused by its
     * pager: 96 bytes copied, overflow at 96 on both sides. */
    w[0] = L4CHAN_STRING_ITEM(96) | (1ul << 4);     /* two substrings of 96 */
    w[1] = (l4_word_t)STR_DST;
    l4_word_t w3[3] = { w[0], w[1], NOWHERE + 0x20000 };
    m[2] = (l4_word_t)STR_SRC;
    CHECK(str_pair(3, w3, L4CHAN_ACCEPT_STRINGS, m, &a, &b));
    CHECK(copy_fault(b, NOWHERE + 0x20000, true), "unexpected %lx", unexpected);
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_FAULT_REFUSED, 0, 0));
    CHECK(!l4_ipc_failed(l4_reply(b)));
    CHECK(both_reported(a, 0, b, 1), "unexpected %lx", unexpected);
    CHECK_EQ(res_a[0], l4_ipc_error(L4CHAN_EOVERFLOW, false, 96));
    CHECK_EQ(res_b[1], l4_ipc_error(L4CHAN_EOVERFLOW, true, 96));
    CHECK(bytes_are(STR_DST, 96, STR_SRC, 0));
    tu_kill(a);
    tu_kill(b);
}

TEST(a_buffer_in_the_kip_area_or_the_kernel_half_overflows)
{
    /* Two substrings of 150: the first ours, the second the KIP's: 150 bytes, then overflow
     * at 150 without a fault to the pager; a buffer in the kernel half: overflow at 0. */
    l4_word_t w[3] = { L4CHAN_STRING_ITEM(150) | (1ul << 4), (l4_word_t)STR_DST, STR_KIP };
    l4_word_t m[8] = { l4chan_tag(0, 0, 2), L4CHAN_STRING_ITEM(300), (l4_word_t)STR_SRC };
    l4_word_t a, b;
    CHECK(str_pair(3, w, L4CHAN_ACCEPT_STRINGS, m, &a, &b));
    CHECK(both_reported(a, 0, b, 1), "unexpected %lx", unexpected);
    CHECK_EQ(res_a[0], l4_ipc_error(L4CHAN_EOVERFLOW, false, 150));
    CHECK_EQ(res_b[1], l4_ipc_error(L4CHAN_EOVERFLOW, true, 150));
    CHECK(bytes_are(STR_DST, 150, STR_SRC, 0));
    CHECK(bytes_are(STR_DST + 150, 150, NULL, 0xEE));
    CHECK_EQ(((volatile l4_word_t *)l4_kip())[0], ((l4_word_t *)l4_kip())[0]);
    tu_kill(a);
    tu_kill(b);

    l4_word_t wk[2] = { L4CHAN_STRING_ITEM(300), 0xFFFF800000100000ul };
    CHECK(str_pair(2, wk, L4CHAN_ACCEPT_STRINGS, m, &a, &b));
    CHECK(both_reported(a, 0, b, 1), "unexpected %lx", unexpected);
    CHECK_EQ(res_a[0], l4_ipc_error(L4CHAN_EOVERFLOW, false, 0));
    CHECK_EQ(res_b[1], l4_ipc_error(L4CHAN_EOVERFLOW, true, 0));
    tu_kill(a);
    tu_kill(b);
}

TEST(without_buffers_a_string_is_refused)
{
    l4_word_t w[2] = { L4CHAN_STRING_ITEM(512), (l4_word_t)STR_DST };
    l4_word_t m[8] = { l4chan_tag(0, 0, 2), L4CHAN_STRING_ITEM(300), (l4_word_t)STR_SRC };
    l4_word_t a, b;
    /* Buffers, but the acceptor does not take strings: overflow at 0, the item's header in
     * the receiver's MR1 (X.2 5.6). */
    CHECK(str_pair(2, w, 0, m, &a, &b));
    CHECK(both_reported(a, 0, b, 1), "unexpected %lx", unexpected);
    CHECK_EQ(res_a[0], l4_ipc_error(L4CHAN_EOVERFLOW, false, 0));
    CHECK_EQ(res_b[1], l4_ipc_error(L4CHAN_EOVERFLOW, true, 0));
    CHECK_EQ(res_b[3], L4CHAN_STRING_ITEM(300));
    CHECK(bytes_are(STR_DST, 300, NULL, 0xEE));
    tu_kill(a);
    tu_kill(b);
    /* Strings accepted but no buffers call: BR1 is 0, a buffer of no bytes. */
    CHECK(str_pair(~0u, w, L4CHAN_ACCEPT_STRINGS, m, &a, &b));
    CHECK(both_reported(a, 0, b, 1), "unexpected %lx", unexpected);
    CHECK_EQ(res_a[0], l4_ipc_error(L4CHAN_EOVERFLOW, false, 0));
    CHECK_EQ(res_b[1], l4_ipc_error(L4CHAN_EOVERFLOW, true, 0));
    tu_kill(a);
    tu_kill(b);
    /* Nine buffer words: refused, nothing loaded. */
    l4_word_t w9[8] = { 0 };
    CHECK(str_pair(9, w9, L4CHAN_ACCEPT_STRINGS, m, &a, &b));
    CHECK(both_reported(a, 0, b, 1), "unexpected %lx", unexpected);
    CHECK_EQ(res_b[0], L4_ERR_INVALID_PARAM);
    CHECK_EQ(res_b[1], l4_ipc_error(L4CHAN_EOVERFLOW, true, 0));
    tu_kill(a);
    tu_kill(b);
}

TEST(a_waiting_string_send_survives_a_change_of_the_map_right)
{
    /* A's string waits in B's queue (B is in a system call to us); the handler names B
     * again without the map right: A keeps waiting (strings need no right), then B takes it. */
    l4_word_t w[2] = { L4CHAN_STRING_ITEM(512), (l4_word_t)STR_DST };
    l4_word_t m[8] = { l4chan_tag(0, 0, 2), L4CHAN_STRING_ITEM(300), (l4_word_t)STR_SRC };
    l4_word_t a, b, from;
    str_b_waits = true;
    CHECK(str_pair(2, w, L4CHAN_ACCEPT_STRINGS, m, &a, &b));
    l4_word_t tag = next_any(&from);
    str_b_waits = false;
    CHECK(from == b && l4_tag_is_proto(tag, L4_PROTO_FOREIGN_SYSCALL) &&
          l4_mr(L4_FSC_RAX) == 1009, "from %lx tag %lx", from, tag);
    settle();                               /* A's faults answered: it waits in B's queue */
    CHECK_EQ(unexpected, 0);
    CHECK_EQ(tu_state(a), L4_SCHEDULE_PENDING_SEND);
    CHECK(l4_channel_control(a, 0, b));
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_RESUME, 1, 0));
    l4_set_mr(1, 0);
    CHECK(!l4_ipc_failed(l4_reply(b)));
    CHECK(both_reported(a, 0, b, 1), "unexpected %lx", unexpected);
    CHECK_EQ(res_a[0], 0);
    CHECK_EQ(res_b[1], 0);
    CHECK(bytes_are(STR_DST, 300, STR_SRC, 0));
    tu_kill(a);
    tu_kill(b);
}

/* --- the control call ----------------------------------------------------------------------------- */

TEST(channel_control_checks_everything)
{
    l4_word_t me = tu_main_tid(), old;
    l4_word_t b = sleeper(1), a = sleeper(0);
    CHECK(a != 0 && b != 0);
    /* Not a foreign space (ours); with bit 63; unknown bits. */
    CHECK_EQ(l4_channel_control(me, 0, b), 0);
    CHECK_EQ(l4_error_code(), L4_ERR_INVALID_PARAM);
    CHECK_EQ(l4_space_control_foreign(a, L4_SPACE_CTL_APPLY | L4_SPACE_CTL_CHANNEL |
                                      L4_SPACE_CTL_FOREIGN, 0, 0, L4_NILTHREAD, b, &old), 0);
    CHECK_EQ(l4_error_code(), L4_ERR_INVALID_PARAM);
    CHECK_EQ(l4_channel_control(a, 1ull << 4, b), 0);
    CHECK_EQ(l4_error_code(), L4_ERR_INVALID_PARAM);
    /* A partner that does not exist; A itself (its own space). */
    CHECK_EQ(l4_channel_control(a, 0, tu_new_tid()), 0);
    CHECK_EQ(l4_error_code(), L4_ERR_INVALID_THREAD);
    CHECK_EQ(l4_channel_control(a, 0, a), 0);
    CHECK_EQ(l4_error_code(), L4_ERR_INVALID_PARAM);
    /* Up to L4_CHANNEL_PARTNERS; updating one takes no new place; revoking frees one. */
    l4_word_t partners[L4_CHANNEL_PARTNERS + 1] = { b, me, l4_sigma0_tid() };
    for (unsigned i = 3; i <= L4_CHANNEL_PARTNERS; i++) {
        partners[i] = tu_thread(handler_loop_never, 50);
        CHECK(partners[i] != 0);
    }
    for (unsigned i = 0; i < L4_CHANNEL_PARTNERS; i++)
        CHECK(l4_channel_control(a, 0, partners[i]), "partner %u", i);
    CHECK(l4_channel_control(a, L4_SPACE_CTL_CHAN_MAP, b));
    CHECK_EQ(l4_channel_control(a, 0, partners[L4_CHANNEL_PARTNERS]), 0);
    CHECK_EQ(l4_error_code(), L4_ERR_NO_MEM);
    CHECK(l4_channel_control(a, L4_SPACE_CTL_CHAN_REVOKE, me));
    CHECK(l4_channel_control(a, L4_SPACE_CTL_CHAN_REVOKE, me));     /* not there: fine */
    CHECK(l4_channel_control(a, 0, partners[L4_CHANNEL_PARTNERS]));
    for (unsigned i = 3; i <= L4_CHANNEL_PARTNERS; i++)
        tu_kill(partners[i]);
    tu_kill(a);
    tu_kill(b);
}

int main(void)
{
    tests_run("channel");
}
