/*
 * /init of the native-Linux reference guest: mounts /proc and /sys, reads
 * the benchmark selection from /proc/cmdline, runs each benchmark in a
 * forked child, prints BENCH lines and BENCH-DONE, then powers off so QEMU
 * exits.
 *
 * Kernel command line parameters (all optional):
 *   bench=NAME[:ITERS],...   benchmarks or groups to run (default: all)
 *   iters=N                  iteration count for benchmarks without :ITERS
 *                            (default: each benchmark's own default)
 *   warmup=N                 untimed warm-up iterations for every benchmark
 *                            (default: each benchmark's own fixed warm-up)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "bench.h"

struct bench {
    const char *name;
    long def_iters;
    long def_warmup;
    int (*fn)(long iters, long warmup);
};

/* Default counts keep a full icount run at a few seconds of host time.
 * Warm-ups are fixed (not a fraction of iters) so a figure does not depend
 * on the iteration count.  The ping-pongs need thousands of rounds: under
 * icount their cost per round trip is ~20% lower for the first ~1000 rounds
 * after fork and then settles (see README). */
static const struct bench benches[] = {
    {"tsc_calib", 100000, 0, bench_tsc_calib}, /* short: a 250 Hz tick every 4M instr */
    {"getpid", 100000, 1000, bench_getpid},
    {"pipe_pingpong_1b", 10000, 3000, bench_pipe_pingpong},
    {"futex_pingpong", 10000, 3000, bench_futex_pingpong},
    {"trap", 10000, 256, bench_trap},
    {"pagefault_anon", 10000, 1024, bench_pagefault_anon},
    {"appel1", 10000, 1000, bench_appel1},
    {"appel2", 10000, 1000, bench_appel2},
};
#define NBENCH (sizeof(benches) / sizeof(benches[0]))

/* Short names for groups of benchmarks on the command line. */
static const struct {
    const char *alias;
    const char *members;
} aliases[] = {
    {"all", "tsc_calib,getpid,pipe_pingpong_1b,futex_pingpong,trap,pagefault_anon,appel1,appel2"},
    {"calib", "tsc_calib"},
    {"pipe", "pipe_pingpong_1b"},
    {"futex", "futex_pingpong"},
    {"ipc", "pipe_pingpong_1b,futex_pingpong"},
    {"vm", "trap,pagefault_anon,appel1,appel2"},
    {"mprotect", "trap,appel1,appel2"},
};

void out(const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof buf)
        n = sizeof buf - 1;
    for (int off = 0; off < n;) {
        ssize_t w = write(1, buf + off, n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        off += w;
    }
}

void report(const char *name, long iters, uint64_t tsc, uint64_t ns)
{
    out("BENCH name=%s iters=%ld tsc_per_op=%.2f ns_per_op=%.2f tsc=%llu ns=%llu\n",
        name, iters, (double)tsc / iters, (double)ns / iters,
        (unsigned long long)tsc, (unsigned long long)ns);
}

void report_scaled(const char *name, long iters, uint64_t tsc_part,
                   uint64_t tsc_all, uint64_t ns_all)
{
    uint64_t ns = tsc_all ? (uint64_t)((double)tsc_part * ns_all / tsc_all) : 0;
    report(name, iters, tsc_part, ns);
}

void bench_fail(const char *name, const char *what)
{
    out("BENCH-ERROR name=%s reason=%s errno=%d\n", name, what, errno);
}

static const struct bench *find_bench(const char *name)
{
    for (size_t i = 0; i < NBENCH; i++)
        if (strcmp(benches[i].name, name) == 0)
            return &benches[i];
    return NULL;
}

