/* In-system test: recursive address spaces (issue 4): map and grant items between spaces,
 * rights, receive windows, Unmap through mapping chains, grant, superpages, access status,
 * stacked pagers, sigma0's protocol, I/O ports as fpages. */
#include "testlib.h"
#include "testutil.h"
#include "agent.h"
#include <string.h>

/* Pages of ours that we map to agents. */
static uint8_t pages[8][4096] __attribute__((aligned(4096)));

static l4_word_t page_of(int i, l4_word_t value)
{
    *(volatile l4_word_t *)pages[i] = value;
    return (l4_word_t)pages[i];
}

#define WIN (l4_fpage_log2(PROBE_BASE, 30))     /* agents accept mappings in 1 GiB here */
#define X   (PROBE_BASE + 0x10000)              /* the probe address in the agents */

static l4_word_t rd(l4_word_t agent, l4_word_t addr) { return agent_call(agent, AG_READ, addr, 0, 0, 0); }

/* Make sure addr in agent is unmapped again (also the marker page a probe put there). */
static void clear(l4_word_t agent, l4_word_t addr)
{
    agent_call(agent, AG_UNMAP, l4_fpage_log2(addr, 12) | L4_RWX, 1, 0, 0);
}

TEST(map_item_shares_the_page)
{
    l4_word_t a = agent_start();
    l4_word_t p = page_of(0, 0x1111);
    /* Our page at p lands at X: SndBase = X's offset within the window (§5.5). */
    CHECK_EQ(agent_map(0, a, X, l4_fpage_log2(p, 12) | L4_RWX, WIN, false), 2);
    CHECK_EQ(rd(a, X), 0x1111);
    agent_call(a, AG_WRITE, X, 0x2222, 0, 0);
    CHECK_EQ(*(volatile l4_word_t *)p, 0x2222);           /* one frame, two spaces */
    tu_kill(a);
}

TEST(nil_window_overflows)
{
    l4_word_t a = agent_start();
    l4_word_t p = page_of(0, 0x1);
    l4_word_t r = agent_map(0, a, X, l4_fpage_log2(p, 12) | L4_RWX, 0, false);
    CHECK(r & (1ul << 63), "the map must fail");
    CHECK_EQ(l4_ipc_error_code(r), L4_IPC_OVERFLOW);
    tu_kill(a);
}

TEST(rights_are_reduced_never_widened)
{
    l4_word_t a = agent_start(), b = agent_start();
    l4_word_t p = page_of(1, 0x3333);
    CHECK_EQ(agent_map(0, a, X, l4_fpage_log2(p, 12) | L4_R, WIN, false), 2);   /* read-only */
    CHECK_EQ(rd(a, X), 0x3333);
    /* a passes it on with rwx: b still gets read-only (intersection with a's rights). */
    CHECK_EQ(agent_map(a, b, X, l4_fpage_log2(X, 12) | L4_RWX, WIN, false), 2);
    CHECK_EQ(rd(b, X), 0x3333);
    unsigned wf = agent_write_faults;
    /* b's write faults: its pager (us) answers with the read-only marker page: the agent
     * keeps faulting, so we unmap its probe address from here via a's flush instead of
     * waiting for it.  Check the fault arrived: */
    l4_set_mr(0, l4_tag_make(AG_WRITE, 4, 0));
    l4_set_mr(1, X); l4_set_mr(2, 1); l4_set_mr(3, 0); l4_set_mr(4, 0);
    l4_send(b);
    l4_word_t from, tag = l4_wait(&from);
    CHECK(l4_tag_is_proto(tag, L4_PROTO_PAGEFAULT) && ((tag >> 16) & L4_W) && l4_mr(1) == X,
          "expected b's write fault, got tag %lx addr %lx", tag, l4_mr(1));
    (void)wf;
    tu_kill(b);
    /* Mapping the same page again with more rights extends a's rights (union). */
    CHECK_EQ(agent_map(0, a, X, l4_fpage_log2(p, 12) | L4_R | L4_W, WIN, false), 2);
    agent_call(a, AG_WRITE, X, 0x4444, 0, 0);
    CHECK_EQ(*(volatile l4_word_t *)p, 0x4444);
    tu_kill(a);
}

