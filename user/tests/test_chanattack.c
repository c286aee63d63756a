/* In-system test: an attacker's view of the foreign-thread paths (docs/linux-abi.md §9, §9.2a):
 * races a process can build around a blocked native IPC (its window or a map right changed
 * by the handler meanwhile), malformed typed items, native Unmap of the KIP.  Threads A and B
 * run in foreign spaces whose handler and pager is this thread (our image, 1:1); they report
 * with the "Linux" system call 1000 + slot, which stays unanswered.  Findings:
 * /work/notes/chanaudit.md; the rules: test_channel.c. */
#include "testlib.h"
#include "testutil.h"
#include <l4/pecan.h>
#include <l4chan.h>

#define UTCB_AREA  0xBF000000ul
#define KIP_AREA   0xBFF00000ul         /* where tu_foreign_thread puts a foreign space's KIP */
#define WINDOW     0x50000000ul         /* the window a test gives first */
#define WINDOW2    0x58000000ul         /* and the one it moves to */
#define READY      1004                 /* a script's "I am about to block" system call */

extern char __executable_start[], _end[];
static uint8_t stacks[3][8192] __attribute__((aligned(4096)));
static uint8_t page_of_b[4096] __attribute__((aligned(4096)));
static uint8_t page_of_a[4096] __attribute__((aligned(4096)));
static volatile l4_word_t peer_a, peer_b;
static volatile l4_word_t res_a[24], res_b[8];
static volatile l4_word_t fuzz_ids[10];    /* the random calls' destinations and sources */

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

static l4_word_t ipc_err(unsigned code, bool rcv)
{
    return l4_ipc_error(code, rcv, 0);
}

/* The next message that is not a page fault inside our image (those are answered 1:1 on
 * the way); its sender in *from, 0 if the receive failed. */
static l4_word_t next_msg(l4_word_t *from)
{
    l4_word_t tag = l4_wait(from);
    for (;;) {
        l4_word_t addr = l4_mr(L4_PF_ADDR) & ~0xFFFul;
        if (l4_ipc_failed(tag) || !l4_tag_is_proto(tag, L4_PROTO_PAGEFAULT) ||
            addr < (l4_word_t)__executable_start || addr >= (l4_word_t)_end)
            return l4_ipc_failed(tag) ? 0 : tag;
        (void)*(volatile char *)addr;
        l4_set_mr(0, l4_tag_make(0, 0, 2));
        l4_set_mr(1, l4_map_item(addr));
        l4_set_mr(2, l4_fpage_log2(addr, 12) | L4_RWX);
        tag = l4_ipc(*from, L4_ANYTHREAD, l4_timeouts(L4_NEVER, L4_NEVER), from);
    }
}

static bool is_report(l4_word_t tag, unsigned nr)
{
    return l4_tag_is_proto(tag, L4_PROTO_FOREIGN_SYSCALL) && l4_mr(L4_FSC_RAX) == nr;
}

/* The reports of A (slot 0) and B (slot 1), in either order; else the odd message is kept. */
static l4_word_t odd_from, odd_tag, odd_addr;

static bool both_reported(l4_word_t a, l4_word_t b)
{
    bool ra = false, rb = false;
    for (unsigned i = 0; i < 2; i++) {
        l4_word_t from, tag = next_msg(&from);
        if (!(from == a && is_report(tag, 1000)) && !(from == b && is_report(tag, 1001))) {
            odd_from = from;
            odd_tag = tag;
            odd_addr = l4_mr(L4_PF_ADDR);
            return false;
        }
        ra |= from == a;
        rb |= from == b;
    }
    return ra && rb;
}

/* Let every thread run until all are blocked, answering faults in our image; false if a
 * message of another kind came (it is lost). */
static bool settle(void)
{
    for (;;) {
        tu_wait_blocked();
        l4_word_t from, tag = l4_wait_timeout(L4_ZERO_TIME, &from);
        if (l4_ipc_failed(tag))
            return true;
        l4_word_t addr = l4_mr(L4_PF_ADDR) & ~0xFFFul;
        if (!l4_tag_is_proto(tag, L4_PROTO_PAGEFAULT) || addr < (l4_word_t)__executable_start ||
            addr >= (l4_word_t)_end)
            return false;
        (void)*(volatile char *)addr;
        l4_set_mr(0, l4_tag_make(0, 0, 2));
        l4_set_mr(1, l4_map_item(addr));
        l4_set_mr(2, l4_fpage_log2(addr, 12) | L4_RWX);
        l4_send(from);
    }
}

static void resume(l4_word_t t)
{
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_RESUME, 0, 0));
    l4_reply(t);
}

/* The threads a test started: the next test ends those a failed one left behind. */
static l4_word_t started[3];

static l4_word_t start(void (*fn)(void), unsigned stack)
{
    tu_kill(started[stack]);
    started[stack] = tu_foreign_thread(fn, (l4_word_t)&stacks[stack][8192 - 8], tu_main_tid(),
                                       UTCB_AREA);
    return started[stack];
}

