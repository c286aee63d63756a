/* Group stop of a threaded process (issue 13 item 2): SIGSTOP stops every thread, not just
 * the one that takes the signal, and SIGCONT lets them all go on.  Three threads and the
 * leader of a child each count in shared memory; while the child is stopped no counter may
 * move, after SIGCONT every one must.  Nothing here depends on how the threads interleave:
 * the parent only waits (bounded) for counters to move and compares snapshots. */
#include <signal.h>
#include <sys/mman.h>
#include "threads.h"

#define NCOUNT 4

static volatile unsigned long *counter;

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
    pid_t pid = fork();
    if (pid == 0) {
        pthread_t t;
        for (long k = 1; k < NCOUNT; k++)
            start_thread("counter", &t, count, (void *)k);
        count((void *)0);
    }
    unsigned long zero[NCOUNT] = { 0 }, snap[NCOUNT], later[NCOUNT];
    printf("before: every thread counts %d\n", all_move(zero));
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
    kill(pid, SIGCONT);
    w = waitpid(pid, &st, WCONTINUED);
    printf("SIGCONT: reported %d\n", w == pid && WIFCONTINUED(st));
    printf("continued: every thread counts again %d\n", all_move(later));
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    show_status("SIGKILL to the threaded child", st);
    return 0;
}
