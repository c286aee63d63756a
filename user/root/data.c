/* Boot modules that are files, not programs (the word `data` on their command line): root
 * keeps them by name, and trusted tasks get them mapped read-only (ROOT_DATA_MAP,
 * docs/root-task.md). */
#include "root.h"
#include <stdio.h>
#include <string.h>

static struct data_module modules[MAX_DATA];
static unsigned nmodules;

bool data_add(l4_word_t phys, l4_word_t size, const char *cmdline)
{
    char name[17] = { 0 };
    name_of_path(name, sizeof(name), cmdline);
    if (nmodules == MAX_DATA) {
        printf("root: %s: too many data modules\n", name);
        return false;
    }
    /* Ours by address, as program modules (sigma0 gives boot-loader memory on request). */
    l4_word_t start = phys_map(phys, size);
    if (!start) {
        printf("root: %s: module not accessible\n", name);
        return false;
    }
    /* Clients see the file at the start of a page: copy one that does not start on one. */
    if ((start & 0xFFF) && size) {
        void *copy = root_alloc(size);
        if (!copy) {
            printf("root: %s: out of memory\n", name);
            return false;
        }
        memcpy(copy, (const void *)start, size);
        start = (l4_word_t)copy;
    }
    struct data_module *m = &modules[nmodules++];
    memcpy(m->name, name, 16);
    m->start = start;
    m->size = size;
    printf("root: data module %s, %lu bytes\n", name, size);
    return true;
}

const struct data_module *data_find(l4_word_t a, l4_word_t b)
{
    for (unsigned i = 0; i < nmodules; i++)
        if (modules[i].name[0] == a && modules[i].name[1] == b)
            return &modules[i];
    return NULL;
}

/* The data module named (a, b), for trusted task t (which we page): its size, and with
 * addr != 0 a read-only region at addr in t's space, paged from the module on demand. */
l4_word_t data_map(struct task *t, l4_word_t a, l4_word_t b, l4_word_t addr, l4_word_t *size)
{
    const struct data_module *m = data_find(a, b);
    if (!m || (!a && !b))
        return L4_ERR_INVALID_PARAM;
    *size = m->size;
    if (!addr)
        return L4_ERR_OK;
    l4_word_t end = addr + ((m->size + 0xFFF) & ~0xFFFul);
    if ((addr & 0xFFF) || !m->size || !l4_is_user_range(addr, end - addr))
        return L4_ERR_INVALID_PARAM;
    /* Not over anything the task has: its regions, its KIP and UTCB areas. */
    l4_word_t ke = TASK_KIP_AREA + 4096, ue = TASK_UTCB_AREA + (1ul << TASK_UTCB_LOG2);
    if ((addr < ke && TASK_KIP_AREA < end) || (addr < ue && TASK_UTCB_AREA < end))
        return L4_ERR_INVALID_PARAM;
    for (unsigned i = 0; i < t->nregions; i++)
        if (addr < t->regions[i].end && t->regions[i].start < end)
            return L4_ERR_INVALID_PARAM;
    if (!add_region(t, addr, end, m->start, L4_R, false))
        return L4_ERR_NO_MEM;
    return L4_ERR_OK;
}
