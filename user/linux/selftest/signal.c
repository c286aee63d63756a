/* lxselftest.elf signal: signals (docs/linux/signals.md, tests/system/test_lx_signal.py).
 * Included by selftest.c; raw system calls, no libc, so the frame, the registers and the
 * restorer are exactly what the kernel gives.  The expected values are Linux's.
 *   lxselftest.elf signal            every check below; exit 0
 *   lxselftest.elf sigexec           run by the signal mode's execve: the actions after it
 *   lxselftest.elf sigfpu            the FPU/SSE state across a handler (below)
 *   lxselftest.elf sigcost           TSC ticks per signal caught (kill to itself, the handler,
 *                                    rt_sigreturn; under -icount: guest instructions) */

enum { SYS_rt_sigaction = 13, SYS_rt_sigprocmask = 14, SYS_pause = 34, SYS_getitimer = 36,
       SYS_alarm = 37, SYS_setitimer = 38, SYS_kill = 62, SYS_rt_sigpending = 127,
       SYS_rt_sigtimedwait = 128, SYS_rt_sigsuspend = 130, SYS_sigaltstack = 131,
       SYS_tkill = 200, SYS_tgkill = 234, SYS_waitid = 247 };

#define SIGUSR1 10
#define SIGUSR2 12
#define SIGSEGVN 11
#define SIGCHLDN 17
#define SIGWINCH_ 28
#define SA_SIGINFO   0x4ul
#define SA_RESTORER  0x04000000ul
#define SA_ONSTACK   0x08000000ul
#define SA_RESTART   0x10000000ul
#define SA_NODEFER   0x40000000ul
#define SA_RESETHAND 0x80000000ul
#define BIT(s) (1ul << ((s) - 1))

struct ksa { u64 handler, flags, restorer, mask; };
struct sstack { u64 sp; int flags, pad; u64 size; };
struct sinfo { int signo, errno_, code, pad; int pid, uid, status, pad2; u64 rest[12]; };
struct mctx {
    u64 r8, r9, r10, r11, r12, r13, r14, r15, rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip,
        eflags;
    unsigned short cs, gs, fs, ss;
    u64 err, trapno, oldmask, cr2, fpstate, reserved[8];
};
struct uctx { u64 flags, link; struct sstack stack; struct mctx mc; u64 sigmask; };

void sig_restorer(void);
__asm__(".globl sig_restorer\n"
        "sig_restorer:\n"
        "  mov $15, %eax\n"
        "  syscall\n"
        "  hlt\n");

/* What the handler saw. */
static volatile int got_sig, got_count, got_depth, max_depth;
static volatile u64 got_rsp, got_rax, got_mask, got_ret;
static volatile struct sinfo got_info;
static volatile struct uctx got_uc;
static volatile u64 got_rsi, got_rdx;
static volatile int resend;          /* the handler sends its signal again, this often */
static volatile u64 fixup_rip;       /* a fault handler continues here (0: no change) */
static volatile u64 fixup_rax;
static volatile struct sstack got_ss;

static long sigaction(int sig, u64 handler, u64 flags, u64 mask, struct ksa *old)
{
    struct ksa sa = { handler, flags | SA_RESTORER, (u64)sig_restorer, mask };
    return sys6(SYS_rt_sigaction, sig, handler == ~0ul ? 0 : (long)&sa, (long)old, 8, 0, 0);
}

static u64 cur_mask(void)
{
    u64 m = ~0ul;
    sys6(SYS_rt_sigprocmask, 0, 0, (long)&m, 8, 0, 0);
    return m;
}

static void set_mask(u64 m)
{
    sys6(SYS_rt_sigprocmask, 2, (long)&m, 0, 8, 0, 0);
}

static long getpid_(void)
{
    return sys3(SYS_getpid, 0, 0, 0);
}

void sig_handler_c(int sig, struct sinfo *info, struct uctx *uc, u64 entry_rsp, u64 entry_rax);
void sig_handler_c(int sig, struct sinfo *info, struct uctx *uc, u64 entry_rsp, u64 entry_rax)
{
    int depth = ++got_depth;
    if (depth > max_depth)
        max_depth = depth;
    got_sig = sig;
    got_count++;
    got_rsp = entry_rsp;
    got_rax = entry_rax;
    got_ret = *(u64 *)entry_rsp;
    got_rsi = (u64)info;
    got_rdx = (u64)uc;
    for (unsigned i = 0; i < sizeof *info / 8; i++)
        ((volatile u64 *)&got_info)[i] = ((u64 *)info)[i];
    for (unsigned i = 0; i < sizeof *uc / 8; i++)
        ((volatile u64 *)&got_uc)[i] = ((u64 *)uc)[i];
    got_mask = cur_mask();
    sys6(SYS_sigaltstack, 0, (long)&got_ss, 0, 0, 0, 0);
    if (resend > 0) {
        resend--;
        sys3(SYS_kill, getpid_(), sig, 0);
    }
    if (fixup_rip) {
        uc->mc.rip = fixup_rip;
        uc->mc.rax = fixup_rax;
        fixup_rip = 0;
    }
    got_depth--;
}

/* The handler's entry in assembly: its RSP and RAX as the kernel left them; then every
 * register but RSP is clobbered before it returns to the restorer, so that a check after
 * sigreturn sees only what the frame restored. */
void sig_handler(void);
__asm__(".globl sig_handler\n"
        "sig_handler:\n"
        "  mov %rsp, %rcx\n"
        "  mov %rax, %r8\n"
        "  sub $8, %rsp\n"
        "  call sig_handler_c\n"
        "  add $8, %rsp\n"
        "  mov $0x5a5a5a5a5a5a5a5a, %rax\n"
        "  mov %rax, %rbx\n mov %rax, %rcx\n mov %rax, %rdx\n mov %rax, %rsi\n"
        "  mov %rax, %rdi\n mov %rax, %rbp\n mov %rax, %r8\n mov %rax, %r9\n"
        "  mov %rax, %r10\n mov %rax, %r11\n mov %rax, %r12\n mov %rax, %r13\n"
        "  mov %rax, %r14\n mov %rax, %r15\n"
        "  ret\n");

