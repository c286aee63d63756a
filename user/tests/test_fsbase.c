/* Per-thread FS and GS base (issue 7 item 1): every thread owns both bases, the kernel saves
 * and restores them at every thread switch (C path and IPC fast path), and ExchangeRegisters
 * reads and sets them (Pecan's extension, include/l4/pecan.h).
 *
 * The bases are checked through what the CPU does with them (%fs:0 and %gs:8 read marker
 * words the thread put there), through ExchangeRegisters, and with rdfsbase/rdgsbase when
 * the CPU has FSGSBASE.  Whether it has: CPUID leaf 7 EBX bit 0; the kernel sets CR4.FSGSBASE
 * whenever the CPU has it (kernel/arch/x86_64/cpu.c), so user code may then use the
 * instructions.  Without it (-cpu qemu64, the MSR path) threads move their bases with
 * ExchangeRegisters only.
 *
 * A thread that moves its GS base keeps %gs:0 working (libl4 finds its UTCB there) by
 * pointing GS at a block whose word 0 is its UTCB pointer and word 1 a marker. */
#include "testlib.h"
#include "testutil.h"
#include <l4/pecan.h>

#define NONCANONICAL_LOW   0x0000800000000000ul
#define NONCANONICAL_HIGH  0xFFFF7FFFFFFFFFFFul

static bool fsgsbase;
static l4_word_t gs_page;              /* the GS base of a new thread (%gs:0 page) */

struct gs_block {
    l4_word_t utcb;                     /* %gs:0: the UTCB pointer, as X.2 wants */
    l4_word_t marker;                   /* %gs:8 */
};

static void detect_fsgsbase(void)
{
    uint32_t a, b, c, d;
    __asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0), "c"(0));
    if (a < 7)
        return;
    __asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(7), "c"(0));
    fsgsbase = b & 1;
}

static l4_word_t fs_word0(void)
{
    l4_word_t v;
    __asm__ volatile("movq %%fs:0, %0" : "=r"(v) :: "memory");
    return v;
}

static l4_word_t gs_word(unsigned i)
{
    l4_word_t v;
    if (i == 0)
        __asm__ volatile("movq %%gs:0, %0" : "=r"(v) :: "memory");
    else
        __asm__ volatile("movq %%gs:8, %0" : "=r"(v) :: "memory");
    return v;
}

/* The calling thread's bases through ExchangeRegisters. */
static void exregs_bases(l4_word_t tid, l4_word_t *fs, l4_word_t *gs)
{
    l4_exchange_bases(tid, 0, 0, 0, fs, gs);
}

/* The calling thread's bases as the CPU has them (rdfsbase if it can, else ExchangeRegisters). */
static void my_bases(l4_word_t *fs, l4_word_t *gs)
{
    if (fsgsbase) {
        __asm__ volatile("rdfsbase %0" : "=r"(*fs));
        __asm__ volatile("rdgsbase %0" : "=r"(*gs));
    } else {
        exregs_bases(l4_my_global_id(), fs, gs);
    }
}

/* Move the calling thread's bases the way a program would: wrfsbase/wrgsbase if it can. */
static void set_my_bases(l4_word_t fs, l4_word_t gs)
{
    if (fsgsbase) {
        __asm__ volatile("wrfsbase %0" :: "r"(fs) : "memory");
        __asm__ volatile("wrgsbase %0" :: "r"(gs) : "memory");
    } else {
        l4_exchange_bases(l4_my_global_id(), L4_EXREGS_SET_FS_BASE | L4_EXREGS_SET_GS_BASE,
                          fs, gs, NULL, NULL);
    }
}

/* Point FS at *fsw and GS at *gsb (its word 0 = our UTCB pointer). */
static void own_bases(l4_word_t *fsw, l4_word_t fs_marker, struct gs_block *gsb,
                      l4_word_t gs_marker)
{
    *fsw = fs_marker;
    gsb->utcb = gs_word(0);
    gsb->marker = gs_marker;
    set_my_bases((l4_word_t)fsw, (l4_word_t)gsb);
}

