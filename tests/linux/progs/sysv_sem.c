/* System V semaphores (docs/linux/sysvipc.md): semget's keys and errors, ids relative to each
 * other, every semctl command and error, semop's errors, blocked operations woken in Linux's
 * order (FIFO per semaphore, a decrement that cannot go on does not hold up a later one,
 * waits for zero, a complex operation), EIDRM, EINTR even with SA_RESTART, semtimedop's
 * timeout, SEM_UNDO at exit.  Processes are ordered through pipes and /proc's sleeping
 * state, never by time.  Ids are printed only relative to each other. */
#include <signal.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <sys/syscall.h>
#include <time.h>
#include "threads.h"

union semun {
    int val;
    struct semid_ds *buf;
    unsigned short *array;
    struct seminfo *__buf;
};

#define BAD ((void *)16)

static long sctl(int id, int num, int cmd, unsigned long arg)
{
    return syscall(SYS_semctl, id, num, cmd, arg);
}

static long sop(int id, short num, short op, short flg)
{
    struct sembuf b = { (unsigned short)num, op, flg };
    return semop(id, &b, 1);
}

/* A child that runs ops (after telling the parent it is about to) and exits with the
 * result: 0, or the errno + 100. */
static pid_t blocker(int id, struct sembuf *ops, int n)
{
    int p[2];
    if (pipe(p))
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        write(p[1], "x", 1);
        int r = semop(id, ops, (size_t)n);
        _exit(r ? 100 + errno : 0);
    }
    close(p[1]);
    char c;
    read(p[0], &c, 1);
    close(p[0]);
    sleeping(pid, pid);
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
    printf("%s: val %ld ncnt %ld zcnt %ld\n", what, sctl(id, num, GETVAL, 0),
           sctl(id, num, GETNCNT, 0), sctl(id, num, GETZCNT, 0));
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
    SHOW("stat bad pointer", sctl(a, 0, IPC_STAT, (unsigned long)BAD));
    SHOW("set bad pointer", sctl(a, 0, IPC_SET, (unsigned long)BAD));
    SHOW("info bad pointer", sctl(0, 0, IPC_INFO, (unsigned long)BAD));
    SHOW("bad command", sctl(a, 0, 99, 0));
    SHOW("negative id", sctl(-1, 0, GETVAL, 0));
    SHOW("cmd with IPC_64 bit", sctl(a, 0, GETVAL | 0x100, 0));
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
    SHOW("getall bad pointer", sctl(id, 0, GETALL, (unsigned long)BAD));
    SHOW("setall bad pointer", sctl(id, 0, SETALL, (unsigned long)BAD));
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
    printf("after the child's exit: %ld %ld\n", sctl(id, 0, GETVAL, 0), sctl(id, 1, GETVAL, 0));
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
    printf("setval cleared the adjustment: %ld\n", sctl(id, 0, GETVAL, 0));
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

static void proc_listing(void)
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

int main(void)
{
    threads_init();
    keys_and_ids();
    values();
    op_errors();
    wakeups();
    removal_and_signals();
    undo();
    proc_listing();
    return 0;
}
