/* In-system test: bad input never breaks a server.  Started by the root task as a boot module
 * next to the serial driver, it sends each server (the root task's service, sigma0, the serial
 * driver) hundreds of malformed and random messages, then checks that the server still does
 * its job.  The random sequence is fixed (seeded), so a failure repeats. */
#include "testlib.h"
#include <libl4/serial.h>
#include <string.h>

#define ROUNDS 300

static l4_word_t rng = 0x9E3779B97F4A7C15ull;

static l4_word_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Words a server might take for something: small numbers, ids, addresses, all ones. */
static l4_word_t odd_word(void)
{
    switch (rnd() % 6) {
    case 0:  return 0;
    case 1:  return ~0ul;
    case 2:  return rnd() % 64;
    case 3:  return l4_global_id(rnd() % 1024, rnd() % 4 + 1);
    case 4:  return rnd() & ~0xFFFul;
    default: return rnd();
    }
}

enum target { ROOT, SIGMA0, SERIAL };

/* One random message to `server` (label from `labels` or random, random u and t, random
 * words, sometimes map or string items), sent as a call with short timeouts.  Two things
 * are kept out: well-formed sigma0 memory requests (they would be served and use up memory,
 * as they should be), and bytes for the serial driver to print other than '#' (the console
 * is also the test log). */
static void garbage(enum target to, l4_word_t server, const l4_word_t *labels, unsigned nlabels)
{
    l4_word_t label = rnd() % 3 ? labels[rnd() % nlabels] : rnd() & 0xFFFF;
    unsigned u = rnd() % 3 ? rnd() % 6 : rnd() % 64;
    unsigned t = rnd() % 4 ? 0 : (rnd() % ((64 - u) / 2 + 1)) * 2;
    if (u + t > 63)
        t = 0;
    if (to == SIGMA0 && l4_tag_is_proto(label << 16, L4_PROTO_SIGMA0) && (u == 2 || u == 3) && !t)
        u = 4;
    l4_set_mr(0, l4_tag_make(label, u, t));
    for (unsigned i = 1; i <= u; i++)
        l4_set_mr(i, to == SERIAL && i >= 2 ? 0x2323232323232323ul : odd_word());
    static char buf[64];
    for (unsigned i = u + 1; i + 1 <= u + t; i += 2) {
        switch (rnd() % 3) {
        case 0:                     /* map item of one of our pages */
            l4_set_mr(i, l4_map_item((l4_word_t)buf & ~0xFFFul));
            l4_set_mr(i + 1, l4_fpage_log2((l4_word_t)buf & ~0xFFFul, 12) | L4_R | L4_W);
            break;
        case 1:                     /* a simple string item */
            l4_set_mr(i, (rnd() % 64) << 10);
            l4_set_mr(i + 1, (l4_word_t)buf);
            break;
        default:
            l4_set_mr(i, odd_word());
            l4_set_mr(i + 1, odd_word());
        }
    }
    l4_set_br(0, 0);
    l4_ipc(server, server, l4_timeouts(l4_period_from_us(20000), l4_period_from_us(50000)), NULL);
}

static l4_word_t root(void)
{
    return l4_task_start()->root;
}

static bool root_works(void)
{
    l4_word_t err, me = l4_my_global_id();
    if (l4_name_lookup("serial") == 0)
        return false;
    l4_word_t t = l4_root_call(ROOT_THREAD_CREATE, me, me, 0xBF000400 + 0x400 * (rnd() % 100), 100, &err);
    if (!t || err)
        return false;
    return l4_root_call(ROOT_THREAD_DELETE, t, 0, 0, 0, &err) && !err;
}

TEST(root_task_survives_garbage)
{
    static const l4_word_t labels[] = {
        ROOT_TASK_CREATE, ROOT_THREAD_CREATE, ROOT_THREAD_DELETE, ROOT_IRQ_ATTACH,
        ROOT_NAME_REGISTER, ROOT_NAME_LOOKUP, ROOT_TASK_DELETE, ROOT_DATA_MAP,
        ROOT_MEMORY_INFO, L4_PROTO_PAGEFAULT >> 16, L4_PROTO_IO_PAGEFAULT >> 16,
        L4_PROTO_INTERRUPT >> 16, 0,
    };
    CHECK(root_works(), "the root task's service does not work to begin with");
    for (unsigned i = 0; i < ROUNDS; i++) {
        garbage(ROOT, root(), labels, sizeof(labels) / sizeof(labels[0]));
        if (i % 50 == 49)
            CHECK(root_works(), "after %u messages the service stopped working", i + 1);
    }
    CHECK(root_works());
}

