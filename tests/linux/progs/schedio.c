/* sched_setattr, sched_getattr, sched_rr_get_interval, ioprio_set and ioprio_get: the
 * sched_attr size protocol, each class's checks, the unprivileged refusals, the I/O
 * priority a process starts with, keeps, passes on and reports for groups and users.
 * (Only what lx keeps is compared: no real-time class for root, no nice read back after
 * a change: docs/linux/system.md.) */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include "corpus.h"

struct attr {
    uint32_t size, policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime, deadline, period;
    uint32_t util_min, util_max;
    unsigned char tail[64];
};

static long setattr(int pid, struct attr *a, unsigned flags)
{
    return syscall(SYS_sched_setattr, pid, a, flags);
}

static long setpol(const char *what, int pid, uint32_t size, uint32_t policy, uint64_t flags,
                   int nice, uint32_t prio)
{
    struct attr a = { .size = size, .policy = policy, .flags = flags, .nice = nice,
                      .priority = prio };
    return SHOW(what, setattr(pid, &a, 0));
}

static void deadline(const char *what, uint64_t rt, uint64_t dl, uint64_t period)
{
    struct attr a = { .size = 48, .policy = 6, .runtime = rt, .deadline = dl, .period = period };
    SHOW(what, setattr(0, &a, 0));
}

static void getattr(const char *what, unsigned size)
{
    struct attr a;
    memset(&a, 0xa5, sizeof a);
    long r = syscall(SYS_sched_getattr, 0, &a, size, 0);
    if (r < 0) {
        printf("%s: -1 %s\n", what, errname(errno));
        return;
    }
    int untouched = 1;
    for (unsigned k = 56; k < size && k < sizeof a; k++)
        untouched &= ((unsigned char *)&a)[k] == 0xa5;
    printf("%s: size %u policy %u flags %llu nice %d prio %u runtime %llu util %u %u%s\n", what,
           a.size, a.policy, (unsigned long long)a.flags, a.nice, a.priority,
           (unsigned long long)a.runtime, a.util_min, a.util_max,
           untouched ? "" : " (written beyond 56)");
}

static void sizes(void)
{
    struct attr a = { .size = 40 };
    SHOW("setattr size 40", setattr(0, &a, 0));
    printf("  size written back: %u\n", a.size);
    a = (struct attr){ .size = 8192 };
    SHOW("setattr size 8192", setattr(0, &a, 0));
    printf("  size written back: %u\n", a.size);
    a = (struct attr){ .size = 0 };
    SHOW("setattr size 0 (VER0)", setattr(0, &a, 0));
    printf("  size after: %u\n", a.size);
    a = (struct attr){ .size = 120 };
    SHOW("setattr size 120, zero tail", setattr(0, &a, 0));
    a.tail[40] = 1;
    SHOW("setattr size 120, nonzero tail", setattr(0, &a, 0));
    printf("  size written back: %u\n", a.size);
    a = (struct attr){ .size = 56 };
    a.tail[0] = 1;
    SHOW("setattr size 56, byte 57 nonzero (not read)", setattr(0, &a, 0));
}

static void unprivileged(void)
{
    if (setuid(65534) < 0)
        printf("setuid: %s\n", errname(errno));
    setpol("user: FIFO 10", 0, 48, 1, 0, 0, 10);
    setpol("user: RR 1", 0, 48, 2, 0, 0, 1);
    deadline("user: DEADLINE valid", 10000000, 30000000, 100000000);
    setpol("user: nice -1", 0, 48, 0, 0, -1, 0);
    setpol("user: pid 1", 1, 48, 0, 0, 0, 0);
    setpol("user: util clamp", 0, 56, 0, 0x20, 0, 0);
    setpol("user: nice 5", 0, 48, 0, 0, 5, 0);
    SHOW("user: ioprio RT 0", syscall(SYS_ioprio_set, 1, 0, 1 << 13));
    SHOW("user: ioprio of pid 1", syscall(SYS_ioprio_set, 1, 1, 2 << 13));
    SHOW("user: ioprio BE 7", syscall(SYS_ioprio_set, 1, 0, (2 << 13) | 7));
    SHOW("user: ioprio_get USER 0", syscall(SYS_ioprio_get, 3, 0));
    SHOW("user: ioprio_get USER 65534", syscall(SYS_ioprio_get, 3, 65534));
}

