/* Thread context on x86-64: the user frame, switching threads and address spaces, lazy FPU. */
#include "arch.h"
#include "frame.h"
#include "paging.h"
#include "x86.h"
#include "cpu.h"
#include "tcb.h"
#include "space.h"
#include "lib.h"
#include "console.h"

void switch_context(word_t *save_ksp, word_t new_ksp);
void switch_to_continuation(word_t *save_ksp, word_t frame_base, void (*fn)(struct tcb *),
                            struct tcb *to);
NORETURN void run_continuation(word_t frame_base, void (*fn)(struct tcb *), struct tcb *t);

/* Read by the switch tail (switch_tail.h) too. */
struct tcb *fpu_owner;
bool fpu_ts_set = true;

/* thread_switch.S */
void arch_thread_switch(struct tcb *from, struct tcb *to);

void arch_thread_init_frame(struct tcb *t, word_t ip, word_t sp)
{
    struct frame *f = tcb_frame(t);
    memset(f, 0, sizeof(*f));
    f->rip = ip;
    f->rsp = sp;
    f->rflags = RFLAGS_USER_DEFAULT;
    f->cs = GDT_USER_CS;
    f->ss = GDT_USER_DS;
}

word_t arch_user_ip(struct tcb *t)    { return tcb_frame(t)->rip; }
word_t arch_user_sp(struct tcb *t)    { return tcb_frame(t)->rsp; }
word_t arch_user_flags(struct tcb *t) { return tcb_frame(t)->rflags; }
void arch_set_user_ip(struct tcb *t, word_t ip)
{
    tcb_frame(t)->rip = ip;
    t->flags |= TF_USER_STATE;      /* the return path checks it (thread.c) */
}
void arch_set_user_sp(struct tcb *t, word_t sp)  { tcb_frame(t)->rsp = sp; }

void arch_set_user_flags(struct tcb *t, word_t flags)
{
    struct frame *f = tcb_frame(t);
    f->rflags = (f->rflags & ~RFLAGS_USER_MASK) | (flags & RFLAGS_USER_MASK);
}

/* --- address spaces ------------------------------------------------------------------ */

/* A space is tagged with a PCID only where the CPU has INVPCID too, so that the TLB entries of
 * a space that is not loaded can be dropped when its mappings change, at once (INVPCID by
 * address or by PCID) instead of by a flag that every switch would have to test: the switch
 * (switch_tail.h) loads space->cr3 and does nothing else.  Without INVPCID every space has
 * PCID 0 and every load flushes, as without PCIDs. */
#define CR3_NOFLUSH    (1ul << 63)      /* with PCIDs: keep the PCID's TLB entries */
#define CR3_ADDR       (~0xFFFul)       /* the PML4 (bits 11:0: PCID, or PWT/PCD = 0) */

static uint8_t pcid_used[4096 / 8];

static bool pcids_tag_spaces(void)
{
    return cpu_features.pcid && cpu_features.invpcid;
}

enum { INVPCID_ADDRESS = 0, INVPCID_CONTEXT = 1 };

/* The first spaces (sigma0's, the root task's) get theirs before cpu_enable_pcid sets
 * CR4.PCIDE: nothing loads them until then (kmain). */
static uint16_t pcid_alloc(void)
{
    if (!pcids_tag_spaces())
        return 0;
    for (unsigned p = 1; p < 4096; p++)
        if (!(pcid_used[p / 8] & (1u << (p % 8)))) {
            pcid_used[p / 8] |= 1u << (p % 8);
            return p;
        }
    return 0;   /* all in use: this space shares PCID 0 and is flushed at every switch */
}

void arch_space_init(struct space *s)
{
    s->pcid = pcid_alloc();
    s->cr3 = s->pml4_phys | s->pcid;
    if (s->pcid) {
        s->cr3 |= CR3_NOFLUSH;
        if (cpu_has_pcid)       /* a space that had this PCID left entries behind */
            invpcid(INVPCID_CONTEXT, s->pcid, 0);
    }
}

void arch_pcid_free(uint16_t pcid)
{
    if (pcid)
        pcid_used[pcid / 8] &= ~(1u << (pcid % 8));
}

/* The loaded space: CR3 says it (the fast paths switch spaces without writing it down). */
static bool space_loaded(const struct space *s)
{
    return (read_cr3() & CR3_ADDR) == s->pml4_phys;
}

void arch_space_forget(struct space *s)
{
    if (space_loaded(s))
        write_cr3(kernel_pml4_phys);
}

/* Entries under PCID 0 go at the next load of a space with PCID 0 (such a load never keeps
 * entries), before they can be used again: only a tagged space that is not loaded needs
 * INVPCID. */
