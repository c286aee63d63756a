/* In-system test: the time-slice end rule (docs/scheduling.md, "Slice end").  A slice end sends
 * the slice's chain (its owner and the thread running on it) to the end of its priority, so a
 * thread that calls a server in a tight loop, or runs on the slice of a blocked or deleted
 * donor, cannot keep a ready thread of its priority off the CPU for more than about one time
 * slice.  And the rules around it still hold: a donated slice counts with the donor's
 * priority, ThreadSwitch(nil) rotates.  The main thread (priority 255) watches: it sleeps a
 * number of slices (virtual time under -icount) and looks at the threads' counters. */
#include "testlib.h"
#include "testutil.h"

#define PRIO 50
#define SLICE_US 4000           /* 4 ticks: short rounds */

/* Our own stacks, reused round after round (testutil's are never freed). */
enum role { CLIENT, SERVER, SPINNER, DONOR, NROLES };
static uint8_t stacks[NROLES][TU_STACK_SIZE] __attribute__((aligned(16)));

static volatile l4_word_t server_tid, donor_tid;
static volatile l4_word_t calls, spins, chain_spins, yields[2], yield_turns;
static volatile unsigned client_work, server_work;

static void work(unsigned n)
{
    for (volatile unsigned i = 0; i < n; i++)
        ;
}

/* A thread of ours at prio with a SLICE_US time slice, running fn on the stack of role r. */
static l4_word_t start(enum role r, void (*fn)(void), unsigned prio)
{
    l4_word_t t = tu_thread_create(prio), old;
    if (!t)
        return 0;
    l4_schedule(t, l4_time_control(l4_period_from_us(SLICE_US), L4_TIME_CTL_KEEP), ~0ul, ~0ul, ~0ul, &old);
    for (unsigned off = 0; off < TU_STACK_SIZE; off += 4096)
        ((volatile uint8_t *)stacks[r])[off] = 0;
    l4_set_mr(0, l4_tag_make(0, 2, 0));
    l4_set_mr(1, (l4_word_t)fn);
    l4_set_mr(2, (l4_word_t)&stacks[r][TU_STACK_SIZE] - 8);
    l4_send(t);
    return t;
}

static void server(void)
{
    l4_word_t from;
    l4_wait(&from);
    for (;;) {
        work(server_work);
        l4_set_mr(0, 0);
        l4_reply_wait(from, &from);
    }
}

static void client(void)
{
    for (;;) {
        work(client_work);
        l4_set_mr(0, 0);
        l4_call(server_tid);
        calls++;
    }
}

/* The ticker's count when the spinner first ran (the ticker below wakes at every tick). */
static volatile l4_word_t ticker_wakes, first_run_tick;

static void spinner(void)
{
    first_run_tick = ticker_wakes;
    for (;;)
        spins++;
}

/* A thread above them that wakes at every tick (as lx's timer and interrupt threads do): each
 * time it preempts the thread that runs, which keeps its place at the head of its queue. */
static void ticker(void)
{
    for (;;) {
        l4_sleep_us(500);               /* the next tick */
        ticker_wakes++;
    }
}

/* One round: a client calls a server of its priority in a tight loop, beside the ticker; then
 * a spinner of their priority becomes ready.  It must run when the slice that runs then ends:
 * within one time slice, counted in the ticker's wakes (one a tick).  The call loop must go
 * on too.  False (with a note) if not.  The window is two slices, to tell how late it was. */
#define SLICE_TICKS (SLICE_US / 1000)