/* Do the bases still point at (fsw, gsb) with the markers in place? */
static bool bases_are(l4_word_t *fsw, l4_word_t fs_marker, struct gs_block *gsb,
                      l4_word_t gs_marker)
{
    l4_word_t fs, gs;
    my_bases(&fs, &gs);
    return fs == (l4_word_t)fsw && gs == (l4_word_t)gsb && fs_word0() == fs_marker &&
           gs_word(1) == gs_marker && gs_word(0) == gsb->utcb;
}

static bool bases_are_default(void)
{
    l4_word_t fs, gs;
    my_bases(&fs, &gs);
    return fs == 0 && gs == gs_page && gs_word(0) == l4_local_id_of(l4_my_global_id());
}

static void report2(l4_word_t label, l4_word_t a, l4_word_t b)
{
    l4_set_mr(0, l4_tag_make(label, 2, 0));
    l4_set_mr(1, a);
    l4_set_mr(2, b);
    l4_send(tu_main_tid());
}

/* The next message that is not a fault of a child: its label; MR1/MR2 in *a, *b. */
static l4_word_t next_report(l4_word_t *from, l4_word_t *a, l4_word_t *b)
{
    l4_word_t tag = tu_serve(from);
    *a = l4_mr(1);
    *b = l4_mr(2);
    return l4_ipc_failed(tag) ? ~0ul : l4_tag_label(tag);
}

/* --- initial state, %gs:0 --------------------------------------------------------------- */

static void report_defaults(void)
{
    l4_word_t fs, gs;
    exregs_bases(l4_my_global_id(), &fs, &gs);
    report2(1, fs, gs);
    report2(2, bases_are_default(), gs_word(0) == l4_local_id_of(l4_my_global_id()));
    l4_sleep_forever();
}

TEST(new_threads_start_with_fs_0_and_the_gs_page)
{
    test_note("fsgsbase: %s", fsgsbase ? "yes (rdfsbase/wrfsbase)" : "no (MSR path)");
    l4_word_t fs, gs;
    exregs_bases(l4_my_global_id(), &fs, &gs);
    CHECK_EQ(fs, 0);
    CHECK(gs != 0);
    CHECK(bases_are_default(), "gs:0 %lx local id %lx", gs_word(0),
          l4_local_id_of(l4_my_global_id()));
    for (int i = 0; i < 2; i++) {
        l4_word_t t = i ? tu_space_thread(report_defaults, 100) : tu_thread(report_defaults, 100);
        l4_word_t from, a, b;
        CHECK_EQ(next_report(&from, &a, &b), 1);
        CHECK_EQ(a, 0);
        CHECK_EQ(b, gs_page);
        CHECK_EQ(next_report(&from, &a, &b), 2);
        CHECK(a && b, "%%gs:0 is the UTCB pointer (thread %d)", i);
        tu_kill(t);
    }
}

/* --- ExchangeRegisters ----------------------------------------------------------------------- */

static l4_word_t fs_main;
static struct gs_block gs_main;

TEST(exregs_sets_and_returns_the_callers_bases)
{
    l4_word_t me = l4_my_global_id(), ofs, ogs;
    fs_main = 0x1111;
    gs_main.utcb = gs_word(0);
    gs_main.marker = 0x2222;
    CHECK_EQ(l4_exchange_bases(me, L4_EXREGS_SET_FS_BASE | L4_EXREGS_SET_GS_BASE,
                               (l4_word_t)&fs_main, (l4_word_t)&gs_main, &ofs, &ogs), l4_my_local_id());
    CHECK_EQ(ofs, 0);
    CHECK_EQ(ogs, gs_page);
    CHECK(bases_are(&fs_main, 0x1111, &gs_main, 0x2222));
    /* FS alone; then GS alone. */
    CHECK(l4_exchange_bases(me, L4_EXREGS_SET_FS_BASE, 0, 0, &ofs, &ogs) != L4_NILTHREAD);
    CHECK_EQ(ofs, (l4_word_t)&fs_main);
    CHECK_EQ(ogs, (l4_word_t)&gs_main);
    CHECK(l4_exchange_bases(me, L4_EXREGS_SET_GS_BASE, 0, gs_page, &ofs, &ogs) != L4_NILTHREAD);
    CHECK_EQ(ofs, 0);
    CHECK_EQ(ogs, (l4_word_t)&gs_main);
    CHECK(bases_are_default());
}

