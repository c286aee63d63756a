/* Helpers for in-system tests (see testutil.h). */
#include "testutil.h"
#include <l4/pecan.h>
#include <string.h>
#include <stdio.h>

#define MAX_STACKS 48
#define QUIET_LABEL 0x0DE7
#define UTCB_BASE 0xBF000000ul

extern char __executable_start[], _end[];

static uint8_t stacks[MAX_STACKS][TU_STACK_SIZE] __attribute__((aligned(16)));
static unsigned next_stack, next_number, next_utcb_slot = 1;
static l4_word_t main_tid, quiet_tid, quiet_local;
static bool quiet_waiting;          /* the quiet thread waits for our reply */
l4_word_t tu_last_fault_from, tu_last_fault_addr, tu_last_fault_tag;

l4_word_t tu_main_tid(void)
{
    if (!main_tid)
        main_tid = l4_my_global_id();
    return main_tid;
}

l4_word_t tu_new_tid(void)
{
    return l4_global_id(l4_kip_user_base() + 3 + next_number++, 1);
}

unsigned tu_fill_spaces(l4_word_t *tids, unsigned max)
{
    l4_word_t me = l4_my_global_id(), old;
    unsigned n = 0;
    for (; n < max; n++) {
        l4_word_t t = tu_new_tid();
        if (!l4_thread_control(t, t, me, 0, ~0ul))
            break;
        tids[n] = t;
        if (!l4_space_control(t, 0, l4_fpage_log2(0xBFF00000, 12), l4_fpage_log2(0xBF000000, 12), 0, &old) ||
            !l4_thread_control(t, t, 0, me, 0xBF000000)) {
            n++;
            break;
        }
    }
    return n;
}

static l4_word_t stack_top(void)
{
    if (next_stack == MAX_STACKS)
        next_stack = 0;                 /* tests run one after another; reuse */
    /* Touch the stack so that threads of our own space never fault on it. */
    for (unsigned off = 0; off < TU_STACK_SIZE; off += 4096)
        ((volatile uint8_t *)stacks[next_stack])[off] = 0;
    return (l4_word_t)&stacks[next_stack++][TU_STACK_SIZE];
}

static void set_prio(l4_word_t tid, unsigned prio)
{
    l4_word_t old;
    l4_schedule(tid, ~0ul, ~0ul, prio, ~0ul, &old);
}

static bool handle_fault(l4_word_t from, l4_word_t tag, bool *answered);

l4_word_t tu_thread_create(unsigned prio)
{
    l4_word_t me = tu_main_tid(), tid = tu_new_tid();
    l4_word_t utcb = UTCB_BASE + (next_utcb_slot++ % 255 + 1) * 1024;
    if (!l4_thread_control(tid, me, me, me, utcb))
        return 0;
    set_prio(tid, prio);
    return tid;
}

void tu_start(l4_word_t tid, void (*fn)(void))
{
    /* The start message: MR1 = IP, MR2 = SP, from the pager (us). */
    l4_set_mr(0, l4_tag_make(0, 2, 0));
    l4_set_mr(1, (l4_word_t)fn);
    l4_set_mr(2, stack_top() - 8);
    l4_send(tid);
}

l4_word_t tu_thread(void (*fn)(void), unsigned prio)
{
    l4_word_t tid = tu_thread_create(prio);
    if (tid)
        tu_start(tid, fn);
    return tid;
}

#define PREMAP_LABEL 0x0DE8

/* A thread in a fresh space starts here with fn on its stack: it asks us for our whole image
 * (so it never faults on it afterwards), then runs fn. */
void tu_premap(void);
__asm__(".text\n"
        ".global tu_trampoline\n"
        "tu_trampoline:\n"
        "    popq %rbx\n"
        "    call tu_premap\n"
        "    call *%rbx\n"
        "1:  jmp 1b\n");
extern char tu_trampoline[];

void tu_premap(void)
{
    l4_set_br(0, L4_COMPLETE_FPAGE);
    l4_set_mr(0, l4_tag_make(PREMAP_LABEL, 0, 0));
    l4_call(tu_main_tid());
}

/* Map [start, end) of our space 1:1 into the caller's reply, as aligned fpages. */
static void reply_image(void)
{
    l4_word_t start = (l4_word_t)__executable_start & ~0xFFFul;
    l4_word_t end = ((l4_word_t)_end + 0xFFF) & ~0xFFFul;
    for (l4_word_t p = start; p < end; p += 4096)
        (void)*(volatile char *)p;              /* have every page ourselves */
    unsigned n = 0;
    for (l4_word_t p = start; p < end && n < 30; n++) {
        unsigned log2 = 12;
        while (!(p & ((1ul << (log2 + 1)) - 1)) && p + (1ul << (log2 + 1)) <= end)
            log2++;
        l4_set_mr(1 + 2 * n, l4_map_item(p));
        l4_set_mr(2 + 2 * n, l4_fpage_log2(p, log2) | L4_RWX);
        p += 1ul << log2;
    }
    l4_set_mr(0, l4_tag_make(0, 0, 2 * n));
}

