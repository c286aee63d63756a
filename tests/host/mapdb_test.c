/* Directed host tests of the mapping database (kernel/mapdb.c with the real pagetable.c,
 * slab.c and kmem.c on the arena of kshim/).  The expected behaviour is the contract's
 * (§4.4.8 Unmap, §5.5 map/grant, §6.6/§7.5 σ0) and the model of 004 appendix A: every mapping
 * is derived from the mapping it was made from, Unmap revokes from everything derived, grant
 * moves the mapping with its derivations.  Every case ends by flushing all spaces and checking
 * that no mapping node and no page of kernel memory leaked. */
#include "unit_check.h"
#include "mapdb_harness.h"

#define KB4 0x1000ul
#define MB2 0x200000ul
#define MB4 0x400000ul

static struct space *S0, *A, *B, *C, *D;
static struct space *all[5];
static word_t nodes0, free0;

static void begin(void)
{
    h_init();
    h_reserve_clear();
    h_phys_limit = 1ul << 32;
    h_has_1g = false;
    kmem_fail_after(-1);
    nodes0 = mapdb_node_count();
    free0 = kmem_free_bytes();
    S0 = h_space_new(true);
    A = h_space_new(false);
    B = h_space_new(false);
    C = h_space_new(false);
    D = h_space_new(false);
    all[0] = S0; all[1] = A; all[2] = B; all[3] = C; all[4] = D;
    h_name(S0, "sigma0"); h_name(A, "A"); h_name(B, "B"); h_name(C, "C"); h_name(D, "D");
    h_inval_reset();
}

#define TREE(when) CHECK(h_check_tree(all, 5, when) == 0, "mapping tree and page tables consistent: %s", when)

static void end(void)
{
    kmem_fail_after(-1);
    TREE("end of case");
    for (unsigned i = 0; i < 5; i++)
        h_space_destroy(all[i]);
    CHECK_EQ(mapdb_node_count(), nodes0, "all mapping nodes freed after flushing every space (no leak)");
    CHECK_EQ(kmem_free_bytes(), free0, "all kernel memory (tables, slabs, PML4s) back in the pool");
}

static struct mapnode *node(struct space *s, word_t va)
{
    struct h_page p = h_get(s, va);
    return p.present ? p.node : NULL;
}

static void page_desc(char *buf, size_t n, struct h_page p)
{
    if (!p.present)
        snprintf(buf, n, "absent");
    else
        snprintf(buf, n, "frame %#lx rights %u level %u", p.frame, p.rights, p.level);
}

/* level < 0: any level */
static void expect_map(struct space *s, word_t va, paddr_t frame, unsigned rights, int level, const char *what)
{
    struct h_page p = h_get(s, va);
    char got[96], lvl[32] = "";
    page_desc(got, sizeof(got), p);
    if (level >= 0)
        snprintf(lvl, sizeof(lvl), " level %d", level);
    CHECK(p.present && p.frame == frame && p.rights == rights && (level < 0 || p.level == (unsigned)level),
          "%s: %s %#lx -> frame %#lx rights %u%s (found: %s)", what, h_name_of(s), va, frame, rights, lvl, got);
}

static void expect_none(struct space *s, word_t va, const char *what)
{
    struct h_page p = h_get(s, va);
    char got[96];
    page_desc(got, sizeof(got), p);
    CHECK(!p.present, "%s: %s %#lx unmapped (found: %s)", what, h_name_of(s), va, got);
}

/* Every 4 KiB page of [va, va + size) maps frame + offset with `rights` (level < 0: any). */
static void expect_range(struct space *s, word_t va, word_t size, paddr_t frame, unsigned rights, int level,
                         const char *what)
{
    unsigned bad = 0;
    char first[160] = "";
    for (word_t off = 0; off < size; off += KB4) {
        struct h_page p = h_get(s, va + off);
        if (!(p.present && p.frame == frame + off && p.rights == rights && (level < 0 || p.level == (unsigned)level))) {
            if (!bad) {
                char got[96];
                page_desc(got, sizeof(got), p);
                snprintf(first, sizeof(first), "first at %#lx: %s", va + off, got);
            }
            bad++;
        }
    }
    CHECK(bad == 0, "%s: %s [%#lx, %#lx) -> frames from %#lx, rights %u (%u of %lu pages wrong; %s)", what,
          h_name_of(s), va, va + size, frame, rights, bad, size / KB4, bad ? first : "all fine");
}

static void expect_range_none(struct space *s, word_t va, word_t size, const char *what)
{
    unsigned bad = 0;
    word_t first = 0;
    for (word_t off = 0; off < size; off += KB4)
        if (h_get(s, va + off).present) {
            if (!bad)
                first = va + off;
            bad++;
        }
    CHECK(bad == 0, "%s: %s [%#lx, %#lx) unmapped (%u pages mapped, first %#lx)", what, h_name_of(s), va,
          va + size, bad, first);
}

/* The node of (s, va) was derived from the node of (ps, pva) (ps NULL: is a root). */
static void expect_parent(struct space *s, word_t va, struct space *ps, word_t pva, const char *what)
{
    struct mapnode *n = node(s, va);
    struct mapnode *p = ps ? node(ps, pva) : NULL;
    if (ps)
        CHECK(n && p && n->parent == p, "%s: %s %#lx is derived from %s %#lx", what, h_name_of(s), va,
              h_name_of(ps), pva);
    else
        CHECK(n && !n->parent, "%s: %s %#lx is a root", what, h_name_of(s), va);
}

static void expect_tlb(struct space *s, word_t va, word_t size, const char *what)
{
    CHECK(h_inval_covers(s, va, size), "%s: TLB of %s invalidated for [%#lx, %#lx)", what, h_name_of(s),
          va, va + size);
}

#define MAP(src, sva, dst, dva, size, rights)                                                   \
    CHECK_EQ(mapdb_map(src, sva, dst, dva, size, rights, false), MAP_OK, "map %s %#lx -> %s %#lx, %#lx bytes, rights %u", \
             h_name_of(src), (word_t)(sva), h_name_of(dst), (word_t)(dva), (word_t)(size), (unsigned)(rights))
#define GRANT(src, sva, dst, dva, size, rights)                                                 \
    CHECK_EQ(mapdb_map(src, sva, dst, dva, size, rights, true), MAP_OK, "grant %s %#lx -> %s %#lx, %#lx bytes, rights %u", \
             h_name_of(src), (word_t)(sva), h_name_of(dst), (word_t)(dva), (word_t)(size), (unsigned)(rights))

/* ------------------------------------------------------------------------------------------ */

