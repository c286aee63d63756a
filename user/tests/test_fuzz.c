/* In-system test: a system-call fuzzer.  Threads call every system call with random and
 * malformed arguments: every argument register the contract lists (§4.2), MR0-MR63, BR0-BR32
 * and the other UTCB words, random typed items (map and grant items of random fpages, string
 * items with random addresses, lengths and substring counts, compound strings), timeouts of
 * every kind including points, nil/any/anylocal ids, ids of existing threads with wrong
 * versions, non-canonical and kernel addresses, huge, I/O and complete fpages.  The kernel must
 * survive all of it (the debug kernel checks its invariants at every entry and exit), answer with
 * the contract's errors, and afterwards still work and have given back its memory.
 *
 * Phases (one TEST each): IPC, typed items and UTCB words, the other calls from unprivileged
 * spaces (privileged ones must fail with error 1 at once), and the privileged calls from the
 * root task's space on a reserved range of thread numbers that the test owns (victims); then
 * the checks that the system still works.  Fuzz threads also check that their x87/SSE
 * registers survive system calls (op_fpu) and read their I/O ports (op_port; the main thread
 * answers the I/O faults).  Everything derives from one seed (FZ_SEED, or seed=N on the module
 * command line; rounds=N changes the length; squeeze=N runs one round in N with the kernel
 * pool full; leak=1 measures kernel memory after every round): a failure repeats, exactly
 * so under -icount, e.g.
 *     tools/qemu_run.py --icount build/kernel-debug.bin sigma0 test_fuzz:"seed=7 rounds=4"
 *
 * The unprivileged fuzz threads run in fresh address spaces, two per space, two spaces per
 * round.  The main thread is their scheduler (random time slices, total quanta and delayed
 * preemption), their pager and their watchdog: it serves their page faults by a fixed policy,
 * answers preemption messages and "ping" calls (which take the IPC fast path), drops
 * everything else, and ends the round when every fuzz thread has finished its budget or is
 * stuck: when a priority-1 thread says nothing else can run and, a few milliseconds later,
 * nobody has made progress or is ready to run.  Then it deletes them all.  A watchdog thread
 * above everyone ends a round whose fuzz threads keep each other busy without ever calling the
 * main thread (which would wait for ever): it deletes them after 800 ms, and that fails the
 * phase.  tools/fuzz.py runs campaigns of many seeds (make fuzz, docs/testing.md).
 *
 * Containment.  Fuzz threads must be able to wreck only themselves, never the harness.  So:
 *  - their code lives in its own section ("fuzztext"), the only image pages they get executable;
 *    the rest of what they see of our image is the control page (fz_ctl), a page of `hlt`s
 *    (the sled), a read-only page full of the sled's address, and a playground of 256 KiB at
 *    FZ_PLAY backed by fz_play.  Their stacks lie in the unused part of their UTCB pages, which
 *    no map, grant, unmap or string transfer can reach except through their own BRs.  They
 *    hold 16 harmless I/O ports (to map, grant and unmap; they never write a port);
 *  - every word they put into MRs, BRs or UTCB words has bit 24 clear ("tame"), and so has
 *    every word the kernel left in their MRs once they look at it (fz_scrub).  The image and
 *    the UTCB area lie in [16 MiB, 32 MiB), so no tame fpage, send base or receive window can
 *    move one of those pages anywhere but by a multiple of 32 MiB (see tame()), and no tame
 *    address points at them: whatever a fuzz thread maps, grants, copies or has an exception
 *    reply load into its registers, it never executes our code at a wrong address or writes
 *    into a stack or the control page;
 *  - ExchangeRegisters changes the IP/SP of the caller itself (to the sled, a system-call stub
 *    or garbage), or of a sibling only with both IP and SP (and maybe flags) at once, which
 *    takes the sibling out of its code for good (counted as wrecked), never its SP or flags
 *    alone halfway through its code; pager and exception handler TCRs name only threads that
 *    never answer a fault with a fault (no ping-pong): the main thread, nobody, kernel and
 *    interrupt threads, the thread itself, or a fuzz thread with a lower index; a sibling's
 *    pager is never set to the caller (which may be the sibling's client already).
 * The privileged fuzz thread never names a thread outside its victims as a target or space. */
#include "testlib.h"
#include "testutil.h"
#include "cmdline.h"
#include "fuzz.h"
#include <string.h>

#define FZ_SEED         0x5EED2024F00DCAFEull   /* the default; seed=N on the command line */

/* --- the shape of the run ----------------------------------------------------------------- */
#define FZ_SPACES       2
#define FZ_PER_SPACE    2
#define FZ_THREADS      (FZ_SPACES * FZ_PER_SPACE)
#define FZ_PRIO         100
#define FZ_ROUNDS       12          /* rounds per unprivileged phase (rounds=N) */
#define FZ_BUDGET       300         /* calls per fuzz thread and round */
#define PRIV_OPS        5000        /* calls of the privileged phase */
#define NVICTIMS        12

/* --- the address space of a fuzz thread ----------------------------------------------------- */
#define FZ_UTCB_AREA    0x01F00000ul            /* 64 KiB; thread i's UTCB page at + i * 4 KiB */
#define FZ_UTCB_LOG2    16
#define FZ_KIP_AREA     0x60000000ul
#define FZ_PLAY         0x40000000ul
#define FZ_PLAY_SIZE    0x40000ul
#define FZ_TAME_BIT     (1ul << 24)
#define FZ_PORTS        0x80            /* 16 ports (POST code, DMA page registers) the fuzz */
#define FZ_PORTS_LOG2   4               /* spaces hold; no fuzz code ever writes a port */
#define FZ_UTCB_OF(i)   (FZ_UTCB_AREA + (l4_word_t)(i) * 0x1000)
#define FZ_LOCAL_OF(i)  (FZ_UTCB_OF(i) + 0x200)
/* The stack: the 3 KiB of the UTCB page above the UTCB (1 KiB at the start of the page). */
#define FZ_STACK_TOP(i) (FZ_UTCB_OF(i) + 0x1000 - 8)

#define FZ_QUIET_LABEL  0x0F11
#define FZ_PING_LABEL   0x0F13          /* a call the main thread answers at once */
#define PRIV_DONE_LABEL 0x0F12
#define FZ_SQUEEZE_EVERY 8          /* one round in 8 runs with the kernel pool full (squeeze=N) */
#define FZ_SETTLE_US    2000        /* after "all blocked": look again after this long ... */
#define FZ_SETTLE_STEPS 5           /* ... and give up on threads that did nothing for 5 looks */

/* Fuzz-thread code: in its own section, and kept from using anything outside it (jump tables
 * and lookup tables would go to .rodata, loops could become calls of memset/memcpy). */
#define FZ_TEXT __attribute__((section("fuzztext"), noinline))
#define FZ_INLINE static inline __attribute__((always_inline))

/* Entries of the system-call stubs, in this order in fz_ctl.stub. */
enum { ST_IPC, ST_LIPC, ST_UNMAP, ST_EXREGS, ST_TC, ST_SC, ST_PC, ST_MC, ST_CLOCK, ST_TSWITCH,
       ST_SCHED, ST_COUNT };

/* What a fuzz thread does (weights per phase in fz_weights). */
enum { OP_IPC, OP_LIPC, OP_UNMAP, OP_EXREGS, OP_SCHED, OP_TSWITCH, OP_CLOCK, OP_KI, OP_TC,
       OP_SC, OP_PC, OP_MC, OP_UTCB, OP_TOUCH, OP_WRECK, OP_PING, OP_FPU, OP_PORT, OP_COUNT };
enum { PH_IPC, PH_ITEMS, PH_OTHER, PH_COUNT };

/* Violation codes: which check failed (reported with three values, see fz_check_names). */
enum { V_IPC_RDI = 1, V_IPC_ERRCODE, V_IPC_FROM, V_UNMAP_RDI, V_UNMAP_MR, V_EXREGS_OTHER,
       V_EXREGS_RESULT, V_SCHED, V_CLOCK, V_KI, V_KI_PRESERVED, V_PRIV, V_MC, V_PING, V_FPU,
       /* the privileged thread's */
       PV_TC_RESULT, PV_TC_SYSTEM_SPACE, PV_SC_RESULT, PV_SC_SYSTEM_SPACE, PV_SCHED_RESULT,
       PV_EXREGS_OTHER, PV_MC_RESULT, PV_PC_RESULT, PV_DELETE, PV_DELETED_EXISTS, PV_MC_RESET,
       PV_REDELETE, PV_CREATE, PV_ACTIVATE, PV_NOT_WAITING, V_COUNT };

struct fz_slot {
    l4_word_t tid, local, seed, budget;
    volatile l4_word_t iterations, violations, done, wrecked;
    volatile l4_word_t bad[4];      /* the first violation: code and three values */
    volatile l4_word_t bad_at;      /* ... in this call */
};

#define FZ_NIDS 25
#define FZ_NSAFE 6
/* The control page, shared read-write with the fuzz threads (nothing else of ours is). */
static struct fz_ctl {
    l4_word_t phase;
    uint16_t weight[OP_COUNT];      /* of each operation, in 1/1000 (fz_weights[phase]) */
    l4_word_t stub[ST_COUNT];
    l4_word_t api_version, api_flags, kernel_id;
    l4_word_t main_tid;
    l4_word_t ids[FZ_NIDS];         /* interesting thread ids (the fuzz threads' among them) */
    l4_word_t safe[FZ_NSAFE];       /* pager / exception handler values (see above) */
    struct fz_slot slot[FZ_THREADS];
} fz_ctl __attribute__((aligned(4096)));

/* The sled: `hlt` everywhere (a #GP in user mode), and a read-only stack of its address. */
static const uint8_t fz_sled[4096] __attribute__((aligned(4096))) = { [0 ... 4095] = 0xF4 };
static const l4_word_t fz_sled_stack[512] __attribute__((aligned(4096))) = {
    [0 ... 511] = (l4_word_t)&fz_sled[0x800]
};
static uint8_t fz_play[FZ_PLAY_SIZE] __attribute__((aligned(4096)));

extern char __start_fuzztext[], __stop_fuzztext[];
extern char __executable_start[], _end[];

/* ===================================================================================
 * The fuzz threads (section fuzztext; nothing here may call code outside it).
 * =================================================================================== */
#pragma GCC push_options
#pragma GCC optimize("no-jump-tables", "no-tree-switch-conversion", \
                     "no-tree-loop-distribute-patterns")

struct fz_regs {
    l4_word_t rax, rbx, rcx, rdx, rsi, rdi, rbp, r8, r9, r10, r11, r12, r13, r14, r15;
    l4_word_t target;               /* fz_raw_call: the stub to call */
};

/* Load every general register from *r, call r->target (a system-call stub) as libl4 does,
 * store every register back into *r.  fz_raw_ki does the same around KernelInterface. */
void fz_raw_call(struct fz_regs *r);
void fz_raw_ki(struct fz_regs *r);
#define FZ_LOAD_ALL                 \
    "movq 0(%rdi), %rax\n"          \
    "movq 8(%rdi), %rbx\n"          \
    "movq 16(%rdi), %rcx\n"         \
    "movq 24(%rdi), %rdx\n"         \
    "movq 32(%rdi), %rsi\n"         \
    "movq 48(%rdi), %rbp\n"         \
    "movq 56(%rdi), %r8\n"          \
    "movq 64(%rdi), %r9\n"          \
    "movq 72(%rdi), %r10\n"         \
    "movq 80(%rdi), %r11\n"         \
    "movq 88(%rdi), %r12\n"         \
    "movq 96(%rdi), %r13\n"         \
    "movq 104(%rdi), %r14\n"        \
    "movq 112(%rdi), %r15\n"        \
    "movq 40(%rdi), %rdi\n"
#define FZ_STORE_ALL_BUT_RDI        \
    "movq %rax, 0(%rdi)\n"          \
    "movq %rbx, 8(%rdi)\n"          \
    "movq %rcx, 16(%rdi)\n"         \
    "movq %rdx, 24(%rdi)\n"         \
    "movq %rsi, 32(%rdi)\n"         \
    "movq %rbp, 48(%rdi)\n"         \
    "movq %r8, 56(%rdi)\n"          \
    "movq %r9, 64(%rdi)\n"          \
    "movq %r10, 72(%rdi)\n"         \
    "movq %r11, 80(%rdi)\n"         \
    "movq %r12, 88(%rdi)\n"         \
    "movq %r13, 96(%rdi)\n"         \
    "movq %r14, 104(%rdi)\n"        \
    "movq %r15, 112(%rdi)\n"
