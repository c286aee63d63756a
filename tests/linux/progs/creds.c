/* Credentials: every set*id call's rules and errors as root and as other users (each in a
 * child, since the changes cannot be undone), getgroups/setgroups up to NGROUPS_MAX, the
 * file-system ids, capget/capset (dropping, keepcaps across setresuid, the file-system set
 * following fsuid) and PR_CAPBSET_READ, /proc/self/status's id lines, root-only calls
 * (mount, clock_settime), and the exec of a set-user-ID and set-group-ID file made by root
 * (saved ids, AT_SECURE, dumpable; no_new_privs and nosuid keep the ids). */
#include <fcntl.h>
#include <grp.h>
#include <sys/auxv.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include "corpus.h"

/* linux/capability.h's, which musl's headers lack */
#define _LINUX_CAPABILITY_VERSION_1 0x19980330
#define _LINUX_CAPABILITY_VERSION_3 0x20080522
struct __user_cap_header_struct { unsigned version; int pid; };
struct __user_cap_data_struct { unsigned effective, permitted, inheritable; };
#ifndef PR_CAPBSET_READ
#define PR_CAPBSET_READ 23
#endif
#define CAP(n) (1ull << (n))
#define FULL ((1ull << 41) - 1)

static long set_caps(unsigned long long eff, unsigned long long prm, unsigned long long inh)
{
    struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
    struct __user_cap_data_struct d[2] = {
        { (unsigned)eff, (unsigned)prm, (unsigned)inh },
        { (unsigned)(eff >> 32), (unsigned)(prm >> 32), (unsigned)(inh >> 32) },
    };
    return syscall(SYS_capset, &h, d);
}

static void ids(const char *what)
{
    unsigned r, e, s, gr, ge, gs;
    syscall(SYS_getresuid, &r, &e, &s);
    syscall(SYS_getresgid, &gr, &ge, &gs);
    long fsu = syscall(SYS_setfsuid, -1), fsg = syscall(SYS_setfsgid, -1);
    printf("%s: uid %u %u %u fs %ld gid %u %u %u fs %ld get %ld %ld %ld %ld\n", what, r, e, s,
           fsu, gr, ge, gs, fsg, syscall(SYS_getuid), syscall(SYS_geteuid),
           syscall(SYS_getgid), syscall(SYS_getegid));
}

static void groups(const char *what)
{
    static gid_t g[16];
    int n = getgroups(16, g);
    printf("%s: %d:", what, n);
    for (int k = 0; k < n; k++)
        printf(" %u", g[k]);
    printf("\n");
}

static void status_lines(const char *what)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    if (!f) {
        printf("%s: status %s\n", what, errname(errno));
        return;
    }
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "Uid:", 4) || !strncmp(line, "Gid:", 4) ||
            !strncmp(line, "Groups:", 7) || !strncmp(line, "Cap", 3) ||
            !strncmp(line, "NoNewPrivs:", 11))
            printf("%s: %s", what, line);
    fclose(f);
}

static void caps(const char *what)
{
    struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
    struct __user_cap_data_struct d[2];
    if (syscall(SYS_capget, &h, d) < 0) {
        printf("%s: capget %s\n", what, errname(errno));
        return;
    }
    printf("%s: eff %08x%08x prm %08x%08x inh %08x%08x\n", what, d[1].effective,
           d[0].effective, d[1].permitted, d[0].permitted, d[1].inheritable, d[0].inheritable);
}

