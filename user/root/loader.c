/* Loading boot modules as tasks: ELF segments copied into root's memory and paged from there,
 * plus a stack, a start record and a heap paged on demand (docs/root-task.md).  A load that
 * fails gives back everything it took. */
#include "root.h"
#include "../../kernel/elf.h"
#include <string.h>
#include <stdio.h>
#include <stdlib.h>

/* Boot modules and the boot information lie in boot-loader memory, which sigma0 hands out by
 * physical address.  We see it in our physical window, at ROOT_PHYS_WINDOW + its address:
 * away from our heap and areas wherever the kernel put it, and aligned as it is, so that one
 * request maps a naturally aligned block of up to 1 GiB (a GiB-sized module takes a few). */
l4_word_t phys_map(l4_word_t start, l4_word_t size)
{
    l4_word_t p = start & ~0xFFFul, end = (start + size + 0xFFF) & ~0xFFFul;
    if (end < p || end > ROOT_PHYS_WINDOW_SIZE)
        return 0;
    while (p < end) {
        unsigned log2 = 12;
        while (log2 < 30 && !(p & ((2ul << log2) - 1)) && end - p >= (2ul << log2))
            log2++;
        if (l4_is_nil_fpage(l4_sigma0_get_page(l4_sigma0_tid(), l4_fpage_log2(p, log2) | L4_RWX,
                                               l4_fpage_log2(ROOT_PHYS_WINDOW + p, log2))))
            return 0;
        p += 1ul << log2;
    }
    return ROOT_PHYS_WINDOW + start;
}

l4_word_t cmdline_option(const char *cmdline, const char *key, l4_word_t dflt)
{
    size_t n = strlen(key);
    for (const char *p = cmdline; (p = strstr(p, key)); p++)
        if ((p == cmdline || p[-1] == ' ') && p[n] == '=')
            return strtoul(p + n + 1, NULL, 0);
    return dflt;
}

/* A word of the command line after the path, standing alone. */
bool cmdline_has_word(const char *cmdline, const char *word)
{
    size_t n = strlen(word);
    const char *p = strchr(cmdline, ' ');
    while (p) {
        p++;
        if (!strncmp(p, word, n) && (p[n] == ' ' || !p[n]))
            return true;
        p = strchr(p, ' ');
    }
    return false;
}

/* The module's name: the text after the last '/' of its path, up to the first space. */
void name_of_path(char *out, size_t n, const char *cmdline)
{
    const char *sp = strchr(cmdline, ' ');
    size_t len = sp ? (size_t)(sp - cmdline) : strlen(cmdline);
    const char *base = cmdline;
    for (size_t i = 0; i < len; i++)
        if (cmdline[i] == '/')
            base = cmdline + i + 1;
    len -= (size_t)(base - cmdline);
    if (len >= n)
        len = n - 1;
    memcpy(out, base, len);
    out[len] = 0;
}

/* A copy of segment s (its file bytes at `file`) at [lo, hi) of t.  One contiguous block; for
 * a task with colours (colours=MASK) page by page from its colours instead, so that its data,
 * bss and the stack crt0 keeps there share its cache partition (docs/cache-partitioning.md). */
static bool load_segment(struct task *t, const uint8_t *file, const struct elf_segment *s,
                         l4_word_t lo, l4_word_t hi, unsigned rights)
{
    bool coloured = t->colours != ~0ull;
    uint8_t *mem = coloured ? NULL : root_alloc(hi - lo);
    if (!coloured && !mem) {
        printf("root: %s: out of memory\n", t->name);
        return false;
    }
    struct region *r = add_region(t, lo, hi, (l4_word_t)mem, rights, true);
    if (!r) {
        root_free(mem, hi - lo);
        printf("root: %s: too many segments\n", t->name);
        return false;
    }
    if (!coloured) {
        memcpy(mem + (s->vaddr - lo), file, s->filesz);
        return true;
    }
    for (l4_word_t page = lo; page < hi; page += 4096) {
        uint8_t *p = (uint8_t *)region_page(t, r, page);
        if (!p) {
            printf("root: %s: out of memory\n", t->name);
            return false;                   /* task_release takes back what it has */
        }
        l4_word_t from = page > s->vaddr ? page : s->vaddr, to = s->vaddr + s->filesz;
        if (to > page + 4096)
            to = page + 4096;
        if (from < to)
            memcpy(p + (from - page), file + (from - s->vaddr), to - from);
    }
    return true;
}