__asm__(".pushsection fuzztext, \"ax\", @progbits\n"
        ".p2align 12\n"                        /* the section starts on a page of its own */
        ".type fz_raw_call, @function\n"
        "fz_raw_call:\n"
        "pushq %rbx\n pushq %rbp\n pushq %r12\n pushq %r13\n pushq %r14\n pushq %r15\n"
        "pushq %rdi\n"
        "pushq 120(%rdi)\n"
        FZ_LOAD_ALL
        "call *(%rsp)\n"
        "xchgq %rdi, 8(%rsp)\n"
        FZ_STORE_ALL_BUT_RDI
        "movq 8(%rsp), %rax\n"
        "movq %rax, 40(%rdi)\n"
        "addq $16, %rsp\n"
        "popq %r15\n popq %r14\n popq %r13\n popq %r12\n popq %rbp\n popq %rbx\n"
        "ret\n"
        ".size fz_raw_call, . - fz_raw_call\n"
        ".p2align 4\n"
        ".type fz_raw_ki, @function\n"
        "fz_raw_ki:\n"
        "pushq %rbx\n pushq %rbp\n pushq %r12\n pushq %r13\n pushq %r14\n pushq %r15\n"
        "pushq %rdi\n"
        FZ_LOAD_ALL
        ".byte 0xf0, 0x90\n"                    /* lock; nop: KernelInterface */
        "xchgq %rdi, (%rsp)\n"
        FZ_STORE_ALL_BUT_RDI
        "movq (%rsp), %rax\n"
        "movq %rax, 40(%rdi)\n"
        "addq $8, %rsp\n"
        "popq %r15\n popq %r14\n popq %r13\n popq %r12\n popq %rbp\n popq %rbx\n"
        "ret\n"
        ".size fz_raw_ki, . - fz_raw_ki\n"
        /* fz_fpu_call(r, pattern, out): load XMM0-15 from pattern[0..31] and the x87 stack
         * from pattern[32..39] (as integers), fz_raw_call(r), store them into out (x87 in
         * pop order: out[32] = pattern[39]). */
        ".p2align 4\n"
        ".type fz_fpu_call, @function\n"
        "fz_fpu_call:\n"
        "pushq %rdx\n"
        "movdqu 0(%rsi), %xmm0\n movdqu 16(%rsi), %xmm1\n movdqu 32(%rsi), %xmm2\n"
        "movdqu 48(%rsi), %xmm3\n movdqu 64(%rsi), %xmm4\n movdqu 80(%rsi), %xmm5\n"
        "movdqu 96(%rsi), %xmm6\n movdqu 112(%rsi), %xmm7\n movdqu 128(%rsi), %xmm8\n"
        "movdqu 144(%rsi), %xmm9\n movdqu 160(%rsi), %xmm10\n movdqu 176(%rsi), %xmm11\n"
        "movdqu 192(%rsi), %xmm12\n movdqu 208(%rsi), %xmm13\n movdqu 224(%rsi), %xmm14\n"
        "movdqu 240(%rsi), %xmm15\n"
        "fninit\n"
        "fildq 256(%rsi)\n fildq 264(%rsi)\n fildq 272(%rsi)\n fildq 280(%rsi)\n"
        "fildq 288(%rsi)\n fildq 296(%rsi)\n fildq 304(%rsi)\n fildq 312(%rsi)\n"
        "call fz_raw_call\n"
        "popq %rdx\n"
        "movdqu %xmm0, 0(%rdx)\n movdqu %xmm1, 16(%rdx)\n movdqu %xmm2, 32(%rdx)\n"
        "movdqu %xmm3, 48(%rdx)\n movdqu %xmm4, 64(%rdx)\n movdqu %xmm5, 80(%rdx)\n"
        "movdqu %xmm6, 96(%rdx)\n movdqu %xmm7, 112(%rdx)\n movdqu %xmm8, 128(%rdx)\n"
        "movdqu %xmm9, 144(%rdx)\n movdqu %xmm10, 160(%rdx)\n movdqu %xmm11, 176(%rdx)\n"
        "movdqu %xmm12, 192(%rdx)\n movdqu %xmm13, 208(%rdx)\n movdqu %xmm14, 224(%rdx)\n"
        "movdqu %xmm15, 240(%rdx)\n"
        "fistpq 256(%rdx)\n fistpq 264(%rdx)\n fistpq 272(%rdx)\n fistpq 280(%rdx)\n"
        "fistpq 288(%rdx)\n fistpq 296(%rdx)\n fistpq 304(%rdx)\n fistpq 312(%rdx)\n"
        "ret\n"
        ".size fz_fpu_call, . - fz_fpu_call\n"
        ".popsection\n");
void fz_fpu_call(struct fz_regs *r, const uint64_t *pattern, uint64_t *out);
#define FZ_FPU_WORDS 40

struct fz {
    uint64_t x;                     /* xorshift64* state */
    volatile l4_word_t *u;          /* our MR0 (UTCB pointer, local id) */
    l4_word_t me, me_local, sib, sib_local;
    unsigned idx;
    struct fz_slot *sl;
    l4_word_t last_clock;
};

FZ_INLINE uint64_t rnd(struct fz *f)
{
    return fz_xorshift(&f->x);
}
#define RB(n) (rnd(f) % (l4_word_t)(n))

/* A word a fuzz thread may put where the kernel reads memory addresses, fpages or send bases
 * (MRs, BRs, UTCB words): bit 24 clear.  Such an fpage of size 2^s < 2^25 lies in the lower
 * half of a 32 MiB block; with s >= 25 it is aligned to 32 MiB.  A map or grant places the
 * send fpage at (window base + send base modulo the window size) rounded to its size: so the
 * upper halves, where our image and the UTCB area are, only ever receive pages from the same
 * offset of another upper half, and the only pages there are ours at their own address. */
FZ_INLINE l4_word_t tame(l4_word_t w)
{
    return w & ~FZ_TAME_BIT;
}

FZ_INLINE l4_word_t fz_fpage(l4_word_t base, unsigned log2)
{
    l4_word_t mask = log2 >= 64 ? ~0ul : (1ul << log2) - 1;
    return (base & ~mask & ~0x3FFul) | ((l4_word_t)(log2 & 0x3F) << 4);
}

FZ_INLINE l4_word_t fz_gid(l4_word_t no, l4_word_t ver)
{
    return (no << 32) | (ver & 0xFFFFFFFFul);
}

/* An address to read or write through the kernel: mostly our playground, the rest nasty. */
FZ_TEXT static l4_word_t rnd_addr(struct fz *f)
{
    l4_word_t a;
    switch (RB(16)) {
    case 0: case 1: case 2: case 3: case 4: case 5:
        a = FZ_PLAY + RB(FZ_PLAY_SIZE); break;
    case 6:  a = FZ_PLAY + FZ_PLAY_SIZE - RB(256); break;      /* runs off the playground */
    case 7:  a = RB(0x10000); break;                          /* low, unmapped */
    case 8:  a = FZ_KIP_AREA + RB(0x1000); break;             /* the read-only KIP */
    case 9:  a = 0xFFFF800000000000ul + RB(1ul << 32); break; /* the kernel's physmap */
    case 10: a = 0xFFFFFFFF80000000ul + RB(1ul << 22); break; /* the kernel image */
    case 11: a = 0xFFFFFF0000001000ul + RB(0x1000); break;    /* the user-readable %gs page */
    case 12: a = 0x0000800000000000ul - RB(2) * 0x1000000; break; /* the end of the user area */
    case 13: a = 0x8000000000000000ul | rnd(f); break;         /* non-canonical */
    case 14: a = 0; break;
    default: a = rnd(f); break;
    }
    return tame(a);
}

/* Flexpages of every kind. */
FZ_TEXT static l4_word_t rnd_fpage(struct fz *f)
{
    l4_word_t rights = RB(16);              /* with the reserved bit 3 now and then */
    l4_word_t w;
    switch (RB(14)) {
    case 0: case 1: case 2: case 3: {
        unsigned log2 = 12 + (unsigned)RB(7);
        w = fz_fpage(FZ_PLAY + RB(FZ_PLAY_SIZE), log2) | rights;
        break;
    }
    case 4:  w = 0x10 | rights; break;                         /* complete */
    case 5:  w = rights; break;                                /* nil */
    case 6:  w = fz_fpage(RB(4) ? 0 : rnd_addr(f), 25 + (unsigned)RB(39)) | rights; break;
    case 7:  /* I/O fpage: mostly of the ports we hold, junk in the upper half now and then */
        w = ((RB(2) ? FZ_PORTS + RB(16) : RB(65536)) << 16) | (RB(RB(2) ? 5 : 20) << 10) |
            0x20 | rights | (RB(8) ? 0 : rnd(f) << 32);
        break;
    case 8:  w = fz_fpage(FZ_KIP_AREA, 12) | rights; break;
    case 9:  w = fz_fpage(rnd_addr(f), (unsigned)RB(12)) | rights; break;  /* below a page */
    case 10: w = fz_fpage(0, 12 + (unsigned)RB(35)) | rights; break;
    case 11: w = fz_fpage(rnd_addr(f), (unsigned)RB(64)) | rights; break;
    default: w = rnd(f); break;
    }
    return tame(w);
}

/* Another fuzz thread of this round, by a local id if it is in our space. */
FZ_TEXT static l4_word_t fz_peer(struct fz *f)
{
    unsigned k = (unsigned)RB(FZ_THREADS);
    if (k / FZ_PER_SPACE == f->idx / FZ_PER_SPACE && RB(2))
        return fz_ctl.slot[k].local;
    return fz_ctl.slot[k].tid;
}

FZ_TEXT static l4_word_t rnd_id(struct fz *f)
{
    switch (RB(12)) {
    case 0: case 1: case 2: case 3: return fz_peer(f);
    case 4: return f->me;
    case 5: return 0;
    case 6: return ~0ul;
    case 7: return 0xFFFFFFFFFFFFFFC0ul;
    case 8: case 9: return fz_ctl.ids[RB(FZ_NIDS)];
    case 10: return fz_gid(RB(1ul << 18), rnd(f));
    default: return rnd(f);
    }
}

/* A thread that never answers a fault with a fault of its own.  As a pager mostly us (the
 * main thread): a thread without a working pager is stuck at its next page fault. */
FZ_TEXT static l4_word_t rnd_safe(struct fz *f, bool pager)
{
    if (pager && RB(32))
        return fz_ctl.main_tid;
    unsigned k = (unsigned)RB(FZ_NSAFE + 2);
    return k == FZ_NSAFE ? f->me : k == FZ_NSAFE + 1 ? f->me_local : fz_ctl.safe[k];
}

/* Our own pager or exception handler: as rnd_safe, or a fuzz thread with a lower index (so
 * that no two threads handle each other's faults: they could do so forever). */
FZ_TEXT static l4_word_t rnd_handler(struct fz *f, bool pager)
{
    if (f->idx == 0 || RB(pager ? 64 : 4))
        return rnd_safe(f, pager);
    unsigned k = (unsigned)RB(f->idx);
    if (k / FZ_PER_SPACE == f->idx / FZ_PER_SPACE && RB(2))
        return fz_ctl.slot[k].local;
    return fz_ctl.slot[k].tid;
}

/* A 16-bit time of any kind: zero, short, never, points, anything. */
FZ_TEXT static l4_word_t rnd_time(struct fz *f)
{
    switch (RB(16)) {
    case 0: case 1: case 2: case 3: case 4:
        return (RB(32) | 1) << 10;                  /* zero: m = 0, any e */
    case 5: case 6: case 7: case 8: case 9:
        return 1 + RB(1023) + (RB(4) << 10);        /* at most 8 ms */
    case 10:
        return 0;                                   /* never */
    case 11: case 12:                               /* a point, mostly in the next 32 ms */
        return 0x8000 | (RB(8) ? RB(6) << 11 | RB(0x800) : RB(0x8000));
    case 13:
        return 1 + RB(1023) + ((4 + RB(4)) << 10);  /* up to 130 ms */
    default:
        return RB(0x10000);
    }
}

/* An IPC timeout: the same kinds, but mostly short, so that the threads keep going (a thread
 * that blocks for long is stuck for the rest of its round). */
FZ_TEXT static l4_word_t rnd_timeout(struct fz *f)
{
    unsigned k = (unsigned)RB(1000);
    if (k < 500)
        return (RB(32) | 1) << 10;                  /* zero */
    if (k < 850)
        return 1 + RB(1023);                        /* up to 1 ms */
    if (k < 900)
        return 1 + RB(1023) + ((1 + RB(3)) << 10);  /* up to 8 ms */
    if (k < 990)
        return 0x8000 | RB(0x1000);                 /* a point in the next 4 ms */
    if (k < 994)
        return 1 + RB(1023) + ((4 + RB(6)) << 10);  /* up to 0.5 s */
    if (k < 997)
        return 0;                                   /* never */
    return RB(0x10000);
}

FZ_TEXT static l4_word_t rnd_word(struct fz *f)
{
    switch (RB(10)) {
    case 0: case 1: return rnd_addr(f);
    case 2: case 3: return rnd_fpage(f);
    case 4: return rnd_id(f);
    case 5: return RB(64);
    case 6: return RB(2) ? 0 : ~0ul;
    case 7: return rnd_time(f) | (rnd_time(f) << 16);
    default: return tame(rnd(f));
    }
}

FZ_TEXT static l4_word_t rnd_length(struct fz *f)
{
    switch (RB(10)) {
    case 0: return 0;
    case 1: case 2: case 3: return RB(65);
    case 4: case 5: case 6: return RB(4097);
    case 7: case 8: return RB(0x10000);
    default: return rnd(f) >> 10;               /* absurd */
    }
}

/* Typed items (or, for BRs, receive string items) in words first..end-1 of the register file at
 * w: word i is w[i * dir] (dir -1 for the BRs, which lie below BR0 in the UTCB). */
FZ_TEXT static void fz_items(struct fz *f, volatile l4_word_t *w, int dir, unsigned first,
                             unsigned end, bool brs)
{
#define W(i) w[(int)(i) * dir]
    unsigned i = first;
    while (i < end) {
        unsigned left = end - i;
        switch (RB(brs ? 3 : 7)) {
        case 0: case 1: case 2: {               /* string (simple, several substrings, compound) */
            unsigned j = RB(3) ? 0 : (unsigned)RB(left < 32 ? left : 32);
            l4_word_t w0 = (rnd_length(f) << 10) | ((l4_word_t)j << 4) | (RB(4) << 1);
            if (RB(6) == 0)
                w0 |= 1ul << 9;                 /* compound: the next item continues it */
            if (brs ? RB(2) : RB(8) == 0)
                w0 |= 1;                        /* C: another buffer follows */
            W(i) = tame(w0);
            for (unsigned k = 0; k <= j && i + 1 + k < end; k++)
                W(i + 1 + k) = rnd_addr(f);
            i += 2 + j;
            break;
        }
        case 3: case 4: {                       /* map or grant */
            l4_word_t base = RB(3) ? rnd_addr(f) : rnd_word(f);
            W(i) = tame((base & ~0x3FFul) | (RB(3) ? 0x8 : 0xA) | RB(2));
            if (i + 1 < end)
                W(i + 1) = rnd_fpage(f);
            i += 2;
            break;
        }
        case 5:                                 /* control transfer or reserved: invalid */
            W(i) = tame((rnd(f) & ~0xEul) | (RB(2) ? 0xC : 0xE));
            i++;
            break;
        default:
            W(i) = rnd_word(f);
            i++;
            break;
        }
    }
#undef W
}

/* MR1..MR(u+t) and MR0 of a random message; returns the tag. */
FZ_TEXT static l4_word_t fz_message(struct fz *f, bool items)
{
    volatile l4_word_t *mr = f->u;
    unsigned u, t;
    switch (RB(8)) {
    case 0: u = 0; break;
    case 1: case 2: case 3: case 4: u = (unsigned)RB(8); break;
    case 5: case 6: u = (unsigned)RB(64); break;
    default: u = 63 - (unsigned)RB(4); break;
    }
    t = 0;
    if (u < 63 && (items ? RB(5) != 0 : RB(5) == 0)) {
        unsigned room = 63 - u;
        t = 1 + (unsigned)RB(room < 24 ? room : 24);
    }
    if (RB(24) == 0)
        t = (unsigned)RB(64);                   /* u + t may exceed 63: overflow */
    unsigned end = u + t + 1 > 64 ? 64 : u + t + 1;
    for (unsigned i = 1; i <= u && i < 64; i++)
        mr[i] = rnd_word(f);
    fz_items(f, mr, 1, u + 1, end, false);
    l4_word_t label;
    switch (RB(6)) {
    case 0:  label = ((l4_word_t)-(long)(1 + RB(8)) << 4 | RB(16)) & 0xFFFFFFFFFFFFul; break;
    case 1:  label = 0; break;
    default: label = rnd(f) & 0xFFFFFFFFFFFFul; break;
    }
    l4_word_t flags = 0;
    if (RB(10) == 0) flags |= L4_TAG_P;
    if (RB(8) == 0) flags |= L4_TAG_R;
    if (RB(8) == 0) flags |= L4_TAG_X;
    if (RB(8) == 0) flags |= L4_TAG_E;
    return tame((label << 16) | flags | ((l4_word_t)(t & 0x3F) << 6) | (u & 0x3F));
}

