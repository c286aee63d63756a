/* Randomized test of the mapping database against a reference model.
 *
 * Usage: mapdb_random_test VARIANT SEED OPS   (VARIANT: mixed = sizes up to 4 MiB, small = up to
 * 64 KiB).  Five spaces (sigma0 and A..D, 16 MiB windows each) get random map, grant, unmap and
 * sigma0-fault operations.
 *
 * The model is deliberately simple: a set of nodes (space, va, level, frame, rights, parent)
 * with explicit child lists, recursive removal, and a per-page index.  Before every operation it
 * is rebuilt from the kernel's page tables and shadow slots (which were verified after the
 * previous operation), the operation is applied to it, and afterwards every 4 KiB page of every
 * window is compared with the kernel: present, frame, rights, page size, and from which page of
 * which space the mapping is derived.  Pages whose access was reduced must have been TLB-
 * invalidated; the tree invariants are checked after every operation; the node count must match.
 *
 * Semantics modelled: contract §5.5 (rights = fpage ∩ source, union when the same page is mapped
 * again, removal of the old mapping with its derivations otherwise, grant moves the mapping and
 * its derived mappings), §4.4.8 (revocation of rights from everything derived, own mappings with
 * the flush bit), §7.5 (sigma0's identity roots: 2 MiB where the 2 MiB holds no reserved frame
 * and no smaller roots exist, else 4 KiB), and the kernel's page-size policy (2 MiB pages when
 * the source has a 2 MiB leaf, the whole aligned 2 MiB is mapped and the target has no page
 * table there; otherwise 4 KiB; a 4 KiB mapping into a 2 MiB one replaces the 2 MiB mapping;
 * a grant of a 2 MiB leaf onto a page table replaces the smaller mappings and the table).
 * Mapping the same page again extends the rights in place when the mapping derives from the
 * same source or gains nothing; more rights from a different source replace it (mapdb_test
 * remap_same_page_other_source). */
#include "unit_check.h"
#include "mapdb_harness.h"

#define NSP 5
#define WIN (16ul << 20)
#define NPG (WIN >> 12)
#define NRG (WIN >> 21)
#define KB4 0x1000ul
#define MB2 0x200000ul
#define MAXN 60000

static const word_t wbase[NSP] = { 0x02000000, 0x10000000, 0x20000000, 0x3FE00000, 0x01000000 };
static const char *const spname[NSP] = { "sigma0", "A", "B", "C", "D" };
static const paddr_t RESERVED_FRAME = 0x02000000 + (4ul << 20) + 0x5000;   /* in sigma0's 3rd 2 MiB */
static struct space *sp[NSP];

enum { RG_EMPTY, RG_TABLE, RG_LEAF };

static word_t lsz(int level) { return 1ul << (12 + 9 * level); }

/* --- the model ------------------------------------------------------------------------- */
struct mn {
    int sp, level;
    word_t va;
    paddr_t frame;
    unsigned rights;
    int parent, child, next, prev;
    bool alive;
};

struct model {
    struct mn n[MAXN];
    int nn, alive;
    int pm[NSP][NPG];           /* node covering each page, -1 if none */
    uint8_t rg[NSP][NRG];       /* per 2 MiB: page directory entry empty, table or 2 MiB leaf */
    bool overflow;
};

static struct model P, K;      /* prediction, kernel state after the operation */

static bool in_win(int s, word_t va) { return va >= wbase[s] && va < wbase[s] + WIN; }
static int pg(int s, word_t va) { return (int)((va - wbase[s]) >> 12); }
static int rgi(int s, word_t va) { return (int)((va - wbase[s]) >> 21); }

static int leaf_at(struct model *m, int s, word_t va)
{
    return in_win(s, va) ? m->pm[s][pg(s, va)] : -1;
}