/* kill(self, sig) with known values in every register it does not need; afterwards the
 * registers are stored into regs_after[] in the order rbx rbp r12 r13 r14 r15 rdx r8 r9
 * r10 rax rcx rsi rdi.  regs_sp is RSP at the syscall, regs_rip the instruction after it. */
u64 regs_after[14], regs_sp, regs_pid, regs_sig;
void regs_kill(void);
extern char regs_kill_next[];
__asm__(".globl regs_kill, regs_kill_next\n"
        "regs_kill:\n"
        "  push %rbx\n push %rbp\n push %r12\n push %r13\n push %r14\n push %r15\n"
        "  mov $0x1111111111111111, %rbx\n"
        "  mov $0x2222222222222222, %rbp\n"
        "  mov $0x3333333333333333, %r12\n"
        "  mov $0x4444444444444444, %r13\n"
        "  mov $0x5555555555555555, %r14\n"
        "  mov $0x6666666666666666, %r15\n"
        "  mov $0x7777777777777777, %rdx\n"
        "  mov $0x8888888888888888, %r8\n"
        "  mov $0x9999999999999999, %r9\n"
        "  mov $0xaaaaaaaaaaaaaaaa, %r10\n"
        "  mov regs_pid(%rip), %rdi\n"
        "  mov regs_sig(%rip), %rsi\n"
        "  mov $62, %eax\n"
        "  mov %rsp, regs_sp(%rip)\n"
        "  syscall\n"
        "regs_kill_next:\n"
        "  mov %rbx, regs_after+0(%rip)\n mov %rbp, regs_after+8(%rip)\n"
        "  mov %r12, regs_after+16(%rip)\n mov %r13, regs_after+24(%rip)\n"
        "  mov %r14, regs_after+32(%rip)\n mov %r15, regs_after+40(%rip)\n"
        "  mov %rdx, regs_after+48(%rip)\n mov %r8, regs_after+56(%rip)\n"
        "  mov %r9, regs_after+64(%rip)\n mov %r10, regs_after+72(%rip)\n"
        "  mov %rax, regs_after+80(%rip)\n mov %rcx, regs_after+88(%rip)\n"
        "  mov %rsi, regs_after+96(%rip)\n mov %rdi, regs_after+104(%rip)\n"
        "  pop %r15\n pop %r14\n pop %r13\n pop %r12\n pop %rbp\n pop %rbx\n"
        "  ret\n");

/* Faulting instructions with known addresses: a load from (%rdi), ud2, a division by
 * zero, int3; each label _next is where a handler may continue. */
u64 fault_load(u64 addr);
extern char fault_load_insn[], fault_load_next[];
void fault_ud2(void);
extern char fault_ud2_insn[], fault_ud2_next[];
u64 fault_div(void);
extern char fault_div_insn[], fault_div_next[];
void fault_int3(void);
extern char fault_int3_next[];
__asm__(".globl fault_load, fault_load_insn, fault_load_next, fault_ud2, fault_ud2_insn\n"
        ".globl fault_ud2_next, fault_div, fault_div_insn, fault_div_next, fault_int3\n"
        ".globl fault_int3_next\n"
        "fault_load:\n"
        "fault_load_insn:\n"
        "  movq (%rdi), %rax\n"
        "fault_load_next:\n"
        "  ret\n"
        "fault_ud2:\n"
        "fault_ud2_insn:\n"
        "  ud2\n"
        "fault_ud2_next:\n"
        "  ret\n"
        "fault_div:\n"
        "  xor %edx, %edx\n"
        "  mov $7, %eax\n"
        "  xor %ecx, %ecx\n"
        "fault_div_insn:\n"
        "  div %rcx\n"
        "fault_div_next:\n"
        "  ret\n"
        "fault_int3:\n"
        "  int3\n"
        "fault_int3_next:\n"
        "  ret\n");

static u64 si_addr(void)
{
    return (u64)(unsigned)got_info.pid | (u64)(unsigned)got_info.uid << 32;
}

static void reset_got(void)
{
    got_sig = got_count = got_depth = max_depth = 0;
    got_rsp = got_rax = got_mask = got_ret = 0;
}

static int sig_child_status(long pid)
{
    int st = -1;
    wait4(pid, &st, 0);
    return st;
}

static void sig_actions(void)
{
    struct ksa old;
    check(sys6(SYS_rt_sigaction, SIGUSR1, 0, 0, 7, 0, 0) == -22, "rt_sigaction size 7: EINVAL");
    check(sigaction(0, 0, 0, 0, 0) == -22, "rt_sigaction of signal 0: EINVAL");
    check(sigaction(65, 0, 0, 0, 0) == -22, "rt_sigaction of signal 65: EINVAL");
    check(sigaction(9, (u64)sig_handler, 0, 0, 0) == -22, "a handler for SIGKILL: EINVAL");
    check(sigaction(19, 1, 0, 0, 0) == -22, "SIGSTOP ignored: EINVAL");
    check(sigaction(9, ~0ul, 0, 0, &old) == 0 && old.handler == 0,
          "SIGKILL's action read: SIG_DFL");
    check(sys6(SYS_rt_sigaction, SIGUSR1, 0x10, 0, 8, 0, 0) == -14,
          "rt_sigaction from a bad pointer: EFAULT");
    check(sys6(SYS_rt_sigaction, SIGUSR1, 0, 0x10, 8, 0, 0) == -14,
          "rt_sigaction to a bad pointer: EFAULT");
    sigaction(SIGUSR1, (u64)sig_handler, SA_SIGINFO, BIT(SIGUSR2) | BIT(9), 0);
    sigaction(SIGUSR1, ~0ul, 0, 0, &old);
    check(old.handler == (u64)sig_handler && old.flags == (SA_SIGINFO | SA_RESTORER) &&
          old.restorer == (u64)sig_restorer && old.mask == BIT(SIGUSR2),
          "rt_sigaction reads back handler, flags, restorer, mask (without SIGKILL)");

    u64 m = BIT(9) | BIT(19) | BIT(SIGUSR2);
    check(sys6(SYS_rt_sigprocmask, 0, (long)&m, 0, 4, 0, 0) == -22, "sigprocmask size 4: EINVAL");
    check(sys6(SYS_rt_sigprocmask, 3, (long)&m, 0, 8, 0, 0) == -22, "sigprocmask how 3: EINVAL");
    check(sys6(SYS_rt_sigprocmask, 3, 0, 0, 8, 0, 0) == 0, "sigprocmask how 3 without a set: 0");
    check(sys6(SYS_rt_sigprocmask, 0, 0x10, 0, 8, 0, 0) == -14,
          "sigprocmask from a bad pointer: EFAULT");
    sys6(SYS_rt_sigprocmask, 0, (long)&m, 0, 8, 0, 0);
    check(cur_mask() == BIT(SIGUSR2), "SIGKILL and SIGSTOP cannot be blocked");
    m = BIT(SIGUSR2);
    sys6(SYS_rt_sigprocmask, 1, (long)&m, 0, 8, 0, 0);
    check(cur_mask() == 0, "SIG_UNBLOCK");
    check(sys6(SYS_rt_sigpending, (long)&m, 9, 0, 0, 0, 0) == -22, "rt_sigpending size 9: EINVAL");
    check(sys6(SYS_rt_sigpending, 0x10, 8, 0, 0, 0, 0) == -14,
          "rt_sigpending to a bad pointer: EFAULT");
}