static void root_rules(void)
{
    ids("root");
    groups("root groups");
    SHOW("setuid(-1)", syscall(SYS_setuid, -1));
    SHOW("setgid(-1)", syscall(SYS_setgid, -1));
    SHOW("getresuid EFAULT", syscall(SYS_getresuid, (void *)8, (void *)8, (void *)8));
    unsigned r;
    SHOW("getresgid EFAULT third", syscall(SYS_getresgid, &r, &r, (void *)8));
    gid_t set[3] = { 30, 10, 20 };
    SHOW("setgroups 3", setgroups(3, set));
    groups("sorted");
    gid_t one[1];
    SHOW("getgroups too small", getgroups(1, one));
    SHOW("getgroups count", getgroups(0, NULL));
    SHOW("getgroups -1", syscall(SYS_getgroups, -1, one));
    SHOW("getgroups EFAULT", syscall(SYS_getgroups, 3, (void *)8));
    SHOW("setgroups 65537", syscall(SYS_setgroups, 65537, set));
    SHOW("setgroups -1", syscall(SYS_setgroups, -1, set));
    SHOW("setgroups EFAULT", syscall(SYS_setgroups, 2, (void *)8));
    gid_t bad[2] = { 5, (gid_t)-1 };
    SHOW("setgroups invalid id", syscall(SYS_setgroups, 2, bad));
    groups("unchanged");
    static gid_t big[65536];
    for (int k = 0; k < 65536; k++)
        big[k] = (gid_t)(70000 - k);
    SHOW("setgroups 65536", syscall(SYS_setgroups, 65536, big));
    memset(big, 0, sizeof big);
    SHOW("getgroups 65536", syscall(SYS_getgroups, 65536, big));
    printf("big: first %u second %u last %u\n", big[0], big[1], big[65535]);
    SHOW("setgroups 0", setgroups(0, NULL));
    groups("none");
    status_lines("root");
    caps("root");
    SHOW("CAPBSET_READ 0", prctl(PR_CAPBSET_READ, 0, 0, 0, 0));
    SHOW("CAPBSET_READ 40", prctl(PR_CAPBSET_READ, 40, 0, 0, 0));
    SHOW("CAPBSET_READ 41", prctl(PR_CAPBSET_READ, 41, 0, 0, 0));
    SHOW("dumpable", prctl(PR_GET_DUMPABLE, 0, 0, 0, 0));
}

static void capget_errors(void)
{
    struct __user_cap_header_struct h = { 0, 0 };
    struct __user_cap_data_struct d[2];
    SHOW("capget version 0", syscall(SYS_capget, &h, d));
    printf("version written back: %#x\n", h.version);
    h.version = 0;
    SHOW("capget probe", syscall(SYS_capget, &h, NULL));
    printf("version written back: %#x\n", h.version);
    SHOW("capget EFAULT header", syscall(SYS_capget, (void *)8, d));
    h.version = _LINUX_CAPABILITY_VERSION_3;
    h.pid = -1;
    SHOW("capget pid -1", syscall(SYS_capget, &h, d));
    h.pid = 999999;
    SHOW("capget no such pid", syscall(SYS_capget, &h, d));
    h.pid = getppid();
    SHOW("capget parent", syscall(SYS_capget, &h, d));
    printf("parent: eff %08x%08x\n", d[1].effective, d[0].effective);
    h.pid = 0;
    SHOW("capget EFAULT data", syscall(SYS_capget, &h, (void *)8));
    h.version = _LINUX_CAPABILITY_VERSION_1;
    memset(d, 0, sizeof d);
    SHOW("capget v1", syscall(SYS_capget, &h, d));
    printf("v1: eff %08x second %08x\n", d[0].effective, d[1].effective);
    h.version = _LINUX_CAPABILITY_VERSION_3;
    syscall(SYS_capget, &h, d);
    SHOW("capset unchanged", syscall(SYS_capset, &h, d));
    h.pid = getppid();
    SHOW("capset another pid", syscall(SYS_capset, &h, d));
    h.pid = 0;
    SHOW("capset EFAULT data", syscall(SYS_capset, &h, (void *)8));
    h.version = 1;
    SHOW("capset bad version", syscall(SYS_capset, &h, d));
}