/* A test's start: no thread of an earlier one is left. */
static void fresh(void)
{
    for (unsigned i = 0; i < 3; i++) {
        tu_kill(started[i]);
        started[i] = 0;
    }
}

/* B (running b_fn) stops in its READY call, unanswered; then A (a_fn) starts.  Both have the
 * map right to the other and a window of one page at WINDOW.  False if anything failed. */
static bool start_pair(void (*a_fn)(void), void (*b_fn)(void), l4_word_t *a, l4_word_t *b)
{
    for (unsigned i = 0; i < 24; i++)
        res_a[i] = 0x99;
    for (unsigned i = 0; i < 8; i++)
        res_b[i] = 0x99;
    peer_b = *b = start(b_fn, 1);
    l4_word_t from;
    if (!*b || !is_report(next_msg(&from), READY) || from != *b)
        return false;
    peer_a = *a = start(a_fn, 0);
    return *a && l4_channel_window(*a, l4_fpage_log2(WINDOW, 12)) &&
           l4_channel_window(*b, l4_fpage_log2(WINDOW, 12)) &&
           l4_channel_control(*a, L4_SPACE_CTL_CHAN_MAP, *b) &&
           l4_channel_control(*b, L4_SPACE_CTL_CHAN_MAP, *a);
}

/* --- the window moves while a call waits in its send phase -------------------------------- */

/* B, once let go: receives A's call, answers with a map of its own page. */
static void answer_with_map_b(void)
{
    (void)*(volatile l4_word_t *)page_of_b;
    lx_syscall(READY);
    l4_word_t mr[8] = { 0 }, sender;
    res_b[0] = l4chan_ipc(L4CHAN_NILTHREAD, peer_a, 0, L4CHAN_NOACCEPT, mr, &sender);
    l4_word_t map[8] = { l4chan_tag(0, 0, 2), l4_map_item((l4_word_t)page_of_b),
                         l4_fpage_log2((l4_word_t)page_of_b, 12) | L4_RWX };
    res_b[1] = l4chan_ipc(peer_a, L4CHAN_NILTHREAD, l4chan_timeouts(L4CHAN_ZERO, 0), 0, map, 0);
    report(1);
}

/* A calls B (not yet receiving), accepting a mapping anywhere: the kernel cuts that to A's
 * window.  Then it reads where its first window was. */
static void call_for_map_a(void)
{
    l4_word_t mr[8] = { l4chan_tag(0, 0, 0) };
    res_a[0] = l4chan_ipc(peer_b, peer_b, 0, L4_COMPLETE_FPAGE, mr, 0);
    res_a[1] = *(volatile l4_word_t *)WINDOW;      /* a fault to us unless B's page is there */
    report(0);
}

/* The handler moves A's window (lx reuses the old addresses) while A's call waits for B to
 * receive: the reply must not map at the old window.  On the old kernel the acceptor cut
 * to the old window at the call stayed in force for the receive phase, and B's page landed
 * at WINDOW, outside A's window and where the handler's own page would be. */
TEST(a_moved_window_cancels_a_call_waiting_to_send)
{
    fresh();
    *(volatile l4_word_t *)page_of_b = 0xB0B;
    l4_word_t a, b;
    CHECK(start_pair(call_for_map_a, answer_with_map_b, &a, &b));
    CHECK(settle());                        /* A waits in its send to B */
    CHECK_EQ(tu_state(a), 4);            /* pending send */
    CHECK(l4_channel_window(a, l4_fpage_log2(WINDOW2, 12)));
    resume(b);                              /* B receives, then answers with its page */
    l4_word_t from, tag = next_msg(&from);
    if (from == b)                          /* the old kernel: B's report after its map */
        tag = next_msg(&from);
    CHECK_EQ(from, a);
    CHECK(l4_tag_is_proto(tag, L4_PROTO_PAGEFAULT) && l4_mr(L4_PF_ADDR) == WINDOW,
          "tag %lx addr %lx: A found %lx at its old window", tag, l4_mr(L4_PF_ADDR), res_a[1]);
    CHECK_EQ(res_a[0], ipc_err(L4CHAN_ECANCELED, false));
    tu_kill(a);
    tu_kill(b);
}

/* --- the map right goes while a map waits to be sent ---------------------------------------- */

static void receive_map_b(void)
{
    lx_syscall(READY);
    l4_word_t mr[8] = { 0 }, sender;
    res_b[0] = l4chan_ipc(L4CHAN_NILTHREAD, peer_a, 0, l4_fpage_log2(WINDOW, 12), mr, &sender);
    res_b[1] = mr[0];
    res_b[2] = *(volatile l4_word_t *)WINDOW;      /* a fault to us unless A's page came */
    report(1);
}

