/* In-system test, a phase of test_fuzz: descriptor attacks (issue 12).  Unprivileged threads,
 * two native X.2 spaces' or one native and one foreign space's (docs/linux-abi.md), plant
 * descriptors in every byte of the first 64 KiB they can write (their UTCB's MRs and the rest of
 * its page, their stack, the pages around the KIP, the registers a foreign thread's exception
 * message leaves in its MRs): data and code descriptors of every type and DPL, 64-bit call,
 * interrupt and trap gates to CS 0x08 at kernel addresses (and at a "ring-0 canary" in our
 * code), TSS and LDT descriptors.  Through LDTR's reset value (base 0, limit 0xFFFF) the CPU
 * would read them all.  Then each thread executes, with random selectors and with every one of
 * the 65,536 over a campaign (desc=N: N of them per operation and run, the slice chosen by the
 * seed), every instruction that takes a selector: mov/pop/lfs/lgs/lss into DS, ES, FS, GS and
 * SS, lcall and ljmp through m16:64, lretq [imm16], iretq with the selector as CS or as SS
 * (and random RFLAGS: IOPL, NT, VM, AC, TF, RF, ...), lar, lsl, verr, verw, lldt, ltr.
 *
 * Before each instruction the thread knows the outcome from an exact model (fuzz_segmodel.c)
 * of Pecan's GDT (cpu.c) and a null LDT: done (and what changed: the selector read back, the
 * FS/GS base, CS, SS, RSP, RFLAGS and the stack at the landing pad of a far transfer, ZF and the
 * result of lar/lsl) or which exception with which error code.  Exceptions reach the main thread
 * (this file) as exception messages, native or foreign; it records vector, error code, RIP, RSP
 * and RFLAGS in the thread's slot and resumes the thread at fd_resume, where the thread
 * compares (fuzz_desc_thread.c).  A difference is a violation; so is any return to our code with CS & 3 = 0
 * (the landing pad is the target of planted call gates too) and any page fault in the first
 * 64 KiB while an instruction runs (a descriptor read through an LDT, refused by SMAP).  The
 * first violation of a thread is printed at once (the thread stops), with what the model with
 * LDTR at its reset value says, so a kernel without `lldt` is seen loading the planted
 * descriptors.  docs/testing.md ("Descriptor attacks") says what QEMU does differently from
 * the SDM. */
#include "fuzz.h"
#include "fuzz_desc.h"
#include "testlib.h"
#include "testutil.h"
#include "cmdline.h"
#include <l4/pecan.h>
#include <string.h>

/* The control page (fuzz_desc.h), mapped read-write into the phase's spaces. */
struct fd_ctl fd_ctl __attribute__((aligned(4096)));

/* Our memory behind each space's pages of the first 64 KiB (but the KIP and the UTCBs). */
static uint8_t fd_low[FD_SPACES][FD_PAGES][4096] __attribute__((aligned(4096)));

static const char *const fd_form_names[F_COUNT] = {
    "mov %cx,%ds", "mov %cx,%es", "mov %cx,%fs", "mov %cx,%gs", "mov %cx,%ss",
    "mov (%rsp),%ds", "mov (%rsp),%es", "mov (%rsp),%fs", "mov (%rsp),%gs", "mov (%rsp),%ss",
    "pop %fs", "pop %gs", "lfs m16:32", "lgs m16:32", "lss m16:32",
    "lcall *m16:64", "ljmp *m16:64", "lretq", "lretq $16", "iretq",
    "lar %cx,%rax", "lar (%rsp),%rax", "lsl %cx,%rax", "lsl (%rsp),%rax", "verr %cx",
    "verr (%rsp)", "verw %cx", "verw (%rsp)", "lldt %cx", "ltr %cx", "rdfsbase",
};
static const char *const fd_op_names[SM_NOPS] = {
    "mov ds", "mov es", "mov fs", "mov gs", "mov ss", "lcall", "ljmp", "lretq", "iretq cs",
    "iretq ss", "lar", "lsl", "verr", "verw", "lldt", "ltr",
};

