/* The limits of issue 13 item 1 at Linux's numbers (item 8): 10,000 threads created and
 * joined in a loop (a few alive at a time), 100 alive at once; 1,000 processes alive at once,
 * each holding a pipe of its own that tells it when to end; the relations of getpid, gettid
 * and getppid across threads; /proc/self/task listing exactly the live threads. */
#include <sys/resource.h>
#include "threads.h"

enum { LOOP_THREADS = 10000, AT_ONCE = 8, ALIVE_THREADS = 100, PROCS = 1000 };

static void *echo(void *arg)
{
    return arg;
}

static void thread_loop(void)
{
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setstacksize(&a, 64 << 10);
    long joined = 0, sum = 0;
    pthread_t t[AT_ONCE];
    for (long i = 0; i < LOOP_THREADS; i += AT_ONCE) {
        int n = 0;
        for (; n < AT_ONCE && i + n < LOOP_THREADS; n++) {
            int e = pthread_create(&t[n], &a, echo, (void *)(i + n));
            if (e) {
                printf("thread %ld: pthread_create %s\n", i + n, errname(e));
                exit(1);
            }
        }
        for (int k = 0; k < n; k++) {
            void *r;
            if (pthread_join(t[k], &r) == 0) {
                joined++;
                sum += (long)r;
            }
        }
    }
    pthread_attr_destroy(&a);
    printf("threads in a loop: %ld created and joined, sum of their values right %d\n", joined,
           sum == (long)LOOP_THREADS * (LOOP_THREADS - 1) / 2);
}

static pthread_barrier_t all_up, may_end;
static pid_t alive_tid[ALIVE_THREADS];
static pid_t alive_pid[ALIVE_THREADS], alive_ppid[ALIVE_THREADS];

static void *stay(void *arg)
{
    long i = (long)arg;
    alive_tid[i] = tid_of_self();
    alive_pid[i] = getpid();
    alive_ppid[i] = getppid();
    pthread_barrier_wait(&all_up);
    pthread_barrier_wait(&may_end);
    return NULL;
}

static int cmp_pid(const void *a, const void *b)
{
    pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
    return (x > y) - (x < y);
}

static void threads_alive(void)
{
    pthread_barrier_init(&all_up, NULL, ALIVE_THREADS + 1);
    pthread_barrier_init(&may_end, NULL, ALIVE_THREADS + 1);
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setstacksize(&a, 64 << 10);
    pthread_t t[ALIVE_THREADS];
    for (long i = 0; i < ALIVE_THREADS; i++) {
        int e = pthread_create(&t[i], &a, stay, (void *)i);
        if (e) {
            printf("alive thread %ld: pthread_create %s\n", i, errname(e));
            exit(1);
        }
    }
    pthread_barrier_wait(&all_up);
    static pid_t listed[ALIVE_THREADS + 8], want[ALIVE_THREADS + 1];
    int n = task_ids(getpid(), listed, ALIVE_THREADS + 8);
    int same_pid = 1, same_ppid = 1, tid_not_pid = 1;
    for (int i = 0; i < ALIVE_THREADS; i++) {
        want[i] = alive_tid[i];
        same_pid &= alive_pid[i] == getpid();
        same_ppid &= alive_ppid[i] == getppid();
        tid_not_pid &= alive_tid[i] != getpid();
    }
    want[ALIVE_THREADS] = getpid();
    qsort(want, ALIVE_THREADS + 1, sizeof want[0], cmp_pid);
    int match = n == ALIVE_THREADS + 1 &&
                !memcmp(listed, want, sizeof want);
    printf("%d threads alive: /proc/self/task lists %d, exactly the tids and the pid %d\n",
           ALIVE_THREADS, n, match);
    printf("in every thread: getpid the same %d, getppid the same %d, gettid not the pid %d\n",
           same_pid, same_ppid, tid_not_pid);
    printf("the leader: gettid is getpid %d\n", tid_of_self() == getpid());
    pthread_barrier_wait(&may_end);
    for (int i = 0; i < ALIVE_THREADS; i++)
        pthread_join(t[i], NULL);
    /* A joined thread may still be on its way out of the kernel: wait for each to go. */
    int gone = 0;
    for (int i = 0; i < ALIVE_THREADS; i++)
        gone += thread_gone(alive_tid[i]);
    n = task_ids(getpid(), listed, ALIVE_THREADS + 8);
    printf("after the joins: %d gone from /proc, it lists %d\n", gone, n);
    pthread_attr_destroy(&a);
}

static void processes_alive(void)
{
    /* A pipe per child: the child ends when its pipe's write end closes (EOF); a common
     * pipe carries one byte from each child as it starts. */
    static int end_w[PROCS];
    static pid_t pids[PROCS];
    int up[2];
    if (pipe(up) < 0) {
        printf("pipe: %s\n", errname(errno));
        return;
    }
    int forked = 0;
    for (int i = 0; i < PROCS; i++) {
        int p[2];
        if (pipe(p) < 0) {
            printf("process %d: pipe %s\n", i, errname(errno));
            break;
        }
        pid_t pid = fork();
        if (pid < 0) {
            printf("process %d: fork %s\n", i, errname(errno));
            close(p[0]), close(p[1]);
            break;
        }
        if (pid == 0) {
            close(p[1]);
            close(up[0]);
            char c = 'u';
            (void)!write(up[1], &c, 1);
            close(up[1]);
            while (read(p[0], &c, 1) > 0)
                ;
            _exit(i % 200);
        }
        close(p[0]);
        end_w[i] = p[1];
        pids[i] = pid;
        forked++;
    }
    close(up[1]);
    int started = 0;
    char buf[256];
    ssize_t r;
    while (started < forked && (r = read(up[0], buf, sizeof buf)) > 0)
        started += (int)r;
    close(up[0]);
    int alive = 0;
    for (int i = 0; i < forked; i++)
        alive += kill(pids[i], 0) == 0;
    int st;
    pid_t none = waitpid(-1, &st, WNOHANG);
    printf("processes: %d forked, %d started, %d alive at once, none ended %d\n", forked,
           started, alive, none == 0);
    for (int i = 0; i < forked; i++)
        close(end_w[i]);
    int right = 0;
    for (int i = 0; i < forked; i++)
        right += waitpid(pids[i], &st, 0) == pids[i] && WIFEXITED(st) &&
                 WEXITSTATUS(st) == i % 200;
    printf("processes: %d reaped with their own exit status\n", right);
}

int main(void)
{
    threads_init();
    struct rlimit nofile;
    getrlimit(RLIMIT_NOFILE, &nofile);
    nofile.rlim_cur = nofile.rlim_max < 4096 ? nofile.rlim_max : 4096;
    setrlimit(RLIMIT_NOFILE, &nofile);          /* a write end per child, kept here */
    processes_alive();
    thread_loop();
    threads_alive();
    return 0;
}
