/* Group stop of a threaded process (issue 13 item 2): SIGSTOP stops every thread, not just
 * the one that takes the signal, and SIGCONT lets them all go on.  Three threads and the
 * leader of a child each count in shared memory; while the child is stopped no counter may
 * move, after SIGCONT every one must.  Nothing here depends on how the threads interleave:
 * the parent only waits (bounded) for counters to move and compares snapshots.  A fifth
 * thread sleeps in a read of a pipe: a byte written while the group is stopped stays in the
 * pipe until SIGCONT (the stopped reader takes nothing). */
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include "threads.h"

#define NCOUNT 4

static volatile unsigned long *counter;
static int pipefd[2];

static void *reader(void *arg)
{
    (void)arg;
    char c;
    counter[NCOUNT + 2] = (unsigned long)tid_of_self();
    if (read(pipefd[0], &c, 1) == 1)
        counter[NCOUNT] = 1;        /* the byte arrived */
    for (;;)
        pause();
    return NULL;
}

static void *count(void *arg)
{
    volatile unsigned long *c = &counter[(long)arg];
    for (;;)
        ++*c;
    return NULL;
}

/* Bounded: until every counter has moved past its value in from; 1 if they all did. */
static int all_move(const unsigned long *from)
{
    struct timespec ms = { 0, 1000000 };
    for (int i = 0; i < 5000; i++) {
        int moved = 0;
        for (int k = 0; k < NCOUNT; k++)
            moved += counter[k] != from[k];
        if (moved == NCOUNT)
            return 1;
        nanosleep(&ms, NULL);
    }
    return 0;
}

int main(void)
{
    threads_init();
    counter = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (pipe(pipefd) < 0)
        printf("pipe: %s\n", errname(errno));
    pid_t pid = fork();
    if (pid == 0) {
        pthread_t t;
        start_thread("reader", &t, reader, NULL);
        for (long k = 1; k < NCOUNT; k++)
            start_thread("counter", &t, count, (void *)k);
        count((void *)0);
    }
    close(pipefd[0]);
    unsigned long zero[NCOUNT] = { 0 }, snap[NCOUNT], later[NCOUNT];
    printf("before: every thread counts %d\n", all_move(zero));
    struct timespec ms = { 0, 1000000 };
    for (int i = 0; i < 5000 && !counter[NCOUNT + 2]; i++)
        nanosleep(&ms, NULL);           /* the reader has not run yet */
    printf("before: the reader sleeps in read %d\n",
           counter[NCOUNT + 2] && sleeping(pid, (pid_t)counter[NCOUNT + 2]));
    int st;
    kill(pid, SIGSTOP);
    pid_t w = waitpid(pid, &st, WUNTRACED);
    printf("SIGSTOP: reported %d\n", w == pid && WIFSTOPPED(st));
    for (int k = 0; k < NCOUNT; k++)
        snap[k] = counter[k];
    struct timespec wait = { 0, 50000000 };
    nanosleep(&wait, NULL);             /* the child's threads would run now */
    int still = 0;
    for (int k = 0; k < NCOUNT; k++) {
        later[k] = counter[k];
        still += later[k] == snap[k];
    }
    printf("stopped: %d of %d counters still\n", still, NCOUNT);
    (void)!write(pipefd[1], "x", 1);
    nanosleep(&wait, NULL);             /* the reader would take it now */
    int queued = -1;
    ioctl(pipefd[1], FIONREAD, &queued);
    printf("stopped: the byte written meanwhile is still in the pipe %d, not read %d\n",
           queued == 1, counter[NCOUNT] == 0);
    kill(pid, SIGCONT);
    w = waitpid(pid, &st, WCONTINUED);
    printf("SIGCONT: reported %d\n", w == pid && WIFCONTINUED(st));
    printf("continued: every thread counts again %d\n", all_move(later));
    for (int i = 0; i < 5000 && !counter[NCOUNT]; i++)
        nanosleep(&ms, NULL);
    printf("continued: the reader got the byte %d\n", (int)counter[NCOUNT]);
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    show_status("SIGKILL to the threaded child", st);
    return 0;
}