/* Returns the value of "key=" in the command line copied into buf, or NULL. */
static const char *cmdline_get(const char *cmdline, const char *key, char *buf, size_t len)
{
    size_t klen = strlen(key);
    const char *p = cmdline;
    while (*p) {
        while (*p == ' ' || *p == '\n')
            p++;
        const char *end = p;
        while (*end && *end != ' ' && *end != '\n')
            end++;
        if ((size_t)(end - p) > klen && strncmp(p, key, klen) == 0 && p[klen] == '=') {
            size_t n = end - p - klen - 1;
            if (n >= len)
                n = len - 1;
            memcpy(buf, p + klen + 1, n);
            buf[n] = 0;
            return buf;
        }
        p = end;
    }
    return NULL;
}

static void read_file_all(const char *path, char *buf, size_t len)
{
    size_t got = 0;
    int fd = open(path, O_RDONLY);
    if (fd >= 0) {
        ssize_t n;
        while (got < len - 1 && (n = read(fd, buf + got, len - 1 - got)) > 0)
            got += n;
        close(fd);
    }
    buf[got] = 0;
}

/* First line of a small file, without the newline. */
static void read_file(const char *path, char *buf, size_t len)
{
    read_file_all(path, buf, len);
    buf[strcspn(buf, "\n")] = 0;
}

/* The CPU model QEMU presents decides which mitigations the kernel uses. */
static void print_cpu(void)
{
    static char buf[16384];
    read_file_all("/proc/cpuinfo", buf, sizeof buf);
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
        if (!strncmp(line, "vendor_id", 9) || !strncmp(line, "model name", 10)) {
            char *v = strchr(line, ':');
            out("INFO cpu %.*s=%s\n", (int)strcspn(line, "\t:"), line, v ? v + 2 : "");
        } else if (!strncmp(line, "flags", 5)) {
            /* Features that select kernel code paths we measure: erms/fsrm
             * pick rep-stosb/movsb page clearing and copying (each byte one
             * icount tick), pcid/invpcid the TLB flush on context switch. */
            static const char *const want[] = {"erms", "fsrm", "pcid", "invpcid", "smep",
                                               "smap", "xsave", "xsaveopt", "rdrand", "pku"};
            char flags[256] = "", padded[4096], pat[32];
            size_t used = 0;
            /* ": fpu ... pku " so every flag is surrounded by blanks */
            snprintf(padded, sizeof padded, "%s ", strchr(line, ':') ? strchr(line, ':') : line);
            for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
                snprintf(pat, sizeof pat, " %s ", want[i]);
                int n = snprintf(flags + used, sizeof flags - used, "%s%s=%d", used ? " " : "",
                                 want[i], strstr(padded, pat) != NULL);
                if (n > 0 && (size_t)n < sizeof flags - used)
                    used += n;
            }
            out("INFO cpu flags %s\n", flags);
        }
        else if (!strncmp(line, "processor", 9) && strstr(line, ": 1"))
            break; /* one CPU is enough */
}

/* Facts about the guest that change the numbers (mitigations, clocksource). */
static void print_info(const char *cmdline)
{
    struct utsname u;
    char buf[256];
    if (uname(&u) == 0)
        out("INFO kernel=%s %s\n", u.release, u.version);
    out("INFO cmdline=%s\n", cmdline);
    print_cpu();
    read_file("/proc/uptime", buf, sizeof buf);
    out("INFO uptime_idle_s=%s\n", buf); /* idle seconds so far: boot-time idling */
    read_file("/sys/devices/system/clocksource/clocksource0/current_clocksource", buf, sizeof buf);
    out("INFO clocksource=%s\n", buf);
    read_file("/sys/kernel/mm/transparent_hugepage/enabled", buf, sizeof buf);
    out("INFO thp=%s\n", buf);
    DIR *d = opendir("/sys/devices/system/cpu/vulnerabilities");
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            char path[512];
            snprintf(path, sizeof path, "/sys/devices/system/cpu/vulnerabilities/%s", e->d_name);
            read_file(path, buf, sizeof buf);
            out("INFO vuln %s=%s\n", e->d_name, buf);
        }
        closedir(d);
    }
}

/* Guest idle time so far in ms (second field of /proc/uptime). Printed
 * around each benchmark to show that the benchmarks never idle: under icount
 * every TSC tick they report is an executed instruction, not waiting. */