static void sigma0_roots(void)
{
    begin();
    CHECK(mapdb_sigma0_fault(S0, 0x812345, false), "sigma0 fault at 0x812345 succeeds");
    expect_map(S0, 0x812345, 0x812000, 7, 1, "identity 2 MiB root (region free of reserved frames)");
    CHECK_EQ(h_get(S0, 0x812345).leaf_va, 0x800000, "the root covers [8 MiB, 10 MiB)");
    expect_parent(S0, 0x800000, NULL, 0, "root");
    CHECK_EQ(mapdb_node_count(), nodes0 + 1, "one node for the root");
    CHECK(mapdb_sigma0_fault(S0, 0x9FF000, true), "second fault in the same 2 MiB");
    CHECK_EQ(mapdb_node_count(), nodes0 + 1, "no second node for an existing root");
    CHECK(mapdb_sigma0_fault(S0, 0xA00000, false), "fault in the next 2 MiB");
    CHECK_EQ(mapdb_node_count(), nodes0 + 2, "a second root");

    h_reserve(0x1203000, 0x1204000);
    CHECK(mapdb_sigma0_fault(S0, 0x1200000, false), "fault next to a reserved frame");
    expect_map(S0, 0x1200000, 0x1200000, 7, 0, "4 KiB root where a reserved frame lies in the 2 MiB");
    CHECK(!mapdb_sigma0_fault(S0, 0x1203000, false), "fault on the reserved frame fails");
    expect_none(S0, 0x1203000, "reserved frame");
    CHECK(mapdb_sigma0_fault(S0, 0x1204000, false), "fault after the reserved frame");
    expect_map(S0, 0x1204000, 0x1204000, 7, 0, "4 KiB root after the reserved frame");
    CHECK(mapdb_sigma0_fault(S0, 0x11FF000, false), "fault in the 2 MiB below");
    expect_map(S0, 0x11FF000, 0x11FF000, 7, 1, "that one is a 2 MiB root again");
    CHECK(!mapdb_sigma0_fault(S0, H_POOL_PHYS + 0x5000, false), "fault in the kernel pool fails");
    expect_none(S0, H_POOL_PHYS + 0x5000, "kernel pool");

    h_phys_limit = 0x60100000;
    CHECK(mapdb_sigma0_fault(S0, 0x60000000, false), "fault below the addressable limit");
    expect_map(S0, 0x60000000, 0x60000000, 7, 0, "4 KiB root: the 2 MiB reaches beyond the limit");
    CHECK(!mapdb_sigma0_fault(S0, 0x60100000, false), "fault at the limit fails");
    CHECK(!mapdb_sigma0_fault(S0, 0x7FFFFFFFF000ul, false), "fault far beyond the limit fails");
    TREE("sigma0 roots");
    end();
}

static void map_from_sigma0(void)
{
    begin();
    h_reserve(0x2300000, 0x2301000);
    MAP(S0, 0x2000000, A, 0x10000000, MB4, 7);
    expect_map(A, 0x10000000, 0x2000000, 7, 1, "first 2 MiB as one 2 MiB page");
    expect_parent(A, 0x10000000, S0, 0x2000000, "derived from sigma0's 2 MiB root");
    CHECK_EQ(h_get(S0, 0x2000000).level, 1, "sigma0 root created on demand as 2 MiB");
    expect_range(A, 0x10200000, 0x100000, 0x2200000, 7, 0, "second 2 MiB in 4 KiB pages (reserved frame inside)");
    expect_none(A, 0x10300000, "the reserved frame is not mapped");
    expect_range(A, 0x10301000, 0x100000 - KB4, 0x2301000, 7, 0, "pages after the reserved frame");
    expect_parent(A, 0x10301000, S0, 0x2301000, "4 KiB mapping derived from a 4 KiB root");
    CHECK_EQ(mapdb_node_count(), nodes0 + 2 + 2 * 511, "nodes: 1 + 511 roots, 1 + 511 mappings");
    TREE("map from sigma0");
    end();
}

static void rights_intersection(void)
{
    begin();
    MAP(S0, 0x3000000, A, 0x10000000, KB4, H_R);
    MAP(S0, 0x3001000, A, 0x10001000, KB4, H_R | H_X);
    MAP(S0, 0x3002000, A, 0x10002000, KB4, 7);
    expect_map(A, 0x10000000, 0x3000000, H_R, 0, "r from sigma0");
    expect_map(A, 0x10001000, 0x3001000, H_R | H_X, 0, "rx from sigma0");
    CHECK(!(*h_get(A, 0x10000000).pte & PTE_W) && (*h_get(A, 0x10000000).pte & PTE_NX), "r: not writable, NX set");
    MAP(A, 0x10000000, B, 0x20000000, 3 * KB4, 7);
    expect_map(B, 0x20000000, 0x3000000, H_R, 0, "rwx requested from an r page: r");
    expect_map(B, 0x20001000, 0x3001000, H_R | H_X, 0, "rwx requested from an rx page: rx");
    expect_map(B, 0x20002000, 0x3002000, 7, 0, "rwx requested from an rwx page: rwx");
    MAP(A, 0x10000000, C, 0x30000000, 3 * KB4, H_R | H_W);
    expect_map(C, 0x30000000, 0x3000000, H_R, 0, "rw requested from r: r");
    expect_map(C, 0x30001000, 0x3001000, H_R, 0, "rw requested from rx: r");
    expect_map(C, 0x30002000, 0x3002000, H_R | H_W, 0, "rw requested from rwx: rw");
    CHECK((*h_get(C, 0x30002000).pte & PTE_W) && (*h_get(C, 0x30002000).pte & PTE_NX), "rw: writable, NX set");
    MAP(A, 0x10002000, D, 0x50000000, KB4, H_W | H_X);
    expect_none(D, 0x50000000, "wx without r cannot be expressed on x86 (r = present): nothing mapped");
    TREE("rights");
    end();
}