static void sig_frame(void)
{
    /* A handler for SIGUSR1 with SIGUSR2 in its mask; kill(self) with known registers. */
    sigaction(SIGUSR1, (u64)sig_handler, SA_SIGINFO, BIT(SIGUSR2), 0);
    set_mask(BIT(SIGWINCH_));
    reset_got();
    regs_pid = (u64)getpid_();
    regs_sig = SIGUSR1;
    regs_kill();
    check(got_count == 1 && got_sig == SIGUSR1, "the handler ran once, with RDI = the signal");
    check((got_rsp + 8) % 16 == 0, "RSP at the handler is 16-byte aligned minus 8");
    check(got_rax == 0, "RAX at the handler is 0");
    check(got_ret == (u64)sig_restorer, "the return address is sa_restorer");
    check(got_rdx == got_rsp + 8 && got_rsi == got_rsp + 8 + 304,
          "RDX = &ucontext (frame + 8), RSI = &siginfo (frame + 312)");
    check(got_rsp + 440 <= regs_sp - 128, "the frame is below the red zone");
    check(got_info.signo == SIGUSR1 && got_info.code == 0 && got_info.pid == (int)regs_pid &&
          got_info.uid == 0, "siginfo: si_signo, SI_USER, si_pid, si_uid");
    check(got_uc.mc.rip == (u64)regs_kill_next, "ucontext: rip after the syscall");
    check(got_uc.mc.rsp == regs_sp, "ucontext: rsp");
    check(got_uc.mc.rax == 0, "ucontext: rax is kill's result");
    check(got_uc.mc.rbx == 0x1111111111111111 && got_uc.mc.rbp == 0x2222222222222222 &&
          got_uc.mc.r12 == 0x3333333333333333 && got_uc.mc.r15 == 0x6666666666666666 &&
          got_uc.mc.rdx == 0x7777777777777777 && got_uc.mc.r10 == 0xaaaaaaaaaaaaaaaa &&
          got_uc.mc.rdi == regs_pid && got_uc.mc.rsi == SIGUSR1,
          "ucontext: rbx rbp r12 r15 rdx r10 rdi rsi");
    check(got_uc.mc.rcx == (u64)regs_kill_next, "ucontext: rcx = rip, as syscall leaves it");
    check(got_uc.mc.cs == 0x33 && got_uc.mc.ss == 0x2b, "ucontext: cs 0x33, ss 0x2b");
    check(got_uc.mc.fpstate && got_uc.mc.fpstate % 64 == 0 &&
          got_uc.mc.fpstate > got_rsp + 440 && got_uc.mc.fpstate + 512 <= regs_sp - 128,
          "ucontext: fpstate 64-byte aligned between the frame and the red zone");
    check(*(unsigned *)(got_uc.mc.fpstate + 24) == 0x1f80, "fpstate: MXCSR");
    check(got_uc.sigmask == BIT(SIGWINCH_) && got_uc.mc.oldmask == BIT(SIGWINCH_),
          "ucontext: uc_sigmask and oldmask are the mask before");
    check(got_uc.stack.size == 0, "ucontext: uc_stack has size 0");
    check(got_mask == (BIT(SIGWINCH_) | BIT(SIGUSR1) | BIT(SIGUSR2)),
          "the handler runs with sa_mask and the signal blocked");
    check(cur_mask() == BIT(SIGWINCH_), "sigreturn restores the mask");
    check(regs_after[0] == 0x1111111111111111 && regs_after[1] == 0x2222222222222222 &&
          regs_after[2] == 0x3333333333333333 && regs_after[3] == 0x4444444444444444 &&
          regs_after[4] == 0x5555555555555555 && regs_after[5] == 0x6666666666666666,
          "sigreturn restores rbx rbp r12 r13 r14 r15");
    check(regs_after[6] == 0x7777777777777777 && regs_after[7] == 0x8888888888888888 &&
          regs_after[8] == 0x9999999999999999 && regs_after[9] == 0xaaaaaaaaaaaaaaaa &&
          regs_after[12] == SIGUSR1 && regs_after[13] == regs_pid,
          "sigreturn restores rdx r8 r9 r10 rsi rdi");
    check(regs_after[10] == 0 && regs_after[11] == (u64)regs_kill_next,
          "sigreturn restores rax (kill's 0) and rcx");
    set_mask(0);

    /* Not SA_NODEFER: a signal sent by its own handler waits until the handler returns. */
    reset_got();
    resend = 1;
    sys3(SYS_kill, getpid_(), SIGUSR1, 0);
    check(got_count == 2 && max_depth == 1, "without SA_NODEFER: the second one after the first");
    sigaction(SIGUSR1, (u64)sig_handler, SA_SIGINFO | SA_NODEFER, 0, 0);
    reset_got();
    resend = 2;
    sys3(SYS_kill, getpid_(), SIGUSR1, 0);
    check(got_count == 3 && max_depth == 3 && !(got_mask & BIT(SIGUSR1)),
          "SA_NODEFER: nested in the handler, not blocked");

    /* SA_RESETHAND: once, then the default. */
    struct ksa old;
    sigaction(SIGUSR2, (u64)sig_handler, SA_SIGINFO | SA_RESETHAND, 0, 0);
    reset_got();
    sys3(SYS_tkill, getpid_(), SIGUSR2, 0);
    sigaction(SIGUSR2, ~0ul, 0, 0, &old);
    check(got_count == 1 && old.handler == 0, "SA_RESETHAND: the action is SIG_DFL after it");
    check(got_info.code == -6, "tkill: si_code SI_TKILL");

    /* Ignored: nothing pending.  Blocked: pending, delivered when unblocked. */
    sigaction(SIGUSR1, 1, 0, 0, 0);
    sys3(SYS_kill, getpid_(), SIGUSR1, 0);
    u64 pend = ~0ul;
    sys6(SYS_rt_sigpending, (long)&pend, 8, 0, 0, 0, 0);
    check(pend == 0, "an ignored signal is not pending");
    sigaction(SIGUSR1, (u64)sig_handler, SA_SIGINFO, 0, 0);
    set_mask(BIT(SIGUSR1));
    reset_got();
    sys3(SYS_kill, getpid_(), SIGUSR1, 0);
    sys3(SYS_kill, getpid_(), SIGUSR1, 0);
    sys6(SYS_rt_sigpending, (long)&pend, 8, 0, 0, 0, 0);
    check(got_count == 0 && pend == BIT(SIGUSR1), "a blocked signal is pending");
    set_mask(0);
    check(got_count == 1, "unblocked: delivered once (standard signals do not queue)");

    /* rt_sigtimedwait takes a blocked one without its handler. */
    set_mask(BIT(SIGUSR1));
    reset_got();
    sys3(SYS_kill, getpid_(), SIGUSR1, 0);
    u64 set = BIT(SIGUSR1);
    struct sinfo si;
    long r = sys6(SYS_rt_sigtimedwait, (long)&set, (long)&si, 0, 8, 0, 0);
    check(r == SIGUSR1 && si.signo == SIGUSR1 && si.pid == (int)regs_pid && got_count == 0,
          "rt_sigtimedwait takes a pending signal");
    long ts[2] = { 0, 0 };
    check(sys6(SYS_rt_sigtimedwait, (long)&set, 0, (long)ts, 8, 0, 0) == -11,
          "rt_sigtimedwait with a zero timeout: EAGAIN");
    ts[1] = 20000000;
    check(sys6(SYS_rt_sigtimedwait, (long)&set, 0, (long)ts, 8, 0, 0) == -11,
          "rt_sigtimedwait for 20 ms: EAGAIN");
    ts[1] = 1000000000;
    check(sys6(SYS_rt_sigtimedwait, (long)&set, 0, (long)ts, 8, 0, 0) == -22,
          "rt_sigtimedwait with 10^9 ns: EINVAL");
    set_mask(0);
}