static bool spinner_runs_beside_a_calling_client(unsigned cwork, unsigned swork, unsigned sprio,
                                                 unsigned bound_ticks)
{
    client_work = cwork;
    server_work = swork;
    calls = spins = 0;
    server_tid = start(SERVER, server, sprio);
    l4_word_t c = start(CLIENT, client, PRIO);
    l4_word_t h = start(DONOR, ticker, PRIO + 10);
    l4_sleep_us(2 * SLICE_US);                  /* the call loop runs */
    l4_word_t calls_before = calls, ready_tick = ticker_wakes;
    l4_word_t u = start(SPINNER, spinner, PRIO);        /* ready from now on */
    l4_sleep_us(2 * SLICE_US);
    l4_word_t ran = spins, calls_after = calls, late = first_run_tick - ready_tick;
    l4_word_t wakes = ticker_wakes - ready_tick;
    tu_kill(u);
    tu_kill(h);
    tu_kill(c);
    tu_kill(server_tid);
    if (calls_before == 0 || ran == 0 || late > bound_ticks || calls_after == calls_before ||
        wakes < 2 * SLICE_TICKS - 1) {
        test_note("client work %u, server work %u: calls %lu then %lu, spinner %lu (first after %lu "
                  "ticks), ticker %lu", cwork, swork, calls_before, calls_after, ran, ran ? late : 0, wakes);
        return false;
    }
    return true;
}

/* Work per call (loop iterations) for the client and the server: the phases of the ticks
 * against the call loop differ from round to round. */
static const unsigned light[] = { 0, 1, 3, 10, 30, 100, 300 };
static const unsigned heavy[] = { 1000, 3000, 10000, 30000, 100000 };
#define COUNT(a) (sizeof (a) / sizeof (a)[0])

/* Rounds with each heavy amount of work against every step-th light one, the heavy work on
 * the server's side or the client's; returns how many failed. */
static unsigned rounds(bool heavy_server, unsigned step, unsigned sprio, unsigned bound_ticks)
{
    unsigned failed = 0;
    for (unsigned i = 0; i < COUNT(heavy); i++)
        for (unsigned j = 0; j < COUNT(light); j += step)
            failed += !spinner_runs_beside_a_calling_client(heavy_server ? light[j] : heavy[i],
                                                            heavy_server ? heavy[i] : light[j],
                                                            sprio, bound_ticks);
    return failed;
}

TEST(calling_client_lets_a_ready_thread_of_its_priority_run)
{
    /* The client does most of the work (or both little): ticks mostly land in the client, on
     * its own slice or (after a preemption) on the server's. */
    unsigned failed = rounds(false, 2, PRIO, SLICE_TICKS);
    for (unsigned i = 0; i < COUNT(light); i++)
        failed += !spinner_runs_beside_a_calling_client(light[i], light[i], PRIO, SLICE_TICKS);
    CHECK_EQ(failed, 0);
}

TEST(server_current_at_the_slice_end_lets_a_ready_thread_run)
{
    /* The server does most of the work: the slice ends while it runs on the client's slice
     * (the client blocked in its call), or on its own after a preemption. */
    CHECK_EQ(rounds(true, 2, PRIO, SLICE_TICKS), 0);
}

TEST(client_of_a_more_important_server_loses_its_place_at_its_slice_end)
{
    /* The server is above the client and does most of the work: the client's slice ends
     * while the client waits for its reply.  The server's reply then goes through the
     * scheduler (the server's own queue entry is stale, so it looks more important), and
     * the client must not resume at its old place ahead of the spinner.  The spinner runs
     * within the client's slice and the rest of the call that ends it (under a tick). */
    CHECK_EQ(rounds(true, 3, PRIO + 5, SLICE_TICKS + 1), 0);
}

/* ThreadSwitch to the chain thread, which then stops (halts or deletes) its donor and spins on
 * the donated slice. */
static volatile bool delete_donor;
static volatile l4_word_t chain_tid;

static void chain_thread(void)
{
    for (;;) {
        chain_spins++;
        if (donor_tid) {
            l4_word_t d = donor_tid;
            donor_tid = 0;
            if (delete_donor) {
                tu_kill(d);
            } else {
                struct l4_exregs old;
                l4_exchange_registers(d, L4_EXREGS_HALT | L4_EXREGS_SET_HALT, 0, 0, 0, 0, 0, &old);
            }
        }
    }
}