struct task *load_module(l4_word_t phys, l4_word_t size, const char *cmdline)
{
    struct task *t = new_task();
    l4_word_t start = t ? phys_map(phys, size) : 0;
    if (!start) {
        printf("root: %s: no room or module not accessible\n", cmdline);
        if (t)
            task_release(t);
        return NULL;
    }
    name_of_path(t->name, sizeof(t->name), cmdline);
    t->colours = cmdline_option(cmdline, "colours", ~0ul) ?: ~0ul;    /* 0: any */

    struct elf_image img;
    enum elf_error e = elf_parse((const void *)start, size, &img);
    if (e != ELF_OK) {
        printf("root: %s: %s\n", t->name, elf_strerror(e));
        goto fail;
    }
    for (unsigned i = 0; i < img.nseg; i++) {
        const struct elf_segment *s = &img.seg[i];
        l4_word_t lo = s->vaddr & ~0xFFFul, hi = (s->vaddr + s->memsz + 0xFFF) & ~0xFFFul;
        if (hi > L4_USER_AREA_END || hi <= lo) {
            printf("root: %s: segment outside the user area\n", t->name);
            goto fail;
        }
        unsigned rights = L4_R | ((s->flags & ELF_PF_W) ? L4_W : 0) | ((s->flags & ELF_PF_X) ? L4_X : 0);
        if (!load_segment(t, (const uint8_t *)start + s->offset, s, lo, hi, rights))
            goto fail;
    }
    /* The start record: the page at TASK_STACK_TOP, where the initial RSP points. */
    struct l4_task_start *ts = root_alloc_coloured_page(t->colours);
    if (!ts)
        goto nomem;
    if (!add_region(t, TASK_STACK_TOP, TASK_STACK_TOP + 4096, (l4_word_t)ts, L4_R | L4_W, true)) {
        root_free(ts, 4096);
        printf("root: %s: too many segments\n", t->name);
        goto fail;
    }
    ts->magic = L4_TASK_START_MAGIC;
    ts->root = l4_my_global_id();
    ts->heap_base = TASK_HEAP_BASE;
    ts->heap_size = cmdline_option(cmdline, "heap", 16) << 20;
    strncpy(ts->cmdline, cmdline, sizeof(ts->cmdline) - 1);
    if (!add_region(t, TASK_STACK_TOP - TASK_STACK_SIZE, TASK_STACK_TOP, 0, L4_R | L4_W, true) ||
        (ts->heap_size &&
         !add_region(t, TASK_HEAP_BASE, TASK_HEAP_BASE + ts->heap_size, 0,
                     L4_R | L4_W | (cmdline_option(cmdline, "heapx", 0) ? L4_X : 0), true))) {
        printf("root: %s: too many segments\n", t->name);
        goto fail;
    }

    /* The space and its first thread, paged by us. */
    l4_word_t me = l4_my_global_id(), tid = new_thread_id(), old;
    bool made = tid && l4_thread_control(tid, tid, me, 0, ~0ul) &&
                l4_space_control(tid, 0, l4_fpage_log2(TASK_KIP_AREA, 12),
                                 l4_fpage_log2(TASK_UTCB_AREA, TASK_UTCB_LOG2), 0, &old) &&
                l4_thread_control(tid, tid, 0, me, TASK_UTCB_AREA);
    if (!made || !register_thread(tid, t, me)) {
        printf("root: %s: cannot create its space (error %lu)\n", t->name,
               tid && !made ? l4_error_code() : (l4_word_t)L4_ERR_NO_MEM);
        if (tid) {
            l4_thread_control(tid, 0, 0, 0, ~0ul);      /* the space goes with it */
            free_thread_id(tid);
        }
        goto fail;
    }
    l4_schedule(tid, ~0ul, ~0ul, cmdline_option(cmdline, "prio", 100), ~0ul, &old);
    t->trusted = true;                          /* boot modules are trusted servers */
    t->tid = tid;
    l4_set_mr(0, l4_tag_make(0, 2, 0));
    l4_set_mr(1, img.entry);
    l4_set_mr(2, TASK_STACK_TOP);
    l4_send(tid);
    printf("root: started %s as %lx\n", t->name, tid);
    return t;

nomem:
    printf("root: %s: out of memory\n", t->name);
fail:
    task_release(t);
    return NULL;
}