TEST(exregs_refuses_non_canonical_bases)
{
    l4_word_t me = l4_my_global_id(), ofs = 1, ogs = 1;
    static const l4_word_t bad[] = { NONCANONICAL_LOW, NONCANONICAL_HIGH };
    for (int i = 0; i < 2; i++) {
        CHECK_EQ(l4_exchange_bases(me, L4_EXREGS_SET_FS_BASE, bad[i], 0, NULL, NULL), L4_NILTHREAD);
        CHECK_EQ(l4_error_code(), L4_ERR_INVALID_PARAM);
        CHECK_EQ(l4_exchange_bases(me, L4_EXREGS_SET_GS_BASE, 0, bad[i], NULL, NULL), L4_NILTHREAD);
        CHECK_EQ(l4_error_code(), L4_ERR_INVALID_PARAM);
        /* One good, one bad: nothing changes. */
        CHECK_EQ(l4_exchange_bases(me, L4_EXREGS_SET_FS_BASE | L4_EXREGS_SET_GS_BASE,
                                   0x5000, bad[i], NULL, NULL), L4_NILTHREAD);
        CHECK(bases_are_default());
    }
    /* The highest canonical addresses are fine (user FS at the top of the lower half). */
    CHECK(l4_exchange_bases(me, L4_EXREGS_SET_FS_BASE, 0x00007FFFFFFFF000ul, 0, &ofs, &ogs) !=
          L4_NILTHREAD);
    CHECK(l4_exchange_bases(me, L4_EXREGS_SET_FS_BASE, 0, 0, &ofs, &ogs) != L4_NILTHREAD);
    CHECK_EQ(ofs, 0x00007FFFFFFFF000ul);
    CHECK(bases_are_default());
}

/* Without bit 16 R12 and R13 come back unchanged, as X.2 programs expect. */
static void exregs_raw(l4_word_t dest, l4_word_t control, l4_word_t *r12v, l4_word_t *r13v)
{
    register l4_word_t r8 __asm__("r8") = 0;
    register l4_word_t r9 __asm__("r9") = 0;
    register l4_word_t r10 __asm__("r10") = 0;
    register l4_word_t r12 __asm__("r12") = *r12v;
    register l4_word_t r13 __asm__("r13") = *r13v;
    l4_word_t sp = 0, pager = L4_NILTHREAD, entry = l4_kip_get(L4_KIP_OFF_EXREGS);
    __asm__ volatile("pushq %%rbp\n\tcall *%[e]\n\tpopq %%rbp"
                     : "+a"(dest), "+S"(control), "+d"(sp), "+r"(r8), "+r"(r9), "+r"(r10),
                       "+D"(pager), "+r"(r12), "+r"(r13)
                     : [e] "r"(entry)
                     : "rbx", "rcx", "r11", "r14", "r15", "memory", "cc");
    *r12v = r12;
    *r13v = r13;
}

TEST(exregs_leaves_r12_r13_alone_without_bit_16)
{
    l4_word_t me = l4_my_global_id(), r12 = 0xAAAA, r13 = 0xBBBB;
    exregs_raw(me, 0, &r12, &r13);
    CHECK_EQ(r12, 0xAAAA);
    CHECK_EQ(r13, 0xBBBB);
    r12 = 0x7000;
    exregs_raw(me, L4_EXREGS_SET_FS_BASE, &r12, &r13);     /* sets FS, delivers nothing */
    CHECK_EQ(r12, 0x7000);
    CHECK_EQ(r13, 0xBBBB);
    l4_word_t fs, gs;
    exregs_bases(me, &fs, &gs);
    CHECK_EQ(fs, 0x7000);
    r12 = 0;
    exregs_raw(me, L4_EXREGS_SET_FS_BASE | L4_EXREGS_GET_BASES, &r12, &r13);
    CHECK_EQ(r12, 0x7000);
    CHECK_EQ(r13, gs_page);
    CHECK(bases_are_default());
}

static l4_word_t fs_other;
static struct gs_block gs_other;

static void wait_then_report(void)
{
    l4_receive(tu_main_tid());
    report2(3, bases_are(&fs_other, 0x3333, &gs_other, 0x4444), gs_word(0) == (l4_word_t)l4_utcb());
    l4_sleep_forever();
}

