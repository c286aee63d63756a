/* System V IPC (docs/linux/sysvipc.md), one program for the three kinds (the corpus's
 * binaries share the initramfs's room):
 *   - semaphores: semget's keys and errors, ids relative to each other, every semctl command
 *     and error, semop's errors, blocked operations woken in Linux's order (FIFO per
 *     semaphore, a decrement that cannot go on does not hold up a later one, waits for zero,
 *     a complex operation), EIDRM, EINTR even with SA_RESTART, semtimedop's timeout,
 *     SEM_UNDO at exit;
 *   - shared memory: shmget's sizes, keys and errors, shmat's address choice, rounding,
 *     SHM_REMAP, SHM_RDONLY and errors, shmdt by address (the whole attachment, split ones
 *     too), every shmctl command (IPC_STAT's counts and pids, IPC_RMID deferred to the last
 *     detach, SHM_LOCK), memory shared with children (fork inherits an attachment; exit
 *     detaches), /proc/self/maps' name of a segment;
 *   - message queues: msgget's keys and errors, msgsnd's and msgrcv's errors, type selection
 *     (0, >0, <0, MSG_EXCEPT), MSG_NOERROR and E2BIG, MSG_COPY, every msgctl command,
 *     senders blocked on a full queue and receivers blocked on an empty one woken in Linux's
 *     order, EIDRM, EINTR for both even with SA_RESTART, a restart after SIGSTOP/SIGCONT;
 *   - the /proc/sysvipc listings.
 * Processes are ordered through pipes and /proc's sleeping state, never by time; ids,
 * addresses, pids and times are printed only as relations. */
#include <signal.h>
#include <stdint.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <time.h>
#include "threads.h"

#ifndef MSG_COPY
#define MSG_COPY 040000
#endif

#define BAD ((void *)16)
#define PAGE 4096

/* ============================== semaphores ============================== */

union semun {
    int val;
    struct semid_ds *buf;
    unsigned short *array;
    struct seminfo *__buf;
};


static long sem_ctl(int id, int num, int cmd, unsigned long arg)
{
    return syscall(SYS_semctl, id, num, cmd, arg);
}

static long sop(int id, short num, short op, short flg)
{
    struct sembuf b = { (unsigned short)num, op, flg };
    return semop(id, &b, 1);
}

/* Each child that blocks reports through a pipe of its own (two woken children write in
 * any order): its read end, by pid. */
static int result_fd[32768];

/* Fork a child that is to block in a call: in the child 0, once it has told the parent it
 * is about to call (*out: its report pipe); in the parent the child's pid, once it sleeps. */
static pid_t fork_blocking(int *out)
{
    int r[2], p[2];
    if (pipe(r) || pipe(p))
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        close(r[0]);
        *out = r[1];
        write(p[1], "x", 1);
        return 0;
    }
    close(p[1]);
    close(r[1]);
    result_fd[pid % 32768] = r[0];
    char c;
    read(p[0], &c, 1);
    close(p[0]);
    sleeping(pid, pid);
    return pid;
}

/* A child that runs ops and exits with the result: 0, or the errno + 100. */
static pid_t blocker(int id, struct sembuf *ops, int n)
{
    int out;
    pid_t pid = fork_blocking(&out);
    if (pid == 0) {
        int r = semop(id, ops, (size_t)n);
        _exit(r ? 100 + errno : 0);
    }
    return pid;
}

static void reap(const char *what, pid_t pid)
{
    int st;
    waitpid(pid, &st, 0);
    if (WIFEXITED(st) && WEXITSTATUS(st) >= 100)
        printf("%s: -1 %s\n", what, errname(WEXITSTATUS(st) - 100));
    else
        show_status(what, st);
}

static void counts(const char *what, int id, int num)
{
    printf("%s: val %ld ncnt %ld zcnt %ld\n", what, sem_ctl(id, num, GETVAL, 0),
           sem_ctl(id, num, GETNCNT, 0), sem_ctl(id, num, GETZCNT, 0));
}

static void keys_and_ids(void)
{
    key_t key = 0x5e3a0001;
    SHOW("semget nsems -1", semget(IPC_PRIVATE, -1, 0600));
    SHOW("semget nsems 32001", semget(IPC_PRIVATE, 32001, 0600));
    SHOW("semget private nsems 0", semget(IPC_PRIVATE, 0, 0600));
    SHOW("semget missing key", semget(key, 1, 0600));
    int a = semget(key, 2, IPC_CREAT | 0600);
    printf("semget create: %s\n", a >= 0 ? "ok" : errname(errno));
    printf("semget again same id: %d\n", semget(key, 2, 0600) == a);
    printf("semget fewer same id: %d\n", semget(key, 1, 0) == a);
    printf("semget nsems 0 same id: %d\n", semget(key, 0, 0) == a);
    SHOW("semget more nsems", semget(key, 3, 0600));
    SHOW("semget excl", semget(key, 2, IPC_CREAT | IPC_EXCL | 0600));
    int b = semget(IPC_PRIVATE, 1, 0600), c = semget(IPC_PRIVATE, 1, 0600);
    printf("private ids differ: %d\n", b != c && a != b);
    printf("next id - previous: %d\n", c - b);
    SHOW("rmid b", semctl(b, 0, IPC_RMID));
    SHOW("stale id getval", semctl(b, 0, GETVAL));
    SHOW("stale id rmid", semctl(b, 0, IPC_RMID));
    int d = semget(IPC_PRIVATE, 1, 0600);
    printf("new id reuses removed: %d, after c: %d\n", d == b, d - c);
    struct semid_ds ds;
    union semun u = { .buf = &ds };
    SHOW("stat", semctl(a, 0, IPC_STAT, u));
    printf("stat: key ok %d mode %o nsems %lu uid %d cuid %d otime %d ctime set %d\n",
           ds.sem_perm.__key == key, ds.sem_perm.mode, (unsigned long)ds.sem_nsems,
           ds.sem_perm.uid == geteuid(), ds.sem_perm.cuid == geteuid(), ds.sem_otime != 0,
           ds.sem_ctime != 0);
    ds.sem_perm.mode = 0640;
    SHOW("set mode 640", semctl(a, 0, IPC_SET, u));
    ds.sem_perm.uid = (uid_t)-1;
    SHOW("set uid -1", semctl(a, 0, IPC_SET, u));
    semctl(a, 0, IPC_STAT, u);
    printf("stat after set: mode %o\n", ds.sem_perm.mode);
    struct seminfo si;
    int max = semctl(0, 0, IPC_INFO, (union semun){ .__buf = &si });
    printf("ipc_info: max index ok %d semmsl %d semmns %d semopm %d semmni %d semvmx %d "
           "semaem %d semume %d semusz %d\n", max >= d % 32768, si.semmsl, si.semmns,
           si.semopm, si.semmni, si.semvmx, si.semaem, si.semume, si.semusz);
    int before = semctl(0, 0, SEM_INFO, (union semun){ .__buf = &si });
    int used = si.semusz, sems = si.semaem;
    int e = semget(IPC_PRIVATE, 5, 0600);
    semctl(0, 0, SEM_INFO, (union semun){ .__buf = &si });
    printf("sem_info: sets +%d sems +%d max index grew %d\n", si.semusz - used,
           si.semaem - sems, semctl(0, 0, SEM_INFO, (union semun){ .__buf = &si }) > before);
    int idx = e % 32768;
    printf("sem_stat by index gives the id: %d\n", semctl(idx, 0, SEM_STAT, u) == e);
    printf("sem_stat_any by index gives the id: %d\n", semctl(idx, 0, SEM_STAT_ANY, u) == e);
    SHOW("sem_stat free index", semctl(32767, 0, SEM_STAT, u));
    SHOW("stat bad pointer", sem_ctl(a, 0, IPC_STAT, (unsigned long)BAD));
    SHOW("set bad pointer", sem_ctl(a, 0, IPC_SET, (unsigned long)BAD));
    SHOW("info bad pointer", sem_ctl(0, 0, IPC_INFO, (unsigned long)BAD));
    SHOW("bad command", sem_ctl(a, 0, 99, 0));
    SHOW("negative id", sem_ctl(-1, 0, GETVAL, 0));
    SHOW("cmd with IPC_64 bit", sem_ctl(a, 0, GETVAL | 0x100, 0));
    semctl(a, 0, IPC_RMID);
    semctl(c, 0, IPC_RMID);
    semctl(d, 0, IPC_RMID);
    semctl(e, 0, IPC_RMID);
}