TEST(unmap_chain_at_each_level)
{
    l4_word_t a = agent_start(), b = agent_start(), c = agent_start();
    l4_word_t p = page_of(2, 0x5555);
    l4_word_t fp = l4_fpage_log2(X, 12);
    /* us -> a -> b -> c */
    CHECK_EQ(agent_map(0, a, X, l4_fpage_log2(p, 12) | L4_RWX, WIN, false), 2);
    CHECK_EQ(agent_map(a, b, X, fp | L4_RWX, WIN, false), 2);
    CHECK_EQ(agent_map(b, c, X, fp | L4_RWX, WIN, false), 2);
    CHECK(rd(a, X) == 0x5555 && rd(b, X) == 0x5555 && rd(c, X) == 0x5555);

    /* b flushes what it gave away (not its own): c loses it, a and b keep it. */
    agent_call(b, AG_UNMAP, fp | L4_RWX, 0, 0, 0);
    CHECK_EQ(rd(c, X), AGENT_MARKER);
    CHECK(rd(a, X) == 0x5555 && rd(b, X) == 0x5555);
    clear(c, X);
    CHECK_EQ(agent_map(b, c, X, fp | L4_RWX, WIN, false), 2);

    /* a flushes its own mapping too: a, b and c lose it. */
    agent_call(a, AG_UNMAP, fp | L4_RWX, 1, 0, 0);
    CHECK_EQ(rd(a, X), AGENT_MARKER);
    CHECK_EQ(rd(b, X), AGENT_MARKER);
    CHECK_EQ(rd(c, X), AGENT_MARKER);
    clear(a, X); clear(b, X); clear(c, X);

    /* Rebuild; we revoke write access only: everybody still reads, nobody writes. */
    CHECK_EQ(agent_map(0, a, X, l4_fpage_log2(p, 12) | L4_RWX, WIN, false), 2);
    CHECK_EQ(agent_map(a, b, X, fp | L4_RWX, WIN, false), 2);
    CHECK_EQ(agent_map(b, c, X, fp | L4_RWX, WIN, false), 2);
    l4_set_mr(0, l4_fpage_log2(p, 12) | L4_W);
    l4_unmap(0);
    CHECK_EQ(rd(c, X), 0x5555);
    l4_set_mr(0, l4_tag_make(AG_WRITE, 4, 0));
    l4_set_mr(1, X); l4_set_mr(2, 7); l4_set_mr(3, 0); l4_set_mr(4, 0);
    l4_send(c);
    l4_word_t from, tag = l4_wait(&from);
    CHECK(l4_tag_is_proto(tag, L4_PROTO_PAGEFAULT) && ((tag >> 16) & L4_W), "c may not write now");
    tu_kill(c);

    /* And everything derived from our page goes when we flush it. */
    l4_set_mr(0, l4_fpage_log2(p, 12) | L4_RWX);
    l4_unmap(0);
    CHECK_EQ(rd(a, X), AGENT_MARKER);
    CHECK_EQ(rd(b, X), AGENT_MARKER);
    CHECK_EQ(*(volatile l4_word_t *)p, 0x5555);           /* our own mapping stays */
    tu_kill(a);
    tu_kill(b);
}

TEST(grant_moves_the_mapping)
{
    l4_word_t a = agent_start(), b = agent_start();
    l4_word_t p = page_of(3, 0x6666);
    l4_word_t fp = l4_fpage_log2(X, 12);
    CHECK_EQ(agent_map(0, a, X, l4_fpage_log2(p, 12) | L4_RWX, WIN, false), 2);
    CHECK_EQ(agent_map(a, b, X, fp | L4_RWX, WIN, true), 2);     /* grant */
    CHECK_EQ(rd(b, X), 0x6666);
    CHECK_EQ(rd(a, X), AGENT_MARKER);                            /* a has lost it */
    /* The granted mapping is still derived from ours. */
    l4_set_mr(0, l4_fpage_log2(p, 12) | L4_RWX);
    l4_unmap(0);
    CHECK_EQ(rd(b, X), AGENT_MARKER);
    tu_kill(a);
    tu_kill(b);
}