TEST(exregs_sets_another_threads_bases)
{
    l4_word_t t = tu_thread(wait_then_report, 100);
    tu_wait_blocked();
    fs_other = 0x3333;
    gs_other.utcb = l4_local_id_of(t);          /* its UTCB pointer, for its %gs:0 */
    gs_other.marker = 0x4444;
    l4_word_t ofs, ogs;
    CHECK(l4_exchange_bases(t, L4_EXREGS_SET_FS_BASE | L4_EXREGS_SET_GS_BASE,
                            (l4_word_t)&fs_other, (l4_word_t)&gs_other, &ofs, &ogs) != L4_NILTHREAD);
    CHECK_EQ(ofs, 0);
    CHECK_EQ(ogs, gs_page);
    exregs_bases(t, &ofs, &ogs);
    CHECK_EQ(ofs, (l4_word_t)&fs_other);
    CHECK_EQ(ogs, (l4_word_t)&gs_other);
    CHECK(bases_are_default());                 /* ours did not move */
    l4_set_mr(0, 0);
    l4_send(t);
    l4_word_t from, a, b;
    CHECK_EQ(next_report(&from, &a, &b), 3);
    CHECK(a, "the thread runs with the bases set for it");
    CHECK(b, "%%gs:0 is still its UTCB pointer");
    tu_kill(t);
}

static void sleep_forever(void)
{
    l4_sleep_forever();
}

TEST(exregs_bases_only_in_the_callers_space)
{
    l4_word_t t = tu_space_thread(sleep_forever, 100);
    CHECK_EQ(l4_exchange_bases(t, L4_EXREGS_SET_FS_BASE, 0x1000, 0, NULL, NULL), L4_NILTHREAD);
    CHECK_EQ(l4_error_code(), L4_ERR_INVALID_THREAD);
    CHECK_EQ(l4_exchange_bases(t, 0, 0, 0, NULL, NULL), L4_NILTHREAD);
    tu_kill(t);
}

/* --- isolation across spaces ----------------------------------------------------------------- */

static l4_word_t fs_a, fs_b;
static struct gs_block gs_a, gs_b;

static void iso_a(void)
{
    own_bases(&fs_a, 0xA1, &gs_a, 0xA2);
    l4_word_t ok = bases_are(&fs_a, 0xA1, &gs_a, 0xA2);
    l4_set_mr(0, l4_tag_make(4, 1, 0));
    l4_set_mr(1, ok);
    l4_call(tu_main_tid());                     /* main looks at its own bases meanwhile */
    report2(5, bases_are(&fs_a, 0xA1, &gs_a, 0xA2), 0);
    l4_sleep_forever();
}

static void iso_b(void)
{
    report2(6, bases_are_default(), 0);
    l4_sleep_forever();
}

TEST(bases_are_isolated_across_spaces)
{
    l4_word_t a = tu_space_thread(iso_a, 100), from, x, y;
    CHECK_EQ(next_report(&from, &x, &y), 4);
    CHECK_EQ(from, a);
    CHECK(x, "space 1's thread sees its own bases");
    CHECK(bases_are_default(), "space 0 (main) sees its own");
    l4_word_t b = tu_space_thread(iso_b, 100);
    CHECK_EQ(next_report(&from, &x, &y), 6);
    CHECK(x, "space 2's new thread sees its own");
    l4_set_mr(0, 0);
    l4_reply(a);
    CHECK_EQ(next_report(&from, &x, &y), 5);
    CHECK(x, "space 1's thread still sees its own");
    tu_kill(a);
    tu_kill(b);
}

/* Within one space too: a thread that moves its GS base does not break %gs:0 of another. */
static void move_gs_and_yield(void)
{
    own_bases(&fs_a, 0xB1, &gs_a, 0xB2);
    gs_a.utcb = 0xDEAD0000;                     /* its own %gs:0 is now wrong */
    l4_thread_switch(tu_main_tid());            /* (no IPC from here on: it needs %gs:0) */
    for (;;)
        l4_thread_switch(tu_main_tid());
}

