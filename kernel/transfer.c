/* Message transfer: untyped words, map and grant items, and strings copied once from the
 * sender's space to the receiver's (contract §5.4-§5.7).
 *
 * Strings are copied through the kernel's physical-memory map after walking both page tables,
 * so the kernel never touches user addresses directly.  A missing or read-only page is a page
 * fault: on the sender's side the sender (this thread) sends the page-fault IPC itself; on the
 * receiver's side the receiver must do so, so the sender hands it the fault address and waits
 * (TS_XFER_WAIT) until the receiver, resumed through receiver_fault_cont(), has done the IPC.
 * The first fault starts the transfer timeout: the shorter of the two XferTimeouts. */
#include "ipc.h"
#include "glue.h"
#include "sched.h"
#include "timeout.h"
#include "space.h"
#include "mapdb.h"
#include "iospace.h"
#include "thread.h"
#include "fault.h"
#include "lib.h"
#include "console.h"
#include <l4/message.h>
#include <l4/fpage.h>
#include <l4/time.h>
#include <l4/utcb.h>

bool ipc_has_strings(struct tcb *s)
{
    word_t tag = s->mr[0];
    unsigned u = l4_tag_u(tag), t = l4_tag_t(tag);
    for (unsigned i = u + 1; i <= u + t && i < L4_MR_COUNT; ) {
        word_t w0 = s->mr[i];
        if (l4_item_is_string(w0))
            return true;
        i += l4_item_is_map(w0) || l4_item_is_grant(w0) ? 2 : 1;
    }
    return false;
}

/* --- map and grant items ------------------------------------------------------------- */

static int transfer_mapping(struct tcb *s, struct tcb *r, word_t w0, word_t fp, bool grant)
{
    /* I/O fpages ignore the window (contract §6.7), so a foreign thread's native receive,
     * whose mappings land in its window only, takes none (docs/linux-abi.md §9.2). */
    if (l4_is_io_fpage(fp))
        return !(r->flags & TF_NATIVE_IPC) && iospace_map(s->space, r->space, fp, grant) ? 0 :
               L4_IPC_OVERFLOW;
    word_t window = l4_acceptor_window(utcb_get(r, L4_UTCB_BR(0)));
    if (l4_is_nil_fpage(window))
        return L4_IPC_OVERFLOW;
    if (l4_is_nil_fpage(fp))
        return 0;
    unsigned so = l4_fpage_order(fp), wo = l4_fpage_order(window);
    if (so < 12 || (wo < 12 && !l4_is_complete_fpage(window)))
        return 0;                   /* smaller than a page: maps nothing */
    if (so > 47 && !l4_is_complete_fpage(fp))
        so = so > 63 ? 63 : so;
    word_t sb = l4_fpage_base(fp), wb = l4_fpage_base(window);
    word_t sndbase = l4_map_item_sndbase(w0);
    word_t src, dst, order;
    if (so <= wo) {
        word_t off = wo >= 64 ? sndbase : sndbase & ((1ul << wo) - 1);
        off &= so >= 64 ? 0 : ~((1ul << so) - 1);
        src = sb;
        dst = wb + off;
        order = so;
    } else {
        word_t off = sndbase & ((1ul << so) - 1) & ~((1ul << wo) - 1);
        src = sb + off;
        dst = wb;
        order = wo;
    }
    word_t size = order >= 47 ? L4_USER_AREA_END : 1ul << order;
    /* Only the user area counts (§1.2): clip both ranges. */
    if (src >= L4_USER_AREA_END || dst >= L4_USER_AREA_END)
        return 0;
    size = MIN(size, L4_USER_AREA_END - src);
    size = MIN(size, L4_USER_AREA_END - dst);
    if (mapdb_map(s->space, src, r->space, dst, size, l4_fpage_rights(fp), grant) != MAP_OK)
        return L4_IPC_OVERFLOW;     /* kernel memory exhausted: the rest is not mapped */
    if (grant && so > wo && so <= 47)
        mapdb_flush_range(s->space, sb, 1ul << so, true);
    return 0;
}

/* --- strings ---------------------------------------------------------------------------- */

/* A cursor over a logical string: substrings of an item, then c-chained items. */
struct strcur {
    struct tcb *t;
    bool brs;               /* reading receive buffers (BRs) instead of MRs */
    int idx;                /* word index of the current item header */
    int limit;              /* one past the last usable word index */
    unsigned sub;           /* current substring */
    word_t pos;             /* byte position within it */
    word_t hdr;
    int idx0;               /* receive side: first item of the current logical buffer */
    bool valid;
};

