/* The debug kernel's checks of the CPU state at every kernel entry and exit (CONFIG_INVARIANTS,
 * build/kernel-debug.bin; docs/cpu-state.md).  They catch what issue 12 was: code running at
 * CPL 0 that did not come in through the kernel's own doors (a call gate planted in an LDT
 * entered ring 0 at an address of the attacker's choosing), and frames that would leave for
 * user mode with anything but the user selectors and RFLAGS a CPL-3 program can hold.  A
 * failure dumps the frame and enters the kernel debugger (with kdb=batch: QEMU exits with 5). */
#include "frame.h"

#ifdef CONFIG_INVARIANTS
#include "x86.h"
#include "cpu.h"
#include "tcb.h"
#include "sched.h"
#include "console.h"
#include "kdb/kdb.h"

extern char _text_start[], _text_end[], kernel_stack_boot[];
#define BOOT_STACK_SIZE 16384               /* boot.S */

static NORETURN void failed(const struct frame *f, const char *where, const char *what)
{
    printk("\nPANIC: invariant (%s): %s\n", where, what);
    if (f)
        arch_dump_frame(f);
    kdb_enter("invariant", (struct frame *)f);
    arch_halt_forever();
}

#define REQUIRE(cond, f, where, what) do { if (!(cond)) failed(f, where, what); } while (0)

static bool in_kernel_text(word_t ip)
{
    return ip >= (word_t)_text_start && ip < (word_t)_text_end;
}

/* A stack pointer the kernel may be running on: the current thread's kernel stack, the boot
 * stack (the idle thread's), or an IST stack (NMI, #DF, #MC). */
static bool on_kernel_stack(word_t sp)
{
    struct tcb *cur = cpu0.current;
    if (cur && cur != idle_tcb && sp > (word_t)cur + TCB_STACK_BOTTOM && sp <= tcb_kstack_top(cur))
        return true;
    if (sp > (word_t)kernel_stack_boot && sp <= (word_t)kernel_stack_boot + BOOT_STACK_SIZE)
        return true;
    return cpu_on_ist_stack(sp);
}

/* RFLAGS as a CPL-3 program can hold them: IF and bit 1 set, IOPL, VM, VIF, VIP and the
 * reserved bits clear. */
static bool user_rflags(word_t fl)
{
    return !(fl & ~RFLAGS_CPL3_POSSIBLE) && (fl & (RFLAGS_IF | RFLAGS_FIXED)) ==
           (RFLAGS_IF | RFLAGS_FIXED);
}

static word_t live_cs(void)
{
    word_t cs;
    __asm__ volatile("mov %%cs, %0" : "=r"(cs));
    return cs;
}

static word_t live_ss(void)
{
    word_t ss;
    __asm__ volatile("mov %%ss, %0" : "=r"(ss));
    return ss;
}

/* The CPU state the kernel runs with after any entry: CPL 0 with the kernel's code segment,
 * interrupts off, and none of the flags a user could have left set (SFMASK clears them on
 * syscall; interrupt gates clear IF, TF and NT, interrupt_common DF and AC). */
static void check_live(const struct frame *f, const char *where)
{
    word_t fl = read_rflags();
    REQUIRE(live_cs() == GDT_KERNEL_CS, f, where, "CS is not the kernel's code segment");
    REQUIRE(!(fl & (RFLAGS_IF | RFLAGS_TF | RFLAGS_NT | RFLAGS_DF)), f, where,
            "IF, TF, NT or DF set in the kernel");
    REQUIRE(!cpu_has_smap || !(fl & RFLAGS_AC), f, where, "AC set in the kernel (SMAP open)");
}

/* The vectors whose gates switch to an IST stack (cpu.c): NMI, #DF, #MC. */
static bool ist_vector(word_t v)
{
    return v == 2 || v == 8 || v == 18;
}