static void to_user(void)
{
    SHOW("setuid(1000)", syscall(SYS_setuid, 1000));
    ids("after setuid");
    caps("after setuid");
    SHOW("dumpable", prctl(PR_GET_DUMPABLE, 0, 0, 0, 0));
    SHOW("setuid(0)", syscall(SYS_setuid, 0));
    SHOW("setuid(1000) again", syscall(SYS_setuid, 1000));
    SHOW("setgid(5)", syscall(SYS_setgid, 5));
    SHOW("setgroups", setgroups(0, NULL));
    SHOW("setreuid(0, -1)", syscall(SYS_setreuid, 0, -1));
    SHOW("setresuid(-1, -1, 0)", syscall(SYS_setresuid, -1, -1, 0));
    SHOW("setfsuid(0)", syscall(SYS_setfsuid, 0));
    ids("unchanged");
    status_lines("user");
    struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
    struct __user_cap_data_struct d[2] = { { 1, 1, 0 }, { 0, 0, 0 } };
    SHOW("capset raise", syscall(SYS_capset, &h, d));
    memset(d, 0, sizeof d);
    SHOW("capset empty", syscall(SYS_capset, &h, d));
    SHOW("mount as user", mount("none", ".", "tmpfs", 0, NULL));
    SHOW("umount as user", umount("/proc"));
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    SHOW("clock_settime as user", clock_settime(CLOCK_REALTIME, &now));
    SHOW("settimeofday(NULL, NULL) as user", syscall(SYS_settimeofday, NULL, NULL));
}

/* setpriv's way: keep the permitted set across setresuid, make it effective again, then
 * change groups as the new user; exec takes it all away. */
static void keepcaps(void)
{
    SHOW("PR_GET_KEEPCAPS", prctl(PR_GET_KEEPCAPS, 0, 0, 0, 0));
    SHOW("PR_SET_KEEPCAPS 2", prctl(PR_SET_KEEPCAPS, 2, 0, 0, 0));
    SHOW("PR_SET_KEEPCAPS 1", prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0));
    SHOW("setresuid(1000, 1000, 1000)", syscall(SYS_setresuid, 1000, 1000, 1000));
    caps("kept");
    SHOW("setgid(5) without CAP_SETGID effective", syscall(SYS_setgid, 5));
    SHOW("capset effective = permitted", set_caps(FULL, FULL, 0));
    caps("raised");
    SHOW("setresgid(5, 5, 5)", syscall(SYS_setresgid, 5, 5, 5));
    gid_t g[1] = { 9 };
    SHOW("setgroups", setgroups(1, g));
    SHOW("setuid(0) with CAP_SETUID", syscall(SYS_setuid, 0));
    ids("after");
    caps("after");
    status_lines("after");
    SHOW("PR_GET_KEEPCAPS", prctl(PR_GET_KEEPCAPS, 0, 0, 0, 0));
}

static void keepcaps_exec(void)
{
    prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0);
    syscall(SYS_setresuid, 1000, 1000, 1000);
    set_caps(FULL, FULL, CAP(5));
    caps("before exec");
    execl("/proc/self/exe", "creds", "--ids", "keepcaps exec", NULL);
    printf("execl: %s\n", errname(errno));
}

static void capset_drop(void)
{
    SHOW("capset drop CAP_SETUID", set_caps(FULL & ~CAP(7), FULL & ~CAP(7), 0));
    caps("dropped");
    SHOW("setuid(1000) without CAP_SETUID", syscall(SYS_setuid, 1000));
    SHOW("capset raise it again", set_caps(FULL, FULL, 0));
    SHOW("capset effective beyond permitted", set_caps(FULL, FULL & ~CAP(7), 0));
    SHOW("capset inheritable within permitted", set_caps(FULL & ~CAP(7), FULL & ~CAP(7), CAP(5)));
    SHOW("capset inheritable beyond, with CAP_SETPCAP", set_caps(FULL & ~CAP(7), FULL & ~CAP(7), CAP(7)));
    SHOW("capset drop CAP_SETPCAP", set_caps(FULL & ~CAP(7) & ~CAP(8), FULL & ~CAP(7) & ~CAP(8), CAP(5)));
    SHOW("capset inheritable beyond, no CAP_SETPCAP", set_caps(FULL & ~CAP(7) & ~CAP(8), FULL & ~CAP(7) & ~CAP(8), CAP(7)));
    status_lines("dropped");
    SHOW("setuid(0) to itself without CAP_SETUID", syscall(SYS_setuid, 0));
    SHOW("setresuid(0, 1000, 0) without CAP_SETUID", syscall(SYS_setresuid, 0, 1000, 0));
    caps("after");
}

