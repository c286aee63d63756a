/* Host unit tests of kernel/glue/x2-x86_64/iospace.c (I/O-port fpages: derivation trees,
 * merging, bounds).
 * The real iospace.c, slab.c and kmem.c run on the mapdb harness's arena (kshim/); after every
 * operation iospace_check verifies each space's invariants (disjoint sorted nodes, bitmap =
 * nodes, nodes inside their parents, parents in other spaces) and the live node count must
 * equal the nodes the spaces hold. */
#include "unit_check.h"
#include "mapdb_harness.h"
#include "iospace.h"
#include <l4/fpage.h>

/* Stubs for what iospace.c needs of the architecture (paging.c in the kernel). */
void arch_iowin_build(pte_t *pdpt, pte_t *pd, pte_t *pt, paddr_t bitmap)
{
    (void)pdpt; (void)pd; (void)pt; (void)bitmap;
}
void pt_set_iowin(struct space *s, pte_t *iowin_top)
{
    (void)s; (void)iowin_top;
}

/* The platform's ports (pic.c in the kernel): none, or the PC's 8259 pair and ELCR when a
 * case sets kernel_ports. */
static const uint32_t pc_ports[][2] = { { 0x20, 2 }, { 0xA0, 2 }, { 0x4D0, 2 } };
static bool kernel_ports;
bool arch_kernel_ports(unsigned i, uint32_t *base, uint32_t *size)
{
    if (!kernel_ports || i >= 3)
        return false;
    *base = pc_ports[i][0];
    *size = pc_ports[i][1];
    return true;
}

#define NS 6
static struct space *S0, *A, *B, *C, *D, *E;
static struct space *sp[NS];
static word_t free0;

static bool consistent(const char *when)
{
    word_t sum = 0;
    bool ok = true;
    for (unsigned i = 0; i < NS; i++) {
        const char *bad = iospace_check(sp[i], true);
        if (bad) {
            printf("FAIL space %u %s: %s\n", i, when, bad);
            ok = false;
        }
        sum += iospace_space_nodes(sp[i]);
    }
    if (sum != iospace_node_count()) {
        printf("FAIL %s: %lu live nodes, spaces hold %lu\n", when, iospace_node_count(), sum);
        ok = false;
    }
    return ok;
}

#define CONSISTENT(when) CHECK(consistent(when), "invariants hold: %s", when)

static void begin(void)
{
    h_init();
    kmem_fail_after(-1);
    free0 = kmem_free_bytes();
    S0 = h_space_new(true);
    A = h_space_new(false);
    B = h_space_new(false);
    C = h_space_new(false);
    D = h_space_new(false);
    E = h_space_new(false);
    sp[0] = S0; sp[1] = A; sp[2] = B; sp[3] = C; sp[4] = D; sp[5] = E;
    CHECK(iospace_init_sigma0(S0), "sigma0 gets every port");
}

static void end(void)
{
    kmem_fail_after(-1);
    CONSISTENT("end of case");
    for (unsigned i = NS; i-- > 0; ) {
        iospace_destroy(sp[i]);
        h_space_destroy(sp[i]);
    }
    CHECK_EQ(iospace_node_count(), 0, "every port node freed");
    CHECK_EQ(kmem_free_bytes(), free0, "all kernel memory back in the pool");
}

static word_t io(unsigned port, unsigned log2)
{
    return l4_io_fpage(port, log2);
}

static bool has(struct space *s, unsigned port, unsigned n)
{
    return iospace_has(s, port, n);
}

static bool none(struct space *s, unsigned port, unsigned n)
{
    for (unsigned p = port; p < port + n; p++)
        if (iospace_has(s, p, 1))
            return false;
    return true;
}

static void map_is_idempotent(void)
{
    begin();
    CHECK(iospace_map(S0, A, io(0x80, 4), false), "map 16 ports");
    CHECK(iospace_map(S0, A, io(0x80, 4), false), "map them again");
    CHECK(iospace_map(S0, A, io(0x84, 2), false), "map a part of them again");
    CHECK(has(A, 0x80, 16) && none(A, 0x70, 16) && none(A, 0x90, 16), "A holds exactly the 16");
    CHECK_EQ(iospace_space_nodes(A), 1, "one node, not three");
    CONSISTENT("after maps");
    end();
}