static void set_pages(struct model *m, int i, int value)
{
    struct mn *x = &m->n[i];
    for (word_t off = 0; off < lsz(x->level); off += KB4)
        if (in_win(x->sp, x->va + off))
            m->pm[x->sp][pg(x->sp, x->va + off)] = value;
}

static void link(struct model *m, int p, int c)
{
    struct mn *x = &m->n[c];
    x->parent = p;
    x->prev = -1;
    x->next = p >= 0 ? m->n[p].child : -1;
    if (x->next >= 0)
        m->n[x->next].prev = c;
    if (p >= 0)
        m->n[p].child = c;
}

static void unlink_(struct model *m, int c)
{
    struct mn *x = &m->n[c];
    if (x->prev >= 0)
        m->n[x->prev].next = x->next;
    else if (x->parent >= 0)
        m->n[x->parent].child = x->next;
    if (x->next >= 0)
        m->n[x->next].prev = x->prev;
    x->parent = x->next = x->prev = -1;
}

static int mnew(struct model *m, int s, int level, word_t va, paddr_t frame, unsigned rights, int parent)
{
    if (m->nn == MAXN) {
        m->overflow = true;
        return -1;
    }
    int i = m->nn++;
    m->n[i] = (struct mn){ s, level, va, frame, rights, -1, -1, -1, -1, true };
    link(m, parent, i);
    set_pages(m, i, i);
    m->alive++;
    if (in_win(s, va))
        m->rg[s][rgi(s, va)] = level ? RG_LEAF : RG_TABLE;
    return i;
}

static void remove_subtree(struct model *m, int i)
{
    while (m->n[i].child >= 0)
        remove_subtree(m, m->n[i].child);
    struct mn *x = &m->n[i];
    unlink_(m, i);
    set_pages(m, i, -1);
    x->alive = false;
    m->alive--;
    if (x->level == 1)
        m->rg[x->sp][rgi(x->sp, x->va)] = RG_EMPTY;
}

static bool ancestor_or_self(struct model *m, int a, int n)
{
    for (; n >= 0; n = m->n[n].parent)
        if (n == a)
            return true;
    return false;
}

static void take_rights_below(struct model *m, int i, unsigned rights)
{
    for (int c = m->n[i].child; c >= 0; c = m->n[c].next) {
        m->n[c].rights &= ~rights;
        take_rights_below(m, c, rights);
    }
}

/* Revoke `rights` from everything derived from i, and from i itself if `self`. */
static void revoke(struct model *m, int i, unsigned rights, bool self)
{
    if (self && (rights & H_R)) {
        remove_subtree(m, i);
        return;
    }
    if (self)
        m->n[i].rights &= ~rights;
    if (rights & H_R) {
        while (m->n[i].child >= 0)
            remove_subtree(m, m->n[i].child);
    } else if (rights) {
        take_rights_below(m, i, rights);
    }
}

/* Replace the 2 MiB node i by 512 4 KiB nodes (same frames, rights, parent); derived 2 MiB
 * nodes are split first, derived nodes move to the piece with their frame. */
static void split(struct model *m, int i)
{
    int same[64], ns = 0;
    for (int c = m->n[i].child; c >= 0; c = m->n[c].next)
        if (m->n[c].level == m->n[i].level && ns < 64)
            same[ns++] = c;
    for (int k = 0; k < ns; k++)
        split(m, same[k]);
    struct mn x = m->n[i];
    int first = -1;
    for (int k = 0; k < 512; k++) {
        int p = mnew(m, x.sp, x.level - 1, x.va + k * lsz(x.level - 1), x.frame + k * lsz(x.level - 1),
                     x.rights, x.parent);
        if (p < 0)
            return;
        if (k == 0)
            first = p;
    }
    while (m->n[i].child >= 0) {
        int c = m->n[i].child;
        int k = (int)((m->n[c].frame - x.frame) / lsz(x.level - 1));
        unlink_(m, c);
        link(m, first + k, c);
    }
    unlink_(m, i);
    m->n[i].alive = false;
    m->alive--;
    m->rg[x.sp][rgi(x.sp, x.va)] = RG_TABLE;
}

