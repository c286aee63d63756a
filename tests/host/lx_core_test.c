/* Host unit tests of lx's pure data structures (test_lx_core.py), compiled with the unmodified
 * sources: the pid table (user/linux/task/pid.c) and the timer structure
 * (user/linux/park/timer.c), each against a simple model.  kmalloc is malloc here, counted,
 * so that a test can see every leaf of the pid table come back. */
#include "unit_check.h"
#include "lib/kmalloc.h"
#include "park/timer.h"
#include "task/pid.h"

static long live_allocs;

void *kmalloc(size_t n)
{
    void *p = calloc(1, n);
    live_allocs += p != NULL;
    return p;
}

void kfree(void *p)
{
    if (p)
        live_allocs--;
    free(p);
}

static uint64_t rng = 88172645463325252ull;

static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* --- the pid table ----------------------------------------------------------------------- */

static struct pid *all[PID_MAX];

static void free_all(void)
{
    for (int i = 0; i < PID_MAX; i++)
        if (all[i]) {
            pid_put(all[i]);
            all[i] = NULL;
        }
}

static void pid_cyclic(void)
{
    struct pid *a = pid_alloc(), *b = pid_alloc(), *c = pid_alloc();
    CHECK(a && b && c && a->nr == 1 && b->nr == 2 && c->nr == 3, "1, 2, 3 first");
    CHECK(pid_find(2) == b && pid_find(4) == NULL && pid_find(0) == NULL &&
          pid_find(-1) == NULL && pid_find(PID_MAX) == NULL, "lookup");
    pid_put(b);
    struct pid *d = pid_alloc();
    CHECK(d && d->nr == 4, "a freed number is not taken again at once (cyclic): %d", d->nr);
    CHECK(pid_find(2) == NULL && pid_count() == 3, "2 is free, three in use");
    pid_get(d);
    pid_put(d);
    CHECK(pid_find(4) == d, "a reference keeps a number");
    pid_put(a), pid_put(c), pid_put(d);
    CHECK(pid_count() == 0 && live_allocs == 0, "everything back: %ld allocations left",
          live_allocs);
}

static void pid_wrap(void)
{
    /* Take every number once: 1 .. PID_MAX - 1 (the cursor continues from earlier cases). */
    int n = 0;
    struct pid *p;
    while ((p = pid_alloc())) {
        CHECKQ(!all[p->nr], "number %d handed out twice", p->nr);
        all[p->nr] = p;
        n++;
    }
    CHECK(n == PID_MAX - 1, "every number but 0 once: %d", n);
    CHECK(pid_alloc() == NULL, "then none");
    /* Free a low one below RESERVED_PIDS and one above: the wrap skips the low one. */
    pid_put(all[5]), all[5] = NULL;
    pid_put(all[RESERVED_PIDS + 7]), all[RESERVED_PIDS + 7] = NULL;
    p = pid_alloc();
    CHECK(p && p->nr == RESERVED_PIDS + 7, "after the wrap: above RESERVED_PIDS (%d)",
          p ? p->nr : -1);
    all[p->nr] = p;
    CHECK(pid_alloc() == NULL, "the reserved one stays free on the wrap");
    CHECK(pid_find_ge(1) == all[1] && pid_find_ge(5) == all[6], "find_ge skips a hole");
    free_all();
    CHECK(pid_count() == 0 && live_allocs == 0, "every leaf freed: %ld left", live_allocs);
    CHECK(pid_find_ge(1) == NULL, "empty");
}

static void pid_random(void)
{
    for (int round = 0; round < 200000; round++) {
        int nr = (int)(rnd() % PID_MAX);
        if (rnd() % 3 && !all[nr]) {
            struct pid *p = pid_alloc();
            if (p) {
                CHECKQ(!all[p->nr], "in use twice: %d", p->nr);
                CHECKQ(p->nr > 0 && p->nr < PID_MAX, "range: %d", p->nr);
                all[p->nr] = p;
            }
        } else if (all[nr]) {
            pid_put(all[nr]);
            all[nr] = NULL;
        }
        if (round % 997 == 0) {
            int start = (int)(rnd() % PID_MAX), want = -1;
            for (int i = start < 1 ? 1 : start; i < PID_MAX; i++)
                if (all[i]) {
                    want = i;
                    break;
                }
            struct pid *g = pid_find_ge(start);
            CHECKQ((g ? g->nr : -1) == want, "find_ge(%d): %d, model %d", start, g ? g->nr : -1,
                   want);
        }
    }
    unsigned long n = 0;
    for (int i = 0; i < PID_MAX; i++)
        n += all[i] != NULL;
    CHECK(n == pid_count(), "count %lu against the model's %lu", pid_count(), n);
    free_all();
    CHECK(live_allocs == 0, "all freed: %ld left", live_allocs);
}

