/* Host unit test of the binary-interface headers include/l4/ (all headers) against the tables of the
 * contract (shared/spec/x2-amd64-abi.md).  Every check prints one line, "ok NAME" or
 * "FAIL NAME: ..."; the exit status is the number of failures (capped).  The expected
 * values are the contract's literals, not values computed with the headers. */
#include <stdio.h>
#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include <l4/types.h>
#include <l4/thread.h>
#include <l4/fpage.h>
#include <l4/time.h>
#include <l4/message.h>
#include <l4/utcb.h>
#include <l4/kip.h>
#include <l4/control.h>
#include <l4/pecan.h>

static int failures, checks;

static void check_eq(const char *name, unsigned long long got, unsigned long long want)
{
    checks++;
    if (got == want) {
        printf("ok   %s\n", name);
    } else {
        printf("FAIL %s: got 0x%llx, want 0x%llx\n", name, got, want);
        failures++;
    }
}

static void check(const char *name, int cond)
{
    checks++;
    if (cond) {
        printf("ok   %s\n", name);
    } else {
        printf("FAIL %s\n", name);
        failures++;
    }
}

#define EQ(got, want) check_eq(#got " == " #want, (unsigned long long)(got), (unsigned long long)(want))
#define TRUE(cond)    check(#cond, (cond) ? 1 : 0)
#define FALSE(cond)   check("!(" #cond ")", (cond) ? 0 : 1)

/* --- §1.1 thread identifiers --------------------------------------------------------- */
static void test_thread_ids(void)
{
    EQ(L4_NILTHREAD, 0x0000000000000000ull);
    EQ(L4_ANYTHREAD, 0xFFFFFFFFFFFFFFFFull);
    EQ(L4_ANYLOCALTHREAD, 0xFFFFFFFFFFFFFFC0ull);

    EQ(l4_global_id(0x30, 1), 0x0000003000000001ull);
    EQ(l4_global_id(0x12345, 0x67), 0x0001234500000067ull);
    EQ(l4_global_id(5, 0x1FFFFFFFFull), 0x00000005FFFFFFFFull);   /* version is 32 bits */
    EQ(l4_thread_no(0xABCDEF0012345678ull), 0xABCDEF00ull);
    EQ(l4_version(0xABCDEF0012345678ull), 0x12345678ull);

    TRUE(l4_is_local_id(0xBF000200ull));          /* initial local id (Appendix A) */
    FALSE(l4_is_global_id(0xBF000200ull));
    TRUE(l4_is_local_id(L4_ANYLOCALTHREAD));
    TRUE(l4_is_global_id(L4_ANYTHREAD));
    TRUE(l4_is_global_id(0x0000003000000001ull));
    FALSE(l4_is_global_id(0x0000003000000040ull)); /* version with low six bits zero */
    TRUE(l4_is_nil(L4_NILTHREAD));
    FALSE(l4_is_nil(0x0000003000000001ull));

    FALSE(l4_version_valid(0x40));
    FALSE(l4_version_valid(0));
    TRUE(l4_version_valid(1));
    TRUE(l4_version_valid(0x41));
}

/* --- §1.2, §6.7 fpages --------------------------------------------------------------- */
static void test_fpages(void)
{
    EQ(L4_R, 4);
    EQ(L4_W, 2);
    EQ(L4_X, 1);
    EQ(L4_RWX, 7);
    EQ(L4_NILPAGE, 0);
    EQ(L4_COMPLETE_FPAGE, 0x10);

    /* s in bits 4-9, base bits 10-63 aligned down to the size, rights in bits 0-2 */
    EQ(l4_fpage_log2(0x12345678, 12), 0x123450C0ull);
    EQ(l4_fpage_set_rights(l4_fpage_log2(0x12345678, 12), L4_R | L4_W), 0x123450C6ull);
    EQ(l4_fpage_set_rights(0x123450C7ull, L4_X), 0x123450C1ull);
    EQ(l4_fpage_rights(0x123450C6ull), 6);
    EQ(l4_fpage_size_log2(0x123450C6ull), 12);
    EQ(l4_fpage_log2(0x12345678, 21), 0x12200150ull);
    EQ(l4_fpage_log2(0x12345678, 8), 0x12345480ull);   /* bits 0-9 cleared even for s < 10 */
    EQ(l4_fpage_log2(0x00007FFFFFFFF000ull, 47), 0x2F0ull);
    EQ(l4_fpage_log2(0x0000400000001234ull, 46), 0x00004000000002E0ull);
    EQ(l4_fpage_base(0x123450C6ull), 0x12345000ull);
    EQ(l4_fpage_base(0x12345CC5ull), 0x12345000ull);  /* base bits 10..s-1 ignored */
    EQ(l4_fpage_base(0x12200157ull), 0x12200000ull);
    EQ(l4_fpage_base(0x17ull), 0);
    EQ(l4_fpage_order(0x123450C0ull), 12);
    EQ(l4_fpage_order(0x12200150ull), 21);

    TRUE(l4_is_nil_fpage(0));
    FALSE(l4_is_nil_fpage(0x10));
    FALSE(l4_is_nil_fpage(0x123450C0ull));
    EQ(l4_fpage_order(0), 0);

    TRUE(l4_is_complete_fpage(0x10));
    TRUE(l4_is_complete_fpage(0x17));
    FALSE(l4_is_complete_fpage(0x410));     /* b != 0 */
    FALSE(l4_is_complete_fpage(0x20));
    FALSE(l4_is_complete_fpage(0));
    EQ(l4_fpage_order(0x17), 64);
    /* The complete fpage "is treated as size 2^64" (§1.2) and l4_fpage_order() reports 64
     * for it, so asking the constructor for 2^64 bytes must give the complete fpage. */
    EQ(l4_fpage_log2(0, 64), L4_COMPLETE_FPAGE);

    /* I/O fpages (§6.7) */
    EQ(l4_io_fpage(0x3F8, 3), 0x03F80C20ull);
    EQ(l4_io_fpage(0x3FB, 3), 0x03F80C20ull);  /* base aligned down to 2^s */
    EQ(l4_io_fpage(0, 16), 0x00004020ull);
    EQ(l4_io_fpage(0x60, 0), 0x00600020ull);
    EQ(l4_io_fpage(0xFFFF, 1), 0xFFFE0420ull);
    TRUE(l4_is_io_fpage(0x03F80C20ull));
    TRUE(l4_is_io_fpage(0x00004020ull));
    FALSE(l4_is_io_fpage(0x123450C0ull));
    FALSE(l4_is_io_fpage(0x10));
    EQ(l4_io_fpage_port(0x03F80C20ull), 0x3F8);
    EQ(l4_io_fpage_log2(0x03F80C20ull), 3);
    EQ(l4_io_fpage_port(0x03FB0C20ull), 0x3F8);
    EQ(l4_io_fpage_port(0x00004020ull), 0);
    EQ(l4_io_fpage_log2(0x00004020ull), 16);
}