static void sig_altstack(void)
{
    static char altstack[16384] __attribute__((aligned(16)));
    struct sstack ss = { (u64)altstack, 0, 0, 1024 }, old;
    check(sys3(SYS_sigaltstack, &ss, 0, 0) == -12, "sigaltstack smaller than MINSIGSTKSZ: ENOMEM");
    ss.size = sizeof altstack;
    ss.flags = 5;
    check(sys3(SYS_sigaltstack, &ss, 0, 0) == -22, "sigaltstack with bad flags: EINVAL");
    check(sys3(SYS_sigaltstack, 0x10, 0, 0) == -14, "sigaltstack from a bad pointer: EFAULT");
    ss.flags = 0;
    check(sys3(SYS_sigaltstack, &ss, &old, 0) == 0 && old.flags == 2,
          "sigaltstack set; before: SS_DISABLE");
    sigaction(SIGUSR1, (u64)sig_handler, SA_SIGINFO | SA_ONSTACK, 0, 0);
    reset_got();
    sys3(SYS_kill, getpid_(), SIGUSR1, 0);
    check(got_rsp > (u64)altstack && got_rsp < (u64)altstack + sizeof altstack,
          "SA_ONSTACK: the handler runs on the alternate stack");
    check(got_ss.flags == 1, "sigaltstack in the handler: SS_ONSTACK");
    check(got_uc.stack.sp == (u64)altstack && got_uc.stack.size == sizeof altstack &&
          got_uc.stack.flags == 0, "ucontext: uc_stack");
    check(got_uc.mc.fpstate + 512 <= (u64)altstack + sizeof altstack, "fpstate at the top of it");
    sys3(SYS_sigaltstack, 0, &old, 0);
    check(old.flags == 0 && old.sp == (u64)altstack, "after the handler: not on it");
    ss.flags = 2;
    sys3(SYS_sigaltstack, &ss, 0, 0);
    sys3(SYS_sigaltstack, 0, &old, 0);
    check(old.flags == 2 && old.size == 0, "SS_DISABLE");
    reset_got();
    sys3(SYS_kill, getpid_(), SIGUSR1, 0);
    check(got_count == 1 && got_rsp < regs_sp && got_rsp > regs_sp - 65536,
          "disabled: SA_ONSTACK uses the normal stack");
}

