/* Queued signals with their siginfo (issue 14 item 2): sigqueue (rt_sigqueueinfo) and
 * rt_tgsigqueueinfo with si_value, real-time signals queued once per send and taken in order
 * of arrival (lowest number first), standard signals merged with the first siginfo kept,
 * RLIMIT_SIGPENDING (EAGAIN for a real-time signal only; a standard one is still pending,
 * without its siginfo), /proc/self/status's SigQ, the siginfo in an SA_SIGINFO handler, in
 * sigwaitinfo and in signalfd, and the calls' errors (EFAULT, EINVAL, ESRCH, EPERM for a
 * faked si_code).  Signals 40..42 are real-time in glibc and musl alike. */
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include "corpus.h"

static void *volatile bad_address = (void *)8;

static void block(int sig, int how)
{
    sigset_t m;
    sigemptyset(&m);
    sigaddset(&m, sig);
    sigprocmask(how, &m, NULL);
}

static const char *who(pid_t pid)
{
    return pid == getpid() ? "self" : pid == 0 ? "0" : pid == getppid() ? "parent" : "other";
}

static long sigq(void)
{
    char line[256];
    long n = -1;
    FILE *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "SigQ:", 5))
            n = strtol(line + 5, NULL, 10);
    if (f)
        fclose(f);
    return n;
}

static int queue(pid_t pid, int sig, int value)
{
    union sigval v = { .sival_int = value };
    return sigqueue(pid, sig, v);
}

/* Take every pending signal of set with sigwaitinfo (nothing blocks: a 0 timeout). */
static void drain(const char *what, const sigset_t *set)
{
    struct timespec zero = { 0, 0 };
    siginfo_t si;
    int sig;
    while ((sig = sigtimedwait(set, &si, &zero)) > 0)
        printf("%s: sig %d code %d value %d pid %s\n", what, sig, si.si_code,
               si.si_value.sival_int, who(si.si_pid));
    printf("%s: end %s\n", what, errname(errno));
}

/* The signals the queueing cases use (two standard, two real-time), blocked: into set. */
static void block_test_signals(sigset_t *set)
{
    static const int sigs[] = { SIGUSR1, SIGUSR2, 40, 41 };
    sigemptyset(set);
    for (unsigned i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaddset(set, sigs[i]);
    sigprocmask(SIG_BLOCK, set, NULL);
}

static void order_and_merge(void)
{
    sigset_t set;
    block_test_signals(&set);
    printf("sigq before: %ld\n", sigq());
    SHOW("queue 41 value 1", queue(getpid(), 41, 1));
    SHOW("queue 40 value 2", queue(getpid(), 40, 2));
    SHOW("queue 41 value 3", queue(getpid(), 41, 3));
    SHOW("queue 40 value 4", queue(getpid(), 40, 4));
    SHOW("kill 40", kill(getpid(), 40));
    SHOW("queue SIGUSR1 value 5", queue(getpid(), SIGUSR1, 5));
    SHOW("kill SIGUSR1 (merged)", kill(getpid(), SIGUSR1));
    SHOW("queue SIGUSR1 value 6 (merged)", queue(getpid(), SIGUSR1, 6));
    SHOW("kill SIGUSR2", kill(getpid(), SIGUSR2));
    SHOW("queue SIGUSR2 value 7 (merged)", queue(getpid(), SIGUSR2, 7));
    printf("sigq queued: %ld\n", sigq());
    drain("order", &set);
    printf("sigq after: %ld\n", sigq());
    sigprocmask(SIG_UNBLOCK, &set, NULL);
}

static volatile sig_atomic_t got[16], ngot;
static volatile int got_value[16], got_code[16], got_self[16];

static void on_info(int sig, siginfo_t *si, void *ctx)
{
    (void)ctx;
    if (ngot < 16) {
        got[ngot] = sig;
        got_value[ngot] = si->si_value.sival_int;
        got_code[ngot] = si->si_code;
        got_self[ngot] = si->si_pid == getpid();
        ngot++;
    }
}

static void handlers(void)
{
    /* Each handler blocks the three: one frame at a time, in the order they are taken. */
    struct sigaction sa = { .sa_sigaction = on_info, .sa_flags = SA_SIGINFO };
    sigset_t set;
    sigemptyset(&set);
    int sigs[] = { SIGUSR2, 40, 41 };
    for (unsigned i = 0; i < 3; i++)
        sigaddset(&set, sigs[i]);
    sa.sa_mask = set;
    for (unsigned i = 0; i < 3; i++)
        sigaction(sigs[i], &sa, NULL);
    sigprocmask(SIG_BLOCK, &set, NULL);
    queue(getpid(), 41, 11);
    queue(getpid(), 40, 12);
    queue(getpid(), 41, 13);
    queue(getpid(), SIGUSR2, 14);
    syscall(SYS_tgkill, getpid(), gettid(), 40);
    ngot = 0;
    sigprocmask(SIG_UNBLOCK, &set, NULL);   /* all five: the thread's first, lowest first */
    for (int i = 0; i < ngot; i++)
        printf("handler: sig %d code %d value %d self %d\n", got[i], got_code[i],
               got_code[i] == SI_QUEUE ? got_value[i] : 0, got_self[i]);
    ngot = 0;
    SHOW("queue to self unblocked", queue(getpid(), 40, 15));
    printf("handler: %d signals, value %d\n", ngot, got_value[0]);
    for (unsigned i = 0; i < 3; i++)
        signal(sigs[i], SIG_DFL);
}

static void through_signalfd(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, 42);
    sigprocmask(SIG_BLOCK, &set, NULL);
    int fd = signalfd(-1, &set, SFD_NONBLOCK);
    union sigval v = { .sival_ptr = (void *)0x1234567 };
    sigqueue(getpid(), 42, v);
    queue(getpid(), 42, -9);
    struct signalfd_siginfo si[4];
    long n = read(fd, si, sizeof si);
    for (long i = 0; i < n / (long)sizeof si[0]; i++)
        printf("signalfd: sig %u code %d int %d ptr %llx self %d\n", si[i].ssi_signo,
               si[i].ssi_code, si[i].ssi_int, (unsigned long long)si[i].ssi_ptr,
               si[i].ssi_pid == (uint32_t)getpid());
    printf("signalfd: again %s\n", read(fd, si, sizeof si) < 0 ? errname(errno) : "data");
    close(fd);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
}

