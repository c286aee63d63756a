/* CPU feature detection, GDT/TSS/IDT, and the control-register setup of the boot CPU. */
#include "cpu.h"
#include "x86.h"
#include "frame.h"
#include "layout.h"
#include "config.h"
#include "console.h"
#include "lib.h"
#include "paging.h"

struct cpu_features cpu_features;
struct cpu_local cpu0;

struct PACKED tss {
    uint32_t reserved0;
    uint64_t rsp[3];
    uint64_t reserved1;
    uint64_t ist[7];
    uint64_t reserved2;
    uint16_t reserved3;
    uint16_t iomap_base;
};

/* The TSS sits at the end of its own page so that the I/O permission bitmap, which the CPU
 * finds right behind it, starts on the next page boundary (per-space bitmaps, issue 4). */
struct tss_area {
    uint8_t pad[PAGE_SIZE - sizeof(struct tss)];
    struct tss tss;
} __attribute__((aligned(4096)));

static struct tss_area tss_area;

/* RSP0 of the TSS, the kernel stack of the next entry from user mode, as a symbol: the switch
 * tail (switch_tail.h) writes it and the syscall entry reads it (entry.S). */
_Static_assert(offsetof(struct tss_area, tss) + 4 == 3996, "tss_rsp0_field");
__asm__(".globl tss_rsp0_field\n.set tss_rsp0_field, tss_area + 3996");
static uint64_t gdt[7] __attribute__((aligned(16)));

struct PACKED idt_gate {
    uint16_t off_lo, sel;
    uint8_t ist, type;
    uint16_t off_mid;
    uint32_t off_hi, reserved;
};
static struct idt_gate idt[256] __attribute__((aligned(16)));

/* IST stacks for the exceptions that must not trust the current stack. */
static uint8_t ist_stacks[3][4096] __attribute__((aligned(16)));

extern char vector_table[];
extern char syscall_entry[];

void cpu_detect(void)
{
    uint32_t a, b, c, d, max, maxext;
    struct cpu_features *f = &cpu_features;

    cpuid(0, 0, &max, &b, &c, &d);
    memcpy(f->vendor, &b, 4);
    memcpy(f->vendor + 4, &d, 4);
    memcpy(f->vendor + 8, &c, 4);
    cpuid(1, 0, &a, &b, &c, &d);
    f->pcid = c & (1u << 17);
    f->x2apic = c & (1u << 21);
    f->tsc_deadline = c & (1u << 24);
    f->xsave = c & (1u << 26);
    f->avx = c & (1u << 28);
    f->mce = d & (1u << 7);
    f->apic = d & (1u << 9);
    f->sep = d & (1u << 11);
    f->pge = d & (1u << 13);
    f->fxsr = d & (1u << 24);
    if (max >= 7) {
        cpuid(7, 0, &a, &b, &c, &d);
        f->fsgsbase = b & (1u << 0);
        f->smep = b & (1u << 7);
        f->invpcid = b & (1u << 10);
        f->smap = b & (1u << 20);
        f->umip = c & (1u << 2);
    }
    cpuid(0x80000000, 0, &maxext, &b, &c, &d);
    if (maxext >= 0x80000001) {
        cpuid(0x80000001, 0, &a, &b, &c, &d);
        f->nx = d & (1u << 20);
        f->pdpe1gb = d & (1u << 26);
    }
    if (maxext >= 0x80000004) {
        uint32_t *p = (uint32_t *)f->brand;
        for (uint32_t l = 0; l < 3; l++)
            cpuid(0x80000002 + l, 0, &p[l * 4], &p[l * 4 + 1], &p[l * 4 + 2], &p[l * 4 + 3]);
    }
    if (maxext >= 0x80000007) {
        cpuid(0x80000007, 0, &a, &b, &c, &d);
        f->invariant_tsc = d & (1u << 8);
    }
    f->xsave_size = 512;
    f->xcr0 = 0;
    if (f->xsave) {
        uint32_t lo, hi;
        cpuid(0xD, 0, &lo, &b, &c, &hi);
        /* x87, SSE and AVX state only; larger components stay disabled (they would #UD). */
        f->xcr0 = lo & 0x7;
        if (!(f->xcr0 & 4))
            f->avx = false;
    }
}

void cpu_print_features(void)
{
    struct cpu_features *f = &cpu_features;
    printk("cpu: %s %s\n", f->vendor, f->brand);
    printk("cpu: nx=%d smep=%d smap=%d pcid=%d invpcid=%d pge=%d 1g=%d apic=%d x2apic=%d "
           "xsave=%d avx=%d fsgsbase=%d umip=%d\n", f->nx, f->smep, f->smap, f->pcid, f->invpcid,
           f->pge, f->pdpe1gb, f->apic, f->x2apic, f->xsave, f->avx, f->fsgsbase, f->umip);
}

static void set_gate(int vec, void *handler, int dpl, int ist)
{
    word_t h = (word_t)handler;
    idt[vec] = (struct idt_gate){
        .off_lo = h & 0xFFFF, .sel = GDT_KERNEL_CS, .ist = ist,
        .type = 0x8E | (dpl << 5),          /* present, 64-bit interrupt gate */
        .off_mid = (h >> 16) & 0xFFFF, .off_hi = h >> 32,
    };
}