/* BR0 (the acceptor) and, now and then, the receive buffers. */
FZ_TEXT static void fz_buffers(struct fz *f, bool all)
{
    volatile l4_word_t *u = f->u;
    l4_word_t acc;
    switch (RB(6)) {
    case 0:  acc = 0x10; break;                 /* map anywhere */
    case 1:  acc = 0; break;
    default: acc = rnd_fpage(f) & ~0xFul; break;
    }
    if (RB(5))
        acc |= 1;                               /* strings accepted */
    if (RB(10) == 0)
        acc |= RB(8) << 1;                      /* junk in bits 1-3 */
    u[L4_UTCB_BR(0)] = tame(acc);
    if (!all)
        return;
    unsigned n = 1 + (unsigned)RB(32);
    fz_items(f, &u[L4_UTCB_BR(0)], -1, 1, n + 1, true);
}

/* Random values in the UTCB words the kernel reads or must leave alone. */
FZ_TEXT static void fz_scramble_utcb(struct fz *f)
{
    volatile l4_word_t *u = f->u;
    unsigned n = 1 + (unsigned)RB(4);
    for (unsigned k = 0; k < n; k++) {
        switch (RB(14)) {
        case 0: u[L4_UTCB_USER_HANDLE] = rnd_word(f); break;
        case 1: u[L4_UTCB_PAGER] = rnd_handler(f, true); break;
        case 2: u[L4_UTCB_EXC_HANDLER] = rnd_handler(f, false); break;
        case 3: /* PreemptFlags and CopFlags: s (a preemption message) only now and then */
            u[L4_UTCB_FLAGS] = tame(rnd(f) & ~(RB(8) ? (l4_word_t)L4_PREEMPT_SIGNAL : 0));
            break;
        case 4: u[L4_UTCB_ERROR_CODE] = rnd_word(f); break;
        case 5: u[L4_UTCB_XFER_TIMEOUTS] = tame(rnd_time(f) | (rnd_time(f) << 16) |
                                                (RB(4) ? 0 : rnd(f) << 32)); break;
        case 6: u[L4_UTCB_INTENDED_RCV] = rnd_word(f); break;
        case 7: u[L4_UTCB_VIRT_ACT_SENDER] = tame(rnd_id(f)); break;
        case 8: u[L4_UTCB_THREAD_WORD0 - (int)RB(2)] = rnd_word(f); break;
        case 9: u[L4_UTCB_WORD_SIZE_MASK] = rnd_word(f); break;
        case 10: u[L4_UTCB_MY_GLOBAL_ID] = tame(rnd_id(f)); break;   /* the kernel must not care */
        case 11: u[L4_UTCB_PROCESSOR_NO] = rnd_word(f); break;
        case 12: u[-64 + (int)RB(15)] = rnd_word(f); break;        /* reserved words */
        default: u[-(int)RB(3) - 1] = rnd_word(f); break;          /* reserved, WordSizeMask */
        }
    }
}

FZ_TEXT static void fz_violation(struct fz *f, l4_word_t what, l4_word_t a, l4_word_t b,
                                 l4_word_t c)
{
    struct fz_slot *s = f->sl;
    if (s->violations++ == 0) {
        s->bad_at = s->iterations;
        s->bad[0] = what;
        s->bad[1] = a;
        s->bad[2] = b;
        s->bad[3] = c;
    }
}

/* After a call that left words in our MRs that are not tame (a received message: page faults
 * and exceptions carry real addresses; Unmap's fpages): make them tame, so that no later call
 * (even one we make from a system-call stub after ExchangeRegisters) can send them. */
FZ_TEXT static void fz_scrub(struct fz *f)
{
    for (int i = 0; i < 64; i++)
        f->u[i] &= ~FZ_TAME_BIT;
}

/* Registers not otherwise set: random (tame, the kernel may store them into MRs). */
FZ_TEXT static void fz_regs_random(struct fz *f, struct fz_regs *r)
{
    r->rax = rnd_word(f); r->rbx = rnd_word(f); r->rcx = rnd_word(f); r->rdx = rnd_word(f);
    r->rsi = rnd_word(f); r->rdi = rnd_word(f); r->rbp = rnd_word(f); r->r8 = rnd_word(f);
    r->r9 = rnd_word(f); r->r10 = rnd_word(f); r->r11 = rnd_word(f); r->r12 = rnd_word(f);
    r->r13 = rnd_word(f); r->r14 = rnd_word(f); r->r15 = rnd_word(f);
}

FZ_INLINE l4_word_t fz_error(struct fz *f)
{
    return f->u[L4_UTCB_ERROR_CODE];
}

/* --- the operations ------------------------------------------------------------------------- */

FZ_TEXT static void op_ipc(struct fz *f, bool lipc, bool items)
{
    volatile l4_word_t *u = f->u;
    struct fz_regs r;
    fz_regs_random(f, &r);
    l4_word_t tag = fz_message(f, items);
    u[0] = tag;
    fz_buffers(f, items ? RB(3) != 0 : RB(6) == 0);
    if (RB(items ? 3 : 10) == 0)
        fz_scramble_utcb(f);
    /* MR0-MR7 travel in registers; the UTCB copies of MR1-MR7 should not matter. */
    r.r9 = tag;
    r.rax = u[1]; r.rbx = u[2]; r.r10 = u[3]; r.r12 = u[4];
    r.r13 = u[5]; r.r14 = u[6]; r.r15 = u[7];
    if (RB(8) == 0)
        u[1 + RB(7)] = rnd_word(f);
    switch (RB(16)) {
    case 0: case 1: case 2: case 3: case 4: case 5: case 6: case 7: r.rsi = fz_peer(f); break;
    case 8: case 9: r.rsi = 0; break;
    case 10: r.rsi = fz_ctl.main_tid; break;
    default: r.rsi = rnd_id(f); break;
    }
    switch (RB(16)) {
    case 0: case 1: case 2: case 3: r.rdx = ~0ul; break;
    case 4: case 5: r.rdx = 0xFFFFFFFFFFFFFFC0ul; break;
    case 6: case 7: case 8: r.rdx = 0; break;
    case 9: r.rdx = r.rsi; break;           /* a call */
    case 10: case 11: case 12: r.rdx = fz_peer(f); break;
    default: r.rdx = rnd_id(f); break;
    }
    r.r8 = rnd_timeout(f) | (rnd_timeout(f) << 16) | (RB(8) ? 0 : rnd(f) << 32);
    if (RB(4))
        r.rdi = (l4_word_t)u;               /* the UTCB pointer (its value must not matter) */
    r.target = fz_ctl.stub[lipc ? ST_LIPC : ST_IPC];
    l4_word_t from_spec = r.rdx;
    fz_raw_call(&r);
    fz_scrub(f);
    if (r.rdi != (l4_word_t)u)
        fz_violation(f, V_IPC_RDI, r.rdi, (l4_word_t)u, tag);
    if (r.r9 & L4_TAG_E) {
        l4_word_t ec = fz_error(f);
        if (((ec >> 1) & 7) == 0)
            fz_violation(f, V_IPC_ERRCODE, r.r9, ec, tag);
    } else if (from_spec != 0 && r.rsi == 0) {
        fz_violation(f, V_IPC_FROM, r.r9, from_spec, tag);
    }
}

FZ_TEXT static void op_unmap(struct fz *f)
{
    volatile l4_word_t *u = f->u;
    struct fz_regs r;
    l4_word_t orig[64];
    fz_regs_random(f, &r);
    l4_word_t ctl = RB(8) ? RB(64) | (RB(3) ? 0 : 0x40) : tame(rnd(f));
    unsigned k = ctl & 0x3F;
    for (unsigned i = 0; i <= k; i++) {
        switch (RB(16)) {
        case 0:  /* our own code (we fault it back in) */
            orig[i] = fz_fpage((l4_word_t)__start_fuzztext, 12 + (unsigned)RB(3)) | RB(8);
            break;
        case 1:  /* the UTCB area: never affected */
            orig[i] = fz_fpage(FZ_UTCB_AREA, 12 + (unsigned)RB(5)) | RB(8);
            break;
        case 2: case 3: case 4:
            orig[i] = rnd_word(f);
            break;
        default:
            orig[i] = rnd_fpage(f);
            break;
        }
        u[i] = orig[i];
    }
    r.rdx = ctl;
    r.r9 = u[0]; r.rax = u[1]; r.rbx = u[2]; r.r10 = u[3];
    r.r12 = u[4]; r.r13 = u[5]; r.r14 = u[6]; r.r15 = u[7];
    if (RB(4))
        r.rdi = (l4_word_t)u;
    r.target = fz_ctl.stub[ST_UNMAP];
    fz_raw_call(&r);
    if (r.rdi != (l4_word_t)u)
        fz_violation(f, V_UNMAP_RDI, r.rdi, (l4_word_t)u, ctl);
    /* Only the rights bits of MR0..MRk may change (to the access status). */
    l4_word_t out[8] = { r.r9, r.rax, r.rbx, r.r10, r.r12, r.r13, r.r14, r.r15 };
    for (unsigned i = 0; i <= k; i++) {
        l4_word_t now = i < 8 ? out[i] : u[i];
        if ((now ^ orig[i]) & ~7ul) {
            fz_violation(f, V_UNMAP_MR, i, orig[i], now);
            break;
        }
    }
    fz_scrub(f);
}

FZ_TEXT static bool fz_canonical(l4_word_t a)
{
    return (l4_word_t)(((int64_t)a << 16) >> 16) == a;
}

FZ_TEXT static void op_exregs(struct fz *f, bool may_wreck, bool must_wreck)
{
    struct fz_regs r;
    fz_regs_random(f, &r);
    enum { SELF, SIB, OTHER } kind;
    l4_word_t dest, expect = 0;
    switch (must_wreck ? RB(2) : RB(10)) {
    case 0: dest = f->me; expect = f->me_local; kind = SELF; break;
    case 1: dest = f->me_local; expect = f->me; kind = SELF; break;
    case 2: case 3: dest = f->sib; expect = f->sib_local; kind = SIB; break;
    case 4: case 5: dest = f->sib_local; expect = f->sib; kind = SIB; break;
    default: {
        /* Certainly not in our space: the threads of the other space, the pool, garbage. */
        unsigned k = (unsigned)RB(FZ_THREADS);
        if (RB(3) == 0)
            dest = fz_ctl.slot[k].tid;
        else if (RB(3))
            dest = fz_ctl.ids[RB(FZ_NIDS)];
        else
            dest = fz_gid(RB(1ul << 20), rnd(f) | 1);
        if (dest == f->me || dest == f->sib)
            dest = fz_ctl.slot[(f->idx + FZ_PER_SPACE) % FZ_THREADS].tid;
        kind = OTHER;
        break;
    }
    }
    l4_word_t ctl = RB(4) ? RB(0x4000) : rnd(f);
    /* FS/GS bases (include/l4/pecan.h): bit 14 sets the FS base from R12 (random, sometimes
     * non-canonical: the call then fails), bit 16 delivers the old bases.  Not the GS base:
     * our %gs:0 is the UTCB pointer libl4 reads.  (Still open: checking the delivered
     * bases, and that our own survive the kernel calls like the FPU state.) */
    ctl &= ~(1ul << 15);
    bool wreck = false, wreck_sib = false;
    if (kind == SIB) {
        /* Its SP, IP or flags only all at once and only now and then: it then leaves its code
         * for good, like a thread that wrecked itself (never SP or flags alone: see the top). */
        ctl &= ~0x38ul;
        if (may_wreck && RB(24) == 0) {
            wreck_sib = true;
            ctl |= 0x18 | (RB(2) ? 0x20 : 0);
        }
    }
    if (kind == SELF) {
        if (must_wreck || (may_wreck && RB(40) == 0)) {
            wreck = true;                       /* our own IP and/or SP: we do not come back */
            ctl |= RB(3) == 0 ? 0x08 : RB(2) ? 0x10 : 0x18;
        } else {
            ctl &= ~0x18ul;
        }
        if (RB(8))
            ctl &= ~0x1ul;                      /* halt ourselves only now and then */
    } else if (RB(4)) {
        ctl &= ~0x1ul;                          /* halting a sibling stalls it until resumed */
    }
    r.rax = dest;
    r.rsi = ctl;
    switch (RB(4)) {                            /* SP */
    case 0:  r.rdx = (l4_word_t)&fz_sled_stack[RB(512)]; break;
    case 1:  r.rdx = FZ_PLAY + (RB(FZ_PLAY_SIZE) & ~7ul); break;
    default: r.rdx = rnd_addr(f); break;
    }
    switch (RB(4)) {                            /* IP */
    case 0:  r.r8 = (l4_word_t)&fz_sled[RB(4096)]; break;
    case 1:  r.r8 = fz_ctl.stub[RB(ST_COUNT)]; break;   /* runs that call, returns to us */
    default: r.r8 = rnd_addr(f); break;
    }
    r.r9 = rnd(f);                              /* flags: only the arithmetic ones apply */
    r.r10 = rnd_word(f);
    r.rdi = rnd_safe(f, true);
    /* A sibling's pager must be safe for the sibling: not us (we may be its pager's client:
     * the two would answer each other's faults with faults forever, issue 7). */
    if (kind == SIB && (r.rdi == f->me || r.rdi == f->me_local))
        r.rdi = fz_ctl.main_tid;
    r.target = fz_ctl.stub[ST_EXREGS];
    /* Pecan's FS/GS-base bits (include/l4/pecan.h): a non-canonical base fails the call. */
    bool bad_base = ((ctl & L4_EXREGS_SET_FS_BASE) && !fz_canonical(r.r12)) ||
                    ((ctl & L4_EXREGS_SET_GS_BASE) && !fz_canonical(r.r13));
    if (wreck && bad_base)
        r.r12 = r.r13 = 0;                      /* (a wreck must take effect) */
    if (wreck)
        f->sl->wrecked = 1;
    if (wreck_sib)
        fz_ctl.slot[f->idx ^ 1].wrecked = 1;
    fz_raw_call(&r);
    if (wreck)
        return;                                 /* (if the new IP was a stub: garbage registers) */
    if (kind == OTHER) {
        if (r.rax != 0 || fz_error(f) != L4_ERR_INVALID_THREAD)
            fz_violation(f, V_EXREGS_OTHER, dest, r.rax, fz_error(f));
    } else if (bad_base) {
        if (r.rax != 0 || fz_error(f) != L4_ERR_INVALID_PARAM)
            fz_violation(f, V_EXREGS_RESULT, dest, r.rax, 0);
    } else if (r.rax != expect) {
        fz_violation(f, V_EXREGS_RESULT, dest, r.rax, expect);
    }
}

