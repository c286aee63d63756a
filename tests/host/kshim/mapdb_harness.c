/* Test helpers for the mapping database (see mapdb_harness.h).  The page-table walk here is
 * written independently of pagetable.c so that it can check what the kernel built. */
#include <stdio.h>
#include <stdlib.h>
#include "mapdb_harness.h"

#define LEAF_ALLOWED (PTE_P | PTE_W | PTE_U | PTE_A | PTE_D | PTE_NX | PTE_ADDR)
#define TABLE_FLAGS  (PTE_P | PTE_W | PTE_U)

bool h_allow_cache_bits;

static struct {
    const struct space *s;
    char name[16];
} names[64];
static unsigned nnames;

void h_name(struct space *s, const char *name)
{
    for (unsigned i = 0; i < nnames; i++)
        if (names[i].s == s) {
            snprintf(names[i].name, sizeof(names[i].name), "%s", name);
            return;
        }
    if (nnames < 64) {
        names[nnames].s = s;
        snprintf(names[nnames].name, sizeof(names[nnames].name), "%s", name);
        nnames++;
    }
}

const char *h_name_of(const struct space *s)
{
    static char buf[4][24];
    static unsigned k;
    for (unsigned i = 0; i < nnames; i++)
        if (names[i].s == s)
            return names[i].name;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof(buf[k]), "space@%p", (const void *)s);
    return buf[k];
}

struct space *h_space_new(bool sigma0)
{
    h_init();
    struct space *s = calloc(1, sizeof(*s));
    s->arch.pml4 = kmem_alloc_page();
    if (!s->arch.pml4) {
        printf("FAIL harness: no memory for a PML4\n");
        abort();
    }
    s->arch.pml4_phys = physmap_to_phys(s->arch.pml4);
    s->sigma0 = sigma0;
    return s;
}

void h_set_areas(struct space *s, word_t kip_base, unsigned kip_log2, word_t utcb_base, unsigned utcb_log2)
{
    s->kip_area = kip_base | ((word_t)kip_log2 << 4);
    s->utcb_area = utcb_base | ((word_t)utcb_log2 << 4);
}

bool h_kernel_leaf(struct space *s, word_t va, paddr_t pa, unsigned rights)
{
    struct pt_ref ref;
    if (pt_walk(s, va, 0, true, &ref) != PT_OK)
        return false;
    *ref.pte = pte_make_leaf(pa, rights, 0, 0);
    *ref.node = NULL;
    return true;
}

static bool table_ok(pte_t e)
{
    paddr_t pa = e & PTE_ADDR;
    return (e & TABLE_FLAGS) == TABLE_FLAGS && !(e & PTE_PS) && pa >= H_POOL_PHYS &&
           pa + 2 * PAGE_SIZE <= H_POOL_PHYS + H_POOL_SIZE;
}

static pte_t *table_at(pte_t e) { return phys_to_virt(e & PTE_ADDR); }
static struct mapnode **shadow_at(pte_t *t) { return (struct mapnode **)((char *)t + PAGE_SIZE); }

unsigned h_rights_of(pte_t e)
{
    if (!(e & PTE_P))
        return 0;
    return H_R | ((e & PTE_W) ? H_W : 0) | ((e & PTE_NX) ? 0 : H_X);
}

struct h_page h_get(struct space *s, word_t va)
{
    struct h_page p = { 0 };
    pte_t *t = s->arch.pml4;
    for (int l = 3; l >= 0; l--) {
        unsigned i = (va >> (12 + 9 * l)) & 511;
        pte_t e = t[i];
        if (!(e & PTE_P))
            return p;
        if (l == 0 || (l < 3 && (e & PTE_PS))) {
            word_t size = 1ul << (12 + 9 * l);
            paddr_t base = (e & PTE_ADDR) & ~(size - 1);
            p.present = true;
            p.level = (unsigned)l;
            p.leaf_va = va & ~(size - 1);
            p.frame = base + ((va & (size - 1)) & ~(PAGE_SIZE - 1));
            p.rights = h_rights_of(e);
            p.pte = &t[i];
            p.node = shadow_at(t)[i];
            return p;
        }
        if (!table_ok(e))
            return p;
        t = table_at(e);
    }
    return p;
}

void h_touch(struct space *s, word_t va, bool accessed, bool dirty)
{
    struct h_page p = h_get(s, va);
    if (!p.present)
        return;
    if (accessed)
        *p.pte |= PTE_A;
    if (dirty)
        *p.pte |= PTE_D;
}

/* --- the independent walk -------------------------------------------------------------- */
struct walk_state {
    struct space *s;
    h_leaf_fn fn;
    void *ctx;
    unsigned problems;
    const char *when;
};