static void chain_sizes(void)
{
    begin();
    MAP(S0, 0x4000000, A, 0x10000000, MB2, 7);
    expect_map(A, 0x10000000, 0x4000000, 7, 1, "sigma0 -> A: 2 MiB page");
    MAP(A, 0x10000000, B, 0x20200000, MB2, H_R | H_W);
    expect_map(B, 0x20200000, 0x4000000, H_R | H_W, 1, "A -> B: whole 2 MiB, aligned: 2 MiB page");
    expect_range(B, 0x20200000, MB2, 0x4000000, H_R | H_W, 1, "A -> B: all of it");
    expect_parent(B, 0x20200000, A, 0x10000000, "B's 2 MiB derived from A's");
    MAP(A, 0x10010000, B, 0x20600000, 0x10000, H_R | H_X);
    expect_range(B, 0x20600000, 0x10000, 0x4010000, H_R | H_X, 0, "64 KiB from inside A's 2 MiB: 4 KiB pages");
    expect_parent(B, 0x2060F000, A, 0x10000000, "4 KiB piece derived from A's 2 MiB node");
    MAP(A, 0x10100000, B, 0x20900000, 0x100000, 7);
    expect_range(B, 0x20900000, 0x100000, 0x4100000, 7, 0, "1 MiB at a 1 MiB-aligned target: 4 KiB pages");
    MAP(B, 0x20205000, C, 0x30000000, 2 * KB4, 7);
    expect_range(C, 0x30000000, 2 * KB4, 0x4005000, H_R | H_W, 0, "B -> C: offset 0x5000 into B's 2 MiB, rights of B");
    expect_parent(C, 0x30001000, B, 0x20200000, "C derived from B's 2 MiB node");
    MAP(C, 0x30000000, D, 0x50000000, KB4, 7);
    expect_map(D, 0x50000000, 0x4005000, H_R | H_W, 0, "C -> D: same frame, rights of C");
    expect_parent(D, 0x50000000, C, 0x30000000, "D derived from C");
    MAP(A, 0x10000000, B, 0x20C00000, MB4, 7);
    expect_range(B, 0x20C00000, MB2, 0x4000000, 7, 1, "4 MiB from A where A has 2 MiB: the mapped part");
    expect_range_none(B, 0x20E00000, MB2, "holes stay holes");
    CHECK_EQ(mapdb_node_count(), nodes0 + 1 + 1 + 1 + 16 + 256 + 2 + 1 + 1, "node count");
    TREE("chain");
    end();
}

static void unmap_levels(void)
{
    begin();
    const paddr_t P = 0x5000000;
    MAP(S0, P, A, 0x10000000, KB4, 7);
    MAP(A, 0x10000000, B, 0x20000000, KB4, 7);
    MAP(B, 0x20000000, C, 0x30000000, KB4, 7);
    MAP(S0, P, D, 0x50000000, KB4, 7);
    MAP(S0, P + KB4, A, 0x10001000, KB4, 7);
    MAP(A, 0x10001000, B, 0x20001000, KB4, 7);
    word_t n0 = mapdb_node_count();

    h_inval_reset();
    mapdb_unmap(A, 0x10000000, KB4, H_W, false);
    expect_map(A, 0x10000000, P, 7, 0, "revoke w from derived: A keeps its own rights");
    expect_map(B, 0x20000000, P, H_R | H_X, 0, "... B loses w");
    expect_map(C, 0x30000000, P, H_R | H_X, 0, "... C (derived from B) loses w");
    expect_map(D, 0x50000000, P, 7, 0, "... D (sibling from sigma0) untouched");
    expect_map(B, 0x20001000, P + KB4, 7, 0, "... B's neighbouring page untouched");
    expect_tlb(B, 0x20000000, KB4, "w revoked");
    expect_tlb(C, 0x30000000, KB4, "w revoked");

    h_inval_reset();
    mapdb_unmap(A, 0x10000000, KB4, H_X, true);
    expect_map(A, 0x10000000, P, H_R | H_W, 0, "revoke x including own: A loses x");
    expect_map(B, 0x20000000, P, H_R, 0, "... B has only r left");
    expect_map(C, 0x30000000, P, H_R, 0, "... C has only r left");
    expect_map(D, 0x50000000, P, 7, 0, "... D untouched");
    expect_tlb(A, 0x10000000, KB4, "own x revoked");

    mapdb_unmap(A, 0x10000000, KB4, 0, true);
    expect_map(B, 0x20000000, P, H_R, 0, "rights 0: a status query changes nothing");
    CHECK_EQ(mapdb_node_count(), n0, "no mapping removed so far");

    h_inval_reset();
    mapdb_unmap(B, 0x20000000, KB4, 7, false);
    expect_none(C, 0x30000000, "B flushes its derived mappings: C gone");
    expect_map(B, 0x20000000, P, H_R, 0, "... B keeps its own");
    expect_map(A, 0x10000000, P, H_R | H_W, 0, "... A (B's source) untouched");
    expect_tlb(C, 0x30000000, KB4, "C removed");
    CHECK_EQ(mapdb_node_count(), n0 - 1, "one node less");

    h_inval_reset();
    mapdb_unmap(A, 0x10000000, KB4, H_R, true);
    expect_none(A, 0x10000000, "revoking r including own removes A's mapping");
    expect_none(B, 0x20000000, "... and B's");
    expect_map(D, 0x50000000, P, 7, 0, "... D untouched");
    expect_map(S0, P, P, 7, -1, "... sigma0 keeps its identity mapping");
    expect_map(A, 0x10001000, P + KB4, 7, 0, "... A's next page untouched");
    expect_map(B, 0x20001000, P + KB4, 7, 0, "... B's next page untouched");
    expect_tlb(A, 0x10000000, KB4, "A removed");
    expect_tlb(B, 0x20000000, KB4, "B removed");

    MAP(S0, P, A, 0x10000000, KB4, 7);
    MAP(A, 0x10000000, B, 0x20000000, KB4, 7);
    mapdb_unmap(S0, P, KB4, 7, false);
    expect_none(A, 0x10000000, "sigma0 flushes the frame: A gone");
    expect_none(B, 0x20000000, "... B gone");
    expect_none(D, 0x50000000, "... D gone");
    expect_map(S0, P, P, 7, -1, "... sigma0's own mapping stays");
    expect_map(B, 0x20001000, P + KB4, 7, 0, "... other frames untouched");
    TREE("unmap levels");
    end();
}

static void unmap_range(void)
{
    begin();
    MAP(S0, 0x5200000, A, 0x10000000, 0x10000, 7);
    MAP(A, 0x10000000, B, 0x20000000, 0x10000, 7);
    mapdb_unmap(A, 0x10004000, 2 * KB4, 7, false);
    expect_range(B, 0x20000000, 4 * KB4, 0x5200000, 7, 0, "pages below the fpage stay");
    expect_range_none(B, 0x20004000, 2 * KB4, "the two pages of the fpage are gone");
    expect_range(B, 0x20006000, 10 * KB4, 0x5206000, 7, 0, "pages above the fpage stay");
    expect_range(A, 0x10000000, 0x10000, 0x5200000, 7, 0, "A keeps all its own pages");
    mapdb_unmap(A, 0x10000000, 0x10000, 7, true);
    expect_range_none(A, 0x10000000, 0x10000, "A flushes the whole 64 KiB with own");
    expect_range_none(B, 0x20000000, 0x10000, "... and B has nothing left");
    CHECK_EQ(mapdb_node_count(), nodes0 + 1, "only sigma0's root is left");
    TREE("unmap range");
    end();
}

