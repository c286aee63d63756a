/* sigma0: the root pager.  It owns all physical memory (identity-mapped in its space) and all
 * I/O ports, and hands them out by the sigma0 protocol (contract §6.6): page faults of the
 * threads it pages, memory requests (label -6), I/O faults (label -8). */
#include <libl4.h>
#include <stdio.h>
#include "regions.h"

static bool verbose;
static l4_word_t system_base_id, sigma0_id;

/* The memory the reply being sent maps, if the requester had none of it before (so that a
 * refused mapping can give it all back); size 0: none. */
static struct { l4_word_t who, base; unsigned log2; } sending;

static enum region_kind kind_of_desc(unsigned type)
{
    switch (type) {
    case L4_MEMDESC_CONVENTIONAL: return R_CONV;
    case L4_MEMDESC_SHARED:       return R_SHARED;
    case L4_MEMDESC_DEDICATED:
    case L4_MEMDESC_BOOTLOADER:
    case L4_MEMDESC_ARCH:         return R_NONCONV;
    default:                      return R_RESERVED;
    }
}

static void init_memory(void)
{
    regions_init();
    unsigned n = l4_kip_memdesc_count();
    for (unsigned i = 0; i < n; i++) {
        const struct l4_memdesc *d = l4_kip_memdesc(i);
        if (l4_memdesc_virtual(d))
            continue;
        regions_set(l4_memdesc_low(d), l4_memdesc_high(d), kind_of_desc(l4_memdesc_type(d)), 0);
    }
    /* The initial servers own their images, so their page faults on them succeed. */
    const struct l4_kip_server *s0 = l4_kip_sigma0(), *root = l4_kip_root();
    if (s0->high > s0->low)
        regions_claim(s0->low, s0->high - 1, sigma0_id);
    if (root->high > root->low)
        regions_claim(root->low, root->high - 1, l4_roottask_tid());
}

static void dump(void)
{
    static const char *const kinds[] = { "reserved", "conventional", "non-conventional", "shared" };
    printf("sigma0: %u regions\n", nregions);
    for (unsigned i = 0; i < nregions; i++)
        printf("  %016llx-%016llx %-16s owner %llx\n", (unsigned long long)regions[i].first,
               (unsigned long long)regions[i].last, kinds[regions[i].kind],
               (unsigned long long)regions[i].owner);
}

/* Reply with a map item for [base, base + 2^log2), or a nil fpage. */
static void put_map(l4_word_t base, unsigned log2, bool ok)
{
    l4_set_mr(0, l4_tag_make(0, 0, 2));
    l4_set_mr(1, l4_map_item(ok ? base : 0));
    l4_set_mr(2, ok ? l4_fpage_log2(base, log2) | L4_RWX : L4_NILPAGE);
}

static bool give_memory(l4_word_t who, l4_word_t base, unsigned log2, l4_word_t attr,
                        bool nonconv)
{
    if (log2 < 12 || log2 > 47)
        return false;
    l4_word_t last = base + (1ull << log2) - 1;
    if (last < base || !regions_available(base, last, who, nonconv))
        return false;
    if (attr) {
        /* Set the attribute on our own mapping first; the new mapping inherits it. */
        l4_set_mr(0, l4_fpage_log2(base, log2));
        if (!l4_memory_control(0, attr, attr, attr, attr))
            return false;
    }
    bool fresh = !regions_owns_part(base, last, who);
    if (!regions_claim(base, last, who))
        return false;
    if (fresh)
        sending.who = who, sending.base = base, sending.log2 = log2;
    return true;
}

/* The reply that maps `sending` failed: the kernel had no memory for the mapping (message
 * overflow), or the requester no longer waits.  Whatever part of it did get mapped is
 * unmapped (our own mapping stays), and the memory is free again; without this a block the
 * kernel could not map stayed the requester's until reboot, handed to nobody else. */
static void take_back(void)
{
    l4_set_mr(0, l4_fpage_log2(sending.base, sending.log2) | L4_RWX);
    l4_unmap(0);
    regions_release(sending.base, sending.base + (1ull << sending.log2) - 1, sending.who);
    if (verbose)
        printf("sigma0: %llx (2^%u) taken back from %llx: the map failed (error %llx)\n",
               (unsigned long long)sending.base, sending.log2,
               (unsigned long long)sending.who, (unsigned long long)l4_error_code());
}

/* Returns true if a reply is due (MRs composed). */
static bool handle(l4_word_t from, l4_word_t tag)
{
    unsigned u = l4_tag_u(tag), t = l4_tag_t(tag);
    if (t != 0 || (u != 2 && u != 3))
        return false;
    if (from >= system_base_id && from < sigma0_id)
        return false;                               /* kernel threads: not served */
    l4_word_t mr1 = l4_mr(1), mr2 = l4_mr(2);

    if (l4_tag_is_proto(tag, L4_PROTO_PAGEFAULT)) {
        l4_word_t page = mr1 & ~0xFFFull;
        bool ok = give_memory(from, page, 12, 0, false);
        if (verbose)
            printf("sigma0: page fault %llx from %llx: %s\n", (unsigned long long)mr1,
                   (unsigned long long)from, ok ? "mapped" : "refused");
        put_map(page, 12, ok);
        return true;
    }
    if (l4_tag_is_proto(tag, L4_PROTO_IO_PAGEFAULT) ||
        (l4_tag_is_proto(tag, L4_PROTO_SIGMA0) && l4_is_io_fpage(mr1))) {
        /* sigma0 owns every port; "any" port requests are not meaningful. */
        l4_set_mr(0, l4_tag_make(0, 0, 2));
        l4_set_mr(1, l4_map_item(0));
        l4_set_mr(2, l4_is_io_fpage(mr1) ? mr1 : L4_NILPAGE);
        return true;
    }
    if (l4_tag_is_proto(tag, L4_PROTO_SIGMA0)) {
        unsigned log2 = l4_fpage_size_log2(mr1);
        bool any = (mr1 >> 10) == (~0ull >> 10);
        l4_word_t base = any ? regions_find_free(log2) : l4_fpage_base(mr1);
        bool ok = base != ~0ull && give_memory(from, base, log2, mr2, true);
        if (verbose)
            printf("sigma0: request %llx (2^%u) from %llx: %s\n", (unsigned long long)base,
                   log2, (unsigned long long)from, ok ? "granted" : "refused");
        put_map(base, log2, ok);
        return true;
    }
    if (l4_tag_is_proto(tag, L4_PROTO_SIGMA0_EXT)) {
        if (from != l4_roottask_tid())
            return false;
        if (mr1 == 1) {
            verbose = mr2 != 0;
            return false;
        }
        if (mr1 == 2) {
            dump();
            if (!mr2)
                return false;
            l4_set_mr(0, 0);
            return true;
        }
    }
    return false;
}

int main(void)
{
    l4_image_touch();               /* its own faults later could meet an exhausted kernel */
    sigma0_id = l4_sigma0_tid();
    system_base_id = l4_global_id(l4_kip_system_base(), 1);
    init_memory();
    printf("sigma0: serving %u memory regions\n", nregions);
    if (verbose) dump();
    l4_word_t from;
    l4_word_t tag = l4_wait(&from);
    for (;;) {
        while (l4_ipc_failed(tag))
            tag = l4_wait(&from);
        sending.log2 = 0;
        if (!handle(from, tag)) {
            tag = l4_wait(&from);
            continue;
        }
        tag = l4_reply_wait(from, &from);
        if (sending.log2 && l4_ipc_failed(tag) && !l4_ipc_last_error_rcv())
            take_back();                /* the reply (send phase) failed */
    }
}