l4_word_t tu_space_thread(void (*fn)(void), unsigned prio)
{
    return tu_space_thread_utcb(fn, prio, UTCB_BASE);
}

l4_word_t tu_space_thread_utcb(void (*fn)(void), unsigned prio, l4_word_t utcb)
{
    return tu_space_thread_id(tu_new_tid(), fn, prio, utcb);
}

l4_word_t tu_space_thread_id(l4_word_t tid, void (*fn)(void), unsigned prio, l4_word_t utcb)
{
    l4_word_t me = tu_main_tid(), old;
    if (!l4_thread_control(tid, tid, me, 0, ~0ul))
        return 0;
    if (!l4_space_control(tid, 0, l4_fpage_log2(0xBFF00000ul, 12), l4_fpage_log2(utcb, 12), 0, &old))
        return 0;
    if (!l4_thread_control(tid, tid, 0, me, utcb))
        return 0;
    set_prio(tid, prio);
    l4_word_t sp = stack_top() - 16;
    *(l4_word_t *)sp = (l4_word_t)fn;
    l4_set_mr(0, l4_tag_make(0, 2, 0));
    l4_set_mr(1, (l4_word_t)tu_trampoline);
    l4_set_mr(2, sp);
    l4_send(tid);
    /* Serve its first faults until it asks for the image. */
    l4_word_t from, tag = l4_receive(tid);
    from = tid;
    while (!l4_ipc_failed(tag) && l4_tag_label(tag) != PREMAP_LABEL) {
        bool answered;
        if (handle_fault(from, tag, &answered) && answered)
            tag = l4_ipc(tid, tid, 0, &from);
        else
            return 0;
    }
    if (l4_ipc_failed(tag))
        return 0;
    reply_image();
    l4_reply(tid);
    return tid;
}

l4_word_t tu_foreign_thread(void (*fn)(void), l4_word_t sp, l4_word_t handler, l4_word_t utcb)
{
    l4_word_t me = tu_main_tid(), tid = tu_new_tid(), old;
    if (!l4_thread_control(tid, tid, me, 0, ~0ul))
        return 0;
    if (!l4_space_control_foreign(tid, L4_SPACE_CTL_APPLY | L4_SPACE_CTL_FOREIGN,
                                  l4_fpage_log2(0xBFF00000ul, 12), l4_fpage_log2(utcb, 12), 0,
                                  handler, &old))
        return 0;
    if (!l4_thread_control(tid, tid, 0, me, utcb))
        return 0;
    set_prio(tid, 100);
    l4_set_mr(0, l4_tag_make(0, 2, 0));
    l4_set_mr(1, (l4_word_t)fn);
    l4_set_mr(2, sp);
    if (l4_ipc_failed(l4_send(tid)))
        return 0;
    return tid;
}

l4_word_t tu_foreign_serve(l4_word_t t, l4_word_t tag)
{
    return tu_foreign_serve_timeouts(t, tag, 0);
}

l4_word_t tu_foreign_serve_timeouts(l4_word_t t, l4_word_t tag, l4_word_t timeouts)
{
    for (;;) {
        if (l4_ipc_failed(tag))
            return 0;
        l4_word_t addr = l4_mr(L4_PF_ADDR);
        if (!l4_tag_is_proto(tag, L4_PROTO_PAGEFAULT) ||
            addr < (l4_word_t)__executable_start || addr >= (l4_word_t)_end)
            return tag;
        l4_word_t page = addr & ~0xFFFul, from;
        (void)*(volatile char *)page;
        l4_set_mr(0, l4_tag_make(0, 0, 2));
        l4_set_mr(1, l4_map_item(page));
        l4_set_mr(2, l4_fpage_log2(page, 12) | L4_RWX);
        tag = l4_ipc(t, t, timeouts, &from);
    }
}

static void quiet_thread(void)
{
    for (;;) {
        l4_set_mr(0, l4_tag_make(QUIET_LABEL, 0, 0));
        l4_call(tu_main_tid());
    }
}

/* Answer a fault if it concerns our image; false if not a fault. */
/* Pages of the window in children map to tu_window_backing (see testutil.h). */
uint8_t tu_window_backing[TU_WINDOW_SIZE] __attribute__((aligned(4096)));
l4_word_t tu_window_refuse_from = ~0ul;