static void send_map_a(void)
{
    (void)*(volatile l4_word_t *)page_of_a;
    l4_word_t mr[8] = { l4chan_tag(0, 0, 2), l4_map_item((l4_word_t)page_of_a),
                        l4_fpage_log2((l4_word_t)page_of_a, 12) | L4_RWX };
    res_a[0] = l4chan_send(peer_b, mr);
    report(0);
}

/* A's map item to B waits (B is busy); the handler takes A's map right to B (B keeps A's).
 * The map must not go through: the right was checked when A called, not when the message
 * left.  A's send is canceled, as for a revoked partner. */
TEST(losing_the_map_right_cancels_a_waiting_map)
{
    fresh();
    *(volatile l4_word_t *)page_of_a = 0xA0A;
    l4_word_t a, b;
    CHECK(start_pair(send_map_a, receive_map_b, &a, &b));
    CHECK(settle());
    CHECK_EQ(tu_state(a), 4);            /* pending send */
    CHECK(l4_channel_control(a, 0, b));     /* still a partner, no longer the map right */
    resume(b);                              /* B receives from A (the old kernel: the map) */
    l4_word_t from, tag = next_msg(&from);
    CHECK(from == a && is_report(tag, 1000), "from %lx tag %lx", from, tag);
    CHECK_EQ(res_a[0], ipc_err(L4CHAN_ECANCELED, false));
    CHECK(settle());                        /* B waits for A: nothing comes */
    CHECK_EQ(res_b[0], 0x99);
    tu_kill(a);
    tu_kill(b);
}

/* The same with the right intact: the map goes through (the test above is not vacuous). */
TEST(with_the_map_right_a_waiting_map_arrives)
{
    fresh();
    *(volatile l4_word_t *)page_of_a = 0xA0A;
    l4_word_t a, b;
    CHECK(start_pair(send_map_a, receive_map_b, &a, &b));
    CHECK(settle());
    CHECK(l4_channel_control(a, L4_SPACE_CTL_CHAN_MAP, b));     /* unchanged */
    resume(b);
    CHECK(both_reported(a, b), "unexpected from %lx: tag %lx addr %lx", odd_from, odd_tag,
          odd_addr);
    CHECK_EQ(res_a[0], 0);
    CHECK_EQ(res_b[0], 0);
    CHECK_EQ(res_b[2], 0xA0A);
    tu_kill(a);
    tu_kill(b);
}

/* --- malformed typed items ------------------------------------------------------------------- */

#define NBAD 10

/* B receives NBAD messages from A; res_b[0] is set if one failed but by message overflow. */
static void receive_many_b(void)
{
    lx_syscall(READY);
    for (unsigned i = 0; i < NBAD; i++) {
        l4_word_t mr[8] = { 0 }, sender;
        l4_word_t err = l4chan_ipc(L4CHAN_NILTHREAD, peer_a, 0, L4_COMPLETE_FPAGE, mr, &sender);
        res_b[0] |= err != 0 && err != ipc_err(L4CHAN_EOVERFLOW, true);
    }
    report(1);
}

/* Map items whose send fpage is nilpage, smaller than a page, the whole space, the kernel
 * half, the top page of the user area, A's KIP and UTCB areas, and a map item whose fpage
 * word is missing (t = 1), a control item, an unaligned base. */
static void send_bad_a(void)
{
    (void)*(volatile l4_word_t *)page_of_a;
    const l4_word_t fp[NBAD] = {
        L4_NILPAGE,
        l4_fpage_log2((l4_word_t)page_of_a, 11) | L4_RWX,
        L4_COMPLETE_FPAGE | L4_RWX,
        l4_fpage_log2(0xFFFF800000000000ul, 12) | L4_RWX,
        l4_fpage_log2(0x7FFFFFFFF000ul, 12) | L4_RWX,
        l4_fpage_log2(KIP_AREA, 12) | L4_RWX,
        l4_fpage_log2(UTCB_AREA, 12) | L4_RWX,
        l4_fpage_log2(0, 63) | L4_RWX,
        ((l4_word_t)page_of_a + 0x800) | (12 << 4) | L4_RWX,      /* base not aligned */
        l4_fpage_log2((l4_word_t)page_of_a, 12) | L4_RWX,
    };
    for (unsigned i = 0; i < NBAD; i++) {
        l4_word_t mr[8] = { l4chan_tag(0, 0, 2), l4_map_item(fp[i] & ~0x3FFul), fp[i] };
        if (i == NBAD - 2)
            mr[0] = l4chan_tag(0, 0, 1);    /* the fpage word is not part of the message */
        res_a[i] = l4chan_send(peer_b, mr);
    }
    report(0);
}

/* Nothing but A's own page reaches B's window (the last, good item); the KIP and the top of
 * the user area map nothing; the kernel survives every one. */
