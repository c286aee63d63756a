/* ROOT_TASK_CREATE: a new address space with one thread, with the parameters a personality
 * server needs (docs/root-task.md, section 4.2): KIP and UTCB areas, pager, exception
 * handler, redirector, the foreign system-call ABI, and optionally started right away. */
#include "root.h"
#include <stdio.h>

/* An area fpage as SpaceControl takes it, checked more strictly than the kernel does: the
 * base must be aligned to the size (the kernel would silently round it down). */
static bool area_ok(l4_word_t fp, unsigned min_log2)
{
    unsigned order = l4_fpage_size_log2(fp);
    if (l4_is_nil_fpage(fp) || l4_is_io_fpage(fp) || l4_is_complete_fpage(fp) ||
        order < min_log2 || order > 47)
        return false;
    l4_word_t base = fp & ~0x3FFul;
    return !(base & ((1ul << order) - 1)) && l4_is_user_range(base, 1ul << order);
}

static l4_word_t undo(l4_word_t tid, struct task *t, l4_word_t err)
{
    l4_thread_control(tid, 0, 0, 0, ~0ul);          /* the space goes with its last thread */
    free_thread_id(tid);
    task_release(t);
    return err;
}

l4_word_t task_create(l4_word_t creator, l4_word_t *tidp)
{
    l4_word_t pager = global(arg(1)), prio = arg(2), flags = arg(3);
    l4_word_t kip = arg(4), utcb = arg(5), exc = arg(6), red = arg(7), ip = arg(8), sp = arg(9);
    bool foreign = flags & ROOT_TASK_FOREIGN;

    /* Parameters first: nothing is made for a request that cannot succeed. */
    if (!pager || (flags & ~(l4_word_t)(ROOT_TASK_FOREIGN | ROOT_TASK_CONFINED)))
        return L4_ERR_INVALID_PARAM;                /* a nil pager could never start it */
    if ((exc && !global(exc)) || (red && !global(red)) ||
        ((flags & ROOT_TASK_CONFINED) && red && red != pager))
        return L4_ERR_INVALID_PARAM;
    if (flags & ROOT_TASK_CONFINED)
        red = pager;
    /* Only a thread we start ourselves gets its exception handler (from our start
     * message); an IP must be a user address. */
    if ((exc && !ip) || ip >= L4_USER_AREA_END || sp >= L4_USER_AREA_END)
        return L4_ERR_INVALID_PARAM;
    if (!kip)
        kip = foreign ? ROOT_FOREIGN_KIP_AREA : l4_fpage_log2(TASK_KIP_AREA, 12);
    if (!utcb)
        utcb = foreign ? ROOT_FOREIGN_UTCB_AREA : l4_fpage_log2(TASK_UTCB_AREA, TASK_UTCB_LOG2);
    unsigned kip_log2 = l4_kip_area_log2(), utcb_log2 = l4_kip_utcb_area_log2();
    if (!area_ok(utcb, utcb_log2 > 12 ? utcb_log2 : 12))
        return L4_ERR_UTCB_AREA;
    if (!area_ok(kip, kip_log2 > 12 ? kip_log2 : 12))
        return L4_ERR_KIP_AREA;
    l4_word_t kb = l4_fpage_base(kip), ks = 1ul << l4_fpage_size_log2(kip);
    l4_word_t ub = l4_fpage_base(utcb), us = 1ul << l4_fpage_size_log2(utcb);
    if (kb < ub + us && ub < kb + ks)
        return L4_ERR_KIP_AREA;                     /* overlapping areas, as the kernel says */

    struct task *t = new_task();
    l4_word_t tid = t ? new_thread_id() : 0;
    if (!tid) {
        if (t)
            task_release(t);
        return L4_ERR_NO_MEM;
    }
    /* A foreign task's handler (docs/linux-abi.md) is its pager.  Started by us: we are the partner of its start message, its pager TCR names the
     * real pager from the beginning (ThreadControl on an active thread sets only that). */
    l4_word_t me = l4_my_global_id(), old;
    if (!l4_thread_control(tid, tid, me, 0, ~0ul) ||
        !l4_space_control_foreign(tid, foreign ? L4_SPACE_CTL_APPLY | L4_SPACE_CTL_FOREIGN : 0,
                                  kip, utcb, red, pager, &old) ||
        !l4_thread_control(tid, tid, 0, ip ? me : pager, ub) ||
        (ip && !l4_thread_control(tid, tid, 0, pager, ~0ul)))
        return undo(tid, t, l4_error_code());
    if (prio > 254)
        prio = 254;                                 /* below root's own 255 */
    l4_schedule(tid, ~0ul, ~0ul, prio, ~0ul, &old);
    if (ip) {
        /* The start message (contract §6.5); MR3 is Pecan's exception handler word.  The
         * thread runs only once we wait again (we have the highest priority). */
        l4_set_mr(0, l4_tag_make(0, exc ? 3 : 2, 0));
        l4_set_mr(1, ip);
        l4_set_mr(2, sp);
        l4_set_mr(3, exc);
        if (l4_ipc_failed(l4_reply(tid)))
            return undo(tid, t, L4_ERR_INVALID_THREAD);
    }
    if (!register_thread(tid, t, creator))
        return undo(tid, t, L4_ERR_NO_MEM);
    t->tid = tid;
    t->creator = creator;
    t->trusted = false;                             /* e.g. a Linux process */
    snprintf(t->name, sizeof(t->name), "task-%lx", l4_thread_no(tid));
    *tidp = tid;
    return L4_ERR_OK;
}