static bool handle_fault(l4_word_t from, l4_word_t tag, bool *answered)
{
    *answered = false;
    if (l4_tag_is_proto(tag, L4_PROTO_IO_PAGEFAULT)) {
        l4_word_t fp = l4_mr(L4_PF_ADDR);
        l4_sigma0_get_ports(l4_sigma0_tid(), fp);
        l4_set_mr(0, l4_tag_make(0, 0, 2));
        l4_set_mr(1, l4_map_item(0));
        l4_set_mr(2, fp);
        *answered = true;
        return true;
    }
    if (!l4_tag_is_proto(tag, L4_PROTO_PAGEFAULT))
        return false;
    l4_word_t addr = l4_mr(L4_PF_ADDR);
    unsigned access = l4_pagefault_access(tag);
    if (addr >= TU_WINDOW && addr < TU_WINDOW + TU_WINDOW_SIZE && addr < tu_window_refuse_from) {
        l4_word_t page = addr & ~0xFFFul;
        l4_word_t mine = (l4_word_t)tu_window_backing + (page - TU_WINDOW);
        (void)*(volatile char *)mine;
        l4_set_mr(0, l4_tag_make(0, 0, 2));
        l4_set_mr(1, l4_map_item(page));
        l4_set_mr(2, l4_fpage_log2(mine, 12) | L4_RWX);
        *answered = true;
        return true;
    }
    if (addr >= (l4_word_t)__executable_start && addr < (l4_word_t)_end && !(access & L4_X && addr >= (l4_word_t)stacks)) {
        l4_word_t page = addr & ~0xFFFul;
        (void)*(volatile char *)page;           /* have it ourselves first */
        l4_set_mr(0, l4_tag_make(0, 0, 2));
        l4_set_mr(1, l4_map_item(page));
        l4_set_mr(2, l4_fpage_log2(page, 12) | L4_RWX);
        *answered = true;
    } else {
        tu_last_fault_from = from;
        tu_last_fault_addr = addr;
        tu_last_fault_tag = tag;
    }
    return true;
}

l4_word_t tu_serve(l4_word_t *from)
{
    return tu_serve_continue(l4_wait(from), from);
}

l4_word_t tu_serve_continue(l4_word_t tag, l4_word_t *from)
{
    for (;;) {
        bool answered;
        if (l4_ipc_failed(tag)) {
            tag = l4_wait(from);
            continue;
        }
        if (!handle_fault(*from, tag, &answered))
            return tag;
        tag = answered ? l4_reply_wait(*from, from) : l4_wait(from);
    }
}

static void arm_quiet(void)
{
    if (!quiet_tid) {
        quiet_tid = tu_thread_create(1);
        quiet_local = l4_local_id_of(quiet_tid);
        tu_start(quiet_tid, quiet_thread);
    } else if (quiet_waiting) {
        l4_set_mr(0, 0);
        l4_reply(quiet_tid);                    /* it calls again when it next runs */
    }
}

void tu_wait_blocked(void)
{
    arm_quiet();
    l4_receive(quiet_tid);                      /* other senders stay queued */
    quiet_waiting = true;
}

unsigned tu_wait_quiet(void)
{
    unsigned unanswered = 0;
    arm_quiet();
    l4_word_t from;
    l4_word_t tag = l4_wait(&from);
    for (;;) {
        bool answered = false;
        /* Same space: the quiet thread shows up under its local id (§5.3). */
        if (!l4_ipc_failed(tag) && from == quiet_local && l4_tag_label(tag) == QUIET_LABEL) {
            quiet_waiting = true;
            return unanswered;
        }
        if (!l4_ipc_failed(tag) && handle_fault(from, tag, &answered) && !answered)
            unanswered++;
        tag = answered ? l4_reply_wait(from, &from) : l4_wait(&from);
    }
}

void tu_kill(l4_word_t tid)
{
    l4_thread_control(tid, 0, 0, 0, ~0ul);
}

unsigned tu_state(l4_word_t tid)
{
    l4_word_t old;
    return (unsigned)l4_schedule(tid, ~0ul, ~0ul, ~0ul, ~0ul, &old);
}

void tu_report(l4_word_t label, l4_word_t value)
{
    l4_set_mr(0, l4_tag_make(label, 1, 0));
    l4_set_mr(1, value);
    l4_send(tu_main_tid());
}

static volatile l4_word_t elsewhere_fpage, elsewhere_window, elsewhere_result;

static void sigma0_requester(void)
{
    elsewhere_result = l4_sigma0_get_page(l4_sigma0_tid(), elsewhere_fpage, elsewhere_window);
    tu_report(0x52, 0);
    l4_sleep_forever();
}

l4_word_t tu_sigma0_get_page_elsewhere(l4_word_t fpage, l4_word_t window)
{
    elsewhere_fpage = fpage;
    elsewhere_window = window;
    l4_word_t t = tu_space_thread(sigma0_requester, 100), from;
    tu_serve(&from);
    tu_kill(t);
    return elsewhere_result;
}
