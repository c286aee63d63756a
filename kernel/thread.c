/* Threads: TCB allocation in the virtual TCB array, activation, deletion, halting. */
#include "thread.h"
#include "sched.h"
#include "space.h"
#include "ipc.h"
#include "irq.h"
#include "kip.h"
#include "timeout.h"
#include "kmem.h"
#include "fault.h"
#include "invariants.h"
#include "lib.h"
#include "console.h"
#include <l4/utcb.h>
#include <l4/message.h>
#include <l4/fpage.h>

static struct tcb *all_threads;

struct tcb *thread_first(void)
{
    return all_threads;
}

static void all_link(struct tcb *t)
{
    t->all_prev = NULL;
    t->all_next = all_threads;
    if (all_threads)
        all_threads->all_prev = t;
    all_threads = t;
}

static void all_unlink(struct tcb *t)
{
    if (t->all_prev)
        t->all_prev->all_next = t->all_next;
    else
        all_threads = t->all_next;
    if (t->all_next)
        t->all_next->all_prev = t->all_prev;
}

struct tcb *thread_create(word_t gid, struct space *space, word_t scheduler)
{
    word_t no = l4_thread_no(gid);
    struct tcb *t = tcb_of_number(no);
    if (!arch_tcb_back((word_t)t))
        return NULL;
    memset(t, 0, TCB_STACK_BOTTOM);
    invariants_paint_stack(t);
    t->gid = gid;
    t->state = TS_INACTIVE;
    t->prio = CONFIG_DEFAULT_PRIO;
    t->scheduler = scheduler;
    t->timeslice_us = CONFIG_TIMESLICE_US;
    t->slice_left_us = CONFIG_TIMESLICE_US;
    t->quantum_us = QUANTUM_UNLIMITED;
    t->utcb_location = ~0ul;
    t->ipc.wait_for = L4_NILTHREAD;
    arch_thread_init_frame(t, 0, 0);
    if (space)
        space_add_thread(space, t);
    all_link(t);
    return t;
}

int thread_activate(struct tcb *t, word_t pager)
{
    struct space *s = t->space;
    word_t loc = t->utcb_location;
    if (loc == ~0ul || (loc & (L4_UTCB_SIZE - 1)) || !space_initialised(s) ||
        !space_in_utcb_area(s, loc, L4_UTCB_SIZE) ||
        l4_fpage_base(s->utcb_area) > loc ||
        loc + L4_UTCB_SIZE - l4_fpage_base(s->utcb_area) > (1ul << l4_fpage_size_log2(s->utcb_area)))
        return L4_ERR_UTCB_AREA;
    char *u = space_utcb_frame(s, loc);
    if (!u)
        return L4_ERR_NO_MEM;
    memset(u, 0, L4_UTCB_SIZE);
    t->mr = (word_t *)(u + L4_UTCB_MR0_OFFSET);
    t->local_id = loc + L4_UTCB_MR0_OFFSET;
    utcb_set(t, L4_UTCB_MY_GLOBAL_ID, t->gid);
    utcb_set(t, L4_UTCB_PROCESSOR_NO, 0);
    utcb_set(t, L4_UTCB_PAGER, pager);
    utcb_set(t, L4_UTCB_EXC_HANDLER, L4_NILTHREAD);
    /* Wait for the start message: closed receive from the pager, accepting nothing. */
    t->ipc.wait_for = pager;
    t->state = TS_WAIT_RECV;
    t->cont = thread_start_cont;
    return L4_ERR_OK;
}

void thread_start_cont(struct tcb *t)
{
    struct frame *f = tcb_frame(t);
    if (t->wake == WAKE_CANCEL) {
        /* Started by ExchangeRegisters: run at the IP/SP it has now. */
    } else if (t->wake == WAKE_DONE && l4_tag_u(t->mr[0]) >= 2) {
        arch_thread_init_frame(t, t->mr[1], t->mr[2]);
    } else {
        /* A start message without IP and SP (or a failed one): nothing sensible to run. */
        printk("thread %lx: start message without IP/SP; halted\n", t->gid);
        t->cont = NULL;
        thread_halt_current();
    }
    (void)f;
    thread_return_to_user_checks(t);
}

