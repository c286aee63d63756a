/* /proc/PID's files as Linux 6.1 writes them: status's field names in order and its values
 * that are the same on every kernel (after the program sets them: a mask, an ignored and a
 * caught signal, a umask); statm's field count; limits after every limit was set to a
 * known value; maps for a file mapped at an offset (the offset, and the device and inode
 * against stat's), an anonymous shared mapping, [heap] and [stack]; environ's mode; the
 * files of another process (a child) and of a zombie.  Addresses, sizes and times differ
 * between kernels and are not printed. */
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "corpus.h"

static char buf[65536];

static long slurp(const char *path)
{
    int f = open(path, O_RDONLY);
    if (f < 0)
        return -errno;
    long n = 0, r;
    while ((r = read(f, buf + n, sizeof buf - 1 - (size_t)n)) > 0)
        n += r;
    close(f);
    buf[n] = 0;
    return n;
}

static const char *field(const char *name)
{
    static char v[256];
    char key[64];
    snprintf(key, sizeof key, "\n%s:", name);
    char *p = strstr(buf, key);
    if (!p) {
        snprintf(v, sizeof v, "(none)");
        return v;
    }
    p += strlen(key);
    while (*p == '\t' || *p == ' ')
        p++;
    size_t n = strcspn(p, "\n");
    snprintf(v, sizeof v, "%.*s", (int)n, p);
    return v;
}

static void status_of(const char *path, pid_t pid)
{
    const char *shown = pid == getpid() ? path : "/proc/CHILD/status";
    if (slurp(path) < 0) {
        printf("%s: %s\n", shown, errname(errno));
        return;
    }
    printf("%s names:", shown);
    for (char *line = buf; *line;) {
        char *colon = strchr(line, ':'), *nl = strchr(line, '\n');
        if (!colon || !nl)
            break;
        printf(" %.*s", (int)(colon - line), line);
        line = nl + 1;
    }
    printf("\n");
    char pids[32];
    snprintf(pids, sizeof pids, "%d", pid);
    memmove(buf + 1, buf, strlen(buf) + 1);
    buf[0] = '\n';
    static const char *const same[] = {
        "Name", "Umask", "State", "Ngid", "TracerPid", "Uid", "Gid", "NSsid", "VmLck", "VmPin",
        "VmSwap", "HugetlbPages", "CoreDumping", "Threads", "SigPnd", "ShdPnd", "SigBlk",
        "SigIgn", "SigCgt", "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb", "NoNewPrivs",
        "Seccomp", "Seccomp_filters", "Cpus_allowed", "Cpus_allowed_list", "Mems_allowed_list",
    };
    for (unsigned k = 0; k < sizeof same / sizeof same[0]; k++)
        printf("  %s: %s\n", same[k], field(same[k]));
    printf("  Tgid, Pid, NStgid, NSpid are the pid: %s\n",
           !strcmp(field("Tgid"), pids) && !strcmp(field("Pid"), pids) &&
           !strcmp(field("NStgid"), pids) && !strcmp(field("NSpid"), pids) ? "yes" : "no");
    static const char *const kb[] = { "VmPeak", "VmSize", "VmHWM", "VmRSS", "RssAnon", "RssFile",
                                      "RssShmem", "VmData", "VmStk", "VmExe", "VmLib", "VmPTE" };
    int ok = 1;
    for (unsigned k = 0; k < sizeof kb / sizeof kb[0]; k++) {
        const char *v = field(kb[k]);
        ok &= strlen(v) > 3 && !strcmp(v + strlen(v) - 3, " kB");
    }
    printf("  the Vm and Rss fields are sizes in kB: %s\n", ok ? "yes" : "no");
}