/* ===================================================================================
 * The main thread: rounds of descriptor fuzz threads, their pager and exception handler.
 * =================================================================================== */

extern char __start_fuzztext[], __stop_fuzztext[], __rodata_start[], _erodata[];

static unsigned fd_per_op = 64;     /* desc=N: selectors per operation, exhaustively */
static unsigned fd_random_rounds;   /* descrounds=N: rounds (at least; random operations) */
static bool fd_off;                 /* desc=0 */
static bool fd_foreign = true;      /* foreign=0: two native spaces */
static bool fd_strict;              /* descstrict=1: DS, ES, FS, GS must survive the kernel */
static bool fd_keep;                /* desckeep=1: threads go on after a violation */
static unsigned fd_told;            /* violations reported so far */
static uint32_t fd_mapped[FD_SPACES];   /* pages of the first 64 KiB mapped this round */
static unsigned fd_gen;
static struct {
    l4_word_t rounds, threads, foreign, ops, faults[16], inline_done, transfers, retried;
    l4_word_t kernel_changed, db_traps, skipped, violations, changed_example[3];
} fd_st;

static l4_word_t fd_no(unsigned i) { return l4_kip_user_base() + 4300 + i; }
static l4_word_t fd_page_of(const void *p) { return (l4_word_t)p & ~0xFFFul; }

void fd_configure(void)
{
    unsigned n = (unsigned)cmdline_value("desc", 64);
    fd_per_op = 1;
    while (fd_per_op * 2 <= n && fd_per_op < 65536)     /* a power of two: slices tile */
        fd_per_op *= 2;
    fd_off = n == 0;
    fd_random_rounds = (unsigned)cmdline_value("descrounds", (fz_rounds + 3) / 4);
    fd_foreign = cmdline_value("foreign", 1) != 0;
    fd_strict = cmdline_value("descstrict", 0) != 0;
    fd_keep = cmdline_value("desckeep", 0) != 0;
}

/* The first selector of this run's exhaustive slice: the seed picks one of 65536 / N. */
static unsigned fd_slice(void)
{
    return fd_per_op ? (unsigned)(fz_seed % (65536 / fd_per_op)) * fd_per_op : 0;
}

/* Pecan's GDT as cpu.c builds it; the model cannot see what a thread cannot observe (the TSS
 * descriptor's base and limit, accessed bits of DPL-0 entries).  Loading 0x1B and 0x23 into
 * DS once sets their accessed bits (lar reports them), as any thread's first load would. */
static void fd_gdt_model(void)
{
    uint64_t *g = fd_ctl.gdt;
    g[0] = 0;
    g[1] = 0x00AF9A000000FFFFul;            /* 0x08 kernel code, 64-bit */
    g[2] = 0x00CF92000000FFFFul;            /* 0x10 kernel data */
    g[3] = 0x00CFF3000000FFFFul;            /* 0x18 user data, DPL 3, accessed */
    g[4] = 0x00AFFB000000FFFFul;            /* 0x20 user code, 64-bit, DPL 3, accessed */
    g[5] = 0x00008B0000000000ul;            /* 0x28 TSS (busy), DPL 0 */
    g[6] = 0;                               /* its upper half: type 0 */
    g[7] = 0;
    fd_ctl.gdt_limit = 7 * 8 - 1;
    __asm__ volatile("movw %w0, %%ds\n movw %w1, %%ds\n movw %w2, %%ds"
                     :: "r"(0x1B), "r"(0x23), "r"(0) : "memory");
}

static int fd_slot_of(l4_word_t from)
{
    for (int i = 0; i < FD_THREADS; i++)
        if (fd_ctl.slot[i].tid == from)
            return i;
    return -1;
}

