/* ITIMER_VIRTUAL and ITIMER_PROF (issue 14 item 2): SIGVTALRM and SIGPROF (si_code
 * SI_KERNEL) after the process has used the CPU time set, a periodic one re-armed, getitimer's
 * interval and time left, a sleep that uses no CPU time not firing a long timer, no timers in
 * a forked child, the timers kept across execve, the default action (the process ends), and
 * the errors.  The busy loops spin until the signal arrives: nothing prints a duration. */
#include <signal.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include "corpus.h"

static void *volatile bad_address = (void *)8;
static volatile sig_atomic_t arrived, count, code;

static void on_signal(int sig, siginfo_t *si, void *ctx)
{
    (void)ctx;
    arrived = sig;
    code = si->si_code;
    count++;
}

static void handle(int sig)
{
    struct sigaction sa = { .sa_sigaction = on_signal, .sa_flags = SA_SIGINFO | SA_RESTART };
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}

static const char *name(int which)
{
    return which == ITIMER_VIRTUAL ? "VIRTUAL" : "PROF";
}

static void show_timer(const char *what, int which)
{
    struct itimerval v;
    if (getitimer(which, &v)) {
        printf("%s: getitimer %s\n", what, errname(errno));
        return;
    }
    long left = v.it_value.tv_sec * 1000000 + v.it_value.tv_usec;
    printf("%s: interval %ld.%06ld running %d\n", what, (long)v.it_interval.tv_sec,
           (long)v.it_interval.tv_usec, left > 0);
}

static void once(int which)
{
    int sig = which == ITIMER_VIRTUAL ? SIGVTALRM : SIGPROF;
    handle(sig);
    arrived = count = 0;
    struct itimerval v = { { 0, 0 }, { 0, 10000 } }, old;
    SHOW("setitimer", setitimer(which, &v, &old));
    printf("%s old: %ld %ld\n", name(which), (long)old.it_value.tv_sec,
           (long)old.it_value.tv_usec);
    struct itimerval now;
    getitimer(which, &now);
    printf("%s left at most what was set: %d\n", name(which),
           now.it_value.tv_sec == 0 && now.it_value.tv_usec > 0 &&
           now.it_value.tv_usec <= 10000);
    while (!arrived)
        ;
    printf("%s: signal %d arrived, si_code %d, count %d\n", name(which), arrived, code, count);
    show_timer("after a one-shot", which);
}

static void periodic(int which)
{
    int sig = which == ITIMER_VIRTUAL ? SIGVTALRM : SIGPROF;
    handle(sig);
    arrived = count = 0;
    struct itimerval v = { { 0, 5000 }, { 0, 5000 } };
    SHOW("setitimer periodic", setitimer(which, &v, NULL));
    show_timer("periodic", which);
    while (count < 3)
        ;
    struct itimerval off = { { 0, 0 }, { 0, 0 } }, old;
    SHOW("disarm", setitimer(which, &off, &old));
    printf("%s periodic: at least 3 signals %d, old interval %ld.%06ld\n", name(which),
           count >= 3, (long)old.it_interval.tv_sec, (long)old.it_interval.tv_usec);
    show_timer("disarmed", which);
}

static void sleeping(void)
{
    handle(SIGVTALRM);
    arrived = 0;
    struct itimerval v = { { 0, 0 }, { 2, 0 } };
    setitimer(ITIMER_VIRTUAL, &v, NULL);
    struct timespec ts = { 0, 20000000 };
    nanosleep(&ts, NULL);
    struct itimerval left;
    getitimer(ITIMER_VIRTUAL, &left);
    printf("after a sleep: arrived %d, more than a second left %d\n", arrived,
           left.it_value.tv_sec >= 1);
    struct itimerval off = { { 0, 0 }, { 0, 0 } };
    setitimer(ITIMER_VIRTUAL, &off, NULL);
}