static word_t word_at(struct strcur *c, int i)
{
    return c->brs ? utcb_get(c->t, L4_UTCB_BR(i)) : c->t->mr[i];
}

static bool cur_load(struct strcur *c, int idx)
{
    c->idx = idx;
    c->sub = 0;
    c->pos = 0;
    if (idx >= c->limit)
        return c->valid = false;
    c->hdr = word_at(c, idx);
    if (!l4_item_is_string(c->hdr) || idx + (int)l4_string_substrings(c->hdr) >= c->limit)
        return c->valid = false;
    return c->valid = true;
}

/* Bytes available in the current substring at the cursor; advances over exhausted parts. */
static word_t cur_avail(struct strcur *c, word_t *addr)
{
    while (c->valid) {
        word_t len = l4_string_length(c->hdr);
        if (c->pos < len) {
            *addr = word_at(c, c->idx + 1 + c->sub) + c->pos;
            return len - c->pos;
        }
        c->pos = 0;
        if (++c->sub < l4_string_substrings(c->hdr))
            continue;
        if (!l4_string_compound(c->hdr))
            return 0;                       /* end of the logical string */
        cur_load(c, c->idx + 1 + (int)l4_string_substrings(c->hdr));
    }
    return 0;
}

/* Index of the item after the logical string starting at idx. */
static int string_end(struct tcb *t, bool brs, int idx, int limit)
{
    struct strcur c = { .t = t, .brs = brs, .limit = limit };
    if (!cur_load(&c, idx))
        return -1;
    for (;;) {
        int next = c.idx + 1 + (int)l4_string_substrings(c.hdr);
        if (!l4_string_compound(c.hdr))
            return next;
        if (!cur_load(&c, next))
            return -1;
    }
}

/* Resolve an address for a copy: physmap pointer to the byte, bytes left in that page. */
static void *user_byte(struct space *sp, word_t va, bool write, word_t *left)
{
    struct pt_ref ref;
    if (va >= L4_USER_AREA_END || !pt_find_leaf(sp, va, &ref))
        return NULL;
    unsigned rights = pte_rights(*ref.pte);
    if (write && !(rights & PTE_RIGHTS_W))
        return NULL;
    /* Keep the referenced/written status honest for Unmap (the kernel bypasses the MMU). */
    *ref.pte = pte_touch(*ref.pte, write);
    word_t size = level_size(ref.level);
    word_t off = va - ref.va;
    *left = size - off;
    return (char *)phys_to_virt(pte_frame(*ref.pte, ref.level)) + off;
}

static unsigned xfer_own_timeout(struct tcb *t, bool sender)
{
    word_t x = utcb_get(t, L4_UTCB_XFER_TIMEOUTS);
    return sender ? l4_snd_timeout(x) : l4_rcv_timeout(x);
}

static uint64_t timeout_to_deadline(uint16_t t, uint64_t now)
{
    if (l4_time_is_never(t))
        return ~0ull;
    if (l4_time_is_point(t))
        return l4_point_to_clock(t, now);
    return now + l4_period_us(t);
}

/* At the first fault of a transfer: the effective deadline and whose timeout it is. */
static void start_xfer_timeout(struct tcb *s, struct tcb *r)
{
    uint64_t now = arch_clock_us();
    uint64_t ds = timeout_to_deadline(xfer_own_timeout(s, true), now);
    uint64_t dr = timeout_to_deadline(xfer_own_timeout(r, false), now);
    s->ipc.xfer_deadline = MIN(ds, dr);
    /* The receiver keeps its deadline only if it is the shorter one; ~0 - 1 marks the
     * sender's (or an equal one) as the one that counts. */
    r->ipc.xfer_deadline = dr < ds ? dr : ~0ull - 1;
}

/* The transfer timeout expired: code 5 for the thread whose timeout was shorter. */
static int xfer_timeout_code(struct tcb *s, struct tcb *r, bool for_sender)
{
    bool receiver_shorter = r->ipc.xfer_deadline != ~0ull - 1;
    if (for_sender)
        return receiver_shorter ? L4_IPC_XFER_TIMEOUT_PEER : L4_IPC_XFER_TIMEOUT_OWN;
    return receiver_shorter ? L4_IPC_XFER_TIMEOUT_OWN : L4_IPC_XFER_TIMEOUT_PEER;
}