void space_tlb_invalidate(struct space *s, word_t va, word_t size)
{
    if (!space_loaded(s)) {
        if (!s->pcid || !cpu_has_pcid)
            return;
        if (size > 64 * PAGE_SIZE)
            invpcid(INVPCID_CONTEXT, s->pcid, 0);
        else
            for (word_t a = va; a < va + size; a += PAGE_SIZE)
                invpcid(INVPCID_ADDRESS, s->pcid, a);
        return;
    }
    if (size > 64 * PAGE_SIZE) {
        write_cr3(s->cr3 & ~CR3_NOFLUSH);
        return;
    }
    for (word_t a = va; a < va + size; a += PAGE_SIZE)
        invlpg(a);
}

/* --- threads ------------------------------------------------------------------------- */

/* The running thread's bases are in the CPU, another thread's in its TCB. */
static word_t cpu_fs_base(void)
{
    if (cpu_has_fsgsbase) {
        word_t v;
        __asm__ volatile("rdfsbase %0" : "=r"(v));
        return v;
    }
    return rdmsr(MSR_FS_BASE);
}

static word_t cpu_gs_base(void)
{
    if (cpu_has_fsgsbase) {
        word_t v;
        __asm__ volatile("rdgsbase %0" : "=r"(v));
        return v;
    }
    return rdmsr(MSR_GS_BASE);
}

void arch_thread_init_bases(struct tcb *t)
{
    t->arch.fs_base = 0;
    t->arch.gs_base = GS_PAGE_USER;
}

word_t arch_thread_fs_base(struct tcb *t)
{
    return t == cpu0.current ? cpu_fs_base() : t->arch.fs_base;
}

word_t arch_thread_gs_base(struct tcb *t)
{
    return t == cpu0.current ? cpu_gs_base() : t->arch.gs_base;
}

void arch_set_thread_bases(struct tcb *t, word_t fs, word_t gs)
{
    t->arch.fs_base = fs;
    t->arch.gs_base = gs;
    if (t != cpu0.current)
        return;                 /* loaded when t next runs */
    if (cpu_has_fsgsbase) {
        __asm__ volatile("wrfsbase %0" :: "r"(fs));
        __asm__ volatile("wrgsbase %0" :: "r"(gs));
    } else {
        wrmsr(MSR_FS_BASE, fs);
        wrmsr(MSR_GS_BASE, gs);
    }
}

void arch_switch(struct tcb *from, struct tcb *to)
{
    arch_thread_switch(from, to);
    if (to->cont) {
        void (*fn)(struct tcb *) = to->cont;
        to->cont = NULL;
        switch_to_continuation(&from->ksp, tcb_kstack_top(to) - FRAME_SIZE, fn, to);
    } else {
        switch_context(&from->ksp, to->ksp);
    }
}

void arch_activate_continuation(struct tcb *t, void (*fn)(struct tcb *))
{
    t->cont = NULL;
    run_continuation(tcb_kstack_top(t) - FRAME_SIZE, fn, t);
}

/* --- lazy FPU ------------------------------------------------------------------------ */

static void fpu_save(struct tcb *t)
{
    void *area = tcb_fpu_area(t);
    if (cpu_features.xsave)
        __asm__ volatile("xsave64 (%0)" :: "r"(area), "a"((uint32_t)cpu_features.xcr0),
                         "d"((uint32_t)(cpu_features.xcr0 >> 32)) : "memory");
    else
        __asm__ volatile("fxsave64 (%0)" :: "r"(area) : "memory");
}

static void fpu_restore(struct tcb *t)
{
    void *area = tcb_fpu_area(t);
    if (cpu_features.xsave)
        __asm__ volatile("xrstor64 (%0)" :: "r"(area), "a"((uint32_t)cpu_features.xcr0),
                         "d"((uint32_t)(cpu_features.xcr0 >> 32)) : "memory");
    else
        __asm__ volatile("fxrstor64 (%0)" :: "r"(area) : "memory");
}

/* #NM: the current thread touches the FPU while another thread's state is loaded. */
void arch_fpu_trap(void)
{
    struct tcb *self = cpu0.current;
    __asm__ volatile("clts");
    fpu_ts_set = false;
    if (fpu_owner == self)
        return;
    if (fpu_owner)
        fpu_save(fpu_owner);
    if (self->arch.fpu_used) {
        fpu_restore(self);
    } else {
        /* First use: load the initial state from a clean image, so nothing of the previous
         * owner's registers (x87, SSE, AVX) leaks.  XSTATE_BV = 0 makes xrstor initialise. */
        uint8_t *area = tcb_fpu_area(self);
        memset(area, 0, TCB_FPU_SIZE);
        *(uint16_t *)area = 0x37F;              /* FCW */
        *(uint32_t *)(area + 24) = 0x1F80;      /* MXCSR */
        fpu_restore(self);
        self->arch.fpu_used = true;
    }
    fpu_owner = self;
}

void arch_fpu_thread_exit(struct tcb *t)
{
    if (fpu_owner == t)
        fpu_owner = NULL;
    t->arch.fpu_used = false;
}
