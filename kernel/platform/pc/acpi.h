/* The ACPI tables the kernel needs: the MADT's interrupt controllers. */
#ifndef ACPI_H
#define ACPI_H

#include "types.h"

#define MAX_IOAPICS 4

struct ioapic_info {
    paddr_t addr;
    unsigned gsi_base;
};

struct isa_override {
    bool present;
    unsigned gsi;
    bool active_low, level;
};

struct acpi_info {
    bool have_madt;
    paddr_t lapic_addr;
    unsigned nioapic;
    struct ioapic_info ioapic[MAX_IOAPICS];
    struct isa_override isa[16];
};

extern struct acpi_info acpi_info;
void acpi_init(void);

#endif