/* What a descriptor fuzz thread gets at addr: our fuzz code, our read-only data (the compiler
 * may put constants there; these threads make no system calls that could pass it on), the
 * control page, and our memory in the first 64 KiB but for the KIP and the UTCB area. */
static bool fd_policy(unsigned space, l4_word_t addr, l4_word_t *src, unsigned *rights)
{
    l4_word_t page = addr & ~0xFFFul;
    if (page >= fd_page_of(__start_fuzztext) && page < (l4_word_t)__stop_fuzztext) {
        *src = page;
        *rights = L4_R | L4_X;
    } else if (page >= fd_page_of(__rodata_start) && page < (l4_word_t)_erodata) {
        *src = page;
        *rights = L4_R;
    } else if (page == fd_page_of(&fd_ctl)) {
        *src = page;
        *rights = L4_R | L4_W;
    } else if (addr < FD_LOW_END && page != FD_KIP_AREA &&
               (page < FD_UTCB_AREA || page >= FD_UTCB_AREA + (1ul << FD_UTCB_LOG2))) {
        *src = (l4_word_t)fd_low[space][page >> 12];
        *rights = L4_R | L4_W;
    } else {
        return false;
    }
    return true;
}

static const char *fd_outcome_name(uint64_t o)
{
    return o == OUT_INLINE ? "done in line" : o == OUT_PAD ? "arrived at the landing pad" :
           o == OUT_EXCEPTION ? "exception" : "nothing";
}

static const char *const fd_what_names[W_COUNT] = {
    [W_OUTCOME] = "outcome (got: outcome, vector, error, value)",
    [W_VECTOR] = "vector or error code (got: outcome, vector, error, value)",
    [W_RIP] = "exception RIP (got: outcome, RIP, RSP, RFLAGS)",
    [W_RSP] = "exception RSP (got: outcome, RIP, RSP, RFLAGS)",
    [W_RFLAGS] = "exception RFLAGS (got: outcome, RIP, RSP, RFLAGS)",
    [W_DB] = "single-step traps (got: outcome, traps)",
    [W_SEG] = "segment registers after it (got: outcome, register, value)",
    [W_BASE] = "FS/GS base after it (got: outcome, 0 FS / 1 GS, base)",
    [W_EXC_SEG] = "a failed load changed the register (got: outcome, register, value)",
    [W_PAD_CS] = "CS at the landing pad (got: outcome, CS, expected)",
    [W_PAD_SS] = "SS at the landing pad (got: outcome, SS, expected)",
    [W_PAD_RSP] = "RSP at the landing pad (got: outcome, RSP, expected)",
    [W_PAD_FLAGS] = "RFLAGS at the landing pad (got: outcome, RFLAGS, expected)",
    [W_PAD_STACK] = "what lcall pushed (got: outcome, RIP, CS)",
    [W_ZF] = "ZF (got: outcome, RFLAGS)",
    [W_FLAGS] = "RFLAGS but ZF (got: outcome, RFLAGS)",
    [W_RESULT] = "destination register (got: outcome, value)",
    [W_RING0] = "our code ran at CPL 0 (a call gate)",
    [W_ADDR] = "page-fault address (got: outcome, RIP, address)",
    [W_KERNEL_SEG] = "a selector changed across the kernel (got: outcome, register, value)",
};

static void fd_describe_result(char *b, size_t n, unsigned kind, unsigned long vector,
                               unsigned long error, unsigned long value)
{
    if (kind == SM_FAULT)
        snprintf(b, n, "exception %lu (error %#lx)", vector, error);
    else if (kind == SM_DONE)
        snprintf(b, n, "done (%#lx)", value);
    else
        snprintf(b, n, "unknown (its descriptor lies where we cannot read)");
}