static void problem(struct walk_state *w, const char *fmt, word_t va, unsigned level, pte_t e)
{
    w->problems++;
    if (w->problems <= 20) {
        printf("FAIL %s: %s: ", w->when ? w->when : "walk", h_name_of(w->s));
        printf(fmt, va);
        printf(" (level %u, entry %#lx)\n", level, (unsigned long)e);
    }
}

static void walk_table(struct walk_state *w, pte_t *t, int l, word_t base)
{
    unsigned limit = l == 3 ? 256 : 512;
    struct mapnode **sh = l < 3 ? shadow_at(t) : NULL;
    for (unsigned i = 0; i < limit; i++) {
        word_t va = base + ((word_t)i << (12 + 9 * l));
        pte_t e = t[i];
        bool leaf = (e & PTE_P) && (l == 0 || (l < 3 && (e & PTE_PS)));
        if (sh && sh[i] && !leaf)
            problem(w, "shadow slot at %#lx holds a node but the entry is not a leaf", va, (unsigned)l, e);
        if (!(e & PTE_P))
            continue;
        if (leaf) {
            word_t size = 1ul << (12 + 9 * l);
            pte_t cache = h_allow_cache_bits ? (PTE_PWT | PTE_PCD | (l ? PTE_PATL : PTE_PAT4K)) : 0;
            pte_t bad = e & ~(LEAF_ALLOWED | cache | (l ? PTE_PS : 0));
            if (bad)
                problem(w, "leaf at %#lx has unexpected bits (cache/PAT/global)", va, (unsigned)l, e);
            if (((e & PTE_ADDR) & (size - 1)) & ~PTE_PATL)
                problem(w, "leaf at %#lx: frame not aligned to the leaf size", va, (unsigned)l, e);
            if (!(e & PTE_U))
                problem(w, "leaf at %#lx is not a user mapping", va, (unsigned)l, e);
            paddr_t f = e & PTE_ADDR & ~(size - 1);
            if (f < H_POOL_PHYS + H_POOL_SIZE && H_POOL_PHYS < f + size)
                problem(w, "leaf at %#lx maps kernel-pool memory (page tables, mapping nodes)", va, (unsigned)l, e);
            if (w->fn)
                w->fn(w->s, &t[i], &sh[i], (unsigned)l, va, w->ctx);
            continue;
        }
        if (l == 3 && (e & PTE_PS)) {
            problem(w, "PML4 entry for %#lx has PS set", va, 3, e);
            continue;
        }
        if (!table_ok(e)) {
            problem(w, "table entry for %#lx does not point into the kernel pool (or bad flags)", va, (unsigned)l, e);
            continue;
        }
        walk_table(w, table_at(e), l - 1, va);
    }
}

static unsigned walk(struct space *s, h_leaf_fn fn, void *ctx, const char *when)
{
    struct walk_state w = { s, fn, ctx, 0, when };
    walk_table(&w, s->arch.pml4, 3, 0);
    return w.problems;
}

void h_walk(struct space *s, h_leaf_fn fn, void *ctx)
{
    walk(s, fn, ctx, "walk");
}

/* --- destroy --------------------------------------------------------------------------- */
static void clear_kernel_leaf(struct space *s, pte_t *pte, struct mapnode **slot, unsigned level,
                              word_t va, void *ctx)
{
    (void)s; (void)level; (void)va; (void)ctx;
    if (!*slot)
        *pte = 0;
}

void h_space_destroy(struct space *s)
{
    mapdb_flush_range(s, 0, H_USER_END, true);
    walk(s, clear_kernel_leaf, NULL, "destroy");
    pt_free_tables(s);
    kmem_free_page(s->arch.pml4);
    free(s);
}

/* --- the tree check -------------------------------------------------------------------- */
struct tnode {
    struct mapnode *n;
    struct space *s;
    pte_t e;
    unsigned level;
    word_t va;
};

static struct tnode *nodes;
static size_t nnodes, capnodes;

static void collect(struct space *s, pte_t *pte, struct mapnode **slot, unsigned level, word_t va, void *ctx)
{
    struct walk_state *w = ctx;
    struct mapnode *n = *slot;
    if (!n)
        return;             /* kernel-managed leaf */
    if (nnodes == capnodes) {
        capnodes = capnodes ? 2 * capnodes : 4096;
        nodes = realloc(nodes, capnodes * sizeof(*nodes));
    }
    nodes[nnodes++] = (struct tnode){ n, s, *pte, level, va };
    if (n->space != s)
        problem(w, "node of the leaf at %#lx belongs to another space", va, level, *pte);
    if (n->pte != pte)
        problem(w, "node of the leaf at %#lx does not point back to its entry", va, level, *pte);
    if (n->va != va)
        problem(w, "node of the leaf at %#lx records a different address", va, level, *pte);
    if (n->level != level)
        problem(w, "node of the leaf at %#lx records a different level", va, level, *pte);
}

