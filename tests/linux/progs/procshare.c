/* What processes share and how one looks at another: kcmp (every type: only "same or not" is
 * printed, Linux orders obfuscated pointers), unshare (CLONE_FILES, CLONE_FS, CLONE_SYSVSEM,
 * the checks on CLONE_VM/THREAD/SIGHAND, namespaces refused without CAP_SYS_ADMIN), setns's
 * errors, process_vm_readv/writev (partial transfers at a bad page on either side, the
 * access check, every error). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/sem.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include "corpus.h"

#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP 0x02000000
#endif
#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

enum { KCMP_FILE, KCMP_VM, KCMP_FILES, KCMP_FS, KCMP_SIGHAND, KCMP_IO, KCMP_SYSVSEM,
       KCMP_EPOLL_TFD };
static const char *kind[] = { "FILE", "VM", "FILES", "FS", "SIGHAND", "IO", "SYSVSEM" };

struct kcmp_epoll_slot {
    unsigned efd, tfd;
    unsigned long long toff;
};

static long kcmp(long p1, long p2, int type, unsigned long i1, unsigned long i2)
{
    return syscall(SYS_kcmp, p1, p2, type, i1, i2);
}

/* "same", "different" or the error. */
static void cmp(const char *what, long p1, long p2, int type, unsigned long i1, unsigned long i2)
{
    errno = 0;
    long r = kcmp(p1, p2, type, i1, i2);
    printf("kcmp %s %s: %s\n", what, type < 7 ? kind[type] : "EPOLL_TFD",
           r < 0 ? errname(errno) : r == 0 ? "same" : "different");
}

static long pvm(pid_t pid, struct iovec *l, unsigned long nl, struct iovec *r, unsigned long nr,
                int write, unsigned long flags)
{
    return syscall(write ? SYS_process_vm_writev : SYS_process_vm_readv, pid, l, nl, r, nr, flags);
}

static int go[2], done[2];
static char shared_buf[32] = "remote data here";
static char *two_pages, *ro_page;

static void wait_go(void)
{
    char c;
    read(go[0], &c, 1);
}

static void child_waits(void)
{
    close(go[1]);
    wait_go();
    printf("child's buffer now [%s]\n", shared_buf);
    _exit(0);
}

static char stack[65536] __attribute__((aligned(16)));

static int clone_child(void *arg)
{
    (void)arg;
    wait_go();
    return 0;
}

static void kcmp_calls(void)
{
    pid_t me = getpid();
    int d = dup(1), other = open("/", O_RDONLY);
    cmp("fd 1 vs its dup", me, me, KCMP_FILE, 1, d);
    cmp("fd 1 vs another file", me, me, KCMP_FILE, 1, other);
    for (int k = KCMP_VM; k <= KCMP_SYSVSEM; k++)
        cmp("self", me, me, k, 0, 0);

    pipe(go);
    pid_t c = fork();
    if (c == 0)
        child_waits();
    for (int k = KCMP_VM; k <= KCMP_SYSVSEM; k++)
        if (k != KCMP_IO)
            cmp("forked child", me, c, k, 0, 0);
    cmp("inherited fd", me, c, KCMP_FILE, 1, 1);
    cmp("inherited dup", me, c, KCMP_FILE, d, 1);
    cmp("bad fd", me, c, KCMP_FILE, 1, 77);
    cmp("bad type", me, c, 99, 0, 0);
    cmp("no such pid", me, 0, KCMP_VM, 0, 0);
    write(go[1], "g", 1);
    int st;
    waitpid(c, &st, 0);
    cmp("a reaped child", me, c, KCMP_VM, 0, 0);
    close(go[0]), close(go[1]);

    pipe(go);
    c = clone(clone_child, stack + sizeof stack,
              CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | SIGCHLD, NULL);
    for (int k = KCMP_VM; k <= KCMP_SIGHAND; k++)
        cmp("clone sharing everything", me, c, k, 0, 0);
    write(go[1], "g", 1);
    waitpid(c, &st, 0);
    close(go[0]), close(go[1]);

    int ep = epoll_create1(0), pp[2];
    pipe(pp);
    close(d);
    d = dup(pp[0]);
    struct epoll_event ev = { .events = EPOLLIN };
    SHOW("epoll_ctl", epoll_ctl(ep, EPOLL_CTL_ADD, d, &ev));
    struct kcmp_epoll_slot slot = { (unsigned)ep, (unsigned)d, 0 };
    cmp("epoll target", me, me, KCMP_EPOLL_TFD, d, (unsigned long)&slot);
    cmp("epoll target vs another file", me, me, KCMP_EPOLL_TFD, other, (unsigned long)&slot);
    slot.tfd = (unsigned)other;
    cmp("fd not in the epoll set", me, me, KCMP_EPOLL_TFD, d, (unsigned long)&slot);
    slot.efd = (unsigned)other;
    cmp("not an epoll fd", me, me, KCMP_EPOLL_TFD, d, (unsigned long)&slot);
    slot.efd = 99;
    cmp("bad epoll fd", me, me, KCMP_EPOLL_TFD, d, (unsigned long)&slot);
    cmp("bad slot pointer", me, me, KCMP_EPOLL_TFD, d, 8);
    close(ep), close(d), close(other), close(pp[0]), close(pp[1]);
}