TEST(new_page_replaces_old_mapping)
{
    l4_word_t a = agent_start(), b = agent_start();
    l4_word_t p0 = page_of(4, 0x7777), p1 = page_of(5, 0x8888);
    l4_word_t fp = l4_fpage_log2(X, 12);
    CHECK_EQ(agent_map(0, a, X, l4_fpage_log2(p0, 12) | L4_RWX, WIN, false), 2);
    CHECK_EQ(agent_map(a, b, X, fp | L4_RWX, WIN, false), 2);
    CHECK_EQ(agent_map(0, a, X, l4_fpage_log2(p1, 12) | L4_RWX, WIN, false), 2);
    CHECK_EQ(rd(a, X), 0x8888);
    CHECK_EQ(rd(b, X), AGENT_MARKER);      /* what was derived from the old page is gone */
    tu_kill(a);
    tu_kill(b);
}

TEST(windows_smaller_and_larger)
{
    l4_word_t a = agent_start();
    /* An 8 KiB fpage into a 4 KiB window: the half selected by SndBase lands (§5.5). */
    l4_word_t p = (l4_word_t)pages[6];
    *(volatile l4_word_t *)pages[6] = 0xA0;
    *(volatile l4_word_t *)pages[7] = 0xA1;
    if ((p & 0x1FFF) == 0) {
        CHECK_EQ(agent_map(0, a, p + 4096, l4_fpage_log2(p, 13) | L4_RWX, l4_fpage_log2(X, 12), false), 2);
        CHECK_EQ(rd(a, X), 0xA1);
        clear(a, X);
        /* A 4 KiB fpage into an 8 KiB window: placed at SndBase's offset in the window. */
        CHECK_EQ(agent_map(0, a, 0x1000, l4_fpage_log2(p, 12) | L4_RWX, l4_fpage_log2(X, 13), false), 2);
        CHECK_EQ(rd(a, X + 0x1000), 0xA0);
    }
    tu_kill(a);
}

TEST(superpage_partially_unmapped)
{
    /* A 2 MiB page from sigma0 into a 2 MiB window of ours (a 2 MiB mapping), mapped on to an
     * agent at a 2 MiB-aligned address (2 MiB again, derived from ours); then 4 KiB of ours
     * revoked from everything derived: both large mappings are split, the rest stays. */
    l4_word_t region = 0x80000000ul;
    l4_word_t got = l4_sigma0_get_any(l4_sigma0_tid(), 21, l4_fpage_log2(region, 21));
    CHECK(!l4_is_nil_fpage(got), "sigma0 has a free 2 MiB block");
    CHECK_EQ(l4_fpage_size_log2(got), 21);
    for (l4_word_t off = 0; off < (2 << 20); off += 4096)
        *(volatile l4_word_t *)(region + off) = off;
    l4_word_t a = agent_start();
    l4_word_t dst = PROBE_BASE + (4 << 20);
    CHECK_EQ(agent_map(0, a, dst, l4_fpage_log2(region, 21) | L4_RWX, WIN, false), 2);
    CHECK_EQ(rd(a, dst + 0x1000), 0x1000);
    CHECK_EQ(rd(a, dst + 0x1FF000), 0x1FF000);
    l4_set_mr(0, l4_fpage_log2(region + 0x1000, 12) | L4_RWX);
    l4_unmap(0);
    CHECK_EQ(rd(a, dst + 0x1000), AGENT_MARKER);
    CHECK_EQ(rd(a, dst), 0);
    CHECK_EQ(rd(a, dst + 0x2000), 0x2000);
    CHECK_EQ(rd(a, dst + 0x1FF000), 0x1FF000);
    CHECK_EQ(*(volatile l4_word_t *)(region + 0x1000), 0x1000);    /* ours stays */
    /* Revoking the whole 2 MiB takes the rest. */
    l4_set_mr(0, l4_fpage_log2(region, 21) | L4_RWX);
    l4_unmap(0);
    CHECK_EQ(rd(a, dst + 0x2000), AGENT_MARKER);
    tu_kill(a);
}

