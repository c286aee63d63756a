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
    CHECK_EQ(l4_mr(L4_PF_ADDR), 0x400000);
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
        l4_word_t page = l4_mr(L4_PF_ADDR) & ~0xFFFul;
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

/* --- ROOT_TASK_CREATE's parameters (issue 7 item 6) ------------------------------------- */

/* A child task runs our code: we are its pager and map it our own pages 1:1, so it shares
 * our data.  It reports by writing `probe` and then touching DONE_ADDR, which we do not map:
 * that page fault tells us it has finished. */
#define DONE_ADDR 0xD0000000ul
static volatile l4_word_t probe[4];
static volatile l4_word_t probe_kip;                /* where the child reads the KIP */
static uint8_t child_stack[8192] __attribute__((aligned(4096)));
#define CHILD_SP ((l4_word_t)&child_stack[sizeof child_stack - 8])

static void __attribute__((noreturn)) child_done(void)
{
    (void)*(volatile char *)DONE_ADDR;
    for (;;)
        ;
}

/* Serve t's page faults until it touches DONE_ADDR (true) or sends something else (false,
 * the tag in *tag). */
static bool serve_until_done(l4_word_t t, l4_word_t *tag)
{
    for (;;) {
        *tag = l4_receive(t);
        if (l4_ipc_failed(*tag) || !l4_tag_is_proto(*tag, L4_PROTO_PAGEFAULT))
            return false;
        l4_word_t page = l4_mr(L4_PF_ADDR) & ~0xFFFul;
        if (page == DONE_ADDR)
            return true;
        (void)*(volatile char *)page;
        l4_set_mr(0, l4_tag_make(0, 0, 2));
        l4_set_mr(1, l4_map_item(page));
        l4_set_mr(2, l4_fpage_log2(page, 12) | L4_RWX);
        l4_reply(t);
    }
}

static void probe_main(void)
{
    probe[0] = *(volatile uint32_t *)probe_kip;
    probe[1] = l4_my_local_id();
    probe[2] = l4_exception_handler();
    probe[3] = l4_pager();
    child_done();
}

static l4_word_t create(l4_word_t flags, l4_word_t kip, l4_word_t utcb, l4_word_t exc,
                        l4_word_t red, void (*entry)(void), l4_word_t *err)
{
    struct l4_task_params p = {
        .pager = l4_my_global_id(), .priority = 100, .flags = flags, .kip_area = kip,
        .utcb_area = utcb, .exception_handler = exc, .redirector = red,
        .ip = (l4_word_t)entry, .sp = entry ? CHILD_SP : 0,
    };
    return l4_task_create(&p, err);
}

static bool delete_task(l4_word_t t)
{
    l4_word_t err;
    return l4_root_call(ROOT_TASK_DELETE, t, 0, 0, 0, &err) == 1 && !err;
}

/* Areas where we ask for them; the root task starts the thread (IP, SP) and sets its
 * exception handler; its pager TCR is us. */
TEST(task_areas_started_by_root_with_exception_handler)
{
    l4_word_t err, me = l4_my_global_id(), tag;
    probe_kip = 0x20000;
    probe[0] = probe[1] = probe[2] = probe[3] = 0;
    l4_word_t t = create(0, l4_fpage_log2(0x20000, 12), l4_fpage_log2(0x40000, 16), me, 0,
                         probe_main, &err);
    CHECK(t && !err, "error %lu", err);
    CHECK(serve_until_done(t, &tag), "tag %lx", tag);
    CHECK_EQ(probe[0], *(uint32_t *)l4_kip());          /* the KIP's magic */
    CHECK_EQ(probe[1], 0x40000 + L4_UTCB_MR0_OFFSET);   /* UTCB at the area's base */
    CHECK_EQ(probe[2], me);
    CHECK_EQ(probe[3], me);
    CHECK(delete_task(t));
}

/* A foreign task without areas gets them below 64 KiB, where Linux maps nothing.  Its UTCB
 * is the kernel's (docs/linux-abi.md): it reads only the KIP, and we, its handler, learn
 * its UTCB address from ExchangeRegisters. */
static void foreign_probe_main(void)
{
    probe[0] = *(volatile uint32_t *)probe_kip;
    child_done();
}

