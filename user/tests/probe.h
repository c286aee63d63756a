/* The probes of test_cpustate (docs/cpu-state.md): one instruction each that must raise an
 * exception, run by a child thread that is either a native X.2 thread in a new space or a
 * thread of a foreign space (docs/linux-abi.md), whose exceptions reach us, its handler, as
 * messages.  Each child's UTCB lies at CS_UTCB, inside the first 64 KiB, where a TI=1 selector
 * made the CPU read a descriptor while the LDTR kept its reset value (issue 12).  Before each
 * probe the child plants the probe's six words in MR2..MR7 of its UTCB: a native thread stores
 * them (its UTCB is its memory), a foreign thread puts them in RDI, RSI, RDX, R10, R8, R9 and
 * makes a system call that takes the kernel's C path, which writes those registers into
 * MR2..MR7: the attack of issue 12, when its UTCB was a kernel page at CS_UTCB (since issue
 * 13 a foreign thread's UTCB is mapped nowhere in its space, docs/linux-abi.md §2.1, and the
 * words do not reach the first 64 KiB).  The probe's
 * instruction must raise exactly the exception the SDM gives, as one exception message; we
 * resume the child at cs_resume, and it goes on with the next probe.
 *
 * Frame probes (iretq, lretq) pop their frame from MR2..MR6 (RSP = CS_MR(2)).  QEMU 7.2 (TCG)
 * reads the frame of a user-mode iretq/lretq with supervisor rights (the SDM: user rights), so
 * with SMAP it faults on a user page before it looks at the selectors: a #PF with U clear,
 * which the kernel reports as an exception (traps.c, pager_can_resolve), not as a page fault
 * its pager could map (it spun for ever, issue 12 item 3).  A foreign thread has no page at
 * CS_UTCB: there the frames fault as not present (a page-fault message).  Each child's first probe,
 * a valid iretq, tells which of the two the CPU does; the frame probes expect the same.
 *
 * Also here: children for single cases (spawn), and the replies a handler gives them. */
#ifndef PROBE_H
#define PROBE_H

#include <libl4.h>

#define CS_UTCB     0x8000ul            /* the children's UTCB (and UTCB area): in the first 64 KiB */
#define CS_MR(n)    (CS_UTCB + 0x200 + 8 * (n))
#define CS_PLANT    1000            /* the foreign child's planting system call */
#define CS_DONE     0xD0E           /* R12 at the child's final ud2 */

/* A receive timeout that is not `never`: the foreign system-call fast path only serves a
 * handler that waits without one, so with it every foreign system call takes the C path,
 * which writes the registers into the thread's MRs (it never expires: the child answers). */
#define SLOW_RCV    l4_timeouts(L4_NEVER, l4_period_from_us(10000000))

#define XSTR(x) STR(x)
#define STR(x) #x

/* The child's step (probe.c): RBX = words[0], MR2..MR7 of its UTCB = words[1..6], R12 =
 * index, then the stub; the handler resumes it at cs_resume, which returns. */
void cs_run(const l4_word_t *words, const char *stub, l4_word_t foreign, l4_word_t index);
/* The probe page: a probe's stub starts with the instruction it tests (RBX: its operand) and
 * ends in ud2. */
typedef char stub_t[];
extern stub_t cs_resume, cs_finish, cs_landed, cs_mov_ds, cs_mov_es, cs_mov_fs, cs_mov_gs,
    cs_mov_ss, cs_lcall64, cs_ljmp64, cs_lcall32, cs_ljmp32, cs_lret, cs_iret, cs_sgdt, cs_sidt,
    cs_sldt, cs_str, cs_smsw, cs_lgdt, cs_lidt, cs_lldt, cs_ltr, cs_rdcr0, cs_rdcr4, cs_wrcr3,
    cs_rddr7, cs_wrdr7, cs_rddr0, cs_rdmsr, cs_wrmsr, cs_rdpmc, cs_swapgs, cs_clts, cs_invlpg,
    cs_wbinvd, cs_hlt, cs_cli, cs_sti, cs_xsetbv, cs_sysenter, cs_rdpkru, cs_icebp, cs_into,
    cs_popf_all, cs_read, cs_write, cs_exec, cs_ldmxcsr, cs_fxrstor, cs_xrstor, cs_int_n,
    cs_probes_end;