TEST(malformed_map_items_map_nothing)
{
    fresh();
    *(volatile l4_word_t *)page_of_a = 0xA0A;
    l4_word_t a, b;
    CHECK(start_pair(send_bad_a, receive_many_b, &a, &b));
    CHECK(l4_channel_window(b, l4_fpage_log2(WINDOW, 16)));
    res_b[0] = 0;
    resume(b);
    CHECK(both_reported(a, b), "unexpected from %lx: tag %lx addr %lx", odd_from, odd_tag,
          odd_addr);
    CHECK_EQ(res_b[0], 0);
    for (unsigned i = 0; i < NBAD; i++)
        CHECK(res_a[i] == 0 || res_a[i] == ipc_err(L4CHAN_EOVERFLOW, false), "item %u: %lx", i,
              res_a[i]);
    tu_kill(a);
    tu_kill(b);
}

/* --- native Unmap cannot remove the KIP ---------------------------------------------------- */

static void unmap_kip_a(void)
{
    res_a[0] = *(volatile uint32_t *)KIP_AREA;
    l4_word_t fp[8] = { l4_fpage_log2(KIP_AREA, 12) | L4_RWX, L4_COMPLETE_FPAGE | L4_RWX,
                        l4_fpage_log2(KIP_AREA, 20) | L4_RWX, l4_fpage_log2(UTCB_AREA, 12) | L4_RWX };
    res_a[1] = l4chan_unmap(3 | L4CHAN_UNMAP_FLUSH, fp);
    res_a[2] = *(volatile uint32_t *)KIP_AREA;     /* a fault to us if it went */
    res_a[3] = fp[0];
    l4_word_t k[8] = { l4_fpage_log2(KIP_AREA, 12) | L4_RWX };
    res_a[4] = l4chan_unmap(63 | L4CHAN_UNMAP_FLUSH, k);    /* k > 7 */
    res_a[5] = k[0];
    report(0);
}

TEST(native_unmap_leaves_the_kip)
{
    fresh();
    res_a[0] = 0x99;
    l4_word_t a = start(unmap_kip_a, 0);
    CHECK(a != 0);
    CHECK(l4_channel_control(a, 0, l4_sigma0_tid()));      /* a partner that never sends */
    l4_word_t from, tag = next_msg(&from);
    CHECK(from == a && is_report(tag, 1000), "from %lx tag %lx addr %lx", from, tag,
          l4_mr(L4_PF_ADDR));
    CHECK_EQ(res_a[0], *(volatile uint32_t *)l4_kip());
    CHECK_EQ(res_a[1], 0);
    CHECK_EQ(res_a[2], res_a[0]);
    CHECK_EQ(res_a[3], l4_fpage_log2(KIP_AREA, 12));      /* no status: not a mapping */
    CHECK_EQ(res_a[4], L4_ERR_INVALID_PARAM);
    CHECK_EQ(res_a[5], l4_fpage_log2(KIP_AREA, 12) | L4_RWX);
    tu_kill(a);
}

/* --- registers the kernel does not expect ------------------------------------------------- */

/* One native IPC (a closed receive from hostile_in[0], timeouts hostile_in[1]) with RSP
 * non-canonical, DF and AC set, a nonsense acceptor in RBP; what came back in hostile_out:
 * RSP, RBP, RCX, R11, RAX, RSI, RDX, R8.  Callee-saved registers are kept on the stack. */
l4_word_t hostile_in[2], hostile_out[8];
void hostile_ipc(void);
extern char hostile_after_syscall[];
__asm__(".text\n"
        "hostile_ipc:\n"
        "    pushq %rbx\n    pushq %rbp\n    pushq %r12\n"
        "    pushq %r13\n    pushq %r14\n    pushq %r15\n"
        "    movq %rsp, hostile_saved_rsp(%rip)\n"
        "    pushfq\n    orq $0x40400, (%rsp)\n    popfq\n"     /* AC, DF */
        "    movq $0x4C3400, %rax\n"
        "    xorl %esi, %esi\n"
        "    movq hostile_in(%rip), %rdx\n"
        "    movq hostile_in+8(%rip), %r8\n"
        "    xorl %r9d, %r9d\n"
        "    movabsq $0x123456789abcdef7, %rbp\n"
        "    movabsq $0x8000000000000000, %rsp\n"
        "    syscall\n"
        "hostile_after_syscall:\n"
        "    movq %rsp, hostile_out(%rip)\n"
        "    movq %rbp, hostile_out+8(%rip)\n"
        "    movq %rcx, hostile_out+16(%rip)\n"
        "    movq %r11, hostile_out+24(%rip)\n"
        "    movq %rax, hostile_out+32(%rip)\n"
        "    movq %rsi, hostile_out+40(%rip)\n"
        "    movq %rdx, hostile_out+48(%rip)\n"
        "    movq %r8, hostile_out+56(%rip)\n"
        "    movq hostile_saved_rsp(%rip), %rsp\n"
        "    cld\n    pushfq\n    andq $~0x40000, (%rsp)\n    popfq\n"
        "    popq %r15\n    popq %r14\n    popq %r13\n"
        "    popq %r12\n    popq %rbp\n    popq %rbx\n"
        "    ret\n"
        ".bss\n.balign 8\nhostile_saved_rsp: .quad 0\n.text\n");