static void values(void)
{
    int id = semget(IPC_PRIVATE, 3, 0600);
    SHOW("setval 5", semctl(id, 0, SETVAL, 5));
    SHOW("getval", semctl(id, 0, GETVAL));
    SHOW("setval 32767", semctl(id, 1, SETVAL, 32767));
    SHOW("setval 32768", semctl(id, 1, SETVAL, 32768));
    SHOW("setval -1", semctl(id, 1, SETVAL, -1));
    SHOW("setval semnum 3", semctl(id, 3, SETVAL, 1));
    SHOW("getval semnum -1", semctl(id, -1, GETVAL));
    printf("getpid is ours: %d\n", semctl(id, 0, GETPID) == getpid());
    SHOW("getpid untouched", semctl(id, 2, GETPID));
    unsigned short all[3] = { 7, 8, 9 }, got[3] = { 0 };
    SHOW("setall", semctl(id, 0, SETALL, (union semun){ .array = all }));
    SHOW("getall", semctl(id, 0, GETALL, (union semun){ .array = got }));
    printf("getall: %u %u %u\n", got[0], got[1], got[2]);
    unsigned short big[3] = { 1, 40000, 2 };
    SHOW("setall 40000", semctl(id, 0, SETALL, (union semun){ .array = big }));
    SHOW("getval after refused setall", semctl(id, 0, GETVAL));
    SHOW("getall bad pointer", sem_ctl(id, 0, GETALL, (unsigned long)BAD));
    SHOW("setall bad pointer", sem_ctl(id, 0, SETALL, (unsigned long)BAD));
    semctl(id, 0, IPC_RMID);
}

static void op_errors(void)
{
    int id = semget(IPC_PRIVATE, 2, 0600);
    struct sembuf b[501];
    for (int i = 0; i < 501; i++)
        b[i] = (struct sembuf){ 0, 0, IPC_NOWAIT };
    SHOW("semop nsops 0", semop(id, b, 0));
    SHOW("semop nsops 500", semop(id, b, 500));
    SHOW("semop nsops 501", semop(id, b, 501));
    SHOW("semop bad pointer", syscall(SYS_semop, id, BAD, 1));
    SHOW("semop negative id", sop(-1, 0, 1, 0));
    SHOW("semop sem_num 2", sop(id, 2, 1, 0));
    SHOW("semop nowait decrement", sop(id, 0, -1, IPC_NOWAIT));
    semctl(id, 0, SETVAL, 1);
    SHOW("semop nowait zero", sop(id, 0, 0, IPC_NOWAIT));
    semctl(id, 0, SETVAL, 32767);
    SHOW("semop past 32767", sop(id, 0, 1, 0));
    semctl(id, 0, SETVAL, 0);
    SHOW("semop +32767 undo", sop(id, 0, 32767, SEM_UNDO));
    SHOW("semop -32767 undo", sop(id, 0, -32767, SEM_UNDO));
    SHOW("sem 1: +32767 undo", sop(id, 1, 32767, SEM_UNDO));
    SHOW("sem 1: -32767", sop(id, 1, -32767, 0));
    SHOW("sem 1: +1 undo, adjustment -32768", sop(id, 1, 1, SEM_UNDO));
    SHOW("sem 1: -1", sop(id, 1, -1, 0));
    SHOW("sem 1: +1 undo, adjustment -32769", sop(id, 1, 1, SEM_UNDO));
    SHOW("sem 1 untouched", semctl(id, 1, GETVAL));
    semctl(id, 1, SETVAL, 0);
    semctl(id, 0, SETVAL, 0);
    /* all or nothing */
    struct sembuf two[2] = { { 0, 1, 0 }, { 1, -1, IPC_NOWAIT } };
    SHOW("semop two, second blocks", semop(id, two, 2));
    SHOW("first untouched", semctl(id, 0, GETVAL));
    struct sembuf dup[2] = { { 0, 2, 0 }, { 0, -1, 0 } };
    SHOW("semop same semaphore twice", semop(id, dup, 2));
    SHOW("after +2 -1", semctl(id, 0, GETVAL));
    struct timespec ts = { 0, 0 };
    struct sembuf dec = { 1, -1, 0 };
    SHOW("semtimedop 0s", semtimedop(id, &dec, 1, &ts));
    ts.tv_nsec = 10000000;
    SHOW("semtimedop 10ms", semtimedop(id, &dec, 1, &ts));
    ts.tv_nsec = 1000000000;
    SHOW("semtimedop nsec 1e9", semtimedop(id, &dec, 1, &ts));
    ts = (struct timespec){ -1, 0 };
    SHOW("semtimedop sec -1", semtimedop(id, &dec, 1, &ts));
    SHOW("semtimedop bad timeout", syscall(SYS_semtimedop, id, &dec, 1, BAD));
    ts = (struct timespec){ 0, 0 };
    dec.sem_op = 1;
    SHOW("semtimedop that need not wait", semtimedop(id, &dec, 1, &ts));
    SHOW("semtimedop nsops 0 bad timeout", syscall(SYS_semtimedop, id, &dec, 0, BAD));
    struct semid_ds ds;
    semctl(id, 0, IPC_STAT, (union semun){ .buf = &ds });
    printf("otime set after semop: %d\n", ds.sem_otime != 0);
    semctl(id, 0, IPC_RMID);
}