static long idle_ms(void)
{
    char buf[128];
    double up, idle;
    read_file("/proc/uptime", buf, sizeof buf);
    if (sscanf(buf, "%lf %lf", &up, &idle) != 2)
        return -1;
    return (long)(idle * 1000 + 0.5);
}

static void run_one(const struct bench *b, long iters, long warmup)
{
    out("INFO start name=%s iters=%ld warmup=%ld\n", b->name, iters, warmup);
    long idle0 = idle_ms();
    pid_t pid = fork();
    if (pid < 0) {
        bench_fail(b->name, "fork");
        return;
    }
    if (pid == 0)
        _exit(b->fn(iters, warmup) == 0 ? 0 : 1);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (WIFSIGNALED(st))
        out("BENCH-ERROR name=%s reason=killed-by-signal-%d\n", b->name, WTERMSIG(st));
    else if (WEXITSTATUS(st) != 0)
        out("BENCH-ERROR name=%s reason=exit-status-%d\n", b->name, WEXITSTATUS(st));
    out("INFO end name=%s idle_ms=%ld\n", b->name, idle_ms() - idle0);
}

/* Runs one comma-separated list entry NAME[:ITERS], expanding aliases. */
static void run_entry(const char *entry, long iters_param, long warmup_param, int depth)
{
    char name[64];
    long iters = iters_param;
    const char *colon = strchr(entry, ':');
    size_t n = colon ? (size_t)(colon - entry) : strlen(entry);
    if (n == 0 || n >= sizeof name) {
        out("BENCH-ERROR name=%s reason=bad-entry\n", entry);
        return;
    }
    memcpy(name, entry, n);
    name[n] = 0;
    if (colon) {
        char *end;
        iters = strtol(colon + 1, &end, 10);
        if (*end || iters <= 0) {
            out("BENCH-ERROR name=%s reason=bad-iters\n", name);
            return;
        }
    }
    for (size_t i = 0; depth == 0 && i < sizeof aliases / sizeof aliases[0]; i++) {
        if (strcmp(aliases[i].alias, name) == 0) {
            char list[256];
            snprintf(list, sizeof list, "%s", aliases[i].members);
            for (char *save, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
                run_entry(tok, iters, warmup_param, 1);
            return;
        }
    }
    const struct bench *b = find_bench(name);
    if (!b) {
        out("BENCH-ERROR name=%s reason=unknown-benchmark\n", name);
        return;
    }
    if (iters <= 0)
        iters = b->def_iters;
    run_one(b, iters, warmup_param >= 0 ? warmup_param : b->def_warmup);
}

static void power_off(void)
{
    sync();
    reboot(RB_POWER_OFF);
    /* Only reached if poweroff failed; exiting makes the kernel panic, and
     * panic=-1 plus QEMU's -no-reboot still ends the run. */
    out("INFO poweroff failed errno=%d\n", errno);
    _exit(1);
}

int main(void)
{
    /* Mount errors are not fatal: only INFO lines and /proc/cmdline depend
     * on them, and a missing cmdline just means "run the defaults". */
    mount("proc", "/proc", "proc", 0, NULL);
    mount("sysfs", "/sys", "sysfs", 0, NULL);

    char cmdline[4096], sel[1024], tmp[64];
    read_file("/proc/cmdline", cmdline, sizeof cmdline);
    print_info(cmdline);

    long iters = -1, warmup = -1;
    if (cmdline_get(cmdline, "iters", tmp, sizeof tmp))
        iters = strtol(tmp, NULL, 10);
    if (cmdline_get(cmdline, "warmup", tmp, sizeof tmp))
        warmup = strtol(tmp, NULL, 10);
    if (!cmdline_get(cmdline, "bench", sel, sizeof sel))
        strcpy(sel, "all");

    for (char *save, *tok = strtok_r(sel, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
        run_entry(tok, iters, warmup, 0);

    out("BENCH-DONE\n");
    power_off();
    return 0;
}
