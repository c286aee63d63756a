/* Processes: fork and wait4/waitpid (statuses, WNOHANG, ECHILD, by pid and any), the
 * parent/child relation, execve (argv, envp, errors), exit codes, process groups and
 * sessions.  Pids are compared, never printed. */
#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "corpus.h"

extern char **environ;

static int child_mode(int argc, char **argv)
{
    printf("exec'd: argc %d", argc);
    for (int i = 1; i < argc; i++)
        printf(" [%s]", argv[i]);
    printf("\n");
    for (char **e = environ; *e; e++)
        printf("exec'd: env %s\n", *e);
    return 7;
}

int main(int argc, char **argv)
{
    corpus_init();
    if (argc > 1 && strcmp(argv[1], "child") == 0)
        return child_mode(argc, argv);

    pid_t me = getpid();
    int st;
    pid_t pid = fork();
    if (pid == 0) {
        printf("child: parent is the forker: %d\n", getppid() == me);
        printf("child: own pid differs: %d\n", getpid() != me);
        _exit(3);
    }
    printf("parent: fork returned a pid: %d\n", pid > 0);
    pid_t w = waitpid(pid, &st, 0);
    printf("waitpid returns the child: %d\n", w == pid);
    show_status("child", st);
    SHOW("waitpid again", waitpid(pid, &st, 0));
    SHOW("wait with no children", wait(&st));
    SHOW("waitpid WNOHANG no children", waitpid(-1, &st, WNOHANG));
    SHOW("waitpid bad options", waitpid(-1, &st, 0x12345678));

    /* Several children, reaped in any order; statuses summed. */
    for (int i = 0; i < 5; i++)
        if (fork() == 0)
            _exit(10 + i);
    int sum = 0, n = 0;
    while ((w = wait(&st)) > 0) {
        sum += WEXITSTATUS(st);
        n++;
    }
    printf("reaped %d children, statuses sum %d, then %s\n", n, sum, errname(errno));

    /* WNOHANG while the child runs: it waits on a file to appear (no pipes needed). */
    pid = fork();
    if (pid == 0) {
        while (access("go", F_OK) != 0)
            sched_yield();
        _exit(0);
    }
    SHOW("WNOHANG while running", waitpid(pid, &st, WNOHANG));
    close(open("go", O_CREAT | O_WRONLY, 0644));
    waitpid(pid, &st, 0);
    show_status("spinner", st);

    /* A child that dies by a fault. */
    pid = fork();
    if (pid == 0) {
        *(volatile int *)0 = 1;
        _exit(0);
    }
    waitpid(pid, &st, 0);
    show_status("null store", st);

    /* execve: arguments and environment reach the program; errors return. */
    pid = fork();
    if (pid == 0) {
        char *av[] = {argv[0], "child", "two words", "", "last", NULL};
        char *ev[] = {"A=1", "EMPTY=", "Z=zed", NULL};
        execve(argv[0], av, ev);
        _exit(127);
    }
    waitpid(pid, &st, 0);
    show_status("exec'd child", st);
    char *av[] = {"x", NULL};
    SHOW("execve missing", execve("/nonexistent", av, environ));
    SHOW("execve a directory", execve("/tmp", av, environ));
    close(open("noexec", O_CREAT | O_WRONLY, 0644));
    SHOW("execve without x bit", execve("noexec", av, environ));
    int fd = open("garbage", O_CREAT | O_WRONLY, 0755);
    write(fd, "\177ELF garbage garbage garbage garbage", 36);
    close(fd);
    SHOW("execve a broken ELF", execve("garbage", av, environ));
    SHOW("execve missing/x", execve("noexec/x", av, environ));

    /* Exit codes are taken modulo 256. */
    pid = fork();
    if (pid == 0)
        exit(256 + 42);
    waitpid(pid, &st, 0);
    show_status("exit(298)", st);

    /* Process groups and sessions. */
    pid = fork();
    if (pid == 0) {
        printf("child: setpgid(0,0): %d\n", setpgid(0, 0));
        printf("child: own group: %d\n", getpgrp() == getpid());
        printf("child: setsid as group leader: %s\n", setsid() < 0 ? errname(errno) : "ok");
        _exit(0);
    }
    waitpid(pid, &st, 0);
    pid = fork();
    if (pid == 0) {
        pid_t s = setsid();
        printf("child: setsid: %d\n", s == getpid());
        printf("child: getsid: %d\n", getsid(0) == getpid());
        printf("child: setsid again: %s\n", setsid() < 0 ? errname(errno) : "ok");
        printf("child: setpgid in own session as leader: %s\n",
               setpgid(0, 0) < 0 ? errname(errno) : "ok");
        _exit(0);
    }
    waitpid(pid, &st, 0);
    SHOW("setpgid of a non-child", setpgid(1, 0) < 0 ? -1 : 0);
    SHOW("setpgid negative", setpgid(0, -1));
    SHOW("getpgid of no such process", getpgid(99999));
    SHOW("getsid of no such process", getsid(99999));
    return 0;
}