static void batch_idle(void)
{
    setpol("BATCH", 0, 48, 3, 0, 0, 0);
    setpol("IDLE", 0, 48, 5, 0, 0, 0);
    setpol("OTHER nice 7", 0, 48, 0, 0, 7, 0);
    setpol("OTHER nice 100 (clamped)", 0, 48, 0, 0, 100, 0);
}

static void rr_interval(void)
{
    struct timespec ts;
    long r = syscall(SYS_sched_rr_get_interval, 0, &ts);
    /* CFS's slice depends on what else runs: only its form is compared */
    printf("rr_get_interval self: %ld, sec %ld, whole 4 ms jiffies %d, below 100 ms %d\n", r,
           (long)ts.tv_sec, ts.tv_nsec % 4000000 == 0, ts.tv_nsec < 100000000);
    SHOW("rr_get_interval pid -1", syscall(SYS_sched_rr_get_interval, -1, &ts));
    SHOW("rr_get_interval no such pid", syscall(SYS_sched_rr_get_interval, 999999, &ts));
    SHOW("rr_get_interval bad pointer", syscall(SYS_sched_rr_get_interval, 0, (void *)8));
    SHOW("rr_get_interval own pid", syscall(SYS_sched_rr_get_interval, getpid(), &ts));
}

static void ioprio_child(void)
{
    printf("  child: %ld\n", syscall(SYS_ioprio_get, 1, 0));
}

static void ioprio_group(void)
{
    setpgid(0, 0);
    SHOW("ioprio_get PGRP alone", syscall(SYS_ioprio_get, 2, 0));
    int release = -1;
    pid_t c = fork_held(&release);
    SHOW("ioprio_get PGRP of two", syscall(SYS_ioprio_get, 2, 0));
    SHOW("ioprio_set PGRP BE 3", syscall(SYS_ioprio_set, 2, 0, (2 << 13) | 3));
    SHOW("ioprio_get PGRP", syscall(SYS_ioprio_get, 2, getpgrp()));
    SHOW("ioprio_get the other member", syscall(SYS_ioprio_get, 1, c));
    SHOW("ioprio_set member IDLE", syscall(SYS_ioprio_set, 1, c, 3 << 13));
    SHOW("ioprio_get PGRP (best)", syscall(SYS_ioprio_get, 2, 0));
    close(release);
    waitpid(c, NULL, 0);
}

static void ioprio(void)
{
    SHOW("ioprio_get self", syscall(SYS_ioprio_get, 1, 0));
    SHOW("ioprio_get own pid", syscall(SYS_ioprio_get, 1, getpid()));
    SHOW("ioprio_get which 4", syscall(SYS_ioprio_get, 4, 0));
    SHOW("ioprio_get which 0", syscall(SYS_ioprio_get, 0, 0));
    SHOW("ioprio_get no such pid", syscall(SYS_ioprio_get, 1, 999999));
    SHOW("ioprio_get no such group", syscall(SYS_ioprio_get, 2, 999999));
    SHOW("ioprio_get no such user", syscall(SYS_ioprio_get, 3, 12345));
    SHOW("ioprio_set class 4", syscall(SYS_ioprio_set, 1, 0, 4 << 13));
    SHOW("ioprio_set class 7", syscall(SYS_ioprio_set, 1, 0, 7 << 13));
    SHOW("ioprio_set BE 8", syscall(SYS_ioprio_set, 1, 0, (2 << 13) | 8));
    SHOW("ioprio_set NONE 1", syscall(SYS_ioprio_set, 1, 0, 1));
    SHOW("ioprio_set -1", syscall(SYS_ioprio_set, 1, 0, -1));
    SHOW("ioprio_set which 4", syscall(SYS_ioprio_set, 4, 0, 2 << 13));
    SHOW("ioprio_set which 4, bad class", syscall(SYS_ioprio_set, 4, 0, 5 << 13));
    SHOW("ioprio_set no such pid", syscall(SYS_ioprio_set, 1, 999999, 2 << 13));
    SHOW("ioprio_set no such group", syscall(SYS_ioprio_set, 2, 999999, 2 << 13));
    SHOW("ioprio_set BE 2", syscall(SYS_ioprio_set, 1, 0, (2 << 13) | 2));
    SHOW("ioprio_get", syscall(SYS_ioprio_get, 1, 0));
    run_child("child of BE 2", ioprio_child);
    SHOW("ioprio_set IDLE 5 (level kept)", syscall(SYS_ioprio_set, 1, 0, (3 << 13) | 5));
    SHOW("ioprio_get", syscall(SYS_ioprio_get, 1, 0));
    SHOW("ioprio_set RT 7 (root)", syscall(SYS_ioprio_set, 1, 0, (1 << 13) | 7));
    SHOW("ioprio_get", syscall(SYS_ioprio_get, 1, 0));
    SHOW("ioprio_set NONE 0", syscall(SYS_ioprio_set, 1, 0, 0));
    SHOW("ioprio_get", syscall(SYS_ioprio_get, 1, 0));
    run_child("child of NONE 0", ioprio_child);
    SHOW("ioprio_set 0x10000 (class bits 0)", syscall(SYS_ioprio_set, 1, 0, 0x10000));
    SHOW("ioprio_get", syscall(SYS_ioprio_get, 1, 0));
    run_child("group", ioprio_group);
    run_child("unprivileged", unprivileged);
}