static void grant(void)
{
    begin();
    const paddr_t P = 0x6000000;
    MAP(S0, P, A, 0x10000000, KB4, 7);
    MAP(A, 0x10000000, B, 0x20000000, KB4, 7);
    struct mapnode *na = node(A, 0x10000000), *root = node(S0, P);
    word_t n0 = mapdb_node_count();
    GRANT(A, 0x10000000, D, 0x50003000, KB4, 7);
    expect_none(A, 0x10000000, "grant: the sender loses the page");
    expect_map(D, 0x50003000, P, 7, 0, "grant: the receiver has it");
    CHECK(node(D, 0x50003000) == na, "grant moves the node itself");
    CHECK(na->parent == root, "the moved node keeps its place below sigma0's root");
    CHECK(node(B, 0x20000000) && node(B, 0x20000000)->parent == na, "B's mapping stays derived from the moved node");
    CHECK_EQ(mapdb_node_count(), n0, "grant creates no node");

    GRANT(D, 0x50003000, C, 0x30000000, KB4, H_R | H_X);
    expect_none(D, 0x50003000, "second grant: D loses it");
    expect_map(C, 0x30000000, P, H_R | H_X, 0, "granted with rx: receiver has rx");
    expect_map(B, 0x20000000, P, H_R | H_X, 0, "derived mappings lose the rights the grant dropped (w)");
    mapdb_unmap(S0, P, KB4, 7, false);
    expect_none(C, 0x30000000, "sigma0's flush reaches the granted mapping");
    expect_none(B, 0x20000000, "... and what was derived from it");

    /* 2 MiB */
    MAP(S0, 0x6200000, A, 0x10200000, MB2, 7);
    MAP(A, 0x10203000, B, 0x20003000, KB4, 7);
    struct mapnode *big = node(A, 0x10200000);
    GRANT(A, 0x10200000, D, 0x50200000, MB2, 7);
    expect_range_none(A, 0x10200000, MB2, "2 MiB grant: sender has nothing left");
    expect_map(D, 0x50200000, 0x6200000, 7, 1, "2 MiB grant: receiver has a 2 MiB page");
    CHECK(node(D, 0x50200000) == big, "the 2 MiB node moved");
    expect_parent(B, 0x20003000, D, 0x50200000, "4 KiB piece derived from the moved 2 MiB node");

    /* one page of a 2 MiB mapping */
    MAP(S0, 0x6400000, A, 0x10400000, MB2, 7);
    GRANT(A, 0x10405000, C, 0x30005000, KB4, 7);
    expect_none(A, 0x10405000, "granting one page of a 2 MiB mapping: that page leaves A");
    expect_range(A, 0x10400000, 5 * KB4, 0x6400000, 7, 0, "... the pages below stay (split)");
    expect_range(A, 0x10406000, MB2 - 6 * KB4, 0x6406000, 7, 0, "... the pages above stay (split)");
    expect_map(C, 0x30005000, 0x6405000, 7, 0, "... C has exactly that page");
    expect_parent(C, 0x30005000, S0, 0x6400000, "... derived from sigma0's root");
    TREE("grant");
    end();
}

static void remap_same_page(void)
{
    begin();
    const paddr_t P = 0x6600000;
    MAP(S0, P, A, 0x10000000, KB4, 7);
    MAP(A, 0x10000000, B, 0x20000000, KB4, H_R);
    struct mapnode *n = node(B, 0x20000000);
    word_t n0 = mapdb_node_count();
    MAP(A, 0x10000000, B, 0x20000000, KB4, H_R | H_W);
    expect_map(B, 0x20000000, P, H_R | H_W, 0, "same page again with rw: rights extended");
    CHECK(node(B, 0x20000000) == n && mapdb_node_count() == n0, "same node, no new node");
    MAP(A, 0x10000000, B, 0x20000000, KB4, H_R);
    expect_map(B, 0x20000000, P, H_R | H_W, 0, "same page again with r: rights stay (union, not replace)");
    MAP(A, 0x10000000, B, 0x20000000, KB4, H_R | H_X);
    expect_map(B, 0x20000000, P, 7, 0, "and with rx: rwx");
    TREE("remap");
    end();
}

/* The same page mapped again to the same place, but from a different source mapping. */
static void remap_same_page_other_source(void)
{
    begin();
    const paddr_t P = 0x6800000;
    MAP(S0, P, A, 0x10000000, KB4, H_R);            /* A: read-only */
    MAP(S0, P, D, 0x50000000, KB4, H_R | H_W);      /* D: read-write, a different mapping */
    MAP(A, 0x10000000, B, 0x20000000, KB4, 7);      /* B gets r, derived from A */
    expect_map(B, 0x20000000, P, H_R, 0, "B has r from A");
    MAP(D, 0x50000000, B, 0x20000000, KB4, 7);      /* D maps the same page to the same place */
    struct h_page pb = h_get(B, 0x20000000);
    printf("     B's mapping after D's map: rights %u, derived from %s\n", pb.rights,
           pb.node && pb.node->parent == node(A, 0x10000000) ? "A" :
           pb.node && pb.node->parent == node(D, 0x50000000) ? "D" : "?");
    TREE("after the same page from a second source");
    /* D revokes write access from everything derived from its page. */
    mapdb_unmap(D, 0x50000000, KB4, H_W, false);
    pb = h_get(B, 0x20000000);
    CHECK(!pb.present || !(pb.rights & H_W),
          "after D revokes w from its derived mappings, B cannot write the page (B: %s, rights %u)",
          pb.present ? "present" : "absent", pb.rights);
    end();
}

static void map_over_other_page(void)
{
    begin();
    MAP(S0, 0x7000000, A, 0x10000000, KB4, 7);
    MAP(S0, 0x7001000, A, 0x10001000, KB4, 7);
    MAP(A, 0x10000000, B, 0x20000000, KB4, 7);
    MAP(B, 0x20000000, C, 0x30000000, KB4, 7);
    word_t n0 = mapdb_node_count();
    h_inval_reset();
    MAP(A, 0x10001000, B, 0x20000000, KB4, H_R);
    expect_map(B, 0x20000000, 0x7001000, H_R, 0, "a different page over an existing mapping replaces it");
    expect_parent(B, 0x20000000, A, 0x10001000, "... derived from the new source");
    expect_none(C, 0x30000000, "... and what was derived from the old one is gone");
    expect_tlb(B, 0x20000000, KB4, "replaced");
    expect_tlb(C, 0x30000000, KB4, "removed");
    CHECK_EQ(mapdb_node_count(), n0 - 1, "two nodes removed, one created");
    TREE("map over");
    end();
}