static void wakeups(void)
{
    int id = semget(IPC_PRIVATE, 2, 0600);
    struct sembuf a = { 0, -2, 0 }, b = { 0, -1, 0 }, c = { 0, -1, 0 };
    pid_t pa = blocker(id, &a, 1), pb = blocker(id, &b, 1);
    counts("two waiting", id, 0);
    sop(id, 0, 1, 0);
    /* A needs 2: it stays; B (behind it) takes the 1 */
    reap("B (-1) after +1", pb);
    counts("after +1", id, 0);
    pid_t pc = blocker(id, &c, 1);
    sop(id, 0, 2, 0);
    reap("A (-2) after +2", pa);
    counts("after +2", id, 0);
    sop(id, 0, 1, 0);
    reap("C (-1) after +1", pc);
    /* waits for zero */
    semctl(id, 1, SETVAL, 2);
    struct sembuf z = { 1, 0, 0 };
    pid_t pz = blocker(id, &z, 1), pz2 = blocker(id, &z, 1);
    counts("zero waiters", id, 1);
    sop(id, 1, -1, 0);
    counts("at 1", id, 1);
    sop(id, 1, -1, 0);
    reap("zero waiter 1", pz);
    reap("zero waiter 2", pz2);
    counts("at 0", id, 1);
    /* a complex operation: both semaphores at once */
    struct sembuf both[2] = { { 0, -1, 0 }, { 1, -1, 0 } };
    pid_t pcx = blocker(id, both, 2);
    struct sembuf single = { 1, -1, 0 };
    pid_t ps = blocker(id, &single, 1);
    counts("complex waiting, sem 0", id, 0);
    counts("complex waiting, sem 1", id, 1);
    sop(id, 1, 1, 0);
    /* the complex one is first in line but sem 0 is 0: the single one takes sem 1 */
    reap("single after sem 1 +1", ps);
    counts("complex still waiting", id, 0);
    unsigned short two[2] = { 1, 1 };
    semctl(id, 0, SETALL, (union semun){ .array = two });
    reap("complex after setall 1 1", pcx);
    counts("after complex, sem 0", id, 0);
    counts("after complex, sem 1", id, 1);
    /* getpid names the last one that changed it */
    semctl(id, 0, SETVAL, 0);
    pid_t pp = blocker(id, &b, 1);
    semctl(id, 0, SETVAL, 1);
    printf("getpid names the woken one: %d\n", semctl(id, 0, GETPID) == pp);
    reap("woken by setval", pp);
    semctl(id, 0, IPC_RMID);
}

static void on_usr1(int sig)
{
    (void)sig;
}

static void removal_and_signals(void)
{
    int id = semget(IPC_PRIVATE, 1, 0600);
    struct sembuf b = { 0, -1, 0 };
    pid_t p1 = blocker(id, &b, 1);
    struct sembuf z = { 0, 0, 0 };
    semctl(id, 0, SETVAL, 0);
    SHOW("rmid with waiters", semctl(id, 0, IPC_RMID));
    reap("waiter after rmid", p1);
    (void)z;
    id = semget(IPC_PRIVATE, 1, 0600);
    struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_RESTART };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    pid_t p2 = blocker(id, &b, 1);
    kill(p2, SIGUSR1);
    reap("semop and SIGUSR1 (SA_RESTART)", p2);
    struct timespec ts = { 100, 0 };
    int p[2];
    pipe(p);
    pid_t p3 = fork();
    if (p3 == 0) {
        write(p[1], "x", 1);
        int r = semtimedop(id, &b, 1, &ts);
        _exit(r ? 100 + errno : 0);
    }
    char c;
    read(p[0], &c, 1);
    sleeping(p3, p3);
    kill(p3, SIGUSR1);
    reap("semtimedop and SIGUSR1", p3);
    counts("no waiter left", id, 0);
    signal(SIGUSR1, SIG_DFL);
    semctl(id, 0, IPC_RMID);
}