/* The first violation of thread i, as one line. */
static void fd_report_violation(unsigned i)
{
    volatile struct fd_slot *s = &fd_ctl.slot[i];
    char exp[64], alt[160];
    fd_describe_result(exp, sizeof(exp), (unsigned)s->bad_exp[0], s->bad_exp[1], s->bad_exp[2],
                       s->bad_exp[3]);
    if (s->bad_alt[0] == ~0ul)
        snprintf(alt, sizeof(alt), "unknown (a descriptor in a foreign UTCB, or not in an LDT)");
    else if (s->bad_alt[3] == ~0ul && s->bad_alt[0] == SM_DONE)
        snprintf(alt, sizeof(alt), "a call gate into CPL < 3");
    else {
        fd_describe_result(alt, sizeof(alt), (unsigned)s->bad_alt[0], s->bad_alt[1],
                           s->bad_alt[2], s->bad_alt[3]);
        unsigned d = (unsigned)s->bad_alt_differs;
        size_t n = strlen(alt);
        if (d == 0)
            snprintf(alt + n, sizeof(alt) - n, ", all of which the CPU did");
        else if (d < W_COUNT && fd_what_names[d])
            snprintf(alt + n, sizeof(alt) - n, ", the CPU differs in: %.60s", fd_what_names[d]);
    }
    unsigned w = (unsigned)s->bad_what;
    static char line[640];
    snprintf(line, sizeof(line),
             "descriptor thread %u (%s) op %lu: %s [%s] selector %#lx (other %#lx, target %#lx, "
             "RFLAGS %#lx, frame RFLAGS %#lx): %s: model %s, CPU %s %#lx %#lx %#lx; with LDTR "
             "at its reset value: %s, descriptor at %#lx: %016lx %016lx",
             i, s->foreign ? "foreign" : "native", s->ops, fd_op_names[s->bad_op % SM_NOPS],
             fd_form_names[s->bad_form % F_COUNT], s->bad_sel, s->bad_other, s->bad_target,
             s->bad_flags, s->bad_fflags, w < W_COUNT && fd_what_names[w] ? fd_what_names[w] : "?",
             exp, fd_outcome_name(s->bad_got[0]), s->bad_got[1], s->bad_got[2], s->bad_got[3],
             alt, s->bad_alt_addr, s->bad_alt_desc[0], s->bad_alt_desc[1]);
    test_note("%s", line);
    snprintf(fz_msg, sizeof(fz_msg), "%s", line);
}

/* A message from thread i's CPU, not from the thread: something the model did not foresee. */
static void fd_unexpected(unsigned i, const char *what, l4_word_t a, l4_word_t b, l4_word_t c)
{
    volatile struct fd_slot *s = &fd_ctl.slot[i];
    if (s->violations++)
        return;
    snprintf(fz_msg, sizeof(fz_msg), "descriptor thread %u (%s), op %lu (%s, selector %#lx): "
             "%s: %#lx %#lx %#lx", i, s->foreign ? "foreign" : "native", s->ops,
             fd_form_names[s->form % F_COUNT], s->sel & 0xFFFF, what, a, b, c);
    test_note("%s", fz_msg);
}

/* Reply to an exception of thread i: the registers of the message (in our MRs), changed. */
static void fd_reply_regs(unsigned i, l4_word_t from, bool resume)
{
    volatile struct fd_slot *s = &fd_ctl.slot[i];
    if (resume) {
        l4_set_mr(L4_EXC_RIP, (l4_word_t)fd_resume);
        l4_set_mr(L4_EXC_RSP, s->op_rsp);
        l4_set_mr(L4_EXC_RBX, (l4_word_t)s);
    }
    l4_set_mr(0, s->foreign ? l4_tag_make(L4_FOREIGN_SET_REGS, L4_FREG_WORDS, 0)
                            : l4_tag_make(0, L4_EXC_REGS, 0));
    l4_reply(from);
}