static int cmp_node(const void *a, const void *b)
{
    const struct mapnode *x = ((const struct tnode *)a)->n, *y = ((const struct tnode *)b)->n;
    return x < y ? -1 : x > y;
}

static const struct tnode *find_node(const struct mapnode *n)
{
    size_t lo = 0, hi = nnodes;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (nodes[mid].n == n)
            return &nodes[mid];
        if (nodes[mid].n < n)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static void node_problem(unsigned *problems, const char *when, const struct tnode *t, const char *what)
{
    (*problems)++;
    if (*problems <= 20)
        printf("FAIL %s: node of %s at %#lx (level %u, frame %#lx, rights %u): %s\n", when,
               h_name_of(t->s), t->va, t->level, (unsigned long)(t->e & PTE_ADDR & ~((1ul << (12 + 9 * t->level)) - 1)),
               h_rights_of(t->e), what);
}

unsigned h_check_tree(struct space **spaces, unsigned n, const char *when)
{
    unsigned problems = 0;
    nnodes = 0;
    for (unsigned i = 0; i < n; i++) {
        struct walk_state w = { spaces[i], collect, NULL, 0, when };
        w.ctx = &w;
        walk_table(&w, spaces[i]->arch.pml4, 3, 0);
        problems += w.problems;
    }
    if (nnodes > 1)
        qsort(nodes, nnodes, sizeof(*nodes), cmp_node);
    for (size_t i = 1; i < nnodes; i++)
        if (nodes[i].n == nodes[i - 1].n)
            node_problem(&problems, when, &nodes[i], "the same node sits in two leaves");
    if (mapdb_node_count() != nnodes) {
        problems++;
        printf("FAIL %s: mapdb_node_count() = %lu, but %zu nodes are reachable from the page tables "
               "(%s)\n", when, mapdb_node_count(), nnodes,
               mapdb_node_count() > nnodes ? "nodes leaked or in a space not checked" : "count too low");
    }
    size_t nonroots = 0, listed = 0;
    for (size_t i = 0; i < nnodes; i++) {
        const struct tnode *t = &nodes[i];
        const struct mapnode *m = t->n;
        word_t size = 1ul << (12 + 9 * t->level);
        paddr_t frame = t->e & PTE_ADDR & ~(size - 1);
        if (m->parent) {
            nonroots++;
            const struct tnode *p = find_node(m->parent);
            if (!p) {
                node_problem(&problems, when, t, "parent is not a live node (dangling)");
            } else {
                word_t psize = 1ul << (12 + 9 * p->level);
                paddr_t pframe = p->e & PTE_ADDR & ~(psize - 1);
                if (t->level > p->level)
                    node_problem(&problems, when, t, "level larger than its parent's");
                if (frame < pframe || frame + size > pframe + psize)
                    node_problem(&problems, when, t, "frames not inside the parent's frames");
                if (h_rights_of(t->e) & ~h_rights_of(p->e))
                    node_problem(&problems, when, t, "rights exceed the parent's rights");
            }
            /* cycle check: the parent chain must end at a root */
            const struct mapnode *a = m->parent;
            size_t steps = 0;
            while (a && steps <= nnodes) {
                a = find_node(a) ? a->parent : NULL;
                steps++;
            }
            if (steps > nnodes)
                node_problem(&problems, when, t, "parent chain has a cycle");
        } else if (m->next || m->prev) {
            node_problem(&problems, when, t, "root node with sibling links");
        }
        const struct mapnode *prev = NULL;
        size_t k = 0;
        for (const struct mapnode *c = m->child; c; c = c->next) {
            if (++k > nnodes) {
                node_problem(&problems, when, t, "child list is cyclic");
                break;
            }
            listed++;
            if (!find_node(c)) {
                node_problem(&problems, when, t, "child list holds a node that is not live");
                break;
            }
            if (c->parent != m)
                node_problem(&problems, when, t, "child's parent pointer is not this node");
            if (c->prev != prev)
                node_problem(&problems, when, t, "child list prev link broken");
            prev = c;
        }
    }
    if (listed != nonroots) {
        problems++;
        printf("FAIL %s: %zu nodes have a parent but %zu are on child lists\n", when, nonroots, listed);
    }
    return problems;
}
