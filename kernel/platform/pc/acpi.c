/* Find the MADT through the RSDP and read the I/O APICs and ISA interrupt overrides. */
#include "acpi.h"
#include "paging.h"
#include "lib.h"
#include "console.h"

struct acpi_info acpi_info;

struct PACKED rsdp {
    char sig[8];
    uint8_t checksum;
    char oem[6];
    uint8_t revision;
    uint32_t rsdt;
    uint32_t length;
    uint64_t xsdt;
    uint8_t xchecksum, reserved[3];
};

struct PACKED sdt_header {
    char sig[4];
    uint32_t length;
    uint8_t revision, checksum;
    char oem[6], oem_table[8];
    uint32_t oem_rev, creator, creator_rev;
};

static bool checksum_ok(const void *p, size_t n)
{
    uint8_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += ((const uint8_t *)p)[i];
    return sum == 0;
}

static const struct rsdp *scan(paddr_t start, size_t len)
{
    for (paddr_t p = start; p + sizeof(struct rsdp) <= start + len; p += 16) {
        const struct rsdp *r = phys_to_virt(p);
        if (!memcmp(r->sig, "RSD PTR ", 8) && checksum_ok(r, 20))
            return r;
    }
    return NULL;
}

static const struct sdt_header *find_table(const struct rsdp *r, const char *sig)
{
    bool x = r->revision >= 2 && r->xsdt;
    const struct sdt_header *root = phys_to_virt(x ? r->xsdt : r->rsdt);
    if (!checksum_ok(root, root->length))
        return NULL;
    unsigned n = (root->length - sizeof(*root)) / (x ? 8 : 4);
    const uint8_t *ents = (const uint8_t *)(root + 1);
    for (unsigned i = 0; i < n; i++) {
        paddr_t p = x ? ((const uint64_t *)ents)[i] : ((const uint32_t *)ents)[i];
        const struct sdt_header *h = phys_to_virt(p);
        if (!memcmp(h->sig, sig, 4) && checksum_ok(h, h->length))
            return h;
    }
    return NULL;
}

void acpi_init(void)
{
    struct acpi_info *a = &acpi_info;
    a->lapic_addr = 0xFEE00000;
    for (unsigned i = 0; i < 16; i++)
        a->isa[i] = (struct isa_override){ false, i, false, false };

    paddr_t ebda = (paddr_t)(*(uint16_t *)phys_to_virt(0x40E)) << 4;
    const struct rsdp *r = ebda ? scan(ebda, 1024) : NULL;
    if (!r)
        r = scan(0xE0000, 0x20000);
    if (!r)
        return;
    const struct sdt_header *madt = find_table(r, "APIC");
    if (!madt)
        return;
    a->have_madt = true;
    const uint8_t *p = (const uint8_t *)madt + sizeof(*madt);
    a->lapic_addr = *(const uint32_t *)p;
    const uint8_t *end = (const uint8_t *)madt + madt->length;
    for (p += 8; p + 2 <= end && p[1] >= 2; p += p[1]) {
        if (p[0] == 1 && a->nioapic < MAX_IOAPICS) {          /* I/O APIC */
            a->ioapic[a->nioapic].addr = *(const uint32_t *)(p + 4);
            a->ioapic[a->nioapic].gsi_base = *(const uint32_t *)(p + 8);
            a->nioapic++;
        } else if (p[0] == 2 && p[3] < 16) {                 /* interrupt source override */
            uint16_t flags = *(const uint16_t *)(p + 8);
            struct isa_override *o = &a->isa[p[3]];
            o->present = true;
            o->gsi = *(const uint32_t *)(p + 4);
            o->active_low = (flags & 3) == 3;
            o->level = ((flags >> 2) & 3) == 3;
        }
    }
}