static void fd_handle(l4_word_t tag, l4_word_t from)
{
    int i = fd_slot_of(from);
    if (i < 0)
        return;
    volatile struct fd_slot *s = &fd_ctl.slot[i];
    if (l4_tag_is_proto(tag, L4_PROTO_PAGEFAULT) && l4_tag_u(tag) == 2 && l4_tag_t(tag) == 0) {
        l4_word_t addr = l4_mr(L4_PF_ADDR), src;
        unsigned access = (tag >> 16) & 7, rights;
        bool far = s->form == F_LRET || s->form == F_LRET16 || s->form == F_IRET ||
                   s->form == F_LCALL;
        if (s->in_op && far && addr + 16 >= s->op_rsp && addr < s->op_rsp + 64) {
            /* The far transfer's own stack access faulted (sm_tables.stack_supervisor). */
            if (s->probe)
                fd_ctl.stack_quirk = true;
            if (!s->foreign) {
                if (!s->probe)
                    fd_unexpected((unsigned)i, "page fault on the stack of a far transfer "
                                  "(address, RIP, access)", addr, l4_mr(L4_PF_IP), access);
                return;                         /* (no answer would help) */
            }
            s->exc_vector = SM_PF;
            s->exc_error = access & L4_W ? 3 : 1;
            s->exc_rip = l4_mr(L4_PF_IP);
            s->exc_addr = addr;
            s->exc_pf = 1;
            /* A foreign thread's page fault may be answered with its registers. */
            for (int r = 1; r <= L4_FREG_RSP; r++)
                l4_set_mr(r, 0);
            l4_set_mr(L4_FREG_RIP, (l4_word_t)fd_resume);
            l4_set_mr(L4_FREG_RBX, (l4_word_t)s);
            l4_set_mr(L4_FREG_RSP, s->op_rsp);
            l4_set_mr(0, l4_tag_make(L4_FOREIGN_SET_REGS, L4_FREG_RSP, 0));
            l4_reply(from);
            return;
        }
        if (s->in_op && addr < FD_LOW_END) {
            /* The CPU read a descriptor through an LDT: from a page not mapped yet, or one
             * SMAP refused it (a supervisor read). */
            fd_unexpected((unsigned)i, "page fault in the first 64 KiB during the instruction "
                          "(a descriptor read through an LDT at base 0; address, RIP, access)",
                          addr, l4_mr(L4_PF_IP), access);
            unsigned sp = (unsigned)i / FD_PER_SPACE, pg = (unsigned)(addr >> 12);
            if (!fd_keep || (fd_mapped[sp] & (1u << pg)) ||
                !fd_policy(sp, addr, &src, &rights))
                return;                         /* stuck: a mapped page would fault again */
            s->violations = 0;
        }
        if (fd_policy((unsigned)i / FD_PER_SPACE, addr, &src, &rights) && !(access & ~rights)) {
            if (addr < FD_LOW_END)
                fd_mapped[i / FD_PER_SPACE] |= 1u << (addr >> 12);
            l4_set_mr(0, l4_tag_make(0, 0, 2));
            l4_set_mr(1, l4_map_item(addr & ~0xFFFul));
            l4_set_mr(2, l4_fpage_log2(src, 12) | rights);
            l4_reply(from);
            return;
        }
        fd_unexpected((unsigned)i, "page fault (address, RIP, access)", addr, l4_mr(L4_PF_IP),
                      access);
        return;
    }
    unsigned vector;
    l4_word_t error;
    if (!s->foreign && l4_tag_is_proto(tag, L4_PROTO_EXCEPTION) &&
        l4_tag_u(tag) == L4_EXC_WORDS) {
        vector = (unsigned)l4_mr(L4_EXC_VECTOR);
        error = l4_mr(L4_EXC_ERROR);
    } else if (s->foreign && l4_tag_is_proto(tag, L4_PROTO_FOREIGN_EXCEPTION) &&
               l4_tag_u(tag) == L4_FEXC_WORDS) {
        vector = (unsigned)l4_mr(L4_FEXC_VECTOR);
        error = l4_mr(L4_FEXC_ERROR);
    } else {
        fd_unexpected((unsigned)i, "unexpected message (tag, MR1, MR2)", tag, l4_mr(1), l4_mr(2));
        return;
    }
    l4_word_t rip = l4_mr(L4_EXC_RIP);
    if (vector == SM_DB_VEC) {                  /* TF from an iretq frame: step on */
        s->db_traps++;
        fd_st.db_traps++;
        fd_reply_regs((unsigned)i, from, false);
        return;
    }
    if (!s->in_op) {
        if (vector == 6 && rip == (l4_word_t)&fd_tell) {
            if (fd_told++ < 100)
                fd_report_violation((unsigned)i);
            fd_st.violations++;
            l4_set_mr(L4_EXC_RIP, rip + 2);
            fd_reply_regs((unsigned)i, from, false);
            return;
        }
        if (vector == 6 && rip == (l4_word_t)fd_report)
            fd_report_violation((unsigned)i);
        else if (!(vector == 6 && rip == (l4_word_t)fd_park))
            fd_unexpected((unsigned)i, "exception outside an instruction (vector, error, RIP)",
                          vector, error, rip);
        return;                                 /* no answer: it stops */
    }
    if (vector == SM_PF && s->probe) {
        fd_ctl.stack_quirk = true;
        if (!s->foreign)
            fd_ctl.native_resumable = true;
    }
    s->exc_vector = vector;
    s->exc_error = error;
    s->exc_rip = rip;
    s->exc_addr = s->foreign ? l4_mr(L4_FEXC_ADDR) : ~0ul;
    s->exc_rsp = l4_mr(L4_EXC_RSP);
    s->exc_rflags = l4_mr(L4_EXC_RFLAGS);
    fd_reply_regs((unsigned)i, from, true);
}

