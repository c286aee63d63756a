/* The timer thread: lx's deadlines (park/timer.c) fire through a thread of their own, so that
 * lx's main thread always waits and replies with infinite timeouts (the kernel's IPC fast
 * path) and the cost of a message does not depend on what others wait for (issue 13 item 7).
 *
 * The thread runs in lx's space at a priority above the main thread's, and never touches
 * lx's data: it sleeps in a receive from the main thread with a timeout at the deadline it was
 * given; when the timeout expires it calls the main thread (TIMER_TICK), which fires what is
 * due and answers with the next deadline (after the message's other work: its answer waits
 * until then).  When a timer is armed earlier than the deadline the thread sleeps to, the main
 * thread sends it the new one with a zero timeout (TIMER_ARM) once the current message is
 * answered; if the thread is not receiving just then, it is calling with a tick, whose answer
 * brings the deadline.  A deadline that lx cancels costs one early tick at most.
 *
 * Deadlines fire at the kernel's timer ticks (its IPC timeouts expire there: CONFIG_TICK_US,
 * 1 ms, the KIP's SchedulePrecision), as Linux's timers without high resolution: a sleep
 * lasts at least what was asked and at most a tick more, and a deadline already past when it
 * is armed fires at the next tick.  So a periodic timer shorter than a signal's delivery
 * (lx's takes several IPCs) cannot keep a process in its handler for ever. */
#include "park/timer_thread.h"
#include "lib/server.h"
#include "park/timer.h"
#include "time/clock.h"
#include <stdio.h>

#define TIMER_TICK   0x5454         /* timer thread -> lx: deadlines are due (a Call) */
#define TIMER_ARM    0x5441         /* lx -> timer thread: MR1 the next deadline (lx_now()) */
#define TIMER_UTCB   0xBF000800ul   /* lx's third UTCB slot (tty/console.c has the second) */
#define TIMER_PRIO   101            /* above the main thread (100): a due tick is not delayed */
#define NONE         (~0ull)

static l4_word_t timer_gid, timer_lid;
static char stack[4096] __attribute__((aligned(16)));
static uint64_t armed;              /* the deadline the thread sleeps to (NONE: none) */
static bool rearm;                  /* an earlier deadline to send when the message is answered */
static bool ticked;                 /* its tick waits for the answer */

/* The timer thread: only IPC, its own stack and message registers. */
static void timer_loop(void)
{
    uint64_t deadline = NONE;
    for (;;) {
        uint16_t timeout = L4_NEVER;
        if (deadline != NONE) {
            /* At least 1 us: the kernel's timeouts expire at its ticks, so a deadline that
             * has passed fires at the next tick, never at once (see the top). */
            uint64_t now = lx_now();
            uint64_t us = deadline > now ? (deadline - now + 999) / 1000 : 1;
            timeout = us > L4_MAX_PERIOD_US ? L4_NEVER : l4_period_from_us(us);
        }
        l4_word_t tag = l4_receive_timeout(lx_self, timeout);
        if (l4_ipc_succeeded(tag)) {
            if (l4_tag_label(tag) == TIMER_ARM && l4_tag_u(tag) >= 1)
                deadline = l4_mr(1);
            continue;
        }
        if (l4_ipc_last_error() != L4_IPC_TIMEOUT || (deadline != NONE && lx_now() < deadline))
            continue;               /* aborted, or woken early: sleep on */
        l4_set_mr(0, l4_tag_make(TIMER_TICK, 0, 0));
        tag = l4_call(lx_self);
        deadline = l4_ipc_succeeded(tag) && l4_tag_u(tag) >= 1 ? l4_mr(1) : NONE;
    }
}

static void armed_earlier(uint64_t next)
{
    if (next < armed) {
        rearm = true;
        lx_work = true;             /* the loop sends it after answering the message */
    }
}

void timer_thread_init(void)
{
    armed = NONE;
    l4_word_t err, t = lx_thread_start(TIMER_UTCB, TIMER_PRIO, stack + sizeof stack, timer_loop,
                                       &err);
    if (!t) {
        printf("lx: no timer thread (error %lu): deadlines do not fire\n", err);
        return;
    }
    timer_gid = t;
    timer_lid = l4_local_id_of(t);
    timer_changed = armed_earlier;
}

bool timer_thread_message(l4_word_t from, l4_word_t tag)
{
    if (from != timer_gid && from != timer_lid)
        return false;
    if (l4_tag_label(tag) == TIMER_TICK) {
        ticked = true;
        lx_work = true;
    }
    return true;
}

void timer_thread_work(void)
{
    if (ticked)
        timer_run(lx_now());        /* what is due fires: wakes, SIGALRMs */
}

void timer_thread_answer(void)
{
    uint64_t next = timer_next();
    if (ticked) {
        ticked = rearm = false;     /* the answer carries the deadline */
        l4_set_mr(0, l4_tag_make(0, 1, 0));
        l4_set_mr(1, next);
        armed = l4_ipc_succeeded(l4_reply(timer_gid)) ? next : NONE;
        return;
    }
    if (!rearm)
        return;
    rearm = false;
    l4_set_mr(0, l4_tag_make(TIMER_ARM, 1, 0));
    l4_set_mr(1, next);
    if (l4_ipc_succeeded(l4_reply(timer_gid)))
        armed = next;               /* else it is calling with a tick: the answer brings it */
}