void cpu_set_kernel_stack(word_t top)
{
    tss_area.tss.rsp[0] = top;
}

void cpu_init_tables(void)
{
    struct tss *tss = &tss_area.tss;
    word_t base = IOWIN_BASE + offsetof(struct tss_area, tss);   /* seen through the window */

    gdt[0] = 0;
    gdt[1] = 0x00AF9A000000FFFFul;          /* 0x08 kernel code, 64-bit */
    gdt[2] = 0x00CF92000000FFFFul;          /* 0x10 kernel data */
    gdt[3] = 0x00CFF2000000FFFFul;          /* 0x18 user data, DPL 3 */
    gdt[4] = 0x00AFFA000000FFFFul;          /* 0x20 user code, 64-bit, DPL 3 */
    /* 0x28 TSS: the limit covers the I/O bitmap page(s) behind it plus the final 0xFF byte. */
    word_t limit = sizeof(struct tss) + 8192;
    gdt[5] = (limit & 0xFFFF) | ((base & 0xFFFFFF) << 16) | (0x89ul << 40) |
             (((limit >> 16) & 0xF) << 48) | (((base >> 24) & 0xFF) << 56);
    gdt[6] = base >> 32;

    memset(tss, 0, sizeof(*tss));
    tss->iomap_base = sizeof(struct tss);   /* bitmap starts at the next page */
    for (int i = 0; i < 3; i++)
        tss->ist[i] = (word_t)&ist_stacks[i][4096];

    struct PACKED { uint16_t limit; uint64_t base; } gdtr = { sizeof(gdt) - 1, (word_t)gdt };
    __asm__ volatile("lgdt %0" :: "m"(gdtr));
    __asm__ volatile(
        "pushq %0\n"
        "leaq 1f(%%rip), %%rax\n"
        "pushq %%rax\n"
        "lretq\n"
        "1:\n"
        "movw %w1, %%ds\n"
        "movw %w1, %%es\n"
        "movw %w1, %%ss\n"
        "xorl %%eax, %%eax\n"
        "movw %%ax, %%fs\n"
        "movw %%ax, %%gs\n"
        :: "i"((word_t)GDT_KERNEL_CS), "r"((word_t)GDT_KERNEL_DS) : "rax", "memory");
    __asm__ volatile("ltr %w0" :: "r"(GDT_TSS));
    /* A null LDT: LDTR's reset value (base 0, limit 0xFFFF) would make every TI=1 selector
     * read a descriptor, with supervisor rights, from the first 64 KiB of the current address
     * space, where user memory (a UTCB) lies.  With a null LDTR every such load is a #GP, as
     * on Linux.  Nothing ever loads another LDT. */
    __asm__ volatile("lldt %w0" :: "r"(0));

    for (int v = 0; v < 256; v++)
        set_gate(v, vector_table + 16 * v, 0, 0);
    set_gate(3, vector_table + 16 * 3, 3, 0);     /* int3: kdebug calls from user mode */
    set_gate(2, vector_table + 16 * 2, 0, 2);     /* NMI */
    set_gate(8, vector_table + 16 * 8, 0, 1);     /* double fault */
    set_gate(18, vector_table + 16 * 18, 0, 3);   /* machine check */
    struct PACKED { uint16_t limit; uint64_t base; } idtr = { sizeof(idt) - 1, (word_t)idt };
    __asm__ volatile("lidt %0" :: "m"(idtr));
}

void *cpu_tss_page(void)
{
    return &tss_area;
}

bool cpu_on_ist_stack(word_t sp)
{
    return sp > (word_t)ist_stacks && sp <= (word_t)ist_stacks + sizeof(ist_stacks);
}

static void cpu_patch_fsgsbase(void);