static void hostile_a(void)
{
    hostile_ipc();
    for (unsigned i = 0; i < 8; i++)
        res_a[i] = hostile_out[i];
    report(0);
}

static void hostile_run(uint16_t rcv_timeout)
{
    hostile_in[0] = l4_sigma0_tid();        /* a partner that never sends */
    hostile_in[1] = l4chan_timeouts(0, rcv_timeout);
    l4_word_t a = start(hostile_a, 0);
    CHECK(a != 0);
    CHECK(l4_channel_control(a, 0, l4_sigma0_tid()));
    l4_word_t from, tag = next_msg(&from);
    CHECK(from == a && is_report(tag, 1000), "from %lx tag %lx addr %lx", from, tag,
          l4_mr(L4_PF_ADDR));
    CHECK_EQ(res_a[0], 0x8000000000000000ul);          /* RSP as it was */
    CHECK_EQ(res_a[1], 0x123456789abcdef7ul);          /* RBP kept */
    CHECK_EQ(res_a[2], (l4_word_t)hostile_after_syscall);
    CHECK_EQ(res_a[3] & 0x40400, 0x40400);              /* R11: the flags, AC and DF */
    CHECK_EQ(res_a[4], ipc_err(L4CHAN_ETIMEOUT, true));
    CHECK_EQ(res_a[5], L4_NILTHREAD);
    CHECK_EQ(res_a[6], l4_sigma0_tid());
    CHECK_EQ(res_a[7], hostile_in[1]);
    tu_kill(a);
}

/* Returned at once (zero timeout) and after blocking (1 ms: another thread ran between). */
TEST(a_native_ipc_with_a_noncanonical_rsp_and_odd_flags_returns_intact)
{
    fresh();
    hostile_run(L4_ZERO_TIME);
    hostile_run(0x03E8);
}

/* --- random native IPC and Unmap ---------------------------------------------------------- */

#define FUZZ_CALLS 1000

static l4_word_t fuzz_state = 0x9E3779B97F4A7C15ul;

static l4_word_t fuzz_next(void)
{
    fuzz_state ^= fuzz_state << 13;
    fuzz_state ^= fuzz_state >> 7;
    fuzz_state ^= fuzz_state << 17;
    return fuzz_state;
}

static l4_word_t fuzz_pick(const l4_word_t *pool, unsigned n)
{
    return pool[fuzz_next() % n];
}

/* An fpage: a page of A's, the window, the KIP, the UTCB area, the top of the user area, the
 * kernel half, nilpage, the complete space, or random bits. */
static l4_word_t fuzz_fpage(void)
{
    const l4_word_t bases[] = { (l4_word_t)page_of_a, (l4_word_t)stacks[0], WINDOW, KIP_AREA,
                                UTCB_AREA, 0x7FFFFFFFF000ul, 0xFFFF800000000000ul, 0 };
    l4_word_t r = fuzz_next();
    switch (r % 4) {
    case 0:  return L4_NILPAGE | (r >> 8 & 7);
    case 1:  return L4_COMPLETE_FPAGE | (r >> 8 & 7);
    case 2:  return fuzz_next();
    default: return l4_fpage_log2(fuzz_pick(bases, 8), 10 + (r >> 8) % 40) | (r >> 16 & 7);
    }
}

/* A message word: a map, grant, string or control item, or anything. */
static l4_word_t fuzz_word(void)
{
    const l4_word_t types[] = { 0x8, 0xA, 0x0, 0x1, 0x6, 0xE };
    l4_word_t r = fuzz_next();
    return r % 3 ? (fuzz_fpage() & ~0xFul) | fuzz_pick(types, 6) : r;
}

/* A thread of its own that calls native IPC and Unmap with random registers: destinations and
 * sources from the specials and its partners, tags with u + t up to 9, items of every type,
 * acceptors, timeouts that never wait long.  res_a: calls made, odd results, the last one. */