TEST(foreign_task_default_areas)
{
    l4_word_t err, tag;
    probe_kip = ROOT_FOREIGN_KIP_AREA & ~0x3FFul;
    probe[0] = 0;
    l4_word_t t = create(ROOT_TASK_FOREIGN, 0, 0, 0, 0, foreign_probe_main, &err);
    CHECK(t && !err, "error %lu", err);
    CHECK(serve_until_done(t, &tag), "tag %lx", tag);
    CHECK_EQ(probe[0], *(uint32_t *)l4_kip());
    struct l4_exregs old;
    CHECK_EQ(l4_exchange_registers(t, 0, 0, 0, 0, 0, 0, &old),
             (ROOT_FOREIGN_UTCB_AREA & ~0x3FFul) + L4_UTCB_MR0_OFFSET);
    CHECK(delete_task(t));
}

/* The exception handler is really the TCR: an ordinary (not foreign) task would otherwise
 * have nobody to send its exception to. */
static void exception_main(void)
{
    __asm__ volatile("ud2");
    child_done();
}

TEST(exception_reaches_the_handler)
{
    l4_word_t err, tag, me = l4_my_global_id();
    l4_word_t t = create(0, 0, 0, me, 0, exception_main, &err);
    CHECK(t && !err, "error %lu", err);
    CHECK(!serve_until_done(t, &tag));
    CHECK(l4_tag_is_proto(tag, L4_PROTO_EXCEPTION), "tag %lx", tag);
    CHECK_EQ(l4_mr(L4_EXC_VECTOR), 6);                  /* #UD */
    CHECK_EQ(l4_mr(L4_EXC_RIP), (l4_word_t)exception_main);
    CHECK(delete_task(t));
}

/* A redirector given as a parameter: the child's IPC to the root task reaches us. */
static void redirected_main(void)
{
    l4_set_mr(0, l4_tag_make(0x43, 0, 0));
    l4_send(l4_task_start()->root);
    child_done();
}

TEST(redirector_parameter)
{
    l4_word_t err, tag, me = l4_my_global_id();
    l4_word_t t = create(0, 0, 0, 0, me, redirected_main, &err);
    CHECK(t && !err, "error %lu", err);
    CHECK(!serve_until_done(t, &tag));
    CHECK_EQ(l4_tag_label(tag), 0x43);
    CHECK(tag & L4_TAG_R, "not redirected: tag %lx", tag);
    CHECK_EQ(l4_intended_receiver(), l4_task_start()->root);
    CHECK(delete_task(t));
}

static l4_word_t create_err(l4_word_t pager, l4_word_t flags, l4_word_t kip, l4_word_t utcb,
                            l4_word_t exc, l4_word_t red, l4_word_t ip, l4_word_t sp)
{
    l4_word_t err;
    struct l4_task_params p = { pager, 100, flags, kip, utcb, exc, red, ip, sp };
    l4_word_t t = l4_task_create(&p, &err);
    if (t)
        delete_task(t);
    return t ? 0 : err;
}

