/* Threads: TCB allocation in the virtual TCB array, activation, deletion, halting. */
#include "thread.h"
#include "glue.h"
#include "foreign.h"
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
#include "list.h"
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
    LIST_PUSH(all_threads, t, all_next, all_prev);
}

static void all_unlink(struct tcb *t)
{
    LIST_UNLINK(all_threads, t, all_next, all_prev);
}

/* Initialise the TCB of a backed slot (thread_back) for gid in `space` (inactive). */
static struct tcb *tcb_init(word_t gid, struct space *space, word_t scheduler)
{
    struct tcb *t = tcb_of_number(l4_thread_no(gid));
    memset(t, 0, TCB_STACK_BOTTOM);
    invariants_paint_stack(t);
    t->gid = gid;
    t->state = TS_INACTIVE;
    t->scheduler = scheduler;
    sched_thread_init(t);
    t->utcb_location = ~0ul;
    ipc_thread_init(t);
    arch_thread_init_frame(t, 0, 0);
    arch_thread_init_bases(t);
    if (space)
        space_add_thread(space, t);
    all_link(t);
    return t;
}

/* Give the slot of thread number `no` its frames; false: out of memory. */
static bool thread_back(word_t no)
{
    return arch_tcb_back((word_t)tcb_of_number(no));
}

struct tcb *thread_create(word_t gid, struct space *space, word_t scheduler)
{
    if (!thread_back(l4_thread_no(gid)))
        return NULL;
    return tcb_init(gid, space, scheduler);
}

/* A UTCB location for thread t (NULL: one being created) in space s: aligned, inside the
 * UTCB area, and in an ordinary space not the UTCB of another active thread there
 * (activation would clear it).  In a foreign space every thread has a UTCB of its own, and
 * the location is only a name (docs/linux-abi.md §2): threads may share one. */
static bool utcb_location_valid(struct space *s, word_t loc, struct tcb *t)
{
    if ((loc & (L4_UTCB_SIZE - 1)) || !space_initialised(s) ||
        loc < l4_fpage_base(s->utcb_area) ||
        loc + L4_UTCB_SIZE - l4_fpage_base(s->utcb_area) > (1ul << l4_fpage_size_log2(s->utcb_area)))
        return false;
    if (s->foreign)
        return true;
    for (struct tcb *o = s->threads; o; o = o->space_next)
        if (o != t && o->mr && o->utcb_location == loc)
            return false;
    return true;
}

/* Activation with the UTCB memory space_utcb_alloc gave: cannot fail. */
static void activate_backed(struct tcb *t, word_t pager, char *u)
{
    memset(u, 0, L4_UTCB_SIZE);
    t->mr = (word_t *)(u + L4_UTCB_MR0_OFFSET);
    t->local_id = t->utcb_location + L4_UTCB_MR0_OFFSET;
    utcb_set(t, L4_UTCB_MY_GLOBAL_ID, t->gid);
    utcb_set(t, L4_UTCB_PROCESSOR_NO, 0);
    utcb_set(t, L4_UTCB_PAGER, pager);
    utcb_set(t, L4_UTCB_EXC_HANDLER, L4_NILTHREAD);
    /* Wait for the start message: closed receive from the pager, accepting nothing. */
    t->ipc.wait_for = pager;
    t->state = TS_WAIT_RECV;
    t->cont = thread_start_cont;
}

int thread_activate(struct tcb *t, word_t pager)
{
    if (!utcb_location_valid(t->space, t->utcb_location, t))
        return L4_ERR_UTCB_AREA;
    char *u = space_utcb_alloc(t->space, t->utcb_location);
    if (!u)
        return L4_ERR_NO_MEM;
    activate_backed(t, pager, u);
    return L4_ERR_OK;
}

