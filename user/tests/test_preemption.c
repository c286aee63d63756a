/* In-system test: preemption control (contract §6.4, docs/scheduling.md): preemption
 * messages (PreemptFlags.s), delayed preemption (PreemptFlags.d, maximum delay, sensitive
 * priority), and the total quantum with its time fault.  The main thread (priority 255) is
 * the scheduler of every thread it creates. */
#include "testlib.h"
#include "testutil.h"

#define SPIN_PRIO 50

static volatile l4_word_t spins[4];
static volatile l4_word_t saw_pending, pending_at;

/* Spinners: count; 0 and 2 ask for preemption messages, 1 does not. */
static void spin_signal(void)
{
    l4_set_preempt_flags(L4_PREEMPT_SIGNAL);
    for (;;)
        spins[0]++;
}

static void spin_quiet(void)
{
    for (;;)
        spins[1]++;
}

/* Asks for delayed preemption; yields as soon as it is told that one is pending. */
static void spin_polite(void)
{
    l4_set_preempt_flags(L4_PREEMPT_DELAY);
    for (;;) {
        spins[2]++;
        if (l4_preempt_flags() & L4_PREEMPT_PENDING) {
            saw_pending++;
            pending_at = l4_system_clock();
            l4_thread_switch(0);        /* clears PENDING and renews the delay */
            l4_set_preempt_flags(L4_PREEMPT_DELAY);
        }
    }
}

/* Asks for delayed preemption but never yields. */
static void spin_rude(void)
{
    l4_set_preempt_flags(L4_PREEMPT_DELAY);
    for (;;) {
        spins[3]++;
        if (l4_preempt_flags() & L4_PREEMPT_PENDING)
            saw_pending++;
    }
}

static void spin_plain(void)
{
    for (;;)
        spins[0]++;
}

/* The next message, within 2 s (a preemption message comes within a few time slices). */
static l4_word_t next_message(l4_word_t *from)
{
    return l4_wait_timeout(l4_period_from_us(2000000), from);
}

static bool is_preemption(l4_word_t tag, unsigned u)
{
    return !l4_ipc_failed(tag) && l4_tag_is_proto(tag, L4_PROTO_PREEMPTION) &&
           l4_tag_u(tag) == u && l4_tag_t(tag) == 0;
}

static void set_preemption_control(l4_word_t t, unsigned max_delay_us, unsigned sensitive)
{
    l4_word_t old;
    l4_schedule(t, ~0ul, ~0ul, ~0ul, l4_preemption_control(sensitive, max_delay_us), &old);
}

TEST(preempted_thread_tells_its_scheduler)
{
    /* Two threads share a priority: at each slice end one preempts the other.  Only the
     * one that asked (s) sends messages; each is a call that waits for our reply. */
    l4_word_t a = tu_thread(spin_signal, SPIN_PRIO), b = tu_thread(spin_quiet, SPIN_PRIO);
    l4_word_t from = 0, before = l4_system_clock();
    for (int i = 0; i < 3; i++) {
        l4_word_t tag = next_message(&from);
        CHECK(is_preemption(tag, L4_PREEMPTION_WORDS), "message %d: tag %lx error %lx", i, tag, l4_error_code());
        CHECK_EQ(from, l4_local_id_of(a));
        l4_word_t when = l4_mr(L4_PREEMPTION_CLOCK);
        CHECK(when >= before && when <= l4_system_clock(), "clock %lu not in [%lu, now]", when, before);
        CHECK_EQ(l4_mr(L4_PREEMPTION_CLOCK_HIGH), 0);
        before = when;
        /* Until we reply, a waits: it is blocked in its call to us. */
        CHECK_EQ(tu_state(a), L4_SCHEDULE_WAITING);
        l4_set_mr(0, 0);
        CHECK(!l4_ipc_failed(l4_reply(from)));
    }
    CHECK(spins[1] > 0);
    tu_kill(a);
    tu_kill(b);
}

TEST(preemption_by_a_more_important_thread)
{
    l4_word_t a = tu_thread(spin_signal, SPIN_PRIO);
    spins[0] = 0;
    while (spins[0] == 0)
        l4_sleep_us(1000);              /* our timeout wakes us: a is preempted by us */
    l4_word_t from, tag = next_message(&from);
    CHECK(is_preemption(tag, 2), "tag %lx", tag);
    CHECK_EQ(from, l4_local_id_of(a));
    tu_kill(a);
}