TEST(a_moved_gs_base_hurts_only_its_thread)
{
    l4_word_t t = tu_thread(move_gs_and_yield, 200);
    for (int i = 0; i < 3; i++) {
        l4_thread_switch(t);
        CHECK(bases_are_default(), "round %d", i);
    }
    l4_word_t fs, gs;
    exregs_bases(t, &fs, &gs);
    CHECK_EQ(fs, (l4_word_t)&fs_a);
    CHECK_EQ(gs, (l4_word_t)&gs_a);
    tu_kill(t);
}

/* --- preemption -------------------------------------------------------------------------------- */

static volatile l4_word_t spin_started, b_rounds, spin_checks, spin_bad;

static void spinner(void)
{
    own_bases(&fs_a, 0xC1, &gs_a, 0xC2);
    spin_started = 1;
    while (b_rounds < 5) {
        if (!bases_are(&fs_a, 0xC1, &gs_a, 0xC2))
            spin_bad++;
        spin_checks++;
    }
    report2(7, spin_checks, spin_bad);
    l4_sleep_forever();
}

/* More important, in a third space: wakes up every millisecond (a timer interrupt that
 * preempts the spinner), moves its own bases and checks them. */
static void preemptor(void)
{
    while (!spin_started)
        l4_sleep_ms(1);
    l4_word_t bad = 0;
    for (int i = 0; i < 5; i++) {
        own_bases(&fs_b, 0xD1 + i, &gs_b, 0xE1 + i);
        if (!bases_are(&fs_b, 0xD1 + i, &gs_b, 0xE1 + i))
            bad++;
        l4_sleep_ms(1);
        if (!bases_are(&fs_b, 0xD1 + i, &gs_b, 0xE1 + i))
            bad++;
        b_rounds++;
    }
    report2(8, bad, 0);
    l4_sleep_forever();
}

TEST(bases_survive_preemption_by_another_space)
{
    l4_word_t b = tu_space_thread(preemptor, 60);
    l4_word_t a = tu_space_thread(spinner, 50);
    l4_word_t from, x, y, got = 0;
    for (int i = 0; i < 2; i++) {
        l4_word_t label = next_report(&from, &x, &y);
        if (label == 7) {
            CHECK(x > 0, "the spinner ran");
            CHECK_EQ(y, 0);
            got |= 1;
        } else {
            CHECK_EQ(label, 8);
            CHECK_EQ(x, 0);
            got |= 2;
        }
    }
    CHECK_EQ(got, 3);
    CHECK(bases_are_default());
    tu_kill(a);
    tu_kill(b);
}

/* --- IPC ---------------------------------------------------------------------------------------- */

static void ipc_partner(void)
{
    own_bases(&fs_a, 0xF1, &gs_a, 0xF2);
    l4_word_t bad = 0;
    for (int i = 0; i < 20; i++) {
        l4_set_mr(0, l4_tag_make(9, 1, 0));
        l4_set_mr(1, i);
        /* Even rounds: fast path (receive timeout never); odd rounds: a receive timeout,
         * which the fast path leaves to the C path. */
        if (i & 1)
            l4_call_timeouts(tu_main_tid(), L4_NEVER, l4_period_from_us(1000000));
        else
            l4_call(tu_main_tid());
        if (!bases_are(&fs_a, 0xF1, &gs_a, 0xF2))
            bad++;
    }
    report2(10, bad, 0);
    l4_sleep_forever();
}

TEST(bases_survive_ipc_fast_and_slow)
{
    own_bases(&fs_main, 0x5151, &gs_main, 0x5252);
    l4_word_t a = tu_space_thread(ipc_partner, 100), from, x, y, bad = 0;
    for (int i = 0; i < 20; i++) {
        CHECK_EQ(next_report(&from, &x, &y), 9);
        CHECK_EQ(x, (l4_word_t)i);
        if (!bases_are(&fs_main, 0x5151, &gs_main, 0x5252))
            bad++;
        l4_set_mr(0, 0);
        l4_reply(from);
    }
    CHECK_EQ(next_report(&from, &x, &y), 10);
    CHECK_EQ(x, 0);
    CHECK_EQ(bad, 0);
    set_my_bases(0, gs_page);
    CHECK(bases_are_default());
    tu_kill(a);
}

/* --- bases a thread changes behind the kernel's back ------------------------------------------ */

