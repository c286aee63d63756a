/* Per-thread attributes (issue 13 item 8): sched_getaffinity/sched_setaffinity of the process
 * and of single threads (by tid), and their errors; prctl(PR_SET_NAME) per thread as
 * /proc/self/task/TID/comm and PR_GET_NAME show it, pthread_setname_np; membarrier's query and
 * commands.  What is printed does not depend on the number of CPUs: counts are compared, not
 * printed. */
#include <sys/prctl.h>
#include "threads.h"

enum {                                   /* linux/membarrier.h */
    MB_QUERY = 0, MB_GLOBAL = 1, MB_GLOBAL_EXPEDITED = 2, MB_REGISTER_GLOBAL_EXPEDITED = 4,
    MB_PRIVATE_EXPEDITED = 8, MB_REGISTER_PRIVATE_EXPEDITED = 16,
    MB_PRIVATE_EXPEDITED_SYNC_CORE = 32, MB_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE = 64,
    MB_PRIVATE_EXPEDITED_RSEQ = 128, MB_REGISTER_PRIVATE_EXPEDITED_RSEQ = 256,
};

static long membarrier(int cmd, unsigned flags, int cpu)
{
    return syscall(SYS_membarrier, cmd, flags, cpu);
}

static void read_comm(pid_t tid, char *out, size_t n)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/comm", (int)tid);
    int fd = open(path, O_RDONLY);
    ssize_t r = fd < 0 ? -1 : read(fd, out, n - 1);
    if (fd >= 0)
        close(fd);
    out[r > 0 ? r : 0] = 0;
    char *nl = strchr(out, '\n');
    if (nl)
        *nl = 0;
    if (r < 0)
        snprintf(out, n, "(%s)", errname(errno));
}

static volatile pid_t worker_tid;
static volatile int worker_step, main_step;
static char worker_name[32];
static int worker_cpus_after, worker_setaff;

static void *worker(void *arg)
{
    (void)arg;
    worker_tid = tid_of_self();
    prctl(PR_SET_NAME, "worker-thread-with-a-long-name");
    prctl(PR_GET_NAME, worker_name);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    worker_setaff = sched_setaffinity(0, sizeof one, &one) ? errno : 0;   /* this thread only */
    cpu_set_t now;
    sched_getaffinity(0, sizeof now, &now);
    worker_cpus_after = CPU_COUNT(&now);
    worker_step = 1;
    while (main_step != 1)
        sched_yield();
    return NULL;
}

