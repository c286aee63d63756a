/* CPU feature detection and per-CPU descriptor tables. */
#ifndef CPU_H
#define CPU_H

#include "types.h"

struct cpu_features {
    bool nx, smep, smap, pcid, invpcid, pge, pdpe1gb, apic, x2apic, tsc_deadline;
    bool fxsr, xsave, avx, fsgsbase, invariant_tsc, umip, sep, mce;
    uint32_t xsave_size;        /* bytes for the xsave area with the components we enable */
    uint64_t xcr0;
    char vendor[13];
    char brand[49];
};

extern struct cpu_features cpu_features;
/* Features in use (not merely present): PCIDs tag address spaces once cpu_enable_pcid ran;
 * FSGSBASE and SMAP are enabled.  The entry code reads them. */
extern bool cpu_has_pcid, cpu_has_fsgsbase, cpu_has_smap;

void cpu_detect(void);
void cpu_init_tables(void);         /* GDT, TSS, IDT */
void cpu_init_features(void);       /* CR0/CR4/EFER bits, PAT, syscall MSRs */
void cpu_set_kernel_stack(word_t top);
void cpu_print_features(void);
void cpu_enable_pcid(void);
void *cpu_tss_page(void);        /* the page whose end holds the TSS (kernel alias) */
bool cpu_on_ist_stack(word_t sp);   /* sp lies in one of the IST stacks (NMI, #DF, #MC) */


#endif