static void map_over_size_structure(void)
{
    begin();
    MAP(S0, 0x7200000, A, 0x10000000, MB2, 7);
    MAP(A, 0x10000000, B, 0x20000000, MB2, 7);
    MAP(B, 0x20000000, C, 0x30000000, MB2, 7);
    expect_map(C, 0x30000000, 0x7200000, 7, 1, "C has a 2 MiB page derived from B's");
    MAP(S0, 0x7600000, A, 0x10400000, KB4, 7);
    MAP(A, 0x10400000, B, 0x20003000, KB4, 7);
    expect_map(B, 0x20003000, 0x7600000, 7, 0, "a 4 KiB page into B's 2 MiB mapping");
    expect_none(B, 0x20000000, "different size structure: B's old 2 MiB mapping is removed");
    expect_range_none(C, 0x30000000, MB2, "... with C's mapping derived from it");
    MAP(A, 0x10000000, B, 0x20000000, MB2, 7);
    expect_range(B, 0x20000000, MB2, 0x7200000, 7, -1, "a 2 MiB mapping over B's 4 KiB page: all of it mapped");
    expect_parent(B, 0x20003000, A, 0x10000000, "the former 4 KiB page now comes from A's 2 MiB");
    TREE("size structure");
    end();
}

static void partial_unmap_2m(void)
{
    begin();
    MAP(S0, 0x8000000, A, 0x10000000, MB2, 7);
    MAP(A, 0x10000000, B, 0x20000000, MB2, H_R | H_W);
    MAP(B, 0x20007000, C, 0x30000000, KB4, 7);
    MAP(A, 0x10009000, D, 0x50000000, KB4, H_R | H_X);
    h_inval_reset();
    mapdb_unmap(A, 0x10003000, KB4, 7, true);
    expect_none(A, 0x10003000, "unmapping one page of A's 2 MiB: that page is gone");
    expect_range(A, 0x10000000, 3 * KB4, 0x8000000, 7, 0, "... the rest stays, in 4 KiB pages (below)");
    expect_range(A, 0x10004000, MB2 - 4 * KB4, 0x8004000, 7, 0, "... the rest stays (above)");
    expect_parent(A, 0x10004000, S0, 0x8000000, "... still derived from sigma0's root");
    expect_none(B, 0x20003000, "B's 2 MiB derived from A's loses the same page");
    expect_range(B, 0x20004000, MB2 - 4 * KB4, 0x8004000, H_R | H_W, 0, "... and keeps the rest");
    expect_parent(B, 0x20005000, A, 0x10005000, "B's pieces derived from A's corresponding pieces");
    expect_map(C, 0x30000000, 0x8007000, H_R | H_W, 0, "C's page (from B) stays");
    expect_parent(C, 0x30000000, B, 0x20007000, "... now derived from B's 4 KiB piece");
    expect_map(D, 0x50000000, 0x8009000, H_R | H_X, 0, "D's page (from A) stays");
    expect_parent(D, 0x50000000, A, 0x10009000, "... now derived from A's 4 KiB piece");
    expect_tlb(A, 0x10003000, KB4, "A's page");
    expect_tlb(B, 0x20003000, KB4, "B's page");
    CHECK_EQ(mapdb_node_count(), nodes0 + 1 + 511 + 511 + 2, "node count after the split");
    TREE("after partial unmap");
    mapdb_unmap(A, 0x10007000, KB4, 7, false);
    expect_none(B, 0x20007000, "unmapping A's piece 7 (derived only) removes B's piece 7");
    expect_none(C, 0x30000000, "... and C's page derived from it");
    expect_map(A, 0x10007000, 0x8007000, 7, 0, "... A keeps its own piece");
    expect_map(B, 0x20008000, 0x8008000, H_R | H_W, 0, "... B keeps piece 8");
    TREE("partial unmap");
    end();
}

/* A 2 MiB mapping with two derived 2 MiB mappings: both must be split. */
static void partial_unmap_2m_two_children(void)
{
    begin();
    MAP(S0, 0x8400000, A, 0x10000000, MB2, 7);
    MAP(A, 0x10000000, B, 0x20000000, MB2, 7);
    MAP(A, 0x10000000, C, 0x30000000, MB2, 7);
    mapdb_unmap(A, 0x10005000, KB4, 7, false);
    expect_none(B, 0x20005000, "B (first derived 2 MiB) loses page 5");
    expect_none(C, 0x30005000, "C (second derived 2 MiB) loses page 5");
    expect_map(B, 0x20004000, 0x8404000, 7, 0, "B keeps page 4, as a 4 KiB page");
    expect_map(C, 0x30006000, 0x8406000, 7, 0, "C keeps page 6, as a 4 KiB page");
    expect_map(A, 0x10005000, 0x8405000, 7, 0, "A keeps its own page 5");
    TREE("two derived 2 MiB mappings");
    end();
}

/* sigma0 -> A -> B -> C, all 2 MiB; sigma0 revokes one 4 KiB page. */
static void partial_unmap_2m_chain(void)
{
    begin();
    MAP(S0, 0x8600000, A, 0x10000000, MB2, 7);
    MAP(A, 0x10000000, B, 0x20000000, MB2, 7);
    MAP(B, 0x20000000, C, 0x30000000, MB2, 7);
    mapdb_unmap(S0, 0x8601000, KB4, 7, false);
    expect_none(A, 0x10001000, "A loses page 1");
    expect_none(B, 0x20001000, "B loses page 1");
    expect_none(C, 0x30001000, "C loses page 1");
    expect_range(C, 0x30002000, MB2 - 2 * KB4, 0x8602000, 7, 0, "C keeps the rest");
    expect_parent(C, 0x30002000, B, 0x20002000, "C's pieces derived from B's pieces");
    expect_parent(B, 0x20002000, A, 0x10002000, "B's pieces derived from A's pieces");
    expect_map(S0, 0x8601000, 0x8601000, 7, -1, "sigma0 keeps its page");
    TREE("2 MiB chain");
    end();
}

static void status_bits(void)
{
    begin();
    const paddr_t P = 0x8800000;
    MAP(S0, P, A, 0x10000000, KB4, 7);
    MAP(A, 0x10000000, B, 0x20000000, KB4, 7);
    MAP(A, 0x10000000, C, 0x30000000, KB4, H_R | H_W);
    CHECK_EQ(mapdb_unmap(A, 0x10000000, KB4, 0, false), 0, "nothing accessed: status 0");
    h_touch(B, 0x20000000, true, false);
    CHECK_EQ(mapdb_unmap(A, 0x10000000, KB4, 0, false), H_R | H_X,
             "B read (executable mapping): r reported with x (decision 12)");
    CHECK(!(*h_get(B, 0x20000000).pte & (PTE_A | PTE_D)), "the status is reset in B's entry");
    CHECK_EQ(mapdb_unmap(A, 0x10000000, KB4, 0, false), 0, "second query: 0");
    h_touch(C, 0x30000000, true, true);
    CHECK_EQ(mapdb_unmap(A, 0x10000000, KB4, 0, false), H_R | H_W, "C written (not executable): rw");
    h_touch(A, 0x10000000, true, true);
    CHECK_EQ(mapdb_unmap(A, 0x10000000, KB4, 0, true) & 7, 7, "own mapping accessed, queried with own: rwx");
    CHECK(!(*h_get(A, 0x10000000).pte & (PTE_A | PTE_D)), "own status reset");
    h_touch(C, 0x30000000, false, true);
    unsigned st = mapdb_unmap(A, 0x10000000, KB4, 7, false);
    CHECK(st & H_W, "status of removed mappings is reported (w from C): %u", st);
    expect_none(C, 0x30000000, "C removed");

    MAP(S0, 0x8A00000, A, 0x10200000, MB2, 7);
    MAP(A, 0x10200000, B, 0x20200000, MB2, 7);
    h_touch(B, 0x20200000, true, false);
    CHECK_EQ(mapdb_unmap(A, 0x10205000, KB4, 0, false), H_R | H_X,
             "status of one page of a 2 MiB mapping (after the split)");
    CHECK_EQ(mapdb_unmap(A, 0x10205000, KB4, 0, false), 0, "... reset for that page");
    CHECK_EQ(mapdb_unmap(A, 0x10200000, MB2, 0, false), H_R | H_X, "... the other pages keep theirs");
    CHECK_EQ(mapdb_unmap(A, 0x10200000, MB2, 0, false), 0, "... until queried");
    TREE("status");
    end();
}