void thread_start_cont(struct tcb *t)
{
    if (t->wake == WAKE_CANCEL) {
        /* Started by ExchangeRegisters: run at the IP/SP it has now. */
    } else if (t->wake == WAKE_DONE && l4_tag_u(t->mr[0]) >= 2) {
        arch_thread_init_frame(t, t->mr[1], t->mr[2]);
        t->flags |= TF_USER_STATE;          /* the IP is the starter's word: checked below */
        /* Pecan: a third word is the exception handler, which no other thread could set
         * in this UTCB (docs/x2-deviations.md; the root task's ROOT_TASK_CREATE). */
        if (l4_tag_u(t->mr[0]) >= 3)
            utcb_set(t, L4_UTCB_EXC_HANDLER, t->mr[3]);
    } else {
        /* A start message without IP and SP (or a failed one): nothing sensible to run. */
        printk("thread %lx: start message without IP/SP; halted\n", t->gid);
        t->cont = NULL;
        thread_halt_current();
    }
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
    /* The foreign space's handler interrupted us (a Linux signal, say): it learns our
     * registers, and its reply may change them. */
    while (t->flags & TF_FOREIGN_INTR) {
        t->flags &= ~TF_FOREIGN_INTR;
        foreign_interrupt(t);
    }
    /* A start message, ExchangeRegisters, an exception reply or a foreign SET_REGS may have
     * set an IP the CPU cannot return to (on x86-64 a non-canonical RIP, which would fault in
     * the kernel): that is the thread's own fault, not the kernel's (contract §4.1;
     * arch_user_ip_check).  Each of them sets TF_USER_STATE, which also keeps the IPC fast
     * paths (they skip these checks) away; the debug kernel checks every frame on its way
     * out (entry_checks.c), which is how the start message's missing flag was found.  A
     * check without the flag would cost every C-path return about 10 instructions. */
    if (t->flags & TF_USER_STATE) {
        t->flags &= ~TF_USER_STATE;
        arch_user_ip_check(t);
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
    sched_thread_deleted(t);
    timeout_cancel(t);
    arch_fpu_thread_exit(t);
    all_unlink(t);
    t->gid = 0;
    t->state = TS_FREE;
    if (s) {
        if (t->mr)
            space_utcb_free(s, (char *)t->mr - L4_UTCB_MR0_OFFSET);
        t->mr = NULL;
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

/* --- ThreadControl (contract §4.4.3) ------------------------------------------------------ */

struct tcb *thread_space_specifier(word_t id)
{
    struct tcb *t = tcb_lookup(id);
    return t && t->state != TS_IRQ && t->state != TS_IDLE ? t : NULL;
}

/* Modify the existing thread t. */
static word_t modify(struct tcb *self, struct tcb *t, word_t dest, word_t space_spec,
                     word_t sched, word_t pager, word_t utcb)
{
    /* Validate. */
    struct tcb *sp = thread_space_specifier(space_spec);
    if (!sp)
        return L4_ERR_INVALID_SPACE;
    struct space *target = sp->space;
    struct tcb *sch = sched != L4_NILTHREAD ? tcb_lookup(sched) : NULL;
    if (sched != L4_NILTHREAD && !sch)
        return L4_ERR_INVALID_SCHED;
    bool active = t->mr != NULL;
    word_t loc = utcb != ~0ul ? utcb : t->utcb_location;
    if (utcb != ~0ul && (active || !utcb_location_valid(target, utcb, t)))
        return L4_ERR_UTCB_AREA;
    if (target != t->space) {
        /* Migration to another space: the UTCB must be valid there. */
        if (active || t == self)
            return L4_ERR_INVALID_THREAD;
        if (loc != ~0ul && !utcb_location_valid(target, loc, t))
            return L4_ERR_UTCB_AREA;
    }
    bool activate = pager != L4_NILTHREAD && !active;
    char *u = NULL;
    if (activate) {
        if (!space_initialised(target))
            return L4_ERR_INVALID_SPACE;
        if (loc == ~0ul || !utcb_location_valid(target, loc, t))
            return L4_ERR_UTCB_AREA;
        /* Allocate: the UTCB in the space the thread will be in. */
        if (!(u = space_utcb_alloc(target, loc)))
            return L4_ERR_NO_MEM;
    }

    /* Apply: nothing below can fail. */
    if (target != t->space) {
        struct space *old = t->space;
        space_remove_thread(old, t);
        space_add_thread(target, t);
        if (old->nthreads == 0)
            space_destroy(old);
    }
    t->utcb_location = loc;
    if (sch)
        t->scheduler = sched;
    if (l4_version(dest) != l4_version(t->gid)) {
        t->gid = dest;
        if (t->mr)
            utcb_set(t, L4_UTCB_MY_GLOBAL_ID, dest);
    }
    if (activate)
        activate_backed(t, pager, u);
    else if (pager != L4_NILTHREAD)
        utcb_set(t, L4_UTCB_PAGER, pager);
    return L4_ERR_OK;
}

/* Create thread dest (its slot is free). */
static word_t create(word_t dest, word_t space_spec, word_t sched, word_t pager, word_t utcb)
{
    /* Validate. */
    if (sched == L4_NILTHREAD || !tcb_lookup(sched))
        return L4_ERR_INVALID_SCHED;
    struct space *target = NULL;
    bool new_space = space_spec == dest;
    if (!new_space) {
        struct tcb *sp = thread_space_specifier(space_spec);
        if (!sp || !sp->space)
            return L4_ERR_INVALID_SPACE;
        target = sp->space;
    }
    if (pager != L4_NILTHREAD) {
        if (new_space || !space_initialised(target))
            return L4_ERR_INVALID_SPACE;
        if (utcb == ~0ul || !utcb_location_valid(target, utcb, NULL))
            return L4_ERR_UTCB_AREA;
    }

    /* Allocate: the space, the TCB's frames, the UTCB; on failure, free what was. */
    word_t no = l4_thread_no(dest);
    if (new_space && !(target = space_create()))
        return L4_ERR_NO_MEM;
    char *u = NULL;
    word_t e = thread_back(no) ? L4_ERR_OK : L4_ERR_NO_MEM;
    if (!e && pager != L4_NILTHREAD && !(u = space_utcb_alloc(target, utcb))) {
        e = L4_ERR_NO_MEM;
        arch_tcb_release((word_t)tcb_of_number(no));
    }
    if (e) {
        if (new_space)
            space_destroy(target);
        return e;
    }

    /* Apply: nothing below can fail. */
    struct tcb *nt = tcb_init(dest, target, sched);
    nt->utcb_location = utcb;
    if (pager != L4_NILTHREAD)
        activate_backed(nt, pager, u);
    return L4_ERR_OK;
}

word_t thread_control(struct tcb *self, word_t dest, word_t space_spec, word_t sched,
                      word_t pager, word_t utcb)
{
    if (!self->space->privileged)
        return L4_ERR_NO_PRIVILEGE;
    if (!l4_is_global_id(dest) || l4_thread_no(dest) >= CONFIG_MAX_THREADS)
        return L4_ERR_INVALID_THREAD;
    word_t no = l4_thread_no(dest);
    struct tcb *t = tcb_of_number(no);
    if (no < kip_system_base()) {
        if (l4_version(dest) != 1 || pager == L4_NILTHREAD)
            return L4_ERR_INVALID_THREAD;
        return irq_control(t, pager);
    }
    if (no < kip_user_base())
        return L4_ERR_INVALID_THREAD;

    if (space_spec == L4_NILTHREAD) {                       /* delete */
        if (t->gid != dest)
            return L4_ERR_OK;                               /* does not exist: nothing to do */
        if (t == self)
            return L4_ERR_INVALID_THREAD;
        thread_delete(t);
        return L4_ERR_OK;
    }
    if (t->gid)
        return modify(self, t, dest, space_spec, sched, pager, utcb);
    return create(dest, space_spec, sched, pager, utcb);
}