static void sig_faults(void)
{
    /* An unmapped page (MAPERR) and a PROT_NONE page (ACCERR); the handler skips the load. */
    u64 page = (u64)sys6(SYS_mmap, 0, 8192, 0, 0x22, -1, 0);
    sys3(SYS_munmap, page + 4096, 4096, 0);
    sigaction(SIGSEGVN, (u64)sig_handler, SA_SIGINFO, 0, 0);
    reset_got();
    fixup_rip = (u64)fault_load_next;
    fixup_rax = 0x77;
    u64 v = fault_load(page + 4096 + 8);
    check(got_count == 1 && got_sig == SIGSEGVN && v == 0x77,
          "SIGSEGV handler; it continues past the load by the ucontext's rip");
    check(got_info.code == 1 && si_addr() == page + 4096 + 8,
          "SIGSEGV: SEGV_MAPERR, si_addr");
    check(got_uc.mc.rip == (u64)fault_load_insn && got_uc.mc.trapno == 14 &&
          got_uc.mc.cr2 == page + 4096 + 8 && (got_uc.mc.err & 6) == 4,
          "SIGSEGV: rip of the load, trapno 14, cr2, err (user read)");
    reset_got();
    fixup_rip = (u64)fault_load_next;
    fixup_rax = 0x78;
    v = fault_load(page + 16);
    check(got_count == 1 && v == 0x78 && got_info.code == 2 &&
          si_addr() == page + 16, "PROT_NONE: SEGV_ACCERR, si_addr");
    sys3(SYS_munmap, page, 4096, 0);

    sigaction(4, (u64)sig_handler, SA_SIGINFO, 0, 0);
    reset_got();
    fixup_rip = (u64)fault_ud2_next;
    fault_ud2();
    check(got_count == 1 && got_sig == 4 && got_info.code == 2 &&
          si_addr() == (u64)fault_ud2_insn && got_uc.mc.trapno == 6,
          "ud2: SIGILL, ILL_ILLOPN, si_addr, trapno 6");
    sigaction(8, (u64)sig_handler, SA_SIGINFO, 0, 0);
    reset_got();
    fixup_rip = (u64)fault_div_next;
    fixup_rax = 0x79;
    v = fault_div();
    check(got_count == 1 && got_sig == 8 && got_info.code == 1 && v == 0x79 &&
          si_addr() == (u64)fault_div_insn, "div by zero: SIGFPE, FPE_INTDIV, si_addr");
    sigaction(5, (u64)sig_handler, SA_SIGINFO, 0, 0);
    reset_got();
    fault_int3();
    check(got_count == 1 && got_sig == 5 && got_info.code == 0x80 &&
          got_uc.mc.rip == (u64)fault_int3_next && got_uc.mc.trapno == 3,
          "int3: SIGTRAP, SI_KERNEL, rip after it, trapno 3");
    sigaction(SIGSEGVN, 0, 0, 0, 0);
    sigaction(4, 0, 0, 0, 0);
    sigaction(8, 0, 0, 0, 0);
    sigaction(5, 0, 0, 0, 0);
}

/* Children that die: status as wait4 reports it. */
static void sig_deaths(void)
{
    static const struct { int sig; const char *what; } deaths[] = {
        { 15, "SIGTERM" }, { 10, "SIGUSR1" }, { 9, "SIGKILL" }, { 3, "SIGQUIT" },
        { 6, "SIGABRT" }, { 14, "SIGALRM" },
    };
    for (unsigned i = 0; i < sizeof deaths / sizeof deaths[0]; i++) {
        long pid = sys3(SYS_fork, 0, 0, 0);
        if (pid == 0) {
            sigaction(SIGUSR1, 0, 0, 0, 0);
            if (deaths[i].sig != 9)
                sigaction(deaths[i].sig, 0, 0, 0, 0);   /* a shell may have ignored it */
            sys3(SYS_kill, getpid_(), deaths[i].sig, 0);
            sys3(SYS_exit, 99, 0, 0);
        }
        int st = sig_child_status(pid);
        puts1("signal: child killed by ");
        puts1(deaths[i].what);
        puts1(": status ");
        putnum((u64)st, 16);
        puts1("\n");
        check((st & 0x7f) == deaths[i].sig, "killed by its signal");
    }
    /* A SIGSEGV while SIGSEGV is blocked: killed all the same. */
    long pid = sys3(SYS_fork, 0, 0, 0);
    if (pid == 0) {
        sigaction(SIGSEGVN, (u64)sig_handler, SA_SIGINFO, 0, 0);
        set_mask(BIT(SIGSEGVN));
        fault_load(0);
        sys3(SYS_exit, 99, 0, 0);
    }
    int st = sig_child_status(pid);
    putline("signal: blocked SIGSEGV, status ", st & 0x7f);
    check((st & 0x7f) == 11, "a fault with its signal blocked kills");
    /* A handler without SA_RESTORER: the frame cannot be built (x86-64): SIGSEGV. */
    pid = sys3(SYS_fork, 0, 0, 0);
    if (pid == 0) {
        struct ksa sa = { (u64)sig_handler, SA_SIGINFO, 0, 0 };
        sys6(SYS_rt_sigaction, SIGUSR1, (long)&sa, 0, 8, 0, 0);
        sys3(SYS_kill, getpid_(), SIGUSR1, 0);
        sys3(SYS_exit, 99, 0, 0);
    }
    st = sig_child_status(pid);
    check((st & 0x7f) == 11, "a handler without SA_RESTORER: killed by SIGSEGV");
    /* An alternate stack that is not memory: SIGSEGV. */
    pid = sys3(SYS_fork, 0, 0, 0);
    if (pid == 0) {
        struct sstack ss = { 0x7e0000000000ul, 0, 0, 65536 };
        sys3(SYS_sigaltstack, &ss, 0, 0);
        sigaction(SIGUSR1, (u64)sig_handler, SA_SIGINFO | SA_ONSTACK, 0, 0);
        sys3(SYS_kill, getpid_(), SIGUSR1, 0);
        sys3(SYS_exit, 99, 0, 0);
    }
    st = sig_child_status(pid);
    check((st & 0x7f) == 11, "a frame that cannot be written: killed by SIGSEGV");
}

/* Parked calls: wait4 interrupted by a timer's SIGALRM, with and without SA_RESTART;
 * pause; sigsuspend and SIGCHLD; alarm. */
static volatile long alarm_kill_pid;
void alarm_handler(int sig);
void alarm_handler(int sig)
{
    got_count++;
    got_sig = sig;
    if (alarm_kill_pid)
        sys3(SYS_kill, alarm_kill_pid, 15, 0);
}

