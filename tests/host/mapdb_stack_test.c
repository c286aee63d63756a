/* Stack use of the mapping database, measured on the host.
 *
 * A kernel thread's stack is the TCB slot above TCB_STACK_BOTTOM (kernel/tcb.h) minus the user
 * register frame; mapdb_unmap/mapdb_map run on it inside a system call.  mapdb.c promises that
 * "tree walks are iterative so that long derivation chains cannot overflow the kernel stack".
 * Each operation runs here on a separately allocated, painted stack (ucontext); the deepest
 * byte written is its stack use.  The test binary and the kernel units are built without
 * sanitizers and with the kernel's code-generation flags (-O2 -mno-red-zone
 * -fno-stack-protector), so the figures are close to the kernel's.
 *
 * KSTACK_BUDGET (bytes available to the mapping database) is passed by test_kernel_units.py,
 * computed from TCB_BITS, TCB_STACK_BOTTOM and FRAME_SIZE minus 1 KiB for the system-call path. */
#include <ucontext.h>
#include "unit_check.h"
#include "mapdb_harness.h"

#ifndef KSTACK_BUDGET
#error "KSTACK_BUDGET must be defined"
#endif

#define KB4 0x1000ul
#define MB2 0x200000ul
#define STACK_SIZE (1ul << 20)

static unsigned char *stack;
static ucontext_t main_ctx, op_ctx;
static void (*op)(void);

static void trampoline(void)
{
    op();
}

static size_t measure(void (*fn)(void))
{
    memset(stack, 0xA5, STACK_SIZE);
    op = fn;
    getcontext(&op_ctx);
    op_ctx.uc_stack.ss_sp = stack;
    op_ctx.uc_stack.ss_size = STACK_SIZE;
    op_ctx.uc_link = &main_ctx;
    makecontext(&op_ctx, trampoline, 0);
    swapcontext(&main_ctx, &op_ctx);
    size_t i = 0;
    while (i < STACK_SIZE && stack[i] == 0xA5)
        i++;
    return STACK_SIZE - i;
}

static void nothing(void) { }

static struct space *S0, *A, *B, *C, *D;
static size_t baseline;

static void setup(void)
{
    h_init();
    S0 = h_space_new(true);
    A = h_space_new(false);
    B = h_space_new(false);
    C = h_space_new(false);
    D = h_space_new(false);
    if (!stack)
        stack = malloc(STACK_SIZE);
    baseline = measure(nothing);
}

static void teardown(void)
{
    h_space_destroy(S0);
    h_space_destroy(A);
    h_space_destroy(B);
    h_space_destroy(C);
    h_space_destroy(D);
}

static void report(const char *what, void (*fn)(void))
{
    size_t used = measure(fn) - baseline;
    CHECK(used <= KSTACK_BUDGET, "%s: %zu bytes of stack (budget %d bytes)", what, used, KSTACK_BUDGET);
}

static void op_unmap_a_page(void) { mapdb_unmap(A, 0x10003000, KB4, 7, true); }
static void op_unmap_s0_page(void) { mapdb_unmap(S0, 0x2001000, KB4, 7, false); }
static void op_grant_page(void) { mapdb_map(A, 0x10005000, D, 0x50005000, KB4, 7, true); }
static void op_flush_s0(void) { mapdb_flush_range(S0, 0, H_USER_END, false); }
static void op_map_2m(void) { mapdb_map(A, 0x10000000, B, 0x20000000, MB2, 7, false); }

static void split_one_level(void)
{
    setup();
    mapdb_map(S0, 0x2000000, A, 0x10000000, MB2, 7, false);
    mapdb_map(A, 0x10007000, B, 0x20007000, KB4, 7, false);
    report("unmap one page of a 2 MiB mapping with only 4 KiB mappings derived (one split)", op_unmap_a_page);
    teardown();
}