static void limit(void)
{
    sigset_t set;
    block_test_signals(&set);
    struct rlimit old, rl = { 3, 3 };
    getrlimit(RLIMIT_SIGPENDING, &old);
    rl.rlim_max = old.rlim_max;
    SHOW("setrlimit SIGPENDING 3", setrlimit(RLIMIT_SIGPENDING, &rl));
    SHOW("queue 40 a", queue(getpid(), 40, 21));
    SHOW("queue 40 b", queue(getpid(), 40, 22));
    SHOW("queue 41 c", queue(getpid(), 41, 23));
    SHOW("queue 41 d (full)", queue(getpid(), 41, 24));
    SHOW("kill 41 (full: pending, no siginfo)", kill(getpid(), 41));
    SHOW("kill SIGUSR2 (a standard signal from kill)", kill(getpid(), SIGUSR2));
    SHOW("queue SIGUSR1 (full: pending, no siginfo)", queue(getpid(), SIGUSR1, 25));
    SHOW("tgkill 40 (full)", syscall(SYS_tgkill, getpid(), gettid(), 40));
    printf("sigq full: %ld\n", sigq());
    drain("full", &set);
    printf("sigq drained: %ld\n", sigq());
    setrlimit(RLIMIT_SIGPENDING, &old);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
}

static long rt_sigqueueinfo(long pid, long sig, void *info)
{
    return syscall(SYS_rt_sigqueueinfo, pid, sig, info);
}

static long rt_tgsigqueueinfo(long tgid, long tid, long sig, void *info)
{
    return syscall(SYS_rt_tgsigqueueinfo, tgid, tid, sig, info);
}

