/* A 3 us ITIMER_REAL while the process spins (issue 13's conformance run: lx piled signal
 * frames on the stack until the process died).  Linux delivers one frame at a time: the
 * handler is not entered again while it runs (SIGALRM is blocked in it), a signal pending at
 * rt_sigreturn gets its frame where the interrupted code's stack is, and the periodic timer
 * is armed again when its signal is taken, so the process also gets on with its loop. */
#include <signal.h>
#include <stdint.h>
#include <sys/time.h>
#include "corpus.h"

static volatile sig_atomic_t handled;
/* --- a 3 us ITIMER_REAL while the process spins ------------------------------------------- */

static volatile uintptr_t lowest = UINTPTR_MAX, highest;
static volatile int depth, deepest;

static void on_tick(int sig)
{
    (void)sig;
    int here;
    uintptr_t sp = (uintptr_t)&here;
    if (++depth > deepest)
        deepest = depth;
    if (sp < lowest)
        lowest = sp;
    if (sp > highest)
        highest = sp;
    handled++;
    depth--;
}

static void fast_timer(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        struct sigaction sa = { .sa_handler = on_tick };
        sigemptyset(&sa.sa_mask);
        sigaction(SIGALRM, &sa, NULL);
        struct itimerval it = { { 0, 3 }, { 0, 3 } };
        handled = 0;
        setitimer(ITIMER_REAL, &it, NULL);
        for (volatile long i = 0; i < 2000000000 && handled < 200; i++)
            ;
        it.it_value.tv_usec = it.it_interval.tv_usec = 0;
        setitimer(ITIMER_REAL, &it, NULL);
        printf("3 us timer: 200 signals handled: %d, one at a time: %d, "
               "the stack did not grow: %d\n", handled >= 200, deepest == 1,
               highest - lowest < 4096);
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    show_status("3 us timer", st);
}

int main(void)
{
    corpus_init();
    fast_timer();
    return 0;
}