void cpu_init_features(void)
{
    struct cpu_features *f = &cpu_features;
    word_t cr0 = read_cr0();
    cr0 |= CR0_WP | CR0_NE | CR0_MP | CR0_TS;     /* TS: the first FPU use traps (lazy FPU) */
    cr0 &= ~CR0_EM;
    write_cr0(cr0);

    word_t cr4 = read_cr4() | CR4_OSFXSR | CR4_OSXMMEXCPT;
    if (f->pge)
        cr4 |= CR4_PGE;
    if (f->smep)
        cr4 |= CR4_SMEP;
    if (f->smap)
        cr4 |= CR4_SMAP;
    cpu_has_smap = f->smap;
    /* UMIP: sgdt, sidt, sldt, str and smsw are #GP in user mode (they would tell a program
     * where the kernel's tables are).  Machine checks reach the #MC handler (IST 3) instead of
     * shutting the CPU down.  Clear whatever the firmware may have left: VME and PVI (user
     * cli/sti would toggle VIF instead of faulting), TSD (SystemClock reads the TSC in user
     * mode), DE, PCE (rdpmc is #GP in user mode), PKE and CET, whose state the kernel does
     * not switch (docs/cpu-state.md). */
    if (f->umip)
        cr4 |= CR4_UMIP;
    if (f->mce)
        cr4 |= CR4_MCE;
    cr4 &= ~(CR4_VME | CR4_PVI | CR4_TSD | CR4_DE | CR4_PCE | CR4_PKE | CR4_CET);
    if (f->xsave)
        cr4 |= CR4_OSXSAVE;
    /* FSGSBASE: user code may move its FS and GS bases.  Both belong to the thread and are
     * switched with it (switch_tail.h), so a thread that moves GS loses %gs:0 (its UTCB
     * pointer) only for itself. */
    if (f->fsgsbase)
        cr4 |= CR4_FSGSBASE;
    cpu_has_fsgsbase = f->fsgsbase;
    if (!f->fsgsbase)
        cpu_patch_fsgsbase();
    write_cr4(cr4);
    /* PCIDE needs CR3[11:0] = 0 when it is set; the caller enables it after loading CR3. */
    if (f->xsave)
        xsetbv(0, f->xcr0);

    word_t efer = rdmsr(MSR_EFER) | EFER_SCE;
    if (f->nx)
        efer |= EFER_NXE;
    wrmsr(MSR_EFER, efer);

    /* PAT: entries 0-3 keep their power-on types (WB, WT, UC-, UC); 4 = WC, 5 = WP, 6 = UC-,
     * 7 = UC, so that every X.2 memory attribute has an encoding (see paging.h). */
    wrmsr(MSR_PAT, 0x0007050100070406ul);

    /* syscall: kernel CS from STAR[47:32]; sysret: user CS = STAR[63:48] + 16, SS = + 8. */
    wrmsr(MSR_STAR, ((word_t)(GDT_KERNEL_DS | 3) << 48) | ((word_t)GDT_KERNEL_CS << 32));
    wrmsr(MSR_LSTAR, (word_t)syscall_entry);
    wrmsr(MSR_SFMASK, RFLAGS_IF | RFLAGS_DF | RFLAGS_TF | RFLAGS_AC | RFLAGS_NT | RFLAGS_IOPL);
    /* sysenter is not a way in: a null SYSENTER_CS makes it #GP(0) (AMD: #UD in long mode),
     * whatever the firmware left in these MSRs. */
    if (f->sep) {
        wrmsr(MSR_SYSENTER_CS, 0);
        wrmsr(MSR_SYSENTER_ESP, 0);
        wrmsr(MSR_SYSENTER_EIP, 0);
    }
    /* No hardware breakpoints, whatever the firmware left: the kernel never sets any, and
     * user mode cannot reach the debug registers (mov to/from DRn is #GP at CPL 3). */
    __asm__ volatile("mov %0, %%dr7" :: "r"(0x400ul));
    __asm__ volatile("mov %0, %%dr6" :: "r"(0xFFFF0FF0ul));
}

bool cpu_has_pcid, cpu_has_fsgsbase, cpu_has_smap;

/* The expansions of SWITCH_THREAD (switch_tail.h): each starts its FS/GS switch with a 5-byte
 * rdfsbase at `site`; without FSGSBASE that becomes `jmp site_msr` (E9 rel32), written
 * through the physmap alias because the kernel text is mapped read-only. */
extern char ts_fsgs[], ts_fsgs_msr[], fp_fsgs[], fp_fsgs_msr[];
extern char ffp_fsgs_call[], ffp_fsgs_call_msr[], ffp_fsgs_reply[], ffp_fsgs_reply_msr[];
static char *const fsgs_sites[][2] = {
    { ts_fsgs, ts_fsgs_msr }, { fp_fsgs, fp_fsgs_msr },
    { ffp_fsgs_call, ffp_fsgs_call_msr }, { ffp_fsgs_reply, ffp_fsgs_reply_msr },
};

static void cpu_patch_fsgsbase(void)
{
    for (unsigned i = 0; i < sizeof(fsgs_sites) / sizeof(fsgs_sites[0]); i++) {
        char *site = fsgs_sites[i][0];
        int32_t rel = (int32_t)(fsgs_sites[i][1] - (site + 5));
        uint8_t *w = phys_to_virt(kernel_virt_to_phys(site));
        w[0] = 0xE9;
        memcpy(w + 1, &rel, 4);
    }
}

void cpu_enable_pcid(void)
{
    if (cpu_features.pcid) {
        write_cr4(read_cr4() | CR4_PCIDE);
        cpu_has_pcid = true;
    }
}

bool arch_has_1g_pages(void) { return cpu_features.pdpe1gb; }
bool arch_has_nx(void)       { return cpu_features.nx; }

bool arch_phys_addressable(paddr_t pa)
{
    static unsigned bits;
    if (!bits) {
        uint32_t a, b, c, d;
        cpuid(0x80000000, 0, &a, &b, &c, &d);
        bits = 36;
        if (a >= 0x80000008) {
            cpuid(0x80000008, 0, &a, &b, &c, &d);
            bits = a & 0xFF;
        }
    }
    return pa < (1ul << bits);
}
