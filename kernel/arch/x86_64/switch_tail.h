/* The tail of every thread switch, as assembly macros: the one definition that the C path
 * (thread_switch.S, called by arch_switch) and the IPC fast path (fastpath.S) both expand, and
 * that any further assembly path switching threads must use too.  Include after
 * asm_offsets.h, in .S files only.
 *
 * SWITCH_SPACE: load the address space whose struct space is in RCX.
 *   in:  RCX = struct space * (not the kernel's)
 *   out: CR3 = space->cr3 (arch_space_init, context.c: the PML4; with PCIDs the space's PCID
 *        and bit 63, keep its TLB entries, which are never stale: a change to a space that
 *        is not loaded drops them at once with INVPCID).  Nothing records which space is
 *        loaded: CR3 itself says it (space_loaded, context.c).
 *   clobbers: R11 (the CR3 value); everything else, the flags included, is preserved
 *
 * SWITCH_THREAD from, to, lid, site: make `to` the current thread, everything but the stacks.
 *   in:  \from = the outgoing TCB (its FS/GS bases are what the CPU holds now),
 *        \to = the incoming TCB; neither may be RAX, RCX, RDX, R8 or R11
 *   out: cpu0.current = to; FS and GS base of `from` saved in from->arch, to's loaded;
 *        TSS RSP0 = top of to's kernel stack (its next entry); the %gs:0 word (gs_page) and
 *        \lid = to's local id (its UTCB pointer); CR0.TS set unless to owns the FPU
 *   site: a global name for this expansion, listed in cpu.c's patch table (cpu_patch_fsgsbase)
 *   clobbers: RCX, R11, the flags, and \lid (may be \from: from is dead when it is written);
 *        without FSGSBASE (MSR path) also RDX (= to's GS base >> 32) and R8; RAX is preserved
 *   RCX and R11 are left holding kernel values (a path returning to user mode reloads them,
 *   as sysret needs them anyway); no other register gets one, or another thread's value.
 *
 * Cost with FSGSBASE and no FPU change: SWITCH_SPACE 2, SWITCH_THREAD 17 (8 of them the FS/GS
 * bases). */
#ifndef SWITCH_TAIL_H
#define SWITCH_TAIL_H

#define ST_MSR_FS_BASE 0xC0000100
#define ST_MSR_GS_BASE 0xC0000101

.macro SWITCH_SPACE
    movq SPACE_CR3(%rcx), %r11
    movq %r11, %cr3
.endm

.macro SWITCH_THREAD from, to, lid, site
    movq \to, cpu0 + CPU_CURRENT(%rip)
    /* The FS and GS bases belong to the thread (a thread that moved them hurts only itself).
     * Without FSGSBASE, cpu.c patches the 5-byte rdfsbase at \site into `jmp \site\()_msr`
     * at boot (cpu_patch_fsgsbase), so that no check costs time here. */
    .global \site, \site\()_msr
\site:
    rdfsbase %rcx
    movq %rcx, TCB_FS_BASE(\from)
    rdgsbase %rcx
    movq %rcx, TCB_GS_BASE(\from)
    movq TCB_FS_BASE(\to), %rcx
    wrfsbase %rcx
    movq TCB_GS_BASE(\to), %rcx
    wrgsbase %rcx
912:
    /* %gs:0 of the X.2 threads (GS base GS_PAGE_USER); the kernel stack of to's next entry */
    movq TCB_LOCAL_ID(\to), \lid
    movq \lid, gs_page(%rip)
    leaq TCB_SIZE_(\to), %r11
    movq %r11, tss_rsp0_field(%rip)
    /* Lazy FPU: CR0.TS is set unless `to` owns the FPU state. */
    cmpq fpu_owner(%rip), \to
    je   913f
    cmpb $0, fpu_ts_set(%rip)
    je   914f
915:
    .pushsection .text.switch_tail, "ax"
    /* Without FSGSBASE: the MSRs (EDX:EAX; RAX is kept in R8). */
\site\()_msr:
    movq %rax, %r8
    movl $ST_MSR_FS_BASE, %ecx
    rdmsr
    shlq $32, %rdx
    orq  %rdx, %rax
    movq %rax, TCB_FS_BASE(\from)
    movl $ST_MSR_GS_BASE, %ecx
    rdmsr
    shlq $32, %rdx
    orq  %rdx, %rax
    movq %rax, TCB_GS_BASE(\from)
    movq TCB_FS_BASE(\to), %rax
    movq %rax, %rdx
    shrq $32, %rdx
    movl $ST_MSR_FS_BASE, %ecx
    wrmsr
    movq TCB_GS_BASE(\to), %rax
    movq %rax, %rdx
    shrq $32, %rdx
    movl $ST_MSR_GS_BASE, %ecx
    wrmsr
    movq %r8, %rax
    jmp  912b
    /* `to` owns the FPU: clear TS if it is set. */
913:
    cmpb $0, fpu_ts_set(%rip)
    je   915b
    clts
    movb $0, fpu_ts_set(%rip)
    jmp  915b
    /* TS is clear (the outgoing thread owns the FPU): set it. */
914:
    movq %cr0, %r11
    orq  $8, %r11
    movq %r11, %cr0
    movb $1, fpu_ts_set(%rip)
    jmp  915b
    .popsection
.endm

#endif