static void fuzz_a(void)
{
    l4_word_t ids[10];
    for (unsigned k = 0; k < 10; k++)
        ids[k] = fuzz_ids[k];
    const l4_word_t times[] = { L4_ZERO_TIME, 0x0001, 0x0064, 0x8000 | 0x0400 };
    unsigned odd = 0;
    for (unsigned i = 0; i < FUZZ_CALLS; i++) {
        l4_word_t mr[8];
        for (unsigned k = 1; k < 8; k++)
            mr[k] = fuzz_word();
        l4_word_t r = fuzz_next();
        if (r % 8 == 0) {
            l4_word_t err = l4chan_unmap((unsigned)(r >> 8) & 0x7F, mr);
            odd += err != 0 && err != L4_ERR_INVALID_PARAM;
            continue;
        }
        mr[0] = l4chan_tag(r >> 16 & 0xFFFF, (unsigned)(r >> 32) % 8, (unsigned)(r >> 40) % 4 & 2);
        unsigned u = (unsigned)(r >> 32) % 8;
        if (u <= 5 && (r >> 56 & 1) && (mr[0] >> 6 & 0x3F) == 2) {
            mr[u + 1] = l4_map_item(fuzz_fpage());     /* a well-formed map item */
            mr[u + 2] = fuzz_fpage();
        }
        l4_word_t to = r >> 48 & 1 ? ids[0] : fuzz_pick(ids, 10), from = fuzz_pick(ids, 10);
        if (from == peer_b && to != peer_b)
            from = L4_NILTHREAD;            /* B never sends: a closed wait would be for ever */
        l4_word_t t = l4chan_timeouts((uint16_t)fuzz_pick(times, 4), (uint16_t)fuzz_pick(times, 4));
        l4_word_t err = l4chan_ipc(to, from, t, fuzz_fpage(), mr, 0);
        unsigned code = (err >> 1) & 7;
        if (err && code != L4CHAN_ETIMEOUT && code != L4CHAN_ENOPARTNER &&
            code != L4CHAN_EOVERFLOW) {
            odd++;
            res_a[2] = err;
        }
        res_a[0] = i + 1;
    }
    res_a[1] = odd;
    report(0);
}

/* B receives from A for ever, into its window (acceptors of every size); it counts what came. */
static void fuzz_b(void)
{
    lx_syscall(READY);
    for (unsigned n = 0;; n++) {
        l4_word_t mr[8] = { 0 }, sender;
        l4_word_t acceptor = n % 5 ? l4_fpage_log2(WINDOW, 12 + n % 20) : L4_COMPLETE_FPAGE;
        if (!l4chan_ipc(L4CHAN_NILTHREAD, L4CHAN_ANYTHREAD, 0, acceptor, mr, &sender))
            res_b[3]++;
    }
}

static void never_receives_c(void)
{
    report(2);
}

TEST(random_native_ipc_and_unmap_keep_the_kernel_whole)
{
    fresh();
    l4_word_t c = start(never_receives_c, 2), from;
    CHECK(c != 0);
    l4_word_t tag = next_msg(&from);
    CHECK(from == c && is_report(tag, 1002));
    l4_word_t a, b;
    CHECK(start_pair(fuzz_a, fuzz_b, &a, &b));
    CHECK(l4_channel_control(a, L4_SPACE_CTL_CHAN_MAP, c));   /* a partner that never receives */
    CHECK(l4_channel_window(a, l4_fpage_log2(WINDOW, 16)));
    CHECK(l4_channel_window(b, l4_fpage_log2(WINDOW, 16)));
    const l4_word_t ids[10] = { b, c, L4_NILTHREAD, L4_ANYTHREAD, L4_ANYLOCALTHREAD, UTCB_AREA,
                                tu_main_tid(), l4_sigma0_tid(), a,
                                l4_global_id(l4_thread_no(b), l4_version(b) + 1) };
    for (unsigned k = 0; k < 10; k++)
        fuzz_ids[k] = ids[k];
    res_b[3] = 0;
    resume(b);
    tag = next_msg(&from);
    CHECK(from == a && is_report(tag, 1000), "from %lx tag %lx addr %lx", from, tag,
          l4_mr(L4_PF_ADDR));
    CHECK_EQ(res_a[0], FUZZ_CALLS);
    CHECK(res_a[1] == 0, "%lu odd results, the last %lx", res_a[1], res_a[2]);
    CHECK(res_b[3] > 0);                    /* some messages went through */
    tu_kill(a);
    tu_kill(b);
    tu_kill(c);
}

/* --- I/O ports do not come through a channel -------------------------------------------- */

#define PORT 0x80                       /* the POST port: nothing listens in QEMU */

static void receive_port_b(void)
{
    lx_syscall(READY);
    l4_word_t mr[8] = { 0 }, sender;
    res_b[0] = l4chan_ipc(L4CHAN_NILTHREAD, L4CHAN_ANYTHREAD, 0, L4_COMPLETE_FPAGE, mr, &sender);
    uint8_t v;
    __asm__ volatile("inb %1, %0" : "=a"(v) : "i"(PORT));  /* #GP without the port */
    res_b[1] = v;
    report(1);
}

/* An ordinary X.2 partner with the map right (here: us) that holds a port sends it in a map
 * item to a native receive.  X.2 accepts I/O fpages whatever the window (§6.7); a foreign
 * space's native receive takes mappings into its window only (§9.2), and a Linux process with
 * a port could drive the device behind it.  The old kernel mapped the port. */
