/* /proc/sys: the settings' values (those that are the same on every kernel of this
 * configuration; the ones that depend on the machine's memory or on chance are checked for
 * their form only, and said so), writes that act (pid_max, nr_open, max_map_count,
 * pipe-max-size, hostname through uname, core_pattern), bad writes (EINVAL) and writes to
 * read-only settings (EACCES), the directories' listings. */
#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include "corpus.h"

static char buf[4096];

static const char *get(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "/proc/sys/%s", name);
    int f = open(path, O_RDONLY);
    if (f < 0) {
        snprintf(buf, sizeof buf, "open: %s\n", errname(errno));
        return buf;
    }
    long n = read(f, buf, sizeof buf - 1);
    close(f);
    buf[n > 0 ? n : 0] = 0;
    return buf;
}

static void show(const char *name)
{
    printf("%s: %s", name, get(name));
}

/* Only whether the value is a positive number (it depends on the machine's memory). */
static void show_positive(const char *name)
{
    const char *v = get(name);
    printf("%s: %s\n", name, atol(v) > 0 && v[strspn(v, "0123456789")] == '\n' ? "a number > 0"
                                                                                : v);
}

static void put(const char *name, const char *value)
{
    char path[256];
    snprintf(path, sizeof path, "/proc/sys/%s", name);
    int f = open(path, O_WRONLY);
    if (f < 0) {
        printf("write %s \"%s\": open %s\n", name, value, errname(errno));
        return;
    }
    long r = write(f, value, strlen(value));
    close(f);
    printf("write %s \"%.*s\": %s", name, (int)strcspn(value, "\n"), value,
           r < 0 ? errname(errno) : r == (long)strlen(value) ? "all" : "part");
    printf(" -> %s", get(name));
}

static int cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void list(const char *dir)
{
    char path[256], *names[256];
    int n = 0;
    snprintf(path, sizeof path, "/proc/sys/%s", dir);
    DIR *d = opendir(path);
    struct dirent *e;
    while (d && (e = readdir(d)) && n < 256)
        if (e->d_name[0] != '.')
            names[n++] = strdup(e->d_name);
    if (d)
        closedir(d);
    qsort(names, (size_t)n, sizeof names[0], cmp);
    printf("%s has %d entries\n", dir, n);
    for (int k = 0; k < n; k++)
        free(names[k]);
}

