/* Agents (see agent.h). */
#include "agent.h"
#include "testutil.h"
#include <string.h>
#include <stdio.h>

#define AG_REPLY 0xA6

static uint8_t marker_page[4096] __attribute__((aligned(4096)));
unsigned agent_write_faults, agent_read_faults;

static void agent_loop(void)
{
    l4_word_t main = tu_main_tid(), from;
    l4_word_t tag = l4_receive(main);
    for (;;) {
        l4_word_t cmd = l4_tag_label(tag), a = l4_mr(1), b = l4_mr(2), c = l4_mr(3), d = l4_mr(4);
        l4_word_t r = 0;
        switch (cmd) {
        case AG_READ:
            r = *(volatile l4_word_t *)a;
            break;
        case AG_WRITE:
            *(volatile l4_word_t *)a = b;
            break;
        case AG_ACCEPT:
            l4_set_br(0, b);
            tag = l4_receive(a);
            r = l4_ipc_failed(tag) ? l4_error_code() | (1ul << 63) : l4_tag_t(tag);
            l4_set_br(0, 0);
            break;
        case AG_MAP_TO:
            l4_set_mr(0, l4_tag_make(0, 0, 2));
            l4_set_mr(1, d ? l4_grant_item(b) : l4_map_item(b));
            l4_set_mr(2, c);
            tag = l4_send(a);
            r = l4_ipc_failed(tag) ? l4_error_code() | (1ul << 63) : 0;
            break;
        case AG_UNMAP:
            l4_set_mr(0, a);
            l4_unmap(b ? 0x40 : 0);
            r = l4_mr(0);
            break;
        case AG_INB: {
            uint8_t v;
            __asm__ volatile("inb %w1, %0" : "=a"(v) : "Nd"((uint16_t)a));
            r = v;
            break;
        }
        case AG_INL: {
            uint32_t v;
            __asm__ volatile("inl %w1, %0" : "=a"(v) : "Nd"((uint16_t)a));
            r = v;
            break;
        }
        }
        l4_set_mr(0, l4_tag_make(AG_REPLY, 1, 0));
        l4_set_mr(1, r);
        tag = l4_ipc(main, main, 0, &from);
        (void)c;
    }
}

l4_word_t agent_start(void)
{
    for (unsigned i = 0; i < 4096 / sizeof(l4_word_t); i++)
        ((l4_word_t *)marker_page)[i] = AGENT_MARKER;
    return tu_space_thread(agent_loop, 100);
}

/* Serve the pager side until each of the n agents has replied; their replies (MR1) go to
 * results[] in the same order.  Probe faults get the marker page. */
static void collect(const l4_word_t *agents, l4_word_t *results, unsigned n)
{
    bool done[4] = { false, false, false, false };
    unsigned left = n;
    l4_word_t from, tag = l4_wait(&from);
    for (;;) {
        if (!l4_ipc_failed(tag) && l4_tag_label(tag) == AG_REPLY) {
            for (unsigned i = 0; i < n; i++)
                if (from == agents[i] && !done[i]) {
                    done[i] = true;
                    results[i] = l4_mr(1);
                    left--;
                }
            if (!left)
                return;
            tag = l4_wait(&from);
            continue;
        }
        if (!l4_ipc_failed(tag) && l4_tag_is_proto(tag, L4_PROTO_PAGEFAULT) &&
            l4_mr(L4_PF_ADDR) >= PROBE_BASE && l4_mr(L4_PF_ADDR) < PROBE_BASE + (1ul << 30)) {
            l4_word_t page = l4_mr(L4_PF_ADDR) & ~0xFFFul;
            if (l4_pagefault_access(tag) & L4_W)
                agent_write_faults++;
            else
                agent_read_faults++;
            l4_set_mr(0, l4_tag_make(0, 0, 2));
            l4_set_mr(1, l4_map_item(page));
            l4_set_mr(2, l4_fpage_log2((l4_word_t)marker_page, 12) | L4_R);   /* read-only */
            tag = l4_reply_wait(from, &from);
            continue;
        }
        l4_word_t t2 = tu_serve_continue(tag, &from);
        if (t2 == tag && !l4_ipc_failed(tag) && l4_tag_label(tag) != AG_REPLY) {
            printf("# agent: dropped a message %lx from %lx\n", tag, from);
            t2 = l4_wait(&from);
        }
        tag = t2;
    }
}

static l4_word_t send_cmd(l4_word_t agent, enum agent_cmd cmd, l4_word_t a, l4_word_t b,
                          l4_word_t c, l4_word_t d)
{
    l4_set_mr(0, l4_tag_make(cmd, 4, 0));
    l4_set_mr(1, a); l4_set_mr(2, b); l4_set_mr(3, c); l4_set_mr(4, d);
    return l4_send(agent);
}

l4_word_t agent_call(l4_word_t agent, enum agent_cmd cmd, l4_word_t a, l4_word_t b, l4_word_t c,
                     l4_word_t d)
{
    if (l4_ipc_failed(send_cmd(agent, cmd, a, b, c, d)))
        return ~0ul;
    l4_word_t r;
    collect(&agent, &r, 1);
    return r;
}

l4_word_t agent_map(l4_word_t from, l4_word_t to, l4_word_t sndbase, l4_word_t fpage,
                    l4_word_t window, bool grant)
{
    /* The receiver waits first; it answers us once the mapping (or an error) arrived. */
    l4_word_t src = from ? from : tu_main_tid();
    if (l4_ipc_failed(send_cmd(to, AG_ACCEPT, src, window, 0, 0)))
        return ~0ul;
    if (!from) {
        l4_set_mr(0, l4_tag_make(0, 0, 2));
        l4_set_mr(1, grant ? l4_grant_item(sndbase) : l4_map_item(sndbase));
        l4_set_mr(2, fpage);
        l4_word_t tag = l4_send(to);
        l4_word_t err = l4_ipc_failed(tag) ? l4_error_code() | (1ul << 63) : 0;
        l4_word_t r;
        collect(&to, &r, 1);
        return err ? err : r;
    }
    l4_word_t agents[2] = { from, to }, r[2];
    if (l4_ipc_failed(send_cmd(from, AG_MAP_TO, to, sndbase, fpage, grant)))
        return ~0ul;
    collect(agents, r, 2);
    return r[0] ? r[0] : r[1];
}