/* --- the timer structure ------------------------------------------------------------------- */

#define NT 2000
static struct timer tms[NT];
static int fired_order[NT * 4], nfired;

static void on_fire(struct timer *tm)
{
    fired_order[nfired++] = (int)(tm - tms);
}

static void timer_basic(void)
{
    for (int i = 0; i < 4; i++)
        timer_init(&tms[i], on_fire);
    CHECK(timer_next() == ~0ull, "empty: no deadline");
    timer_arm(&tms[0], 300);
    timer_arm(&tms[1], 100);
    timer_arm(&tms[2], 200);
    CHECK(timer_next() == 100, "the earliest: %llu", (unsigned long long)timer_next());
    timer_cancel(&tms[1]);
    CHECK(timer_next() == 200 && !tms[1].armed, "cancelled: the next one");
    timer_arm(&tms[0], 50);
    CHECK(timer_next() == 50, "re-armed earlier");
    nfired = 0;
    CHECK(timer_run(199) == 1 && nfired == 1 && fired_order[0] == 0, "run: only what is due");
    CHECK(timer_run(1000) == 1 && fired_order[1] == 2 && timer_next() == ~0ull, "then the rest");
    timer_cancel(&tms[3]);
    CHECK(timer_next() == ~0ull, "cancelling an unarmed timer does nothing");
}

static void timer_random(void)
{
    uint64_t model[NT];
    bool armed[NT];
    for (int i = 0; i < NT; i++) {
        timer_init(&tms[i], on_fire);
        armed[i] = false;
    }
    uint64_t now = 0;
    for (int round = 0; round < 300000; round++) {
        int i = (int)(rnd() % NT);
        unsigned op = (unsigned)(rnd() % 10);
        if (op < 5) {
            model[i] = now + 1 + rnd() % 10000;
            armed[i] = true;
            timer_arm(&tms[i], model[i]);
        } else if (op < 8) {
            armed[i] = false;
            timer_cancel(&tms[i]);
        } else {
            now += rnd() % 3000;
            nfired = 0;
            unsigned n = timer_run(now);
            uint64_t last = 0;
            for (int k = 0; k < nfired; k++) {
                int j = fired_order[k];
                CHECKQ(armed[j] && model[j] <= now, "fired %d: armed %d at %llu, now %llu", j,
                       armed[j], (unsigned long long)model[j], (unsigned long long)now);
                CHECKQ(model[j] >= last, "fired in deadline order");
                last = model[j];
                armed[j] = false;
            }
            CHECKQ(n == (unsigned)nfired, "count");
        }
        uint64_t next = ~0ull;
        for (int j = 0; j < NT; j++) {
            CHECKQ(armed[j] == tms[j].armed, "armed state of %d", j);
            if (armed[j] && model[j] < next)
                next = model[j];
        }
        CHECKQ(timer_next() == next, "next %llu, model %llu", (unsigned long long)timer_next(),
               (unsigned long long)next);
        if (uc_failed)
            break;
    }
    CHECK(uc_failed == 0, "300000 random operations against the model");
    for (int i = 0; i < NT; i++)
        timer_cancel(&tms[i]);
    CHECK(timer_next() == ~0ull, "all cancelled");
}

int main(int argc, char **argv)
{
    static const struct { const char *name; void (*fn)(void); } cases[] = {
        { "pid_cyclic", pid_cyclic }, { "pid_wrap", pid_wrap }, { "pid_random", pid_random },
        { "timer_basic", timer_basic }, { "timer_random", timer_random },
    };
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (argc < 2 || !strcmp(argv[1], cases[i].name))
            cases[i].fn();
    printf("%lu passed, %lu failed\n", uc_passed, uc_failed);
    return uc_failed != 0;
}