static void grant_keeps_status(void)
{
    begin();
    const paddr_t P = 0x8C00000;
    MAP(S0, P, A, 0x10000000, KB4, 7);
    MAP(A, 0x10000000, B, 0x20000000, KB4, 7);
    h_touch(B, 0x20000000, true, true);
    GRANT(B, 0x20000000, C, 0x30000000, KB4, 7);
    CHECK_EQ(mapdb_unmap(A, 0x10000000, KB4, 0, false), 7,
             "status travels with a grant (same rights): accessed and written since the last query");
    h_touch(C, 0x30000000, true, true);
    GRANT(C, 0x30000000, D, 0x50000000, KB4, H_R | H_W);
    expect_map(D, 0x50000000, P, H_R | H_W, 0, "granted with fewer rights");
    unsigned st = mapdb_unmap(A, 0x10000000, KB4, 0, false);
    CHECK((st & (H_R | H_W)) == (H_R | H_W),
          "status travels with a grant that drops rights: the page was read and written "
          "before and no Unmap reported it (status %u)", st);
    end();
}

static void kip_utcb_areas(void)
{
    begin();
    const paddr_t KIP = 0x9F000, UTCB = 0x9E000;
    h_set_areas(B, 0x20000000, 12, 0x20100000, 14);
    CHECK(h_kernel_leaf(B, 0x20000000, KIP, H_R), "KIP page in B");
    CHECK(h_kernel_leaf(B, 0x20100000, UTCB, H_R | H_W), "a UTCB page in B");
    MAP(S0, 0x9000000, A, 0x10000000, MB2, 7);
    MAP(A, 0x10000000, B, 0x20000000, MB2, 7);
    struct h_page kip = h_get(B, 0x20000000);
    CHECK(kip.present && kip.frame == KIP && !kip.node, "B's KIP page is not replaced by a mapping");
    struct h_page utcb = h_get(B, 0x20100000);
    CHECK(utcb.present && utcb.frame == UTCB && !utcb.node, "B's UTCB page is not replaced");
    expect_range_none(B, 0x20101000, 3 * KB4, "the rest of the UTCB area stays empty");
    expect_range(B, 0x20001000, 0x100000 - KB4, 0x9001000, 7, 0,
                 "pages of the 2 MiB window outside the KIP/UTCB areas are mapped (§5.5: only target "
                 "pages inside the areas are skipped)");
    expect_range(B, 0x20104000, MB2 - 0x104000, 0x9104000, 7, 0, "... also above the UTCB area");
    MAP(A, 0x10000000, B, 0x20000000, KB4, 7);
    CHECK(h_get(B, 0x20000000).frame == KIP, "a 4 KiB map onto the KIP page is skipped");
    MAP(A, 0x10000000, B, 0x20102000, KB4, 7);
    expect_none(B, 0x20102000, "a 4 KiB map into the UTCB area is skipped");
    MAP(B, 0x20000000, C, 0x30000000, KB4, 7);
    expect_none(C, 0x30000000, "the KIP page cannot be mapped on (source in the KIP area)");
    MAP(B, 0x20100000, C, 0x30100000, KB4, 7);
    expect_none(C, 0x30100000, "a UTCB page cannot be mapped on");
    mapdb_flush_range(B, 0, H_USER_END, true);
    kip = h_get(B, 0x20000000);
    CHECK(kip.present && kip.frame == KIP, "flushing B's whole address space leaves the KIP page");
    CHECK(h_get(B, 0x20100000).present, "... and the UTCB page");
    TREE("areas");
    end();
}

/* A foreign space's UTCB area holds no UTCBs (their memory is the kernel's, mapped nowhere):
 * its pages are the program's, mapped into and from like any other (docs/linux-abi.md §2). */
static void foreign_utcb_area_is_the_programs(void)
{
    begin();
    h_set_areas(C, 0x1000, 12, 0x8000, 15);
    C->foreign = true;
    MAP(S0, 0x9600000, A, 0x10000000, KB4 * 8, 7);
    MAP(A, 0x10000000, C, 0x8000, KB4 * 8, 7);
    expect_range(C, 0x8000, KB4 * 8, 0x9600000, 7, 0, "the whole UTCB area takes mappings");
    MAP(C, 0x9000, D, 0x40000000, KB4, 5);
    expect_map(D, 0x40000000, 0x9601000, 5, 0, "a page of it maps on");
    mapdb_flush_range(C, 0x8000, KB4 * 8, true);
    expect_range_none(C, 0x8000, KB4 * 8, "and flushes as any other");
    expect_none(D, 0x40000000, "... with what was derived from it");
    TREE("foreign UTCB area");
    end();
}

static void no_cycles(void)
{
    begin();
    const paddr_t P = 0x9200000;
    MAP(S0, P, A, 0x10000000, KB4, 7);
    MAP(A, 0x10000000, B, 0x20000000, KB4, 7);
    word_t n0 = mapdb_node_count();
    MAP(B, 0x20000000, A, 0x10000000, KB4, 7);
    expect_map(A, 0x10000000, P, 7, 0, "mapping a page back onto its source: nothing changes");
    expect_parent(A, 0x10000000, S0, P, "... A still derived from sigma0");
    CHECK_EQ(mapdb_node_count(), n0, "... no node");
    MAP(B, 0x20000000, A, 0x10005000, KB4, 7);
    expect_parent(A, 0x10005000, B, 0x20000000, "mapped back elsewhere: derived from B");
    mapdb_unmap(A, 0x10000000, KB4, 7, false);
    expect_none(B, 0x20000000, "A flushes: B gone");
    expect_none(A, 0x10005000, "... and A's own page derived from B");
    MAP(S0, 0x9400000, A, 0x10200000, MB2, 7);
    MAP(A, 0x10200000, B, 0x20200000, MB2, 7);
    MAP(B, 0x20203000, A, 0x10207000, KB4, 7);
    expect_map(A, 0x10207000, 0x9407000, 7, 1, "mapping into the 2 MiB source itself: nothing changes");
    TREE("no cycles");
    end();
}