static int files_child(void *arg)
{
    (void)arg;
    pid_t pp = getppid(), me = getpid();
    cmp("CLONE_FILES|CLONE_FS child", pp, me, KCMP_FILES, 0, 0);
    cmp("CLONE_FILES|CLONE_FS child", pp, me, KCMP_FS, 0, 0);
    SHOW("unshare(CLONE_FILES | CLONE_FS)", unshare(CLONE_FILES | CLONE_FS));
    cmp("after unshare", pp, me, KCMP_FILES, 0, 0);
    cmp("after unshare", pp, me, KCMP_FS, 0, 0);
    cmp("after unshare, fd 1", pp, me, KCMP_FILE, 1, 1);
    chdir("/proc");
    close(1);                       /* the parent's fd 1 stays */
    return 0;
}

static void *idle_thread(void *arg)
{
    (void)arg;
    wait_go();
    return NULL;
}

/* In a child that never had threads (a thread's exit would also drop the undo list). */
static void sem_undo_child(void)
{
    int id = semget(IPC_PRIVATE, 1, 0600);
    struct sembuf up = { 0, 2, SEM_UNDO };
    semop(id, &up, 1);
    printf("semaphore after semop with SEM_UNDO: %d\n", semctl(id, 0, GETVAL));
    SHOW("unshare(CLONE_SYSVSEM)", unshare(CLONE_SYSVSEM));
    printf("semaphore after unshare (the undo applied): %d\n", semctl(id, 0, GETVAL));
    semctl(id, 0, IPC_RMID);
}

static void as_nobody(void)
{
    setgid(65534);
    setuid(65534);
    static const struct { int flag; const char *name; } ns[] = {
        { CLONE_NEWNS, "CLONE_NEWNS" }, { CLONE_NEWUTS, "CLONE_NEWUTS" },
        { CLONE_NEWIPC, "CLONE_NEWIPC" }, { CLONE_NEWNET, "CLONE_NEWNET" },
        { CLONE_NEWPID, "CLONE_NEWPID" }, { CLONE_NEWCGROUP, "CLONE_NEWCGROUP" },
        { CLONE_NEWTIME, "CLONE_NEWTIME" },
    };
    char what[64];
    for (unsigned k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        snprintf(what, sizeof what, "nobody: unshare(%s)", ns[k].name);
        SHOW(what, unshare(ns[k].flag));
    }
    int pfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
    SHOW("nobody: setns(pidfd, CLONE_NEWUTS)", setns(pfd, CLONE_NEWUTS));
    cmp("nobody looks at root", getpid(), getppid(), KCMP_VM, 0, 0);
    char buf[8];
    struct iovec l = { buf, sizeof buf }, r = { shared_buf, sizeof buf };
    SHOW("nobody: process_vm_readv of root", pvm(getppid(), &l, 1, &r, 1, 0, 0));
}

static void unshare_calls(void)
{
    SHOW("unshare(0)", unshare(0));
    SHOW("unshare(bad flag)", unshare(0x1));
    SHOW("unshare(CLONE_FILES | CLONE_FS), nothing shared", unshare(CLONE_FILES | CLONE_FS));
    SHOW("unshare(CLONE_VM | CLONE_THREAD), single-threaded",
         unshare(CLONE_VM | CLONE_THREAD | CLONE_SIGHAND));

    int st;
    pid_t c = clone(files_child, stack + sizeof stack, CLONE_FILES | CLONE_FS | SIGCHLD, NULL);
    waitpid(c, &st, 0);
    char cwd[64];
    printf("parent's cwd still %s, fd 1 open %d\n", getcwd(cwd, sizeof cwd) ? cwd : "?",
           fcntl(1, F_GETFD) >= 0);

    pipe(go);
    pthread_t th;
    pthread_create(&th, NULL, idle_thread, NULL);
    SHOW("unshare(CLONE_VM) with a thread", unshare(CLONE_VM));
    SHOW("unshare(CLONE_THREAD) with a thread", unshare(CLONE_THREAD));
    SHOW("unshare(CLONE_SIGHAND) with a thread", unshare(CLONE_SIGHAND));
    SHOW("unshare(CLONE_FILES) with a thread", unshare(CLONE_FILES));
    write(go[1], "g", 1);
    pthread_join(th, NULL);
    close(go[0]), close(go[1]);

    run_child("SEM_UNDO child", sem_undo_child);

    /* setns: only its errors and the pidfd path (lx has no /proc/PID/ns) */
    SHOW("setns(bad fd)", setns(99, 0));
    int f = open("/", O_RDONLY);
    SHOW("setns(a directory)", setns(f, 0));
    close(f);
    int pfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
    SHOW("setns(pidfd, 0)", setns(pfd, 0));
    SHOW("setns(pidfd, bad flag)", setns(pfd, 0x1));
    close(pfd);
    run_child("nobody", as_nobody);
}