/* ExchangeRegisters is about to read or change t.  If t has received its start message but
 * not run yet, apply the message now: ExchangeRegisters then sees the IP/SP the thread starts
 * at, and what it sets is not overwritten when thread_start_cont runs (issue 7). */
void thread_start_settle(struct tcb *t)
{
    if (t->cont != thread_start_cont || t->state == TS_WAIT_RECV || t->wake != WAKE_DONE ||
        l4_tag_u(t->mr[0]) < 2)
        return;
    arch_thread_init_frame(t, t->mr[1], t->mr[2]);
    t->flags |= TF_USER_STATE;              /* the IP may be non-canonical: checked on return */
    t->wake = WAKE_CANCEL;                  /* thread_start_cont: run at the IP/SP it has */
}

void thread_return_to_user_checks(struct tcb *t)
{
    if (t->flags & TF_HALT_PENDING) {
        t->flags &= ~TF_HALT_PENDING;
        thread_halt_current();
    }
    /* ExchangeRegisters or an exception reply may have set a RIP the CPU cannot return to:
     * that is the thread's general-protection fault, not the kernel's (contract §4.1). */
    if (t->flags & TF_USER_STATE) {
        t->flags &= ~TF_USER_STATE;
        while (!arch_canonical(arch_user_ip(t)))
            fault_exception(t, 13, 0);
    }
    sched_preempt_check();
    /* A preempted thread reports to its scheduler before it continues (contract §6.4). */
    while (t->flags & (TF_PREEMPT_MSG | TF_TIMEFAULT_MSG)) {
        bool timefault = t->flags & TF_TIMEFAULT_MSG;
        t->flags &= ~(TF_PREEMPT_MSG | TF_TIMEFAULT_MSG);
        fault_preemption(t, timefault);
        sched_preempt_check();
    }
}

/* A halted thread resumes by going back to user mode through its frame. */
static void resume_cont(struct tcb *t)
{
    thread_return_to_user_checks(t);
}

void thread_halt(struct tcb *t)
{
    timeout_cancel(t);
    t->state = TS_HALTED;
    t->cont = resume_cont;
}

void thread_halt_current(void)
{
    block_current_cont(TS_HALTED, resume_cont);
}

void thread_resume(struct tcb *t)
{
    if (t->state != TS_HALTED)
        return;
    t->state = TS_READY;
    sched_enqueue(t);
}

void thread_delete(struct tcb *t)
{
    struct space *s = t->space;
    ipc_thread_deleted(t);
    irq_thread_deleted(t);
    sched_dequeue(t);
    timeout_cancel(t);
    arch_fpu_thread_exit(t);
    all_unlink(t);
    t->gid = 0;
    t->state = TS_FREE;
    if (s) {
        space_remove_thread(s, t);
        if (s->nthreads == 0)
            space_destroy(s);
    }
    arch_tcb_release((word_t)t);
}

struct tcb *thread_create_idle(void)
{
    /* The idle thread is a kernel thread in the first system-thread slot. */
    word_t gid = l4_global_id(kip_system_base(), 1);
    struct tcb *t = thread_create(gid, NULL, L4_NILTHREAD);
    if (!t)
        panic("no memory for the idle thread");
    all_unlink(t);
    t->space = &kernel_space;
    t->state = TS_IDLE;
    t->prio = 0;
    return t;
}

/* An initial server: running at once at ip/sp, without a start message. */
void thread_start_now(struct tcb *t, word_t ip, word_t sp)
{
    arch_thread_init_frame(t, ip, sp);
    t->cont = resume_cont;
    t->state = TS_READY;
    sched_enqueue(t);
}
