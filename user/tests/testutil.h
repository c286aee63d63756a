/* Helpers for in-system tests: threads in the test's own space, threads in fresh spaces paged
 * by the test (its image mapped 1:1), and a deterministic way to wait until every other test
 * thread is blocked or stopped. */
#ifndef TESTUTIL_H
#define TESTUTIL_H

#include <libl4.h>

#define TU_STACK_SIZE 8192

/* In children, faults in [TU_WINDOW, TU_WINDOW + TU_WINDOW_SIZE) are served with the pages of
 * tu_window_backing (those below tu_window_refuse_from): memory mapped at first use. */
#define TU_WINDOW       0x40000000ul
#define TU_WINDOW_SIZE  (64 * 1024)
extern uint8_t tu_window_backing[TU_WINDOW_SIZE];
extern l4_word_t tu_window_refuse_from;

/* A new thread id (fresh thread number, version 1). */
l4_word_t tu_new_tid(void);
/* New spaces with one active thread each (ids into tids[], at most max) until the kernel
 * runs out of memory; returns how many threads were created (the last may be inactive). */
unsigned tu_fill_spaces(l4_word_t *tids, unsigned max);
/* A thread in our space running fn at priority prio, paged by us (main thread). */
l4_word_t tu_thread(void (*fn)(void), unsigned prio);
/* Create (without starting) a thread in our space; start it with tu_start. */
l4_word_t tu_thread_create(unsigned prio);
void tu_start(l4_word_t tid, void (*fn)(void));
/* A thread in a new address space running fn; our pages are mapped into it on demand by
 * tu_serve().  Returns the thread id. */
l4_word_t tu_space_thread(void (*fn)(void), unsigned prio);
/* The same with the new space's UTCB area (one page) and the thread's UTCB at utcb. */
l4_word_t tu_space_thread_utcb(void (*fn)(void), unsigned prio, l4_word_t utcb);
/* The same with the thread id chosen too (a free slot: a fresh number, or a deleted thread's
 * with a new version). */
l4_word_t tu_space_thread_id(l4_word_t tid, void (*fn)(void), unsigned prio, l4_word_t utcb);
/* A thread of a new foreign space (docs/linux-abi.md): handler `handler`, pager us, its UTCB
 * area the page at utcb and its UTCB there, starting at fn with stack pointer sp at priority
 * 100 (below a test's main thread, which keeps the CPU).  Its first page fault comes to the
 * handler.  Returns the thread id, 0 on failure. */
l4_word_t tu_foreign_thread(void (*fn)(void), l4_word_t sp, l4_word_t handler, l4_word_t utcb);
/* The message foreign thread t sent (tag), or the next one after it, answering t's page faults
 * inside our image with our own pages (1:1, read-write-execute) on the way; 0 if the IPC
 * failed.  Use with l4_receive(t) for the next message, l4_ipc(t, t, ...) to reply to it. */
l4_word_t tu_foreign_serve(l4_word_t t, l4_word_t tag);
/* The same, replying to page faults with these IPC timeouts (l4_timeouts). */
l4_word_t tu_foreign_serve_timeouts(l4_word_t t, l4_word_t tag, l4_word_t timeouts);
/* Serve page and I/O faults of our children (pages inside our image are mapped 1:1) until
 * a message that is not such a fault arrives (or the quiet signal, see tu_wait_quiet);
 * returns its tag and sender. */
l4_word_t tu_serve(l4_word_t *from);
/* The same, starting with a message already received (tag, *from). */
l4_word_t tu_serve_continue(l4_word_t tag, l4_word_t *from);
/* Serve faults until every thread with a priority above 1 other than us is blocked or
 * stopped.  Returns the number of faults it had to leave unanswered (outside our image).
 * Any other message that arrives meanwhile is lost: use it only when none is expected. */
unsigned tu_wait_quiet(void);
/* Wait until every thread with a priority above 1 other than us is blocked, without
 * receiving anything else (messages sent to us stay queued; no faults are served). */
void tu_wait_blocked(void);
/* Last unanswered fault seen by tu_serve/tu_wait_quiet. */
extern l4_word_t tu_last_fault_from, tu_last_fault_addr, tu_last_fault_tag;
void tu_kill(l4_word_t tid);
/* Schedule's state word for a thread (2 = inactive/halted, 3 = running, 6 = waiting...). */
unsigned tu_state(l4_word_t tid);
/* Send a short message (label, one word) to the main test thread. */
void tu_report(l4_word_t label, l4_word_t value);
/* sigma0's answer to a request for `fpage` (l4_sigma0_get_page) made by a new thread in a
 * space of its own (another owner than ours), received at `window` there. */
l4_word_t tu_sigma0_get_page_elsewhere(l4_word_t fpage, l4_word_t window);
l4_word_t tu_main_tid(void);

#endif