TEST(access_status_reported_and_reset)
{
    l4_word_t a = agent_start();
    l4_word_t p = page_of(0, 0x99);
    CHECK_EQ(agent_map(0, a, X, l4_fpage_log2(p, 12) | L4_RWX, WIN, false), 2);
    /* reset whatever our own accesses left */
    l4_set_mr(0, l4_fpage_log2(p, 12));
    l4_unmap(0);
    l4_set_mr(0, l4_fpage_log2(p, 12));
    l4_unmap(0);
    CHECK_EQ(l4_fpage_rights(l4_mr(0)), 0);             /* nothing accessed since */
    rd(a, X);
    l4_set_mr(0, l4_fpage_log2(p, 12));
    l4_unmap(0);
    CHECK(l4_fpage_rights(l4_mr(0)) & L4_R, "referenced");
    CHECK(!(l4_fpage_rights(l4_mr(0)) & L4_W), "not written");
    agent_call(a, AG_WRITE, X, 1, 0, 0);
    l4_set_mr(0, l4_fpage_log2(p, 12));
    l4_unmap(0);
    CHECK(l4_fpage_rights(l4_mr(0)) & L4_W, "written");
    tu_kill(a);
}

/* --- stacked pagers --------------------------------------------------------------------- */

static volatile l4_word_t pager_b, stacked_value;

/* B: the pager of A.  It resolves A's faults by touching the page itself (which faults to
 * B's own pager, us) and mapping it on. */
static void pager_thread(void)
{
    l4_word_t from;
    l4_word_t tag = l4_wait(&from);
    for (;;) {
        if (l4_tag_is_proto(tag, L4_PROTO_PAGEFAULT)) {
            l4_word_t page = l4_mr(1) & ~0xFFFul;
            (void)*(volatile char *)page;
            l4_set_mr(0, l4_tag_make(0, 0, 2));
            l4_set_mr(1, l4_map_item(page));
            l4_set_mr(2, l4_fpage_log2(page, 12) | L4_RWX);
            tag = l4_reply_wait(from, &from);
        } else {
            tag = l4_wait(&from);
        }
    }
}

static void paged_by_b(void)
{
    l4_set_pager(pager_b);
    /* TU_WINDOW: not mapped anywhere yet; our main thread serves it to B. */
    tu_report(0x51, *(volatile l4_word_t *)(TU_WINDOW + 0x3000));
    l4_sleep_forever();
}

TEST(stacked_pagers)
{
    memset(tu_window_backing, 0, TU_WINDOW_SIZE);
    *(volatile l4_word_t *)(tu_window_backing + 0x3000) = 0xABCD;
    pager_b = tu_space_thread(pager_thread, 100);
    l4_word_t a = tu_space_thread(paged_by_b, 100);
    l4_word_t from, tag = tu_serve(&from);           /* serves B's faults on TU_WINDOW */
    CHECK_EQ(l4_tag_label(tag), 0x51);
    CHECK_EQ(from, a);
    CHECK_EQ(l4_mr(1), 0xABCD);
    tu_kill(a);
    tu_kill(pager_b);
}

/* --- sigma0 ------------------------------------------------------------------------------ */

