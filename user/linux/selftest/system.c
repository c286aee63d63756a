/* lxselftest.elf system: identity, limits, scheduling and system information
 * (user/linux/sys_system.c).  Included by selftest.c; the expected values are Linux's for
 * root on one CPU (an init process: the same on Linux). */
enum { SYS_sched_setaffinity = 203, SYS_sched_getaffinity = 204, SYS_getrlimit = 97,
       SYS_sysinfo = 99, SYS_getuid = 102, SYS_getgid = 104, SYS_setuid = 105,
       SYS_geteuid = 107, SYS_getegid = 108, SYS_getgroups = 115, SYS_setgroups = 116,
       SYS_setresuid = 117, SYS_getresuid = 118, SYS_getresgid = 120, SYS_personality = 135,
       SYS_getpriority = 140, SYS_sched_getparam = 143, SYS_sched_getscheduler = 145,
       SYS_sched_get_priority_max = 146, SYS_sched_get_priority_min = 147, SYS_prctl = 157,
       SYS_setrlimit = 160, SYS_getcpu = 309, SYS_prlimit64 = 302 };

static int system_calls(void)
{
    const long efault = -14, einval = -22, esrch = -3;
    check(sys3(SYS_getuid, 0, 0, 0) == 0 && sys3(SYS_geteuid, 0, 0, 0) == 0 &&
          sys3(SYS_getgid, 0, 0, 0) == 0 && sys3(SYS_getegid, 0, 0, 0) == 0, "ids are root");
    unsigned r[3] = { 7, 7, 7 };
    check(sys3(SYS_getresuid, &r[0], &r[1], &r[2]) == 0 && !r[0] && !r[1] && !r[2],
          "getresuid");
    check(sys3(SYS_getresgid, &r[0], &r[1], 8) == efault, "getresgid EFAULT");
    check(sys3(SYS_setuid, 0, 0, 0) == 0, "setuid(0)");
    check(sys3(SYS_setresuid, -1, -1, -1) == 0, "setresuid(-1, -1, -1)");
    check(sys3(SYS_getgroups, -1, 0, 0) == einval, "getgroups EINVAL");
    check(sys3(SYS_setgroups, 0, 0, 0) == 0 && sys3(SYS_getgroups, 0, 0, 0) == 0,
          "no supplementary groups");
    check(sys3(SYS_setgroups, 1, 8, 0) == efault, "setgroups EFAULT");

    u64 lim[2];
    check(sys3(SYS_getrlimit, 7, lim, 0) == 0 && lim[0] <= lim[1] && lim[0] >= 256,
          "getrlimit(RLIMIT_NOFILE)");
    check(sys3(SYS_getrlimit, 3, lim, 0) == 0 && lim[0] == 8ul << 20, "RLIMIT_STACK 8 MiB");
    check(sys3(SYS_getrlimit, 99, lim, 0) == einval, "getrlimit EINVAL");
    check(sys3(SYS_getrlimit, 0, 8, 0) == efault, "getrlimit EFAULT");
    u64 bad[2] = { 2, 1 };
    check(sys3(SYS_setrlimit, 4, bad, 0) == einval, "setrlimit soft > hard");
    check(sys6(SYS_prlimit64, 0, 3, 0, (long)lim, 0, 0) == 0 && lim[0] == 8ul << 20,
          "prlimit64 query");
    check(sys6(SYS_prlimit64, 99999, 3, 0, (long)lim, 0, 0) == esrch, "prlimit64 ESRCH");

    u64 mask = 0;
    check(sys3(SYS_sched_getaffinity, 0, 8, &mask) == 8 && (mask & 1),
          "sched_getaffinity: CPU 0");
    check(sys3(SYS_sched_getaffinity, 0, 4, &mask) == einval, "sched_getaffinity short");
    check(sys3(SYS_sched_getaffinity, 99999, 8, &mask) == esrch, "sched_getaffinity ESRCH");
    check(sys3(SYS_sched_getaffinity, 0, 8, 8) == efault, "sched_getaffinity EFAULT");
    check(sys3(SYS_sched_setaffinity, 0, 8, &mask) == 0, "sched_setaffinity");
    check(sys3(SYS_sched_getscheduler, 0, 0, 0) == 0, "SCHED_OTHER");
    check(sys3(SYS_sched_getscheduler, -1, 0, 0) == einval, "sched_getscheduler EINVAL");
    int prio = 5;
    check(sys3(SYS_sched_getparam, 0, &prio, 0) == 0 && prio == 0, "sched_getparam");
    check(sys3(SYS_sched_getparam, 0, 0, 0) == einval, "sched_getparam NULL");
    check(sys3(SYS_sched_get_priority_max, 1, 0, 0) == 99 &&
          sys3(SYS_sched_get_priority_min, 1, 0, 0) == 1 &&
          sys3(SYS_sched_get_priority_max, 0, 0, 0) == 0, "priority ranges");
    check(sys3(SYS_sched_get_priority_max, 77, 0, 0) == einval, "priority range EINVAL");
    check(sys3(SYS_getpriority, 0, 0, 0) == 20, "getpriority: nice 0");
    check(sys3(SYS_getpriority, 9, 0, 0) == einval, "getpriority EINVAL");
    unsigned cpu = 9;
    check(sys3(SYS_getcpu, &cpu, 0, 0) == 0 && cpu == 0, "getcpu");
    check(sys3(SYS_personality, 0xffffffff, 0, 0) == 0, "personality PER_LINUX");

    struct { long uptime; u64 loads[3], totalram, freeram, sharedram, bufferram, totalswap,
             freeswap; unsigned short procs, pad; u64 totalhigh, freehigh; unsigned unit;
             char r[4]; } si;
    check(sys3(SYS_sysinfo, &si, 0, 0) == 0 && si.totalram && si.freeram <= si.totalram &&
          si.procs >= 1 && si.unit >= 1, "sysinfo");
    check(sys3(SYS_sysinfo, 8, 0, 0) == efault, "sysinfo EFAULT");

    char name[16] = { 0 };
    check(sys3(SYS_prctl, 15, "abcdefghijklmnopqrst", 0) == 0 &&
          sys3(SYS_prctl, 16, name, 0) == 0 && seq(name, "abcdefghijklmno"),
          "prctl PR_SET_NAME/PR_GET_NAME (cut to 15)");
    check(sys3(SYS_prctl, 3, 0, 0) == 1, "prctl PR_GET_DUMPABLE");
    check(sys3(SYS_prctl, 12345, 0, 0) == einval, "prctl EINVAL");
    check(sys3(SYS_prctl, 15, 8, 0) == efault, "prctl PR_SET_NAME EFAULT");
    return failures ? 1 : 0;
}