TEST(delayed_preemption_within_the_budget)
{
    /* The polite thread may delay preemption by us for up to 20 ms: when our timeout makes
     * us ready it is told (PENDING), yields, and we run. */
    saw_pending = 0;
    l4_word_t t = tu_thread_create(SPIN_PRIO);
    set_preemption_control(t, 20000, 255);
    tu_start(t, spin_polite);               /* it runs while we sleep */
    l4_word_t asleep = l4_system_clock();
    l4_sleep_us(2000);
    l4_word_t woke = l4_system_clock();
    CHECK(saw_pending >= 1, "the thread was never told of a delayed preemption");
    CHECK(pending_at >= asleep + 2000 && pending_at <= woke, "told at %lu, slept %lu-%lu",
          pending_at, asleep, woke);
    CHECK(woke - asleep < 2000 + 20000, "we ran only %lu us later", woke - asleep);
    tu_kill(t);
}

TEST(delay_ends_after_the_maximum)
{
    /* The rude thread never yields: the preemption happens after its maximum delay. */
    saw_pending = 0;
    l4_word_t t = tu_thread_create(SPIN_PRIO);
    set_preemption_control(t, 5000, 255);
    tu_start(t, spin_rude);                 /* it runs while we sleep */
    l4_word_t asleep = l4_system_clock();
    l4_sleep_us(1000);
    l4_word_t late = l4_system_clock() - asleep;
    CHECK(saw_pending >= 1);
    CHECK(late >= 1000 + 5000 - 1000 && late <= 1000 + 5000 + 3000,
          "woke %lu us after going to sleep for 1000 with a 5000 us delay", late);
    /* Without a yield no second delay is granted: the next preemption is immediate. */
    asleep = l4_system_clock();
    l4_sleep_us(1000);
    late = l4_system_clock() - asleep;
    CHECK(late < 1000 + 3000, "second wakeup %lu us late", late);
    tu_kill(t);
}

TEST(no_delay_for_threads_above_the_sensitive_priority)
{
    saw_pending = 0;
    l4_word_t t = tu_thread_create(SPIN_PRIO);
    set_preemption_control(t, 20000, 100);       /* we (255) are above its sensitive prio */
    tu_start(t, spin_rude);
    l4_word_t asleep = l4_system_clock();
    l4_sleep_us(1000);
    l4_word_t late = l4_system_clock() - asleep;
    CHECK_EQ(saw_pending, 0);
    CHECK(late < 1000 + 3000, "woke %lu us after a 1000 us sleep", late);
    tu_kill(t);
}

TEST(total_quantum_ends_in_a_time_fault)
{
    l4_word_t t = tu_thread_create(SPIN_PRIO), old;
    /* 5 ms of total quantum, time slice unchanged. */
    CHECK(l4_schedule(t, l4_time_control(L4_TIME_CTL_KEEP, l4_period_from_us(5000)), ~0ul, ~0ul, ~0ul, &old));
    spins[0] = 0;
    tu_start(t, spin_plain);
    l4_word_t from, tag = next_message(&from);
    CHECK(is_preemption(tag, L4_TIMEFAULT_WORDS), "tag %lx", tag);
    CHECK_EQ(from, l4_local_id_of(t));
    CHECK_EQ(l4_mr(L4_PREEMPTION_TIMEFAULT), 1);
    l4_word_t ran = spins[0];
    CHECK(ran > 0);
    /* Its quantum is used up: Schedule reports a zero period. */
    CHECK(l4_schedule(t, ~0ul, ~0ul, ~0ul, ~0ul, &old));
    CHECK_EQ(old & 0xFFFF, l4_period_from_us(0));
    /* It waits for our reply (blocked in its call to us). */
    CHECK_EQ(tu_state(t), L4_SCHEDULE_WAITING);
    /* A new, unlimited quantum; the reply lets it go on, and no time fault comes again
     * while it runs a whole time slice (10 ms) on ours. */
    CHECK(l4_schedule(t, l4_time_control(L4_TIME_CTL_KEEP, L4_NEVER), ~0ul, ~0ul, ~0ul, &old));
    l4_set_mr(0, 0);
    CHECK(!l4_ipc_failed(l4_reply(from)));
    unsigned st = tu_state(t);
    l4_thread_switch(t);
    CHECK(spins[0] > ran, "state before %u after %u, spins %lu ran %lu", st, tu_state(t), spins[0], ran);
    CHECK(l4_ipc_failed(l4_wait_timeout(L4_ZERO_TIME, &from)));
    CHECK(l4_schedule(t, ~0ul, ~0ul, ~0ul, ~0ul, &old));
    CHECK_EQ(old & 0xFFFF, L4_NEVER);
    tu_kill(t);
}

int main(void)
{
    tests_run("preemption");
}