static void split_covering(struct model *m, int s, word_t va, word_t size)
{
    for (;;) {
        int i = leaf_at(m, s, va);
        if (i < 0 || lsz(m->n[i].level) <= size)
            return;
        split(m, i);
    }
}

/* --- sigma0 --- */
static bool reserved(paddr_t pa, word_t size) { return pa <= RESERVED_FRAME && RESERVED_FRAME < pa + size; }

static void sigma0_map_page(struct model *m, word_t pa)
{
    if (reserved(pa, KB4))
        return;
    word_t big = pa & ~(MB2 - 1);
    if (m->rg[0][rgi(0, big)] == RG_EMPTY && !reserved(big, MB2)) {
        mnew(m, 0, 1, big, big, 7, -1);
        return;
    }
    if (leaf_at(m, 0, pa) >= 0)
        return;
    mnew(m, 0, 0, pa & ~(KB4 - 1), pa & ~(KB4 - 1), 7, -1);
}

static void sigma0_ensure(struct model *m, word_t va, word_t size)
{
    for (word_t pa = va; pa < va + size; ) {
        int i = leaf_at(m, 0, pa);
        if (i >= 0) {
            pa = m->n[i].va + lsz(m->n[i].level);
            continue;
        }
        sigma0_map_page(m, pa);
        i = leaf_at(m, 0, pa);
        pa = i >= 0 ? m->n[i].va + lsz(m->n[i].level) : pa + KB4;
    }
}

/* --- map and grant --- */

static void map_one(struct model *m, int n, paddr_t pa, int dst, word_t dva, int lvl, unsigned r, bool grant)
{
    for (;;) {
        int e = leaf_at(m, dst, dva);
        if (e >= 0 && m->n[e].level > lvl) {            /* a larger mapping covers the target */
            if (ancestor_or_self(m, e, n))
                return;
            remove_subtree(m, e);
            continue;
        }
        break;
    }
    if (lvl > 0 && m->rg[dst][rgi(dst, dva)] == RG_TABLE) {
        /* smaller mappings (a page table) at the target: a map goes in 4 KiB pieces; a grant
         * moves the node whole: unless one of them is n or an ancestor of it, the smaller
         * mappings are removed (with their derivations) and the page table with them */
        if (grant) {
            for (word_t k = 0; k < 512; k++) {
                int e = leaf_at(m, dst, dva + k * KB4);
                if (e >= 0 && ancestor_or_self(m, e, n))
                    return;
            }
            for (word_t k = 0; k < 512; k++) {
                int e = leaf_at(m, dst, dva + k * KB4);
                if (e >= 0)
                    remove_subtree(m, e);
            }
            m->rg[dst][rgi(dst, dva)] = RG_EMPTY;
        } else {
            for (word_t k = 0; k < 512; k++)
                map_one(m, n, pa + k * KB4, dst, dva + k * KB4, 0, r, grant);
            return;
        }
    }
    int e = leaf_at(m, dst, dva);
    if (e >= 0) {
        if (ancestor_or_self(m, e, n))
            return;
        if (!grant && m->n[e].frame == pa && m->n[e].level == lvl &&
            (m->n[e].parent == n || !(r & ~m->n[e].rights))) {
            m->n[e].rights |= r;
            return;
        }
        remove_subtree(m, e);
    }
    if (grant) {
        struct mn *x = &m->n[n];
        unsigned old = x->rights;
        set_pages(m, n, -1);
        if (x->level == 1)
            m->rg[x->sp][rgi(x->sp, x->va)] = RG_EMPTY;
        x->sp = dst;
        x->va = dva;
        x->rights = r;
        set_pages(m, n, n);
        m->rg[dst][rgi(dst, dva)] = lvl ? RG_LEAF : RG_TABLE;
        if (old & ~r)
            take_rights_below(m, n, old & ~r);
        return;
    }
    mnew(m, dst, lvl, dva, pa, r, n);
}

