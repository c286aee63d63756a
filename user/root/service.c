/* The root task's service for trusted servers (libl4/task.h, docs/root-task.md): creating and
 * deleting tasks and threads, attaching interrupts.  ThreadControl and SpaceControl are
 * privileged, so servers such as drivers or the Linux personality ask here. */
#include "root.h"
#include <stdio.h>

static void result(l4_word_t value, l4_word_t error)
{
    l4_set_mr(0, l4_tag_make(0, 2, 0));
    l4_set_mr(1, value);
    l4_set_mr(2, error);
}

/* Thread ids in requests are global: a local id means nothing outside its own space, so it
 * names no thread here (0). */
l4_word_t global(l4_word_t id)
{
    return l4_is_global_id(id) ? id : 0;
}

/* Argument word i of the request being served: words beyond its u read as 0, so that a
 * short request gets the defaults of the words it leaves out. */
static unsigned req_words;

l4_word_t arg(unsigned i)
{
    return i <= req_words ? l4_mr(i) : 0;
}

/* Interrupt lines attached through the service, and the task that did it: only that task
 * may detach or re-attach a line. */
#define MAX_IRQS 256
static struct task *irq_owner[MAX_IRQS];

/* Names: services published by trusted tasks; lookups of names not yet published wait. */
#define MAX_NAMES   32
#define MAX_WAITING 16

static struct { l4_word_t name[2], tid; struct task *owner; } names[MAX_NAMES];
static struct { l4_word_t name[2], client; } waiting[MAX_WAITING];

static l4_word_t name_find(l4_word_t a, l4_word_t b)
{
    for (unsigned i = 0; i < MAX_NAMES; i++)
        if (names[i].tid && names[i].name[0] == a && names[i].name[1] == b)
            return names[i].tid;
    return 0;
}

/* Publish a name for `owner`; only the task that published a name may publish it again. */
static l4_word_t name_register(l4_word_t a, l4_word_t b, l4_word_t tid, struct task *owner)
{
    unsigned slot = MAX_NAMES;
    for (unsigned i = 0; i < MAX_NAMES; i++) {
        if (names[i].tid && names[i].name[0] == a && names[i].name[1] == b) {
            if (names[i].owner != owner)
                return L4_ERR_NO_PRIVILEGE;
            slot = i;                       /* published again: the newer thread wins */
            break;
        }
        if (!names[i].tid && slot == MAX_NAMES)
            slot = i;
    }
    if (slot == MAX_NAMES)
        return L4_ERR_NO_MEM;
    names[slot].name[0] = a;
    names[slot].name[1] = b;
    names[slot].tid = tid;
    names[slot].owner = owner;
    /* Answer the clients that were waiting for it (zero timeout: never block on them). */
    for (unsigned i = 0; i < MAX_WAITING; i++)
        if (waiting[i].client && waiting[i].name[0] == a && waiting[i].name[1] == b) {
            result(tid, 0);
            l4_reply(waiting[i].client);
            waiting[i].client = 0;
        }
    return L4_ERR_OK;
}

static void names_forget(struct task *owner)
{
    for (unsigned i = 0; i < MAX_NAMES; i++)
        if (names[i].owner == owner)
            names[i].tid = 0;
}

/* The kernel ends a space with its last thread; so does root's record of it: the memory,
 * interrupt lines and names the task held are free again. */
static void task_forget_if_empty(struct task *t)
{
    if (t->nthreads)
        return;
    for (unsigned i = 0; i < MAX_IRQS; i++)
        if (irq_owner[i] == t)
            irq_owner[i] = NULL;
    names_forget(t);
    task_release(t);
}