static void undo(void)
{
    int id = semget(IPC_PRIVATE, 2, 0600);
    semctl(id, 1, SETVAL, 5);
    pid_t pid = fork();
    if (pid == 0) {
        sop(id, 0, 3, SEM_UNDO);
        sop(id, 1, -2, SEM_UNDO);
        sop(id, 0, 1, 0);
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    printf("after the child's exit: %ld %ld\n", sem_ctl(id, 0, GETVAL, 0), sem_ctl(id, 1, GETVAL, 0));
    printf("getpid names the child: %d\n", semctl(id, 1, GETPID) == pid);
    /* the undo at exit wakes a waiter */
    semctl(id, 0, SETVAL, 0);
    int p[2];
    pipe(p);
    pid = fork();
    if (pid == 0) {
        sop(id, 0, 2, SEM_UNDO);
        char c;
        read(p[0], &c, 1);
        _exit(0);
    }
    struct sembuf z = { 0, 0, 0 };
    while (semctl(id, 0, GETVAL) != 2)
        sched_yield();
    pid_t w = blocker(id, &z, 1);
    counts("zero waiter behind the undo", id, 0);
    write(p[1], "x", 1);
    waitpid(pid, &st, 0);
    reap("zero waiter after the undo", w);
    /* setval clears the adjustments */
    pid = fork();
    if (pid == 0) {
        sop(id, 0, 4, SEM_UNDO);
        semctl(id, 0, SETVAL, 1);
        _exit(0);
    }
    waitpid(pid, &st, 0);
    printf("setval cleared the adjustment: %ld\n", sem_ctl(id, 0, GETVAL, 0));
    /* removal drops the adjustments */
    pid = fork();
    if (pid == 0) {
        sop(id, 0, 1, SEM_UNDO);
        semctl(id, 0, IPC_RMID);
        int id2 = semget(IPC_PRIVATE, 1, 0600);
        _exit(id2 >= 0 ? 0 : 1);
    }
    waitpid(pid, &st, 0);
    show_status("child removed its set", st);
    SHOW("the removed set", semctl(id, 0, GETVAL));
}

static void sem_proc_listing(void)
{
    int id = semget(0x5e3a0002, 4, IPC_CREAT | 0640);
    FILE *f = fopen("/proc/sysvipc/sem", "r");
    if (!f) {
        printf("/proc/sysvipc/sem: %s\n", errname(errno));
    } else {
        char line[256];
        if (fgets(line, sizeof line, f))
            printf("header: %s", line);
        int found = 0;
        while (fgets(line, sizeof line, f)) {
            int key, sid, nsems;
            unsigned mode;
            if (sscanf(line, "%d %d %o %d", &key, &sid, &mode, &nsems) == 4 && sid == id)
                found = printf("row: key %x perms %o nsems %d\n", key, mode, nsems);
        }
        printf("row found: %d\n", found > 0);
        fclose(f);
    }
    semctl(id, 0, IPC_RMID);
}

/* ============================== shared memory ============================== */


static long shm_ctl(int id, int cmd, void *buf)
{
    return syscall(SYS_shmctl, id, cmd, buf);
}

static void stat_line(const char *what, int id)
{
    struct shmid_ds ds;
    if (shmctl(id, IPC_STAT, &ds)) {
        printf("%s: stat -1 %s\n", what, errname(errno));
        return;
    }
    printf("%s: size %zu nattch %lu mode %o key %s cpid ours %d lpid %s atime %d dtime %d\n",
           what, (size_t)ds.shm_segsz, (unsigned long)ds.shm_nattch, ds.shm_perm.mode,
           ds.shm_perm.__key ? "set" : "0", ds.shm_cpid == getpid(),
           ds.shm_lpid == 0 ? "0" : ds.shm_lpid == getpid() ? "ours" : "other",
           ds.shm_atime != 0, ds.shm_dtime != 0);
}

static void getting(void)
{
    key_t key = 0x5a3a0001;
    SHOW("shmget size 0", shmget(IPC_PRIVATE, 0, 0600));
    SHOW("shmget missing key", shmget(key, PAGE, 0600));
    SHOW("shmget huge", shmget(IPC_PRIVATE, (size_t)-1, 0600));
    SHOW("shmget SHM_HUGETLB", shmget(IPC_PRIVATE, 2 << 20, SHM_HUGETLB | 0600));
    int id = shmget(key, 5000, IPC_CREAT | 0640);
    printf("shmget create: %s\n", id >= 0 ? "ok" : errname(errno));
    printf("shmget again same id: %d\n", shmget(key, 5000, 0) == id);
    printf("shmget smaller same id: %d\n", shmget(key, 1, 0) == id);
    printf("shmget size 0 same id: %d\n", shmget(key, 0, 0) == id);
    SHOW("shmget larger", shmget(key, 5001, 0));
    SHOW("shmget excl", shmget(key, 5000, IPC_CREAT | IPC_EXCL | 0600));
    stat_line("fresh", id);
    int id2 = shmget(IPC_PRIVATE, 1, 0600);
    printf("next id - previous: %d\n", id2 - id);
    struct shmid_ds ds;
    ds.shm_perm.uid = geteuid();
    ds.shm_perm.gid = getegid();
    ds.shm_perm.mode = 0604;
    SHOW("set mode 604", shmctl(id, IPC_SET, &ds));
    stat_line("after set", id);
    ds.shm_perm.gid = (gid_t)-1;
    SHOW("set gid -1", shmctl(id, IPC_SET, &ds));
    SHOW("stat bad pointer", shm_ctl(id, IPC_STAT, BAD));
    SHOW("set bad pointer", shm_ctl(id, IPC_SET, BAD));
    SHOW("info bad pointer", shm_ctl(0, IPC_INFO, BAD));
    SHOW("shm_info bad pointer", shm_ctl(0, SHM_INFO, BAD));
    SHOW("bad command", shm_ctl(id, 99, NULL));
    SHOW("negative id", shm_ctl(-1, IPC_STAT, &ds));
    SHOW("negative command", shm_ctl(id, -1, &ds));
    struct shminfo si;
    int max = shmctl(0, IPC_INFO, (struct shmid_ds *)&si);
    printf("ipc_info: max index ok %d shmmax %lu shmmin %lu shmmni %lu shmseg %lu shmall %lu\n",
           max >= id2 % 32768, (unsigned long)si.shmmax, (unsigned long)si.shmmin,
           (unsigned long)si.shmmni, (unsigned long)si.shmseg, (unsigned long)si.shmall);
    struct shm_info in;
    shmctl(0, SHM_INFO, (struct shmid_ds *)&in);
    int used = in.used_ids;
    unsigned long tot = in.shm_tot, rss = in.shm_rss;
    int id3 = shmget(IPC_PRIVATE, 3 * PAGE, 0600);
    char *p = shmat(id3, NULL, 0);
    p[0] = 1;
    p[2 * PAGE] = 1;
    shmctl(0, SHM_INFO, (struct shmid_ds *)&in);
    printf("shm_info: ids +%d pages +%lu resident +%lu\n", in.used_ids - used,
           in.shm_tot - tot, in.shm_rss - rss);
    shmdt(p);
    printf("shm_stat by index gives the id: %d\n", shmctl(id3 % 32768, SHM_STAT, &ds) == id3);
    printf("shm_stat_any by index gives the id: %d\n",
           shmctl(id3 % 32768, SHM_STAT_ANY, &ds) == id3);
    SHOW("shm_stat free index", shmctl(32767, SHM_STAT, &ds));
    SHOW("lock", shmctl(id, SHM_LOCK, NULL));
    shmctl(id, IPC_STAT, &ds);
    printf("locked flag: %o\n", ds.shm_perm.mode & 02000);
    SHOW("unlock", shmctl(id, SHM_UNLOCK, NULL));
    SHOW("lock missing id", shmctl(id3 + 1, SHM_LOCK, NULL));
    shmctl(id, IPC_RMID, NULL);
    shmctl(id2, IPC_RMID, NULL);
    shmctl(id3, IPC_RMID, NULL);
    SHOW("stat removed", shmctl(id, IPC_STAT, &ds));
}

static void maps_name(void *at)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        unsigned long lo;
        char *name = strchr(line, '/');
        if (sscanf(line, "%lx-", &lo) == 1 && lo == (unsigned long)at)
            printf("maps: %c%c%c%c %s", line[strcspn(line, " ") + 1],
                   line[strcspn(line, " ") + 2], line[strcspn(line, " ") + 3],
                   line[strcspn(line, " ") + 4], name ? name : "(no name)\n");
    }
    if (f)
        fclose(f);
}