static void self_map(void)
{
    begin();
    MAP(S0, 0x9600000, A, 0x10000000, 4 * KB4, 7);
    MAP(A, 0x10000000, A, 0x10001000, 2 * KB4, 7);
    expect_range(A, 0x10000000, 4 * KB4, 0x9600000, 7, 0, "overlapping map onto itself: nothing changes");
    MAP(A, 0x10000000, A, 0x10002000, 2 * KB4, H_R);
    expect_range(A, 0x10002000, 2 * KB4, 0x9600000, H_R, 0, "adjacent (not overlapping) ranges: mapped");
    expect_parent(A, 0x10003000, A, 0x10001000, "... derived from the page it was mapped from");
    mapdb_unmap(A, 0x10000000, 2 * KB4, 7, false);
    expect_range_none(A, 0x10002000, 2 * KB4, "... and removed by unmapping that page");
    MAP(S0, 0x9602000, A, 0x10002000, 2 * KB4, 7);
    MAP(A, 0x10000000, A, 0x10100000, 2 * KB4, H_R);
    expect_range(A, 0x10100000, 2 * KB4, 0x9600000, H_R, 0, "non-overlapping map within a space");
    expect_parent(A, 0x10101000, A, 0x10001000, "derived from the same space's page");
    mapdb_unmap(A, 0x10000000, 4 * KB4, 7, false);
    expect_range_none(A, 0x10100000, 2 * KB4, "the copies go with an unmap of the originals");
    expect_range(A, 0x10000000, 4 * KB4, 0x9600000, 7, 0, "... the originals stay");
    TREE("self map");
    end();
}

static void flush_all(void)
{
    begin();
    MAP(S0, 0x9800000, A, 0x10000000, MB4, 7);
    MAP(A, 0x10000000, B, 0x20000000, MB2, 7);
    MAP(A, 0x10200000, C, 0x30000000, 0x10000, 7);
    MAP(S0, 0x9C00000, D, 0x50000000, 0x10000, 7);
    mapdb_flush_range(A, 0, H_USER_END, true);
    expect_range_none(A, 0x10000000, MB4, "A flushed completely");
    expect_range_none(B, 0x20000000, MB2, "... B's mappings from A gone");
    expect_range_none(C, 0x30000000, 0x10000, "... C's gone");
    expect_range(D, 0x50000000, 0x10000, 0x9C00000, 7, 0, "... D (not from A) stays");
    mapdb_flush_range(S0, 0, H_USER_END, false);
    expect_range_none(D, 0x50000000, 0x10000, "sigma0 flushes all derived: D gone");
    CHECK_EQ(mapdb_node_count(), nodes0 + 3, "only sigma0's roots are left (2 + 1)");
    TREE("flush all");
    end();
}

/* Cache attributes (MemoryControl on sigma0's mapping) are inherited by derived mappings,
 * whatever the page size (the PAT bit is bit 12 in 2 MiB entries, bit 7 in 4 KiB ones). */
static void cache_attributes(void)
{
    begin();
    h_allow_cache_bits = true;
    CHECK(mapdb_sigma0_fault(S0, 0xE000000, false), "sigma0 root for [224 MiB, 226 MiB)");
    struct h_page r = h_get(S0, 0xE000000);
    CHECK_EQ(r.level, 1, "a 2 MiB root");
    *r.pte = pte_with_cache_attr(*r.pte, 1, 5);             /* write-combining: PAT index 4 */
    CHECK_EQ(pte_cache_attr(*r.pte, 1), 5, "root set to write-combining");
    MAP(S0, 0xE000000, A, 0x10000000, MB2, 7);
    CHECK_EQ(pte_cache_attr(*h_get(A, 0x10000000).pte, 1), 5, "2 MiB mapping inherits write-combining");
    MAP(A, 0x10003000, B, 0x20003000, KB4, 7);
    struct h_page b = h_get(B, 0x20003000);
    CHECK_EQ(pte_cache_attr(*b.pte, 0), 5, "4 KiB piece of it inherits write-combining");
    CHECK_EQ(b.frame, 0xE003000, "... and maps the right frame (the 2 MiB PAT bit is not an address bit)");
    mapdb_unmap(A, 0x10005000, KB4, 7, true);
    struct h_page a = h_get(A, 0x10006000);
    CHECK(a.present && a.level == 0 && a.frame == 0xE006000 && pte_cache_attr(*a.pte, 0) == 5,
          "after a split the 4 KiB pieces keep write-combining (frame %#lx, attr %u)", a.frame,
          a.present ? pte_cache_attr(*a.pte, 0) : 0);
    *h_get(S0, 0xE000000).pte = pte_with_cache_attr(*h_get(S0, 0xE000000).pte, 1, 2);   /* write-through */
    MAP(S0, 0xE000000, C, 0x30000000, MB2, 7);
    CHECK_EQ(pte_cache_attr(*h_get(C, 0x30000000).pte, 1), 2, "write-through inherited too");
    TREE("cache attributes");
    end();
    h_allow_cache_bits = false;
}

/* --- kernel memory exhaustion ------------------------------------------------------------ */

static void oom_map(void)
{
    unsigned failures = 0, n;
    for (n = 0; n < 400; n++) {
        begin();
        h_reserve(0xA300000, 0xA301000);
        kmem_fail_after(n);
        enum map_result r1 = mapdb_map(S0, 0xA000000, A, 0x10000000, MB4, 7, false);
        enum map_result r2 = r1 == MAP_OK ? mapdb_map(A, 0x10000000, B, 0x20000000, MB4, H_R, false) : MAP_NOMEM;
        kmem_fail_after(-1);
        char when[64];
        snprintf(when, sizeof(when), "map with allocation %u failing", n);
        unsigned bad = h_check_tree(all, 5, when);
        /* Whatever was mapped is right; after MAP_OK everything is mapped. */
        unsigned wrong = 0, mapped = 0;
        for (word_t off = 0; off < MB4; off += KB4) {
            struct h_page pa = h_get(A, 0x10000000 + off), pb = h_get(B, 0x20000000 + off);
            bool hole = off == 0x300000;
            if (pa.present) mapped++;
            if (pa.present && (hole || pa.frame != 0xA000000 + off || pa.rights != 7)) wrong++;
            if (pb.present && (hole || pb.frame != 0xA000000 + off || pb.rights != H_R)) wrong++;
            if (!hole && r1 == MAP_OK && !pa.present) wrong++;
            if (!hole && r2 == MAP_OK && !pb.present) wrong++;
        }
        if (bad || wrong) {
            failures++;
            CHECKQ(false, "%s: %u tree problems, %u wrong pages (results %d %d)", when, bad, wrong, r1, r2);
        }
        end();
        if (r1 == MAP_OK && r2 == MAP_OK)
            break;
    }
    CHECK(failures == 0 && n > 0 && n < 400,
          "map under kernel-memory exhaustion at each of the first %u allocations: MAP_NOMEM, "
          "consistent, no leak", n);
}