/* A space of two threads: native (pager and exception handler: us), or foreign (handler us). */
static bool fd_create_space(unsigned sp, bool foreign, l4_word_t *tids)
{
    l4_word_t me = tu_main_tid(), old;
    l4_word_t a = fd_ctl.slot[sp * FD_PER_SPACE].tid;
    l4_word_t kip = l4_fpage_log2(FD_KIP_AREA, 12), utcb = l4_fpage_log2(FD_UTCB_AREA, FD_UTCB_LOG2);
    bool ok = l4_thread_control(a, a, me, L4_NILTHREAD, ~0ul) &&
              (foreign ? l4_space_control_foreign(a, L4_SPACE_CTL_APPLY | L4_SPACE_CTL_FOREIGN,
                                                  kip, utcb, 0, me, &old)
                       : l4_space_control(a, 0, kip, utcb, L4_NILTHREAD, &old)) &&
              l4_thread_control(a, a, L4_NILTHREAD, me, FD_UTCB_OF(0));
    for (unsigned k = 1; ok && k < FD_PER_SPACE; k++)
        ok = l4_thread_control(fd_ctl.slot[sp * FD_PER_SPACE + k].tid, a, me, me, FD_UTCB_OF(k));
    if (!ok) {
        snprintf(fz_msg, sizeof(fz_msg), "creating descriptor fuzz space %u failed: error %lu",
                 sp, l4_error_code());
        return false;
    }
    for (unsigned k = 0; k < FD_PER_SPACE; k++) {
        unsigned i = sp * FD_PER_SPACE + k;
        tids[k] = fd_ctl.slot[i].tid;
        /* Random time slices: preemptions at random instructions. */
        uint64_t x = fd_ctl.slot[i].seed;
        l4_word_t slice = fz_xorshift(&x) % 1024 + (3ul << 10), oldtc;
        l4_schedule(tids[k], (slice << 16) | 0xFFFF, ~0ul, FD_PRIO, ~0ul, &oldtc);
        /* The slot's address on top of its stack (fd_entry). */
        *(volatile l4_word_t *)&fd_low[sp][FD_STACK_TOP(k) >> 12][FD_STACK_TOP(k) & 0xFFF] =
            (l4_word_t)&fd_ctl.slot[i];
        l4_set_mr(0, l4_tag_make(0, foreign ? 2 : 3, 0));
        l4_set_mr(1, (l4_word_t)fd_entry);
        l4_set_mr(2, FD_STACK_TOP(k));
        l4_set_mr(3, me);                       /* native: the exception handler */
        if (l4_ipc_failed(l4_send(tids[k]))) {
            snprintf(fz_msg, sizeof(fz_msg), "starting descriptor fuzz thread %lx failed",
                     tids[k]);
            return false;
        }
    }
    return true;
}