static void attach(void)
{
    int id = shmget(0x5a3a0002, 2 * PAGE, IPC_CREAT | 0600);
    char *a = shmat(id, NULL, 0);
    printf("shmat: %s aligned %d\n", a == (void *)-1 ? errname(errno) : "ok",
           ((uintptr_t)a & (PAGE - 1)) == 0);
    stat_line("attached", id);
    maps_name(a);
    strcpy(a, "hello");
    char *b = shmat(id, NULL, SHM_RDONLY);
    printf("second attach sees: %s, differs %d\n", b, a != b);
    stat_line("attached twice", id);
    maps_name(b);
    /* SHM_RDONLY: a write is SIGSEGV */
    pid_t pid = fork();
    if (pid == 0) {
        b[0] = 'x';
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    show_status("write to a read-only attach", st);
    stat_line("after the child", id);
    SHOW("shmdt b", shmdt(b));
    SHOW("shmdt b again", shmdt(b));
    SHOW("shmdt unaligned", shmdt(a + 1));
    SHOW("shmdt second page", shmdt(a + PAGE));
    SHOW("shmdt not attached", shmdt((void *)&st));
    SHOW("shmdt a", shmdt(a));
    stat_line("detached", id);
    /* addresses */
    errno = 0;
    char *c = shmat(id, a + 1, 0);
    printf("shmat unaligned: %s\n", c == (void *)-1 ? errname(errno) : "ok");
    c = shmat(id, a + 1, SHM_RND);
    printf("shmat SHM_RND rounds down: %d\n", c == a);
    c[0] = 'h';
    char *d = shmat(id, a, 0);
    printf("shmat over an attach: %s\n", d == (void *)-1 ? errname(errno) : "ok");
    d = shmat(id, NULL, SHM_REMAP);
    printf("shmat SHM_REMAP without address: %s\n", d == (void *)-1 ? errname(errno) : "ok");
    d = shmat(id, (void *)1, SHM_RND | SHM_REMAP);
    printf("shmat SHM_RND|SHM_REMAP below a page: %s\n", d == (void *)-1 ? errname(errno) : "ok");
    d = shmat(id, a, SHM_REMAP);
    printf("shmat SHM_REMAP over it: %s same %d\n", d == (void *)-1 ? errname(errno) : "ok",
           d == a);
    stat_line("remapped", id);
    SHOW("shmdt remapped", shmdt(a));
    stat_line("after shmdt", id);
    d = shmat(id + 1, NULL, 0);
    printf("shmat wrong id: %s\n", d == (void *)-1 ? errname(errno) : "ok");
    d = shmat(-1, NULL, 0);
    printf("shmat negative id: %s\n", d == (void *)-1 ? errname(errno) : "ok");
    /* a split attachment: shmdt takes every part */
    a = shmat(id, NULL, 0);
    SHOW("mprotect second page", mprotect(a + PAGE, PAGE, PROT_READ));
    stat_line("split in two", id);
    SHOW("shmdt split", shmdt(a));
    stat_line("after shmdt split", id);
    /* a mapping placed over part of it: munmap detaches that part only */
    a = shmat(id, NULL, 0);
    SHOW("munmap first page", munmap(a, PAGE));
    stat_line("first page unmapped", id);
    SHOW("shmdt at the start", shmdt(a));
    SHOW("shmdt second page (the rest)", shmdt(a + PAGE));
    stat_line("after both", id);
    shmctl(id, IPC_RMID, NULL);
}

static void shared_with_children(void)
{
    int id = shmget(IPC_PRIVATE, PAGE, 0600);
    volatile int *v = shmat(id, NULL, 0);
    v[0] = 1;
    int go[2], done[2];
    pipe(go);
    pipe(done);
    pid_t pid = fork();
    if (pid == 0) {
        char c;
        read(go[0], &c, 1);
        v[1] = v[0] + 41;           /* the parent wrote v[0] after the fork */
        write(done[1], "x", 1);
        read(go[0], &c, 1);
        _exit(0);
    }
    v[0] = 2;
    stat_line("inherited by fork", id);
    write(go[1], "x", 1);
    char c;
    read(done[0], &c, 1);
    printf("child wrote: %d\n", v[1]);
    write(go[1], "x", 1);
    int st;
    waitpid(pid, &st, 0);
    struct shmid_ds ds;
    shmctl(id, IPC_STAT, &ds);
    printf("after the child's exit: nattch %lu lpid is the child %d\n",
           (unsigned long)ds.shm_nattch, ds.shm_lpid == pid);
    /* a child that attaches by id itself */
    pid = fork();
    if (pid == 0) {
        volatile int *w = shmat(id, NULL, 0);
        w[2] = 7;
        shmdt((void *)w);
        _exit(0);
    }
    waitpid(pid, &st, 0);
    printf("child attached and wrote: %d\n", v[2]);
    shmdt((void *)v);
    shmctl(id, IPC_RMID, NULL);
}

static void removal(void)
{
    key_t key = 0x5a3a0003;
    int id = shmget(key, PAGE, IPC_CREAT | 0600);
    char *a = shmat(id, NULL, 0);
    strcpy(a, "kept");
    SHOW("rmid while attached", shmctl(id, IPC_RMID, NULL));
    stat_line("removed, attached", id);
    SHOW("shmget its key", shmget(key, PAGE, 0));
    int id2 = shmget(key, PAGE, IPC_CREAT | 0600);
    printf("a new segment under the key: %d\n", id2 >= 0 && id2 != id);
    char *b = shmat(id, NULL, 0);
    printf("attach by id after rmid: %s sees %s\n", b == (void *)-1 ? errname(errno) : "ok",
           b == (void *)-1 ? "-" : b);
    maps_name(a);
    pid_t pid = fork();
    if (pid == 0) {
        shmdt(a);
        shmdt(b);
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    stat_line("child detached its copies", id);
    SHOW("rmid again", shmctl(id, IPC_RMID, NULL));
    SHOW("shmdt a", shmdt(a));
    stat_line("one left", id);
    SHOW("shmdt b", shmdt(b));
    stat_line("none left", id);
    shmctl(id2, IPC_RMID, NULL);
    /* exit detaches: the last one destroys */
    id = shmget(IPC_PRIVATE, PAGE, 0600);
    pid = fork();
    if (pid == 0) {
        shmat(id, NULL, 0);
        shmctl(id, IPC_RMID, NULL);
        _exit(0);
    }
    waitpid(pid, &st, 0);
    stat_line("removed by a child that exited", id);
}

static void shm_proc_listing(void)
{
    int id = shmget(0x5a3a0004, 3000, IPC_CREAT | 0640);
    FILE *f = fopen("/proc/sysvipc/shm", "r");
    if (!f) {
        printf("/proc/sysvipc/shm: %s\n", errname(errno));
    } else {
        char line[512];
        if (fgets(line, sizeof line, f))
            printf("header: %s", line);
        int found = 0;
        while (fgets(line, sizeof line, f)) {
            int key, sid;
            unsigned mode;
            unsigned long size, nattch;
            int cpid, lpid;
            if (sscanf(line, "%d %d %o %lu %d %d %lu", &key, &sid, &mode, &size, &cpid, &lpid,
                       &nattch) == 7 && sid == id)
                found = printf("row: key %x perms %o size %lu nattch %lu\n", key, mode, size,
                               nattch);
        }
        printf("row found: %d\n", found > 0);
        fclose(f);
    }
    shmctl(id, IPC_RMID, NULL);
}

/* ============================== message queues ============================== */

#ifndef MSG_COPY
#define MSG_COPY 040000
#endif


struct m {
    long type;
    char text[64];
};

static long snd(int q, long type, const char *text, int flags)
{
    struct m b = { type, "" };
    strncpy(b.text, text, sizeof b.text - 1);
    return msgsnd(q, &b, strlen(text) + 1, flags);
}

/* Receive and print: "what: type T text" or the error. */
static void rcv(const char *what, int q, size_t size, long type, int flags)
{
    struct m b = { 0, "" };
    errno = 0;
    long n = msgrcv(q, &b, size, type, flags);
    if (n < 0)
        printf("%s: -1 %s\n", what, errname(errno));
    else
        printf("%s: %ld bytes type %ld text %.*s\n", what, n, b.type, (int)n, b.text);
}

static void qstat(const char *what, int q)
{
    struct msqid_ds ds;
    if (msgctl(q, IPC_STAT, &ds)) {
        printf("%s: stat -1 %s\n", what, errname(errno));
        return;
    }
    printf("%s: qnum %lu cbytes %lu qbytes %lu mode %o lspid %s lrpid %s stime %d rtime %d\n",
           what, (unsigned long)ds.msg_qnum, (unsigned long)ds.__msg_cbytes,
           (unsigned long)ds.msg_qbytes, ds.msg_perm.mode,
           ds.msg_lspid == 0 ? "0" : ds.msg_lspid == getpid() ? "ours" : "other",
           ds.msg_lrpid == 0 ? "0" : ds.msg_lrpid == getpid() ? "ours" : "other",
           ds.msg_stime != 0, ds.msg_rtime != 0);
}

/* A child that receives (or sends) and reports "NAME: result" through its pipe. */
static pid_t receiver(int q, const char *name, size_t size, long type, int flags)
{
    int out;
    pid_t pid = fork_blocking(&out);
    if (pid == 0) {
        struct m b = { 0, "" };
        long n = msgrcv(q, &b, size, type, flags);
        char line[128];
        int len = n < 0 ? snprintf(line, sizeof line, "%s: -1 %s\n", name, errname(errno))
                        : snprintf(line, sizeof line, "%s: type %ld text %.*s\n", name, b.type,
                                   (int)n, b.text);
        write(out, line, (size_t)len);
        _exit(0);
    }
    return pid;
}

static pid_t sender(int q, const char *name, long type, const char *text)
{
    int out;
    pid_t pid = fork_blocking(&out);
    if (pid == 0) {
        long r = snd(q, type, text, 0);
        char line[128];
        int len = snprintf(line, sizeof line, "%s: %s\n", name, r ? errname(errno) : "sent");
        write(out, line, (size_t)len);
        _exit(0);
    }
    return pid;
}

/* The report of child pid (read once it has ended, so the order is the parent's). */
static void report(pid_t pid)
{
    waitpid(pid, NULL, 0);
    char line[128];
    int in = result_fd[pid % 32768];
    int n = (int)read(in, line, sizeof line);
    close(in);
    if (n > 0)
        printf("%.*s", n, line);
}

static void ids_and_errors(void)
{
    key_t key = 0x3a3a0001;
    SHOW("msgget missing key", msgget(key, 0600));
    int q = msgget(key, IPC_CREAT | 0600);
    printf("msgget create: %s\n", q >= 0 ? "ok" : errname(errno));
    printf("msgget again same id: %d\n", msgget(key, 0) == q);
    SHOW("msgget excl", msgget(key, IPC_CREAT | IPC_EXCL | 0600));
    int q2 = msgget(IPC_PRIVATE, 0600);
    printf("next id - previous: %d\n", q2 - q);
    qstat("fresh", q);
    SHOW("msgsnd type 0", snd(q, 0, "x", 0));
    SHOW("msgsnd type -1", snd(q, -1, "x", 0));
    struct m b = { 1, "" };
    SHOW("msgsnd size 8193", msgsnd(q, &b, 8193, 0));
    SHOW("msgsnd size -1", msgsnd(q, &b, (size_t)-1, 0));
    SHOW("msgsnd negative id", msgsnd(-1, &b, 1, 0));
    SHOW("msgsnd wrong id", msgsnd(q2 + 1, &b, 1, 0));
    SHOW("msgsnd bad pointer", syscall(SYS_msgsnd, q, BAD, 1, 0));
    SHOW("msgsnd size 0", msgsnd(q, &b, 0, 0));
    rcv("msgrcv empty text", q, 8, 0, 0);
    SHOW("msgrcv negative size", syscall(SYS_msgrcv, q, &b, -1L, 0, 0));
    SHOW("msgrcv negative id", syscall(SYS_msgrcv, -1, &b, 8, 0, 0));
    rcv("msgrcv nowait empty", q, 8, 0, IPC_NOWAIT);
    snd(q, 1, "hello", 0);
    SHOW("msgrcv bad pointer", syscall(SYS_msgrcv, q, BAD, 8, 0, IPC_NOWAIT));
    qstat("message lost to EFAULT", q);
    snd(q, 1, "hello", 0);
    rcv("msgrcv 3 bytes", q, 3, 0, IPC_NOWAIT);
    rcv("msgrcv 3 bytes MSG_NOERROR", q, 3, 0, IPC_NOWAIT | MSG_NOERROR);
    qstat("after", q);
    struct msqid_ds ds;
    msgctl(q, IPC_STAT, &ds);
    ds.msg_perm.mode = 0640;
    ds.msg_qbytes = 100;
    SHOW("set qbytes 100 mode 640", msgctl(q, IPC_SET, &ds));
    qstat("after set", q);
    ds.msg_qbytes = 16385;
    SHOW("set qbytes above msgmnb (root)", msgctl(q, IPC_SET, &ds));
    ds.msg_perm.uid = (uid_t)-1;
    SHOW("set uid -1", msgctl(q, IPC_SET, &ds));
    SHOW("stat bad pointer", syscall(SYS_msgctl, q, IPC_STAT, BAD));
    SHOW("set bad pointer", syscall(SYS_msgctl, q, IPC_SET, BAD));
    SHOW("info bad pointer", syscall(SYS_msgctl, 0, IPC_INFO, BAD));
    SHOW("bad command", msgctl(q, 99, &ds));
    SHOW("negative command", syscall(SYS_msgctl, q, -1, &ds));
    SHOW("negative id", msgctl(-1, IPC_STAT, &ds));
    struct msginfo mi;
    int max = msgctl(0, IPC_INFO, (struct msqid_ds *)&mi);
    printf("ipc_info: max index ok %d msgpool %d msgmap %d msgmax %d msgmnb %d msgmni %d "
           "msgssz %d msgtql %d msgseg %u\n", max >= q2 % 32768, mi.msgpool, mi.msgmap,
           mi.msgmax, mi.msgmnb, mi.msgmni, mi.msgssz, mi.msgtql, mi.msgseg);
    msgctl(0, MSG_INFO, (struct msqid_ds *)&mi);
    int queues = mi.msgpool, hdrs = mi.msgmap, bytes = mi.msgtql;
    snd(q2, 5, "abcd", 0);
    msgctl(0, MSG_INFO, (struct msqid_ds *)&mi);
    printf("msg_info: queues +%d messages +%d bytes +%d\n", mi.msgpool - queues,
           mi.msgmap - hdrs, mi.msgtql - bytes);
    printf("msg_stat by index gives the id: %d\n", msgctl(q2 % 32768, MSG_STAT, &ds) == q2);
    printf("msg_stat_any by index gives the id: %d\n",
           msgctl(q2 % 32768, MSG_STAT_ANY, &ds) == q2);
    SHOW("msg_stat free index", msgctl(32767, MSG_STAT, &ds));
    SHOW("rmid", msgctl(q, IPC_RMID, NULL));
    SHOW("rmid again", msgctl(q, IPC_RMID, NULL));
    rcv("msgrcv removed", q, 8, 0, IPC_NOWAIT);
    msgctl(q2, IPC_RMID, NULL);
}

static void selection(void)
{
    int q = msgget(IPC_PRIVATE, 0600);
    snd(q, 3, "three", 0);
    snd(q, 1, "one", 0);
    snd(q, 2, "two", 0);
    snd(q, 5, "five", 0);
    snd(q, 1, "one-b", 0);
    snd(q, 4, "four", 0);
    rcv("MSG_COPY 0", q, 64, 0, IPC_NOWAIT | MSG_COPY);
    rcv("MSG_COPY 4", q, 64, 4, IPC_NOWAIT | MSG_COPY);
    rcv("MSG_COPY 6", q, 64, 6, IPC_NOWAIT | MSG_COPY);
    rcv("MSG_COPY without IPC_NOWAIT", q, 64, 0, MSG_COPY);
    rcv("MSG_COPY with MSG_EXCEPT", q, 64, 0, MSG_COPY | MSG_EXCEPT | IPC_NOWAIT);
    rcv("MSG_COPY small", q, 2, 0, IPC_NOWAIT | MSG_COPY);
    rcv("MSG_COPY small MSG_NOERROR", q, 2, 0, IPC_NOWAIT | MSG_COPY | MSG_NOERROR);
    qstat("copies leave the queue", q);
    rcv("type 2", q, 64, 2, IPC_NOWAIT);
    rcv("type 9", q, 64, 9, IPC_NOWAIT);
    rcv("type -4", q, 64, -4, IPC_NOWAIT);
    rcv("type -4 again", q, 64, -4, IPC_NOWAIT);
    rcv("except 3", q, 64, 3, IPC_NOWAIT | MSG_EXCEPT);
    rcv("type -1", q, 64, -1, IPC_NOWAIT);
    rcv("type -LONG_MIN", q, 64, (long)(-9223372036854775807L - 1), IPC_NOWAIT);
    rcv("any", q, 64, 0, IPC_NOWAIT);
    rcv("any", q, 64, 0, IPC_NOWAIT);
    qstat("empty", q);
    msgctl(q, IPC_RMID, NULL);
}

static void blocking(void)
{
    int q = msgget(IPC_PRIVATE, 0600);
    /* receivers in line: each message goes to the first that takes its type */
    pid_t r1 = receiver(q, "r1 (type 2)", 64, 2, 0);
    pid_t r2 = receiver(q, "r2 (any)", 64, 0, 0);
    pid_t r3 = receiver(q, "r3 (any, 2 bytes)", 2, 0, 0);
    pid_t r4 = receiver(q, "r4 (type <= 3)", 64, -3, 0);
    snd(q, 1, "first", 0);
    report(r2);
    snd(q, 7, "second", 0);
    report(r3);             /* first to take any type but too small: E2BIG */
    qstat("after second", q);
    snd(q, 2, "third", 0);
    report(r1);
    snd(q, 3, "fourth", 0);
    report(r4);
    rcv("left in the queue", q, 64, 0, IPC_NOWAIT);
    /* senders on a full queue */
    struct msqid_ds ds;
    msgctl(q, IPC_STAT, &ds);
    ds.msg_qbytes = 10;
    msgctl(q, IPC_SET, &ds);
    snd(q, 1, "12345678", 0);
    SHOW("full, IPC_NOWAIT", snd(q, 1, "abc", IPC_NOWAIT));
    pid_t s1 = sender(q, "s1", 1, "abc");
    pid_t s2 = sender(q, "s2", 1, "x");
    rcv("make room", q, 64, 0, IPC_NOWAIT);
    report(s1);
    report(s2);
    qstat("both sent", q);
    rcv("then", q, 64, 0, IPC_NOWAIT);
    rcv("then", q, 64, 0, IPC_NOWAIT);
    /* IPC_SET with more room wakes a sender */
    snd(q, 1, "12345678", 0);
    pid_t s3 = sender(q, "s3", 1, "grown");
    ds.msg_qbytes = 100;
    msgctl(q, IPC_SET, &ds);
    report(s3);
    qstat("after growing", q);
    /* removal ends both kinds of waiter */
    ds.msg_qbytes = 1;
    msgctl(q, IPC_SET, &ds);
    pid_t s4 = sender(q, "s4 at removal", 1, "y");
    int q2 = msgget(IPC_PRIVATE, 0600);
    pid_t r5 = receiver(q2, "r5 at removal", 64, 0, 0);
    msgctl(q, IPC_RMID, NULL);
    msgctl(q2, IPC_RMID, NULL);
    report(s4);
    report(r5);
    /* signals: EINTR even with SA_RESTART (no restart after a handler) */
    struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_RESTART };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    q = msgget(IPC_PRIVATE, 0600);
    pid_t r6 = receiver(q, "r6 and SIGUSR1", 64, 0, 0);
    kill(r6, SIGUSR1);
    report(r6);
    msgctl(q, IPC_STAT, &ds);
    ds.msg_qbytes = 1;
    msgctl(q, IPC_SET, &ds);
    snd(q, 1, "", 0);
    pid_t s5 = sender(q, "s5 and SIGUSR1", 1, "z");
    kill(s5, SIGUSR1);
    report(s5);
    /* a stop and SIGCONT without a handler: the call goes on */
    rcv("empty it", q, 64, 0, IPC_NOWAIT);
    ds.msg_qbytes = 100;
    msgctl(q, IPC_SET, &ds);
    pid_t r7 = receiver(q, "r7 after SIGSTOP, SIGCONT", 64, 0, 0);
    kill(r7, SIGSTOP);
    int st;
    waitpid(r7, &st, WUNTRACED);
    kill(r7, SIGCONT);
    sleeping(r7, r7);
    snd(q, 4, "late", 0);
    report(r7);
    signal(SIGUSR1, SIG_DFL);
    msgctl(q, IPC_RMID, NULL);
}

static void msg_proc_listing(void)
{
    int q = msgget(0x3a3a0002, IPC_CREAT | 0640);
    snd(q, 1, "abc", 0);
    FILE *f = fopen("/proc/sysvipc/msg", "r");
    if (!f) {
        printf("/proc/sysvipc/msg: %s\n", errname(errno));
    } else {
        char line[512];
        if (fgets(line, sizeof line, f))
            printf("header: %s", line);
        int found = 0;
        while (fgets(line, sizeof line, f)) {
            int key, id;
            unsigned mode;
            unsigned long cbytes, qnum;
            if (sscanf(line, "%d %d %o %lu %lu", &key, &id, &mode, &cbytes, &qnum) == 5 &&
                id == q)
                found = printf("row: key %x perms %o cbytes %lu qnum %lu\n", key, mode, cbytes,
                               qnum);
        }
        printf("row found: %d\n", found > 0);
        fclose(f);
    }
    msgctl(q, IPC_RMID, NULL);
}

/* /proc/sys/kernel's IPC limits: read, a write seen by a read and by the limit it sets, a
 * bad write. */
static void show_sysctl(const char *name)
{
    char path[64], buf[128];
    snprintf(path, sizeof path, "/proc/sys/kernel/%s", name);
    FILE *f = fopen(path, "r");
    if (!f) {
        printf("%s: %s\n", name, errname(errno));
        return;
    }
    if (fgets(buf, sizeof buf, f))
        printf("%s: %s", name, buf);
    fclose(f);
}

static int write_sysctl(const char *name, const char *text)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/sys/kernel/%s", name);
    int fd = open(path, O_WRONLY);
    if (fd < 0)
        return -errno;
    int r = write(fd, text, strlen(text)) < 0 ? -errno : 0;
    close(fd);
    return r;
}