/* A frame that came from, or goes back to, user mode: at the top of the current thread's
 * kernel stack (or on an IST stack, for the vectors that have one), with the user selectors
 * and user RFLAGS; leaving, also a canonical RIP (one that the CPU put in the frame, RCX after
 * a `syscall` at the very end of the lower half, say, is legal until entry.S's
 * USER_RIP_CHECK has turned it into the thread's #GP). */
static void check_user_frame(const struct frame *f, const char *where, bool leaving)
{
    struct tcb *cur = cpu0.current;
    if (cpu_on_ist_stack((word_t)f))
        REQUIRE(ist_vector(f->vector), f, where, "an IST stack for a vector without one");
    else
        REQUIRE(cur && cur != idle_tcb && f == tcb_frame(cur), f, where,
                "user frame not at the top of the current thread's kernel stack");
    REQUIRE(f->cs == GDT_USER_CS, f, where, "user CS is not 0x23");
    REQUIRE(f->ss == GDT_USER_DS, f, where, "user SS is not 0x1b");
    REQUIRE(!leaving || arch_canonical(f->rip), f, where, "non-canonical user RIP");
    REQUIRE(user_rflags(f->rflags), f, where, "user RFLAGS a CPL-3 program cannot hold");
}

void entry_check_trap(const struct frame *f)
{
    const char *where = "trap entry";
    check_live(f, where);
    if ((f->cs & 3) == 3) {
        check_user_frame(f, where, false);
        return;
    }
    /* From CPL 0: only the kernel's own code, on one of its stacks, can have been
     * interrupted; device interrupts only where the kernel enabled them. */
    REQUIRE(f->cs == GDT_KERNEL_CS, f, where, "CPL 0 with a CS that is not the kernel's");
    REQUIRE(in_kernel_text(f->rip), f, where, "CPL 0 at a RIP outside the kernel's text");
    /* (An NMI or #MC may come between the two instructions that switch between the user's
     * and the kernel's stack at syscall entry and before sysret.) */
    REQUIRE(ist_vector(f->vector) || on_kernel_stack(f->rsp), f, where,
            "CPL 0 on a stack that is not the kernel's");
    REQUIRE(on_kernel_stack((word_t)f), f, where, "frame not on a kernel stack");
    REQUIRE(cpu_on_ist_stack((word_t)f) == ist_vector(f->vector), f, where,
            "an IST stack for a vector without one, or none for one with");
    REQUIRE(f->vector < 32 || (f->rflags & RFLAGS_IF), f, where,
            "an interrupt while the kernel had interrupts off");
}

void entry_check_syscall(const struct frame *f)
{
    const char *where = "syscall entry";
    check_live(f, where);
    /* `syscall` loads SS from STAR (the kernel data selector); an interrupt or a call gate
     * into the kernel leaves a null SS. */
    REQUIRE(live_ss() == GDT_KERNEL_DS, f, where, "SS is not what syscall loads");
    check_user_frame(f, where, false);
    REQUIRE(f->rip <= L4_USER_AREA_END ||
            (f->rip >= SYSCALL_PAGE_USER && f->rip < SYSCALL_PAGE_USER + PAGE_SIZE),
            f, where, "syscall from an address user code cannot execute");
}

void exit_check(const struct frame *f)
{
    const char *where = "exit";
    if ((f->cs & 3) == 3) {
        check_user_frame(f, where, true);
        return;
    }
    REQUIRE(f->cs == GDT_KERNEL_CS, f, where, "return to CPL 0 with another CS");
    REQUIRE(in_kernel_text(f->rip), f, where, "return to CPL 0 outside the kernel's text");
}

/* (On the C paths' ways out the RIP is checked by entry.S after this; the IPC fast paths'
 * sysret frames hold the Ipc stub's return address: canonical.) */
void arch_check_user_frame(struct tcb *t, const char *where)
{
    check_user_frame(tcb_frame(t), where, false);
}
#endif