static void procvm_calls(void)
{
    two_pages = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    memset(two_pages, 'P', 8192);
    ro_page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    pipe(go);
    pipe(done);
    pid_t c = fork();
    if (c == 0) {
        munmap(two_pages + 4096, 4096);     /* the parent's second page stays */
        write(done[1], "r", 1);
        child_waits();
    }
    char ready;
    read(done[0], &ready, 1);

    char a[7] = { 0 }, b[16] = { 0 };
    struct iovec l[2] = { { a, 6 }, { b, 15 } };
    struct iovec r[2] = { { shared_buf, 7 }, { shared_buf + 7, 9 } };
    SHOW("readv two and two", pvm(c, l, 2, r, 2, 0, 0));
    printf("got [%s] [%s]\n", a, b);
    struct iovec w = { "WRITTEN", 7 }, rw = { shared_buf, 7 };
    SHOW("writev", pvm(c, &w, 1, &rw, 1, 1, 0));

    static char big[8192];
    struct iovec lb = { big, sizeof big }, rb = { two_pages, 8192 };
    SHOW("readv across the child's unmapped page", pvm(c, &lb, 1, &rb, 1, 0, 0));
    SHOW("writev across the child's unmapped page", pvm(c, &lb, 1, &rb, 1, 1, 0));
    struct iovec rbad[2] = { { shared_buf, 4 }, { (void *)4096, 4 } };
    SHOW("readv: a good and a bad remote iovec", pvm(c, &lb, 1, rbad, 2, 0, 0));
    struct iovec rro = { ro_page, 16 };
    SHOW("writev into a read-only page", pvm(c, &lb, 1, &rro, 1, 1, 0));
    SHOW("readv of a read-only page", pvm(c, &lb, 1, &rro, 1, 0, 0));
    struct iovec lbad[2] = { { a, 4 }, { (void *)4096, 4 } };
    SHOW("readv: a good and a bad local iovec", pvm(c, lbad, 2, r, 1, 0, 0));
    SHOW("readv: a bad local iovec only", pvm(c, lbad + 1, 1, r, 1, 0, 0));
    SHOW("writev: a good and a bad local iovec", pvm(c, lbad, 2, r, 1, 1, 0));
    SHOW("flags", pvm(c, l, 2, r, 2, 0, 1));
    SHOW("too many local iovecs", pvm(c, l, 2000, r, 2, 0, 0));
    SHOW("too many remote iovecs", pvm(c, l, 2, r, 2000, 0, 0));
    SHOW("bad remote iovec array", pvm(c, l, 2, (struct iovec *)8, 2, 0, 0));
    SHOW("bad local iovec array", pvm(c, (struct iovec *)8, 2, r, 2, 0, 0));
    SHOW("no local bytes", pvm(c, l, 0, r, 2, 0, 0));
    SHOW("no remote bytes, no such pid", pvm(0, l, 2, r, 0, 0, 0));
    SHOW("no such pid", pvm(0, l, 2, r, 2, 0, 0));
    struct iovec neg = { a, (size_t)-1 };
    SHOW("negative remote length", pvm(c, l, 2, &neg, 1, 0, 0));
    SHOW("readv of itself", pvm(getpid(), l, 2, r, 2, 0, 0));

    write(go[1], "g", 1);
    siginfo_t si;
    waitid(P_PID, c, &si, WEXITED | WNOWAIT);
    SHOW("readv of a zombie", pvm(c, l, 2, r, 2, 0, 0));
    int st;
    waitpid(c, &st, 0);
    close(go[0]), close(go[1]), close(done[0]), close(done[1]);
}

int main(void)
{
    corpus_init();
    kcmp_calls();
    unshare_calls();
    procvm_calls();
    return 0;
}