static void inheritance(const char *self)
{
    struct itimerval v = { { 7, 0 }, { 100, 0 } };
    setitimer(ITIMER_VIRTUAL, &v, NULL);
    setitimer(ITIMER_PROF, &v, NULL);
    pid_t c = fork();
    if (c == 0) {
        show_timer("forked child VIRTUAL", ITIMER_VIRTUAL);
        show_timer("forked child PROF", ITIMER_PROF);
        _exit(0);
    }
    int st;
    waitpid(c, &st, 0);
    fflush(stdout);
    c = fork();
    if (c == 0) {                   /* the child's own timers, then execve */
        setitimer(ITIMER_VIRTUAL, &v, NULL);
        setitimer(ITIMER_PROF, &v, NULL);
        execl(self, self, "exec", (char *)NULL);
        _exit(127);
    }
    waitpid(c, &st, 0);
    printf("exec child: %d\n", WEXITSTATUS(st));
    struct itimerval off = { { 0, 0 }, { 0, 0 } };
    setitimer(ITIMER_VIRTUAL, &off, NULL);
    setitimer(ITIMER_PROF, &off, NULL);
}

static void default_action(int which)
{
    pid_t c = fork();
    if (c == 0) {
        signal(which == ITIMER_VIRTUAL ? SIGVTALRM : SIGPROF, SIG_DFL);
        struct itimerval v = { { 0, 0 }, { 0, 5000 } };
        setitimer(which, &v, NULL);
        for (;;)
            ;
    }
    int st;
    waitpid(c, &st, 0);
    printf("%s default action: signaled %d signal %d\n", name(which), WIFSIGNALED(st),
           WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

static void errors(void)
{
    struct itimerval v = { { 0, 0 }, { 0, 0 } }, old;
    SHOW("getitimer 3", syscall(SYS_getitimer, 3, &v));
    SHOW("getitimer -1", syscall(SYS_getitimer, -1, &v));
    SHOW("getitimer VIRTUAL EFAULT", syscall(SYS_getitimer, ITIMER_VIRTUAL, bad_address));
    SHOW("getitimer PROF EFAULT", syscall(SYS_getitimer, ITIMER_PROF, bad_address));
    SHOW("setitimer 3", syscall(SYS_setitimer, 3, &v, NULL));
    SHOW("setitimer VIRTUAL EFAULT", syscall(SYS_setitimer, ITIMER_VIRTUAL, bad_address, NULL));
    SHOW("setitimer PROF old EFAULT", syscall(SYS_setitimer, ITIMER_PROF, &v, bad_address));
    v.it_value.tv_usec = 1000000;
    SHOW("setitimer usec 1000000", syscall(SYS_setitimer, ITIMER_VIRTUAL, &v, NULL));
    v.it_value.tv_usec = 0;
    v.it_interval.tv_sec = -1;
    SHOW("setitimer interval -1 s", syscall(SYS_setitimer, ITIMER_PROF, &v, NULL));
    v.it_interval.tv_sec = 0;
    v.it_value.tv_sec = 50;
    SHOW("setitimer PROF 50 s", syscall(SYS_setitimer, ITIMER_PROF, &v, NULL));
    SHOW("setitimer PROF NULL (disarms)", syscall(SYS_setitimer, ITIMER_PROF, NULL, &old));
    printf("old value more than 40 s: %d\n", old.it_value.tv_sec >= 40);
    show_timer("after NULL", ITIMER_PROF);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc > 1) {                 /* after execve: the timers are still there */
        show_timer("after execve VIRTUAL", ITIMER_VIRTUAL);
        show_timer("after execve PROF", ITIMER_PROF);
        return 0;
    }
    show_timer("at start VIRTUAL", ITIMER_VIRTUAL);
    show_timer("at start PROF", ITIMER_PROF);
    once(ITIMER_VIRTUAL);
    once(ITIMER_PROF);
    periodic(ITIMER_VIRTUAL);
    periodic(ITIMER_PROF);
    sleeping();
    inheritance(argv[0]);
    default_action(ITIMER_VIRTUAL);
    default_action(ITIMER_PROF);
    errors();
    return 0;
}