TEST(a_native_receive_takes_no_io_ports)
{
    fresh();
    CHECK(l4_sigma0_get_ports(l4_sigma0_tid(), l4_io_fpage(PORT, 0)));
    res_b[0] = res_b[1] = 0x99;
    peer_b = 0;
    l4_word_t b = start(receive_port_b, 1), from;
    CHECK(b != 0);
    peer_b = b;
    CHECK(is_report(next_msg(&from), READY) && from == b);
    CHECK(l4_channel_window(b, l4_fpage_log2(WINDOW, 12)));
    CHECK(l4_channel_control(b, L4_SPACE_CTL_CHAN_MAP, tu_main_tid()));
    resume(b);
    CHECK(settle());                        /* B waits in its native receive */
    l4_set_mr(0, l4_tag_make(0, 0, 2));
    l4_set_mr(1, l4_map_item(0));
    l4_set_mr(2, l4_io_fpage(PORT, 0) | L4_RWX);
    l4_word_t sent = l4_send_timeout(b, L4_ZERO_TIME);
    CHECK(l4_ipc_failed(sent) && l4_error_code() == ipc_err(L4CHAN_EOVERFLOW, false),
          "tag %lx error %lx", sent, l4_error_code());
    l4_word_t tag = next_msg(&from);
    /* A foreign thread's port access it lacks is the #GP it is on Linux, to its handler. */
    CHECK(from == b && l4_tag_is_proto(tag, L4_PROTO_FOREIGN_EXCEPTION) &&
          l4_mr(L4_FEXC_VECTOR) == 13, "from %lx tag %lx: B read port %lx", from, tag, res_b[1]);
    CHECK_EQ(res_b[0], ipc_err(L4CHAN_EOVERFLOW, true));
    tu_kill(b);
}

/* --- the map path: a window over the KIP, a page replaced ---------------------------------- */

static uint8_t block_of_a[16][4096] __attribute__((aligned(65536)));

/* A maps 64 KiB of its own (block_of_a, touched first) to B. */
static void map_block_a(void)
{
    for (unsigned i = 0; i < 16; i++)
        (void)*(volatile l4_word_t *)block_of_a[i];
    l4_word_t mr[8] = { l4chan_tag(0, 0, 2), l4_map_item((l4_word_t)block_of_a),
                        l4_fpage_log2((l4_word_t)block_of_a, 16) | L4_RWX };
    res_a[0] = l4chan_send(peer_b, mr);
    report(0);
}

/* B's window is the 64 KiB from its KIP on: the KIP page stays the KIP, the other 15 pages are
 * A's (a map item with a KIP page in its destination goes page by page, not whole). */
static void receive_over_kip_b(void)
{
    lx_syscall(READY);
    l4_word_t mr[8] = { 0 }, sender;
    res_b[0] = l4chan_ipc(L4CHAN_NILTHREAD, peer_a, 0, L4_COMPLETE_FPAGE, mr, &sender);
    res_b[1] = *(volatile uint32_t *)KIP_AREA;
    res_b[2] = *(volatile l4_word_t *)(KIP_AREA + 0x1000);
    res_b[3] = *(volatile l4_word_t *)(KIP_AREA + 0xF000);
    report(1);
}

TEST(a_window_over_the_kip_keeps_the_kip)
{
    fresh();
    for (unsigned i = 0; i < 16; i++)
        *(volatile l4_word_t *)block_of_a[i] = 0xB10C00 + i;
    l4_word_t a, b;
    CHECK(start_pair(map_block_a, receive_over_kip_b, &a, &b));
    CHECK(l4_channel_window(b, l4_fpage_log2(KIP_AREA, 16)));
    resume(b);
    CHECK(both_reported(a, b), "unexpected from %lx: tag %lx addr %lx", odd_from, odd_tag,
          odd_addr);
    CHECK_EQ(res_a[0], 0);
    CHECK_EQ(res_b[0], 0);
    CHECK_EQ(res_b[1], *(volatile uint32_t *)l4_kip());
    CHECK_EQ(res_b[2], 0xB10C01);
    CHECK_EQ(res_b[3], 0xB10C0F);
    tu_kill(a);
    tu_kill(b);
}

/* A maps page_of_a to B's window, B reads it (its TLB may hold it), then A maps block_of_a[0]
 * to the same place: the old mapping is removed and the new one installed in one map call;
 * B must read the new page. */
static void remap_a(void)
{
    (void)*(volatile l4_word_t *)page_of_a;
    (void)*(volatile l4_word_t *)block_of_a[0];
    l4_word_t mr[8] = { l4chan_tag(0, 0, 2), l4_map_item((l4_word_t)page_of_a),
                        l4_fpage_log2((l4_word_t)page_of_a, 12) | L4_RWX };
    res_a[0] = l4chan_call(peer_b, mr);
    l4_word_t mr2[8] = { l4chan_tag(0, 0, 2), l4_map_item((l4_word_t)block_of_a[0]),
                         l4_fpage_log2((l4_word_t)block_of_a[0], 12) | L4_RWX };
    res_a[1] = l4chan_send(peer_b, mr2);
    report(0);
}

