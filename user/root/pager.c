/* Root as the pager of the tasks it loaded: their regions map pages of root's memory; the
 * ports of trusted tasks come from sigma0. */
#include "root.h"
#include <stdio.h>

static void map_reply(l4_word_t sndbase, l4_word_t fpage)
{
    l4_set_mr(0, l4_tag_make(0, 0, 2));
    l4_set_mr(1, l4_map_item(sndbase));
    l4_set_mr(2, fpage);
}

l4_word_t region_page(const struct task *t, struct region *r, l4_word_t page)
{
    l4_word_t index = (page - r->start) >> 12;
    if (r->backing)
        return r->backing + (index << 12);
    if (!r->anon) {
        l4_word_t n = (r->end - r->start) >> 12;
        r->anon = root_alloc(n * sizeof(uint32_t));    /* page numbers within ROOT_HEAP */
        if (!r->anon)
            return 0;
    }
    uint32_t *slots = r->anon;
    if (!slots[index]) {
        void *p = root_alloc_coloured_page(t->colours);
        if (!p)
            return 0;
        slots[index] = (uint32_t)(((l4_word_t)p - ROOT_HEAP) >> 12) + 1;
    }
    return ROOT_HEAP + ((l4_word_t)(slots[index] - 1) << 12);
}

/* The fpage a reply maps for an access to addr in t's regions (root's page with the region's
 * rights), or 0 with *err: L4_ERR_INVALID_PARAM outside every region or for an access it does
 * not allow (e.g. a write to text: mapping it again would not help), L4_ERR_NO_MEM when an
 * anonymous page has no memory behind it (root's pool, or sigma0's map refused). */
static l4_word_t page_of(struct task *t, l4_word_t addr, unsigned access, l4_word_t *err)
{
    l4_word_t page = addr & ~0xFFFul;
    *err = L4_ERR_INVALID_PARAM;
    for (unsigned i = 0; i < t->nregions; i++) {
        struct region *r = &t->regions[i];
        if (addr < r->start || addr >= r->end)
            continue;
        if (access & ~r->rights)
            return 0;
        l4_word_t b = region_page(t, r, page);
        *err = L4_ERR_NO_MEM;
        return b ? l4_fpage_log2(b, 12) | r->rights : 0;
    }
    return 0;
}

bool serve_page_in(struct task *t, l4_word_t addr, unsigned access, l4_word_t *err)
{
    l4_word_t fp = page_of(t, addr, access, err);
    if (fp)
        map_reply(addr & ~0xFFFul, fp);
    return fp != 0;
}

bool serve_fault(l4_word_t from, l4_word_t tag)
{
    struct task *t = task_of_thread(from);
    if (!t)
        return false;
    if (l4_tag_is_proto(tag, L4_PROTO_IO_PAGEFAULT)) {
        if (!t->trusted) {
            printf("root: %s: I/O port fault, not a trusted task: thread %lx stays stopped\n",
                   t->name, from);
            return false;
        }
        l4_word_t fp = l4_mr(L4_PF_ADDR);
        if (!l4_is_io_fpage(fp))
            return false;                   /* not an I/O fault message: ignore it */
        l4_sigma0_get_ports(l4_sigma0_tid(), fp);
        map_reply(0, fp);
        return true;
    }
    l4_word_t addr = l4_mr(L4_PF_ADDR), err;
    if (serve_page_in(t, addr, l4_pagefault_access(tag), &err))
        return true;
    printf("root: %s: unresolvable page fault at %lx (ip %lx): thread %lx stays stopped\n",
           t->name, addr, l4_mr(L4_PF_IP), from);
    return false;
}