/* Fault handling inside a transfer; returns 0 to retry, or an error code. */
static int sender_fault(struct tcb *s, struct tcb *r, word_t va)
{
    if (s->ipc.xfer_deadline == 0)
        start_xfer_timeout(s, r);
    if (s->ipc.xfer_deadline <= arch_clock_us())
        return L4_IPC_XFER_TIMEOUT_OWN;     /* turned into 5 or 6 by xfer_timeout_code */
    int err = fault_ipc_for_transfer(s, va, false, s->ipc.xfer_deadline);
    if (s->xfer->aborted)
        return s->xfer->aborted;
    return err;
}

/* The transfer of a receiver whose sender was deleted meanwhile (see ipc_thread_deleted). */
struct xfer xfer_sender_gone = { NULL, NULL, L4_IPC_NOPARTNER };

/* Continuation of a receiver whose buffer faulted: it sends the page-fault IPC itself, then
 * lets the sender go on.  While it does so, only it wakes the sender (an abort just cancels
 * its fault IPC), so the transfer descriptor on the sender's stack stays valid; if the sender
 * is deleted meanwhile, r->xfer is &xfer_sender_gone. */
static void receiver_fault_cont(struct tcb *r)
{
    int err = L4_IPC_XFER_TIMEOUT_OWN;
    if (r->xfer != &xfer_sender_gone && !r->xfer->aborted) {
        uint64_t deadline = r->ipc.xfer_deadline == ~0ull - 1 ? r->xfer->s->ipc.xfer_deadline
                                                              : r->ipc.xfer_deadline;
        err = fault_ipc_for_transfer(r, r->ipc.xfer_fault, true, deadline);
    }
    struct xfer *x = r->xfer;
    if (x == &xfer_sender_gone) {
        r->xfer = NULL;
        ipc_fail_receive(r, L4_IPC_NOPARTNER);
        ipc_user_return(r);
        return;
    }
    r->ipc.xfer_fault = (word_t)err;   /* 0: resolved */
    wake(x->s, WAKE_GO);
    block_current_cont_to(TS_XFER_RECV, ipc_user_return, x->s);
}

static int receiver_fault(struct tcb *s, struct tcb *r, word_t va)
{
    if (s->ipc.xfer_deadline == 0)
        start_xfer_timeout(s, r);
    if (s->ipc.xfer_deadline <= arch_clock_us())
        return L4_IPC_XFER_TIMEOUT_OWN;
    if (!r->cont)
        return L4_IPC_OVERFLOW;     /* a kernel-level receive cannot run a fault IPC (docs) */
    r->ipc.xfer_fault = va;
    r->cont = receiver_fault_cont;
    r->state = TS_READY;            /* it runs the fault IPC, then wakes us */
    block_current_to(TS_XFER_WAIT, r);
    if (s->xfer->aborted)
        return s->xfer->aborted;
    if (r->ipc.xfer_fault == L4_IPC_OVERFLOW)   /* its handler refused the fault */
        return L4_IPC_OVERFLOW;
    if (r->ipc.xfer_fault)          /* the receiver's fault IPC failed: timeout or no pager */
        return L4_IPC_XFER_TIMEOUT_OWN;
    return 0;
}

/* The byte at va of the receiver's (or the sender's) space is not there: outside the user
 * area the string overflows, otherwise the fault is resolved.  0: retry. */
static int missing_byte(struct tcb *s, struct tcb *r, word_t va, bool receiver)
{
    if (va >= L4_USER_AREA_END)
        return L4_IPC_OVERFLOW;
    /* A foreign space's KIP area is the kernel's (read-only, no pager can map there): a
     * buffer in it is treated as outside the user area (docs/linux-abi.md 9.2b). */
    if (receiver && r->space->foreign && space_in_kip_area(r->space, va, 1))
        return L4_IPC_OVERFLOW;
    return receiver ? receiver_fault(s, r, va) : sender_fault(s, r, va);
}

/* Copy one logical string from s (MR cursor) into r's current receive buffer. */
static int copy_string(struct tcb *s, struct tcb *r, struct strcur *src, struct strcur *dst,
                       word_t *offset)
{
    for (;;) {
        word_t sva, dva;
        word_t sn = cur_avail(src, &sva);
        if (!sn)
            return 0;
        word_t dn = cur_avail(dst, &dva);
        if (!dn)
            return L4_IPC_OVERFLOW;     /* receive buffer exhausted */
        if (s->xfer->aborted)
            return s->xfer->aborted;
        word_t sleft, dleft;
        void *sp = user_byte(s->space, sva, false, &sleft);
        void *dp = sp ? user_byte(r->space, dva, true, &dleft) : NULL;
        if (!dp) {
            int e = sp ? missing_byte(s, r, dva, true) : missing_byte(s, r, sva, false);
            if (e)
                return e;
            continue;
        }
        word_t n = MIN(MIN(sn, dn), MIN(sleft, dleft));
        memcpy(dp, sp, n);
        src->pos += n;
        dst->pos += n;
        *offset += n;
    }
}

