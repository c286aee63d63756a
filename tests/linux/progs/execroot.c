/* execveat (a dirfd and a relative path, fexecve with AT_EMPTY_PATH on an O_RDONLY and an
 * O_PATH fd, AT_SYMLINK_NOFOLLOW, the errors) and chroot (into a directory built under the
 * case's directory with a copy of this static program: absolute paths, "/..", absolute
 * symlinks, getcwd outside and inside, fork inheriting the root, exec inside, an AF_UNIX
 * bind, /proc/PID/root seen from outside, the errors, EPERM and EACCES as nobody). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include "corpus.h"

extern char **environ;

static long execat(int dirfd, const char *path, char *const argv[], int flags)
{
    return syscall(SYS_execveat, dirfd, path, argv, environ, flags);
}

static void child_mode(char **argv)
{
    char comm[17] = { 0 };
    prctl(PR_GET_NAME, comm);
    const char *fn = (const char *)getauxval(AT_EXECFN);
    printf("exec'd: argv0 %s, AT_EXECFN %s, comm %s\n", argv[0], fn ? fn : "?", comm);
    struct stat st;
    if (argv[2])
        printf("exec'd in the jail: /bin/prog %s\n", stat("/bin/prog", &st) ? errname(errno) : "found");
    exit(3);
}

static void run(const char *what, int dirfd, const char *path, int flags)
{
    pid_t c = fork();
    if (c == 0) {
        char *args[] = { "x", "child", NULL };
        execat(dirfd, path, args, flags);
        printf("%s: -1 %s\n", what, errname(errno));
        exit(1);
    }
    int st;
    waitpid(c, &st, 0);
    show_status(what, st);
}

static char self[256];

/* A hard link where the file systems allow it, else a copy. */
static void copy_self(const char *to)
{
    if (link(self, to) == 0)
        return;
    int in = open("/proc/self/exe", O_RDONLY), out = open(to, O_CREAT | O_WRONLY | O_TRUNC, 0755);
    static char buf[65536];
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0)
        write(out, buf, (size_t)n);
    close(in);
    close(out);
}

static void execveat_calls(void)
{
    char dir[256];
    strcpy(dir, self);
    char *slash = strrchr(dir, '/');
    *slash = 0;
    const char *base = slash + 1;
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    run("dirfd and a relative path", dfd, base, 0);
    int fd = open(self, O_RDONLY);
    run("fexecve (AT_EMPTY_PATH)", fd, "", AT_EMPTY_PATH);
    int pfd = open(self, O_PATH);
    run("fexecve of an O_PATH fd", pfd, "", AT_EMPTY_PATH);
    run("AT_FDCWD and an absolute path", AT_FDCWD, self, 0);
    run("a dirfd and an absolute path", fd, self, 0);
    symlink(self, "link");
    run("through a symlink", AT_FDCWD, "link", 0);
    pid_t c = fork();
    if (c == 0) {
        char *args[] = { "x", "child", NULL };
        fexecve(fd, args, environ);
        printf("fexecve: -1 %s\n", errname(errno));
        exit(1);
    }
    int st;
    waitpid(c, &st, 0);
    show_status("libc's fexecve", st);

    char *args[] = { "x", "child", NULL };
    SHOW("AT_SYMLINK_NOFOLLOW on a symlink", execat(AT_FDCWD, "link", args, AT_SYMLINK_NOFOLLOW));
    SHOW("empty path without AT_EMPTY_PATH", execat(fd, "", args, 0));
    SHOW("bad flags", execat(AT_FDCWD, self, args, 0x2));
    SHOW("bad dirfd", execat(99, base, args, 0));
    SHOW("a file as dirfd", execat(fd, base, args, 0));
    SHOW("no such file", execat(dfd, "no-such-file", args, 0));
    int plain = open("plain", O_CREAT | O_WRONLY, 0644);
    SHOW("not executable", execat(AT_FDCWD, "plain", args, 0));
    SHOW("AT_EMPTY_PATH on a non-executable fd", execat(plain, "", args, AT_EMPTY_PATH));
    SHOW("AT_EMPTY_PATH on a directory", execat(dfd, "", args, AT_EMPTY_PATH));
    char *volatile badp = (char *)8;
    SHOW("bad path pointer", execat(AT_FDCWD, badp, args, 0));
    SHOW("bad argv", execat(AT_FDCWD, self, (char **)badp, 0));
    close(plain), close(fd), close(pfd), close(dfd);
    unlink("plain"), unlink("link");
}

