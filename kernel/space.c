/* Address spaces: creation, the KIP and UTCB areas, UTCB memory, destruction. */
#include "space.h"
#include "tcb.h"
#include "mapdb.h"
#include "slab.h"
#include "kmem.h"
#include "kip.h"
#include "iospace.h"
#include "thread.h"
#include "foreign.h"
#include "channel.h"
#include "lib.h"
#include "console.h"
#include "list.h"
#include <l4/fpage.h>
#include <l4/message.h>
#include <l4/pecan.h>
#include <l4/utcb.h>

static struct slab_cache space_cache = SLAB_CACHE_INIT("space", struct space);
/* The UTCBs of foreign threads: kernel memory mapped nowhere in their space (docs/linux-abi.md
 * §2).  Three to a page, where a page-backed UTCB shares its page with three others. */
static struct slab_cache foreign_utcb_cache = { .name = "foreign utcb", .objsize = L4_UTCB_SIZE };
struct space kernel_space;
struct space *sigma0_space;

void space_init_kernel(void)
{
    arch_space_init_kernel(&kernel_space);
}

struct space *space_create(void)
{
    struct space *s = slab_alloc(&space_cache);
    if (!s)
        return NULL;
    if (!arch_space_create(s)) {
        slab_free(&space_cache, s);
        return NULL;
    }
    return s;
}

bool space_initialised(const struct space *s)
{
    return s->kip_area != 0;
}

bool space_in_kip_area(const struct space *s, word_t va, word_t size)
{
    word_t base = l4_fpage_base(s->kip_area);
    word_t end = base + (1ul << l4_fpage_order(s->kip_area));
    return s->kip_area && va < end && va + size > base;
}

/* Only an ordinary space's UTCB area holds UTCBs: a foreign space's is the program's. */
bool space_in_utcb_area(const struct space *s, word_t va, word_t size)
{
    word_t base = l4_fpage_base(s->utcb_area);
    word_t end = base + (1ul << l4_fpage_order(s->utcb_area));
    return s->utcb_area && !s->foreign && va < end && va + size > base;
}

static bool valid_area(word_t fp, unsigned min_order)
{
    unsigned order = l4_fpage_size_log2(fp);
    if (l4_is_nil_fpage(fp) || l4_is_io_fpage(fp) || l4_is_complete_fpage(fp))
        return false;
    if (order < min_order || order > 47)
        return false;
    return l4_is_user_range(l4_fpage_base(fp), 1ul << order);
}

/* The areas of an uninitialised space: valid fpages of the user area that do not overlap. */
static word_t check_areas(word_t kip_area, word_t utcb_area)
{
    if (!valid_area(utcb_area, 12))
        return L4_ERR_UTCB_AREA;
    if (!valid_area(kip_area, 12))
        return L4_ERR_KIP_AREA;
    word_t kb = l4_fpage_base(kip_area), ks = 1ul << l4_fpage_size_log2(kip_area);
    word_t ub = l4_fpage_base(utcb_area), us = 1ul << l4_fpage_size_log2(utcb_area);
    if (kb < ub + us && ub < kb + ks)
        return L4_ERR_KIP_AREA;
    return L4_ERR_OK;
}

/* Map the KIP through the page-table entry `kip` (allocated by pt_walk) and record the
 * areas: the space is initialised.  Cannot fail. */
static void set_areas(struct space *s, struct pt_ref *kip, word_t kip_area, word_t utcb_area)
{
    word_t kb = l4_fpage_base(kip_area);
    /* A mapping already there (made before SpaceControl) gives way to the KIP. */
    mapdb_flush_range(s, kb, PAGE_SIZE, true);
    *kip->pte = pte_make_leaf(kip_phys(), PTE_RIGHTS_R, 0, 0);
    *kip->node = NULL;
    s->kip_area = l4_fpage_log2(kb, l4_fpage_size_log2(kip_area));
    s->utcb_area = l4_fpage_log2(l4_fpage_base(utcb_area), l4_fpage_size_log2(utcb_area));
    space_tlb_invalidate(s, kb, PAGE_SIZE);
}

int space_setup_areas(struct space *s, word_t kip_area, word_t utcb_area)
{
    struct pt_ref ref;
    word_t e = check_areas(kip_area, utcb_area);
    if (e)
        return (int)e;
    if (pt_walk(s, l4_fpage_base(kip_area), 0, true, &ref) != PT_OK)
        return L4_ERR_NO_MEM;
    set_areas(s, &ref, kip_area, utcb_area);
    return L4_ERR_OK;
}

/* --- SpaceControl (contract §4.4.9, docs/linux-abi.md) ------------------------------------ */