static int transfer_strings_start(struct tcb *s, struct tcb *r, int i, int end,
                                  struct strcur *dst, bool *have_dst, word_t *offset)
{
    if (!(utcb_get(r, L4_UTCB_BR(0)) & L4_ACCEPT_STRINGS))
        return L4_IPC_OVERFLOW;
    if (!*have_dst) {
        *dst = (struct strcur){ .t = r, .brs = true, .limit = L4_BR_COUNT };
        if (!cur_load(dst, 1))
            return L4_IPC_OVERFLOW;
        *have_dst = true;
    } else {
        /* The next receive buffer exists only if the first item of the current one has C. */
        word_t first = utcb_get(r, L4_UTCB_BR(dst->idx0));
        if (!(first & L4_ITEM_C))
            return L4_IPC_OVERFLOW;
        int next = string_end(r, true, dst->idx0, L4_BR_COUNT);
        if (next < 0 || !cur_load(dst, next))
            return L4_IPC_OVERFLOW;
    }
    dst->idx0 = dst->idx;
    struct strcur src = { .t = s, .brs = false, .limit = end };
    if (!cur_load(&src, i))
        return L4_IPC_OVERFLOW;
    return copy_string(s, r, &src, dst, offset);
}

/* Message words i..i+n-1 into the receiver's MRs.  The receiver of a reply to
 * kernel-generated IPC keeps only the MRs the kernel saved for it (ipc_kernel_call): the
 * rest are not stored, though their items still take effect (a pager's map item may come
 * after other words). */
static void put_words(struct tcb *r, int i, const word_t *w, int n)
{
    if (r->kernel_rcv_words && i + n > r->kernel_rcv_words)
        n = (int)r->kernel_rcv_words - i;
    if (n > 0)
        memcpy(&r->mr[i], w, (size_t)n * sizeof(word_t));
}

int ipc_transfer(struct tcb *s, struct tcb *r, word_t *offset)
{
    word_t tag = s->mr[0];
    int u = (int)l4_tag_u(tag), t = (int)l4_tag_t(tag);
    int end = u + t + 1;            /* one past the last message word */
    *offset = 0;
    s->ipc.xfer_deadline = 0;
    if (end > L4_MR_COUNT)
        return L4_IPC_OVERFLOW;
    put_words(r, 1, &s->mr[1], u);

    struct strcur dst;
    bool have_dst = false;
    int err = 0;
    /* Only string copies can block; they are what aborts and deletion must find.  A transfer
     * nested in another (a fault IPC's message) leaves the outer one's descriptor alone. */
    struct xfer x = { s, r, 0 };
    struct xfer *outer_s = s->xfer, *outer_r = r->xfer;
    bool strings = ipc_has_strings(s);
    if (strings)
        s->xfer = r->xfer = &x;
    for (int i = u + 1; i < end && !err; ) {
        word_t w0 = s->mr[i];
        if (l4_item_is_map(w0) || l4_item_is_grant(w0)) {
            if (i + 1 >= end) {
                err = L4_IPC_OVERFLOW;
                break;
            }
            put_words(r, i, &s->mr[i], 2);
            err = transfer_mapping(s, r, w0, s->mr[i + 1], l4_item_is_grant(w0));
            i += 2;
        } else if (l4_item_is_string(w0)) {
            int next = string_end(s, false, i, end);
            if (next < 0) {
                put_words(r, i, &s->mr[i], 1);
                err = L4_IPC_OVERFLOW;
                break;
            }
            put_words(r, i, &s->mr[i], next - i);
            err = transfer_strings_start(s, r, i, end, &dst, &have_dst, offset);
            i = next;
        } else {
            put_words(r, i, &s->mr[i], 1);
            err = L4_IPC_OVERFLOW;  /* control-transfer (not amd64) and reserved types */
        }
    }
    if (strings) {
        s->xfer = outer_s;
        if (r->xfer == &x)          /* (a deleted receiver's slot reads as zeros) */
            r->xfer = outer_r;
    }
    if (x.aborted)
        err = x.aborted;
    else if (err == L4_IPC_XFER_TIMEOUT_OWN && s->ipc.xfer_deadline)
        err = xfer_timeout_code(s, r, true) ;
    s->ipc.ipc_offset = *offset;
    return err;
}