static void donor(void)
{
    donor_tid = l4_my_global_id();
    l4_thread_switch(chain_tid);
    for (;;)
        ;
}

/* A donor of a higher priority gives its slice to the chain thread, which stops the donor; a
 * spinner of the chain thread's priority, queued behind it, is ready all along.  It must run
 * when that slice ends (the chain thread does not start a slice of its own first). */
static bool spinner_runs_after_a_stopped_donors_slice(bool delete)
{
    chain_spins = spins = 0;
    donor_tid = 0;
    delete_donor = delete;
    l4_word_t t = start(CLIENT, chain_thread, PRIO);
    l4_word_t u = start(SPINNER, spinner, PRIO);
    chain_tid = t;
    l4_word_t d = start(DONOR, donor, PRIO + 10);
    /* One slice and a half: the donor's slice, then the spinner's first ticks. */
    l4_sleep_us(SLICE_US + SLICE_US / 2);
    l4_word_t ran = spins, chain = chain_spins;
    tu_kill(u);
    tu_kill(t);
    if (!delete)
        tu_kill(d);
    if (chain == 0 || ran == 0) {
        test_note("%s donor: chain thread %lu, spinner %lu", delete ? "deleted" : "halted", chain, ran);
        return false;
    }
    return true;
}

TEST(slice_of_a_halted_donor_ends_in_rotation)
{
    CHECK(spinner_runs_after_a_stopped_donors_slice(false));
}

TEST(slice_of_a_deleted_donor_ends_in_rotation)
{
    CHECK(spinner_runs_after_a_stopped_donors_slice(true));
}

/* --- the rules around it ----------------------------------------------------------------- */

static void count_chain(void)
{
    for (;;)
        chain_spins++;
}

TEST(donated_slice_counts_with_the_donors_priority)
{
    /* We (255) give our slice to a thread of priority 10 while one of 50 is ready: the
     * donated slice runs at our priority, so the 50 does not take it. */
    chain_spins = spins = 0;
    l4_word_t u = start(SPINNER, spinner, PRIO);
    l4_word_t t = start(CLIENT, count_chain, 10);
    l4_thread_switch(t);
    l4_word_t donated = chain_spins, middle = spins;
    tu_kill(u);
    tu_kill(t);
    CHECK(donated > 0);
    CHECK_EQ(middle, 0);
}

TEST(donated_slice_ends_and_the_donor_runs_again)
{
    /* The donor (we, 255) stays ready: when the donated slice ends we run again, by our
     * priority, and can donate again. */
    chain_spins = spins = 0;
    l4_word_t t = start(CLIENT, count_chain, PRIO);
    l4_thread_switch(t);
    l4_word_t first = chain_spins;
    l4_thread_switch(t);
    CHECK(first > 0 && chain_spins > first, "%lu then %lu", first, chain_spins);
    tu_kill(t);
}

static void yielder(unsigned me)
{
    for (;;) {
        if (yield_turns % 2 == me)
            yield_turns++;
        yields[me]++;
        l4_thread_switch(0);
    }
}

static void yielder0(void) { yielder(0); }
static void yielder1(void) { yielder(1); }

TEST(thread_switch_nil_rotates)
{
    /* Two threads of a priority that yield in a loop take turns exactly. */
    yields[0] = yields[1] = yield_turns = 0;
    l4_word_t a = start(CLIENT, yielder0, PRIO), b = start(SERVER, yielder1, PRIO);
    l4_sleep_us(2 * SLICE_US);
    l4_word_t y0 = yields[0], y1 = yields[1], turns = yield_turns;
    tu_kill(a);
    tu_kill(b);
    CHECK(y0 > 10 && (y0 == y1 || y0 == y1 + 1 || y1 == y0 + 1), "%lu and %lu", y0, y1);
    CHECK(turns + 1 >= y0 + y1, "turns %lu for %lu yields", turns, y0 + y1);
}

int main(void)
{
    tests_run("sched");
}