static void sig_parked(void)
{
    long it[4] = { 0, 0, 0, 20000 };    /* 20 ms, once */
    for (int restart = 0; restart < 2; restart++) {
        long pid = sys3(SYS_fork, 0, 0, 0);
        if (pid == 0) {
            for (;;)
                sys3(SYS_pause, 0, 0, 0);
        }
        sigaction(14, (u64)alarm_handler, restart ? SA_RESTART : 0, 0, 0);
        got_count = 0;
        alarm_kill_pid = restart ? pid : 0;
        check(sys3(SYS_setitimer, 0, it, 0) == 0, "setitimer ITIMER_REAL 20 ms");
        int st = 0;
        long r = wait4(pid, &st, 0);
        if (!restart) {
            check(r == -4 && got_count == 1, "wait4 interrupted by a handler: EINTR");
            sys3(SYS_kill, pid, 15, 0);
            st = sig_child_status(pid);
            check((st & 0x7f) == 15, "the pausing child killed");
        } else {
            check(r == pid && got_count == 1 && (st & 0x7f) == 15,
                  "SA_RESTART: wait4 runs again after the handler and reaps the child");
        }
    }
    alarm_kill_pid = 0;
    long old[4];
    check(sys3(SYS_setitimer, 5, it, 0) == -22, "setitimer of timer 5: EINVAL");
    long bad[4] = { 0, 0, 0, 1000000 };
    check(sys3(SYS_setitimer, 0, bad, 0) == -22, "setitimer with 10^6 us: EINVAL");
    check(sys3(SYS_setitimer, 0, 0x10, 0) == -14, "setitimer from a bad pointer: EFAULT");
    long per[4] = { 0, 30000, 5, 0 };
    sys3(SYS_setitimer, 0, per, 0);
    sys3(SYS_getitimer, 0, old, 0);
    check(old[0] == 0 && old[1] == 30000 && old[2] >= 4 && old[2] <= 5,
          "getitimer: interval and value");
    long off[4] = { 0, 0, 0, 0 };
    sys3(SYS_setitimer, 0, off, old);
    check(old[1] == 30000, "setitimer returns the old one");

    /* alarm and pause. */
    got_count = 0;
    check(sys3(SYS_alarm, 1, 0, 0) == 0, "alarm(1): no alarm before");
    check(sys3(SYS_alarm, 1, 0, 0) == 1, "alarm(1) again: 1 second left");
    long r = sys3(SYS_pause, 0, 0, 0);
    check(r == -4 && got_count == 1 && got_sig == 14, "pause: EINTR after SIGALRM's handler");
    check(sys3(SYS_alarm, 0, 0, 0) == 0, "alarm(0): none left");

    /* SIGCHLD with sigsuspend: the child's exit wakes the parent with CLD_EXITED. */
    sigaction(SIGCHLDN, (u64)sig_handler, SA_SIGINFO, 0, 0);
    set_mask(BIT(SIGCHLDN));
    reset_got();
    long pid = sys3(SYS_fork, 0, 0, 0);
    if (pid == 0)
        sys3(SYS_exit, 7, 0, 0);
    u64 none = 0;
    r = sys3(SYS_rt_sigsuspend, &none, 8, 0);
    check(r == -4 && got_count == 1 && got_sig == SIGCHLDN,
          "rt_sigsuspend: EINTR after SIGCHLD's handler");
    check(got_info.code == 1 && got_info.pid == (int)pid && got_info.status == 7,
          "SIGCHLD: CLD_EXITED, si_pid, si_status");
    check(got_mask == (BIT(SIGCHLDN)) && got_uc.sigmask == BIT(SIGCHLDN),
          "sigsuspend: the handler's frame records the mask before it");
    check(cur_mask() == BIT(SIGCHLDN), "sigsuspend restores the mask");
    int st;
    check(wait4(pid, &st, 0) == pid && st == 7 << 8, "the child reaped");
    check(sys3(SYS_rt_sigsuspend, &none, 4, 0) == -22, "rt_sigsuspend size 4: EINVAL");
    set_mask(0);
    sigaction(SIGCHLDN, 0, 0, 0, 0);
}

/* Stop and continue: a child in pause (a parked call) and one running user code. */
static void sig_stop(void)
{
    volatile u64 *shared = (u64 *)sys6(SYS_mmap, 0, 4096, 3, 0x21, -1, 0);
    long pid = sys3(SYS_fork, 0, 0, 0);
    if (pid == 0) {
        for (;;)
            sys3(SYS_pause, 0, 0, 0);
    }
    int st = 0;
    sys3(SYS_kill, pid, 19, 0);
    check(wait4(pid, &st, 2) == pid && st == 0x137f, "SIGSTOP: wait4 WUNTRACED reports 0x137f");
    check(wait4(pid, &st, 2 | 1) == 0, "reported once");
    sys3(SYS_kill, pid, 18, 0);
    check(wait4(pid, &st, 8) == pid && st == 0xffff, "SIGCONT: wait4 WCONTINUED reports 0xffff");
    /* SIGTSTP stops only a process whose group is not orphaned: a group of its own, with
     * its parent in another group of the session. */
    sys3(SYS_setpgid, pid, pid, 0);
    sys3(SYS_kill, pid, 20, 0);     /* SIGTSTP */
    struct sinfo si;
    check(sys6(SYS_waitid, 1, pid, (long)&si, 2, 0, 0) == 0 && si.signo == 17 && si.code == 5 &&
          si.pid == (int)pid && si.status == 20, "SIGTSTP: waitid WSTOPPED: CLD_STOPPED");
    sys3(SYS_kill, pid, 9, 0);      /* SIGKILL ends a stopped process */
    check(wait4(pid, &st, 0) == pid && st == 9, "SIGKILL of a stopped child: status 9");

    /* A child running user code: SIGSTOP interrupts it; it goes on where it was. */
    shared[0] = 0;
    pid = sys3(SYS_fork, 0, 0, 0);
    if (pid == 0) {
        shared[1] = 1;
        while (!shared[0])
            ;
        sys3(SYS_exit, 5, 0, 0);
    }
    while (!shared[1])
        ;
    sys3(SYS_kill, pid, 19, 0);
    check(wait4(pid, &st, 2) == pid && st == 0x137f, "a running child stopped");
    shared[0] = 1;
    check(wait4(pid, &st, 2 | 1) == 0, "while stopped it does not run");
    sys3(SYS_kill, pid, 18, 0);
    check(wait4(pid, &st, 0) == pid && st == 5 << 8, "continued: it runs on and exits 5");

    /* A handler in a child that runs user code. */
    shared[0] = shared[1] = 0;
    pid = sys3(SYS_fork, 0, 0, 0);
    if (pid == 0) {
        reset_got();
        sigaction(SIGUSR1, (u64)sig_handler, SA_SIGINFO, 0, 0);
        shared[1] = 1;
        while (!got_count)
            ;
        sys3(SYS_exit, got_info.pid == (int)sys3(SYS_getppid, 0, 0, 0) ? 6 : 1, 0, 0);
    }
    while (!shared[1])
        ;
    sys3(SYS_kill, pid, SIGUSR1, 0);
    check(wait4(pid, &st, 0) == pid && st == 6 << 8,
          "a handler interrupts a child running user code");
    sys3(SYS_munmap, (long)shared, 4096, 0);
}