static void fs_caps(void)
{
    SHOW("setfsuid(1000)", syscall(SYS_setfsuid, 1000));
    caps("fsuid 1000");
    SHOW("setfsuid(0)", syscall(SYS_setfsuid, 0));
    caps("fsuid 0");
    SHOW("setresuid(-1, 1000, 0)", syscall(SYS_setresuid, -1, 1000, 0));
    SHOW("setfsuid(0) as euid 1000", syscall(SYS_setfsuid, 0));
    caps("euid 1000 fsuid 0");
}

static void saved_id(void)
{
    SHOW("setresuid(1000, 1001, 0)", syscall(SYS_setresuid, 1000, 1001, 0));
    ids("r1000 e1001 s0");
    caps("r1000 e1001 s0");
    SHOW("seteuid 0 (saved)", syscall(SYS_setresuid, -1, 0, -1));
    ids("back to euid 0");
    caps("back to euid 0");
    SHOW("setresuid(1000, 1001, 0)", syscall(SYS_setresuid, 1000, 1001, 0));
    SHOW("setfsuid(1000)", syscall(SYS_setfsuid, 1000));
    SHOW("setfsuid(2000)", syscall(SYS_setfsuid, 2000));
    SHOW("setfsuid(0)", syscall(SYS_setfsuid, 0));
    ids("fsuid 0");
    SHOW("setresuid(2000, -1, -1)", syscall(SYS_setresuid, 2000, -1, -1));
    SHOW("setresuid(1001, 1000, 1000)", syscall(SYS_setresuid, 1001, 1000, 1000));
    ids("all users");
    caps("all users");
    SHOW("setresuid(-1, 1001, -1)", syscall(SYS_setresuid, -1, 1001, -1));
    ids("euid 1001");
    SHOW("setuid(1000) saved", syscall(SYS_setuid, 1000));
    ids("setuid to saved");
}

static void reuid(void)
{
    SHOW("setreuid(1000, 1001)", syscall(SYS_setreuid, 1000, 1001));
    ids("re");
    SHOW("setreuid(1001, -1)", syscall(SYS_setreuid, 1001, -1));
    ids("re real to eff");
    SHOW("setreuid(-1, 1000)", syscall(SYS_setreuid, -1, 1000));
    SHOW("setreuid(1000, -1)", syscall(SYS_setreuid, 1000, -1));
    SHOW("setreuid(-1, -1)", syscall(SYS_setreuid, -1, -1));
    ids("re end");
}

static void reuid_saved(void)
{
    /* The saved id follows the effective one only when the real id is set or the effective
     * one leaves the real one. */
    SHOW("setresuid(0, 0, 7)", syscall(SYS_setresuid, 0, 0, 7));
    SHOW("setreuid(-1, 0)", syscall(SYS_setreuid, -1, 0));
    ids("s kept");
    SHOW("setreuid(-1, 8)", syscall(SYS_setreuid, -1, 8));
    ids("s follows");
    SHOW("setreuid(8, 0) unprivileged", syscall(SYS_setreuid, 8, 0));
    SHOW("setreuid(8, 8)", syscall(SYS_setreuid, 8, 8));
    SHOW("setreuid(0, 8)", syscall(SYS_setreuid, 0, 8));
    ids("re2");
}

static void gids(void)
{
    SHOW("setresgid(100, 200, 300)", syscall(SYS_setresgid, 100, 200, 300));
    gid_t g[2] = { 50, 60 };
    SHOW("setgroups 50 60", setgroups(2, g));
    SHOW("setresuid(1000, 1000, 1000)", syscall(SYS_setresuid, 1000, 1000, 1000));
    ids("gid start");
    groups("gid groups");
    SHOW("setgid(300) saved", syscall(SYS_setgid, 300));
    ids("setgid saved");
    SHOW("setgid(50) supplementary", syscall(SYS_setgid, 50));
    SHOW("setresgid(300, 100, 200)", syscall(SYS_setresgid, 300, 100, 200));
    ids("resgid");
    SHOW("setresgid(400, -1, -1)", syscall(SYS_setresgid, 400, -1, -1));
    SHOW("setregid(200, 100)", syscall(SYS_setregid, 200, 100));
    ids("regid");
    SHOW("setregid(-1, 300)", syscall(SYS_setregid, -1, 300));
    SHOW("setfsgid(300)", syscall(SYS_setfsgid, 300));
    SHOW("setfsgid(50)", syscall(SYS_setfsgid, 50));
    ids("fsgid");
    status_lines("gids");
}