FZ_TEXT static void op_simple(struct fz *f, unsigned op)
{
    volatile l4_word_t *u = f->u;
    struct fz_regs r;
    fz_regs_random(f, &r);
    switch (op) {
    case OP_SCHED:
        r.rdi = RB(3) ? rnd_id(f) : f->me;
        r.rdx = RB(3) ? rnd_time(f) | (rnd_time(f) << 16) : rnd(f);
        r.rsi = RB(2) ? RB(512) : rnd(f);
        r.r8 = RB(2) ? RB(4) : rnd(f);
        r.r9 = RB(2) ? ~0ul : rnd(f);
        r.target = fz_ctl.stub[ST_SCHED];
        break;
    case OP_TSWITCH:
        r.rdi = RB(2) ? fz_peer(f) : rnd_id(f);
        r.target = fz_ctl.stub[ST_TSWITCH];
        break;
    case OP_CLOCK:
        r.target = fz_ctl.stub[ST_CLOCK];
        break;
    case OP_TC:
        r.rdi = rnd_id(f); r.r8 = rnd_id(f); r.rdx = rnd_id(f); r.rsi = rnd_id(f);
        r.r9 = RB(2) ? FZ_UTCB_AREA + 0x400 * RB(64) : rnd_word(f);
        r.target = fz_ctl.stub[ST_TC];
        break;
    case OP_SC:
        r.rdi = rnd_id(f); r.rsi = rnd(f); r.rdx = rnd_fpage(f); r.r8 = rnd_fpage(f);
        r.r9 = rnd_id(f);
        r.target = fz_ctl.stub[ST_SC];
        break;
    case OP_PC:
        r.rdi = RB(2) ? RB(4) : rnd(f);
        r.target = fz_ctl.stub[ST_PC];
        break;
    case OP_MC: {
        unsigned k = (unsigned)RB(64);
        for (unsigned i = 0; i <= k; i++)
            u[i] = rnd_fpage(f);
        r.rdx = RB(4) ? k : rnd(f);
        r.rcx = RB(12); r.rsi = RB(12); r.r8 = RB(12); r.r11 = RB(12);
        r.rax = u[1]; r.rbx = u[2]; r.r10 = u[3]; r.r12 = u[4]; r.r13 = u[5];
        r.r14 = u[6]; r.r15 = u[7];
        r.rdi = (l4_word_t)u;
        r.target = fz_ctl.stub[ST_MC];
        break;
    }
    }
    l4_word_t in_rax = r.rax, mr0 = u[0];
    fz_raw_call(&r);
    switch (op) {
    case OP_SCHED:
        if (r.rax != 0 || (fz_error(f) != L4_ERR_NO_PRIVILEGE &&
                           fz_error(f) != L4_ERR_INVALID_THREAD))
            fz_violation(f, V_SCHED, r.rax, fz_error(f), 0);
        break;
    case OP_CLOCK:
        if (r.rax < f->last_clock)
            fz_violation(f, V_CLOCK, r.rax, f->last_clock, 0);
        f->last_clock = r.rax;
        break;
    case OP_TC: case OP_SC: case OP_PC:
        if (r.rax != 0 || fz_error(f) != L4_ERR_NO_PRIVILEGE)
            fz_violation(f, V_PRIV, op, r.rax, fz_error(f));
        break;
    case OP_MC:
        if (r.rdx != 0 || fz_error(f) != L4_ERR_NO_PRIVILEGE || r.rcx != mr0 ||
            r.rax != in_rax || r.rdi != (l4_word_t)u)
            fz_violation(f, V_MC, r.rdx, r.rcx, r.rdi);
        break;
    }
}

FZ_TEXT static void op_ki(struct fz *f)
{
    struct fz_regs r, in;
    fz_regs_random(f, &r);
    in = r;
    fz_raw_ki(&r);
    if (r.rax != FZ_KIP_AREA || r.rcx != fz_ctl.api_version || r.rdx != fz_ctl.api_flags ||
        r.rsi != fz_ctl.kernel_id)
        fz_violation(f, V_KI, r.rax, r.rcx, r.rsi);
    if (r.rbx != in.rbx || r.rdi != in.rdi || r.rbp != in.rbp || r.r8 != in.r8 ||
        r.r9 != in.r9 || r.r10 != in.r10 || r.r11 != in.r11 || r.r12 != in.r12 ||
        r.r13 != in.r13 || r.r14 != in.r14 || r.r15 != in.r15)
        fz_violation(f, V_KI_PRESERVED, r.rbx ^ in.rbx, r.r11 ^ in.r11, r.rdi ^ in.rdi);
}

/* A call to the main thread, which answers at once: with a short untyped message to a receiver
 * that waits with timeout never, the kernel's IPC fast path (and its guards, with random
 * registers and MR8.. in the UTCB). */
FZ_TEXT static void op_ping(struct fz *f)
{
    volatile l4_word_t *u = f->u;
    struct fz_regs r;
    fz_regs_random(f, &r);
    unsigned n = RB(4) ? (unsigned)RB(8) : (unsigned)RB(64);
    for (unsigned i = 1; i <= n; i++)
        u[i] = rnd_word(f);
    l4_word_t tag = ((l4_word_t)FZ_PING_LABEL << 16) | n;
    if (RB(16) == 0)
        tag |= RB(8) << 13;                     /* r, x, e: the kernel recomputes them */
    r.r9 = tag;
    r.rax = u[1]; r.rbx = u[2]; r.r10 = u[3]; r.r12 = u[4];
    r.r13 = u[5]; r.r14 = u[6]; r.r15 = u[7];
    r.rsi = fz_ctl.main_tid;
    r.rdx = fz_ctl.main_tid;
    r.r8 = RB(8) ? 0 : (rnd(f) << 32) | (rnd_timeout(f) << 16);   /* receive: never */
    r.rdi = (l4_word_t)u;
    r.target = fz_ctl.stub[RB(2) ? ST_IPC : ST_LIPC];
    fz_raw_call(&r);
    fz_scrub(f);
    if (r.rdi != (l4_word_t)u)
        fz_violation(f, V_IPC_RDI, r.rdi, (l4_word_t)u, tag);
    if (r.r9 & L4_TAG_E) {
        l4_word_t ec = fz_error(f);
        if (((ec >> 1) & 7) == 0)
            fz_violation(f, V_IPC_ERRCODE, r.r9, ec, tag);
    } else if (!(r.r9 & L4_TAG_P) && (r.rsi != fz_ctl.main_tid || r.r9 != 0)) {
        /* Main's answer is an empty message (a sibling may propagate as main, though). */
        fz_violation(f, V_PING, r.rsi, r.r9, tag);
    }
}

/* FPU state: a random pattern in XMM0-15 and the x87 stack across a system call that may
 * switch to the sibling (which uses them too), to the main thread, or to nobody. */
FZ_TEXT static void op_fpu(struct fz *f)
{
    uint64_t pat[FZ_FPU_WORDS], out[FZ_FPU_WORDS];
    for (unsigned i = 0; i < FZ_FPU_WORDS; i++)
        pat[i] = rnd(f);
    struct fz_regs r;
    fz_regs_random(f, &r);
    bool ping = false;
    switch (RB(4)) {
    case 0: r.rdi = f->sib; r.target = fz_ctl.stub[ST_TSWITCH]; break;
    case 1: r.rdi = L4_NILTHREAD; r.target = fz_ctl.stub[ST_TSWITCH]; break;
    case 2: r.target = fz_ctl.stub[ST_CLOCK]; break;
    default:                                    /* a ping: main answers at once */
        ping = true;
        r.r9 = (l4_word_t)FZ_PING_LABEL << 16;
        r.rsi = r.rdx = fz_ctl.main_tid;
        r.r8 = 0;
        r.rdi = (l4_word_t)f->u;
        r.target = fz_ctl.stub[ST_IPC];
        break;
    }
    fz_fpu_call(&r, pat, out);
    if (ping)
        fz_scrub(f);
    for (unsigned i = 0; i < FZ_FPU_WORDS; i++) {
        l4_word_t want = i < 32 ? pat[i] : pat[FZ_FPU_WORDS - 1 - (i - 32)];
        if (out[i] != want) {
            fz_violation(f, V_FPU, i, want, out[i]);
            return;
        }
    }
}

/* Port I/O: read one of the ports our space was given (POST code, DMA page registers: reading
 * them does nothing).  If a map, grant or unmap took them away, that is an I/O fault that the
 * main thread answers by mapping them again. */
FZ_TEXT static void op_port(struct fz *f)
{
    unsigned port = FZ_PORTS + (unsigned)RB(1u << FZ_PORTS_LOG2);
    l4_word_t v = 0;
    switch (RB(4)) {
    case 0:  __asm__ volatile("inb %%dx, %%al" : "+a"(v) : "d"(port)); break;
    case 1:  __asm__ volatile("inw %%dx, %%ax" : "+a"(v) : "d"(port & ~1u)); break;
    case 2:  __asm__ volatile("inl %%dx, %%eax" : "+a"(v) : "d"(port & ~3u)); break;
    default: __asm__ volatile("inb $0x84, %%al" : "+a"(v)); break;
    }
    (void)v;
}

/* Memory: fault playground pages in (and write them), read the KIP and our UTCB. */
FZ_TEXT static void op_touch(struct fz *f)
{
    volatile l4_word_t *p = (volatile l4_word_t *)(FZ_PLAY + (RB(FZ_PLAY_SIZE) & ~7ul));
    switch (RB(4)) {
    case 0: (void)*p; break;
    case 1: *p = rnd_word(f); break;
    case 2: (void)*(volatile l4_word_t *)(FZ_KIP_AREA + (RB(0x1000) & ~7ul)); break;
    default: (void)f->u[-64 + (int)RB(128)]; break;
    }
}

/* Ways to end badly: exceptions, I/O faults, ourselves on the sled. */
FZ_TEXT static void op_wreck(struct fz *f)
{
    if (RB(6) == 5) {
        op_exregs(f, true, true);
        return;
    }
    f->sl->wrecked = 1;
    switch (RB(5)) {
    case 0: __asm__ volatile("ud2"); break;
    case 1: __asm__ volatile("syscall" ::: "rcx", "r11", "memory"); break;    /* not a stub */
    case 2: __asm__ volatile("inb %%dx, %%al" :: "d"(RB(65536)) : "rax"); break;
    case 3: __asm__ volatile("int $0x80"); break;
    default: __asm__ volatile("call *%0" :: "r"(&fz_sled[RB(4096)]) : "memory"); break;
    }
}


/* Block for good (a sibling's ExchangeRegisters may abort it: then block again). */
FZ_TEXT __attribute__((noreturn)) static void fz_park(struct fz *f)
{
    for (;;) {
        struct fz_regs r;
        fz_regs_random(f, &r);
        f->u[0] = 0;
        r.r9 = 0;
        r.rsi = 0;
        r.rdx = f->me;                          /* receive from ourselves: never succeeds */
        r.r8 = 0;
        r.target = fz_ctl.stub[ST_IPC];
        fz_raw_call(&r);
    }
}

/* A fuzz thread starts here (stack in its UTCB page, see the top). */
FZ_TEXT __attribute__((noreturn, used)) static void fz_entry(void)
{
    struct fz f;
    __asm__ volatile("movq %%gs:0, %0" : "=r"(f.u));
    f.me = f.u[L4_UTCB_MY_GLOBAL_ID];
    f.me_local = (l4_word_t)f.u;
    f.x = 1;
    f.idx = FZ_THREADS;
    for (unsigned i = 0; i < FZ_THREADS; i++)
        if (fz_ctl.slot[i].tid == f.me)
            f.idx = i;
    if (f.idx == FZ_THREADS)
        fz_park(&f);
    f.sl = &fz_ctl.slot[f.idx];
    unsigned sib = f.idx ^ 1;
    f.sib = fz_ctl.slot[sib].tid;
    f.sib_local = fz_ctl.slot[sib].local;
    f.x = f.sl->seed;
    f.last_clock = 0;
    volatile uint16_t *w = fz_ctl.weight;
    for (l4_word_t n = 0; n < f.sl->budget; n++) {
        unsigned pick = (unsigned)rnd(&f) % 1000, op = 0;
        while (op < OP_COUNT - 1 && pick >= w[op]) {
            pick -= w[op];
            op++;
        }
        switch (op) {
        case OP_IPC:    op_ipc(&f, false, fz_ctl.phase == PH_ITEMS); break;
        case OP_LIPC:   op_ipc(&f, true, fz_ctl.phase == PH_ITEMS); break;
        case OP_UNMAP:  op_unmap(&f); break;
        case OP_EXREGS: op_exregs(&f, fz_ctl.phase == PH_OTHER, false); break;
        case OP_KI:     op_ki(&f); break;
        case OP_UTCB:   fz_scramble_utcb(&f); break;
        case OP_TOUCH:  op_touch(&f); break;
        case OP_WRECK:  op_wreck(&f); break;
        case OP_PING:   op_ping(&f); break;
        case OP_FPU:    op_fpu(&f); break;
        case OP_PORT:   op_port(&f); break;
        default:        op_simple(&f, op); break;
        }
        f.sl->iterations++;
    }
    f.sl->done = 1;
    fz_park(&f);
}

#pragma GCC pop_options

/* ===================================================================================
 * The main thread: rounds of fuzz threads, their pager and watchdog.
 * =================================================================================== */