static void sig_kill(char **argv, char **envp)
{
    check(sys3(SYS_kill, getpid_(), 65, 0) == -22, "kill with signal 65: EINVAL");
    check(sys3(SYS_kill, getpid_(), -1, 0) == -22, "kill with signal -1: EINVAL");
    check(sys3(SYS_kill, 0x7ffffff0, 0, 0) == -3, "kill of no process: ESRCH");
    check(sys3(SYS_kill, getpid_(), 0, 0) == 0, "kill(self, 0): 0");
    check(sys3(SYS_kill, -0x7ffffff0, 0, 0) == -3, "kill of no group: ESRCH");
    check(sys3(SYS_tgkill, 0, getpid_(), 0) == -22, "tgkill with tgid 0: EINVAL");
    check(sys3(SYS_tkill, 0, 0, 0) == -22, "tkill of tid 0: EINVAL");
    check(sys3(SYS_tgkill, getpid_(), 0x7ffffff0, 0) == -3, "tgkill of no thread: ESRCH");
    check(sys3(SYS_tgkill, getpid_(), getpid_(), 0) == 0, "tgkill(self, self, 0): 0");

    /* A group: two children in a group of their own, one kill(-pgid). */
    long a = sys3(SYS_fork, 0, 0, 0);
    if (a == 0)
        for (;;)
            sys3(SYS_pause, 0, 0, 0);
    sys3(SYS_setpgid, a, a, 0);
    long b = sys3(SYS_fork, 0, 0, 0);
    if (b == 0)
        for (;;)
            sys3(SYS_pause, 0, 0, 0);
    sys3(SYS_setpgid, b, a, 0);
    check(sys3(SYS_kill, -a, 15, 0) == 0, "kill(-pgid, SIGTERM)");
    int sa = sig_child_status(a), sb = sig_child_status(b);
    check(sa == 15 && sb == 15, "both members of the group killed");

    /* kill(0): the caller's group, the caller included (in a child with a group of its
     * own: on Linux the caller's group may hold the shell that runs it). */
    long k = sys3(SYS_fork, 0, 0, 0);
    if (k == 0) {
        sys3(SYS_setpgid, 0, 0, 0);
        sigaction(SIGUSR1, (u64)sig_handler, SA_SIGINFO, 0, 0);
        reset_got();
        long r = sys3(SYS_kill, 0, SIGUSR1, 0);
        sys3(SYS_exit, r == 0 && got_count == 1 ? 0 : 1, 0, 0);
    }
    check(sig_child_status(k) == 0, "kill(0, sig) reaches the caller");

    /* rt_sigreturn with a frame that is not memory, and with garbage: the process dies,
     * nobody else notices. */
    for (int garbage = 0; garbage < 2; garbage++) {
        long pid = sys3(SYS_fork, 0, 0, 0);
        if (pid == 0) {
            static u64 junk[64];
            for (int i = 0; i < 64; i++)
                junk[i] = 0x9e3779b97f4a7c15ul * (u64)(i + 1);
            u64 sp = garbage ? (u64)&junk[8] : 0x7e0000000000ul;
            __asm__ volatile("mov %0, %%rsp\n mov $15, %%eax\n syscall\n hlt"
                             :: "r"(sp) : "memory");
        }
        int st = sig_child_status(pid);
        putline(garbage ? "signal: rt_sigreturn of garbage: killed by "
                        : "signal: rt_sigreturn without a frame: killed by ", st & 0x7f);
        check((st & 0x7f) == 11 || (st & 0x7f) == 4 || (st & 0x7f) == 7,
              "a bad rt_sigreturn kills the caller");
    }

    /* SIGCHLD ignored: no zombies; wait4 waits for all children, then ECHILD. */
    sigaction(SIGCHLDN, 1, 0, 0, 0);
    long z = sys3(SYS_fork, 0, 0, 0);
    if (z == 0)
        sys3(SYS_exit, 3, 0, 0);
    int zst = 0;
    check(wait4(-1, &zst, 0) == -10, "SIGCHLD ignored: the child leaves no zombie (ECHILD)");
    sigaction(SIGCHLDN, 0, 0, 0, 0);

    /* execve: handlers back to SIG_DFL, ignored stay ignored, the mask stays. */
    long pid = sys3(SYS_fork, 0, 0, 0);
    if (pid == 0) {
        sigaction(SIGUSR1, (u64)sig_handler, SA_SIGINFO, 0, 0);
        sigaction(SIGUSR2, 1, 0, 0, 0);
        set_mask(BIT(28));
        char *args[] = { argv[0], "sigexec", 0 };
        sys3(SYS_execve, argv[0], args, envp);
        sys3(SYS_exit, 98, 0, 0);
    }
    int st = sig_child_status(pid);
    check(st == 0, "execve: handlers reset, ignored kept, mask kept");
}

static int sigexec(void)
{
    struct ksa a1, a2;
    sigaction(SIGUSR1, ~0ul, 0, 0, &a1);
    sigaction(SIGUSR2, ~0ul, 0, 0, &a2);
    return !(a1.handler == 0 && a2.handler == 1 && cur_mask() == BIT(28));
}

static int sigtest(char **argv, char **envp)
{
    sig_actions();
    sig_frame();
    sig_altstack();
    sig_faults();
    sig_deaths();
    sig_parked();
    sig_stop();
    sig_kill(argv, envp);
    puts1(failures ? "selftest: FAILED\n" : "selftest: all passed\n");
    return failures != 0;
}

static void sigcost_handler(int sig)
{
    (void)sig;
    got_count++;
}