static void map(struct model *m, int src, word_t sva, int dst, word_t dva, word_t size, unsigned rights, bool grant)
{
    rights &= 7;
    if (src == dst && sva < dva + size && dva < sva + size)
        return;
    if (src == 0)
        sigma0_ensure(m, sva, size);
    if (grant)
        split_covering(m, src, sva, size);
    for (word_t va = sva; va < sva + size; ) {
        int i = leaf_at(m, src, va);
        if (i < 0) {
            va += KB4;
            continue;
        }
        struct mn x = m->n[i];
        word_t a = MAX(x.va, sva), b = MIN(x.va + lsz(x.level), sva + size);
        unsigned r = rights & x.rights;
        if (r & H_R) {
            for (word_t pos = a; pos < b; ) {
                word_t d = dva + (pos - sva);
                int lvl = x.level;
                while (lvl > 0 && (lsz(lvl) > b - pos || (d & (lsz(lvl) - 1)) || (pos & (lsz(lvl) - 1))))
                    lvl--;
                if (grant)
                    lvl = x.level;
                map_one(m, i, x.frame + (pos - x.va), dst, d, lvl, r, grant);
                if (grant)
                    break;
                pos += lsz(lvl);
            }
        }
        va = b;
    }
}

static void unmap(struct model *m, int s, word_t va, word_t size, unsigned rights, bool own)
{
    rights &= 7;
    split_covering(m, s, va, size);
    for (word_t p = va; p < va + size; ) {
        int i = leaf_at(m, s, p);
        if (i < 0) {
            p += KB4;
            continue;
        }
        word_t end = m->n[i].va + lsz(m->n[i].level);
        revoke(m, i, rights, own);
        p = end;
    }
}

/* --- the kernel's state as a model ------------------------------------------------------- */
struct kleaf {
    struct mapnode *node;
    int idx;
};
static struct kleaf kl[MAXN];
static int nkl;
static unsigned build_problems;

static void collect(struct space *s, pte_t *pte, struct mapnode **slot, unsigned level, word_t va, void *ctx)
{
    struct model *m = ctx;
    int si = 0;
    while (si < NSP && sp[si] != s)
        si++;
    if (!*slot || !in_win(si, va) || !in_win(si, va + lsz((int)level) - 1) || level > 1 || m->nn == MAXN) {
        build_problems++;
        printf("FAIL kernel state: %s has a leaf at %#lx (level %u, %s) outside its window or unexpected\n",
               spname[si], va, level, *slot ? "with node" : "no node");
        return;
    }
    paddr_t frame = *pte & PTE_ADDR & ~(lsz((int)level) - 1);
    int i = m->nn++;
    m->n[i] = (struct mn){ si, (int)level, va, frame, h_rights_of(*pte), -1, -1, -1, -1, true };
    m->alive++;
    set_pages(m, i, i);
    kl[nkl++] = (struct kleaf){ *slot, i };
}

static int cmp_kl(const void *a, const void *b)
{
    const struct mapnode *x = ((const struct kleaf *)a)->node, *y = ((const struct kleaf *)b)->node;
    return x < y ? -1 : x > y;
}