TEST(sigma0_hands_out_each_page_once)
{
    l4_word_t s0 = l4_sigma0_tid();
    l4_word_t any = l4_sigma0_get_any(s0, 12, l4_fpage_log2(0x70000000, 12));
    CHECK(!l4_is_nil_fpage(any), "an anonymous page");
    l4_word_t phys = l4_fpage_base(any);
    CHECK_EQ(l4_fpage_base(any), phys);
    *(volatile l4_word_t *)0x70000000 = 42;                  /* it is mapped here now */
    /* The same page again for us: fine (we own it). */
    CHECK(!l4_is_nil_fpage(l4_sigma0_get_page(s0, l4_fpage_log2(phys, 12) | L4_RWX,
                                              l4_fpage_log2(0x70001000, 12))));
    CHECK_EQ(*(volatile l4_word_t *)0x70001000, 42);
    /* The kernel's own memory is never handed out. */
    l4_word_t pool = 0;
    for (unsigned i = 0; i < l4_kip_memdesc_count(); i++) {
        const struct l4_memdesc *d = l4_kip_memdesc(i);
        if (l4_memdesc_type(d) == L4_MEMDESC_RESERVED && !l4_memdesc_virtual(d))
            pool = l4_memdesc_low(d);
    }
    CHECK(pool != 0);
    CHECK(l4_is_nil_fpage(l4_sigma0_get_page(s0, l4_fpage_log2(pool, 12) | L4_RWX,
                                             l4_fpage_log2(0x70002000, 12))));
    /* Shared memory (VGA text) can be had by anyone, any number of times. */
    CHECK(!l4_is_nil_fpage(l4_sigma0_get_page(s0, l4_fpage_log2(0xB8000, 12) | L4_RWX,
                                              l4_fpage_log2(0x70003000, 12))));
}

TEST(sigma0_refuses_pages_owned_by_others)
{
    l4_word_t s0 = l4_sigma0_tid();
    l4_word_t mine = l4_sigma0_get_any(s0, 12, l4_fpage_log2(0x70010000, 12));
    CHECK(!l4_is_nil_fpage(mine));
    l4_word_t contested = l4_fpage_log2(l4_fpage_base(mine), 12) | L4_RWX;
    CHECK(l4_is_nil_fpage(tu_sigma0_get_page_elsewhere(contested, l4_fpage_log2(0x70000000, 12))),
          "another thread got our page");
}

/* The type the KIP gives physical address pa: the last descriptor that covers it (§2.6). */
static unsigned memdesc_type_at(l4_word_t pa)
{
    unsigned type = 0;
    for (unsigned i = 0; i < l4_kip_memdesc_count(); i++) {
        const struct l4_memdesc *d = l4_kip_memdesc(i);
        if (!l4_memdesc_virtual(d) && l4_memdesc_low(d) <= pa && pa <= l4_memdesc_high(d))
            type = l4_memdesc_type(d);
    }
    return type;
}

/* The kernel's own devices are its like its memory (docs/cpu-state.md): the pages of the local
 * APIC and the I/O APIC (where QEMU's q35 has them) are reserved in the KIP and sigma0 gives
 * them to nobody, alone or inside a 2 MiB request; device memory beside them stays shared. */
TEST(sigma0_refuses_the_kernels_devices)
{
    l4_word_t s0 = l4_sigma0_tid();
    static const l4_word_t devices[] = { 0xFEE00000, 0xFEC00000 };
    const l4_word_t window = 0x70400000;
    for (unsigned i = 0; i < 2; i++) {
        l4_word_t pa = devices[i];
        CHECK(l4_is_nil_fpage(l4_sigma0_get_page(s0, l4_fpage_log2(pa, 12) | L4_RWX,
                                                 l4_fpage_log2(window, 12))),
              "sigma0 handed out the kernel's device page %lx", pa);
        CHECK(l4_is_nil_fpage(l4_sigma0_get_page(s0, l4_fpage_log2(pa, 21) | L4_RWX,
                                                 l4_fpage_log2(window, 21))),
              "sigma0 handed out the 2 MiB around %lx", pa);
        CHECK_EQ(memdesc_type_at(pa), L4_MEMDESC_RESERVED);
        CHECK_EQ(memdesc_type_at(pa + 0x1000), L4_MEMDESC_SHARED);
    }
    /* The page after the I/O APIC's is not the kernel's. */
    CHECK(!l4_is_nil_fpage(l4_sigma0_get_page(s0, l4_fpage_log2(0xFEC01000, 12) | L4_RWX,
                                              l4_fpage_log2(window, 12))));
}

