/* In-system test, started by the root task as a boot module (tests/system/test_root_limits.py,
 * release kernel, a large kernel pool): processes and threads limited by memory only (issue
 * 13 item 1).  Through the root task's service: 1,000 foreign tasks alive at once, 10,000
 * threads created and deleted in a loop in one foreign task, 16,384 threads alive at once in
 * one foreign task; after each, the root task's pages, tasks and thread records and the
 * kernel's pool are as before.  The cases do not depend on their order. */
#include "testlib.h"
#include <stdlib.h>
#include <string.h>

#define TASKS       1000
#define LOOP        10000
#define ALIVE       16384
#define THREAD_PRIO 90              /* below us (100): they run when we wait */

/* What every foreign thread runs, without a stack: its index comes in RSP (never used as a
 * stack) and goes to us in RDI with system call 1000, which we never answer.  The probe
 * thread reads one word per GiB from 1 GiB up. */
void report_index(void);
void touch_each_gib(void);
__asm__(".pushsection .text\n"
        ".balign 64\n"
        ".globl report_index\n"
        "report_index:\n\t"
        "movq %rsp, %rdi\n\t"
        "movl $1000, %eax\n\t"
        "syscall\n\t"
        "ud2\n"
        ".globl touch_each_gib\n"
        "touch_each_gib:\n\t"
        "movq $0x40000000, %rax\n"
        "1:\n\t"
        "movq (%rax), %rdx\n\t"
        "addq $0x40000000, %rax\n\t"
        "jmp 1b\n"
        ".popsection");

static l4_word_t me;
static l4_word_t tids[ALIVE + 1];
static uint8_t probe_page[4096] __attribute__((aligned(4096)));

struct usage { l4_word_t pages, table_pages, tasks, threads; unsigned kernel; };

static l4_word_t new_foreign_task(l4_word_t *err)
{
    struct l4_task_params p = { .pager = me, .priority = THREAD_PRIO, .flags = ROOT_TASK_FOREIGN };
    return l4_task_create(&p, err);
}

static bool delete_task(l4_word_t t)
{
    l4_word_t err;
    return l4_root_call(ROOT_TASK_DELETE, t, 0, 0, 0, &err) == 1 && !err;
}

static void start(l4_word_t t, void (*ip)(void), l4_word_t index)
{
    l4_set_mr(0, l4_tag_make(0, 2, 0));
    l4_set_mr(1, (l4_word_t)ip);
    l4_set_mr(2, index);
    l4_send(t);
}

static void map_reply(l4_word_t ours, l4_word_t at, unsigned rights)
{
    l4_set_mr(0, l4_tag_make(0, 0, 2));
    l4_set_mr(1, l4_map_item(at));
    l4_set_mr(2, l4_fpage_log2(ours, 12) | rights);
}

/* The next message of a foreign thread that is not a fault on our code page (those are
 * answered with the page, mapped 1:1); 0 if an IPC failed. */
static l4_word_t next_message(l4_word_t *from)
{
    l4_word_t code = (l4_word_t)report_index & ~0xFFFul, tag = l4_wait(from);
    while (!l4_ipc_failed(tag) && l4_tag_is_proto(tag, L4_PROTO_PAGEFAULT) &&
           (l4_mr(L4_PF_ADDR) & ~0xFFFul) == code) {
        map_reply(code, code, L4_R | L4_X);
        tag = l4_reply_wait(*from, from);
    }
    return l4_ipc_failed(tag) ? 0 : tag;
}

/* The next report: its sender, and its index in *index (0 and no index on anything else). */
static l4_word_t next_report(l4_word_t *index)
{
    l4_word_t from, tag = next_message(&from);
    if (!l4_tag_is_proto(tag, L4_PROTO_FOREIGN_SYSCALL) || l4_mr(L4_FSC_RAX) != 1000)
        return 0;
    *index = l4_mr(L4_FSC_RDI);
    return from;
}

