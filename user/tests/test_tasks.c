/* In-system test, started by the root task as a boot module (issue 4 item 8): its command
 * line, its heap, and the root task's service (libl4/task.h). */
#include "testlib.h"
#include <string.h>

TEST(command_line_and_start_record)
{
    const struct l4_task_start *ts = l4_task_start();
    CHECK(ts != NULL);
    CHECK(strstr(l4_task_cmdline(), "test_tasks") != NULL);
    CHECK(strstr(l4_task_cmdline(), "alpha=1 beta") != NULL, "got '%s'", l4_task_cmdline());
    CHECK_EQ(ts->root, l4_global_id(l4_kip_user_base() + 2, 1));
    CHECK_EQ(l4_pager(), ts->root);
}

TEST(heap_is_paged_on_demand)
{
    const struct l4_task_start *ts = l4_task_start();
    CHECK(ts->heap_size >= (1 << 20));
    volatile l4_word_t *heap = (volatile l4_word_t *)ts->heap_base;
    for (l4_word_t off = 0; off < (1 << 20) / 8; off += 512)
        heap[off] = off;
    for (l4_word_t off = 0; off < (1 << 20) / 8; off += 512)
        CHECK_EQ(heap[off], off);
    CHECK_EQ(heap[1], 0);                   /* fresh pages are zero */
}

static volatile l4_word_t child_said;

static void child(void)
{
    child_said = 42;
    l4_sleep_forever();
}

TEST(thread_in_own_space)
{
    l4_word_t err;
    l4_word_t me = l4_my_global_id();
    l4_word_t t = l4_root_call(ROOT_THREAD_CREATE, me, me, 0xBF000400, 100, &err);
    CHECK(t != 0 && err == 0, "error %lu", err);
    static uint8_t stack[4096] __attribute__((aligned(16)));
    l4_set_mr(0, l4_tag_make(0, 2, 0));
    l4_set_mr(1, (l4_word_t)child);
    l4_set_mr(2, (l4_word_t)&stack[4096 - 8]);
    CHECK(!l4_ipc_failed(l4_send(t)));
    for (int i = 0; i < 100 && child_said != 42; i++)
        l4_thread_switch(t);
    CHECK_EQ(child_said, 42);
    CHECK(l4_root_call(ROOT_THREAD_DELETE, t, 0, 0, 0, &err) && !err);
    /* Deleting it again, or somebody else's thread, is refused. */
    CHECK_EQ(l4_root_call(ROOT_THREAD_DELETE, t, 0, 0, 0, &err), 0);
    CHECK_EQ(err, L4_ERR_INVALID_THREAD);
    CHECK_EQ(l4_root_call(ROOT_THREAD_DELETE, l4_sigma0_tid(), 0, 0, 0, &err), 0);
}

TEST(new_task_paged_by_us)
{
    l4_word_t err;
    l4_word_t t = l4_root_call(ROOT_TASK_CREATE, l4_my_global_id(), 100, 0, 0, &err);
    CHECK(t != 0 && err == 0, "error %lu", err);
    /* It waits for its start message from us, its pager; start it at an address it has no
     * page for: its page fault reaches us. */
    l4_set_mr(0, l4_tag_make(0, 2, 0));
    l4_set_mr(1, 0x400000);
    l4_set_mr(2, 0x10000);
    CHECK(!l4_ipc_failed(l4_send(t)));
    l4_word_t from, tag = l4_wait(&from);
    CHECK_EQ(from, t);
    CHECK(l4_tag_is_proto(tag, L4_PROTO_PAGEFAULT));
    CHECK_EQ(l4_mr(1), 0x400000);
    CHECK(l4_root_call(ROOT_THREAD_DELETE, t, 0, 0, 0, &err) && !err);
}

/* A task with the foreign system-call ABI: its Linux-style `syscall` reaches us (its pager
 * and handler) as a message, and so does the X.2 IPC it tries. */
static uint8_t foreign_stack[4096] __attribute__((aligned(4096)));

static void foreign_task_main(void)
{
    l4_word_t ret;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(39ul) : "rcx", "r11", "memory");
    __asm__ volatile("syscall" : "=a"(ret) : "a"(ret + 1) : "rcx", "r11", "memory");
    for (;;)
        ;
}

/* Serve t's page faults (our pages, 1:1) until another message comes; returns its tag. */
static l4_word_t serve_task(l4_word_t t)
{
    for (;;) {
        l4_word_t tag = l4_receive(t);
        if (l4_ipc_failed(tag) || !l4_tag_is_proto(tag, L4_PROTO_PAGEFAULT))
            return tag;
        l4_word_t page = l4_mr(1) & ~0xFFFul;
        (void)*(volatile char *)page;
        l4_set_mr(0, l4_tag_make(0, 0, 2));
        l4_set_mr(1, l4_map_item(page));
        l4_set_mr(2, l4_fpage_log2(page, 12) | L4_RWX);
        l4_reply(t);
    }
}

TEST(foreign_task)
{
    l4_word_t err, me = l4_my_global_id();
    l4_word_t t = l4_root_call(ROOT_TASK_CREATE, me, 100, ROOT_TASK_FOREIGN, 0, &err);
    CHECK(t != 0 && err == 0, "error %lu", err);
    l4_set_mr(0, l4_tag_make(0, 2, 0));
    l4_set_mr(1, (l4_word_t)foreign_task_main);
    l4_set_mr(2, (l4_word_t)&foreign_stack[4096 - 8]);
    CHECK(!l4_ipc_failed(l4_send(t)));
    l4_word_t tag = serve_task(t);
    CHECK(l4_tag_is_proto(tag, L4_PROTO_FOREIGN_SYSCALL), "tag %lx", tag);
    CHECK_EQ(l4_mr(L4_FSC_RAX), 39);
    l4_set_mr(0, l4_tag_make(0, 1, 0));
    l4_set_mr(1, 777);
    l4_reply(t);
    tag = serve_task(t);
    CHECK(l4_tag_is_proto(tag, L4_PROTO_FOREIGN_SYSCALL), "tag %lx", tag);
    CHECK_EQ(l4_mr(L4_FSC_RAX), 778);
    /* Bad flags are refused. */
    CHECK_EQ(l4_root_call(ROOT_TASK_CREATE, me, 100, 0x80, 0, &err), 0);
    CHECK_EQ(err, L4_ERR_INVALID_PARAM);
    CHECK(l4_root_call(ROOT_THREAD_DELETE, t, 0, 0, 0, &err) && !err);
}

TEST(names)
{
    CHECK(l4_name_register("tasks-test", l4_my_global_id()));
    CHECK_EQ(l4_name_lookup("tasks-test"), l4_my_global_id());
}

int main(void)
{
    tests_run("tasks");
}