static int go[2], ready[2];

static void show_cwd(const char *what)
{
    char buf[256];
    long n = syscall(SYS_getcwd, buf, sizeof buf);
    printf("%s: %s\n", what, n < 0 ? errname(errno) : buf);
}

static void as_nobody(void)
{
    setgid(65534);
    setuid(65534);
    SHOW("nobody: chroot(\"/tmp\")", chroot("/tmp"));
    SHOW("nobody: chroot into a 0700 directory", chroot("jail/private"));
}

static void in_jail(void)
{
    SHOW("chroot(\"jail\")", chroot("jail"));
    show_cwd("getcwd before chdir");
    SHOW("chdir(\"/\")", chdir("/"));
    show_cwd("getcwd");
    struct stat st;
    SHOW("stat /bin/prog", stat("/bin/prog", &st));
    SHOW("stat /../../bin/prog", stat("/../../bin/prog", &st));
    SHOW("chdir(\"/..\")", chdir("/.."));
    show_cwd("getcwd after /..");
    SHOW("stat /abs/inside (an absolute symlink)", stat("/abs/inside", &st));
    SHOW("open /jail (outside: not there)", open("/jail", O_RDONLY));
    SHOW("chdir(\"d\")", chdir("d"));
    show_cwd("getcwd in d");
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = { .sun_family = AF_UNIX, .sun_path = "/sock" };
    SHOW("bind /sock", bind(s, (struct sockaddr *)&sa, sizeof sa));
    close(s);
    write(ready[1], "r", 1);
    char c;
    read(go[0], &c, 1);
    pid_t k = fork();
    if (k == 0) {
        SHOW("forked child: stat /bin/prog", stat("/bin/prog", &st));
        char *args[] = { "prog", "child", "jail", NULL };
        execv("/bin/prog", args);
        printf("execv: %s\n", errname(errno));
        exit(1);
    }
    int ks;
    waitpid(k, &ks, 0);
    show_status("exec in the jail", ks);
    SHOW("chroot(\"/d\") nested", chroot("/d"));
    SHOW("stat /inside", stat("/inside", &st));
    SHOW("chroot(\"/no-such\")", chroot("/no-such"));
    SHOW("chroot(\"/inside\") (a file)", chroot("/inside"));
}

static void chroot_calls(void)
{
    mkdir("jail", 0755);
    mkdir("jail/bin", 0755);
    mkdir("jail/d", 0755);
    mkdir("jail/private", 0700);
    close(open("jail/d/inside", O_CREAT | O_WRONLY, 0644));
    symlink("/d", "jail/abs");
    copy_self("jail/bin/prog");
    pipe(go);
    pipe(ready);
    pid_t c = fork();
    if (c == 0) {
        in_jail();
        exit(0);
    }
    char ch, link[256], want[300];
    read(ready[0], &ch, 1);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/root", c);
    ssize_t n = readlink(path, link, sizeof link - 1);
    link[n > 0 ? n : 0] = 0;
    char cwd[200];
    getcwd(cwd, sizeof cwd);
    snprintf(want, sizeof want, "%s/jail", cwd);
    printf("/proc/PID/root from outside: %s\n", n < 0 ? errname(errno) :
           strcmp(link, want) ? link : "the jail's path");
    snprintf(path, sizeof path, "/proc/%d/root/d/inside", c);
    struct stat st;
    SHOW("stat through /proc/PID/root", stat(path, &st));
    write(go[1], "g", 1);
    int st2;
    waitpid(c, &st2, 0);
    show_status("jailed child", st2);
    SHOW("the socket is in the jail", stat("jail/sock", &st));
    run_child("nobody", as_nobody);
    unlink("jail/sock"), unlink("jail/d/inside"), unlink("jail/abs"), unlink("jail/bin/prog");
    rmdir("jail/d"), rmdir("jail/bin"), rmdir("jail/private"), rmdir("jail");
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "child"))
        child_mode(argv);
    corpus_init();
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = 0;
    execveat_calls();
    chroot_calls();
    return 0;
}