/* The kernel's free pool, in steps of a page directory and a page table (16 KiB): a foreign
 * thread reads a word in every GiB, and each of its page faults is answered with our page
 * until the kernel has no memory for the tables (the map fails, the thread faults at the
 * same address again).  The task goes with all of it.  About 45,000 guest instructions a
 * step, most of them the kernel walking the tables when the space goes; creating tasks
 * until none fits costs more, because the kernel's thread deletion scans every thread. */
static unsigned kernel_pool_probe(void)
{
    l4_word_t err, from, tag, last = 0;
    unsigned n = 0;
    l4_word_t t = new_foreign_task(&err);
    if (!t)
        return 0;
    start(t, touch_each_gib, 0);
    while ((tag = next_message(&from)) && l4_tag_is_proto(tag, L4_PROTO_PAGEFAULT) &&
           l4_mr(L4_PF_ADDR) != last) {
        last = l4_mr(L4_PF_ADDR);
        map_reply((l4_word_t)probe_page, last, L4_R);
        l4_reply(from);
        n++;
    }
    delete_task(t);
    return n - 1;                   /* the last map failed */
}

/* A number from our command line ("key=N"), or dflt. */
static l4_word_t option(const char *key, l4_word_t dflt)
{
    const char *c = l4_task_cmdline();
    size_t n = strlen(key);
    for (const char *p = c; (p = strstr(p, key)); p++)
        if ((p == c || p[-1] == ' ') && p[n] == '=')
            return strtoul(p + n + 1, NULL, 0);
    return dflt;
}

/* The kernel's pool as the last probe found it, while nothing has changed since. */
static bool kernel_known;
static unsigned kernel_free;

/* What the root task holds (pages in use less those of its number table, which keeps the
 * versions of every thread number used), its tasks and thread records, and (kernel=1 on
 * our command line, the default) the kernel's free pool. */
static struct usage usage(void)
{
    struct usage u;
    u.pages = l4_root_call(ROOT_MEMORY_INFO, 0, 0, 0, 0, NULL);
    u.tasks = l4_mr(4);
    u.threads = l4_mr(5);
    u.table_pages = l4_mr(6);
    u.pages -= u.table_pages;
    if (!kernel_known && option("kernel", 1))
        kernel_free = kernel_pool_probe();
    kernel_known = true;
    u.kernel = kernel_free;
    return u;
}

static bool same_usage(struct usage a, struct usage b)
{
    if (a.pages != b.pages || a.tasks != b.tasks || a.threads != b.threads || a.kernel != b.kernel)
        test_note("root pages %lu -> %lu, tasks %lu -> %lu, threads %lu -> %lu, kernel pool "
                  "%u -> %u", a.pages, b.pages, a.tasks, b.tasks, a.threads, b.threads,
                  a.kernel, b.kernel);
    return a.pages == b.pages && a.tasks == b.tasks && a.threads == b.threads &&
           a.kernel == b.kernel;
}

/* Usage at the start of a case, which then changes things: the next usage() probes. */
static struct usage begin(void)
{
    me = l4_my_global_id();
    (void)*(volatile char *)report_index;           /* our pages that children get */
    probe_page[0] = 1;
    struct usage u = usage();
    kernel_known = false;
    return u;
}

/* Foreign tasks alive at once (tasks=N, default 1,000), each thread waiting in a system call
 * to us (the root task had a table of 128 tasks). */