static bool sigma0_works(void)
{
    static l4_word_t next = 0x300000000ul;
    l4_word_t got = l4_sigma0_get_any(l4_sigma0_tid(), 12, l4_fpage_log2(next, 12));
    if (l4_is_nil_fpage(got))
        return false;
    volatile l4_word_t *p = (volatile l4_word_t *)next;
    *p = 0x5a5a;
    next += 4096;
    return *p == 0x5a5a;
}

TEST(sigma0_survives_garbage)
{
    /* No well-formed memory requests among them: those would be served (and use up memory),
     * as they should be. */
    static const l4_word_t labels[] = {
        L4_PROTO_SIGMA0 >> 16, L4_PROTO_PAGEFAULT >> 16, L4_PROTO_IO_PAGEFAULT >> 16,
        L4_PROTO_SIGMA0_EXT >> 16, L4_PROTO_INTERRUPT >> 16, 0, 1,
    };
    CHECK(sigma0_works(), "sigma0 does not serve us to begin with");
    for (unsigned i = 0; i < ROUNDS; i++) {
        garbage(SIGMA0, l4_sigma0_tid(), labels, sizeof(labels) / sizeof(labels[0]));
        if (i % 50 == 49)
            CHECK(sigma0_works(), "after %u messages sigma0 stopped serving", i + 1);
    }
    CHECK(sigma0_works());
}

/* serial_write, but giving up after a second instead of waiting for ever for a dead driver. */
static bool console_write(l4_word_t drv, const char *text)
{
    unsigned n = (unsigned)strlen(text);
    l4_word_t w[8] = { 0 };
    memcpy(w, text, n < sizeof(w) ? n : sizeof(w));
    l4_set_mr(0, l4_tag_make(SERIAL_WRITE, 1 + (n + 7) / 8, 0));
    l4_set_mr(1, n);
    for (unsigned i = 0; i < (n + 7) / 8; i++)
        l4_set_mr(2 + i, w[i]);
    l4_word_t second = l4_period_from_us(1000000);
    return !l4_ipc_failed(l4_call_timeouts(drv, second, second));
}

TEST(serial_driver_survives_garbage)
{
    static const l4_word_t labels[] = { SERIAL_WRITE, SERIAL_READ, 0, 0xFFF0 };
    l4_word_t drv = l4_name_lookup("serial");
    CHECK(drv != 0);
    CHECK(console_write(drv, "# before\n"));
    for (unsigned i = 0; i < ROUNDS; i++) {
        garbage(SERIAL, drv, labels, sizeof(labels) / sizeof(labels[0]));
        if (i % 50 == 49)
            CHECK(console_write(drv, " # alive\n"), "no answer after %u messages", i + 1);
    }
    CHECK(console_write(drv, "\n# after\n"));
}

TEST(other_tasks_resources_are_refused)
{
    l4_word_t err, me = l4_my_global_id();
    /* The serial driver's interrupt line and name belong to it. */
    CHECK_EQ(l4_root_call(ROOT_IRQ_ATTACH, 4, 0, 0, 0, &err), 0);
    CHECK_EQ(err, L4_ERR_NO_PRIVILEGE);
    l4_word_t name[2] = { 0, 0 };
    memcpy(name, "serial", 6);
    CHECK_EQ(l4_root_call(ROOT_NAME_REGISTER, name[0], name[1], me, 0, &err), 0);
    CHECK_EQ(err, L4_ERR_NO_PRIVILEGE);
    CHECK(l4_name_lookup("serial") != me);
    /* Arguments that could never work. */
    CHECK_EQ(l4_root_call(ROOT_TASK_CREATE, 0, 100, 0, 0, &err), 0);
    CHECK_EQ(err, L4_ERR_INVALID_PARAM);
    CHECK_EQ(l4_root_call(ROOT_THREAD_CREATE, l4_my_local_id(), me, 0xBF000400, 100, &err), 0);
    CHECK_EQ(err, L4_ERR_INVALID_SPACE);               /* a local id names nothing here */
    CHECK_EQ(l4_root_call(ROOT_NAME_REGISTER, 1, 2, 0, 0, &err), 0);
    CHECK_EQ(err, L4_ERR_INVALID_PARAM);
    /* Our own names we may publish again. */
    CHECK(l4_name_register("servers-test", me));
    CHECK(l4_name_register("servers-test", me));
}

int main(void)
{
    tests_run("servers");
}
