/* In-system test: ThreadControl validates and allocates before it changes anything (issue 7
 * item 4).  Booted with a small kernel pool (kmem=4M): with the pool exhausted, a ThreadControl
 * that must allocate (a UTCB frame, a TCB) fails with "no memory" and leaves every thread
 * where it was, and nothing it allocated stays behind. */
#include "testlib.h"
#include "testutil.h"

#define MAX 2000
#define FILLERS 64

/* Space B: a large UTCB area, so that a location far from the others needs new page tables. */
#define B_KIP   0xBFF00000ul
#define B_UTCB  (1ul << 42)
#define B_FAR   (B_UTCB + (1ul << 40))          /* another top-level entry than B_UTCB */

static l4_word_t tids[MAX], fillers[FILLERS];

/* New spaces with one active thread each, until the kernel runs out of memory. */
static unsigned fill_spaces(void)
{
    return tu_fill_spaces(tids, MAX);
}

static void delete_all(l4_word_t *t, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        l4_thread_control(t[i], 0, 0, 0, ~0ul);
}

/* How many spaces fit into the pool now (all of them freed again). */
static unsigned capacity(void)
{
    unsigned n = fill_spaces();
    delete_all(tids, n);
    return n;
}

/* A new space with an initialised area and FILLERS inactive threads; *bp: its first thread. */
static void make_b(l4_word_t *bp)
{
    l4_word_t me = l4_my_global_id(), old, b = *bp = tu_new_tid();
    CHECK_EQ(l4_thread_control(b, b, me, 0, ~0ul), 1);
    CHECK_EQ(l4_space_control(b, 0, l4_fpage_log2(B_KIP, 12), l4_fpage_log2(B_UTCB, 41), 0, &old), 1);
    /* One active thread there: the page tables of the first UTCB region exist. */
    CHECK_EQ(l4_thread_control(b, b, 0, me, B_UTCB), 1);
    for (unsigned i = 0; i < FILLERS; i++) {
        fillers[i] = tu_new_tid();
        CHECK_EQ(l4_thread_control(fillers[i], b, me, 0, ~0ul), 1);
    }
}

/* Use up the pool: spaces, then single pages (UTCB frames of B's fillers, *nfill of them). */
static void exhaust(l4_word_t b, unsigned *nspaces, unsigned *nfill)
{
    l4_word_t me = l4_my_global_id();
    *nspaces = fill_spaces();
    unsigned i = 0;
    for (; i < FILLERS; i++)
        if (!l4_thread_control(fillers[i], b, 0, me, B_UTCB + (i + 1) * 4096))
            break;
    CHECK(i < FILLERS, "the UTCB frames never ran out");
    CHECK_EQ(l4_error_code(), L4_ERR_NO_MEM);
    *nfill = i;
}

/* Whether t's space is still uninitialised: SpaceControl then checks the (nil) areas. */
static bool space_uninitialised(l4_word_t t)
{
    l4_word_t old;
    return !l4_space_control(t, 0, L4_NILPAGE, L4_NILPAGE, 0, &old) &&
           l4_error_code() == L4_ERR_UTCB_AREA;
}

TEST(migration_out_of_memory_moves_nothing)
{
    l4_word_t me = l4_my_global_id();
    capacity();                                 /* warm up the slab caches */
    unsigned before = capacity();
    /* T: inactive, alone in its own new (uninitialised) space A. */
    l4_word_t t = tu_new_tid();
    CHECK_EQ(l4_thread_control(t, t, me, 0, ~0ul), 1);
    l4_word_t b;
    unsigned nspaces, nfill;
    make_b(&b);
    exhaust(b, &nspaces, &nfill);

    /* Move T into B and activate it there: needs page tables and a frame in B.  The kernel
     * must not move T (destroying A) before it knows it has them. */
    CHECK_EQ(l4_thread_control(t, b, 0, me, B_FAR), 0);
    CHECK_EQ(l4_error_code(), L4_ERR_NO_MEM);
    CHECK(space_uninitialised(t), "T left its space A");
    CHECK_EQ(tu_state(t), L4_SCHEDULE_DEAD);    /* still inactive */

    /* A new thread in B that needs a TCB and a UTCB frame: not created. */
    l4_word_t u = tu_new_tid();
    CHECK_EQ(l4_thread_control(u, b, me, me, B_FAR), 0);
    CHECK_EQ(l4_error_code(), L4_ERR_NO_MEM);
    CHECK_EQ(l4_schedule(u, ~0ul, ~0ul, ~0ul, ~0ul, NULL), L4_SCHEDULE_ERROR);
    CHECK_EQ(l4_error_code(), L4_ERR_INVALID_THREAD);

    /* With memory again, the same call moves it. */
    delete_all(tids, nspaces);
    CHECK_EQ(l4_thread_control(t, b, 0, me, B_FAR), 1);
    CHECK(!space_uninitialised(t), "T is not in B");
    CHECK_EQ(tu_state(t), L4_SCHEDULE_WAITING); /* waiting for its start message */

    /* Nothing leaked: after everything is gone, as many spaces fit as before. */
    delete_all(fillers, FILLERS);
    l4_word_t rest[2] = { t, b };
    delete_all(rest, 2);
    unsigned after = capacity();
    test_note("%u spaces fit before and %u after; %u UTCB frames filled the rest", before, after, nfill);
    CHECK_EQ(after, before);
}

TEST(activation_out_of_memory_changes_nothing)
{
    /* An inactive thread of B activated in place at a new UTCB location: out of memory, its
     * UTCB location stays unset, so activating it without one fails as before. */
    l4_word_t me = l4_my_global_id();
    l4_word_t b;
    unsigned nspaces, nfill;
    make_b(&b);
    exhaust(b, &nspaces, &nfill);
    l4_word_t t = fillers[FILLERS - 1];
    CHECK_EQ(l4_thread_control(t, b, 0, me, B_FAR), 0);
    CHECK_EQ(l4_error_code(), L4_ERR_NO_MEM);
    delete_all(tids, nspaces);
    CHECK_EQ(l4_thread_control(t, b, 0, me, ~0ul), 0);
    CHECK_EQ(l4_error_code(), L4_ERR_UTCB_AREA);
    CHECK_EQ(l4_thread_control(t, b, 0, me, B_FAR), 1);
    delete_all(fillers, FILLERS);
    delete_all(&b, 1);
}

int main(void)
{
    tests_run("tcontrol");
}