TEST(thousand_foreign_tasks_alive)
{
    struct usage before = begin();
    unsigned tasks = (unsigned)option("tasks", 1000);
    l4_word_t err, index = 0;
    CHECK(tasks <= ALIVE);
    for (unsigned i = 0; i < tasks; i++) {
        tids[i] = new_foreign_task(&err);
        CHECK(tids[i] && !err, "task %u: error %lu", i, err);
        start(tids[i], report_index, i);
    }
    for (unsigned i = 0; i < tasks; i++) {
        l4_word_t from = next_report(&index);
        CHECK(from && index < tasks && from == tids[index], "report %u: %lx, index %lu", i,
              from, index);
    }
    struct usage peak = usage();
    CHECK_EQ(peak.tasks, before.tasks + tasks);
    CHECK_EQ(peak.threads, before.threads + tasks);
    test_note("%u tasks: root %lu pages, kernel %u probe steps of 16 KiB", tasks,
              peak.pages - before.pages, before.kernel - peak.kernel);
    for (unsigned i = 0; i < tasks; i++)
        CHECK(delete_task(tids[i]), "task %u", i);
    kernel_known = false;
    CHECK(same_usage(before, usage()));
}

/* Threads of one foreign task, one after another (loop=N, default 10,000): created through
 * the root task, run until their system call reaches us, deleted.  Each UTCB is at the
 * area's base: in a foreign space that is only a name. */
TEST(ten_thousand_threads_in_a_loop)
{
    struct usage before = begin();
    unsigned loop = (unsigned)option("loop", LOOP);
    l4_word_t err, index = 0, utcb = ROOT_FOREIGN_UTCB_AREA & ~0x3FFul;
    l4_word_t task = new_foreign_task(&err);
    CHECK(task && !err, "error %lu", err);
    start(task, report_index, 0);
    CHECK_EQ(next_report(&index), task);
    for (unsigned i = 1; i <= loop; i++) {
        l4_word_t t = l4_root_call(ROOT_THREAD_CREATE, task, me, utcb, THREAD_PRIO, &err);
        CHECK(t && !err, "thread %u: error %lu", i, err);
        start(t, report_index, i);
        CHECK_EQ(next_report(&index), t);
        CHECK_EQ(index, i);
        CHECK(l4_root_call(ROOT_THREAD_DELETE, t, 0, 0, 0, &err) == 1 && !err,
              "thread %u: error %lu", i, err);
    }
    CHECK(delete_task(task));
    CHECK(same_usage(before, usage()));
}

/* Threads alive at once in one foreign task (alive=N, default 16,384; its UTCB area held
 * 32), deleted with the task; with keep=1 left alive to the end of the run instead
 * (deleting 16,385 threads costs 2.7 G guest instructions: the kernel's thread deletion
 * scans every thread). */
TEST(sixteen_thousand_threads_alive)
{
    struct usage before = begin();
    unsigned alive = (unsigned)option("alive", ALIVE);
    l4_word_t err, index = 0, utcb = ROOT_FOREIGN_UTCB_AREA & ~0x3FFul;
    CHECK(alive <= ALIVE);
    tids[0] = new_foreign_task(&err);
    CHECK(tids[0] && !err, "error %lu", err);
    start(tids[0], report_index, 0);
    for (unsigned i = 1; i <= alive; i++) {
        tids[i] = l4_root_call(ROOT_THREAD_CREATE, tids[0], me, utcb, THREAD_PRIO, &err);
        CHECK(tids[i] && !err, "thread %u: error %lu", i, err);
        start(tids[i], report_index, i);
    }
    for (unsigned i = 0; i <= alive; i++) {
        l4_word_t from = next_report(&index);
        CHECK(from && index <= alive && from == tids[index], "report %u: %lx, index %lu", i,
              from, index);
    }
    struct usage peak = usage();
    CHECK_EQ(peak.threads, before.threads + alive + 1);
    test_note("%u threads: root %lu pages (%lu of them number table), kernel %u probe steps "
              "of 16 KiB", alive + 1, peak.pages - before.pages,
              peak.table_pages - before.table_pages, before.kernel - peak.kernel);
    if (option("keep", 0))
        return;
    CHECK(delete_task(tids[0]));
    kernel_known = false;
    CHECK(same_usage(before, usage()));
}

int main(void)
{
    tests_run("root-limits");
}