/* The freeze: two spaces that map ports to each other and grant them back. */
static void ping_pong_stays_bounded(void)
{
    begin();
    CHECK(iospace_map(S0, A, io(0x80, 4), false), "A gets 16 ports");
    CHECK(iospace_map(S0, B, io(0x80, 4), false), "B gets them too");
    uint64_t x = 12345;
    bool ok = true;
    word_t most = 0;
    for (int i = 0; i < 20000; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        struct space *s = (x >> 40) & 1 ? A : B, *d = s == A ? B : A;
        unsigned log2 = (x >> 41) % 5, port = 0x80 + ((x >> 44) & 15);
        unsigned op = (x >> 50) % 4;
        if (op == 3)
            iospace_unmap(s, io(port, log2), (x >> 53) & 1);
        else
            ok &= iospace_map(s, d, io(port, log2), op == 2);
        if (i % 97 == 0 && !consistent("ping-pong"))
            ok = false;
        if (iospace_node_count() > most)
            most = iospace_node_count();
    }
    CHECK(ok, "20000 maps, grants and unmaps between A and B succeed and keep the invariants");
    CHECK(most <= 1 + 16 + 16, "at most one node per port and space at any time (most %lu)", most);
    end();
}

static void smaller_nodes_merge(void)
{
    begin();
    CHECK(iospace_map(S0, A, io(0x80, 4), false), "A gets 16 ports");
    CHECK(iospace_map(A, B, io(0x80, 0), false) && iospace_map(A, B, io(0x81, 0), false),
          "B gets two single ports from A");
    CHECK(iospace_map(B, C, io(0x80, 0), false), "C gets port 0x80 from B");
    CHECK_EQ(iospace_space_nodes(B), 2, "B: two nodes");
    CHECK(iospace_map(A, B, io(0x80, 2), false), "A maps B the four ports around them");
    CHECK_EQ(iospace_space_nodes(B), 1, "B: one node of 4 (merged)");
    CHECK(has(B, 0x80, 4) && none(B, 0x84, 4), "B holds 0x80-0x83");
    CHECK(has(C, 0x80, 1), "C's port, derived from a merged node, stays");
    CONSISTENT("after the merge");
    iospace_unmap(A, io(0x80, 4), false);
    CHECK(none(B, 0x80, 16) && none(C, 0x80, 16), "unmap by A revokes B and, through B, C");
    CHECK(has(A, 0x80, 16), "A keeps its own");
    end();
}

static void other_source_replaces(void)
{
    begin();
    CHECK(iospace_map(S0, A, io(0x80, 4), false), "A gets 16 ports");
    CHECK(iospace_map(S0, B, io(0x80, 4), false), "B gets them from sigma0 too");
    CHECK(iospace_map(B, C, io(0x80, 0), false), "C gets one from B");
    CHECK(iospace_map(A, B, io(0x80, 4), false), "A maps them to B");
    CHECK(has(B, 0x80, 16), "B holds them");
    CHECK(none(C, 0x80, 1), "B's old node was revoked with what derived from it");
    iospace_unmap(A, io(0x80, 4), false);
    CHECK(none(B, 0x80, 16), "B now holds them through A");
    end();
}

static void larger_holding_is_replaced_whole(void)
{
    begin();
    CHECK(iospace_map(S0, A, io(0x80, 4), false), "A gets 16 ports");
    CHECK(iospace_map(S0, B, io(0x80, 4), false), "B gets 16 from sigma0");
    CHECK(iospace_map(A, B, io(0x84, 2), false), "A maps 4 of them to B");
    CHECK(has(B, 0x84, 4) && none(B, 0x80, 4) && none(B, 0x88, 8),
          "B's larger node from elsewhere was revoked whole (ports come back on a fault)");
    end();
}