/* A thread can change its bases without telling the kernel: wrfsbase/wrgsbase (above), and by
 * loading a segment selector into %fs or %gs, which sets the base to the descriptor's (0 for
 * every GDT data selector) and, for a null selector, to 0 on Intel CPUs and in QEMU's TCG
 * (AMD CPUs without "null selector clears base" keep it).  Neither may reach another thread:
 * it must not see those bases, nor lose its own (%gs:0 above all); and the thread keeps what
 * it loaded.  The IPC fast path switches threads without the C path, so the tamperer talks to
 * its partner through it (and, with a receive timeout, through the C path), with the message
 * in registers only: once its GS base is 0, %gs:0 (libl4's UTCB pointer) is gone. */
static l4_word_t ipc_entry;                    /* the KIP's Ipc stub */
static uint32_t user_ds;                        /* a GDT data selector: our %ss */

/* Call `to` with the tag and MR1 in registers, receive timeout `rcv`; returns the tag. */
static l4_word_t raw_call(l4_word_t to, l4_word_t tag, l4_word_t mr1, uint16_t rcv)
{
    register l4_word_t r9 __asm__("r9") = tag;
    register l4_word_t r8 __asm__("r8") = l4_timeouts(L4_NEVER, rcv);
    l4_word_t rax = mr1, rsi = to, rdx = to;
    __asm__ volatile("push %%rbp\n\t"
                     "call *%[entry]\n\t"
                     "pop %%rbp"
                     : "+a"(rax), "+S"(rsi), "+d"(rdx), "+r"(r9), "+r"(r8)
                     : [entry] "m"(ipc_entry)
                     : "rbx", "rcx", "rdi", "r10", "r11", "r12", "r13", "r14", "r15", "memory");
    return r9;
}

static volatile l4_word_t tamper_partner;

/* Load a GDT selector into %fs and a null one into %gs, then Call the partner four times:
 * even rounds by the fast path, odd ones with a receive timeout (the C path).  MR1: our GS
 * base as rdgsbase reads it (~0 without FSGSBASE). */
static void tamper_and_call(void)
{
    l4_word_t to = tamper_partner;
    __asm__ volatile("movl %0, %%fs" :: "r"(user_ds));
    __asm__ volatile("movl %0, %%gs" :: "r"(0u));
    for (unsigned i = 0;; i++) {
        l4_word_t gs = ~0ul;
        if (fsgsbase)
            __asm__ volatile("rdgsbase %0" : "=r"(gs));
        raw_call(to, l4_tag_make(20 + (i & 3), 1, 0), gs, i & 1 ? l4_period_from_us(1000000) : L4_NEVER);
    }
}

/* The partner (us) keeps its bases, default or its own, and sees the tamperer's as it left
 * them, the same in every round: FS 0 (the descriptor's base), GS 0 or, on a CPU that keeps
 * the base for a null selector, unchanged; with FSGSBASE also what the tamperer reads. */
static void tamper_rounds(l4_word_t t, bool own)
{
    l4_word_t gs_null = ~0ul;
    for (l4_word_t i = 0; i < 4; i++) {
        l4_word_t from, tag = tu_serve(&from);
        CHECK(from == t || from == l4_local_id_of(t), "from %lx", from);
        CHECK_EQ(l4_tag_label(tag), 20 + i);
        CHECK(own ? bases_are(&fs_main, 0x8181, &gs_main, 0x8282) : bases_are_default(),
              "round %lu: our bases, and %%gs:0 our UTCB pointer", i);
        l4_word_t fs, gs;
        exregs_bases(t, &fs, &gs);
        CHECK_EQ(fs, 0);
        CHECK(gs == 0 || gs == gs_page, "gs %lx", gs);
        if (fsgsbase)
            CHECK_EQ(l4_mr(1), gs);
        if (i == 0)
            gs_null = gs;
        CHECK_EQ(gs, gs_null);
        l4_set_mr(0, 0);
        l4_reply(from);
    }
}

TEST(selector_loads_reach_no_other_thread_in_the_space)
{
    tamper_partner = l4_my_global_id();
    l4_word_t t = tu_thread(tamper_and_call, 100);
    tamper_rounds(t, false);
    CHECK(bases_are_default());
    tu_kill(t);
}