int main(void)
{
    corpus_init();
    getattr("getattr VER0", 48);
    getattr("getattr VER1", 56);
    getattr("getattr 100", 100);
    getattr("getattr 47", 47);
    getattr("getattr 4097", 4097);
    struct attr a;
    SHOW("getattr flags 1", syscall(SYS_sched_getattr, 0, &a, 56, 1));
    SHOW("getattr NULL", syscall(SYS_sched_getattr, 0, NULL, 56, 0));
    SHOW("getattr pid -1", syscall(SYS_sched_getattr, -1, &a, 56, 0));
    SHOW("getattr no such pid", syscall(SYS_sched_getattr, 999999, &a, 56, 0));
    SHOW("getattr bad pointer", syscall(SYS_sched_getattr, 0, (void *)8, 56, 0));

    setpol("setattr OTHER", 0, 48, 0, 0, 0, 0);
    setpol("setattr own pid", getpid(), 56, 0, 0, 0, 0);
    sizes();
    a = (struct attr){ .size = 48 };
    SHOW("setattr flags 1", setattr(0, &a, 1));
    SHOW("setattr NULL", setattr(0, NULL, 0));
    SHOW("setattr pid -1", setattr(-1, &a, 0));
    SHOW("setattr no such pid", setattr(999999, &a, 0));
    SHOW("setattr bad pointer", setattr(0, (void *)8, 0));
    setpol("setattr policy -1", 0, 48, (uint32_t)-1, 0, 0, 0);
    setpol("setattr policy 4", 0, 48, 4, 0, 0, 0);
    setpol("setattr policy 7", 0, 48, 7, 0, 0, 0);
    setpol("setattr sched_flags 0x80", 0, 48, 0, 0x80, 0, 0);
    setpol("setattr SUGOV", 0, 48, 0, 0x10000000, 0, 0);
    setpol("setattr OTHER prio 1", 0, 48, 0, 0, 0, 1);
    setpol("setattr FIFO prio 0", 0, 48, 1, 0, 0, 0);
    setpol("setattr RR prio 100", 0, 48, 2, 0, 0, 100);
    setpol("setattr KEEP_POLICY|KEEP_PARAMS", 0, 48, 1, 0x18, 0, 0);
    setpol("setattr KEEP_POLICY, prio 5", 0, 48, 0, 0x08, 0, 5);
    setpol("setattr util clamp, VER0 size", 0, 48, 0, 0x20, 0, 0);
    setpol("setattr util clamp", 0, 56, 0, 0x20, 0, 0);
    setpol("setattr util clamp max", 0, 56, 0, 0x40, 0, 0);
    deadline("DEADLINE deadline 0", 10000000, 0, 0);
    deadline("DEADLINE runtime 1000", 1000, 30000000, 100000000);
    deadline("DEADLINE deadline > period", 10000000, 300000000, 100000000);
    deadline("DEADLINE runtime > deadline", 40000000, 30000000, 100000000);
    deadline("DEADLINE period 50 us", 20000, 30000, 50000);
    deadline("DEADLINE period 5 s", 10000000, 30000000, 5000000000ull);
    deadline("DEADLINE bit 63", 10000000, 1ull << 63, 0);
    getattr("getattr after", 56);
    run_child("batch and idle", batch_idle);
    rr_interval();
    ioprio();
    return 0;
}