static void split_grant(void)
{
    setup();
    mapdb_map(S0, 0x2000000, A, 0x10000000, MB2, 7, false);
    report("grant one page of a 2 MiB mapping (one split)", op_grant_page);
    teardown();
}

static void split_two_levels(void)
{
    setup();
    mapdb_map(S0, 0x2000000, A, 0x10000000, MB2, 7, false);
    mapdb_map(A, 0x10000000, B, 0x20000000, MB2, 7, false);
    report("unmap one page of a 2 MiB mapping from which one 2 MiB mapping is derived", op_unmap_a_page);
    teardown();
}

static void split_chain(void)
{
    setup();
    mapdb_map(S0, 0x2000000, A, 0x10000000, MB2, 7, false);
    mapdb_map(A, 0x10000000, B, 0x20000000, MB2, 7, false);
    mapdb_map(B, 0x20000000, C, 0x30000000, MB2, 7, false);
    mapdb_map(C, 0x30000000, D, 0x50000000, MB2, 7, false);
    report("sigma0 unmaps one page of a chain of 2 MiB mappings sigma0 -> A -> B -> C -> D", op_unmap_s0_page);
    teardown();
}

/* One task can derive 2 MiB mappings from 2 MiB mappings within its own address space (map
 * items between two of its threads): a chain of 100 costs it 200 MiB of virtual space. */
static void op_unmap_chain_root_page(void) { mapdb_unmap(A, 0x40003000, KB4, 7, false); }

static void split_long_chain(void)
{
    setup();
    mapdb_map(S0, 0x2000000, A, 0x40000000, MB2, 7, false);
    for (unsigned i = 1; i <= 100; i++)
        mapdb_map(A, 0x40000000 + (i - 1) * MB2, A, 0x40000000 + i * MB2, MB2, 7, false);
    CHECK_EQ(h_get(A, 0x40000000 + 100 * MB2).level, 1, "a chain of 100 derived 2 MiB mappings in one space");
    report("unmap one page at the start of a chain of 100 derived 2 MiB mappings", op_unmap_chain_root_page);
    CHECK(!h_get(A, 0x40000000 + 100 * MB2 + 0x3000).present && h_get(A, 0x40000000 + 100 * MB2 + 0x4000).present,
          "the end of the chain lost exactly that page");
    teardown();
}

static void long_chain_4k(void)
{
    setup();
    /* 300 derivation steps, bouncing between A and B at increasing addresses. */
    mapdb_map(S0, 0x2000000, A, 0x10000000, KB4, 7, false);
    struct space *from = A, *to = B;
    word_t va = 0x10000000;
    for (unsigned i = 1; i <= 300; i++) {
        word_t nva = (to == A ? 0x10000000 : 0x20000000) + i * KB4;
        mapdb_map(from, va, to, nva, KB4, 7, false);
        va = nva;
        struct space *t = from; from = to; to = t;
    }
    CHECK_EQ(mapdb_node_count(), 302, "a chain of 300 derived 4 KiB mappings (+ root + first)");
    report("sigma0 flushes a derivation chain of 300 mappings", op_flush_s0);
    CHECK_EQ(mapdb_node_count(), 1, "only sigma0's root left");
    teardown();
}

static void map_2m(void)
{
    setup();
    mapdb_map(S0, 0x2000000, A, 0x10000000, MB2, 7, false);
    mapdb_map(S0, 0x4000000, B, 0x20001000, KB4, 7, false);
    report("map 2 MiB over a page table of 4 KiB mappings (512 pieces)", op_map_2m);
    teardown();
}

static const struct uc_case cases[] = {
    UC_CASE(split_one_level),
    UC_CASE(split_grant),
    UC_CASE(split_two_levels),
    UC_CASE(split_chain),
    UC_CASE(split_long_chain),
    UC_CASE(long_chain_4k),
    UC_CASE(map_2m),
};

int main(int argc, char **argv)
{
    int rc = uc_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
    free(stack);
    return rc;
}