TEST(task_create_refusals)
{
    l4_word_t me = l4_my_global_id(), ip = (l4_word_t)probe_main;
    l4_word_t info0 = l4_root_call(ROOT_MEMORY_INFO, 0, 0, 0, 0, NULL), tasks0 = l4_mr(4);
    /* pager nil or local, unknown flags */
    CHECK_EQ(create_err(0, 0, 0, 0, 0, 0, 0, 0), L4_ERR_INVALID_PARAM);
    CHECK_EQ(create_err(l4_my_local_id(), 0, 0, 0, 0, 0, 0, 0), L4_ERR_INVALID_PARAM);
    CHECK_EQ(create_err(me, 0x4, 0, 0, 0, 0, 0, 0), L4_ERR_INVALID_PARAM);
    CHECK_EQ(create_err(me, 1ul << 63, 0, 0, 0, 0, 0, 0), L4_ERR_INVALID_PARAM);
    /* an exception handler needs the root task to start the thread; local ids */
    CHECK_EQ(create_err(me, 0, 0, 0, me, 0, 0, 0), L4_ERR_INVALID_PARAM);
    CHECK_EQ(create_err(me, 0, 0, 0, l4_my_local_id(), 0, ip, CHILD_SP), L4_ERR_INVALID_PARAM);
    CHECK_EQ(create_err(me, 0, 0, 0, 0, l4_my_local_id(), 0, 0), L4_ERR_INVALID_PARAM);
    /* confined means the pager redirects: another redirector contradicts it */
    CHECK_EQ(create_err(me, ROOT_TASK_CONFINED, 0, 0, 0, l4_sigma0_tid(), 0, 0), L4_ERR_INVALID_PARAM);
    /* IP or SP outside the user area */
    CHECK_EQ(create_err(me, 0, 0, 0, 0, 0, 0xFFFF800000000000ul, CHILD_SP), L4_ERR_INVALID_PARAM);
    CHECK_EQ(create_err(me, 0, 0, 0, 0, 0, ip, L4_USER_AREA_END), L4_ERR_INVALID_PARAM);
    /* bad KIP areas: too small, not aligned to its size, an I/O fpage, the complete fpage,
     * outside the user area */
    CHECK_EQ(create_err(me, 0, l4_fpage_log2(0x20000, 11), 0, 0, 0, 0, 0), L4_ERR_KIP_AREA);
    CHECK_EQ(create_err(me, 0, 0x21000 | (13 << 4), 0, 0, 0, 0, 0), L4_ERR_KIP_AREA);
    CHECK_EQ(create_err(me, 0, (0x20ul << 10) | (2 << 4), 0, 0, 0, 0, 0), L4_ERR_KIP_AREA);
    CHECK_EQ(create_err(me, 0, L4_COMPLETE_FPAGE, 0, 0, 0, 0, 0), L4_ERR_KIP_AREA);
    CHECK_EQ(create_err(me, 0, l4_fpage_log2(L4_USER_AREA_END, 12), 0, 0, 0, 0, 0), L4_ERR_KIP_AREA);
    /* bad UTCB areas */
    CHECK_EQ(create_err(me, 0, 0, l4_fpage_log2(0x40000, 10), 0, 0, 0, 0), L4_ERR_UTCB_AREA);
    CHECK_EQ(create_err(me, 0, 0, 0x41000 | (16 << 4), 0, 0, 0, 0), L4_ERR_UTCB_AREA);
    CHECK_EQ(create_err(me, 0, 0, L4_USER_AREA_END | (20 << 4), 0, 0, 0, 0), L4_ERR_UTCB_AREA);
    /* overlapping areas: the KIP inside the UTCB area, and the two the same */
    CHECK_EQ(create_err(me, 0, l4_fpage_log2(0x41000, 12), l4_fpage_log2(0x40000, 16), 0, 0, 0, 0),
             L4_ERR_KIP_AREA);
    CHECK_EQ(create_err(me, 0, l4_fpage_log2(0x40000, 12), l4_fpage_log2(0x40000, 12), 0, 0, 0, 0),
             L4_ERR_KIP_AREA);
    /* a redirector that does not exist: the kernel's error, and nothing is left behind */
    CHECK_EQ(create_err(me, 0, 0, 0, 0, l4_global_id(l4_kip_user_base() + 900, 7), 0, 0),
             L4_ERR_INVALID_THREAD);
    CHECK_EQ(l4_root_call(ROOT_MEMORY_INFO, 0, 0, 0, 0, NULL), info0);
    CHECK_EQ(l4_mr(4), tasks0);
    /* a short request (u = 4, the old layout) gets the defaults */
    l4_word_t err, t = l4_root_call(ROOT_TASK_CREATE, me, 100, 0, 0, &err);
    CHECK(t && !err, "error %lu", err);
    /* ROOT_TASK_DELETE: only the creator, not one's own task, not twice */
    CHECK_EQ(l4_root_call(ROOT_TASK_DELETE, me, 0, 0, 0, &err), 0);
    CHECK_EQ(err, L4_ERR_INVALID_THREAD);
    CHECK_EQ(l4_root_call(ROOT_TASK_DELETE, l4_sigma0_tid(), 0, 0, 0, &err), 0);
    CHECK_EQ(err, L4_ERR_INVALID_THREAD);
    CHECK(delete_task(t));
    CHECK(!delete_task(t));
}

/* A task created through the service is not trusted: it may not create tasks or map data
 * modules (it calls the root task with our libl4, which it shares). */
