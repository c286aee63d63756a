/* lx's windows onto data modules: the initramfs (main.c; its files' bytes stay there until
 * they change, fs/tmpfs/pages.c) and the program images (task/exec.c), mapped read-only by the
 * root task (ROOT_DATA_MAP) and paged by it.  lx reads a page of one only after page_in has
 * mapped it, never by touching it first: the first touch of a page may come when processes
 * have used up the kernel's memory, and a fault of lx's own would then be refused for ever
 * (docs/linux/memory.md §4).  A refused page is out of memory for whoever needed it.
 *
 * The initramfs's window (up to 1 GiB, a Debian root's 360 MB) keeps a bit per page that is
 * in, so a page costs the call once; other ranges (the images, taken whole when first looked
 * up) are asked for every time. */
#include "mm/module.h"
#include "mm/page.h"

static l4_word_t win_base, win_pages;
static uint64_t win_in[MODULE_WINDOW_MAX / LX_PAGE / 64];      /* 32 KiB of .bss */

bool module_window(l4_word_t base, l4_word_t size)
{
    if (size > MODULE_WINDOW_MAX || (base & ~LX_PAGE_MASK))
        return false;
    win_base = base;
    win_pages = (size + LX_PAGE - 1) / LX_PAGE;
    return true;
}

bool module_in(const void *p, l4_word_t len)
{
    l4_word_t a = (l4_word_t)p & LX_PAGE_MASK, end = (l4_word_t)p + len;
    for (; a < end; a += LX_PAGE) {
        l4_word_t i = (a - win_base) / LX_PAGE;
        bool counted = a >= win_base && i < win_pages;
        if (counted && (win_in[i / 64] >> (i % 64) & 1))
            continue;
        if (!page_in(a, L4_R))
            return false;
        if (counted)
            win_in[i / 64] |= 1ul << (i % 64);
    }
    return true;
}