/* One round: FD_THREADS threads, each with its share of the exhaustive items from *next on
 * (or, probe, each trying one far return: sm_tables.stack_supervisor). */
static bool fd_round(unsigned round, l4_word_t *next, l4_word_t items, bool probe)
{
    l4_word_t ver = 1 + 2 * ++fd_gen, tids[FD_THREADS];
    for (unsigned i = 0; i < FD_THREADS; i++) {
        struct fd_slot *s = &fd_ctl.slot[i];
        memset(s, 0, sizeof(*s));
        s->tid = l4_global_id(fd_no(i), ver);
        s->seed = fz_mix(fz_seed, 0x30000000 + (l4_word_t)fd_gen * FD_THREADS + i);
        s->foreign = fd_foreign && i / FD_PER_SPACE == FD_SPACES - 1;
        s->index = i;
        s->probe = probe;
        s->exh_first = *next;
        s->exh_count = probe ? 0 : items - *next < FD_CHUNK ? items - *next : FD_CHUNK;
        *next += s->exh_count;
        s->random = probe ? 0 : FD_RANDOM;
    }
    for (unsigned sp = 0; sp < FD_SPACES; sp++)
        fd_mapped[sp] = 0;
    for (unsigned sp = 0; sp < FD_SPACES; sp++)
        if (!fd_create_space(sp, fd_ctl.slot[sp * FD_PER_SPACE].foreign,
                             &tids[sp * FD_PER_SPACE]))
            return false;
    fz_watchdog_arm(tids, FD_THREADS);
    fz_quiet_arm();
    l4_set_br(0, 0);
    l4_word_t start = l4_system_clock();
    bool overrun = false;
    for (;;) {
        if (l4_system_clock() - start > FZ_ROUND_MAX_US) {
            overrun = true;
            break;
        }
        l4_word_t from, tag = l4_wait(&from);
        if (l4_ipc_failed(tag))
            continue;
        if (fz_is_quiet(tag, from))
            break;                              /* every thread is done or stopped */
        fd_handle(tag, from);
    }
    bool fired = fz_watchdog_disarm();
    for (unsigned i = 0; i < FD_THREADS; i++)
        tu_kill(tids[i]);
    if (probe) {
        for (unsigned i = 0; i < FD_THREADS; i++)
            if (fd_ctl.slot[i].violations)
                return false;
        return true;
    }
    fd_st.rounds++;
    bool ok = true;
    for (unsigned i = 0; i < FD_THREADS; i++) {
        struct fd_slot *s = &fd_ctl.slot[i];
        fd_st.threads++;
        fd_st.foreign += s->foreign;
        fd_st.ops += s->ops;
        for (unsigned v = 0; v < 16; v++)
            fd_st.faults[v] += s->faults[v];
        fd_st.inline_done += s->inline_done;
        fd_st.transfers += s->transfers;
        fd_st.retried += s->retried;
        fd_st.skipped += s->skipped;
        if (s->kernel_changed && !fd_st.kernel_changed)
            for (unsigned k = 0; k < 3; k++)
                fd_st.changed_example[k] = s->changed_example[k];
        fd_st.kernel_changed += s->kernel_changed;
        if (ok && s->violations)
            ok = false;                         /* fz_msg says it (printed when it happened) */
        else if (ok && !s->done) {
            snprintf(fz_msg, sizeof(fz_msg), "round %u: descriptor thread %u stopped after %lu "
                     "operations in %s, selector %#lx%s%s", round, i, s->ops,
                     fd_form_names[s->form % F_COUNT], s->sel & 0xFFFF,
                     s->in_op ? " (inside the instruction)" : "",
                     fired ? " (the watchdog ended the round)" : overrun ? " (round too long)"
                                                                          : "");
            ok = false;
        }
    }
    return ok && fz_leak_check("descriptor attacks", round);
}