static void ipc_sysctls(void)
{
    const char *names[] = { "sem", "shmmax", "shmall", "shmmni", "msgmax", "msgmnb", "msgmni" };
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
        show_sysctl(names[i]);
    printf("write msgmax 100: %d\n", write_sysctl("msgmax", "100\n"));
    show_sysctl("msgmax");
    int q = msgget(IPC_PRIVATE, 0600);
    struct { long type; char text[200]; } m = { 1, "" };
    printf("msgsnd 150 bytes over msgmax: %s\n", msgsnd(q, &m, 150, IPC_NOWAIT) ? errname(errno) : "ok");
    msgctl(q, IPC_RMID, NULL);
    printf("write msgmax -1: %d\n", write_sysctl("msgmax", "-1\n"));
    printf("write msgmax x: %d\n", write_sysctl("msgmax", "x\n"));
    printf("write msgmax back: %d\n", write_sysctl("msgmax", "8192\n"));
    show_sysctl("msgmax");
}

int main(void)
{
    threads_init();
    ipc_sysctls();
    keys_and_ids();
    values();
    op_errors();
    wakeups();
    removal_and_signals();
    undo();
    sem_proc_listing();
    getting();
    attach();
    shared_with_children();
    removal();
    shm_proc_listing();
    ids_and_errors();
    selection();
    blocking();
    msg_proc_listing();
    return 0;
}
