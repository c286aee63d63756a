/* posix_spawn (issue 13 item 8): both C libraries start the child with clone(CLONE_VM |
 * CLONE_VFORK) on a stack of their own and learn of an exec failure through memory the
 * child shares.  File actions (open, dup2, close, fchdir/chdir), attributes (signal mask,
 * default signals, process group, new session, reset ids), an error from execve reported as
 * posix_spawn's result, posix_spawnp's PATH search; and a spawn from a threaded program.
 *
 *   spawn                 the test
 *   spawn child WHAT      the spawned image: prints what it sees of its state */
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include "threads.h"

static const char *self;
extern char **environ;

static void child(const char *what)
{
    sigset_t m;
    sigprocmask(SIG_BLOCK, NULL, &m);
    struct sigaction sa;
    sigaction(SIGUSR1, NULL, &sa);
    char cwd[256] = "";
    if (!getcwd(cwd, sizeof cwd))
        snprintf(cwd, sizeof cwd, "(%s)", errname(errno));
    const char *base = strrchr(cwd, '/');
    printf("child %s: mask USR1 %d USR2 %d, USR1 handler default %d, leads its group %d, "
           "leads its session %d, parent is the spawner %d, cwd ends in %s, fd 5 open %d\n",
           what, sigismember(&m, SIGUSR1), sigismember(&m, SIGUSR2), sa.sa_handler == SIG_DFL,
           getpgrp() == getpid(), getsid(0) == getpid(), getppid() == atoi(getenv("SPAWNER")),
           base ? base + 1 : cwd, fcntl(5, F_GETFD) >= 0);
    char buf[64];
    ssize_t n = read(0, buf, sizeof buf - 1);
    buf[n > 0 ? n : 0] = 0;
    printf("child %s: stdin says %s", what, n > 0 ? buf : "nothing\n");
    exit(4);
}

static void on_usr1(int sig)
{
    (void)sig;
}

static void run(const char *what, posix_spawn_file_actions_t *fa, posix_spawnattr_t *at,
                const char *path)
{
    pid_t pid = -1;
    char *argv[] = { (char *)self, "child", (char *)what, NULL };
    int e = posix_spawn(&pid, path ? path : self, fa, at, argv, environ);
    int st = 0;
    pid_t w = e ? -1 : waitpid(pid, &st, 0);    /* the child's lines first */
    printf("%s: posix_spawn %s\n", what, errname(e));
    if (e)
        return;
    printf("%s: waited for the child %d, ", what, w == pid);
    show_status("status", st);
}

static void *spawn_in_thread(void *arg)
{
    run(arg, NULL, NULL, NULL);
    return NULL;
}

int main(int argc, char **argv)
{
    threads_init();
    self = argv[0];
    if (argc == 3 && !strcmp(argv[1], "child"))
        child(argv[2]);
    char me[16];
    snprintf(me, sizeof me, "%d", (int)getpid());
    setenv("SPAWNER", me, 1);

    int fd = open("input.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    (void)!write(fd, "hello from a file\n", 18);
    close(fd);
    mkdir("sub", 0755);
    fd = open("/dev/null", O_RDONLY);
    dup2(fd, 5);                        /* open here; a file action closes it in the child */
    close(fd);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigaction(SIGUSR1, &sa, NULL);
    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);

    run("plain", NULL, NULL, NULL);

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "input.txt", O_RDONLY, 0);
    posix_spawn_file_actions_addclose(&fa, 5);
    posix_spawn_file_actions_addchdir_np(&fa, "sub");
    run("file actions", &fa, NULL, NULL);
    posix_spawn_file_actions_destroy(&fa);

    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 7, "missing/file", O_RDONLY, 0);
    run("a failing open action", &fa, NULL, NULL);
    posix_spawn_file_actions_destroy(&fa);

    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, 5, 0);
    run("dup2 action", &fa, NULL, NULL);
    posix_spawn_file_actions_destroy(&fa);

    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    sigset_t m;
    sigemptyset(&m);
    sigaddset(&m, SIGUSR2);
    posix_spawnattr_setsigmask(&at, &m);
    posix_spawnattr_setsigdefault(&at, &usr1);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
                                  POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_RESETIDS);
    sigprocmask(SIG_BLOCK, &usr1, NULL);
    run("mask, default signals, process group", NULL, &at, NULL);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID);
    run("new session (USR1 blocked here, handled here)", NULL, &at, NULL);
    sigprocmask(SIG_UNBLOCK, &usr1, NULL);
    posix_spawnattr_destroy(&at);

    run("a missing program", NULL, NULL, "/no/such/program");
    run("a directory", NULL, NULL, "/tmp");

    pid_t pid;
    char *sh[] = { "sh", "-c", "echo spawnp found sh; exit 6", NULL };
    int e = posix_spawnp(&pid, "sh", NULL, NULL, sh, environ);
    int st = 0;
    if (!e)
        waitpid(pid, &st, 0);
    printf("posix_spawnp sh: %s\n", errname(e));
    if (!e)
        show_status("posix_spawnp sh", st);
    char *nope[] = { "no-such-command", NULL };
    printf("posix_spawnp no-such-command: %s\n",
           errname(posix_spawnp(&pid, "no-such-command", NULL, NULL, nope, environ)));

    pthread_t t;
    start_thread("from a thread", &t, spawn_in_thread, "from a thread");
    join_thread("from a thread", t, NULL);
    return 0;
}