static void grant_moves_node(void)
{
    begin();
    CHECK(iospace_map(S0, A, io(0x80, 4), false), "A gets 16 ports");
    CHECK(iospace_map(A, B, io(0x80, 4), false), "B gets them from A");
    CHECK(iospace_map(A, C, io(0x80, 4), true), "A grants them to C");
    CHECK(none(A, 0x80, 16) && has(C, 0x80, 16) && has(B, 0x80, 16), "C holds, A not, B still");
    CHECK_EQ(iospace_node_count(), 3, "the node moved: no new node");
    iospace_unmap(C, io(0x80, 4), false);
    CHECK(none(B, 0x80, 16), "B derives from C now");
    end();
}

static void grant_part_of_node(void)
{
    begin();
    CHECK(iospace_map(S0, A, io(0x80, 4), false), "A gets 16 ports");
    CHECK(iospace_map(A, B, io(0x80, 2), false), "B gets 0x80-0x83");
    CHECK(iospace_map(A, D, io(0x88, 2), false), "D gets 0x88-0x8b");
    CHECK(iospace_map(A, C, io(0x80, 2), true), "A grants 0x80-0x83 to C");
    CHECK(has(C, 0x80, 4) && none(C, 0x84, 12), "C holds the 4");
    CHECK(none(A, 0x80, 16), "A's node was revoked whole");
    CHECK(has(B, 0x80, 4), "B's node, inside the granted part, follows to C");
    CHECK(none(D, 0x88, 4), "D's node, outside it, goes with A's");
    iospace_unmap(C, io(0x80, 2), false);
    CHECK(none(B, 0x80, 4), "B derives from C now");
    end();
}

static void no_cycles(void)
{
    begin();
    CHECK(iospace_map(S0, A, io(0x80, 4), false), "A gets 16 ports");
    CHECK(iospace_map(A, B, io(0x80, 4), false), "B gets them from A");
    CHECK(iospace_map(B, C, io(0x80, 4), false), "C from B");
    word_t n = iospace_node_count();
    CHECK(iospace_map(C, A, io(0x80, 4), false), "C maps back to A");
    CHECK(iospace_map(B, A, io(0x80, 4), true), "B grants back to A");
    CHECK_EQ(iospace_node_count(), n, "left alone: A holds them through an ancestor");
    CHECK(has(A, 0x80, 16) && has(B, 0x80, 16) && has(C, 0x80, 16), "nobody lost anything");
    CHECK(iospace_map(C, S0, io(0, 16), true), "C grants everything to sigma0");
    CHECK(has(S0, 0, 65535) && has(C, 0x80, 16), "left alone too");
    CONSISTENT("after the attempts");
    end();
}

static void unmap_own_and_derived(void)
{
    begin();
    CHECK(iospace_map(S0, A, io(0x80, 4), false), "A gets 16 ports");
    CHECK(iospace_map(A, B, io(0x80, 4), false), "B from A");
    CHECK(iospace_map(B, C, io(0x84, 2), false), "C from B");
    iospace_unmap(B, io(0x84, 0), false);
    CHECK(has(B, 0x80, 16) && none(C, 0x84, 4), "unmap of one port revokes C's whole node");
    iospace_unmap(B, io(0x8F, 0), true);
    CHECK(none(B, 0x80, 16) && has(A, 0x80, 16), "with f, B's whole node goes, A keeps");
    iospace_unmap(S0, io(0, 16), false);
    CHECK(none(A, 0x80, 16) && has(S0, 0, 65535), "sigma0's flush revokes A");
    end();
}

static void out_of_memory(void)
{
    begin();
    CHECK(iospace_map(S0, A, io(0x80, 4), false), "A gets 16 ports");
    CHECK(iospace_map(A, B, io(0x80, 0), false), "B gets one port (its bitmap exists)");
    bool failed = false, later = false;
    for (long n = 0; n < 10 && !later; n++) {
        kmem_fail_after(n);
        bool ok = iospace_map(S0, C, io(0, 16), false);
        kmem_fail_after(-1);
        failed |= !ok;
        later = ok;
        CONSISTENT("after a map short of memory");
    }
    CHECK(failed && later, "a map fails cleanly without memory and works with it");
    CHECK(has(C, 0, 65535), "C holds everything in the end");
    end();
}

