/* ptrace and set-user-ID exec (review21): a traced process that execs a set-user-ID file
 * keeps its ids when its tracer may not trace the file's owner (Linux's LSM_UNSAFE_PTRACE:
 * otherwise an unprivileged tracer would POKE into a program running with another user's
 * rights).  A TRACEME counts the tracee's own rights (Linux's ptracer_cred), so a root
 * parent's tracing does not give them either.  The file is a copy of this
 * program made by root, owned by user 1000; the tracee runs as 2000. */
#include <fcntl.h>
#include <grp.h>
#include <sys/auxv.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "corpus.h"

static void ids(const char *what)
{
    uid_t r, e, s;
    getresuid(&r, &e, &s);
    printf("%s: uid %u euid %u suid %u AT_SECURE %lu\n", what, r, e, s, getauxval(AT_SECURE));
}

static void copy_self(const char *to, mode_t mode, uid_t uid, gid_t gid)
{
    int in = open("/proc/self/exe", O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0700);
    static char buf[65536];
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)n) != n)
            break;
    close(in);
    close(out);
    TRY("chown copy", chown(to, uid, gid));
    TRY("chmod copy", chmod(to, mode));
}

static void as_user(void)
{
    syscall(SYS_setresgid, 2000, 2000, 2000);
    setgroups(0, NULL);
    syscall(SYS_setresuid, 2000, 2000, 2000);
}

/* A child traced by its parent (TRACEME) execs ./suid; the parent lets it run on. */
static void traced_exec(const char *what)
{
    pid_t c = fork();
    if (c == 0) {
        as_user();
        if (syscall(SYS_ptrace, PTRACE_TRACEME, 0, 0, 0) < 0)
            printf("traceme: -1 %s\n", errname(errno));
        execl("./suid", "suid", "--ids", what, NULL);
        printf("execl: %s\n", errname(errno));
        _exit(1);
    }
    int st;
    waitpid(c, &st, 0);
    show_status("tracer: exec stop", st);
    if (WIFSTOPPED(st))
        SHOW("tracer: PTRACE_CONT", syscall(SYS_ptrace, PTRACE_CONT, c, 0, 0));
    waitpid(c, &st, 0);
    show_status("tracer: end", st);
}

static void user_tracer(void)
{
    as_user();
    traced_exec("traced by a user");
}

static void root_tracer(void)
{
    traced_exec("traced by root");
}

static void untraced(void)
{
    as_user();
    execl("./suid", "suid", "--ids", "not traced", NULL);
    printf("execl: %s\n", errname(errno));
}

int main(int argc, char **argv)
{
    corpus_init();
    if (argc == 3 && !strcmp(argv[1], "--ids")) {
        ids(argv[2]);
        return 0;
    }
    chmod(".", 0755);
    copy_self("suid", 04755, 1000, 1000);
    run_child("not traced", untraced);
    run_child("user tracer", user_tracer);
    run_child("root tracer", root_tracer);
    unlink("suid");
    return 0;
}
