/* fork in a threaded program (issue 13 item 8): the child has one thread, the one that
 * called fork, with the caller's tid as its pid; pthread_atfork's handlers run in their order
 * (prepare newest first, parent and child oldest first); a mutex another thread held across
 * fork stays held in the child only if that thread held it; the child can create threads of
 * its own; a fork from a thread that is not the leader; memory the child writes stays its own. */
#include "threads.h"

static char order[128];

static void add(const char *s)
{
    size_t n = strlen(order);
    snprintf(order + n, sizeof order - n, "%s%s", n ? " " : "", s);
}

static void prepare1(void) { add("prepare1"); }
static void prepare2(void) { add("prepare2"); }
static void parent1(void) { add("parent1"); }
static void parent2(void) { add("parent2"); }
static void child1(void) { add("child1"); }
static void child2(void) { add("child2"); }

static pthread_mutex_t held_by_worker = PTHREAD_MUTEX_INITIALIZER;
static sem_t worker_holds, worker_release;
static int shared_value = 1;

static void *worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&held_by_worker);
    sem_post(&worker_holds);
    sem_wait(&worker_release);
    pthread_mutex_unlock(&held_by_worker);
    return NULL;
}

static volatile pid_t square_tid;

static void *square(void *arg)
{
    long v = (long)arg;
    square_tid = tid_of_self();
    return (void *)(v * v);
}

/* The child's report: what it sees of itself; exits with 3. */
static void in_child(const char *what, pid_t caller_tid)
{
    pid_t ids[8];
    int n = task_ids(getpid(), ids, 8);
    printf("%s: child: threads %d, gettid is getpid %d, pid differs from the caller's tid %d\n",
           what, n, tid_of_self() == getpid(), getpid() != caller_tid);
    printf("%s: child: handlers [%s]\n", what, order);
    printf("%s: child: the worker's mutex trylock %s\n", what,
           errname(pthread_mutex_trylock(&held_by_worker)));
    shared_value = 2;
    pthread_t t;
    start_thread("child", &t, square, (void *)12L);
    void *r;
    pthread_join(t, &r);
    int gone = thread_gone(square_tid);      /* joined, but maybe still on its way out */
    n = task_ids(getpid(), ids, 8);
    printf("%s: child: a thread of its own returned %ld, gone %d; threads now %d\n", what,
           (long)r, gone, n);
    exit(3);
}

static void fork_and_wait(const char *what)
{
    order[0] = 0;
    pid_t caller = tid_of_self();
    pid_t pid = fork();
    if (pid == 0)
        in_child(what, caller);
    if (pid < 0) {
        printf("%s: fork: %s\n", what, errname(errno));
        return;
    }
    int st;
    waitpid(pid, &st, 0);           /* the child's lines first, then the parent's */
    printf("%s: parent: handlers [%s]\n", what, order);
    show_status(what, st);
    printf("%s: parent: its value is still %d\n", what, shared_value);
}

static void *fork_from_thread(void *arg)
{
    fork_and_wait(arg);
    return NULL;
}

int main(void)
{
    threads_init();
    sem_init(&worker_holds, 0, 0);
    sem_init(&worker_release, 0, 0);
    printf("atfork: %s", errname(pthread_atfork(prepare1, parent1, child1)));
    printf(", %s\n", errname(pthread_atfork(prepare2, parent2, child2)));

    pthread_t w, t;
    start_thread("worker", &w, worker, NULL);
    sem_wait(&worker_holds);
    pid_t ids[8];
    printf("parent: threads %d\n", task_ids(getpid(), ids, 8));
    fork_and_wait("fork from the leader");
    start_thread("forker", &t, fork_from_thread, "fork from a second thread");
    join_thread("forker", t, NULL);
    sem_post(&worker_release);
    join_thread("worker", w, NULL);
    printf("parent: the worker's mutex trylock %s\n",
           errname(pthread_mutex_trylock(&held_by_worker)));
    return 0;
}
