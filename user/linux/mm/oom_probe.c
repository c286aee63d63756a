/* The test of lx's own pages under kernel-memory exhaustion (test_lx_mm.py,
 * test_kernel_memory_exhausted_at_each_kind_of_lx_page; docs/linux/memory.md §4).  With
 * `oomprobe=OFFSET`, at the first page of a process that the kernel had no memory to map
 * (main.c, mapping_refused), lx first takes what little the kernel has left (pages of its
 * own where only a mapping node is needed, until one is refused), then
 * uses a page of each kind of its own that nothing has touched before: a page of code, of
 * read-only data and of data (the three below, a page each, used by nothing else) and the
 * initramfs's page at OFFSET (a test puts a large file there, whose bytes lx does not read
 * at start-up).  Before lx faulted its image in at start-up and took module pages by call,
 * any of these faulted for ever and the Linux server hung; now the first three are present
 * and the last is refused (out of memory) and lx goes on to the usual out-of-memory path,
 * which gives the kernel its memory back. */
#include "mm/oom_probe.h"
#include "mm/module.h"
#include "mm/page.h"
#include <stdio.h>

#define INITRD_BASE   0x500000000000ul  /* main.c's */
#define START_STACK   0x7FFF0000ul      /* the root task's stack region for lx (unused) */
#define START_STACK_PAGES 64

l4_word_t oom_probe_offset;

/* A page of code: all `ret`, so a call anywhere in it returns. */
void oom_probe_text(void);
__asm__(".pushsection .text.oom_probe, \"ax\", @progbits\n"
        ".balign 4096\n"
        "oom_probe_text:\n"
        ".fill 4096, 1, 0xc3\n"
        ".popsection");
static const volatile char probe_rodata[4096] __attribute__((aligned(4096))) = { 1 };
static volatile char probe_data[4096] __attribute__((aligned(4096))) = { 2 };

/* Pages of lx's own whose page table exists (the initramfs window's first 2 MiB, where lx
 * read the archive's first header; the unused start-up stack region below the start record),
 * each by call, until the kernel has no mapping node left for one. */
static unsigned take_the_rest(bool *refused)
{
    unsigned n = 0;
    *refused = false;
    for (l4_word_t a = INITRD_BASE + LX_PAGE; a < INITRD_BASE + (2ul << 20) && !*refused;
         a += LX_PAGE, n++)
        *refused = !page_in(a, L4_R);
    for (unsigned k = 1; k <= START_STACK_PAGES && !*refused; k++, n++)
        *refused = !page_in(START_STACK - k * LX_PAGE, L4_R | L4_W);
    return n;
}

void oom_probe(void)
{
    static bool done;
    if (!oom_probe_offset || done)
        return;
    done = true;
    bool refused;
    unsigned n = take_the_rest(&refused);
    oom_probe_text();
    int ro = probe_rodata[0], rw = probe_data[0]++;
    const volatile char *in = (const char *)(INITRD_BASE + oom_probe_offset);
    bool got = module_in((const void *)in, 1);
    printf("lx: oomprobe: %u pages took the rest%s; code, rodata %d, data %d present; "
           "initramfs page %lx %s\n", n, refused ? " (the last refused)" : "", ro, rw,
           oom_probe_offset, got && *in ? "present" : got ? "present (0)" : "refused");
}
