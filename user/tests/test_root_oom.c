/* In-system test, started by the root task as a boot module, the root task booted with a
 * small pool of its own (pool=N, tests/system/test_root_limits.py): when the root task's
 * memory is gone, creating tasks and threads fails with error 8, nothing is left half made,
 * and the root task keeps serving.  Its pool is filled with our heap: a helper thread touches
 * it page by page until a fault stays unanswered. */
#include "testlib.h"

#define MAX         4096
#define KERNEL_ROOM 256

static l4_word_t me, made[MAX];
static volatile l4_word_t touched;
static uint8_t helper_stack[4096] __attribute__((aligned(16)));

static void toucher(void)
{
    volatile char *heap = (volatile char *)l4_task_start()->heap_base;
    for (l4_word_t off = 0; off < l4_task_start()->heap_size; off += 4096, touched++)
        heap[off] = 1;
    for (;;)
        l4_thread_switch(0);
}

static l4_word_t foreign_task(l4_word_t *err)
{
    struct l4_task_params p = { .pager = me, .priority = 90, .flags = ROOT_TASK_FOREIGN };
    return l4_task_create(&p, err);
}

static bool delete(l4_word_t label, l4_word_t t)
{
    l4_word_t err;
    return l4_root_call(label, t, 0, 0, 0, &err) == 1 && !err;
}

/* Threads in `task` (a foreign task of ours) until an error or `max`; how many, all
 * deleted again. */
static unsigned threads_until_error(l4_word_t task, unsigned max, l4_word_t *err)
{
    unsigned n = 0;
    while (n < max && (made[n] = l4_root_call(ROOT_THREAD_CREATE, task, me,
                                              ROOT_FOREIGN_UTCB_AREA & ~0x3FFul, 90, err)))
        n++;
    for (unsigned i = 0; i < n; i++)
        delete(ROOT_THREAD_DELETE, made[i]);
    return n;
}

static l4_word_t records(l4_word_t *threads)
{
    l4_word_t tasks;
    l4_root_call(ROOT_MEMORY_INFO, 0, 0, 0, 0, NULL);
    tasks = l4_mr(4);
    *threads = l4_mr(5);
    return tasks;
}

TEST(pool_full_refuses_and_root_serves)
{
    me = l4_my_global_id();
    l4_word_t err, threads0, threads;
    l4_word_t task = foreign_task(&err);
    CHECK(task && !err, "error %lu", err);
    l4_word_t tasks0 = records(&threads0);
    /* The kernel has room for many more threads than the root task will make below. */
    CHECK_EQ(threads_until_error(task, KERNEL_ROOM, &err), KERNEL_ROOM);
    l4_word_t h = l4_root_call(ROOT_THREAD_CREATE, me, l4_task_start()->root, 0xBF000400, 100,
                               &err);
    CHECK(h && !err, "error %lu", err);
    /* The helper fills the root task's pool with our heap until its fault stays open. */
    l4_start_sp_ip(h, (l4_word_t)&helper_stack[sizeof helper_stack - 8], (l4_word_t)toucher);
    l4_word_t seen;
    do {
        seen = touched;
        for (unsigned i = 0; i < 100; i++)
            l4_thread_switch(h);
    } while (touched != seen);
    CHECK(touched > 0 && touched < l4_task_start()->heap_size / 4096, "%lu heap pages", touched);
    /* Tasks and threads: the root task runs out long before the kernel. */
    unsigned n = 0;
    while (n < MAX && (made[n] = foreign_task(&err)))
        n++;
    CHECK_EQ(err, L4_ERR_NO_MEM);
    for (unsigned i = 0; i < n; i++)
        CHECK(delete(ROOT_TASK_DELETE, made[i]));
    unsigned m = threads_until_error(task, MAX, &err);
    CHECK_EQ(err, L4_ERR_NO_MEM);
    test_note("root's pool full after %lu heap pages; then %u tasks and %u threads", touched,
              n, m);
    CHECK(n < 64 && m < KERNEL_ROOM, "%u tasks, %u threads", n, m);
    /* Nothing half made, and the service still answers. */
    CHECK_EQ(records(&threads), tasks0);
    CHECK_EQ(threads, threads0 + 1);                    /* the helper */
    CHECK(l4_name_register("oom-test", me));
    CHECK_EQ(l4_name_lookup("oom-test"), me);
    CHECK(delete(ROOT_THREAD_DELETE, h));
    CHECK(delete(ROOT_TASK_DELETE, task));
    CHECK_EQ(records(&threads), tasks0 - 1);
    CHECK_EQ(threads, threads0 - 1);
}

int main(void)
{
    tests_run("root-oom");
}
