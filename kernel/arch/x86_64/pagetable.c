/* User page tables with mapping-node shadows (see pagetable.h). */
#include "pagetable.h"
#include "paging.h"
#include "space.h"
#include "kmem.h"
#include "lib.h"
#include "console.h"

#define TABLE_ORDER 1           /* table page + shadow page */
#define USER_PML4_ENTRIES 256

static inline struct mapnode **shadow_of(pte_t *table)
{
    return (struct mapnode **)((char *)table + PAGE_SIZE);
}

static inline pte_t *table_of(pte_t e)
{
    return phys_to_virt(e & PTE_ADDR);
}

enum pt_status pt_walk(struct space *s, word_t va, unsigned level, bool create, struct pt_ref *ref)
{
    pte_t *t = s->arch.pml4;
    for (unsigned l = 3; l > level; l--) {
        pte_t *e = &t[pt_index(va, l)];
        if (!(*e & PTE_P)) {
            if (!create)
                return PT_ABSENT;
            pte_t *nt = kmem_alloc(TABLE_ORDER);
            if (!nt)
                return PT_NOMEM;
            *e = physmap_to_phys(nt) | PTE_P | PTE_W | PTE_U;
        } else if (*e & PTE_PS) {
            ref->pte = e;
            ref->node = shadow_of(t) + pt_index(va, l);
            ref->level = l;
            ref->va = va & ~(level_size(l) - 1);
            return PT_LEAF_ABOVE;
        }
        t = table_of(*e);
    }
    unsigned i = pt_index(va, level);
    ref->pte = &t[i];
    ref->node = level < 3 ? shadow_of(t) + i : NULL;
    ref->level = level;
    ref->va = va & ~(level_size(level) - 1);
    return PT_OK;
}

bool pt_walk_near(const struct pt_ref *near, word_t va, struct pt_ref *ref)
{
    if (!near->pte || near->level != 0 ||
        (va & ~(level_size(1) - 1)) != (near->va & ~(level_size(1) - 1)))
        return false;
    long d = (long)pt_index(va, 0) - (long)pt_index(near->va, 0);
    ref->pte = near->pte + d;
    ref->node = near->node + d;
    ref->level = 0;
    ref->va = va & ~(PAGE_SIZE - 1);
    return true;
}

bool pt_find_leaf(struct space *s, word_t va, struct pt_ref *ref)
{
    pte_t *t = s->arch.pml4;
    for (unsigned l = 3;; l--) {
        unsigned i = pt_index(va, l);
        pte_t e = t[i];
        if (!(e & PTE_P))
            return false;
        if (l == 0 || (l < 3 && (e & PTE_PS))) {
            ref->pte = &t[i];
            ref->node = shadow_of(t) + i;
            ref->level = l;
            ref->va = va & ~(level_size(l) - 1);
            return true;
        }
        t = table_of(e);
    }
}

static void walk_leaves(pte_t *t, unsigned l, word_t base, word_t start, word_t end,
                        pt_leaf_fn fn, void *ctx)
{
    word_t size = level_size(l);
    unsigned first = start > base ? (start - base) / size : 0;
    unsigned limit = l == 3 ? USER_PML4_ENTRIES : PT_ENTRIES;
    for (unsigned i = first; i < limit; i++) {
        word_t va = base + i * size;
        if (va >= end)
            break;
        pte_t e = t[i];
        if (!(e & PTE_P))
            continue;
        if (l == 0 || (l < 3 && (e & PTE_PS))) {
            struct pt_ref ref = { &t[i], shadow_of(t) + i, l, va };
            fn(&ref, ctx);
        } else {
            walk_leaves(table_of(e), l - 1, va, MAX(start, va), MIN(end, va + size), fn, ctx);
        }
    }
}

void pt_for_each_leaf(struct space *s, word_t start, word_t end, pt_leaf_fn fn, void *ctx)
{
    if (end > L4_USER_AREA_END_K)
        end = L4_USER_AREA_END_K;
    if (start < end)
        walk_leaves(s->arch.pml4, 3, 0, start, end, fn, ctx);
}

pte_t *pt_split_leaf(struct pt_ref *ref)
{
    pte_t *nt = kmem_alloc(TABLE_ORDER);
    if (!nt)
        return NULL;
    pte_t e = *ref->pte;
    unsigned child = ref->level - 1;
    paddr_t pa = pte_frame(e, ref->level);
    unsigned attr = pte_cache_attr(e, ref->level);
    for (unsigned i = 0; i < PT_ENTRIES; i++) {
        pte_t ce = pte_make_leaf(pa + i * level_size(child), pte_rights(e), child, attr);
        nt[i] = ce | (e & (PTE_A | PTE_D));
    }
    *ref->pte = physmap_to_phys(nt) | PTE_P | PTE_W | PTE_U;
    return nt;
}

