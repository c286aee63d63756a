/* The generic boot information for the root task (contract §7.3): a Module record for every
 * boot module after sigma0, and a Multiboot record pointing at a copy of the loader's
 * information.  Both live in the boot-data area (boot-loader specific memory, subtype 1). */
#include "bootinfo.h"
#include "boot.h"
#include "bootmem.h"
#include "arch.h"
#include "platform.h"
#include "lib.h"
#include "console.h"
#include <l4/kip.h>

paddr_t bootinfo_build(void)
{
    paddr_t base = bootmem.bootdata.start;
    uint8_t *p = phys_to_virt(base);
    memset(p, 0, BOOTDATA_SIZE);
    struct l4_bootinfo *bi = (struct l4_bootinfo *)p;
    bi->magic = L4_BOOTINFO_MAGIC;
    bi->version = 1;
    bi->first_entry = sizeof(*bi);
    size_t off = sizeof(*bi);
    struct l4_bootrec *last = NULL;
    for (unsigned i = 1; i < boot_params.nmod; i++) {
        const struct boot_module *m = &boot_params.mod[i];
        struct l4_bootrec_module *r = (struct l4_bootrec_module *)(p + off);
        size_t len = strlen(m->cmdline) + 1;
        size_t size = ALIGN_UP(sizeof(*r) + len, 8);
        if (off + size > PAGE_SIZE)
            panic("bootinfo: too many modules");
        r->rec.type = L4_BOOTREC_MODULE;
        r->rec.version = 1;
        r->start = m->start;
        r->size = m->end - m->start;
        r->cmdline_offset = sizeof(*r);
        memcpy((char *)r + sizeof(*r), m->cmdline, len);
        if (last)
            last->offset_next = (word_t)((uint8_t *)r - (uint8_t *)last);
        last = &r->rec;
        off += size;
        bi->num_entries++;
    }
    struct l4_bootrec_multiboot *mb = (struct l4_bootrec_multiboot *)(p + off);
    mb->rec.type = L4_BOOTREC_MULTIBOOT;
    mb->rec.version = 1;
    mb->address = arch_loader_info_copy(p + PAGE_SIZE, BOOTDATA_SIZE - PAGE_SIZE, base + PAGE_SIZE);
    if (last)
        last->offset_next = (word_t)((uint8_t *)mb - (uint8_t *)last);
    off += sizeof(*mb);
    bi->num_entries++;
    bi->size = off;
    return base;
}