static int find_kl(const struct mapnode *n)
{
    int lo = 0, hi = nkl;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (kl[mid].node == n)
            return kl[mid].idx;
        if (kl[mid].node < n)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

static int region_state(struct space *s, word_t va)
{
    pte_t e = s->arch.pml4[pt_index(va, 3)];
    if (!(e & PTE_P))
        return RG_EMPTY;
    pte_t *t = phys_to_virt(e & PTE_ADDR);
    e = t[pt_index(va, 2)];
    if (!(e & PTE_P))
        return RG_EMPTY;
    if (e & PTE_PS)
        return RG_LEAF;
    t = phys_to_virt(e & PTE_ADDR);
    e = t[pt_index(va, 1)];
    if (!(e & PTE_P))
        return RG_EMPTY;
    return (e & PTE_PS) ? RG_LEAF : RG_TABLE;
}

static void build(struct model *m)
{
    m->nn = m->alive = 0;
    m->overflow = false;
    nkl = 0;
    memset(m->pm, 0xFF, sizeof(m->pm));
    for (int s = 0; s < NSP; s++) {
        h_walk(sp[s], collect, m);
        for (int r = 0; r < (int)NRG; r++)
            m->rg[s][r] = (uint8_t)region_state(sp[s], wbase[s] + r * MB2);
    }
    if (nkl > 1)
        qsort(kl, nkl, sizeof(kl[0]), cmp_kl);
    for (int k = 0; k < nkl; k++) {
        struct mapnode *n = kl[k].node;
        int p = n->parent ? find_kl(n->parent) : -1;
        if (n->parent && p < 0) {
            build_problems++;
            printf("FAIL kernel state: the node at %s %#lx has a parent that is in no page table\n",
                   spname[m->n[kl[k].idx].sp], m->n[kl[k].idx].va);
        }
        link(m, p, kl[k].idx);
    }
}

/* --- operations ---------------------------------------------------------------------------- */
enum { OP_MAP, OP_UNMAP, OP_FAULT };
struct op {
    int kind, src, dst;
    word_t sva, dva, size;
    unsigned rights;
    bool flag;                  /* grant (map) or own (unmap) */
};

static void op_str(const struct op *o, char *buf, size_t n)
{
    if (o->kind == OP_MAP)
        snprintf(buf, n, "%s %s %#lx -> %s %#lx size %#lx rights %u", o->flag ? "grant" : "map",
                 spname[o->src], o->sva, spname[o->dst], o->dva, o->size, o->rights);
    else if (o->kind == OP_UNMAP)
        snprintf(buf, n, "unmap %s %#lx size %#lx rights %u%s", spname[o->src], o->sva, o->size, o->rights,
                 o->flag ? " own" : "");
    else
        snprintf(buf, n, "sigma0 fault %#lx", o->sva);
}

static uint64_t rng;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static word_t rnd_size(bool mixed)
{
    static const word_t mixed_sizes[] = { KB4, 2 * KB4, 0x100000, MB2, MB2, MB2, 2 * MB2, 2 * MB2 };
    static const word_t small_sizes[] = { KB4, KB4, 2 * KB4, 4 * KB4, 0x10000 };
    return mixed ? mixed_sizes[rnd() % 8] : small_sizes[rnd() % 5];
}

static word_t rnd_in(int s, word_t size) { return wbase[s] + (rnd() % (WIN / size)) * size; }

static struct op last_map;

static struct op gen(bool mixed)
{
    struct op o = { 0 };
    unsigned k = (unsigned)(rnd() % 100);
    if (k < 6 && last_map.size) {
        /* the same map again, other rights: the same pages onto existing mappings */
        o = last_map;
        o.rights = 4 | (unsigned)(rnd() % 4);
        o.flag = false;
        return o;
    }
    if (k < 8) {
        o.kind = OP_FAULT;
        o.sva = wbase[0] + (rnd() % WIN);
        return o;
    }
    o.size = rnd_size(mixed);
    o.rights = rnd() % 4 ? (4 | (unsigned)(rnd() % 4)) : (unsigned)(rnd() % 8);
    if (k < 55) {
        o.kind = OP_MAP;
        o.src = rnd() % 3 == 0 ? 0 : (int)(rnd() % NSP);
        o.dst = 1 + (int)(rnd() % (NSP - 1));
        o.sva = rnd_in(o.src, o.size);
        o.dva = rnd_in(o.dst, o.size);
        o.flag = rnd() % 4 == 0 && !(o.src == 0 && rnd() % 4);
        last_map = o;
    } else {
        o.kind = OP_UNMAP;
        o.src = rnd() % 5 == 0 ? 0 : (int)(rnd() % NSP);
        o.sva = rnd_in(o.src, o.size);
        o.flag = rnd() % 2;
        if (o.src == 0 && o.flag && rnd() % 3)
            o.flag = false;     /* sigma0 flushing its own roots: rarer */
    }
    return o;
}

/* --- comparison -------------------------------------------------------------------------- */
struct pinfo {
    bool present;
    paddr_t frame;
    unsigned rights;
    int level;
    int psp;                    /* parent page: space (-1 root) and address */
    word_t pva;
};

static struct pinfo page_info(struct model *m, int s, word_t va)
{
    struct pinfo p = { 0 };
    p.psp = -1;
    int i = leaf_at(m, s, va);
    if (i < 0)
        return p;
    struct mn *x = &m->n[i];
    p.present = true;
    p.frame = x->frame + ((va - x->va) & ~(KB4 - 1));
    p.rights = x->rights;
    p.level = x->level;
    if (x->parent >= 0) {
        struct mn *y = &m->n[x->parent];
        p.psp = y->sp;
        p.pva = (y->va + (p.frame - y->frame)) & ~(KB4 - 1);
    }
    return p;
}

static void pinfo_str(struct pinfo p, char *buf, size_t n)
{
    if (!p.present)
        snprintf(buf, n, "absent");
    else if (p.psp < 0)
        snprintf(buf, n, "frame %#lx rights %u level %d root", p.frame, p.rights, p.level);
    else
        snprintf(buf, n, "frame %#lx rights %u level %d from %s %#lx", p.frame, p.rights, p.level,
                 spname[p.psp], p.pva);
}

static struct pinfo pre[NSP][NPG];

static unsigned compare(unsigned opno, const char *desc)
{
    unsigned bad = 0;
    for (int s = 0; s < NSP; s++)
        for (word_t va = wbase[s]; va < wbase[s] + WIN; va += KB4) {
            struct pinfo want = page_info(&P, s, va), got = page_info(&K, s, va);
            bool same = want.present == got.present &&
                        (!want.present || (want.frame == got.frame && want.rights == got.rights &&
                                           want.level == got.level && want.psp == got.psp &&
                                           want.pva == got.pva));
            if (!same) {
                if (++bad <= 12) {
                    char w[128], g[128];
                    pinfo_str(want, w, sizeof(w));
                    pinfo_str(got, g, sizeof(g));
                    printf("FAIL op %u (%s): %s %#lx: expected %s; kernel has %s\n", opno, desc, spname[s], va, w, g);
                }
            }
            struct pinfo old = pre[s][pg(s, va)];
            if (old.present && (!got.present || got.frame != old.frame || (old.rights & ~got.rights)) &&
                !h_inval_covers(sp[s], va, KB4)) {
                if (++bad <= 12)
                    printf("FAIL op %u (%s): %s %#lx lost access but its TLB entry was not invalidated\n", opno,
                           desc, spname[s], va);
            }
        }
    if (P.alive != K.alive || (word_t)K.alive != mapdb_node_count()) {
        bad++;
        printf("FAIL op %u (%s): model has %d mappings, the page tables %d, mapdb_node_count() %lu\n", opno, desc,
               P.alive, K.alive, mapdb_node_count());
    }
    return bad;
}

/* --- main -------------------------------------------------------------------------------- */
int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc != 4 || (strcmp(argv[1], "mixed") && strcmp(argv[1], "small"))) {
        fprintf(stderr, "usage: %s mixed|small SEED OPS\n", argv[0]);
        return 2;
    }
    bool mixed = !strcmp(argv[1], "mixed");
    rng = 0x9E3779B97F4A7C15ull ^ (strtoull(argv[2], NULL, 0) * 0xBF58476D1CE4E5B9ull);
    unsigned nops = (unsigned)strtoul(argv[3], NULL, 0);
    h_init();
    h_reserve(RESERVED_FRAME, RESERVED_FRAME + KB4);
    word_t nodes0 = mapdb_node_count(), free0 = kmem_free_bytes();
    for (int s = 0; s < NSP; s++) {
        sp[s] = h_space_new(s == 0);
        h_name(sp[s], spname[s]);
    }
    static struct op hist[8];
    unsigned bad = 0, done = 0, counts[3] = { 0 }, max_nodes = 0, max_big = 0;
    for (unsigned opno = 0; done < nops && !bad; opno++) {
        build_problems = 0;
        build(&P);
        if (build_problems)
            break;
        struct op o = gen(mixed);
        for (int s = 0; s < NSP; s++)
            for (word_t va = wbase[s]; va < wbase[s] + WIN; va += KB4)
                pre[s][pg(s, va)] = page_info(&P, s, va);
        bool fault_ok = false;
        if (o.kind == OP_MAP)
            map(&P, o.src, o.sva, o.dst, o.dva, o.size, o.rights, o.flag);
        else if (o.kind == OP_UNMAP)
            unmap(&P, o.src, o.sva, o.size, o.rights, o.flag);
        else {
            if (leaf_at(&P, 0, o.sva) < 0)
                sigma0_map_page(&P, o.sva);
            fault_ok = leaf_at(&P, 0, o.sva) >= 0;
        }
        if (P.overflow) {
            printf("FAIL model overflow\n");
            bad++;
            break;
        }
        char desc[160];
        op_str(&o, desc, sizeof(desc));
        h_inval_reset();
        if (o.kind == OP_MAP) {
            enum map_result r = mapdb_map(sp[o.src], o.sva, sp[o.dst], o.dva, o.size, o.rights, o.flag);
            if (r != MAP_OK) {
                bad++;
                printf("FAIL op %u (%s): returned %d\n", done, desc, r);
            }
        } else if (o.kind == OP_UNMAP) {
            mapdb_unmap(sp[o.src], o.sva, o.size, o.rights, o.flag);
        } else {
            bool r = mapdb_sigma0_fault(sp[0], o.sva, rnd() % 2);
            if (r != fault_ok) {
                bad++;
                printf("FAIL op %u (%s): returned %d, expected %d\n", done, desc, r, fault_ok);
            }
        }
        counts[o.kind]++;
        hist[done % 8] = o;
        char when[200];
        snprintf(when, sizeof(when), "after op %u (%s)", done, desc);
        bad += h_check_tree(sp, NSP, when);
        build_problems = 0;
        build(&K);
        bad += build_problems;
        if (!bad)
            bad += compare(done, desc);
        done++;
        unsigned big = 0;
        for (int i = 0; i < K.nn; i++)
            big += K.n[i].alive && K.n[i].level == 1;
        max_nodes = MAX(max_nodes, (unsigned)K.alive);
        max_big = MAX(max_big, big);
    }
    if (bad) {
        printf("     the last operations (seed %s, variant %s):\n", argv[2], argv[1]);
        unsigned first = done > 8 ? done - 8 : 0;
        for (unsigned i = first; i < done; i++) {
            char d[160];
            op_str(&hist[i % 8], d, sizeof(d));
            printf("     op %u: %s\n", i, d);
        }
    }
    CHECK(bad == 0, "variant %s seed %s: %u operations (%u map/grant, %u unmap, %u sigma0 faults; up to %u mappings, %u of 2 MiB) agree with the model", argv[1], argv[2], done,
          counts[OP_MAP], counts[OP_UNMAP], counts[OP_FAULT], max_nodes, max_big);
    if (!bad) {
        for (int s = 0; s < NSP; s++)
            h_space_destroy(sp[s]);
        CHECK_EQ(mapdb_node_count(), nodes0, "no mapping node leaked");
        CHECK_EQ(kmem_free_bytes(), free0, "all kernel memory back in the pool");
    }
    return uc_failed ? 1 : 0;
}