static void read_twice_b(void)
{
    lx_syscall(READY);
    l4_word_t mr[8] = { 0 }, sender;
    res_b[0] = l4chan_ipc(L4CHAN_NILTHREAD, peer_a, 0, l4_fpage_log2(WINDOW, 12), mr, &sender);
    res_b[1] = *(volatile l4_word_t *)WINDOW;
    *(volatile l4_word_t *)(WINDOW + 8) = 0x1;                /* dirty, writable in the TLB */
    mr[0] = l4chan_tag(0, 0, 0);
    res_b[2] = l4chan_ipc(peer_a, peer_a, 0, l4_fpage_log2(WINDOW, 12), mr, &sender);
    res_b[3] = *(volatile l4_word_t *)WINDOW;
    report(1);
}

TEST(a_page_replaced_in_one_map_reads_new)
{
    fresh();
    *(volatile l4_word_t *)page_of_a = 0xA0A;
    *(volatile l4_word_t *)block_of_a[0] = 0xB10C00;
    l4_word_t a, b;
    CHECK(start_pair(remap_a, read_twice_b, &a, &b));
    resume(b);
    CHECK(both_reported(a, b), "unexpected from %lx: tag %lx addr %lx", odd_from, odd_tag,
          odd_addr);
    CHECK_EQ(res_a[0], 0);
    CHECK_EQ(res_a[1], 0);
    CHECK_EQ(res_b[0], 0);
    CHECK_EQ(res_b[1], 0xA0A);
    CHECK_EQ(res_b[2], 0);
    CHECK_EQ(res_b[3], 0xB10C00);
    CHECK_EQ(*(volatile l4_word_t *)(page_of_a + 8), 0x1);    /* B's write went to A's page */
    tu_kill(a);
    tu_kill(b);
}

/* --- a native IPC from the last two bytes of the user area ---------------------------------- */

#define TOP_PAGE 0x7FFFFFFFF000ul
static uint8_t top_code[4096] __attribute__((aligned(4096)));

/* `syscall` at 0x7FFFFFFFFFFE: the CPU leaves RCX = 2^47, not canonical, which sysret would
 * fault on in the kernel (on Intel, with the user's RSP: the classic sysret hole). */
static void top_syscall_a(void)
{
    __asm__ volatile("xorl %%esi, %%esi\n\txorl %%edx, %%edx\n\t"
                     "movabsq $0x7FFFFFFFFFFE, %%rcx\n\tjmp *%%rcx"
                     : : "a"(0x4C3400ul) : "rcx", "rsi", "rdx", "memory");
    __builtin_unreachable();
}

/* Neither phase (to and from nilthread): the call returns at once, to 2^47.  The thread gets
 * the #GP it would get on Linux there (a foreign exception to its handler), and the kernel
 * does not fault. */
TEST(a_native_ipc_returning_to_a_noncanonical_rip_is_the_threads_fault)
{
    fresh();
    top_code[0xFFE] = 0x0F;                 /* syscall */
    top_code[0xFFF] = 0x05;
    l4_word_t a = start(top_syscall_a, 0), from;
    CHECK(a != 0);
    CHECK(l4_channel_control(a, 0, l4_sigma0_tid()));
    l4_word_t tag = next_msg(&from);        /* A fetches from the top page: ours to give */
    CHECK(from == a && l4_tag_is_proto(tag, L4_PROTO_PAGEFAULT) &&
          (l4_mr(L4_PF_ADDR) & ~0xFFFul) == TOP_PAGE, "tag %lx addr %lx", tag, l4_mr(L4_PF_ADDR));
    l4_set_mr(0, l4_tag_make(0, 0, 2));
    l4_set_mr(1, l4_map_item(TOP_PAGE));
    l4_set_mr(2, l4_fpage_log2((l4_word_t)top_code, 12) | L4_R | L4_X);
    tag = l4_ipc(a, L4_ANYTHREAD, l4_timeouts(L4_NEVER, L4_NEVER), &from);
    while (!l4_ipc_failed(tag) && l4_tag_is_proto(tag, L4_PROTO_PAGEFAULT) &&
           l4_mr(L4_PF_ADDR) >= (l4_word_t)__executable_start && l4_mr(L4_PF_ADDR) < (l4_word_t)_end) {
        l4_word_t addr = l4_mr(L4_PF_ADDR) & ~0xFFFul;
        l4_set_mr(0, l4_tag_make(0, 0, 2));
        l4_set_mr(1, l4_map_item(addr));
        l4_set_mr(2, l4_fpage_log2(addr, 12) | L4_RWX);
        tag = l4_ipc(from, L4_ANYTHREAD, l4_timeouts(L4_NEVER, L4_NEVER), &from);
    }
    CHECK(from == a && l4_tag_is_proto(tag, L4_PROTO_FOREIGN_EXCEPTION), "tag %lx", tag);
    CHECK_EQ(l4_mr(L4_FEXC_VECTOR), 13);
    CHECK_EQ(l4_mr(L4_FREG_RIP), 0x800000000000ul);
    CHECK_EQ(l4_mr(L4_FREG_RAX), 0);        /* the IPC itself succeeded: neither phase */
    tu_kill(a);
}

int main(void)
{
    tests_run("chanattack");
}