struct fz_stats {
    l4_word_t calls, rounds, threads, finished, wrecked, faults, refused, discarded, overruns;
    l4_word_t pings, io_faults, watchdog, squeezed;
    l4_word_t stray_x;              /* refused instruction fetches in our image (notes) */
};
static const char *const fz_check_names[V_COUNT] = {
    [V_IPC_RDI] = "Ipc must return RDI = the UTCB pointer (rdi, utcb, tag)",
    [V_IPC_ERRCODE] = "a failed Ipc must set an error code (mr0, ErrorCode, tag)",
    [V_IPC_FROM] = "a received message must name its sender (mr0, from spec, tag)",
    [V_UNMAP_RDI] = "Unmap must return RDI = the UTCB pointer (rdi, utcb, control)",
    [V_UNMAP_MR] = "Unmap may change only the rights bits of MR0..MRk (i, before, after)",
    [V_EXREGS_OTHER] = "ExchangeRegisters on a thread of another space must fail with 2 "
                       "(dest, result, ErrorCode)",
    [V_EXREGS_RESULT] = "ExchangeRegisters must return the other id (dest, result, expected)",
    [V_SCHED] = "Schedule by a non-scheduler must fail with 1 or 2 (result, ErrorCode)",
    [V_CLOCK] = "SystemClock must not go back (now, before)",
    [V_KI] = "KernelInterface results (rax, rcx, rsi)",
    [V_KI_PRESERVED] = "KernelInterface must preserve the other registers (xor rbx, r11, rdi)",
    [V_PRIV] = "privileged calls must fail with 1 (operation, result, ErrorCode)",
    [V_MC] = "MemoryControl must fail with 1 and return RCX = MR0 (rdx, rcx, rdi)",
    [V_PING] = "the main thread's answer must arrive unchanged (from, mr0, tag)",
    [V_FPU] = "x87 and SSE registers must survive system calls (register, expected, found)",
    [PV_TC_RESULT] = "ThreadControl must return 1, or 0 with an error code (result, ErrorCode)",
    [PV_TC_SYSTEM_SPACE] = "ThreadControl must not put a thread into a system or interrupt "
                           "thread's space (dest, space)",
    [PV_SC_RESULT] = "SpaceControl must return 1, or 0 with an error code (result, ErrorCode)",
    [PV_SC_SYSTEM_SPACE] = "SpaceControl must refuse a system or interrupt thread (spec)",
    [PV_SCHED_RESULT] = "Schedule must return a state, or 0 with an error code (dest, result, "
                        "ErrorCode)",
    [PV_EXREGS_OTHER] = "ExchangeRegisters on a thread of another space must fail with 2 "
                        "(dest, result, ErrorCode)",
    [PV_MC_RESULT] = "MemoryControl: 1, or 0 with 5 for an invalid attribute, MR0 unchanged "
                     "(result, ErrorCode, k)",
    [PV_PC_RESULT] = "ProcessorControl: 1 for processor 0, else 0 with 5 (processor, result, "
                     "ErrorCode)",
    [PV_DELETE] = "deleting a victim must work (id, ErrorCode)",
    [PV_DELETED_EXISTS] = "a deleted victim must be gone (id)",
    [PV_MC_RESET] = "resetting our memory attributes must work (ErrorCode)",
    [PV_REDELETE] = "deleting a victim to make a new one must work (id, ErrorCode)",
    [PV_CREATE] = "creating a victim in a new space must work (id, ErrorCode)",
    [PV_ACTIVATE] = "SpaceControl and activation of a new victim must work (id, ErrorCode)",
    [PV_NOT_WAITING] = "a new active victim must wait for its start message (id, state)",
};
static struct fz_stats fz_st;
l4_word_t fz_seed = FZ_SEED;
unsigned fz_rounds = FZ_ROUNDS;
char fz_msg[240];
static l4_word_t fz_gen;            /* rounds so far: thread versions */
static l4_word_t fzq_tid, fzq_local;
static bool fzq_waiting;

/* Per phase: the weight of each operation (in 1/1000). */
static const uint16_t fz_weights[PH_COUNT][OP_COUNT] = {
    [PH_IPC]   = { [OP_IPC] = 550, [OP_LIPC] = 140, [OP_FPU] = 5, [OP_PORT] = 5, [OP_PING] = 50, [OP_UTCB] = 90,
                   [OP_TOUCH] = 80, [OP_CLOCK] = 20, [OP_TSWITCH] = 25, [OP_UNMAP] = 15,
                   [OP_EXREGS] = 19, [OP_WRECK] = 1 },
    [PH_ITEMS] = { [OP_IPC] = 490, [OP_LIPC] = 100, [OP_FPU] = 5, [OP_PORT] = 5, [OP_PING] = 20, [OP_UTCB] = 150,
                   [OP_TOUCH] = 150, [OP_UNMAP] = 60, [OP_TSWITCH] = 19, [OP_WRECK] = 1 },
    [PH_OTHER] = { [OP_EXREGS] = 170, [OP_UNMAP] = 140, [OP_SCHED] = 80, [OP_TSWITCH] = 60,
                   [OP_CLOCK] = 40, [OP_KI] = 50, [OP_TC] = 50, [OP_SC] = 50, [OP_PC] = 30,
                   [OP_MC] = 50, [OP_UTCB] = 60, [OP_TOUCH] = 60, [OP_IPC] = 128,
                   [OP_FPU] = 5, [OP_PORT] = 5,
                   [OP_PING] = 20, [OP_WRECK] = 2 },
};

static l4_word_t fz_no(unsigned i)     { return l4_kip_user_base() + 4000 + i; }
static l4_word_t victim_no(unsigned i) { return l4_kip_user_base() + 4100 + i; }
static l4_word_t kmem_no(unsigned i)   { return l4_kip_user_base() + 5000 + i; }

static l4_word_t page_of(const void *p) { return (l4_word_t)p & ~0xFFFul; }