static void untrusted_main(void)
{
    l4_word_t e1 = 0, e2 = 0, e3 = 0;
    l4_root_call(ROOT_TASK_CREATE, l4_my_global_id(), 100, 0, 0, &e1);
    l4_data_map("greeting.txt", 0, &e2);
    l4_root_call(ROOT_MEMORY_INFO, 0, 0, 0, 0, &e3);
    probe[0] = e1;
    probe[1] = e2;
    probe[2] = e3;
    child_done();
}

TEST(untrusted_caller_refused)
{
    l4_word_t err, tag;
    probe[0] = probe[1] = probe[2] = 0;
    l4_word_t t = create(0, 0, 0, 0, 0, untrusted_main, &err);
    CHECK(t && !err, "error %lu", err);
    CHECK(serve_until_done(t, &tag), "tag %lx", tag);
    CHECK_EQ(probe[0], L4_ERR_NO_PRIVILEGE);
    CHECK_EQ(probe[1], L4_ERR_NO_PRIVILEGE);
    CHECK_EQ(probe[2], L4_ERR_NO_PRIVILEGE);
    CHECK(delete_task(t));
}

/* --- data modules ----------------------------------------------------------------------- */

/* tests/data/greeting.txt, booted with the word `data` (test_root_task.py). */
static const char greeting[] = "Pecan data module: a file the root task keeps for trusted servers.\n";
#define DATA_AT 0x300000000ul

TEST(data_module_mapped)
{
    l4_word_t err;
    CHECK_EQ(l4_data_map("greeting.txt", 0, &err), sizeof greeting - 1);
    CHECK_EQ(err, 0);
    CHECK_EQ(l4_data_map("greeting.txt", DATA_AT, &err), sizeof greeting - 1);
    CHECK_EQ(err, 0);
    CHECK(!memcmp((const void *)DATA_AT, greeting, sizeof greeting - 1));
    CHECK_EQ(*(const volatile char *)(DATA_AT + sizeof greeting - 1), 0);   /* zero tail */
    /* The same module again elsewhere. */
    CHECK_EQ(l4_data_map("greeting.txt", DATA_AT + 0x10000, &err), sizeof greeting - 1);
    CHECK(!memcmp((const void *)(DATA_AT + 0x10000), greeting, sizeof greeting - 1));
    /* Refusals: unknown name, program modules are not data, bad or occupied addresses. */
    CHECK_EQ(l4_data_map("nosuch.txt", 0, &err), 0);
    CHECK_EQ(err, L4_ERR_INVALID_PARAM);
    CHECK_EQ(l4_data_map("test_tasks.elf", 0, &err), 0);
    CHECK_EQ(err, L4_ERR_INVALID_PARAM);
    CHECK_EQ(l4_data_map("greeting.txt", DATA_AT + 0x20800, &err), 0);      /* unaligned */
    CHECK_EQ(err, L4_ERR_INVALID_PARAM);
    CHECK_EQ(l4_data_map("greeting.txt", DATA_AT, &err), 0);                /* taken */
    CHECK_EQ(err, L4_ERR_INVALID_PARAM);
    CHECK_EQ(l4_data_map("greeting.txt", l4_task_start()->heap_base, &err), 0);
    CHECK_EQ(err, L4_ERR_INVALID_PARAM);
    CHECK_EQ(l4_data_map("greeting.txt", 0xBF000000, &err), 0);             /* UTCB area */
    CHECK_EQ(err, L4_ERR_INVALID_PARAM);
    CHECK_EQ(l4_data_map("greeting.txt", L4_USER_AREA_END - 0x1000, &err), sizeof greeting - 1);
    CHECK_EQ(err, 0);                       /* the last page of the user area: it fits */
    CHECK(!memcmp((const void *)(L4_USER_AREA_END - 0x1000), greeting, sizeof greeting - 1));
    CHECK_EQ(l4_data_map("greeting.txt", L4_USER_AREA_END, &err), 0);
    CHECK_EQ(err, L4_ERR_INVALID_PARAM);
}

/* --- memory comes back ------------------------------------------------------------------- */

#define FILL_MAX 128
static l4_word_t filled[FILL_MAX];

/* Tasks until something runs out (booted with kmem=4M: the kernel's pool, before the root
 * task's tables); how many fitted.  Everything is deleted again. */