static void oom_unmap_split(void)
{
    unsigned failures = 0, n;
    for (n = 0; n < 200; n++) {
        begin();
        MAP(S0, 0xB000000, A, 0x10000000, MB2, 7);
        MAP(A, 0x10000000, B, 0x20000000, MB2, 7);
        MAP(B, 0x20007000, C, 0x30000000, KB4, 7);
        kmem_fail_after(n);
        mapdb_unmap(A, 0x10003000, KB4, 7, true);
        kmem_fail_after(-1);
        char when[64];
        snprintf(when, sizeof(when), "unmap with allocation %u failing", n);
        unsigned bad = h_check_tree(all, 5, when);
        struct h_page a = h_get(A, 0x10003000), b = h_get(B, 0x20003000), c = h_get(C, 0x30000000);
        bool ok = !a.present && !b.present && (!c.present || c.frame == 0xB007000);
        if (bad || !ok) {
            failures++;
            CHECKQ(false, "%s: %u tree problems; A page 3 %s, B page 3 %s (must both be gone)", when, bad,
                   a.present ? "present" : "gone", b.present ? "present" : "gone");
        }
        bool split = h_get(A, 0x10004000).present;     /* the split succeeded: last round */
        end();
        if (split)
            break;
    }
    CHECK(failures == 0 && n < 200,
          "unmap of one page of a 2 MiB mapping with each of the first %u allocations failing: the page "
          "is revoked everywhere (whole 2 MiB if the split fails), consistent, no leak", n);
}

/* Grant one page of a 2 MiB mapping when the split runs out of memory. */
static void oom_grant_split(void)
{
    begin();
    MAP(S0, 0xC000000, A, 0x10000000, MB2, 7);
    MAP(S0, 0xC200000, B, 0x20000000, MB2, 7);      /* B's page directory exists */
    kmem_fail_after(0);
    enum map_result r = mapdb_map(A, 0x10005000, B, 0x20203000, KB4, 7, true);
    kmem_fail_after(-1);
    printf("     grant returned %s\n", r == MAP_OK ? "MAP_OK" : "MAP_NOMEM");
    expect_none(B, 0x20200000, "nothing appears in B outside the 4 KiB receive window (page below)");
    expect_none(B, 0x20204000, "nothing appears in B outside the receive window (page above)");
    struct h_page p = h_get(B, 0x20203000);
    CHECK(!p.present || p.frame == 0xC005000, "if the page was granted, B has the right frame (%s %#lx)",
          p.present ? "frame" : "absent", p.frame);
    if (r == MAP_OK)
        CHECK(p.present, "MAP_OK: the page arrived");
    TREE("grant with failing split");
    end();
}

/* Grant a 2 MiB mapping to a place where the receiver has 4 KiB mappings (a page table). */
static void grant_2m_over_4k(void)
{
    begin();
    MAP(S0, 0xD000000, A, 0x10000000, MB2, 7);
    MAP(A, 0x10009000, C, 0x30000000, KB4, 7);
    MAP(S0, 0xD400000, B, 0x20001000, KB4, 7);
    GRANT(A, 0x10000000, B, 0x20000000, MB2, 7);
    expect_range_none(A, 0x10000000, MB2, "the sender has nothing left");
    expect_range(B, 0x20000000, MB2, 0xD000000, 7, -1, "the receiver maps all 2 MiB of the granted frames");
    struct mapnode *c = node(C, 0x30000000);
    CHECK(c && c->parent && c->parent->space == B, "C's mapping stays derived from the granted mapping, now in B");
    TREE("grant over 4 KiB pages");
    end();
}

/* The same, within one address space, followed by a partial unmap of the granted mapping's
 * source: what happens to the misplaced node when its parent is split. */
static void grant_2m_over_4k_then_split(void)
{
    begin();
    MAP(S0, 0xD800000, A, 0x10000000, MB2, 7);                 /* A: 2 MiB */
    MAP(A, 0x10000000, A, 0x10400000, MB2, 7);                  /* derived 2 MiB, same space */
    MAP(S0, 0xDC00000, A, 0x10801000, KB4, 7);                  /* a page table at 0x10800000 */
    GRANT(A, 0x10400000, A, 0x10800000, MB2, 7);                /* grant onto the page table */
    mapdb_unmap(A, 0x10003000, KB4, 7, false);                  /* split the source */
    expect_range(A, 0x10800000, 3 * KB4, 0xD800000, 7, -1, "the granted mapping, start");
    expect_none(A, 0x10803000, "page 3 revoked from the granted mapping");
    struct h_page p = h_get(A, 0x109FF000);
    CHECK(!p.present || p.frame < H_POOL_PHYS || p.frame >= H_POOL_PHYS + H_POOL_SIZE,
          "no user mapping of kernel memory: A %#lx maps frame %#lx, rights %u", 0x109FF000ul, p.frame, p.rights);
    TREE("grant over 4 KiB pages, then split");
    end();
}

static const struct uc_case cases[] = {
    UC_CASE(sigma0_roots),
    UC_CASE(map_from_sigma0),
    UC_CASE(rights_intersection),
    UC_CASE(chain_sizes),
    UC_CASE(unmap_levels),
    UC_CASE(unmap_range),
    UC_CASE(grant),
    UC_CASE(remap_same_page),
    UC_CASE(remap_same_page_other_source),
    UC_CASE(map_over_other_page),
    UC_CASE(map_over_size_structure),
    UC_CASE(partial_unmap_2m),
    UC_CASE(partial_unmap_2m_two_children),
    UC_CASE(partial_unmap_2m_chain),
    UC_CASE(status_bits),
    UC_CASE(grant_keeps_status),
    UC_CASE(kip_utcb_areas),
    UC_CASE(foreign_utcb_area_is_the_programs),
    UC_CASE(no_cycles),
    UC_CASE(self_map),
    UC_CASE(flush_all),
    UC_CASE(cache_attributes),
    UC_CASE(oom_map),
    UC_CASE(oom_unmap_split),
    UC_CASE(oom_grant_split),
    UC_CASE(grant_2m_over_4k),
    UC_CASE(grant_2m_over_4k_then_split),
};

int main(int argc, char **argv)
{
    return uc_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