bool serve_request(l4_word_t from, l4_word_t tag)
{
    req_words = l4_tag_u(tag);
    struct thread_rec *caller = rec_of(from);
    l4_word_t label = l4_tag_label(tag), me = l4_my_global_id(), old;
    if (label == ROOT_NAME_LOOKUP) {
        l4_word_t t = name_find(arg(1), arg(2));
        if (t) {
            result(t, 0);
            return true;
        }
        /* A client waits for one name at a time (it is blocked in its call): a new lookup
         * from it replaces an old one whose call has timed out. */
        unsigned slot = MAX_WAITING;
        for (unsigned i = 0; i < MAX_WAITING; i++)
            if (waiting[i].client == from || (!waiting[i].client && slot == MAX_WAITING))
                slot = i;
        if (slot < MAX_WAITING) {
            waiting[slot].name[0] = arg(1);
            waiting[slot].name[1] = arg(2);
            waiting[slot].client = from;
            return false;                   /* the reply comes with the registration */
        }
        result(0, L4_ERR_NO_MEM);
        return true;
    }
    if (label < ROOT_TASK_CREATE || label > ROOT_PAGE_IN)
        return false;
    if (!caller || !caller->task->trusted) {
        result(0, L4_ERR_NO_PRIVILEGE);
        return true;
    }
    switch (label) {
    case ROOT_TASK_CREATE: {
        l4_word_t tid, e = task_create(from, &tid);
        result(e ? 0 : tid, e);
        break;
    }
    case ROOT_THREAD_CREATE: {
        l4_word_t target_tid = global(arg(1));
        struct thread_rec *target = target_tid ? rec_of(target_tid) : NULL;
        l4_word_t pager = global(arg(2)), utcb = arg(3), prio = arg(4);
        if (!target || (target->task != caller->task && target->task->creator != from)) {
            result(0, L4_ERR_INVALID_SPACE);
            break;
        }
        if (!pager) {
            result(0, L4_ERR_INVALID_PARAM);
            break;
        }
        l4_word_t tid = new_thread_id();
        if (!tid || !l4_thread_control(tid, target->tid, me, pager, utcb)) {
            l4_word_t err = tid ? l4_error_code() : L4_ERR_NO_MEM;
            if (tid)
                free_thread_id(tid);
            result(0, err);
            break;
        }
        if (!register_thread(tid, target->task, from)) {
            l4_thread_control(tid, 0, 0, 0, ~0ul);
            free_thread_id(tid);
            result(0, L4_ERR_NO_MEM);
            break;
        }
        if (prio > 254)
            prio = 254;
        l4_schedule(tid, ~0ul, ~0ul, prio, ~0ul, &old);
        result(tid, 0);
        break;
    }
    case ROOT_THREAD_DELETE: {
        l4_word_t victim_tid = global(arg(1));
        struct thread_rec *victim = victim_tid ? rec_of(victim_tid) : NULL;
        if (!victim || victim->creator != from) {
            result(0, L4_ERR_INVALID_THREAD);
            break;
        }
        l4_word_t tid = victim->tid;
        struct task *t = victim->task;
        if (!l4_thread_control(tid, 0, 0, 0, ~0ul)) {
            result(0, l4_error_code());
            break;
        }
        forget_thread(victim);
        task_forget_if_empty(t);
        result(1, 0);
        break;
    }
    case ROOT_TASK_DELETE: {
        l4_word_t any = global(arg(1));
        struct thread_rec *r = any ? rec_of(any) : NULL;
        if (!r || r->task->creator != from || r->task == caller->task) {
            result(0, L4_ERR_INVALID_THREAD);
            break;
        }
        struct task *t = r->task;
        while (t->threads) {
            /* The kernel refuses only what cannot be (ourselves, a bad id): ignore. */
            l4_thread_control(t->threads->tid, 0, 0, 0, ~0ul);
            forget_thread(t->threads);
        }
        task_forget_if_empty(t);
        result(1, 0);
        break;
    }
    case ROOT_TASK_CHANNEL: {
        /* The creator of a foreign task names its native-IPC partners, among the tasks it
         * created and its own (docs/linux-abi.md §9); the kernel checks the rest. */
        l4_word_t any = global(arg(1)), ctl = arg(2), partner = arg(3);
        struct thread_rec *r = any ? rec_of(any) : NULL;
        /* Revoking gives nothing: any id (a partner that is gone already, anythread); a
         * window (an fpage in the partner's place) only limits the space's receives. */
        bool revoke = ctl & (L4_SPACE_CTL_CHAN_REVOKE | L4_SPACE_CTL_CHAN_WINDOW);
        struct thread_rec *p = !revoke && global(partner) ? rec_of(global(partner)) : NULL;
        if (!revoke)
            partner = global(partner);
        if (!r || r->task->creator != from ||
            (!revoke && (!p || (p->task->creator != from && p->task != caller->task)))) {
            result(0, L4_ERR_INVALID_THREAD);
            break;
        }
        if (!((ctl & L4_SPACE_CTL_CHAN_WINDOW) ? l4_channel_window(r->tid, partner)
                                               : l4_channel_control(r->tid, ctl, partner))) {
            result(0, l4_error_code());
            break;
        }
        result(1, 0);
        break;
    }
    case ROOT_DATA_MAP: {
        l4_word_t size, e = data_map(caller->task, arg(1), arg(2), arg(3), &size);
        result(e ? 0 : size, e);
        break;
    }
    case ROOT_PAGE_IN: {
        l4_word_t err;
        if (!serve_page_in(caller->task, arg(1), arg(2) & L4_RWX, &err))
            result(0, err);
        break;
    }
    case ROOT_MEMORY_INFO:
        l4_set_mr(0, l4_tag_make(0, 6, 0));
        l4_set_mr(1, root_pages_used());
        l4_set_mr(2, 0);
        l4_set_mr(3, root_pages_taken());
        l4_set_mr(4, task_count());
        l4_set_mr(5, thread_records());
        l4_set_mr(6, thread_table_pages());
        break;
    case ROOT_IRQ_ATTACH: {
        l4_word_t irq = arg(1), handler = global(arg(2));
        struct thread_rec *h = handler ? rec_of(handler) : NULL;
        if (irq >= l4_kip_system_base() || irq >= MAX_IRQS ||
            (arg(2) && (!h || h->task != caller->task))) {
            result(0, L4_ERR_INVALID_THREAD);
            break;
        }
        if (irq_owner[irq] && irq_owner[irq] != caller->task) {
            result(0, L4_ERR_NO_PRIVILEGE);     /* another task's line */
            break;
        }
        l4_word_t it = l4_global_id(irq, 1);
        if (!l4_thread_control(it, it, 0, handler ? handler : it, ~0ul)) {
            result(0, l4_error_code());
            break;
        }
        irq_owner[irq] = handler ? caller->task : NULL;
        result(1, 0);
        break;
    }
    case ROOT_NAME_REGISTER: {
        l4_word_t a = arg(1), b = arg(2), tid = global(arg(3));
        if (!tid || (!a && !b)) {
            result(0, L4_ERR_INVALID_PARAM);
            break;
        }
        l4_word_t e = name_register(a, b, tid, caller->task);
        result(e ? 0 : 1, e);
        break;
    }
    }
    return true;
}
