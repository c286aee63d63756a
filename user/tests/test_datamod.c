/* In-system test, started by the root task as a boot module next to one large data module
 * (tests/system/test_boot_modules.py, issue 12 item 5).  Wherever the kernel put the module,
 * and however it got there, its bytes read through ROOT_DATA_MAP are the file's: the test
 * writes the word DATAMOD_MAGIC ^ offset at the offsets of check_offsets() and leaves the rest
 * of the file zero (a sparse file).  Command line: `name=FILE size=BYTES`. */
#include "testlib.h"
#include <stdlib.h>
#include <string.h>

#define DATAMOD_MAGIC 0x444F4D4E41434550ull     /* "PECANMOD" */
#define DATA_AT       0x200000000ul             /* where we map it: above our heap */

static char name[17];
static l4_word_t size;

static void read_options(void)
{
    const char *p = strstr(l4_task_cmdline(), " name="), *s = strstr(l4_task_cmdline(), " size=");
    unsigned n = 0;
    for (p = p ? p + 6 : ""; *p && *p != ' ' && n < sizeof(name) - 1; p++)
        name[n++] = *p;
    size = s ? strtoul(s + 6, NULL, 0) : 0;
}

/* The offsets the test wrote: both ends, both sides of the first 2 MiB and 1 GiB boundaries
 * (edges of the root task's blocks when the module starts that aligned, as the kernel puts
 * it in the 4 GiB boot), the middle. */
static unsigned check_offsets(l4_word_t *off)
{
    unsigned n = 0;
    off[n++] = 0;
    static const l4_word_t edges[] = { 2ul << 20, 1ul << 30 };
    for (unsigned i = 0; i < 2; i++)
        if (size >= edges[i] + 8) {
            off[n++] = edges[i] - 8;
            off[n++] = edges[i];
        }
    off[n++] = (size / 2) & ~7ul;
    off[n++] = size - 8;
    return n;
}

/* The module at DATA_AT, mapped by the first case that asks: true if it is there. */
static bool mapped(void)
{
    static bool done;
    l4_word_t err;
    if (!done)
        done = l4_data_map(name, DATA_AT, &err) == size && !err;
    return done;
}

static l4_word_t word_at(l4_word_t off)
{
    return *(const volatile l4_word_t *)(DATA_AT + off);
}

TEST(module_has_its_size)
{
    l4_word_t err;
    CHECK(name[0] && size >= 16, "command line '%s'", l4_task_cmdline());
    CHECK_EQ(l4_data_map(name, 0, &err), size);
    CHECK_EQ(err, 0);
}

TEST(pattern_at_start_middle_end)
{
    l4_word_t off[8];
    CHECK(mapped());
    unsigned n = check_offsets(off);
    for (unsigned i = 0; i < n; i++) {
        test_note("offset %#lx: %#lx", off[i], word_at(off[i]));
        CHECK_EQ(word_at(off[i]), DATAMOD_MAGIC ^ off[i]);
    }
}

TEST(zero_between_the_marks)
{
    CHECK(mapped());
    CHECK_EQ(word_at(4096), 0);
    CHECK_EQ(word_at(((size / 2) & ~7ul) + 4096), 0);
    CHECK_EQ(word_at(size - 4096 - 8), 0);
}

int main(void)
{
    read_options();
    /* Under -icount the TSC counts guest instructions from reset (one per nanosecond): what
     * the boot cost up to here, the kernel's copy of a moved module included. */
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    test_note("boot: %lu guest instructions before this program ran",
              (unsigned long)(((uint64_t)hi << 32) | lo));
    tests_run("datamod");
}