static unsigned fill_tasks(l4_word_t *last_err)
{
    unsigned n = 0;
    *last_err = 0;
    while (n < FILL_MAX) {
        l4_word_t t = create(0, 0, 0, 0, 0, NULL, last_err);
        if (!t)
            break;
        filled[n++] = t;
    }
    for (unsigned i = 0; i < n; i++)
        delete_task(filled[i]);
    return n;
}

struct meminfo { l4_word_t pages, tasks, threads; };

static struct meminfo meminfo(void)
{
    l4_word_t err;
    struct meminfo m;
    m.pages = l4_root_call(ROOT_MEMORY_INFO, 0, 0, 0, 0, &err);
    m.tasks = l4_mr(4);
    m.threads = l4_mr(5);
    return m;
}

TEST(thousand_tasks_lose_nothing)
{
    l4_word_t err, me = l4_my_global_id();
    unsigned warm = fill_tasks(&err);
    unsigned n1 = fill_tasks(&err);
    CHECK(n1 < FILL_MAX && n1 > 4, "%u tasks: the kernel pool did not run out", n1);
    CHECK_EQ(err, L4_ERR_NO_MEM);
    struct meminfo m1 = meminfo();
    for (unsigned i = 0; i < 1000; i++) {
        /* Every kind: foreign or not, started by the root task (it then waits in its first
         * page fault, to us) or waiting for its start message, deleted either way. */
        l4_word_t flags = i % 3 == 0 ? ROOT_TASK_FOREIGN : 0;
        bool started = i % 4 == 3;
        l4_word_t t = create(flags, 0, 0, started ? me : 0, 0, started ? probe_main : NULL, &err);
        CHECK(t && !err, "task %u: error %lu", i, err);
        if (i % 2) {
            CHECK(l4_root_call(ROOT_THREAD_DELETE, t, 0, 0, 0, &err) == 1 && !err, "task %u", i);
        } else {
            CHECK(delete_task(t), "task %u", i);
        }
    }
    struct meminfo m2 = meminfo();
    unsigned n2 = fill_tasks(&err);
    test_note("%u tasks fit (%u the first time), root: %lu pages in use, %lu tasks", n1, warm,
              m1.pages, m1.tasks);
    CHECK_EQ(m2.pages, m1.pages);
    CHECK_EQ(m2.tasks, m1.tasks);
    CHECK_EQ(m2.threads, m1.threads);
    CHECK_EQ(n2, n1);
}

/* Threads of one foreign task until the kernel's pool (4 MiB) is gone: error 8, the root
 * task's records of the threads that were made go with them, and as many fit again. */
static l4_word_t thread_fill[FILL_MAX * 8];

static unsigned fill_threads(l4_word_t task, l4_word_t *err)
{
    unsigned n = 0;
    while (n < FILL_MAX * 8 &&
           (thread_fill[n] = l4_root_call(ROOT_THREAD_CREATE, task, l4_my_global_id(),
                                          ROOT_FOREIGN_UTCB_AREA & ~0x3FFul, 100, err)))
        n++;
    for (unsigned i = 0; i < n; i++)
        l4_root_call(ROOT_THREAD_DELETE, thread_fill[i], 0, 0, 0, NULL);
    return n;
}

TEST(threads_until_the_kernel_runs_out)
{
    l4_word_t err;
    l4_word_t task = create(ROOT_TASK_FOREIGN, 0, 0, 0, 0, NULL, &err);
    CHECK(task && !err, "error %lu", err);
    struct meminfo m1 = meminfo();
    unsigned n1 = fill_threads(task, &err);
    CHECK_EQ(err, L4_ERR_NO_MEM);
    CHECK(n1 > 32 && n1 < FILL_MAX * 8, "%u threads", n1);
    struct meminfo m2 = meminfo();
    unsigned n2 = fill_threads(task, &err);
    test_note("%u threads in one foreign task (%u the first time)", n2, n1);
    CHECK_EQ(err, L4_ERR_NO_MEM);
    CHECK_EQ(n2, n1);
    CHECK_EQ(m2.threads, m1.threads);
    CHECK_EQ(m2.tasks, m1.tasks);
    CHECK(delete_task(task));
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