/* --- I/O ports ------------------------------------------------------------------------------ */

TEST(io_ports_are_fpages)
{
    /* An agent reads the CMOS index port: its I/O fault reaches us (its pager), and we map
     * the port from our own I/O space (which sigma0 gave us). */
    l4_word_t a = agent_start();
    l4_word_t v = agent_call(a, AG_INB, 0x71, 0, 0, 0);
    CHECK(v <= 0xFF);
    /* Revoke it: the next access faults again (we see a second I/O fault). */
    l4_set_mr(0, l4_io_fpage(0x71, 0) | 7);
    l4_unmap(0);
    l4_set_mr(0, l4_tag_make(AG_INB, 4, 0));
    l4_set_mr(1, 0x71); l4_set_mr(2, 0); l4_set_mr(3, 0); l4_set_mr(4, 0);
    l4_send(a);
    l4_word_t from, tag = l4_wait(&from);
    CHECK(l4_tag_is_proto(tag, L4_PROTO_IO_PAGEFAULT), "tag %lx", tag);
    CHECK_EQ(from, a);
    CHECK_EQ(l4_mr(1), l4_io_fpage(0x71, 0));
    tu_kill(a);
}

TEST(misaligned_port_access_faults_for_all_its_ports)
{
    /* inl at 0x72 touches 0x72-0x75: the fault asks for the aligned fpage 0x70-0x77 that
     * holds them all, so one answer lets the instruction complete. */
    l4_word_t a = agent_start();
    l4_set_mr(0, l4_tag_make(AG_INL, 4, 0));
    l4_set_mr(1, 0x72); l4_set_mr(2, 0); l4_set_mr(3, 0); l4_set_mr(4, 0);
    l4_send(a);
    l4_word_t from, tag = l4_wait(&from);
    CHECK(l4_tag_is_proto(tag, L4_PROTO_IO_PAGEFAULT), "tag %lx", tag);
    CHECK_EQ(l4_mr(1), l4_io_fpage(0x70, 3));
    l4_sigma0_get_ports(l4_sigma0_tid(), l4_io_fpage(0x70, 3));
    l4_set_mr(0, l4_tag_make(0, 0, 2));
    l4_set_mr(1, l4_map_item(0));
    l4_set_mr(2, l4_io_fpage(0x70, 3));
    tag = l4_reply_wait(from, &from);
    CHECK_EQ(from, a);
    CHECK(!l4_ipc_failed(tag) && l4_tag_label(tag) != (L4_PROTO_IO_PAGEFAULT >> 16),
          "faulted again: tag %lx", tag);
    tu_kill(a);
}

TEST(the_kernels_interrupt_controller_ports_are_nobodys)
{
    /* The 8259 pair's ports are the kernel's (arch_kernel_ports): sigma0 never had them, so
     * whatever we ask for and map, an agent's access to 0x21 faults again. */
    l4_word_t a = agent_start();
    l4_set_mr(0, l4_tag_make(AG_INB, 4, 0));
    l4_set_mr(1, 0x21); l4_set_mr(2, 0); l4_set_mr(3, 0); l4_set_mr(4, 0);
    l4_send(a);
    l4_word_t from, tag = l4_wait(&from);
    CHECK(l4_tag_is_proto(tag, L4_PROTO_IO_PAGEFAULT), "tag %lx", tag);
    CHECK_EQ(l4_mr(1), l4_io_fpage(0x21, 0));
    l4_sigma0_get_ports(l4_sigma0_tid(), l4_io_fpage(0, 16));
    l4_set_mr(0, l4_tag_make(0, 0, 2));
    l4_set_mr(1, l4_map_item(0));
    l4_set_mr(2, l4_io_fpage(0, 16));
    tag = l4_reply_wait(from, &from);
    CHECK_EQ(from, a);
    CHECK(l4_tag_is_proto(tag, L4_PROTO_IO_PAGEFAULT), "the agent read port 0x21: tag %lx",
          tag);
    CHECK_EQ(l4_mr(1), l4_io_fpage(0x21, 0));
    tu_kill(a);
}