static void affinity(void)
{
    cpu_set_t all, s;
    CPU_ZERO(&all);                          /* the call fills only what it returns */
    long r = syscall(SYS_sched_getaffinity, 0, sizeof all, &all);
    printf("getaffinity raw: returned a multiple of 8 %d\n", r > 0 && r % 8 == 0);
    int n = CPU_COUNT(&all);
    printf("getaffinity: at least one CPU %d, CPU 0 in it %d\n", n >= 1,
           !!CPU_ISSET(0, &all));
    printf("getaffinity size 4: %s\n",
           errname(syscall(SYS_sched_getaffinity, 0, 4, &s) < 0 ? errno : 0));
    printf("getaffinity size 12: %s\n",
           errname(syscall(SYS_sched_getaffinity, 0, 12, &s) < 0 ? errno : 0));
    printf("getaffinity NULL: %s\n",
           errname(syscall(SYS_sched_getaffinity, 0, sizeof s, NULL) < 0 ? errno : 0));
    printf("getaffinity pid 999999: %s\n",
           errname(sched_getaffinity(999999, sizeof s, &s) < 0 ? errno : 0));
    CPU_ZERO(&s);
    printf("setaffinity empty: %s\n", errname(sched_setaffinity(0, sizeof s, &s) ? errno : 0));
    CPU_ZERO(&s);
    CPU_SET(1000, &s);
    printf("setaffinity only CPU 1000: %s\n",
           errname(sched_setaffinity(0, sizeof s, &s) ? errno : 0));
    printf("setaffinity the same set: %s\n",
           errname(sched_setaffinity(0, sizeof all, &all) ? errno : 0));

    pthread_t t;
    start_thread("affinity", &t, worker, NULL);
    while (!worker_step)
        sched_yield();
    cpu_set_t mine, its;
    sched_getaffinity(0, sizeof mine, &mine);
    sched_getaffinity(worker_tid, sizeof its, &its);
    printf("a thread set its own affinity to CPU 0: %s, it sees 1 CPU %d, main's unchanged %d, "
           "main reads the thread's by tid: 1 CPU %d\n", errname(worker_setaff),
           worker_cpus_after == 1, CPU_EQUAL(&mine, &all), CPU_COUNT(&its) == 1);
    printf("setaffinity of the thread by tid: %s",
           errname(sched_setaffinity(worker_tid, sizeof all, &all) ? errno : 0));
    sched_getaffinity(worker_tid, sizeof its, &its);
    printf(", it has all again %d\n", CPU_EQUAL(&its, &all));

    char comm[64], main_comm[64], got[32];
    read_comm(worker_tid, comm, sizeof comm);
    read_comm(getpid(), main_comm, sizeof main_comm);
    prctl(PR_GET_NAME, got);
    printf("names: the thread's PR_GET_NAME %s, its comm %s, main's comm %s, main's "
           "PR_GET_NAME %s\n", worker_name, comm, main_comm, got);
    printf("pthread_setname_np 16 bytes: %s", errname(pthread_setname_np(t,
                                                       "sixteen-bytes-xx")));
    printf(", 15: %s", errname(pthread_setname_np(t, "renamed-by-main")));
    read_comm(worker_tid, comm, sizeof comm);
    char np[32] = "";
    pthread_getname_np(t, np, sizeof np);
    printf(", comm %s, getname %s\n", comm, np);
    prctl(PR_SET_NAME, "main-renamed");
    read_comm(getpid(), main_comm, sizeof main_comm);
    read_comm(worker_tid, comm, sizeof comm);
    printf("main renamed: its comm %s, the thread's still %s\n", main_comm, comm);
    main_step = 1;
    join_thread("affinity", t, NULL);
}

static void barriers(void)
{
    long q = membarrier(MB_QUERY, 0, 0);
    printf("membarrier query: %ld\n", q);
    printf("membarrier query, flags 1: %s\n", errname(membarrier(MB_QUERY, 1, 0) ? errno : 0));
    printf("membarrier cmd 3: %s\n", errname(membarrier(3, 0, 0) ? errno : 0));
    printf("membarrier cmd 1024: %s\n", errname(membarrier(1024, 0, 0) ? errno : 0));
    pid_t pid = fork();
    if (pid == 0) {
        /* a fresh process: nothing registered yet */
        printf("child: private expedited unregistered: %s\n",
               errname(membarrier(MB_PRIVATE_EXPEDITED, 0, 0) ? errno : 0));
        printf("child: global expedited unregistered: %s\n",
               errname(membarrier(MB_GLOBAL_EXPEDITED, 0, 0) ? errno : 0));
        _exit(0);
    }
    waitpid(pid, NULL, 0);
    static const struct { int cmd; const char *name; } cmds[] = {
        { MB_GLOBAL, "global" },
        { MB_REGISTER_GLOBAL_EXPEDITED, "register global expedited" },
        { MB_GLOBAL_EXPEDITED, "global expedited" },
        { MB_REGISTER_PRIVATE_EXPEDITED, "register private expedited" },
        { MB_PRIVATE_EXPEDITED, "private expedited" },
        { MB_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE, "register sync core" },
        { MB_PRIVATE_EXPEDITED_SYNC_CORE, "sync core" },
        { MB_REGISTER_PRIVATE_EXPEDITED_RSEQ, "register rseq" },
    };
    for (unsigned i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        printf("membarrier %s: %s\n", cmds[i].name,
               errname(membarrier(cmds[i].cmd, 0, 0) ? errno : 0));
    /* with a second thread alive: the expedited command must reach it */
    pthread_t t;
    worker_step = 0, main_step = 0;
    start_thread("membarrier", &t, worker, NULL);
    while (!worker_step)
        sched_yield();
    printf("membarrier private expedited, two threads: %s\n",
           errname(membarrier(MB_PRIVATE_EXPEDITED, 0, 0) ? errno : 0));
    main_step = 1;
    join_thread("membarrier", t, NULL);
}

int main(void)
{
    threads_init();
    affinity();
    barriers();
    return 0;
}