static void errors(void)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    si.si_code = SI_QUEUE;
    si.si_pid = getpid();
    si.si_value.sival_int = 77;
    block(40, SIG_BLOCK);
    block(SIGUSR1, SIG_BLOCK);
    SHOW("EFAULT", rt_sigqueueinfo(getpid(), 40, bad_address));
    SHOW("EFAULT before ESRCH", rt_sigqueueinfo(0x3fffffff, 40, bad_address));
    SHOW("sig 65", rt_sigqueueinfo(getpid(), 65, &si));
    SHOW("sig -1", rt_sigqueueinfo(getpid(), -1, &si));
    SHOW("sig 0", rt_sigqueueinfo(getpid(), 0, &si));
    SHOW("pid absent", rt_sigqueueinfo(0x3fffffff, 40, &si));
    SHOW("pid absent sig 65", rt_sigqueueinfo(0x3fffffff, 65, &si));
    SHOW("pid 0", rt_sigqueueinfo(0, 40, &si));
    SHOW("pid -1", rt_sigqueueinfo(-1, 40, &si));

    int go[2], done[2];
    if (pipe(go) || pipe(done))
        return;
    pid_t child = fork();
    if (child == 0) {
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, 40);
        sigaddset(&set, SIGUSR1);
        char c;
        write(done[1], "r", 1);
        read(go[0], &c, 1);
        drain("child", &set);
        _exit(0);
    }
    char c;
    read(done[0], &c, 1);
    SHOW("SI_QUEUE to child", rt_sigqueueinfo(child, 40, &si));
    si.si_value.sival_int = 78;
    SHOW("SI_QUEUE to child again", rt_sigqueueinfo(child, 40, &si));
    si.si_code = SI_USER;
    SHOW("SI_USER to child", rt_sigqueueinfo(child, 40, &si));
    si.si_code = SI_TKILL;
    SHOW("SI_TKILL to child", rt_sigqueueinfo(child, 40, &si));
    si.si_code = SI_KERNEL;
    SHOW("SI_KERNEL to child", rt_sigqueueinfo(child, 40, &si));
    si.si_code = SI_MESGQ;
    si.si_value.sival_int = 79;
    SHOW("SI_MESGQ to child (a faked code below 0)", rt_sigqueueinfo(child, SIGUSR1, &si));
    si.si_code = SI_USER;
    SHOW("tg SI_USER to child", rt_tgsigqueueinfo(child, child, 40, &si));
    si.si_code = SI_QUEUE;
    si.si_value.sival_int = 80;
    SHOW("tg to child wrong tgid", rt_tgsigqueueinfo(getpid(), child, 40, &si));
    SHOW("tg to child", rt_tgsigqueueinfo(child, child, 40, &si));
    write(go[1], "g", 1);
    int st;
    waitpid(child, &st, 0);
    SHOW("to a reaped child", rt_sigqueueinfo(child, 40, &si));

    SHOW("tg tgid 0", rt_tgsigqueueinfo(0, gettid(), 40, &si));
    SHOW("tg tid 0", rt_tgsigqueueinfo(getpid(), 0, 40, &si));
    SHOW("tg tid -1", rt_tgsigqueueinfo(getpid(), -1, 40, &si));
    SHOW("tg EFAULT", rt_tgsigqueueinfo(getpid(), gettid(), 40, bad_address));
    SHOW("tg EFAULT before EINVAL", rt_tgsigqueueinfo(0, 0, 40, bad_address));
    SHOW("tg sig 65", rt_tgsigqueueinfo(getpid(), gettid(), 65, &si));
    SHOW("tg absent", rt_tgsigqueueinfo(0x3fffffff, 0x3fffffff, 40, &si));
    SHOW("tg sig 0", rt_tgsigqueueinfo(getpid(), gettid(), 0, &si));
    si.si_code = SI_USER;
    si.si_value.sival_int = 81;
    SHOW("SI_USER to self", rt_sigqueueinfo(getpid(), 40, &si));
    si.si_code = SI_TKILL;
    SHOW("tg SI_TKILL to self", rt_tgsigqueueinfo(getpid(), gettid(), 40, &si));
    si.si_code = SI_QUEUE;
    si.si_value.sival_int = 82;
    SHOW("tg SI_QUEUE to self", rt_tgsigqueueinfo(getpid(), gettid(), 40, &si));
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, 40);
    drain("self", &set);
    block(40, SIG_UNBLOCK);
    block(SIGUSR1, SIG_UNBLOCK);

    /* A user who may not signal root's process: EPERM (the check comes after ESRCH). */
    if (pipe(done))
        return;
    child = fork();
    if (child == 0) {
        pid_t parent = getppid();
        if (setgid(65534) || setuid(65534))
            _exit(3);
        si.si_code = SI_QUEUE;
        SHOW("nobody to root", rt_sigqueueinfo(parent, 40, &si));
        SHOW("nobody to root sig 65", rt_sigqueueinfo(parent, 65, &si));
        SHOW("nobody to root sig 0", rt_sigqueueinfo(parent, 0, &si));
        _exit(0);
    }
    waitpid(child, &st, 0);
    printf("nobody child: %d\n", WEXITSTATUS(st));
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    order_and_merge();
    handlers();
    through_signalfd();
    limit();
    errors();
    printf("sigq at the end: %ld\n", sigq());
    return 0;
}