enum probe_kind {
    FAULT,          /* raises (vector, error) */
    FRAME,          /* pops a frame from CS_MR(2): raises (vector, error) if the calibration
                     * frame was popped, else what the calibration raised */
    CALIBRATE,      /* a valid iretq from CS_MR(2): lands at cs_landed (#UD) or faults */
    INT_N,          /* int $sel: #GP with the IDT entry's error code (vector 3: #BP) */
    FLAGS_KEPT,     /* #UD with RAX = flags in which IOPL, VM, VIF, VIP are 0 and IF is 1 */
    SDM_OR_QEMU,    /* raises (vector, error) as the SDM says, or a #UD inside the stub where QEMU
                     * 7.2's TCG differs: at the ud2 after an instruction whose check it lacks
                     * (reserved MXCSR bits), at an instruction it does not have (icebp) */
};

struct probe {
    const char *name;
    const char *stub;
    l4_word_t words[7];         /* RBX, then MR2..MR7 */
    unsigned vector;
    l4_word_t error;
    enum probe_kind kind;
};

#define NPROBES(a) (sizeof(a) / sizeof((a)[0]))

/* One message of the child, decoded. */
struct event {
    bool exception, pagefault;
    unsigned vector;
    l4_word_t error, rip, rsp, rflags, rax, rbx, rcx, r12, addr;
};

/* The register set of the message just received: an X.2 exception's MR1..MR18 or a foreign
 * message's MR1..MR20 (indices L4_EXC_*, then the bases). */
struct regs {
    bool foreign;
    l4_word_t w[L4_FREG_WORDS + 1];
};

/* The children a case started: reap() deletes them, whether the case passed or not. */
l4_word_t track(l4_word_t t);
void reap(void);

/* The child's mode, stack and, for run_probes' children, whether it scans the TI=1 selectors
 * with lar/lsl/verr/verw before its end (ldt_visible: how many it found usable). */
extern volatile bool child_foreign;
extern volatile bool child_scans_ldt;
extern volatile unsigned ldt_visible;
extern uint8_t child_stack[16384];

struct event decode(l4_word_t tag);
/* Run probes p[0..n) in a new child (foreign or native); every probe must raise what it
 * expects, and the child must end at cs_finish.  Notes every mismatch. */
bool run_probes(bool foreign, struct probe *p, unsigned n);
/* A case: prepare the table (setup may be NULL), then run it in one child. */
void probe_case(bool foreign, struct probe *p, unsigned n, void (*setup)(void));
#define PROBE_CASE(foreign, table, setup) probe_case(foreign, table, NPROBES(table), setup)

/* A child for a single case running stub with RAX, RDX, R13, R14 (a native child names us its
 * exception handler first): a thread of a new foreign space, or a native thread of a new
 * space (spawn, *tag its first message), or of our space (tu_thread(stub_child, prio) after
 * setting child_entry_stub and child_regs). */
extern const char *child_entry_stub;
extern l4_word_t child_regs[4];             /* RAX, RDX, R13, R14 */
void stub_child(void);
l4_word_t spawn(bool foreign, const char *stub, l4_word_t rax, l4_word_t rdx, l4_word_t r13,
                l4_word_t r14, l4_word_t *tag);

/* Replies, each returning the child's next message (a foreign child's page faults in our image
 * served on the way). */
struct regs get_regs(bool foreign);
l4_word_t put_regs(l4_word_t t, const struct regs *r, l4_word_t timeouts);
l4_word_t resume_at(l4_word_t t, bool foreign, l4_word_t rip);        /* RIP only */
l4_word_t resume_all(l4_word_t t, bool foreign, l4_word_t rip, l4_word_t rflags);
l4_word_t resume_syscall(l4_word_t t);      /* a foreign system call, RAX = 0 */
bool is_ud_at(const struct event *e, const char *where);

#endif