int main(void)
{
    corpus_init();
    umask(027);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    sigaddset(&set, SIGRTMIN + 3);
    sigprocmask(SIG_BLOCK, &set, NULL);
    signal(SIGUSR2, SIG_IGN);
    signal(SIGTERM, (void (*)(int))1 + 1);   /* a handler address that is never called */
    status_of("/proc/self/status", getpid());

    /* statm: seven numbers */
    slurp("/proc/self/statm");
    int fields = 0;
    for (char *p = strtok(buf, " \n"); p; p = strtok(NULL, " \n"))
        fields++;
    printf("statm fields: %d\n", fields);

    /* limits, after each is set */
    static const rlim_t soft[16] = { 100, 200000, 300000, 400000, 4096, 600000, 70, 80, 90000,
                                     RLIM_INFINITY, 110, 120, 130, 14, 15, 160 };
    for (int r = 0; r < 16; r++) {
        struct rlimit rl;
        getrlimit(r, &rl);
        rl.rlim_cur = soft[r] < rl.rlim_max || rl.rlim_max == RLIM_INFINITY ? soft[r] : rl.rlim_max;
        if (setrlimit(r, &rl))
            printf("setrlimit %d: %s\n", r, errname(errno));
        rl.rlim_max = rl.rlim_cur;
        if (setrlimit(r, &rl))
            printf("setrlimit %d hard: %s\n", r, errname(errno));
    }
    slurp("/proc/self/limits");
    printf("%s", buf);

    /* maps: a file at an offset, anonymous shared memory */
    int f = open("/tmp/procfiles.data", O_RDWR | O_CREAT | O_TRUNC, 0644);
    ftruncate(f, 5 * 4096);
    struct stat st;
    fstat(f, &st);
    char *m = mmap(NULL, 2 * 4096, PROT_READ, MAP_SHARED, f, 2 * 4096);
    char *z = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    char *heap = malloc(100);
    (void)heap;
    slurp("/proc/self/maps");
    char *line = strtok(buf, "\n");
    int heap_seen = 0;
    for (; line; line = strtok(NULL, "\n")) {
        unsigned long lo, hi, off, ino;
        unsigned maj, mnr;
        char perms[8];
        int name_at = 0;
        if (sscanf(line, "%lx-%lx %7s %lx %x:%x %lu %n", &lo, &hi, perms, &off, &maj, &mnr, &ino,
                   &name_at) < 7)
            continue;
        const char *name = line + name_at;
        if (lo == (unsigned long)m)
            printf("file mapping: %s offset %#lx, device %s, inode %s, size %lu, name %s\n",
                   perms, off, makedev(maj, mnr) == st.st_dev ? "as stat's" : "other",
                   ino == st.st_ino ? "as stat's" : "other", hi - lo, name);
        else if (lo == (unsigned long)z)
            printf("shared anonymous: %s offset %#lx, name %s\n", perms, off, name);
        /* one line of each (a kernel may show the heap as several regions) */
        else if ((!strcmp(name, "[heap]") && !heap_seen++) || !strcmp(name, "[stack]"))
            printf("%s: %s offset %#lx, device %02x:%02x, inode %lu\n", name, perms, off, maj,
                   mnr, ino);
        /* the column where the name starts: 73 for addresses of 12 hex digits */
        if (lo == (unsigned long)m)
            printf("name column %d\n", name_at);
    }
    unlink("/tmp/procfiles.data");

    struct stat es;
    stat("/proc/self/environ", &es);
    printf("environ mode %o\n", es.st_mode);

    /* a child's status, and a zombie's */
    int p[2];
    pipe(p);
    pid_t pid = fork();
    if (pid == 0) {
        char c;
        read(p[0], &c, 1);
        _exit(3);
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    slurp(path);
    printf("child: umask %s\n", strstr(buf, "Umask:\t0027") ? "0027" : "other");
    write(p[1], "x", 1);
    siginfo_t si;
    waitid(P_PID, pid, &si, WEXITED | WNOWAIT);
    status_of(path, pid);
    waitpid(pid, NULL, 0);
    return 0;
}