static void threads_share(void)
{
    /* fork inherits every id and the groups */
    gid_t g[1] = { 77 };
    setgroups(1, g);
    syscall(SYS_setresgid, 11, 12, 13);
    syscall(SYS_setresuid, 21, 22, 23);
    pid_t p = fork();
    if (p == 0) {
        ids("forked child");
        groups("forked groups");
        exit(0);
    }
    int st;
    waitpid(p, &st, 0);
}

static const char *self_path = "/proc/self/exe";

static void copy_self(const char *to, mode_t mode, uid_t uid, gid_t gid)
{
    int in = open(self_path, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0700);
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

static void exec_suid(void)
{
    syscall(SYS_setresgid, 2000, 2000, 2000);
    setgroups(0, NULL);
    syscall(SYS_setresuid, 2000, 2000, 2000);
    execl("./suid", "suid", "--ids", "set-id exec", NULL);
    printf("execl: %s\n", errname(errno));
}

static void exec_nnp(void)
{
    syscall(SYS_setresgid, 2000, 2000, 2000);
    setgroups(0, NULL);
    syscall(SYS_setresuid, 2000, 2000, 2000);
    SHOW("PR_SET_NO_NEW_PRIVS", prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
    SHOW("PR_GET_NO_NEW_PRIVS", prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
    execl("./suid", "suid", "--ids", "no_new_privs exec", NULL);
    printf("execl: %s\n", errname(errno));
}

static void exec_nosuid(void)
{
    syscall(SYS_setresuid, 2000, 2000, 2000);
    execl("mnt/suid", "suid", "--ids", "nosuid exec", NULL);
    printf("execl: %s\n", errname(errno));
}

static void exec_root_plain(void)
{
    execl("./suid", "suid", "--ids", "root exec of set-id file", NULL);
    printf("execl: %s\n", errname(errno));
}

int main(int argc, char **argv)
{
    corpus_init();
    if (argc == 3 && !strcmp(argv[1], "--ids")) {
        ids(argv[2]);
        printf("%s: AT_SECURE %lu dumpable %d keepcaps %d\n", argv[2], getauxval(AT_SECURE),
               prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), prctl(PR_GET_KEEPCAPS, 0, 0, 0, 0));
        caps(argv[2]);
        return 0;
    }
    chmod(".", 0755);
    run_child("root rules", root_rules);
    run_child("capget errors", capget_errors);
    run_child("to user", to_user);
    run_child("saved id", saved_id);
    run_child("setreuid", reuid);
    run_child("setreuid saved", reuid_saved);
    run_child("gids", gids);
    run_child("fork", threads_share);
    run_child("keepcaps", keepcaps);
    run_child("keepcaps exec", keepcaps_exec);
    run_child("capset drop", capset_drop);
    run_child("fs capabilities", fs_caps);
    copy_self("suid", 06755, 1000, 1001);
    struct stat st;
    stat("suid", &st);
    printf("suid file: mode %o uid %u gid %u\n", st.st_mode & 07777, st.st_uid, st.st_gid);
    run_child("exec set-id", exec_suid);
    run_child("exec no_new_privs", exec_nnp);
    run_child("exec as root", exec_root_plain);
    mkdir("mnt", 0755);
    if (TRY("mount nosuid", mount("none", "mnt", "tmpfs", MS_NOSUID, "mode=755")) == 0) {
        copy_self("mnt/suid", 06755, 1000, 1001);
        run_child("exec nosuid", exec_nosuid);
        umount("mnt");
    }
    return 0;
}