/* A seed for a part of the run: splitmix64 of the run's seed and the part's number. */
uint64_t fz_mix(uint64_t seed, uint64_t part)
{
    uint64_t z = seed + (part + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return z ? z : 1;
}

/* The main thread's own random numbers (per round, from the seed). */
static uint64_t fz_mx;
static uint64_t fz_mrnd(void)
{
    return fz_xorshift(&fz_mx);
}

/* Calls main whenever it runs: at priority 1 that means every other thread is blocked. */
static void fz_quiet_fn(void)
{
    for (;;) {
        l4_set_mr(0, l4_tag_make(FZ_QUIET_LABEL, 0, 0));
        l4_call(tu_main_tid());
    }
}

void fz_quiet_arm(void)
{
    if (!fzq_tid) {
        fzq_tid = tu_thread(fz_quiet_fn, 1);
        fzq_local = l4_local_id_of(fzq_tid);
    } else if (fzq_waiting) {
        fzq_waiting = false;
        l4_set_mr(0, 0);
        l4_reply(fzq_tid);
    }
}

bool fz_is_quiet(l4_word_t tag, l4_word_t from)
{
    if (from != fzq_local || l4_tag_label(tag) != FZ_QUIET_LABEL)
        return false;
    fzq_waiting = true;
    return true;
}

/* Our whole image mapped in our own space, so that serving a fault never faults. */
static void fz_pretouch(void)
{
    for (l4_word_t p = page_of(__executable_start); p < (l4_word_t)_end; p += 4096)
        (void)*(volatile char *)p;
}

/* The fault policy: which of our pages a fuzz thread gets at `addr`, with which rights. */
static bool fz_policy(l4_word_t addr, l4_word_t *src, unsigned *rights)
{
    l4_word_t page = addr & ~0xFFFul;
    if (page >= page_of(__start_fuzztext) && page < (l4_word_t)__stop_fuzztext) {
        *src = page;
        *rights = L4_R | L4_X;
    } else if (page == page_of(fz_sled)) {
        *src = page;
        *rights = L4_R | L4_X;
    } else if (page == page_of(fz_sled_stack)) {
        *src = page;
        *rights = L4_R;
    } else if (page == page_of(&fz_ctl)) {
        *src = page;
        *rights = L4_R | L4_W;
    } else if (page >= FZ_PLAY && page < FZ_PLAY + FZ_PLAY_SIZE) {
        *src = (l4_word_t)fz_play + (page - FZ_PLAY);
        *rights = L4_R | L4_W;
    } else {
        return false;
    }
    return true;
}

static int fz_slot_of(l4_word_t from)
{
    for (int i = 0; i < FZ_THREADS; i++)
        if (fz_ctl.slot[i].tid == from)
            return i;
    return -1;
}

/* A message for the main thread during a round: serve it, answer it, or drop it. */
static unsigned km_capacity(l4_word_t *err);
static unsigned km_baseline;

/* --- kernel memory squeeze: rounds that run with (almost) no kernel memory left ------------- */

#define KM_MAX 2048
static l4_word_t sq_tids[KM_MAX];
static unsigned sq_n;               /* spaces held to fill the pool */
static unsigned fz_squeeze_every;   /* squeeze=N: one round in N (0: never) */
bool fz_leak_each_round;            /* leak=1: measure kernel memory after every round */

/* Fill the kernel pool with spaces of one thread each, then give a random few back. */
static void fz_squeeze_fill(void)
{
    l4_word_t me = tu_main_tid(), old;
    sq_n = 0;
    while (sq_n < KM_MAX) {
        l4_word_t t = l4_global_id(kmem_no(sq_n), 1);
        if (!l4_thread_control(t, t, me, 0, ~0ul))
            break;
        sq_tids[sq_n++] = t;
        if (!l4_space_control(t, 0, l4_fpage_log2(0xBFF00000, 12), l4_fpage_log2(0xBF000000, 12),
                              0, &old) ||
            !l4_thread_control(t, t, 0, me, 0xBF000000))
            break;
    }
    for (unsigned k = (unsigned)(fz_mrnd() % 3); k > 0 && sq_n > 0; k--)
        tu_kill(sq_tids[--sq_n]);
    fz_st.squeezed++;
}

/* A fault we answered failed (out of kernel memory, say): give one space back, so that the
 * round goes on instead of faulting forever. */
static void fz_squeeze_relax(void)
{
    if (sq_n > 0)
        tu_kill(sq_tids[--sq_n]);
}

static void fz_squeeze_end(void)
{
    while (sq_n > 0)
        tu_kill(sq_tids[--sq_n]);
}

/* --- the watchdog: a thread above everyone else that ends a round whose fuzz threads keep
 * each other busy without ever calling us (two threads each other's pager, say), which the
 * main thread, waiting for a message, would never notice ------------------------------------ */

#define WD_ARM_LABEL    0x0F14
#define WD_DISARM_LABEL 0x0F15
#define WD_PRIO         250
static l4_word_t wd_tid;
static l4_word_t wd_victims[FZ_THREADS];
static volatile l4_word_t wd_fired;

static void fz_watchdog_fn(void)
{
    for (;;) {
        l4_word_t tag = l4_receive(tu_main_tid());
        if (l4_ipc_failed(tag) || l4_tag_label(tag) != WD_ARM_LABEL)
            continue;
        tag = l4_receive_timeout(tu_main_tid(), l4_period_from_us(2 * FZ_ROUND_MAX_US));
        if (!l4_ipc_failed(tag) || l4_ipc_last_error() != L4_IPC_TIMEOUT)
            continue;                           /* disarmed in time */
        wd_fired = 1;
        for (unsigned i = 0; i < FZ_THREADS; i++)
            if (wd_victims[i] != L4_NILTHREAD)
                tu_kill(wd_victims[i]);         /* the main thread notices the rest */
    }
}

static void fz_watchdog_create(void)
{
    if (!wd_tid)
        wd_tid = tu_thread(fz_watchdog_fn, WD_PRIO);
}

/* It only ever receives from us, and runs above us: it waits for this whenever we run. */
static void fz_watchdog_send(l4_word_t label)
{
    l4_set_mr(0, l4_tag_make(label, 0, 0));
    l4_send(wd_tid);
}

void fz_watchdog_arm(const l4_word_t *tids, unsigned n)
{
    for (unsigned i = 0; i < FZ_THREADS; i++)
        wd_victims[i] = i < n ? tids[i] : L4_NILTHREAD;
    wd_fired = 0;
    fz_watchdog_send(WD_ARM_LABEL);
}

bool fz_watchdog_disarm(void)
{
    fz_watchdog_send(WD_DISARM_LABEL);
    return wd_fired != 0;
}

static void fz_handle(l4_word_t tag, l4_word_t from)
{
    bool ours = fz_slot_of(from) >= 0;
    if (ours && l4_tag_is_proto(tag, L4_PROTO_PAGEFAULT) && l4_tag_u(tag) == 2 &&
        l4_tag_t(tag) == 0) {
        l4_word_t addr = l4_mr(1), src;
        unsigned access = (tag >> 16) & 7, rights;
        if (fz_policy(addr, &src, &rights) && !(access & ~rights)) {
            fz_st.faults++;
            l4_set_mr(0, l4_tag_make(0, 0, 2));
            l4_set_mr(1, l4_map_item(addr & ~0xFFFul));
            l4_set_mr(2, l4_fpage_log2(src, 12) | rights);
            if (l4_ipc_failed(l4_reply(from)))
                fz_squeeze_relax();             /* it will fault again: give memory back */
            return;
        }
        fz_st.refused++;
        if ((access & L4_X) && addr >= (l4_word_t)__executable_start && addr < (l4_word_t)_end)
            fz_st.stray_x = addr;
        return;                                 /* no answer: that thread is stuck now */
    }
    if (ours && l4_tag_is_proto(tag, L4_PROTO_IO_PAGEFAULT) && l4_tag_u(tag) == 2 &&
        l4_tag_t(tag) == 0) {
        l4_word_t fp = l4_mr(1);
        if (l4_is_io_fpage(fp) && l4_io_fpage_port(fp) >= FZ_PORTS &&
            l4_io_fpage_log2(fp) <= FZ_PORTS_LOG2 &&
            l4_io_fpage_port(fp) < FZ_PORTS + (1u << FZ_PORTS_LOG2)) {
            fz_st.io_faults++;
            l4_set_mr(0, l4_tag_make(0, 0, 2));
            l4_set_mr(1, l4_map_item(0));
            l4_set_mr(2, fp);
            if (l4_ipc_failed(l4_reply(from)))
                fz_squeeze_relax();
            return;
        }
        fz_st.refused++;
        return;
    }
    if (ours && l4_tag_label(tag) == FZ_PING_LABEL) {
        fz_st.pings++;
        l4_set_mr(0, 0);
        l4_reply(from);
        return;
    }
    if (ours && l4_tag_is_proto(tag, L4_PROTO_PREEMPTION)) {
        l4_set_mr(0, 0);
        l4_reply(from);
        return;
    }
    fz_st.discarded++;
}

static l4_word_t fz_progress(void)
{
    l4_word_t p = 0;
    for (int i = 0; i < FZ_THREADS; i++)
        p += fz_ctl.slot[i].iterations + fz_ctl.slot[i].done;
    return p;
}

static bool fz_all_done(void)
{
    for (int i = 0; i < FZ_THREADS; i++)
        if (!fz_ctl.slot[i].done)
            return false;
    return true;
}

/* Is a fuzz thread ready to run (woken by a timeout, say, but not run yet)? */
static bool fz_any_ready(const l4_word_t *tids)
{
    for (int i = 0; i < FZ_THREADS; i++)
        if (tu_state(tids[i]) == L4_SCHEDULE_RUNNING)
            return true;
    return false;
}

/* Fill the control page for a round: the pool of ids the fuzz threads use. */
static void fz_setup_ctl(unsigned phase, unsigned round, l4_word_t ver)
{
    struct fz_ctl *c = &fz_ctl;
    l4_word_t sb = l4_kip_system_base(), ub = l4_kip_user_base();
    c->phase = phase;
    for (unsigned k = 0; k < OP_COUNT; k++)
        c->weight[k] = fz_weights[phase][k];
    c->main_tid = tu_main_tid();
    for (unsigned i = 0; i < FZ_THREADS; i++) {
        struct fz_slot *s = &c->slot[i];
        s->tid = l4_global_id(fz_no(i), ver);
        s->local = FZ_LOCAL_OF(i % FZ_PER_SPACE);
        s->seed = fz_mix(fz_seed, (phase << 24) | (round << 8) | i);
        s->budget = FZ_BUDGET;
        s->iterations = s->violations = s->done = s->wrecked = s->bad_at = 0;
        for (int k = 0; k < 4; k++)
            s->bad[k] = 0;
    }
    unsigned n = 0;
    l4_word_t *ids = c->ids;
    ids[n++] = c->main_tid;
    ids[n++] = l4_global_id(ub, 3);                 /* sigma0, wrong version */
    ids[n++] = l4_global_id(ub, 0x40);              /* sigma0's number, reads as a local id */
    ids[n++] = l4_global_id(sb, 1);                 /* the idle thread */
    ids[n++] = l4_global_id(sb + 1, 1);             /* a system thread */
    ids[n++] = l4_global_id(1, 1);                  /* interrupt threads */
    ids[n++] = l4_global_id(sb - 1, 1);
    ids[n++] = l4_global_id(0, 1);
    ids[n++] = l4_global_id(4, 3);
    for (unsigned i = 0; i < FZ_THREADS; i++) {
        ids[n++] = c->slot[i].tid;
        ids[n++] = l4_global_id(fz_no(i), ver - 2);         /* the last round's */
    }
    ids[n++] = l4_global_id(1ul << 18, 1);          /* beyond the thread numbers */
    ids[n++] = l4_global_id(0xFFFFFFFFul, 0x3F);
    ids[n++] = l4_global_id(fz_no(0), 0);           /* a fuzz thread's number, local form */
    ids[n++] = 0xBF000200ul;                        /* our local id: nothing in their space */
    ids[n++] = FZ_UTCB_AREA + 0x600;                /* a local id without a thread */
    ids[n++] = L4_ANYLOCALTHREAD;
    ids[n++] = L4_ANYTHREAD;
    ids[n++] = L4_NILTHREAD;
    for (; n < FZ_NIDS; n++)
        ids[n] = l4_global_id(ub + 3000 + n, 1);    /* free numbers */
    l4_word_t *safe = c->safe;
    safe[0] = c->main_tid;
    safe[1] = L4_NILTHREAD;
    safe[2] = l4_global_id(sb, 1);
    safe[3] = l4_global_id(1, 1);
    safe[4] = l4_global_id(0x3FFFF, 1);
    safe[5] = l4_global_id(sb + 1, 1);
}

static bool fz_create_space(unsigned s, l4_word_t *tids)
{
    l4_word_t me = tu_main_tid(), old;
    l4_word_t a = fz_ctl.slot[s * FZ_PER_SPACE].tid;
    /* A quarter of the spaces get us as their redirector (§5.10): their IPC to other spaces
     * comes to us instead (and is dropped); faults and pings are for us anyway. */
    l4_word_t redirector = fz_mrnd() % 4 == 0 ? me : L4_NILTHREAD;
    if (!l4_thread_control(a, a, me, L4_NILTHREAD, ~0ul) ||
        !l4_space_control(a, 0, l4_fpage_log2(FZ_KIP_AREA, 12),
                          l4_fpage_log2(FZ_UTCB_AREA, FZ_UTCB_LOG2), redirector, &old) ||
        !l4_thread_control(a, a, L4_NILTHREAD, me, FZ_UTCB_OF(0))) {
        snprintf(fz_msg, sizeof(fz_msg), "creating fuzz space %u failed: error %lu", s,
                 l4_error_code());
        return false;
    }
    tids[0] = a;
    for (unsigned k = 1; k < FZ_PER_SPACE; k++) {
        l4_word_t b = fz_ctl.slot[s * FZ_PER_SPACE + k].tid;
        if (!l4_thread_control(b, a, me, me, FZ_UTCB_OF(k))) {
            snprintf(fz_msg, sizeof(fz_msg), "creating fuzz thread %lx failed: error %lu", b,
                     l4_error_code());
            return false;
        }
        tids[k] = b;
    }
    for (unsigned k = 0; k < FZ_PER_SPACE; k++) {
        /* As their scheduler: time slices, total quanta (time faults come to us), delayed
         * preemption of any kind. */
        l4_word_t slice = (fz_mrnd() % 4 == 0 ? fz_mrnd() % 1024 + ((fz_mrnd() % 8) << 10)
                                               : 0xFFFF);
        l4_word_t quantum = fz_mrnd() % 8 == 0 ? 1 + fz_mrnd() % 1023 + (6ul << 10) : 0xFFFF;
        l4_word_t preempt = fz_mrnd() % 2 ? (fz_mrnd() % 2000) | ((fz_mrnd() % 256) << 16) : ~0ul;
        l4_word_t oldtc;
        if (!l4_schedule(tids[k], (slice << 16) | quantum, ~0ul, FZ_PRIO, preempt, &oldtc)) {
            snprintf(fz_msg, sizeof(fz_msg), "Schedule on fuzz thread %lx failed: error %lu",
                     tids[k], l4_error_code());
            return false;
        }
    }
    return true;
}

/* One round: FZ_THREADS fuzz threads until each finished or is stuck.  False with fz_msg set
 * if something is wrong. */
static bool fz_round(unsigned phase, unsigned round)
{
    l4_word_t ver = 1 + 2 * ++fz_gen;
    l4_word_t tids[FZ_THREADS];
    fz_mx = fz_mix(fz_seed, 0x10000000 + fz_gen);
    fz_setup_ctl(phase, round, ver);
    for (unsigned s = 0; s < FZ_SPACES; s++)
        if (!fz_create_space(s, &tids[s * FZ_PER_SPACE]))
            return false;
    for (unsigned i = 0; i < FZ_THREADS; i++) {
        /* The start message (IP, SP) maps our ports FZ_PORTS.. too: I/O fpages to map,
         * grant and unmap between the fuzz spaces. */
        l4_set_mr(0, l4_tag_make(0, 2, 2));
        l4_set_mr(1, (l4_word_t)fz_entry);
        l4_set_mr(2, FZ_STACK_TOP(i % FZ_PER_SPACE));
        l4_set_mr(3, l4_map_item(0));
        l4_set_mr(4, l4_io_fpage(FZ_PORTS, FZ_PORTS_LOG2));
        if (l4_ipc_failed(l4_send(tids[i]))) {
            snprintf(fz_msg, sizeof(fz_msg), "starting fuzz thread %lx failed", tids[i]);
            return false;
        }
    }
    if (fz_squeeze_every && fz_gen % fz_squeeze_every == 0)
        fz_squeeze_fill();
    fz_watchdog_arm(tids, FZ_THREADS);
    /* Serve until the quiet thread says that everything is blocked; then give threads that
     * wait with a timeout FZ_SETTLE_STEPS * FZ_SETTLE_US to go on; if none did, the round is
     * over.  (A watchdog, not synchronisation: it only decides when to give up on them.) */
    l4_set_br(0, 0);                            /* accept no mappings and no strings */
    fz_quiet_arm();
    l4_word_t start = l4_system_clock(), snapshot = 0;
    unsigned settling = 0;
    for (;;) {
        if (l4_system_clock() - start > FZ_ROUND_MAX_US) {
            fz_st.overruns++;
            break;
        }
        /* Wait with timeout never (so that the fuzz threads' calls can take the fast path),
         * except while settling; a round that keeps us busy too long is noticed above. */
        l4_word_t from, tag = l4_wait_timeout(settling ? l4_period_from_us(FZ_SETTLE_US) : L4_NEVER,
                                              &from);
        if (l4_ipc_failed(tag) && l4_ipc_last_error() == L4_IPC_TIMEOUT && settling) {
            if (fz_progress() != snapshot || fz_any_ready(tids)) {
                settling = 0;                   /* somebody went on: back to normal */
                fz_quiet_arm();
            } else if (++settling > FZ_SETTLE_STEPS) {
                break;                          /* stuck for good */
            }
            continue;
        }
        if (l4_ipc_failed(tag))
            continue;
        if (fz_is_quiet(tag, from)) {
            if (fz_all_done())
                break;
            snapshot = fz_progress();
            settling = 1;
            continue;
        }
        fz_handle(tag, from);
        if (settling && fz_progress() != snapshot) {
            settling = 0;
            fz_quiet_arm();
        }
    }
    if (fz_watchdog_disarm())
        fz_st.watchdog++;
    fz_squeeze_end();
    /* The end: delete them in a random order (their spaces go with the last thread), then
     * look at the results. */
    unsigned order[FZ_THREADS];
    for (unsigned i = 0; i < FZ_THREADS; i++) {
        unsigned j = (unsigned)(fz_mrnd() % (i + 1));
        order[i] = order[j];
        order[j] = i;
    }
    for (unsigned i = 0; i < FZ_THREADS; i++)
        tu_kill(tids[order[i]]);
    fz_st.rounds++;
    for (unsigned i = 0; i < FZ_THREADS; i++) {
        struct fz_slot *s = &fz_ctl.slot[i];
        l4_word_t it = s->iterations;
        fz_st.calls += it > s->budget ? s->budget : it;
        fz_st.threads++;
        fz_st.finished += s->done ? 1 : 0;
        fz_st.wrecked += s->wrecked ? 1 : 0;
        if (tu_state(tids[i]) != 0 || l4_error_code() != L4_ERR_INVALID_THREAD) {
            snprintf(fz_msg, sizeof(fz_msg), "fuzz thread %lx still exists after deletion",
                     tids[i]);
            return false;
        }
        if (s->violations) {
            l4_word_t v = s->bad[0];
            snprintf(fz_msg, sizeof(fz_msg),
                     "round %u thread %u, call %lu: %s: %lx %lx %lx (%lu violations)", round, i,
                     s->bad_at, v < V_COUNT && fz_check_names[v] ? fz_check_names[v] : "?",
                     s->bad[1], s->bad[2], s->bad[3], s->violations);
            return false;
        }
    }
    return fz_leak_check("fuzz", round);
}

bool fz_leak_check(const char *what, unsigned round)
{
    if (!fz_leak_each_round)
        return true;
    l4_word_t err;
    unsigned n = km_capacity(&err);
    if (n + 1 < km_baseline) {
        snprintf(fz_msg, sizeof(fz_msg), "%s round %u: only %u spaces fit, %u before: kernel "
                 "memory leaked", what, round, n, km_baseline);
        return false;
    }
    return true;
}

/* A well-behaved child: fault on the window (served by tu_serve), report what it read. */
static void fz_good_child(void)
{
    l4_word_t v = *(volatile l4_word_t *)(TU_WINDOW + 0x1008);
    tu_report(0x600D, v + 1);
    l4_sleep_forever();
}

/* The system still works: an IPC round trip with a new thread in a new space whose page fault
 * is resolved through us. */
bool fz_system_works(void)
{
    *(volatile l4_word_t *)&tu_window_backing[0x1008] = 0x1234;
    l4_word_t t = tu_space_thread(fz_good_child, 150);
    if (!t) {
        snprintf(fz_msg, sizeof(fz_msg), "cannot create a thread: error %lu", l4_error_code());
        return false;
    }
    l4_word_t from, tag = tu_serve(&from);
    bool ok = !l4_ipc_failed(tag) && from == t && l4_tag_label(tag) == 0x600D &&
              l4_mr(1) == 0x1235;
    if (!ok)
        snprintf(fz_msg, sizeof(fz_msg), "round trip failed: tag %lx from %lx (%lx) mr1 %lx",
                 tag, from, t, l4_mr(1));
    tu_kill(t);
    return ok;
}

static bool fz_phase(unsigned phase, const char *name)
{
    struct fz_stats before = fz_st;
    l4_word_t t0 = l4_system_clock();
    for (unsigned r = 0; r < fz_rounds; r++)
        if (!fz_round(phase, r))
            return false;
    l4_word_t us = l4_system_clock() - t0;
    test_note("%s: %lu rounds, %lu threads (%lu finished, %lu wrecked themselves), %lu calls, "
              "%lu faults served, %lu I/O faults served, %lu refused, %lu calls answered, "
              "%lu messages dropped, %lu rounds with the kernel pool full, %lu.%03lu s",
              name, fz_st.rounds - before.rounds, fz_st.threads - before.threads,
              fz_st.finished - before.finished, fz_st.wrecked - before.wrecked,
              fz_st.calls - before.calls, fz_st.faults - before.faults,
              fz_st.io_faults - before.io_faults,
              fz_st.refused - before.refused, fz_st.pings - before.pings,
              fz_st.discarded - before.discarded, fz_st.squeezed - before.squeezed,
              us / 1000000, us / 1000 % 1000);
    if (fz_st.stray_x)
        test_note("a fuzz thread fetched instructions at %lx (refused)", fz_st.stray_x);
    if (fz_st.watchdog != before.watchdog) {
        snprintf(fz_msg, sizeof(fz_msg), "%lu rounds: fuzz threads kept each other busy for "
                 "%lu ms without a word to us (the watchdog ended them)",
                 fz_st.watchdog - before.watchdog, 2 * FZ_ROUND_MAX_US / 1000);
        return false;
    }
    if (fz_st.overruns != before.overruns) {
        snprintf(fz_msg, sizeof(fz_msg), "%lu rounds did not end within %lu ms",
                 fz_st.overruns - before.overruns, FZ_ROUND_MAX_US / 1000);
        return false;
    }
    return fz_system_works();
}

/* --- kernel memory: how many spaces fit (test_kmem's measure) ------------------------------ */

static l4_word_t km_tids[KM_MAX];
static unsigned km_baseline;

static unsigned km_capacity(l4_word_t *err)
{
    l4_word_t me = tu_main_tid(), old;
    unsigned n = 0;
    *err = 0;
    for (; n < KM_MAX; n++) {
        l4_word_t t = l4_global_id(kmem_no(n), 1);
        if (!l4_thread_control(t, t, me, 0, ~0ul)) {
            *err = l4_error_code();
            break;
        }
        km_tids[n] = t;
        if (!l4_space_control(t, 0, l4_fpage_log2(0xBFF00000, 12),
                              l4_fpage_log2(0xBF000000, 12), 0, &old) ||
            !l4_thread_control(t, t, 0, me, 0xBF000000)) {
            *err = l4_error_code();
            n++;
            break;
        }
    }
    for (unsigned i = 0; i < n; i++)
        tu_kill(km_tids[i]);
    return n;
}

/* ===================================================================================
 * The privileged phase: a thread of our (privileged) space calls ThreadControl, SpaceControl,
 * Schedule, ExchangeRegisters, MemoryControl and ProcessorControl with random arguments, but
 * names as threads only its victims (thread numbers victim_no(0..NVICTIMS-1)), interrupt
 * threads it associates with victims, system threads and garbage.  It tracks the current id of
 * every victim (a failed call has no effect) and deletes them all at the end.
 * =================================================================================== */

static struct {
    uint64_t x;
    l4_word_t victim[NVICTIMS];         /* current global id, 0 if none */
    l4_word_t irq_lines;                /* interrupt lines we associated */
    l4_word_t calls, created, deleted, started, irqs, violations, bad[4];
} pv;
static uint8_t pv_buf[4 * 4096] __attribute__((aligned(4096)));

static uint64_t prnd(void)
{
    return fz_xorshift(&pv.x);
}
#define PB(n) (prnd() % (l4_word_t)(n))

static void pv_violation(l4_word_t what, l4_word_t a, l4_word_t b, l4_word_t c)
{
    if (pv.violations++ == 0) {
        pv.bad[0] = what;
        pv.bad[1] = a;
        pv.bad[2] = b;
        pv.bad[3] = c;
    }
}

/* A result of a privileged call: 1, or 0 with an error code from the contract's list. */
static void pv_check_result(l4_word_t what, l4_word_t res)
{
    if (res > 1 || (res == 0 && (l4_error_code() < 1 || l4_error_code() > 8)))
        pv_violation(what, res, l4_error_code(), 0);
}

static l4_word_t pv_version(void)
{
    l4_word_t v = prnd() & 0xFFFFFFFFul;
    return PB(10) == 0 ? v & ~0x3Ful : (v | (1 + PB(63)));   /* sometimes low bits 0: local form */
}

/* A thread id that is certainly not one of ours other than a victim. */
static l4_word_t pv_id(bool for_space)
{
    l4_word_t sb = l4_kip_system_base();
    unsigned i = (unsigned)PB(NVICTIMS);
    switch (PB(for_space ? 12 : 14)) {
    case 0: case 1: case 2: case 3: case 4:
        return pv.victim[i] ? pv.victim[i] : l4_global_id(victim_no(i), 1);
    case 5: return l4_global_id(victim_no(i), pv_version());
    case 6: return l4_global_id(sb, 1);                     /* idle */
    case 7: return l4_global_id(sb + 1 + PB(31), 1);        /* other system threads */
    case 8: return l4_global_id(PB(sb), 1);                 /* interrupt threads */
    case 9: return PB(2) ? L4_NILTHREAD : L4_ANYTHREAD;
    case 10: return PB(2) ? L4_ANYLOCALTHREAD : 0x1000;     /* local ids: no thread */
    case 11: return l4_global_id((1ul << 18) + PB(1000), 1);
    case 12: return tu_main_tid();                          /* (not for spaces) */
    default: return l4_my_global_id();
    }
}

static l4_word_t pv_utcb_area(void)
{
    switch (PB(5)) {
    case 0: case 1: return l4_fpage_log2(FZ_UTCB_AREA, FZ_UTCB_LOG2);
    case 2: return l4_fpage_log2(PB(1ul << 47), (unsigned)PB(64)) | PB(16);
    case 3: return l4_fpage_log2(0xFFFF800000000000ul, 12 + (unsigned)PB(30));
    default: return prnd();
    }
}

static l4_word_t pv_kip_area(void)
{
    switch (PB(5)) {
    case 0: case 1: return l4_fpage_log2(FZ_KIP_AREA, 12);
    case 2: return l4_fpage_log2(FZ_UTCB_AREA, 12);         /* overlaps the UTCB area */
    case 3: return l4_fpage_log2(PB(1ul << 48), (unsigned)PB(64)) | PB(16);
    default: return prnd();
    }
}

static l4_word_t pv_utcb_location(void)
{
    switch (PB(8)) {
    case 0: case 1: case 2: return ~0ul;
    case 3: case 4: case 5: return FZ_UTCB_AREA + 0x400 * PB(64);
    case 6: return FZ_UTCB_AREA + PB(1ul << 17);
    default: return prnd();
    }
}

static void pv_thread_control(void)
{
    l4_word_t sb = l4_kip_system_base(), me = l4_my_global_id();
    unsigned i = (unsigned)PB(NVICTIMS);
    l4_word_t dest, space, sched, pager, utcb = pv_utcb_location();
    int irq = -1;
    switch (PB(20)) {
    case 0: case 1:                                         /* interrupt (de)association */
        irq = (int)PB(sb);
        dest = l4_global_id((l4_word_t)irq, PB(8) ? 1 : 2);
        break;
    case 2:
        dest = pv_id(false);
        if (dest == me || dest == tu_main_tid() || l4_thread_no(dest) < sb)
            dest = l4_global_id(sb + 1, 1);
        break;
    default:
        dest = PB(2) && pv.victim[i] ? pv.victim[i] : l4_global_id(victim_no(i), pv_version());
        break;
    }
    switch (PB(10)) {
    case 0: case 1: space = L4_NILTHREAD; break;
    case 2: case 3: case 4: space = dest; break;
    default: space = pv_id(true); break;
    }
    switch (PB(8)) {
    case 0: case 1: sched = L4_NILTHREAD; break;
    case 2: sched = tu_main_tid(); break;
    case 3: sched = me; break;
    default: sched = pv_id(false); break;
    }
    switch (PB(8)) {
    case 0: case 1: case 2: pager = L4_NILTHREAD; break;
    case 3: case 4: pager = me; break;
    default: pager = pv_id(false); break;
    }
    if (irq >= 0) {
        /* Handler: a victim (associate), the interrupt thread itself (detach), or garbage. */
        switch (PB(4)) {
        case 0: case 1: pager = pv.victim[i] ? pv.victim[i] : dest; break;
        case 2: pager = dest; break;
        default: if (pager == me || pager == tu_main_tid()) pager = L4_NILTHREAD; break;
        }
    }
    l4_word_t res = l4_thread_control(dest, space, sched, pager, utcb);
    pv.calls++;
    pv_check_result(PV_TC_RESULT, res);
    /* A system or interrupt thread has no space anybody may put a thread into. */
    if (res && irq < 0 && space != dest && l4_is_global_id(space) &&
        l4_thread_no(space) < l4_kip_user_base())
        pv_violation(PV_TC_SYSTEM_SPACE, dest, space, 0);
    if (irq >= 0) {
        if (res && l4_version(dest) == 1) {
            if (pager == dest)
                pv.irq_lines &= ~(1ul << irq);
            else {
                pv.irq_lines |= 1ul << irq;
                pv.irqs++;
            }
        }
        return;
    }
    if (!res || l4_thread_no(dest) < victim_no(0) || l4_thread_no(dest) >= victim_no(NVICTIMS))
        return;
    unsigned v = (unsigned)(l4_thread_no(dest) - victim_no(0));
    /* Where the space specifier is a local id, it names no thread of ours: a deletion. */
    bool del = space == L4_NILTHREAD || (l4_is_local_id(space) && space != L4_ANYTHREAD);
    if (del) {
        if (pv.victim[v] == dest) {
            pv.victim[v] = 0;
            pv.deleted++;
        }
    } else {
        if (!pv.victim[v])
            pv.created++;
        pv.victim[v] = dest;
    }
}

static void pv_space_control(void)
{
    l4_word_t old, red;
    switch (PB(6)) {
    case 0: case 1: red = L4_NILTHREAD; break;
    case 2: red = L4_ANYTHREAD; break;
    default: red = pv_id(false); break;
    }
    l4_word_t spec = pv_id(true);
    l4_word_t res = l4_space_control(spec, PB(4) ? 0 : prnd(), pv_kip_area(), pv_utcb_area(),
                                     red, &old);
    pv.calls++;
    pv_check_result(PV_SC_RESULT, res);
    l4_word_t no = l4_thread_no(spec);
    if (res && l4_is_global_id(spec) && no < l4_kip_user_base())
        pv_violation(PV_SC_SYSTEM_SPACE, spec, 0, 0);
}

static void pv_schedule(void)
{
    l4_word_t old, t = pv_id(false);
    if (t == l4_my_global_id() || t == tu_main_tid())
        t = L4_NILTHREAD;
    l4_word_t res = l4_schedule(t, PB(2) ? prnd() : ~0ul, PB(3) ? ~0ul : PB(4),
                                PB(2) ? PB(512) : prnd(), PB(2) ? ~0ul : prnd(), &old);
    pv.calls++;
    if (res > 7 || (res == 0 && (l4_error_code() < 1 || l4_error_code() > 8)))
        pv_violation(PV_SCHED_RESULT, t, res, l4_error_code());
}

static void pv_exchange_registers(void)
{
    struct l4_exregs old;
    l4_word_t t = pv_id(false);
    if (t == l4_my_global_id() || t == tu_main_tid() || l4_is_local_id(t))
        t = L4_NILTHREAD;
    l4_word_t res = l4_exchange_registers(t, prnd(), prnd(), prnd(), prnd(), prnd(), pv_id(false),
                                          &old);
    pv.calls++;
    /* Nothing we may name lives in our space. */
    if (res != 0 || l4_error_code() != L4_ERR_INVALID_THREAD)
        pv_violation(PV_EXREGS_OTHER, t, res, l4_error_code());
}

static void pv_memory_control(void)
{
    unsigned k = (unsigned)PB(6);
    if (PB(20) == 0)
        k = 63;
    l4_word_t attr[4];
    for (int a = 0; a < 4; a++)
        attr[a] = PB(4) ? PB(11) : prnd();
    bool valid = true;
    for (unsigned i = 0; i <= k; i++) {
        l4_word_t fp;
        switch (PB(9)) {
        case 0: case 1: case 2:
            fp = l4_fpage_log2((l4_word_t)pv_buf + 4096 * PB(4), 12 + (unsigned)PB(3));
            break;
        case 3: fp = 0; break;
        case 4:
            fp = l4_fpage_log2(0xFFFF800000000000ul + (PB(1ul << 30) << 12), 12 + (unsigned)PB(20));
            break;
        case 5: fp = l4_fpage_log2(0x8000000000000000ul, 12); break;
        case 6: fp = l4_io_fpage((unsigned)PB(65536), (unsigned)PB(17)); break;
        case 7: fp = l4_fpage_log2(0x40000000ul * PB(64), 30); break;  /* nothing mapped there */
        default: fp = l4_fpage_log2(prnd() | (1ul << 47), 12 + (unsigned)PB(50)); break;
        }
        fp |= PB(4);                            /* selects the attribute */
        l4_set_mr((int)i, fp);
        l4_word_t a = attr[fp & 3];
        if (!l4_is_nil_fpage(fp) && (a == 6 || a == 7 || a > 8))
            valid = false;
    }
    l4_word_t mr0 = l4_mr(0);
    l4_word_t res = l4_memory_control(k, attr[0], attr[1], attr[2], attr[3]);
    pv.calls++;
    if (res != (valid ? 1u : 0u) || (!valid && l4_error_code() != L4_ERR_INVALID_PARAM) ||
        l4_mr(0) != mr0)
        pv_violation(PV_MC_RESULT, res, l4_error_code(), k);
}

static void pv_processor_control(void)
{
    l4_word_t p = PB(2) ? PB(3) : prnd();
    l4_word_t res = l4_processor_control(p, prnd(), prnd(), prnd());
    pv.calls++;
    if (res != (p == 0 ? 1u : 0u) || (p != 0 && l4_error_code() != L4_ERR_INVALID_PARAM))
        pv_violation(PV_PC_RESULT, p, res, l4_error_code());
}

/* The long way to a victim that waits for its start message from us: create it in a new
 * space, give the space its areas, activate it.  Every step must work. */
static void pv_make_victim(void)
{
    unsigned i = (unsigned)PB(NVICTIMS);
    l4_word_t me = l4_my_global_id(), old;
    if (pv.victim[i]) {
        if (!l4_thread_control(pv.victim[i], 0, 0, 0, ~0ul))
            pv_violation(PV_REDELETE, pv.victim[i], l4_error_code(), 0);
        pv.victim[i] = 0;
        pv.deleted++;
    }
    l4_word_t t = l4_global_id(victim_no(i), pv_version() | 1);
    pv.calls += 3;
    if (!l4_thread_control(t, t, me, 0, ~0ul)) {
        if (l4_error_code() != L4_ERR_NO_MEM)
            pv_violation(PV_CREATE, t, l4_error_code(), 0);
        return;
    }
    pv.victim[i] = t;
    pv.created++;
    if (!l4_space_control(t, 0, l4_fpage_log2(FZ_KIP_AREA, 12),
                          l4_fpage_log2(FZ_UTCB_AREA, FZ_UTCB_LOG2), 0, &old) ||
        !l4_thread_control(t, t, 0, me, FZ_UTCB_AREA + 0x400 * PB(64))) {
        if (l4_error_code() != L4_ERR_NO_MEM)
            pv_violation(PV_ACTIVATE, t, l4_error_code(), 0);
        return;
    }
    if (tu_state(t) != L4_SCHEDULE_WAITING)
        pv_violation(PV_NOT_WAITING, t, tu_state(t), 0);
}

/* Start a victim that waits for us as its pager: at a random IP and SP (its space holds
 * nothing of ours, so whatever it runs is its own business). */
static void pv_start(void)
{
    unsigned i = (unsigned)PB(NVICTIMS);
    if (!pv.victim[i])
        return;
    l4_word_t ip;
    switch (PB(4)) {
    case 0: ip = l4lib_syscalls.ipc; break;
    case 1: ip = FZ_KIP_AREA + PB(4096); break;
    default: ip = prnd(); break;
    }
    l4_set_mr(0, l4_tag_make(0, 2, 0));
    l4_set_mr(1, ip);
    l4_set_mr(2, PB(2) ? FZ_KIP_AREA + 0x1A0 : prnd());
    l4_word_t tag = l4_reply(pv.victim[i]);
    pv.calls++;
    if (!l4_ipc_failed(tag))
        pv.started++;
}

static void pv_thread_switch(void)
{
    l4_thread_switch(pv_id(false));
    pv.calls++;
}

/* The operations and their weights (in percent). */
static const struct {
    unsigned weight;
    void (*op)(void);
} pv_ops[] = {
    { 55, pv_thread_control }, { 12, pv_space_control }, { 10, pv_schedule },
    { 5, pv_exchange_registers }, { 5, pv_memory_control }, { 3, pv_processor_control },
    { 3, pv_start }, { 4, pv_make_victim }, { 3, pv_thread_switch },
};

static void pv_thread(void)
{
    for (l4_word_t n = 0; n < PRIV_OPS; n++) {
        unsigned pick = (unsigned)PB(100), k = 0;
        while (k + 1 < sizeof(pv_ops) / sizeof(pv_ops[0]) && pick >= pv_ops[k].weight)
            pick -= pv_ops[k++].weight;
        pv_ops[k].op();
    }
    /* Clean up: every victim deleted (and gone), every line we associated detached, our
     * memory attributes back to the default. */
    for (unsigned i = 0; i < NVICTIMS; i++) {
        if (!pv.victim[i])
            continue;
        if (!l4_thread_control(pv.victim[i], 0, 0, 0, ~0ul))
            pv_violation(PV_DELETE, pv.victim[i], l4_error_code(), 0);
        else if (tu_state(pv.victim[i]) != 0 || l4_error_code() != L4_ERR_INVALID_THREAD)
            pv_violation(PV_DELETED_EXISTS, pv.victim[i], 0, 0);
        pv.victim[i] = 0;
    }
    for (unsigned n = 0; n < 64; n++)
        if (pv.irq_lines & (1ul << n))
            l4_thread_control(l4_global_id(n, 1), 0, 0, l4_global_id(n, 1), ~0ul);
    l4_set_mr(0, L4_COMPLETE_FPAGE);
    if (l4_memory_control(0, 0, 0, 0, 0) != 1)
        pv_violation(PV_MC_RESET, l4_error_code(), 0, 0);
    l4_set_mr(0, l4_tag_make(PRIV_DONE_LABEL, 0, 0));
    l4_send(tu_main_tid());
    l4_sleep_forever();
}

/* ===================================================================================
 * The cases, one per phase.  They must run in this order: baseline, the fuzz phases, then the
 * checks afterwards; the framework runs them in the order the compiler emits their records,
 * which is the reverse of their definition here.  fz_done notices any other order.
 * =================================================================================== */

enum { DONE_BASELINE = 1, DONE_IPC = 2, DONE_ITEMS = 4, DONE_OTHER = 8, DONE_PRIV = 16,
       DONE_FIXED = 32, DONE_DESC = 64 };
static unsigned fz_done;

TEST(system_still_works)
{
    CHECK(fz_done == (DONE_BASELINE | DONE_FIXED | DONE_IPC | DONE_ITEMS | DONE_OTHER | DONE_PRIV |
                      DONE_DESC), "cases out of order (%x)", fz_done);
    CHECK(fz_system_works(), "%s", fz_msg);
    /* No thread of the run is left. */
    for (unsigned i = 0; i < FZ_THREADS; i++) {
        l4_word_t t = l4_global_id(fz_no(i), 1 + 2 * fz_gen);
        CHECK(tu_state(t) == 0 && l4_error_code() == L4_ERR_INVALID_THREAD);
    }
    /* All the kernel memory is back (but for a UTCB page for our helper threads: one space
     * less may fit). */
    l4_word_t err;
    unsigned n = km_capacity(&err);
    test_note("kernel memory: %u spaces fit (%u before the fuzzing)", n, km_baseline);
    CHECK(err == L4_ERR_NO_MEM);
    CHECK(n + 1 >= km_baseline, "only %u spaces fit, %u before: kernel memory leaked", n,
          km_baseline);
    CHECK(fz_system_works(), "%s", fz_msg);
}

/* Segment loads and far transfers through every selector, against planted descriptors
 * (fuzz_desc.c). */
TEST(descriptor_attacks)
{
    CHECK(fz_done & DONE_BASELINE, "cases out of order (%x)", fz_done);
    fz_done |= DONE_DESC;
    CHECK(fd_phase(), "%s", fz_msg);
}

TEST(privileged_calls_on_own_threads)
{
    CHECK(fz_done & DONE_BASELINE, "cases out of order (%x)", fz_done);
    fz_done |= DONE_PRIV;
    pv.x = fz_mix(fz_seed, 0x20000000);
    l4_word_t t0 = l4_system_clock();
    l4_word_t t = tu_thread(pv_thread, FZ_PRIO);
    CHECK(t != 0);
    l4_word_t pv_local = l4_local_id_of(t);
    /* Serve nothing: victims that fault on us or send to us wait until they are deleted. */
    l4_set_br(0, 0);
    for (;;) {
        l4_word_t from, tag = l4_wait_timeout(l4_period_from_us(2000000), &from);
        CHECK(!l4_ipc_failed(tag) || l4_ipc_last_error() != L4_IPC_TIMEOUT,
              "the privileged fuzz thread did not finish (%lu calls)", pv.calls);
        if (!l4_ipc_failed(tag) && from == pv_local && l4_tag_label(tag) == PRIV_DONE_LABEL)
            break;
    }
    tu_kill(t);
    l4_word_t us = l4_system_clock() - t0;
    test_note("privileged: %lu calls, %lu victims created, %lu deleted, %lu started, %lu "
              "interrupt associations, %lu.%03lu s", pv.calls, pv.created, pv.deleted,
              pv.started, pv.irqs, us / 1000000, us / 1000 % 1000);
    CHECK(pv.violations == 0, "%s: %lx %lx %lx (%lu violations)",
          pv.bad[0] < V_COUNT && fz_check_names[pv.bad[0]] ? fz_check_names[pv.bad[0]] : "?",
          pv.bad[1], pv.bad[2], pv.bad[3], pv.violations);
    CHECK(fz_system_works(), "%s", fz_msg);
}

TEST(other_calls_unprivileged)
{
    CHECK(fz_done & DONE_BASELINE, "cases out of order (%x)", fz_done);
    fz_done |= DONE_OTHER;
    CHECK(fz_phase(PH_OTHER, "other calls"), "%s", fz_msg);
}

TEST(utcb_and_typed_items)
{
    CHECK(fz_done & DONE_BASELINE, "cases out of order (%x)", fz_done);
    fz_done |= DONE_ITEMS;
    CHECK(fz_phase(PH_ITEMS, "typed items and UTCB words"), "%s", fz_msg);
}

TEST(ipc_fuzz_unprivileged)
{
    CHECK(fz_done & DONE_BASELINE, "cases out of order (%x)", fz_done);
    fz_done |= DONE_IPC;
    CHECK(fz_phase(PH_IPC, "ipc"), "%s", fz_msg);
}

/* The bugs this fuzzer found, as fixed cases (the seed finds some of them only now and then). */
static volatile l4_word_t fb_receiver;
static volatile l4_word_t fb_result;
static char fb_text[64] = "a string for a receiver whose buffer faults";

static void fb_mr_child(void)
{
    for (int i = 1; i < 64; i++)
        l4_set_mr(i, 0x5A00 + (l4_word_t)i);
    l4_word_t v = *(volatile l4_word_t *)(TU_WINDOW + 0x2000);     /* a fault to main */
    l4_word_t bad = 0;
    for (int i = 1; i < 64 && !bad; i++)
        if (l4_mr(i) != 0x5A00 + (l4_word_t)i)
            bad = (l4_word_t)i;
    tu_report(0xB0, bad | (v << 8));
    l4_sleep_forever();
}

/* Receives a string into a buffer whose page fault nobody answers. */
static void fb_receiver_fn(void)
{
    l4_set_br(0, L4_ACCEPT_STRINGS);
    l4_set_br(1, l4_string_item(sizeof(fb_text), 1, false));
    l4_set_br(2, TU_WINDOW + 0xF000);
    l4_wait(NULL);
    l4_sleep_forever();
}

static void fb_sender_fn(void)
{
    l4_set_mr(0, l4_tag_make(1, 0, 2));
    l4_set_mr(1, l4_string_item(sizeof(fb_text), 1, false));
    l4_set_mr(2, (l4_word_t)fb_text);
    l4_send(fb_receiver);
    l4_sleep_forever();
}

/* A string transfer stuck in the receiver's fault IPC; then both partners are deleted. */
static bool fb_stuck_transfer(bool receiver_first)
{
    tu_window_refuse_from = TU_WINDOW + 0x8000;
    l4_word_t r = tu_space_thread(fb_receiver_fn, 150);
    fb_receiver = r;
    l4_word_t s = tu_space_thread(fb_sender_fn, 150);
    unsigned unanswered = tu_wait_quiet();
    tu_window_refuse_from = ~0ul;
    bool ok = unanswered == 1 && tu_last_fault_from == r;
    /* Nobody runs in between: the second deletion finds what the first left behind. */
    tu_kill(receiver_first ? r : s);
    tu_kill(receiver_first ? s : r);
    return ok && tu_state(r) == 0 && tu_state(s) == 0;
}

TEST(fixed_findings_stay_fixed)
{
    CHECK(fz_done & DONE_BASELINE, "cases out of order (%x)", fz_done);
    fz_done |= DONE_FIXED;
    l4_word_t me = tu_main_tid(), old, idle = l4_global_id(l4_kip_system_base(), 1);
    l4_word_t v = l4_global_id(victim_no(0), 1);
    /* 1. The idle thread names no space (a thread put there was deleted with the kernel's). */
    CHECK_EQ(l4_thread_control(v, idle, me, 0, ~0ul), 0);
    CHECK_EQ(l4_error_code(), L4_ERR_INVALID_SPACE);
    CHECK_EQ(l4_space_control(idle, 0, l4_fpage_log2(FZ_KIP_AREA, 12),
                              l4_fpage_log2(FZ_UTCB_AREA, 16), 0, &old), 0);
    CHECK_EQ(l4_error_code(), L4_ERR_INVALID_SPACE);
    /* 2. Ipc with neither phase does not fail, whatever the e bit of MR0 said before. */
    l4_set_mr(0, l4_tag_make(7, 0, 0) | L4_TAG_E);
    CHECK(!l4_ipc_failed(l4_ipc(L4_NILTHREAD, L4_NILTHREAD, 0, NULL)));
    /* 3. A pager's reply longer than the fault message leaves the thread's MRs alone. */
    *(volatile l4_word_t *)&tu_window_backing[0x2000] = 0x33;
    l4_word_t c = tu_space_thread(fb_mr_child, 150);
    CHECK(c != 0);
    l4_word_t from, tag = l4_wait(&from);
    CHECK(from == c && l4_tag_is_proto(tag, L4_PROTO_PAGEFAULT), "tag %lx from %lx", tag, from);
    l4_word_t page = l4_mr(1) & ~0xFFFul;
    for (int i = 1; i <= 40; i++)
        l4_set_mr(i, 0xDEAD0000 + (l4_word_t)i);
    l4_set_mr(41, l4_map_item(page));
    l4_set_mr(42, l4_fpage_log2((l4_word_t)tu_window_backing + (page - TU_WINDOW), 12) | L4_RWX);
    l4_set_mr(0, l4_tag_make(0, 40, 2));
    tag = tu_serve_continue(l4_reply_wait(c, &from), &from);
    CHECK(from == c && l4_tag_label(tag) == 0xB0);
    CHECK_EQ(l4_mr(1), 0x33 << 8);              /* MR1..MR63 intact, the page read */
    tu_kill(c);
    /* 4. Both partners of a string transfer deleted while the receiver's fault IPC waits. */
    CHECK(fb_stuck_transfer(true), "receiver deleted first");
    CHECK(fb_stuck_transfer(false), "sender deleted first");
    CHECK(fz_system_works(), "%s", fz_msg);
}

TEST(baseline_before_fuzzing)
{
    test_note("seed %#lx, %u rounds of %u threads x %u calls per phase, %u privileged calls",
              fz_seed, fz_rounds, FZ_THREADS, FZ_BUDGET, PRIV_OPS);
    /* The containment above relies on this layout. */
    CHECK((l4_word_t)__executable_start >= 0x1000000 && (l4_word_t)_end < FZ_UTCB_AREA,
          "image at %lx..%lx", (l4_word_t)__executable_start, (l4_word_t)_end);
    CHECK((l4_word_t)__stop_fuzztext > (l4_word_t)__start_fuzztext);
    fz_pretouch();
    struct fz_ctl *c = &fz_ctl;
    c->stub[ST_IPC] = l4lib_syscalls.ipc;
    c->stub[ST_LIPC] = l4lib_syscalls.lipc;
    c->stub[ST_UNMAP] = l4lib_syscalls.unmap;
    c->stub[ST_EXREGS] = l4lib_syscalls.exchange_registers;
    c->stub[ST_TC] = l4lib_syscalls.thread_control;
    c->stub[ST_SC] = l4lib_syscalls.space_control;
    c->stub[ST_PC] = l4lib_syscalls.processor_control;
    c->stub[ST_MC] = l4lib_syscalls.memory_control;
    c->stub[ST_CLOCK] = l4lib_syscalls.system_clock;
    c->stub[ST_TSWITCH] = l4lib_syscalls.thread_switch;
    c->stub[ST_SCHED] = l4lib_syscalls.schedule;
    l4_kernel_interface(&c->api_version, &c->api_flags, &c->kernel_id);
    CHECK(l4_sigma0_get_ports(l4_sigma0_tid(), l4_io_fpage(FZ_PORTS, FZ_PORTS_LOG2)) != 0);
    /* Page tables for the TCBs of the thread numbers the test uses (they stay) first. */
    l4_word_t me = tu_main_tid();
    l4_word_t t1 = l4_global_id(fz_no(0), 1), t2 = l4_global_id(victim_no(0), 1);
    CHECK(l4_thread_control(t1, t1, me, 0, ~0ul) && l4_thread_control(t2, t2, me, 0, ~0ul));
    tu_kill(t1);
    tu_kill(t2);
    fz_watchdog_create();                       /* our helper threads' memory counts too */
    l4_word_t err;
    km_baseline = km_capacity(&err);
    CHECK(err == L4_ERR_NO_MEM, "filling kernel memory stopped with error %lu after %u spaces",
          err, km_baseline);
    test_note("kernel memory: %u spaces fit", km_baseline);
    fz_done |= DONE_BASELINE;
    CHECK(fz_system_works(), "%s", fz_msg);
}

int main(void)
{
    cmdline_init();
    fz_seed = cmdline_value("seed", FZ_SEED);
    fz_rounds = (unsigned)cmdline_value("rounds", FZ_ROUNDS);
    fz_squeeze_every = (unsigned)cmdline_value("squeeze", FZ_SQUEEZE_EVERY);
    fz_leak_each_round = cmdline_value("leak", 0) != 0;
    fd_configure();
    tests_run("fuzz");
}