/* Random operations among six spaces; sigma0 never grants, so it keeps every port. */
static void random_ops(void)
{
    begin();
    uint64_t x = 99;
    bool ok = true;
    for (int i = 0; i < 30000 && ok; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        struct space *s = sp[(x >> 33) % NS], *d = sp[(x >> 36) % NS];
        unsigned log2 = (x >> 40) % 10;
        if ((x >> 61) == 0)
            log2 = 16;
        unsigned port = 0x100 + (unsigned)((x >> 44) & 0x3FF);
        unsigned op = (x >> 56) % 5;
        if (op >= 3)
            iospace_unmap(s, io(port, log2), op == 4 && s != S0);
        else if (s != d)
            iospace_map(s, d, io(port, log2), op == 2 && s != S0);
        ok = consistent("random");
    }
    CHECK(ok, "30000 random operations keep the invariants");
    CHECK(has(S0, 0, 65535), "sigma0 still holds every port");
    end();
}

/* Many small nodes on both sides: one map of the complete range works in one merge walk. */
static void many_nodes(void)
{
    begin();
    bool ok = true;
    for (unsigned p = 0; p < 65536; p += 4) {
        ok &= iospace_map(S0, A, io(p, 1), false);
        ok &= iospace_map(S0, B, io(p + 2, 1), false);
    }
    CHECK(ok, "A and B get 16384 nodes each");
    CHECK_EQ(iospace_space_nodes(A), 16384, "A's nodes");
    CHECK(iospace_map(A, B, io(0, 16), false), "A maps everything to B");
    CHECK(iospace_map(B, C, io(0, 16), true), "B grants everything to C");
    CHECK_EQ(iospace_space_nodes(C), 32768, "C holds every node B held");
    CHECK_EQ(iospace_space_nodes(B), 0, "B none");
    CONSISTENT("after the big operations");
    iospace_unmap(S0, io(0, 16), false);
    CHECK_EQ(iospace_node_count(), 1, "sigma0's flush leaves only its root");
    end();
}

/* The kernel's devices' ports are never sigma0's: nobody can map them. */
static void kernel_ports_kept(void)
{
    kernel_ports = true;
    begin();
    CHECK(none(S0, 0x20, 2) && none(S0, 0xA0, 2) && none(S0, 0x4D0, 2),
          "sigma0 lacks the 8259s' ports and the ELCR");
    CHECK(has(S0, 0, 0x20) && has(S0, 0x22, 0xA0 - 0x22) && has(S0, 0xA2, 0x4D0 - 0xA2) &&
          has(S0, 0x4D2, 65536 - 0x4D2), "and holds every other port");
    CHECK(iospace_space_nodes(S0) <= 48, "in a few aligned nodes (%lu)",
          iospace_space_nodes(S0));
    CHECK(iospace_map(S0, A, io(0, 16), false), "A asks for everything");
    CHECK(none(A, 0x20, 2) && none(A, 0xA0, 2) && none(A, 0x4D0, 2) && has(A, 0x3F8, 8),
          "A gets all but the kernel's");
    CHECK(iospace_map(S0, B, io(0x20, 0), false), "a map of the PIC's port alone");
    CHECK(none(B, 0x20, 1), "gives nothing");
    CONSISTENT("after the maps");
    end();
    kernel_ports = false;
}

static const struct uc_case cases[] = {
    UC_CASE(kernel_ports_kept),
    UC_CASE(map_is_idempotent),
    UC_CASE(ping_pong_stays_bounded),
    UC_CASE(smaller_nodes_merge),
    UC_CASE(other_source_replaces),
    UC_CASE(larger_holding_is_replaced_whole),
    UC_CASE(grant_moves_node),
    UC_CASE(grant_part_of_node),
    UC_CASE(no_cycles),
    UC_CASE(unmap_own_and_derived),
    UC_CASE(out_of_memory),
    UC_CASE(random_ops),
    UC_CASE(many_nodes),
};

int main(int argc, char **argv)
{
    return uc_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