word_t space_control(struct tcb *self, word_t spec, word_t ctl, word_t kip_area,
                     word_t utcb_area, word_t redirector, word_t handler, word_t *old_ctl)
{
    struct tcb *t = thread_space_specifier(spec);
    struct space *s = t ? t->space : NULL;
    bool apply = ctl & L4_SPACE_CTL_APPLY, foreign = ctl & L4_SPACE_CTL_FOREIGN;
    *old_ctl = s && s->foreign ? L4_SPACE_CTL_FOREIGN : 0;

    /* Validate. */
    if (!self->space->privileged)
        return L4_ERR_NO_PRIVILEGE;
    if (!s)
        return L4_ERR_INVALID_SPACE;
    if (ctl & L4_SPACE_CTL_CHANNEL)     /* changes the channel set only (channel.c) */
        return apply ? L4_ERR_INVALID_PARAM :
               channel_control(s, ctl, ctl & L4_SPACE_CTL_CHAN_WINDOW ? utcb_area : handler);
    if (redirector != L4_NILTHREAD && redirector != L4_ANYTHREAD && !tcb_lookup(redirector))
        return L4_ERR_INVALID_THREAD;
    if (apply && (ctl & ~(L4_SPACE_CTL_APPLY | L4_SPACE_CTL_FOREIGN)))
        return L4_ERR_INVALID_PARAM;
    word_t e = apply ? foreign_check_control(s, foreign, handler) : L4_ERR_OK;
    if (e)
        return e;
    bool init = !space_initialised(s);
    struct pt_ref kip;
    if (init) {
        if ((e = check_areas(kip_area, utcb_area)))
            return e;
        /* Allocate: the page tables down to the KIP's entry. */
        if (pt_walk(s, l4_fpage_base(kip_area), 0, true, &kip) != PT_OK)
            return L4_ERR_NO_MEM;
    }

    /* Apply: nothing below can fail. */
    if (init)
        set_areas(s, &kip, kip_area, utcb_area);
    if (redirector != L4_NILTHREAD) {
        s->redirector = redirector == L4_ANYTHREAD ? 0 : redirector;
        space_update_ipc_slow(s);
    }
    if (apply)
        foreign_set_control(s, foreign, handler);
    return L4_ERR_OK;
}

/* The backed UTCB page of an ordinary space at `location`, as the kernel reaches it. */
static void *utcb_page_frame(struct space *s, word_t location)
{
    struct pt_ref ref;
    if (pt_find_leaf(s, location & ~(PAGE_SIZE - 1), &ref) && ref.level == 0 && !*ref.node)
        return (char *)phys_to_virt(pte_frame(*ref.pte, 0)) + (location & (PAGE_SIZE - 1));
    return NULL;
}

void *space_utcb_alloc(struct space *s, word_t location)
{
    if (s->foreign)
        return slab_alloc(&foreign_utcb_cache);
    void *u = utcb_page_frame(s, location);
    if (u)
        return u;
    word_t page = location & ~(PAGE_SIZE - 1);
    struct pt_ref ref;
    if (pt_walk(s, page, 0, true, &ref) != PT_OK)
        return NULL;
    void *frame = kmem_alloc_page();
    if (!frame)
        return NULL;
    mapdb_flush_range(s, page, PAGE_SIZE, true);
    *ref.pte = pte_make_leaf(physmap_to_phys(frame), PTE_RIGHTS_R | PTE_RIGHTS_W, 0, 0);
    *ref.node = NULL;
    space_tlb_invalidate(s, page, PAGE_SIZE);
    return (char *)frame + (location & (PAGE_SIZE - 1));
}

void space_utcb_free(struct space *s, void *utcb)
{
    /* An ordinary space's UTCB pages stay until the space goes: another thread may share
     * the page, or take the same location again. */
    if (s->foreign)
        slab_free(&foreign_utcb_cache, utcb);
}

void space_add_thread(struct space *s, struct tcb *t)
{
    t->space = s;
    LIST_PUSH(s->threads, t, space_next, space_prev);
    s->nthreads++;
    if (s->foreign)
        foreign_thread_mark(t, true);
}

void space_update_ipc_slow(struct space *s)
{
    s->ipc_slow = s->redirector || s->foreign;
}

void space_remove_thread(struct space *s, struct tcb *t)
{
    LIST_UNLINK(s->threads, t, space_next, space_prev);
    t->space_next = t->space_prev = NULL;
    t->flags &= ~TF_FOREIGN;
    s->nthreads--;
}

/* Kernel-managed leaves left after all mappings are gone: UTCB frames and the KIP. */
static void free_kernel_leaf(struct pt_ref *ref, void *ctx)
{
    struct space *s = ctx;
    if (*ref->node)
        panic("space: mapping at %lx survived its flush", ref->va);
    if (ref->level == 0 && space_in_utcb_area(s, ref->va, PAGE_SIZE))
        kmem_free_page(phys_to_virt(pte_frame(*ref->pte, 0)));
    *ref->pte = 0;
}

void space_clear_utcb_area(struct space *s)
{
    word_t base = l4_fpage_base(s->utcb_area), size = 1ul << l4_fpage_order(s->utcb_area);
    if (!space_initialised(s))
        return;
    mapdb_flush_range(s, base, size, true);
    pt_for_each_leaf(s, base, base + size, free_kernel_leaf, s);
    space_tlb_invalidate(s, base, size);
}

void space_destroy(struct space *s)
{
    mapdb_flush_range(s, 0, L4_USER_AREA_END, true);
    pt_for_each_leaf(s, 0, L4_USER_AREA_END, free_kernel_leaf, s);
    iospace_destroy(s);
    pt_free_tables(s);
    arch_space_destroy(s);
    slab_free(&space_cache, s);
}