static int sigcost(void)
{
    enum { N = 2000 };
    sigaction(SIGUSR1, (u64)sigcost_handler, 0, 0, 0);
    long pid = getpid_();
    for (int i = 0; i < 50; i++)
        sys3(SYS_kill, pid, SIGUSR1, 0);
    got_count = 0;
    u64 t0 = rdtsc();
    for (int i = 0; i < N; i++)
        sys3(SYS_kill, pid, SIGUSR1, 0);
    u64 t1 = rdtsc();
    puts1("cost: signal caught ");
    putnum((t1 - t0) / N, 10);
    puts1(" ticks\n");
    return got_count != N;
}

/* lxselftest.elf sigfpu: the FPU/SSE state across a handler, as Linux keeps it: the
 * interrupted code's XMM registers and MXCSR are in the frame's FPU area (fxsave layout:
 * MXCSR at 24, XMM0 at 160), the handler starts with MXCSR 0x1F80, and whatever the handler
 * does to them, the interrupted code gets its own back after rt_sigreturn; and a child of
 * fork starts with its parent's.  Both a signal
 * delivered at the end of a system call and one that interrupts a computation (a SIGSEGV
 * handler that skips the faulting load) are checked. */
static volatile u64 fpu_seen_mxcsr, fpu_seen_xmm0, fpu_area_mxcsr, fpu_area_xmm0;

static void fpu_handler(int sig, void *info, struct uctx *uc)
{
    (void)sig, (void)info;
    unsigned m;
    __asm__ volatile("stmxcsr %0" : "=m"(m));
    fpu_seen_mxcsr = m;
    u64 x;
    __asm__ volatile("movq %%xmm0, %0" : "=r"(x));
    fpu_seen_xmm0 = x;
    const unsigned char *area = (const unsigned char *)uc->mc.fpstate;
    fpu_area_mxcsr = area ? *(const unsigned *)(area + 24) : 0;
    fpu_area_xmm0 = area ? *(const u64 *)(area + 160) : 0;
    /* Clobber both; the interrupted code must not see it. */
    u64 junk = 0x5555aaaa5555aaaaul;
    unsigned junk_mxcsr = 0x1f80 | 0x6000;          /* rounding toward zero */
    __asm__ volatile("movq %0, %%xmm0; ldmxcsr %1" :: "r"(junk), "m"(junk_mxcsr) : "xmm0");
    if (sig == SIGSEGVN)
        uc->mc.rip += 3;                             /* past `movq (%rax), %rax`: 3 bytes */
}

static int sigfpu(void)
{
    const u64 pattern = 0x0123456789abcdeful;
    const unsigned mxcsr = 0x1f80 | 0x8000;          /* flush to zero: not the default */
    sigaction(SIGUSR1, (u64)fpu_handler, SA_SIGINFO, 0, 0);
    sigaction(SIGSEGVN, (u64)fpu_handler, SA_SIGINFO, 0, 0);
    for (int round = 0; round < 2; round++) {
        u64 after;
        unsigned after_mxcsr;
        fpu_seen_mxcsr = fpu_seen_xmm0 = fpu_area_mxcsr = fpu_area_xmm0 = 0;
        if (round == 0) {
            /* A signal at the end of a system call (kill to itself). */
            long pid = getpid_();
            __asm__ volatile("ldmxcsr %[m]\n\t"
                             "movq %[p], %%xmm0\n\t"
                             "syscall\n\t"
                             "movq %%xmm0, %[a]\n\t"
                             "stmxcsr %[am]"
                             : [a] "=r"(after), [am] "=m"(after_mxcsr)
                             : [p] "r"(pattern), [m] "m"(mxcsr), "a"(SYS_kill), "D"(pid),
                               "S"((long)SIGUSR1)
                             : "rcx", "r11", "xmm0", "memory");
        } else {
            /* A fault in the middle of a computation (a load from page 0). */
            __asm__ volatile("ldmxcsr %[m]\n\t"
                             "movq %[p], %%xmm0\n\t"
                             "xorl %%eax, %%eax\n\t"
                             "movq (%%rax), %%rax\n\t"
                             "movq %%xmm0, %[a]\n\t"
                             "stmxcsr %[am]"
                             : [a] "=r"(after), [am] "=m"(after_mxcsr)
                             : [p] "r"(pattern), [m] "m"(mxcsr)
                             : "rax", "xmm0", "memory");
        }
        const char *what = round == 0 ? "at a system call's end" : "at a fault";
        puts1(what);
        puts1(":\n");
        check(fpu_area_xmm0 == pattern && fpu_area_mxcsr == mxcsr,
              "the frame's FPU area holds the interrupted XMM0 and MXCSR");
        check(fpu_seen_mxcsr == 0x1f80, "the handler starts with MXCSR 0x1F80");
        check(after == pattern && after_mxcsr == mxcsr,
              "XMM0 and MXCSR are the interrupted code's again after rt_sigreturn");
    }
    /* fork: the child has its parent's FPU/SSE state (fork preserves every register). */
    u64 child_xmm0;
    unsigned child_mxcsr;
    long pid;
    __asm__ volatile("ldmxcsr %[m]\n\t"
                     "movq %[p], %%xmm0\n\t"
                     "syscall\n\t"
                     "movq %%xmm0, %[a]\n\t"
                     "stmxcsr %[am]"
                     : [a] "=r"(child_xmm0), [am] "=m"(child_mxcsr), "=a"(pid)
                     : [p] "r"(pattern), [m] "m"(mxcsr), "a"((long)SYS_fork)
                     : "rcx", "r11", "xmm0", "memory");
    if (pid == 0)
        sys3(SYS_exit, child_xmm0 == pattern && child_mxcsr == mxcsr ? 0 : 1, 0, 0);
    puts1("fork:\n");
    check(pid > 0 && sig_child_status(pid) == 0,
          "a child of fork starts with its parent's XMM0 and MXCSR");
    unsigned dflt = 0x1f80;
    __asm__ volatile("ldmxcsr %0" :: "m"(dflt));
    puts1(failures ? "selftest: FAILED\n" : "selftest: all passed\n");
    return failures ? 1 : 0;
}