bool fd_phase(void)
{
    if (fd_off) {
        test_note("descriptors: off (desc=0)");
        return true;
    }
    l4_word_t t0 = l4_system_clock();
    fd_gdt_model();
    memset(&fd_st, 0, sizeof(fd_st));
    fd_ctl.strict = fd_strict;
    fd_ctl.keep = fd_keep;
    fd_told = 0;
    fd_ctl.stack_quirk = fd_ctl.native_resumable = false;
    l4_word_t none = 0;
    if (!fd_round(0, &none, 0, true)) {
        test_note("descriptor attacks: the probe round, seed %#lx", fz_seed);
        return false;
    }
    if (fd_ctl.stack_quirk)
        test_note("descriptors: this CPU faults on the stack accesses of lretq, iretq and lcall "
                  "from user mode under SMAP (QEMU 7.2's TCG; docs/testing.md): %s",
                  fd_ctl.native_resumable ? "the kernel reports them as exceptions"
                                          : "native threads leave those out");
    /* The exhaustive items: item w is operation w % SM_NOPS with the selector w / SM_NOPS of
     * the slice (0..N-1), then of the GDT's 0-0x3f. */
    l4_word_t items = ((l4_word_t)fd_per_op + FD_GDT_SELS) * SM_NOPS, next = 0;
    unsigned slice = fd_ctl.slice = fd_slice();
    fd_ctl.per_op = fd_per_op;
    for (unsigned round = 0; next < items || round < fd_random_rounds; round++) {
        l4_word_t first = next;
        if (!fd_round(round, &next, items, false)) {
            /* (fz_msg says what happened; add where) */
            test_note("descriptor attacks: round %u, exhaustive items %lu..%lu, seed %#lx",
                      round, first, next, fz_seed);
            return false;
        }
    }
    l4_word_t us = l4_system_clock() - t0;
    if (fd_st.violations) {
        snprintf(fz_msg, sizeof(fz_msg), "%lu violations (desckeep=1), the first: %s",
                 fd_st.violations, fz_msg);
        return false;
    }
    test_note("descriptors: %lu rounds, %lu threads (%lu foreign), %lu ops (%lu #GP, %lu #NP, "
              "%lu #SS, %lu #PF, %lu done in line, %lu far transfers, %lu single-step traps), "
              "selectors %#x-%#x and 0-0x3f of each of %u operations exhaustively, %lu left "
              "out, %lu retried, %lu.%03lu s",
              fd_st.rounds, fd_st.threads, fd_st.foreign, fd_st.ops, fd_st.faults[SM_GP],
              fd_st.faults[SM_NP], fd_st.faults[SM_SS], fd_st.faults[SM_PF], fd_st.inline_done,
              fd_st.transfers, fd_st.db_traps, slice, fd_per_op ? slice + fd_per_op - 1 : 0,
              SM_NOPS, fd_st.skipped, fd_st.retried, us / 1000000, us / 1000 % 1000);
    if (fd_st.kernel_changed)
        test_note("descriptors: %lu times DS/ES/FS/GS differed after an exception from what "
                  "the thread had loaded (the kernel does not keep them per thread), e.g. %s "
                  "%#lx -> %#lx", fd_st.kernel_changed,
                  (const char *[]){ "DS", "ES", "FS", "GS" }[fd_st.changed_example[0] & 3],
                  fd_st.changed_example[1], fd_st.changed_example[2]);
    return fz_system_works();
}