int main(void)
{
    corpus_init();
    /* the values */
    static const char *const same[] = {
        "kernel/pid_max", "kernel/ngroups_max", "kernel/ostype", "kernel/core_pattern",
        "kernel/core_uses_pid", "kernel/printk", "kernel/dmesg_restrict", "kernel/cap_last_cap",
        "kernel/overflowuid", "kernel/overflowgid", "vm/max_map_count", "vm/overcommit_memory",
        "fs/nr_open", "fs/pipe-max-size", "fs/inotify/max_user_instances",
        "fs/inotify/max_queued_events", "net/core/somaxconn", "kernel/domainname",
    };
    for (unsigned k = 0; k < sizeof same / sizeof same[0]; k++)
        show(same[k]);
    show_positive("kernel/threads-max");
    show_positive("fs/file-max");
    show_positive("fs/inotify/max_user_watches");
    printf("kernel/osrelease starts with 6.1.: %s\n",
           !strncmp(get("kernel/osrelease"), "6.1.", 4) ? "yes" : "no");
    /* a UUID: 8-4-4-4-12 hex digits, version 4, variant 10; uuid new at each read, boot_id not */
    char u1[64], u2[64], b1[64], b2[64];
    strcpy(u1, get("kernel/random/uuid"));
    strcpy(u2, get("kernel/random/uuid"));
    strcpy(b1, get("kernel/random/boot_id"));
    strcpy(b2, get("kernel/random/boot_id"));
    printf("uuid form: %s\n", strlen(u1) == 37 && u1[8] == '-' && u1[13] == '-' && u1[14] == '4' &&
                                  u1[18] == '-' && strchr("89ab", u1[19]) && u1[23] == '-'
                              ? "ok" : u1);
    printf("uuid twice differs: %s, boot_id twice same: %s\n", strcmp(u1, u2) ? "yes" : "no",
           strcmp(b1, b2) ? "no" : "yes");

    /* the files' modes */
    static const char *const modes[] = { "kernel/pid_max", "kernel/ostype", "kernel/random/uuid",
                                         "kernel/cap_last_cap", "fs/nr_open", "kernel" };
    for (unsigned k = 0; k < sizeof modes / sizeof modes[0]; k++) {
        struct stat st;
        char path[256];
        snprintf(path, sizeof path, "/proc/sys/%s", modes[k]);
        if (stat(path, &st))
            printf("stat %s: %s\n", modes[k], errname(errno));
        else
            printf("mode of %s: %o, size %ld\n", modes[k], st.st_mode, (long)st.st_size);
    }

    /* writes and what they do */
    put("kernel/hostname", "corpus-host\n");
    struct utsname un;
    uname(&un);
    printf("uname nodename: %s\n", un.nodename);
    SHOW("sethostname", sethostname("another", 7));
    show("kernel/hostname");
    SHOW("sethostname 65 bytes", sethostname(buf, 65));
    SHOW("sethostname -1", syscall(SYS_sethostname, "x", -1L));
    SHOW("sethostname bad pointer", syscall(SYS_sethostname, 8L, 5L));
    put("kernel/domainname", "corpus.domain");
    SHOW("setdomainname", setdomainname("(none)", 6));
    show("kernel/domainname");
    put("kernel/ostype", "Plan9");
    put("kernel/cap_last_cap", "3");

    put("kernel/pid_max", "1000");
    put("kernel/pid_max", "300");
    put("kernel/pid_max", "4194305");
    put("kernel/pid_max", "abc");
    put("kernel/pid_max", "12 34");
    put("kernel/pid_max", "  0x800\n");
    put("kernel/pid_max", "-5");
    put("kernel/pid_max", "\n");
    put("kernel/pid_max", "32768");

    put("fs/nr_open", "2048");
    struct rlimit rl = { 1024, 4096 };
    SHOW("setrlimit NOFILE hard 4096 over nr_open", setrlimit(RLIMIT_NOFILE, &rl));
    rl.rlim_max = 2048;
    SHOW("setrlimit NOFILE hard 2048", setrlimit(RLIMIT_NOFILE, &rl));
    put("fs/nr_open", "63");
    put("fs/nr_open", "1048576");

    put("vm/max_map_count", "100");
    int ok = 0, err = 0;
    for (int k = 0; k < 200; k++) {
        void *p = mmap(NULL, 4096, k % 2 ? PROT_READ : PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            err = errno;
            break;
        }
        ok++;
    }
    printf("mmaps under max_map_count 100: stopped %s (fewer than 100: %s)\n", errname(err),
           ok < 100 ? "yes" : "no");
    put("vm/max_map_count", "-1");
    put("vm/max_map_count", "65530");
    put("vm/overcommit_memory", "3");
    put("vm/overcommit_memory", "1");
    put("vm/overcommit_memory", "0");

    put("fs/pipe-max-size", "5000");
    put("fs/pipe-max-size", "0");
    put("fs/pipe-max-size", "4294967296");
    put("fs/pipe-max-size", "1048576");
    put("kernel/core_pattern", "core.%p\n");
    put("kernel/core_pattern", "core");
    put("kernel/printk", "7");
    put("kernel/printk", "4 4 1 7");
    put("kernel/dmesg_restrict", "2");
    put("net/core/somaxconn", "-1");

    /* the directories */
    static const char *const top[] = { "debug", "fs", "kernel", "net", "vm" };
    for (unsigned k = 0; k < sizeof top / sizeof top[0]; k++) {
        struct stat st;
        char path[64];
        snprintf(path, sizeof path, "/proc/sys/%s", top[k]);
        printf("/proc/sys/%s: %s\n", top[k], stat(path, &st) ? errname(errno) : "there");
    }
    show("debug/exception-trace");
    show("kernel/random/poolsize");
    show("kernel/random/urandom_min_reseed_secs");
    show("kernel/random/write_wakeup_threshold");
    list("kernel/random");
    list("fs/inotify");
    int f = open("/proc/sys/kernel/nonexistent", O_RDONLY);
    printf("open a missing setting: %s\n", f < 0 ? errname(errno) : "ok");
    f = open("/proc/sys/kernel", O_RDONLY | O_DIRECTORY);
    printf("open the kernel directory: %s\n", f < 0 ? errname(errno) : "ok");
    return 0;
}
