/* Credential checks between processes: kill, tkill and tgkill (the sender's real or effective
 * uid against the target's real or saved uid; SIGCONT within a session; a group and kill(-1)
 * with some targets refused), setpriority and sched_setaffinity of another user's process,
 * prlimit64 of another process and raising a hard limit, setpgid.  Targets are root's
 * children that took other ids and wait on a pipe; the sender is a child of uid 1000. */
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include "corpus.h"

static int go[2], ready[2];

/* A child with ids (r, e, s), in a session of its own if asked, waiting until go closes. */
static pid_t target(unsigned r, unsigned e, unsigned s, int own_session)
{
    pid_t p = fork();
    if (p == 0) {
        close(go[1]);
        if (own_session)
            setsid();
        syscall(SYS_setresuid, r, e, s);
        char c = 1;
        write(ready[1], &c, 1);
        read(go[0], &c, 1);
        _exit(0);
    }
    char c;
    read(ready[0], &c, 1);
    return p;
}

static pid_t t_other, t_real, t_saved, t_eff, t_session, t_same;

static void sender(void)
{
    syscall(SYS_setresuid, 1000, 1000, 1000);
    TRY("kill 0 other user", kill(t_other, 0));
    TRY("kill SIGUSR1 other user", kill(t_other, SIGUSR1));
    TRY("kill SIGCONT other user, same session", kill(t_other, SIGCONT));
    TRY("kill SIGCONT other user, other session", kill(t_session, SIGCONT));
    TRY("tkill 0 other user", syscall(SYS_tkill, t_other, 0));
    TRY("tgkill 0 other user", syscall(SYS_tgkill, t_other, t_other, 0));
    TRY("tgkill SIGCONT other user", syscall(SYS_tgkill, t_other, t_other, SIGCONT));
    TRY("kill 0 target real uid mine", kill(t_real, 0));
    TRY("kill 0 target saved uid mine", kill(t_saved, 0));
    TRY("kill 0 target effective uid mine only", kill(t_eff, 0));
    TRY("kill 0 same user", kill(t_same, 0));
    TRY("kill 0 no such process", kill(999999, 0));
    TRY("kill group with some refused", kill(-getpgid(t_other), 0));
    TRY("kill group all refused", kill(-t_session, 0));
    TRY("kill -1 0 (some refused)", kill(-1, 0));
    TRY("setpriority other user", setpriority(PRIO_PROCESS, t_other, 0));
    TRY("setpriority same user", setpriority(PRIO_PROCESS, t_same, 0));
    TRY("setpriority target real uid mine", setpriority(PRIO_PROCESS, t_real, 0));
    TRY("setpriority own, nice -1", setpriority(PRIO_PROCESS, 0, -1));
    TRY("setpriority own, nice 1", setpriority(PRIO_PROCESS, 0, 1));
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(0, &set);
    TRY("sched_setaffinity other user", sched_setaffinity(t_other, sizeof set, &set));
    TRY("sched_setaffinity same user", sched_setaffinity(t_same, sizeof set, &set));
    struct rlimit rl;
    TRY("prlimit get other user", prlimit(t_other, RLIMIT_NOFILE, NULL, &rl));
    TRY("prlimit get same user", prlimit(t_same, RLIMIT_NOFILE, NULL, &rl));
    TRY("prlimit get target saved uid mine", prlimit(t_saved, RLIMIT_NOFILE, NULL, &rl));
    getrlimit(RLIMIT_NOFILE, &rl);
    rl.rlim_cur = 100;
    TRY("setrlimit lower", setrlimit(RLIMIT_NOFILE, &rl));
    rl.rlim_max += 1;
    TRY("setrlimit raise hard", setrlimit(RLIMIT_NOFILE, &rl));
    rl.rlim_max -= 2;
    TRY("setrlimit lower hard", setrlimit(RLIMIT_NOFILE, &rl));
    rl.rlim_max += 1;
    TRY("setrlimit raise hard back", setrlimit(RLIMIT_NOFILE, &rl));
    /* a group with one target of another user and one of mine; one with none of mine */
    setpgid(0, 0);
    TRY("kill own group 0", kill(0, 0));
    pid_t mine = fork();
    if (mine == 0) {
        pause();
        _exit(0);
    }
    TRY("setpgid child", setpgid(mine, mine));
    TRY("kill group of mine", kill(-mine, 0));
    kill(mine, SIGKILL);
    int st;
    waitpid(mine, &st, 0);
    show_status("own child", st);
}

int main(void)
{
    corpus_init();
    pipe(go);
    pipe(ready);
    t_other = target(2000, 2000, 2000, 0);
    t_real = target(1000, 2000, 2000, 0);
    t_saved = target(2000, 2000, 1000, 0);
    t_eff = target(2000, 1000, 2000, 0);
    t_session = target(2000, 2000, 2000, 1);
    t_same = target(1000, 1000, 1000, 0);
    pid_t s = fork();
    if (s == 0) {
        close(go[1]);
        sender();
        _exit(0);
    }
    int st;
    waitpid(s, &st, 0);
    show_status("sender", st);
    /* root may signal anyone */
    TRY("root kill 0 other user", kill(t_other, 0));
    TRY("root setpriority other user", setpriority(PRIO_PROCESS, t_other, 0));
    struct rlimit rl;
    TRY("root prlimit other user", prlimit(t_other, RLIMIT_NOFILE, NULL, &rl));
    close(go[1]);
    for (int k = 0; k < 6; k++) {
        pid_t p = wait(&st);
        (void)p;
        show_status("target", st);
    }
    return 0;
}
