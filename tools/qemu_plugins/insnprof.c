/*
 * insnprof: an instruction profile of the guest, by translation block (docs/profiling.md).
 *
 * For every translation block (TB) the guest executes: its start address, its number of
 * instructions, how often it ran and how often it was entered from another address class.
 * Classes are address ranges named on the command line (class=NAME:LO-HI, hex, inclusive
 * LO, exclusive HI; the first match wins); an address in none of them is class "other".
 * QEMU 7.2's plugin API cannot read registers (no CR3), so a class is a range of virtual
 * addresses, not an address space: two processes that map code at the same address fall
 * together.  A class change between two consecutive TBs is a "transition": the profile's
 * stand-in for kernel entries and address-space switches.
 *
 *   -plugin build/qemu_plugins/insnprof.so,out=FILE,class=kernel:ffff800000000000-0,...
 *
 * (HI of 0 means the top of the address space.)  At QEMU's exit it writes FILE:
 *   # insnprof 1
 *   class ID NAME TRANSITIONS_IN
 *   tb VADDR NINSNS EXECUTIONS ENTRIES_FROM_OTHER_CLASS CLASS_ID
 * A TB translated again (the TB cache was flushed, or the same address in another process)
 * adds to the same line.  A TB left early (a fault in its middle) counts whole.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MAX_CLASSES 32

struct addr_class {
    char name[32];
    uint64_t lo, hi;                    /* [lo, hi); hi 0: to the top */
    uint64_t transitions_in;
};

/* One per (start address, length): the unit the host tool folds. */
struct tb_record {
    uint64_t vaddr;
    uint64_t executions;
    uint64_t entries;                   /* executions that followed another class's TB */
    uint32_t ninsns;
    uint32_t cls;
};

static struct addr_class classes[MAX_CLASSES];
static unsigned nclasses;               /* the last is "other" */
static char *out_path;

/* Open addressing on (vaddr, ninsns); the records themselves never move (QEMU holds
 * pointers to them as callback data). */
static struct tb_record **table;
static size_t table_size, table_used;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

static uint32_t last_class = UINT32_MAX;

static size_t slot_of(uint64_t vaddr, uint32_t ninsns, size_t size)
{
    uint64_t h = (vaddr ^ ((uint64_t)ninsns << 48)) * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 20) & (size - 1);
}

static void grow(void)
{
    size_t nsize = table_size ? table_size * 2 : 1 << 16;
    struct tb_record **nt = calloc(nsize, sizeof *nt);
    if (!nt) {
        fprintf(stderr, "insnprof: out of memory\n");
        abort();
    }
    for (size_t i = 0; i < table_size; i++) {
        struct tb_record *r = table[i];
        if (!r)
            continue;
        size_t s = slot_of(r->vaddr, r->ninsns, nsize);
        while (nt[s])
            s = (s + 1) & (nsize - 1);
        nt[s] = r;
    }
    free(table);
    table = nt;
    table_size = nsize;
}

static uint32_t class_of(uint64_t vaddr)
{
    for (unsigned i = 0; i + 1 < nclasses; i++)
        if (vaddr >= classes[i].lo && (classes[i].hi == 0 || vaddr < classes[i].hi))
            return i;
    return nclasses - 1;
}

static struct tb_record *record_for(uint64_t vaddr, uint32_t ninsns)
{
    if ((table_used + 1) * 2 > table_size)
        grow();
    size_t s = slot_of(vaddr, ninsns, table_size);
    while (table[s]) {
        if (table[s]->vaddr == vaddr && table[s]->ninsns == ninsns)
            return table[s];
        s = (s + 1) & (table_size - 1);
    }
    struct tb_record *r = calloc(1, sizeof *r);
    if (!r) {
        fprintf(stderr, "insnprof: out of memory\n");
        abort();
    }
    r->vaddr = vaddr;
    r->ninsns = ninsns;
    r->cls = class_of(vaddr);
    table[s] = r;
    table_used++;
    return r;
}

/* One guest vCPU (the harness runs -smp 1 under -icount): no atomics needed. */
static void tb_exec(unsigned int vcpu_index, void *udata)
{
    struct tb_record *r = udata;
    (void)vcpu_index;
    r->executions++;
    if (r->cls != last_class) {
        r->entries++;
        classes[r->cls].transitions_in++;
        last_class = r->cls;
    }
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    pthread_mutex_lock(&table_lock);
    struct tb_record *r = record_for(qemu_plugin_tb_vaddr(tb),
                                     (uint32_t)qemu_plugin_tb_n_insns(tb));
    pthread_mutex_unlock(&table_lock);
    qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS, r);
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
    (void)id, (void)p;
    FILE *f = fopen(out_path, "w");
    if (!f) {
        perror(out_path);
        return;
    }
    fprintf(f, "# insnprof 1\n");
    for (unsigned i = 0; i < nclasses; i++)
        fprintf(f, "class %u %s %" PRIu64 "\n", i, classes[i].name, classes[i].transitions_in);
    for (size_t i = 0; i < table_size; i++) {
        struct tb_record *r = table[i];
        if (r && r->executions)
            fprintf(f, "tb %" PRIx64 " %u %" PRIu64 " %" PRIu64 " %u\n", r->vaddr, r->ninsns,
                    r->executions, r->entries, r->cls);
    }
    fclose(f);
}

/* class=NAME:LO-HI */
static int parse_class(const char *spec)
{
    const char *colon = strchr(spec, ':');
    if (!colon || colon == spec || (size_t)(colon - spec) >= sizeof classes[0].name ||
        nclasses + 1 >= MAX_CLASSES)
        return -1;
    char *end;
    uint64_t lo = strtoull(colon + 1, &end, 16);
    if (*end != '-')
        return -1;
    uint64_t hi = strtoull(end + 1, &end, 16);
    if (*end || (hi && hi <= lo))
        return -1;
    struct addr_class *c = &classes[nclasses++];
    memcpy(c->name, spec, (size_t)(colon - spec));
    c->lo = lo;
    c->hi = hi;
    return 0;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
                                           int argc, char **argv)
{
    (void)info;
    for (int i = 0; i < argc; i++) {
        if (strncmp(argv[i], "out=", 4) == 0) {
            out_path = strdup(argv[i] + 4);
        } else if (strncmp(argv[i], "class=", 6) == 0) {
            if (parse_class(argv[i] + 6) < 0) {
                fprintf(stderr, "insnprof: bad class '%s' (NAME:LO-HI, hex)\n", argv[i] + 6);
                return -1;
            }
        } else {
            fprintf(stderr, "insnprof: unknown argument '%s'\n", argv[i]);
            return -1;
        }
    }
    if (!out_path) {
        fprintf(stderr, "insnprof: out=FILE is required\n");
        return -1;
    }
    strcpy(classes[nclasses++].name, "other");
    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}