/* --- §1.3 time ----------------------------------------------------------------------- */
static uint16_t point(unsigned e, unsigned c, unsigned m)
{
    return (uint16_t)(0x8000u | (e << 11) | (c << 10) | m);
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void test_time(void)
{
    EQ(L4_NEVER, 0x0000);
    EQ(L4_ZERO_TIME, 0x0400);
    TRUE(l4_time_is_never(0x0000));
    FALSE(l4_time_is_never(0x0400));
    TRUE(l4_time_is_zero(0x0400));
    TRUE(l4_time_is_zero(0x0800));          /* m = 0, e = 2 */
    TRUE(l4_time_is_zero(0x7C00));          /* m = 0, e = 31 */
    FALSE(l4_time_is_zero(0x0000));         /* never */
    FALSE(l4_time_is_zero(0x0401));
    FALSE(l4_time_is_zero(0x8400));         /* a point */
    TRUE(l4_time_is_point(0x8000));
    FALSE(l4_time_is_point(0x7FFF));

    EQ(l4_period_e(0x2BD1), 10);
    EQ(l4_period_m(0x2BD1), 977);
    EQ(l4_period_us(0x0001), 1);
    EQ(l4_period_us(0x0401), 2);
    EQ(l4_period_us(0x03E8), 1000);
    EQ(l4_period_us(0x0400), 0);
    EQ(l4_period_us(0x7FFF), 1023ull << 31);
    EQ(l4_period_us(0x0000), ~0ull);        /* never */
    EQ(l4_period_us((4 << 10) | 625), 10000);   /* Pistachio's default 10 ms slice */

    EQ(l4_period_from_us(0), 0x0400);
    EQ(l4_period_from_us(1), 0x0001);
    EQ(l4_period_from_us(1023), 0x03FF);
    EQ(l4_period_from_us(1024), 0x0600);    /* e = 1, m = 512 */
    EQ(l4_period_from_us(1025), 0x0601);    /* rounded up: e = 1, m = 513 */
    EQ(l4_period_from_us(10000), (4 << 10) | 625);
    EQ(l4_period_from_us(1000000), 0x2BD1); /* e = 10, m = 977: 1000448 us */
    EQ(l4_period_from_us(1023ull << 31), 0x7FFF);
    EQ(l4_period_from_us((1023ull << 31) + 1), L4_NEVER);   /* beyond the largest period */
    EQ(l4_period_from_us(1ull << 60), L4_NEVER);
    EQ(l4_period_from_us(~0ull), L4_NEVER);

    /* Round trip: the encoding is never shorter than asked and is the smallest one that
     * is not (no smaller mantissa with the same exponent, no smaller exponent fits). */
    int bad_roundtrip = 0, bad_exact = 0;
    for (int i = 0; i < 20000; i++) {
        uint64_t us = rng() >> (rng() % 64);
        if (us > (1023ull << 31))
            us >>= 24;
        if (us == 0)
            continue;
        uint16_t p = l4_period_from_us(us);
        uint64_t got = l4_period_us(p);
        unsigned e = l4_period_e(p), m = l4_period_m(p);
        if (l4_time_is_point(p) || p == L4_NEVER || got < us ||
            ((uint64_t)(m - 1) << e) >= us || (e > 0 && (1023ull << (e - 1)) >= us)) {
            if (bad_roundtrip++ < 5)
                printf("  period_from_us(%llu) = 0x%04x (%llu us)\n",
                       (unsigned long long)us, p, (unsigned long long)got);
        }
    }
    for (unsigned e = 0; e < 32; e++) {
        for (unsigned m = 512; m < 1024; m += 37) {
            uint64_t us = (uint64_t)m << e;
            if (e == 0 && m > 1023)
                continue;
            if (l4_period_us(l4_period_from_us(us)) != us)
                bad_exact++;
        }
    }
    check("period_from_us round trip (20000 random durations)", bad_roundtrip == 0);
    check("period_from_us exact for representable durations", bad_exact == 0);

    /* Points: bit 15, c = bit 10, e = bits 11-14, m = bits 0-9. */
    EQ(l4_point_e(point(5, 1, 0x155)), 5);
    EQ(l4_point_c(point(5, 1, 0x155)), 1);
    EQ(l4_point_m(point(5, 1, 0x155)), 0x155);
    EQ(point(15, 1, 1023), 0xFFFF);

    /* now + delta in the current or the following 2^(e+10) us window: the point made from
     * that instant's clock bits converts back to it (rounded down to 2^e). */
    int bad_future = 0, bad_past = 0;
    for (int i = 0; i < 20000; i++) {
        uint64_t now = rng() >> 20;
        unsigned e = (unsigned)(rng() % 16);
        uint64_t window = 1ull << (e + 10);
        uint64_t target = now + rng() % window;
        uint16_t pt = point(e, (unsigned)(target >> (e + 10)) & 1, (unsigned)(target >> e) & 0x3FF);
        uint64_t want = target & ~((1ull << e) - 1);
        uint64_t got = l4_point_to_clock(pt, now);
        if (got != want) {
            if (bad_future++ < 5)
                printf("  point 0x%04x now %llu: got %llu want %llu\n", pt,
                       (unsigned long long)now, (unsigned long long)got, (unsigned long long)want);
        }
        /* A point earlier in the current window has passed: result < now. */
        uint64_t start = now & ~(window - 1);
        if (now - start >= (1ull << e)) {
            uint64_t past = start + rng() % ((now - start) & ~((1ull << e) - 1));
            uint16_t pp = point(e, (unsigned)(past >> (e + 10)) & 1, (unsigned)(past >> e) & 0x3FF);
            uint64_t r = l4_point_to_clock(pp, now);
            if (r >= now || r != (past & ~((1ull << e) - 1)))
                bad_past++;
        }
    }
    check("point_to_clock: now + delta in this and the next window", bad_future == 0);
    check("point_to_clock: a passed point gives a value < now", bad_past == 0);
    /* worked example: e = 0, clock 0x12345 (window 0x48, bit 10 = 0, m = 0x345) */
    EQ(l4_point_to_clock(point(0, 0, 0x345), 0x12300), 0x12345);
    EQ(l4_point_to_clock(point(0, 1, 0x001), 0x12300), 0x12401);   /* next window */
    EQ(l4_point_to_clock(point(0, 0, 0x001), 0x12300), 0x12001);   /* passed */

    /* Timeouts word: bits 0-15 receive, 16-31 send. */
    EQ(l4_timeouts(0x0400, 0x0000), 0x04000000ull);
    EQ(l4_timeouts(0x1234, 0x5678), 0x12345678ull);
    EQ(l4_snd_timeout(0x12345678ull), 0x1234);
    EQ(l4_rcv_timeout(0x12345678ull), 0x5678);
}

/* --- §1.4 message tag and protocol labels (and Appendix A) -------------------------- */
static void test_tags(void)
{
    EQ(l4_tag_make(0x1234, 3, 2), 0x0000000012340083ull);
    EQ(l4_tag_u(0x0000000012340083ull), 3);
    EQ(l4_tag_t(0x0000000012340083ull), 2);
    EQ(l4_tag_label(0x0000000012340083ull), 0x1234);
    EQ(l4_tag_make(0xFFFFFFFFFFFFull, 63, 63), 0xFFFFFFFFFFFF0FFFull);
    EQ(L4_TAG_U_MASK, 0x3F);
    EQ(L4_TAG_T_MASK, 0xFC0);
    EQ(L4_TAG_T_SHIFT, 6);
    EQ(L4_TAG_P, 0x1000);
    EQ(L4_TAG_R, 0x2000);
    EQ(L4_TAG_X, 0x4000);
    EQ(L4_TAG_E, 0x8000);
    EQ(L4_TAG_LABEL_SHIFT, 16);
    EQ(l4_tag_label(0xFFFFFFFFFFE40002ull), 0xFFFFFFFFFFE4ull);

    /* Every MR0 of the protocol table. */
    EQ(l4_tag_make(0xFFFFFFFFFFF0ull, 0, 0), 0xFFFFFFFFFFF00000ull);       /* interrupt */
    EQ(l4_tag_make(0xFFFFFFFFFFE0ull | 4, 2, 0), 0xFFFFFFFFFFE40002ull);   /* pf read */
    EQ(l4_tag_make(0xFFFFFFFFFFE0ull | 2, 2, 0), 0xFFFFFFFFFFE20002ull);   /* pf write */
    EQ(l4_tag_make(0xFFFFFFFFFFE0ull | 1, 2, 0), 0xFFFFFFFFFFE10002ull);   /* pf execute */
    EQ(l4_tag_make(0xFFFFFFFFFFD0ull, 2, 0), 0xFFFFFFFFFFD00002ull);       /* preemption */
    EQ(l4_tag_make(0xFFFFFFFFFFB0ull, 19, 0), 0xFFFFFFFFFFB00013ull);      /* exception u=19 */
    EQ(l4_tag_make(0xFFFFFFFFFFB0ull, 20, 0), 0xFFFFFFFFFFB00014ull);      /* exception u=20 */
    EQ(l4_tag_make(0xFFFFFFFFFFA0ull, 2, 0), 0xFFFFFFFFFFA00002ull);       /* sigma0 */
    EQ(l4_tag_make(0xFFFFFFFFFFA0ull, 3, 0), 0xFFFFFFFFFFA00003ull);
    EQ(l4_tag_make(0xFFFFFFFFFF80ull | 6, 2, 0), 0xFFFFFFFFFF860002ull);   /* I/O pf */
    EQ(l4_tag_make(0xFFFFFFFFC170ull, 2, 0), 0xFFFFFFFFC1700002ull);       /* sigma0 ext */

    /* Recognition: MR0 with bits 0-19 masked equals -k << 20. */
    EQ(L4_PROTO_MASK, 0xFFFFFFFFFFF00000ull);
    EQ(L4_PROTO_INTERRUPT, 0xFFFFFFFFFFF00000ull);
    EQ(L4_PROTO_PAGEFAULT, 0xFFFFFFFFFFE00000ull);
    EQ(L4_PROTO_PREEMPTION, 0xFFFFFFFFFFD00000ull);
    EQ(L4_PROTO_EXCEPTION, 0xFFFFFFFFFFB00000ull);
    EQ(L4_PROTO_SIGMA0, 0xFFFFFFFFFFA00000ull);
    EQ(L4_PROTO_IO_PAGEFAULT, 0xFFFFFFFFFF800000ull);
    EQ(L4_PROTO_SIGMA0_EXT, 0xFFFFFFFFC1700000ull);
    EQ(L4_PROTO(4), 0xFFFFFFFFFFC00000ull);
    TRUE(l4_tag_is_proto(0xFFFFFFFFFFF00000ull, L4_PROTO_INTERRUPT));
    TRUE(l4_tag_is_proto(0xFFFFFFFFFFE40002ull, L4_PROTO_PAGEFAULT));
    TRUE(l4_tag_is_proto(0xFFFFFFFFFFE10002ull, L4_PROTO_PAGEFAULT));
    TRUE(l4_tag_is_proto(0xFFFFFFFFFFD00002ull, L4_PROTO_PREEMPTION));
    TRUE(l4_tag_is_proto(0xFFFFFFFFFFB00014ull, L4_PROTO_EXCEPTION));
    TRUE(l4_tag_is_proto(0xFFFFFFFFFFA00003ull, L4_PROTO_SIGMA0));
    TRUE(l4_tag_is_proto(0xFFFFFFFFFF860002ull, L4_PROTO_IO_PAGEFAULT));
    TRUE(l4_tag_is_proto(0xFFFFFFFFC1700002ull, L4_PROTO_SIGMA0_EXT));
    FALSE(l4_tag_is_proto(0xFFFFFFFFFFA00002ull, L4_PROTO_PAGEFAULT));
    FALSE(l4_tag_is_proto(0x0000000000000002ull, L4_PROTO_PAGEFAULT));
    FALSE(l4_tag_is_proto(0xFFFFFFFFFFE40002ull, L4_PROTO_INTERRUPT));

    EQ(L4_MR_COUNT, 64);
    EQ(L4_BR_COUNT, 33);
}

/* --- §1.5, §1.6 typed items and acceptor --------------------------------------------- */
static void test_items(void)
{
    EQ(l4_map_item(0x12345678), 0x12345408ull);          /* SndBase | 0x8 */
    EQ(l4_grant_item(0x12345678), 0x1234540Aull);        /* SndBase | 0xA */
    EQ(l4_map_item(0), 0x8);
    EQ(l4_map_item_sndbase(0x12345408ull), 0x12345400ull);
    EQ(L4_ITEM_TYPE(0x8), 4);
    EQ(L4_ITEM_TYPE(0xA), 5);
    EQ(L4_ITEM_TYPE(0xC), 6);
    EQ(L4_ITEM_TYPE(0xE), 7);
    EQ(L4_ITEM_MAP, 4);
    EQ(L4_ITEM_GRANT, 5);
    EQ(L4_ITEM_CTRLXFER, 6);
    EQ(L4_ITEM_RESERVED, 7);
    EQ(L4_ITEM_C, 1);
    TRUE(l4_item_is_map(0x12345408ull));
    TRUE(l4_item_is_map(0x12345409ull));                 /* C bit does not matter */
    FALSE(l4_item_is_map(0x1234540Aull));
    TRUE(l4_item_is_grant(0x1234540Aull));
    FALSE(l4_item_is_string(0x8));
    FALSE(l4_item_is_string(0xA));
    TRUE(l4_item_is_string(0x0));
    TRUE(l4_item_is_string(0x6));                        /* hh = 11 */
    TRUE(l4_item_is_string(0x40001));

    /* string item: bits 1-2 hh, 3 = 0, 4-8 j, 9 c, 10-63 length */
    EQ(l4_string_item(256, 1, false), 0x40000ull);
    EQ(l4_string_item(64, 4, false), 0x10030ull);
    EQ(l4_string_item(128, 1, true), 0x20200ull);
    EQ(l4_string_item(32, 32, false), 0x81F0ull);
    EQ(l4_string_substrings(0x10030ull), 4);
    EQ(l4_string_substrings(0x81F0ull), 32);
    EQ(l4_string_length(0x10030ull), 64);
    TRUE(l4_string_compound(0x20200ull));
    FALSE(l4_string_compound(0x40000ull));
    EQ(l4_string_length(0xFFFFFFFFFFFFFC00ull), 0x3FFFFFFFFFFFFFull);

    /* acceptor: bit 0 strings, bits 4-63 receive window */
    EQ(L4_ACCEPT_STRINGS, 0x1);
    EQ(l4_acceptor_window(0x11), 0x10);
    EQ(l4_acceptor_window(0x123450C3ull), 0x123450C0ull);
}

/* --- §1.7 error codes ---------------------------------------------------------------- */
static void test_errors(void)
{
    EQ(l4_ipc_error(4, true, 252), 0xFC9);
    EQ(l4_ipc_error(1, false, 0), 0x2);
    EQ(l4_ipc_error(7, true, 1ull << 40), (1ull << 44) | 0xF);
    EQ(l4_ipc_error_code(0xFC9), 4);
    TRUE(l4_ipc_error_is_rcv(0xFC9));
    FALSE(l4_ipc_error_is_rcv(0x2));
    EQ(l4_ipc_error_offset(0xFC9), 252);
    EQ(L4_IPC_ERR_RECEIVE_PHASE, 1);
    EQ(L4_IPC_TIMEOUT, 1);
    EQ(L4_IPC_NOPARTNER, 2);
    EQ(L4_IPC_CANCELED, 3);
    EQ(L4_IPC_OVERFLOW, 4);
    EQ(L4_IPC_XFER_TIMEOUT_OWN, 5);
    EQ(L4_IPC_XFER_TIMEOUT_PEER, 6);
    EQ(L4_IPC_ABORTED, 7);
    EQ(L4_ERR_OK, 0);
    EQ(L4_ERR_NO_PRIVILEGE, 1);
    EQ(L4_ERR_INVALID_THREAD, 2);
    EQ(L4_ERR_INVALID_SPACE, 3);
    EQ(L4_ERR_INVALID_SCHED, 4);
    EQ(L4_ERR_INVALID_PARAM, 5);
    EQ(L4_ERR_UTCB_AREA, 6);
    EQ(L4_ERR_KIP_AREA, 7);
    EQ(L4_ERR_NO_MEM, 8);
}

/* --- §2 KIP -------------------------------------------------------------------------- */
static void test_kip(void)
{
    uint32_t magic = L4_KIP_MAGIC;
    unsigned char b[4];
    memcpy(b, &magic, 4);
    check("KIP magic bytes 4C 34 E6 4B ('L' '4' 0xE6 'K')",
          b[0] == 0x4C && b[1] == 0x34 && b[2] == 0xE6 && b[3] == 0x4B);
    EQ(L4_KIP_API_VERSION, 0x84050000ull);
    EQ((L4_KIP_API_VERSION >> 24) & 0xFF, 0x84);      /* X.2 */
    EQ(L4_KIP_API_FLAGS, 0x4);
    EQ(L4_KIP_KERNEL_ID, 0x06010000ull);               /* decision 8: (6, 1) */

    EQ(L4_KIP_OFF_MAGIC, 0x000);
    EQ(L4_KIP_OFF_API_VERSION, 0x008);
    EQ(L4_KIP_OFF_API_FLAGS, 0x010);
    EQ(L4_KIP_OFF_KERNEL_VER_PTR, 0x018);
    EQ(L4_KIP_OFF_KDEBUG_INIT, 0x020);
    EQ(L4_KIP_OFF_KDEBUG_ENTRY, 0x028);
    EQ(L4_KIP_OFF_KDEBUG_LOW, 0x030);
    EQ(L4_KIP_OFF_KDEBUG_HIGH, 0x038);
    EQ(L4_KIP_OFF_SIGMA0, 0x040);
    EQ(L4_KIP_OFF_SIGMA1, 0x060);
    EQ(L4_KIP_OFF_ROOT, 0x080);
    EQ(L4_KIP_OFF_MEMORY_INFO, 0x0A8);
    EQ(L4_KIP_OFF_RESERVED_MEM0, 0x0D0);
    EQ(L4_KIP_OFF_UTCB_INFO, 0x150);
    EQ(L4_KIP_OFF_KIP_AREA_INFO, 0x158);
    EQ(L4_KIP_OFF_BOOT_INFO, 0x170);
    EQ(L4_KIP_OFF_PROC_DESC_PTR, 0x178);
    EQ(L4_KIP_OFF_CLOCK_INFO, 0x180);
    EQ(L4_KIP_OFF_THREAD_INFO, 0x188);
    EQ(L4_KIP_OFF_PAGE_INFO, 0x190);
    EQ(L4_KIP_OFF_PROCESSOR_INFO, 0x198);
    EQ(L4_KIP_OFF_SPACE_CONTROL, 0x1A0);
    EQ(L4_KIP_OFF_THREAD_CONTROL, 0x1A8);
    EQ(L4_KIP_OFF_PROC_CONTROL, 0x1B0);
    EQ(L4_KIP_OFF_MEMORY_CONTROL, 0x1B8);
    EQ(L4_KIP_OFF_IPC, 0x1C0);
    EQ(L4_KIP_OFF_LIPC, 0x1C8);
    EQ(L4_KIP_OFF_UNMAP, 0x1D0);
    EQ(L4_KIP_OFF_EXREGS, 0x1D8);
    EQ(L4_KIP_OFF_SYSTEM_CLOCK, 0x1E0);
    EQ(L4_KIP_OFF_THREAD_SWITCH, 0x1E8);
    EQ(L4_KIP_OFF_SCHEDULE, 0x1F0);
    EQ(L4_KIP_OFF_ARCH_SYSCALL0, 0x220);
    EQ(L4_KIP_FIXED_END, 0x240);

    unsigned char kip[4096];
    memset(kip, 0, sizeof kip);
    uint64_t w = 0x1122334455667788ull;
    memcpy(kip + 0x188, &w, 8);
    EQ(l4_kip_word(kip, 0x188), 0x1122334455667788ull);

    /* UtcbAreaInfo 0x000C2801: m = 1, a = 10, s = 12; KipAreaInfo 0xC */
    EQ(L4_KIP_UTCB_INFO, 0x000C2801ull);
    EQ(L4_KIP_UTCB_INFO & 0x3FF, 1);
    EQ((L4_KIP_UTCB_INFO >> 10) & 0x3F, 10);
    EQ((L4_KIP_UTCB_INFO >> 16) & 0x3F, 12);
    EQ(L4_KIP_KIP_AREA_INFO, 0xC);

    /* ThreadInfo: 0-7 t, 8-19 SystemBase, 20-31 UserBase */
    uint64_t ti = 18 | (16 << 8) | (48 << 20);
    EQ(ti, 0x03001012ull);
    EQ(l4_threadinfo_bits(ti), 18);
    EQ(l4_threadinfo_system_base(ti), 16);
    EQ(l4_threadinfo_user_base(ti), 48);
    EQ(l4_threadinfo_system_base(0xFFFFFFFFull), 0xFFF);
    EQ(l4_threadinfo_user_base(0xFFFFFFFFull), 0xFFF);
    EQ(l4_threadinfo_bits(0xFFFFFFFFull), 0xFF);

    /* Memory descriptors (§2.6) */
    EQ(sizeof(struct l4_memdesc), 16);
    EQ(L4_MEMDESC_UNDEFINED, 0x0);
    EQ(L4_MEMDESC_CONVENTIONAL, 0x1);
    EQ(L4_MEMDESC_RESERVED, 0x2);
    EQ(L4_MEMDESC_DEDICATED, 0x3);
    EQ(L4_MEMDESC_SHARED, 0x4);
    EQ(L4_MEMDESC_BOOTLOADER, 0xE);
    EQ(L4_MEMDESC_ARCH, 0xF);
    EQ(L4_BOOTLOADER_SUB_TABLE, 1);
    EQ(L4_BOOTLOADER_SUB_SERVER, 2);
    EQ(L4_BOOTLOADER_SUB_MODULE, 3);

    struct l4_memdesc d = l4_memdesc_make(0x100000, 0x7FFFFFF, L4_MEMDESC_CONVENTIONAL, 0, false);
    EQ(d.lo, 0x100001ull);
    EQ(d.hi, 0x7FFFC00ull);
    EQ(l4_memdesc_low(&d), 0x100000ull);
    EQ(l4_memdesc_high(&d), 0x7FFFFFFull);
    EQ(l4_memdesc_type(&d), 1);
    FALSE(l4_memdesc_virtual(&d));
    d = l4_memdesc_make(0, 0x00007FFFFFFFFFFFull, L4_MEMDESC_CONVENTIONAL, 0, true);
    EQ(d.lo, 0x201ull);
    EQ(d.hi, 0x00007FFFFFFFFC00ull);
    TRUE(l4_memdesc_virtual(&d));
    EQ(l4_memdesc_high(&d), 0x00007FFFFFFFFFFFull);
    d = l4_memdesc_make(0, ~0ull, L4_MEMDESC_SHARED, 0, false);
    EQ(d.lo, 0x4);
    EQ(d.hi, 0xFFFFFFFFFFFFFC00ull);
    EQ(l4_memdesc_high(&d), ~0ull);
    d = l4_memdesc_make(0xF00000, 0xF0FFFF, L4_MEMDESC_BOOTLOADER, L4_BOOTLOADER_SUB_SERVER, false);
    EQ(d.lo, 0xF0002Eull);
    EQ(l4_memdesc_type(&d), 0xE);
    EQ(l4_memdesc_subtype(&d), 2);
    d = l4_memdesc_make(0xFEE00000, 0xFEE00FFF, L4_MEMDESC_ARCH, 3, false);
    EQ(d.lo, 0xFEE0003Full);
    EQ(l4_memdesc_subtype(&d), 3);
    EQ(l4_memdesc_low(&d), 0xFEE00000ull);
    EQ(l4_memdesc_high(&d), 0xFEE00FFFull);

    /* Generic boot information (§7.3) */
    EQ(L4_BOOTINFO_MAGIC, 0x14B0021Dull);
    EQ(sizeof(struct l4_bootinfo), 64);
    EQ(offsetof(struct l4_bootinfo, version), 8);
    EQ(offsetof(struct l4_bootinfo, size), 16);
    EQ(offsetof(struct l4_bootinfo, first_entry), 24);
    EQ(offsetof(struct l4_bootinfo, num_entries), 32);
    EQ(sizeof(struct l4_bootrec), 24);
    EQ(offsetof(struct l4_bootrec, offset_next), 16);
    EQ(sizeof(struct l4_bootrec_module), 48);
    EQ(offsetof(struct l4_bootrec_module, start), 24);
    EQ(offsetof(struct l4_bootrec_module, size), 32);
    EQ(offsetof(struct l4_bootrec_module, cmdline_offset), 40);
    EQ(sizeof(struct l4_bootrec_multiboot), 32);
    EQ(offsetof(struct l4_bootrec_multiboot, address), 24);
    EQ(L4_BOOTREC_MODULE, 0x0001);
    EQ(L4_BOOTREC_SIMPLE_EXEC, 0x0002);
    EQ(L4_BOOTREC_MULTIBOOT, 0x0102);
}

/* --- §3.2 UTCB ----------------------------------------------------------------------- */
static void test_utcb(void)
{
    EQ(L4_UTCB_SIZE, 1024);
    EQ(L4_UTCB_MR0_OFFSET, 0x200);
    /* MR0-relative byte offsets */
    EQ((long long)L4_UTCB_MY_GLOBAL_ID * 8, -0x78);
    EQ((long long)L4_UTCB_PROCESSOR_NO * 8, -0x70);
    EQ((long long)L4_UTCB_USER_HANDLE * 8, -0x68);
    EQ((long long)L4_UTCB_PAGER * 8, -0x60);
    EQ((long long)L4_UTCB_EXC_HANDLER * 8, -0x58);
    EQ((long long)L4_UTCB_FLAGS * 8, -0x50);
    EQ((long long)L4_UTCB_ERROR_CODE * 8, -0x48);
    EQ((long long)L4_UTCB_XFER_TIMEOUTS * 8, -0x40);
    EQ((long long)L4_UTCB_INTENDED_RCV * 8, -0x38);
    EQ((long long)L4_UTCB_VIRT_ACT_SENDER * 8, -0x30);
    EQ((long long)L4_UTCB_THREAD_WORD1 * 8, -0x28);
    EQ((long long)L4_UTCB_THREAD_WORD0 * 8, -0x20);
    EQ((long long)L4_UTCB_WORD_SIZE_MASK * 8, -0x08);
    EQ((long long)L4_UTCB_BR(0) * 8, -0x80);
    EQ((long long)L4_UTCB_BR(1) * 8, -0x88);
    EQ((long long)L4_UTCB_BR(32) * 8, -0x180);
    EQ((long long)L4_UTCB_MR(0) * 8, 0);
    EQ((long long)L4_UTCB_MR(63) * 8, 0x1F8);
    int bad = 0;
    for (int i = 0; i <= 32; i++)
        bad += (long long)L4_UTCB_BR(i) * 8 != -0x80 - 8 * i;
    check("BRi at MR0 - 0x80 - 8*i for i = 0..32", bad == 0);
    /* UTCB-location-relative offsets (the "UTCB+" column) */
    EQ(0x200 + L4_UTCB_MY_GLOBAL_ID * 8, 0x188);
    EQ(0x200 + L4_UTCB_PROCESSOR_NO * 8, 0x190);
    EQ(0x200 + L4_UTCB_USER_HANDLE * 8, 0x198);
    EQ(0x200 + L4_UTCB_PAGER * 8, 0x1A0);
    EQ(0x200 + L4_UTCB_EXC_HANDLER * 8, 0x1A8);
    EQ(0x200 + L4_UTCB_FLAGS * 8, 0x1B0);
    EQ(0x200 + L4_UTCB_ERROR_CODE * 8, 0x1B8);
    EQ(0x200 + L4_UTCB_XFER_TIMEOUTS * 8, 0x1C0);
    EQ(0x200 + L4_UTCB_INTENDED_RCV * 8, 0x1C8);
    EQ(0x200 + L4_UTCB_VIRT_ACT_SENDER * 8, 0x1D0);
    EQ(0x200 + L4_UTCB_THREAD_WORD1 * 8, 0x1D8);
    EQ(0x200 + L4_UTCB_THREAD_WORD0 * 8, 0x1E0);
    EQ(0x200 + L4_UTCB_WORD_SIZE_MASK * 8, 0x1F8);
    EQ(0x200 + L4_UTCB_BR(32) * 8, 0x080);
    EQ(0x200 + L4_UTCB_BR(0) * 8, 0x180);
    /* PreemptFlags: s = bit 5, d = bit 6, I = bit 7 */
    EQ(L4_PREEMPT_SIGNAL, 0x20);
    EQ(L4_PREEMPT_DELAY, 0x40);
    EQ(L4_PREEMPT_PENDING, 0x80);
}

static void test_types(void)
{
    EQ(sizeof(l4_word_t), 8);
    EQ(L4_WORD_BITS, 64);
    EQ(L4_USER_AREA_END, 0x0000800000000000ull);
    TRUE(l4_is_user_range(0, 0x0000800000000000ull));
    TRUE(l4_is_user_range(0x00007FFFFFFFF000ull, 0x1000));
    FALSE(l4_is_user_range(0x00007FFFFFFFF000ull, 0x1001));
    FALSE(l4_is_user_range(0x0000800000000000ull, 0));
    FALSE(l4_is_user_range(0x1000, ~0ull));
}

/* Pecan's ExchangeRegisters extension (docs/x2-deviations.md) uses bits X.2 declares
 * ignored (14-63), none that Pistachio defines (0-13). */
static void test_exregs_extension(void)
{
    EQ(L4_EXREGS_SET_FS_BASE, 0x4000);
    EQ(L4_EXREGS_SET_GS_BASE, 0x8000);
    EQ(L4_EXREGS_GET_BASES, 0x10000);
    FALSE((L4_EXREGS_SET_FS_BASE | L4_EXREGS_SET_GS_BASE | L4_EXREGS_GET_BASES) & 0x3FFF);
}

/* --- §6.1, §6.2, §6.4 kernel messages ------------------------------------------------- */
static void test_messages(void)
{
    /* Page fault: MR1 address, MR2 IP; rwx in label bits 0-2 (MR0 bits 16-18), u = 2. */
    EQ(L4_PF_ADDR, 1);
    EQ(L4_PF_IP, 2);
    EQ(L4_PF_WORDS, 2);
    EQ(l4_pagefault_tag(L4_PROTO_PAGEFAULT, 2), 0xFFFFFFFFFFE20002ull);    /* a write */
    EQ(l4_pagefault_tag(L4_PROTO_PAGEFAULT, 4), 0xFFFFFFFFFFE40002ull);
    EQ(l4_pagefault_tag(L4_PROTO_IO_PAGEFAULT, 6), 0xFFFFFFFFFF860002ull);
    EQ(l4_pagefault_access(0xFFFFFFFFFFE10002ull), 1);

    /* Exception: the register order of the contract's table, then vector and error code. */
    EQ(L4_EXC_RIP, 1);  EQ(L4_EXC_RBX, 2);  EQ(L4_EXC_R10, 3);  EQ(L4_EXC_R12, 4);
    EQ(L4_EXC_R13, 5);  EQ(L4_EXC_R14, 6);  EQ(L4_EXC_R15, 7);  EQ(L4_EXC_RAX, 8);
    EQ(L4_EXC_RCX, 9);  EQ(L4_EXC_RDX, 10); EQ(L4_EXC_RSI, 11); EQ(L4_EXC_RDI, 12);
    EQ(L4_EXC_RBP, 13); EQ(L4_EXC_R8, 14);  EQ(L4_EXC_R9, 15);  EQ(L4_EXC_R11, 16);
    EQ(L4_EXC_RSP, 17); EQ(L4_EXC_RFLAGS, 18);
    EQ(L4_EXC_REGS, 18);
    EQ(L4_EXC_VECTOR, 19);
    EQ(L4_EXC_ERROR, 20);
    EQ(L4_EXC_WORDS, 20);                   /* Pecan sends the error code (u = 20) */

    /* Preemption: MR1 clock low, MR2 clock high (u = 2); Pecan's time fault adds MR3. */
    EQ(L4_PREEMPTION_CLOCK, 1);
    EQ(L4_PREEMPTION_CLOCK_HIGH, 2);
    EQ(L4_PREEMPTION_WORDS, 2);
    EQ(L4_PREEMPTION_TIMEFAULT, 3);
    EQ(L4_TIMEFAULT_WORDS, 3);
    EQ(L4_PROTO_PREEMPTION | L4_PREEMPTION_WORDS, 0xFFFFFFFFFFD00002ull);

    /* The foreign register set keeps the exception message's order (docs/linux-abi.md). */
    EQ(L4_FREG_RIP, L4_EXC_RIP);
    EQ(L4_FREG_R11, L4_EXC_R11);
    EQ(L4_FREG_RSP, L4_EXC_RSP);
    EQ(L4_FREG_RFLAGS, L4_EXC_RFLAGS);
}

/* --- §4.4.2, §4.4.6, §4.4.8 control words ----------------------------------------------- */
static void test_controls(void)
{
    EQ(L4_EXREGS_HALT, 0x001);
    EQ(L4_EXREGS_ABORT_RECV, 0x002);
    EQ(L4_EXREGS_ABORT_SEND, 0x004);
    EQ(L4_EXREGS_SET_SP, 0x008);
    EQ(L4_EXREGS_SET_IP, 0x010);
    EQ(L4_EXREGS_SET_FLAGS, 0x020);
    EQ(L4_EXREGS_SET_HANDLE, 0x040);
    EQ(L4_EXREGS_SET_PAGER, 0x080);
    EQ(L4_EXREGS_SET_HALT, 0x100);
    EQ(L4_EXREGS_DELIVER, 0x200);
    EQ(L4_EXREGS_WAS_HALTED, 1);
    EQ(L4_EXREGS_WAS_RECEIVING, 2);
    EQ(L4_EXREGS_WAS_SENDING, 4);
    /* libl4's Start and Stop (§4.4.2). */
    EQ(L4_EXREGS_SET_HALT | L4_EXREGS_ABORT_SEND | L4_EXREGS_ABORT_RECV, 0x106);
    EQ(L4_EXREGS_SET_HALT | L4_EXREGS_HALT | L4_EXREGS_DELIVER, 0x301);

    EQ(L4_SCHEDULE_NO_CHANGE, 0xFFFFFFFFFFFFFFFFull);
    EQ(l4_time_control(0x1234, 0x5678), 0x12345678);
    EQ(l4_time_control_slice(0xABCD1234), 0xABCD);
    EQ(l4_time_control_quantum(0xABCD1234), 0x1234);
    EQ(L4_TIME_CTL_KEEP, 0xFFFF);
    EQ(L4_PRIO_CTL_MASK, 0x1FF);
    EQ(L4_PRIO_CTL_MAX, 255);
    EQ(L4_PROC_CTL_MASK, 0xFFFF);
    EQ(l4_preemption_control(200, 5000), 0xC81388);
    EQ(L4_SCHEDULE_ERROR, 0);
    EQ(L4_SCHEDULE_DEAD, 1);
    EQ(L4_SCHEDULE_INACTIVE, 2);
    EQ(L4_SCHEDULE_RUNNING, 3);
    EQ(L4_SCHEDULE_PENDING_SEND, 4);
    EQ(L4_SCHEDULE_SENDING, 5);
    EQ(L4_SCHEDULE_WAITING, 6);
    EQ(L4_SCHEDULE_RECEIVING, 7);

    EQ(L4_UNMAP_COUNT_MASK, 0x3F);
    EQ(L4_UNMAP_FLUSH, 0x40);
}

int main(void)
{
    test_types();
    test_thread_ids();
    test_fpages();
    test_time();
    test_tags();
    test_items();
    test_errors();
    test_kip();
    test_utcb();
    test_exregs_extension();
    test_messages();
    test_controls();
    printf("%d checks, %d failed\n", checks, failures);
    return failures > 100 ? 100 : failures;
}
