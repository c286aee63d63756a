/* The root task: starts every boot module after itself as a task (each with its command
 * line), pages them from sigma0's memory, and serves the task service (docs/root-task.md). */
#include "root.h"
#include <stdio.h>
#include <string.h>

/* The boot information lists the modules after sigma0: the first record is ourselves. */
static void start_modules(void)
{
    l4_word_t bi = l4_kip_boot_info();
    if (!bi || !(bi = phys_map(bi, 4096)))          /* the kernel writes one page of records */
        return;
    const struct l4_bootinfo *h = (const struct l4_bootinfo *)bi;
    if (h->magic != L4_BOOTINFO_MAGIC)
        return;
    const struct l4_bootrec *r = (const struct l4_bootrec *)(bi + h->first_entry);
    bool self = true;
    for (unsigned i = 0; i < h->num_entries; i++, r = (const void *)((const char *)r + r->offset_next)) {
        if (r->type != L4_BOOTREC_MODULE)
            continue;
        const struct l4_bootrec_module *m = (const void *)r;
        const char *cmdline = m->cmdline_offset ? (const char *)m + m->cmdline_offset : "";
        if (self) {
            /* Our own options: pool=N limits our memory to N MiB (a test's way to run
             * root out of memory). */
            l4_word_t pool_mib = cmdline_option(cmdline, "pool", ROOT_HEAP_SIZE >> 20);
            if (pool_mib < ROOT_HEAP_SIZE >> 20)
                root_pool_limit(pool_mib << 20);
            self = false;
            continue;
        }
        if (cmdline_has_word(cmdline, "data"))
            data_add(m->start, m->size, cmdline);
        else
            load_module(m->start, m->size, cmdline);
    }
    /* What the loaded tasks hold: a failed load gives everything back (test_root_task.py
     * compares this line between boots with and without broken modules). */
    printf("root: modules loaded, %lu pages in use\n", root_pages_used());
}

int main(void)
{
    l4_image_touch();   /* a fault on our own code later could meet an exhausted kernel */
    printf("root: Pecan root task, %s\n", l4_kip_version_string());
    start_modules();
    l4_word_t from;
    l4_word_t tag = l4_wait(&from);
    for (;;) {
        bool reply = !l4_ipc_failed(tag) &&
                     ((l4_tag_is_proto(tag, L4_PROTO_PAGEFAULT) || l4_tag_is_proto(tag, L4_PROTO_IO_PAGEFAULT))
                          ? serve_fault(from, tag) : serve_request(from, tag));
        /* Never block on a client: reply with a zero send timeout. */
        tag = reply ? l4_ipc(from, L4_ANYTHREAD, l4_timeouts(L4_ZERO_TIME, L4_NEVER), &from)
                    : l4_wait(&from);
    }
}