TEST(selector_loads_reach_no_thread_of_another_space)
{
    own_bases(&fs_main, 0x8181, &gs_main, 0x8282);
    tamper_partner = l4_my_global_id();
    l4_word_t t = tu_space_thread(tamper_and_call, 100);
    tamper_rounds(t, true);
    set_my_bases(0, gs_page);
    CHECK(bases_are_default());
    tu_kill(t);
}

/* --- exceptions -------------------------------------------------------------------------------- */

static void faulter(void)
{
    l4_set_exception_handler(tu_main_tid());
    own_bases(&fs_a, 0x6161, &gs_a, 0x6262);
    __asm__ volatile("ud2" ::: "memory");
    report2(11, bases_are(&fs_a, 0x6161, &gs_a, 0x6262), 0);
    l4_sleep_forever();
}

TEST(bases_survive_an_exception_round_trip)
{
    own_bases(&fs_main, 0x7171, &gs_main, 0x7272);
    l4_word_t t = tu_space_thread(faulter, 100), from;
    l4_word_t tag = tu_serve(&from);
    CHECK_EQ(from, t);
    CHECK(l4_tag_is_proto(tag, L4_PROTO_EXCEPTION), "tag %lx", tag);
    CHECK_EQ(l4_mr(19), 6);
    CHECK(bases_are(&fs_main, 0x7171, &gs_main, 0x7272), "the handler has its own bases");
    l4_word_t rip = l4_mr(1) + 2;
    l4_set_mr(0, l4_tag_make(0, 1, 0));
    l4_set_mr(1, rip);
    l4_reply(from);
    l4_word_t x, y;
    CHECK_EQ(next_report(&from, &x, &y), 11);
    CHECK(x, "the faulting thread has its bases back");
    set_my_bases(0, gs_page);
    CHECK(bases_are_default());
    tu_kill(t);
}

/* --- migration ------------------------------------------------------------------------------- */

/* Pecan moves a thread to another space (ThreadControl with another space specifier) only
 * while it is inactive: it has never run and ExchangeRegisters refuses it, so its bases are
 * the initial ones.  It starts in its new space with FS 0 and the GS page. */
static uint8_t migrant_stack[4096] __attribute__((aligned(16)));

static void migrant(void)
{
    l4_word_t fs, gs;
    exregs_bases(l4_my_global_id(), &fs, &gs);
    report2(12, fs, gs);
    report2(13, bases_are_default(), 0);
    l4_sleep_forever();
}

TEST(a_migrated_thread_starts_with_the_initial_bases)
{
    l4_word_t me = tu_main_tid(), host = tu_space_thread(sleep_forever, 100);
    l4_word_t t = tu_new_tid();
    CHECK_EQ(l4_thread_control(t, me, me, L4_NILTHREAD, ~0ul), 1);     /* inactive, our space */
    CHECK_EQ(l4_exchange_bases(t, L4_EXREGS_SET_FS_BASE, 0x1000, 0, NULL, NULL), L4_NILTHREAD);
    CHECK_EQ(l4_error_code(), L4_ERR_INVALID_THREAD);
    CHECK_EQ(l4_thread_control(t, host, L4_NILTHREAD, L4_NILTHREAD, ~0ul), 1);  /* migrate */
    CHECK_EQ(l4_thread_control(t, host, L4_NILTHREAD, me, 0xBF000000ul + L4_UTCB_SIZE), 1);
    l4_set_mr(0, l4_tag_make(0, 2, 0));
    l4_set_mr(1, (l4_word_t)migrant);
    l4_set_mr(2, (l4_word_t)migrant_stack + sizeof(migrant_stack) - 8);
    l4_send(t);
    l4_word_t from, x, y;
    CHECK_EQ(next_report(&from, &x, &y), 12);
    CHECK_EQ(from, t);
    CHECK_EQ(x, 0);
    CHECK_EQ(y, gs_page);
    CHECK_EQ(next_report(&from, &x, &y), 13);
    CHECK(x, "%%gs:0 is its UTCB pointer in the new space");
    tu_kill(t);
    tu_kill(host);
}

int main(void)
{
    detect_fsgsbase();
    ipc_entry = l4_kip_get(L4_KIP_OFF_IPC);
    __asm__ volatile("movl %%ss, %0" : "=r"(user_ds));
    l4_word_t fs;
    exregs_bases(l4_my_global_id(), &fs, &gs_page);
    tests_run("fsbase");
}
