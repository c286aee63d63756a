/* ptrace's view of a stopped tracee (docs/linux/ptrace.md): PEEKDATA/POKEDATA of a global,
 * POKETEXT into a read-only private page (the tracee gets its own copy: the tracer's page and
 * a sibling's stay as they were), PEEKUSER/POKEUSER, GETREGS/SETREGS, GETREGSET NT_PRSTATUS,
 * a changed system-call result, and the error paths (EIO for bad addresses and offsets,
 * EFAULT for a bad buffer).  The tracee stops itself with kill(getpid(), SIGSTOP). */
#include <signal.h>
#include <stddef.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include "corpus.h"

#ifndef NT_PRSTATUS
#define NT_PRSTATUS 1
#endif

static volatile long value = 0x1122334455667788l;
static const char message[64] = "hello from rodata";

static long pt(long req, pid_t pid, long addr, long data)
{
    return syscall(SYS_ptrace, req, pid, addr, data);
}

static void stop_and_wait(pid_t c, const char *what)
{
    int st;
    if (waitpid(c, &st, 0) < 0)
        printf("%s: wait -1 %s\n", what, errname(errno));
    else
        show_status(what, st);
}

int main(void)
{
    corpus_init();
    pid_t c = fork();
    if (c == 0) {
        pt(PTRACE_TRACEME, 0, 0, 0);
        long r = syscall(SYS_kill, getpid(), SIGSTOP);
        printf("child: kill returned %ld\n", r);
        printf("child: value %#lx\n", value);
        printf("child: message %s\n", message);
        _exit(0);
    }
    stop_and_wait(c, "stop");
    long w = 0;
    TRY("peekdata value", pt(PTRACE_PEEKDATA, c, (long)&value, (long)&w));
    printf("value %#lx\n", w);
    TRY("peekdata bad buffer", pt(PTRACE_PEEKDATA, c, (long)&value, 1));
    TRY("peekdata address 0", pt(PTRACE_PEEKDATA, c, 0, (long)&w));
    TRY("peekdata kernel address", pt(PTRACE_PEEKDATA, c, (long)0xffff800000000000ul, (long)&w));
    TRY("pokedata value", pt(PTRACE_POKEDATA, c, (long)&value, 0x0a0b0c0d));
    TRY("pokedata address 0", pt(PTRACE_POKEDATA, c, 0, 1));
    long word;
    memcpy(&word, message, sizeof word);
    memcpy(&word, "jello fr", 8);
    TRY("poketext rodata", pt(PTRACE_POKETEXT, c, (long)message, word));
    TRY("peektext rodata", pt(PTRACE_PEEKTEXT, c, (long)message, (long)&w));
    printf("peek rodata %.8s\n", (char *)&w);
    printf("mine: message %s\n", message);

    struct user_regs_struct regs;
    TRY("getregs", pt(PTRACE_GETREGS, c, 0, (long)&regs));
    printf("regs: rax %lld orig_rax %lld cs %#llx ss %#llx ds %lld IF %d\n", (long long)regs.rax,
           (long long)regs.orig_rax, (unsigned long long)regs.cs, (unsigned long long)regs.ss,
           (long long)regs.ds, !!(regs.eflags & 0x200));
    TRY("getregs bad buffer", pt(PTRACE_GETREGS, c, 0, 1));
    long v = -1;
    TRY("peekuser orig_rax", pt(PTRACE_PEEKUSER, c, offsetof(struct user_regs_struct, orig_rax),
                                (long)&v));
    printf("peekuser orig_rax %ld\n", v);
    TRY("peekuser rip", pt(PTRACE_PEEKUSER, c, offsetof(struct user_regs_struct, rip), (long)&v));
    printf("peekuser rip matches getregs: %d\n", v == (long)regs.rip);
    TRY("peekuser unaligned", pt(PTRACE_PEEKUSER, c, 3, (long)&v));
    TRY("peekuser past struct user", pt(PTRACE_PEEKUSER, c, sizeof(struct user), (long)&v));
    TRY("peekuser debugreg 7", pt(PTRACE_PEEKUSER, c, offsetof(struct user, u_debugreg[7]),
                                  (long)&v));
    printf("debugreg 7 %ld\n", v);
    TRY("pokeuser cs 0", pt(PTRACE_POKEUSER, c, offsetof(struct user_regs_struct, cs), 0));
    TRY("pokeuser rax 42", pt(PTRACE_POKEUSER, c, offsetof(struct user_regs_struct, rax), 42));

    struct user_regs_struct r2;
    struct iovec iov = { &r2, sizeof r2 };
    TRY("getregset prstatus", pt(PTRACE_GETREGSET, c, NT_PRSTATUS, (long)&iov));
    printf("regset: len %zu rax %lld\n", iov.iov_len, (long long)r2.rax);
    iov.iov_len = 8;
    TRY("getregset 8 bytes", pt(PTRACE_GETREGSET, c, NT_PRSTATUS, (long)&iov));
    printf("regset: len %zu\n", iov.iov_len);
    iov.iov_len = sizeof r2;
    TRY("getregset bad type", pt(PTRACE_GETREGSET, c, 0x999, (long)&iov));
    TRY("getregset bad iovec", pt(PTRACE_GETREGSET, c, NT_PRSTATUS, 1));
    regs.rax = 42;
    regs.rbx ^= 0;                  /* the rest as it was */
    r2.cs = 0;
    TRY("setregs cs 0", pt(PTRACE_SETREGS, c, 0, (long)&r2));
    TRY("setregs", pt(PTRACE_SETREGS, c, 0, (long)&regs));
    TRY("cont", pt(PTRACE_CONT, c, 0, 0));
    stop_and_wait(c, "end");
    printf("mine: value %#lx\n", value);
    return 0;
}