TEST(io_ports_can_be_granted)
{
    /* We grant port 0x80 to an agent: it holds the port on its own now, so revoking what
     * was derived from our ports does not take it away. */
    l4_word_t a = agent_start();
    l4_sigma0_get_ports(l4_sigma0_tid(), l4_io_fpage(0x80, 0));
    l4_word_t r = agent_map(0, a, 0, l4_io_fpage(0x80, 0), L4_COMPLETE_FPAGE, true);
    CHECK(!(r & (1ul << 63)), "grant failed: %lx", r);
    l4_set_mr(0, l4_io_fpage(0x80, 0) | 7);
    l4_unmap(0);                                /* derived mappings only */
    agent_read_faults = 0;
    l4_set_mr(0, l4_tag_make(AG_INB, 4, 0));
    l4_set_mr(1, 0x80); l4_set_mr(2, 0); l4_set_mr(3, 0); l4_set_mr(4, 0);
    l4_send(a);
    l4_word_t from, tag = l4_wait(&from);
    CHECK_EQ(from, a);
    CHECK(!l4_tag_is_proto(tag, L4_PROTO_IO_PAGEFAULT), "the agent lost the granted port");
    tu_kill(a);
}

/* Issue 7: two spaces that map ports to each other and grant them back.  A space holds a
 * port through one node at most, so this stays a handful of nodes; before the fix every
 * round trip doubled them (a grant made a new node although the receiver held the ports, a
 * map copied every duplicate): after a few dozen rounds the kernel ran out of memory, or ran
 * for minutes inside one system call. */
TEST(io_ports_back_and_forth_stay_bounded)
{
    l4_word_t a = agent_start(), b = agent_start();
    l4_sigma0_get_ports(l4_sigma0_tid(), l4_io_fpage(0x80, 3));
    l4_word_t r = agent_map(0, a, 0, l4_io_fpage(0x80, 3), L4_COMPLETE_FPAGE, false);
    CHECK(!(r & (1ul << 63)), "map to a failed: %lx", r);
    r = agent_map(0, b, 0, l4_io_fpage(0x80, 3), L4_COMPLETE_FPAGE, false);
    CHECK(!(r & (1ul << 63)), "map to b failed: %lx", r);
    for (unsigned i = 0; i < 64; i++) {
        unsigned log2 = i % 4, port = 0x80 + ((i * 5) & 7 & ~((1u << log2) - 1));
        r = agent_map(a, b, 0, l4_io_fpage(port, log2), L4_COMPLETE_FPAGE, false);
        CHECK(!(r & (1ul << 63)), "round %u: map a to b failed: %lx", i, r);
        r = agent_map(b, a, 0, l4_io_fpage(0x80, 3), L4_COMPLETE_FPAGE, true);
        CHECK(!(r & (1ul << 63)), "round %u: grant b to a failed: %lx", i, r);
        r = agent_map(a, b, 0, l4_io_fpage(0x80, 3), L4_COMPLETE_FPAGE, i & 1);
        CHECK(!(r & (1ul << 63)), "round %u: map or grant a to b failed: %lx", i, r);
    }
    /* Both still hold what they should: a reads its ports without an I/O fault. */
    r = agent_map(0, a, 0, l4_io_fpage(0x80, 3), L4_COMPLETE_FPAGE, false);
    agent_read_faults = 0;
    l4_set_mr(0, l4_tag_make(AG_INB, 4, 0));
    l4_set_mr(1, 0x84); l4_set_mr(2, 0); l4_set_mr(3, 0); l4_set_mr(4, 0);
    l4_send(a);
    l4_word_t from, tag = l4_wait(&from);
    CHECK_EQ(from, a);
    CHECK(!l4_tag_is_proto(tag, L4_PROTO_IO_PAGEFAULT), "a lost the ports we mapped it");
    tu_kill(a);
    tu_kill(b);
}

int main(void)
{
    tests_run("memory");
}
