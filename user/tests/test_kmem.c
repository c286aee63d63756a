/* In-system test: kernel memory exhaustion (issue 4 item 9), booted with a small kernel pool
 * (kmem=4M): operations that need kernel memory fail with the contract's error, nothing
 * leaks, and after freeing everything the same operations succeed again. */
#include "testlib.h"
#include "testutil.h"
#include "agent.h"

#define MAX 2000

static l4_word_t tids[MAX];

/* New spaces with one active thread each, until the kernel runs out of memory. */
static unsigned fill_spaces(void)
{
    return tu_fill_spaces(tids, MAX);
}

static void free_spaces(unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        l4_thread_control(tids[i], 0, 0, 0, ~0ul);
}

TEST(space_creation_until_exhausted_and_back)
{
    unsigned n1 = fill_spaces();
    l4_word_t err = l4_error_code();
    CHECK(n1 < MAX, "the kernel never ran out");
    CHECK_EQ(err, L4_ERR_NO_MEM);
    /* Other system calls still work while the pool is empty. */
    CHECK(l4_system_clock() > 0);
    free_spaces(n1);
    unsigned n2 = fill_spaces();
    test_note("%u spaces the first time, %u the second", n1, n2);
    free_spaces(n2);
    CHECK(n2 + 1 >= n1, "memory was not given back: %u then %u", n1, n2);
    unsigned n3 = fill_spaces();
    free_spaces(n3);
    CHECK_EQ(n3, n2);
}

/* Issue 7: a thread number in a 2 MiB region of the TCB array that no thread used before
 * costs the region a page table; deleting the region's last thread must give it back, or
 * creating and deleting threads with ever new numbers uses up the pool for good.  Each of the
 * 512 threads here lies in a region of its own (256 slots of 8 KiB a region). */
TEST(fresh_thread_numbers_leave_no_page_tables)
{
    unsigned n1 = fill_spaces();
    free_spaces(n1);
    l4_word_t me = l4_my_global_id();
    unsigned made = 0;
    for (unsigned i = 0; i < 512; i++) {
        l4_word_t t = l4_global_id(l4_kip_user_base() + 8192 + i * 256, 1);
        if (!l4_thread_control(t, me, me, 0, ~0ul))
            break;
        made++;
        CHECK(l4_thread_control(t, 0, 0, 0, ~0ul), "deleting %lx: error %lu", t, l4_error_code());
    }
    CHECK_EQ(made, 512);
    unsigned n2 = fill_spaces();
    free_spaces(n2);
    test_note("%u spaces fit before, %u after 512 threads in fresh regions", n1, n2);
    CHECK(n2 + 1 >= n1, "kernel memory lost: %u spaces fit, %u before", n2, n1);
}

static uint8_t page[4096] __attribute__((aligned(4096)));

TEST(mapping_until_exhausted_and_back)
{
    /* Map one page of ours at many addresses of an agent's space: mapping nodes and page
     * tables until the pool is gone; the failing map reports message overflow. */
    page[0] = 1;
    l4_word_t a = agent_start();
    l4_word_t n = 0, r = 0;
    for (; n < 1ul << 16; n++) {
        l4_word_t dst = PROBE_BASE + (n << 21);         /* a new page table each time */
        r = agent_map(0, a, dst, l4_fpage_log2((l4_word_t)page, 12) | L4_RWX,
                      l4_fpage_log2(PROBE_BASE, 40), false);
        if (r != 2)
            break;
    }
    CHECK(n < (1ul << 16), "the kernel never ran out");
    CHECK(r & (1ul << 63), "the map failed as an IPC error");
    CHECK_EQ(l4_ipc_error_code(r), L4_IPC_OVERFLOW);
    /* Take everything back: now it works again. */
    l4_set_mr(0, l4_fpage_log2((l4_word_t)page, 12) | L4_RWX);
    l4_unmap(0);
    tu_kill(a);
    l4_word_t b = agent_start();
    CHECK(b != 0);
    CHECK_EQ(agent_map(0, b, PROBE_BASE, l4_fpage_log2((l4_word_t)page, 12) | L4_RWX,
                       l4_fpage_log2(PROBE_BASE, 40), false), 2);
    tu_kill(b);
    test_note("%lu mappings fitted", n);
}

/* sigma0 hands out a block, then the kernel has no memory to map it (message overflow): the
 * block must be free again for others once there is memory (stop 20: it stayed claimed by
 * the requester until reboot).  Each block goes to a 512 GiB region of ours of its own, so
 * that its mapping needs new page tables. */
#define BLOCK_REGION(k) (0x200000000000ul + ((l4_word_t)(k) << 39))

TEST(a_block_the_kernel_cannot_map_goes_back_to_sigma0)
{
    l4_word_t s0 = l4_sigma0_tid();
    l4_word_t first = l4_sigma0_get_any(s0, 21, l4_fpage_log2(BLOCK_REGION(0), 21));
    CHECK(!l4_is_nil_fpage(first), "sigma0 has a free 2 MiB block");
    unsigned n = fill_spaces();
    l4_word_t err = 0, refused_block = 0;
    unsigned k = 1;
    for (; k < 8 && !refused_block; k++) {
        l4_word_t want = l4_fpage_base(first) + ((l4_word_t)k << 21);
        if (l4_is_nil_fpage(l4_sigma0_get_page(s0, l4_fpage_log2(want, 21) | L4_RWX,
                                                l4_fpage_log2(BLOCK_REGION(k), 21)))) {
            refused_block = want;
            err = l4_error_code();
        }
    }
    free_spaces(n);
    CHECK(refused_block != 0, "the kernel mapped %u blocks", k - 1);
    CHECK_EQ(l4_ipc_error_code(err), L4_IPC_OVERFLOW);
    test_note("the kernel could map %u blocks, not %lx", k - 2, refused_block);
    /* With memory again, another thread asks for exactly that block. */
    CHECK(!l4_is_nil_fpage(tu_sigma0_get_page_elsewhere(l4_fpage_log2(refused_block, 21) |
                                                        L4_RWX, l4_fpage_log2(0x70000000, 21))),
          "block %lx still held for us", refused_block);
}

int main(void)
{
    tests_run("kmem");
}