static void free_tables(pte_t *t, unsigned l)
{
    unsigned limit = l == 3 ? USER_PML4_ENTRIES : PT_ENTRIES;
    for (unsigned i = 0; i < limit; i++) {
        pte_t e = t[i];
        if ((e & PTE_P) && l > 0 && !(e & PTE_PS)) {
            free_tables(table_of(e), l - 1);
            t[i] = 0;
        }
    }
    if (l < 3)
        kmem_free(t, TABLE_ORDER);
}

static bool tables_empty(pte_t *t, unsigned l)
{
    for (unsigned i = 0; i < PT_ENTRIES; i++) {
        pte_t e = t[i];
        if (!(e & PTE_P))
            continue;
        if (l == 0 || (e & PTE_PS) || !tables_empty(table_of(e), l - 1))
            return false;
    }
    return true;
}

bool pt_drop_tables(struct pt_ref *ref)
{
    pte_t e = *ref->pte;
    if (!(e & PTE_P))
        return true;
    if (ref->level == 0 || (e & PTE_PS) || !tables_empty(table_of(e), ref->level - 1))
        return false;
    *ref->pte = 0;
    free_tables(table_of(e), ref->level - 1);
    return true;
}

void pt_free_tables(struct space *s)
{
    free_tables(s->arch.pml4, 3);
}

/* --- leaf entries ---------------------------------------------------------------------
 * Cache attributes are X.2 MemoryControl values: 0 default (= write-back), 1 write-back,
 * 2 write-through, 3 uncacheable-minus, 4 uncacheable, 5 write-combining, 8 write-protected.
 * With the PAT set up in cpu.c they map to PAT index (PAT, PCD, PWT). */
static const uint8_t attr_to_pat[9] = { 0, 0, 1, 2, 3, 4, 0xFF, 0xFF, 5 };
static const uint8_t pat_to_attr[8] = { 1, 2, 3, 4, 5, 8, 3, 4 };

static pte_t pat_bits(unsigned idx, unsigned level)
{
    pte_t b = 0;
    if (idx & 1) b |= PTE_PWT;
    if (idx & 2) b |= PTE_PCD;
    if (idx & 4) b |= level ? PTE_PATL : PTE_PAT4K;
    return b;
}

pte_t pte_make_leaf(paddr_t pa, unsigned rights, unsigned level, unsigned attr)
{
    pte_t e = pa | PTE_P | PTE_U;
    if (rights & PTE_RIGHTS_W)
        e |= PTE_W;
    if (!(rights & PTE_RIGHTS_X))
        e |= pte_nx;
    if (level)
        e |= PTE_PS;
    unsigned idx = attr < 9 && attr_to_pat[attr] != 0xFF ? attr_to_pat[attr] : 0;
    return e | pat_bits(idx, level);
}

unsigned pte_rights(pte_t e)
{
    if (!(e & PTE_P))
        return 0;
    unsigned r = PTE_RIGHTS_R;
    if (e & PTE_W)
        r |= PTE_RIGHTS_W;
    if (!pte_nx || !(e & PTE_NX))
        r |= PTE_RIGHTS_X;
    return r;
}

pte_t pte_with_rights(pte_t e, unsigned rights)
{
    e &= ~(PTE_W | PTE_NX);
    if (rights & PTE_RIGHTS_W)
        e |= PTE_W;
    if (!(rights & PTE_RIGHTS_X))
        e |= pte_nx;
    return e;
}

unsigned pte_status(pte_t e)
{
    unsigned st = 0;
    if (e & PTE_A)
        st |= PTE_RIGHTS_R | ((!pte_nx || !(e & PTE_NX)) ? PTE_RIGHTS_X : 0);
    if (e & PTE_D)
        st |= PTE_RIGHTS_W;
    return st;
}

unsigned pte_cache_attr(pte_t e, unsigned level)
{
    unsigned idx = ((e & PTE_PWT) ? 1 : 0) | ((e & PTE_PCD) ? 2 : 0) |
                   ((e & (level ? PTE_PATL : PTE_PAT4K)) ? 4 : 0);
    return pat_to_attr[idx];
}

pte_t pte_with_cache_attr(pte_t e, unsigned level, unsigned attr)
{
    e &= ~(PTE_PWT | PTE_PCD | (level ? PTE_PATL : PTE_PAT4K));
    unsigned idx = attr < 9 && attr_to_pat[attr] != 0xFF ? attr_to_pat[attr] : 0;
    return e | pat_bits(idx, level);
}
