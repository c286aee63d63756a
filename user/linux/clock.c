/* Time (docs/linux/time.md).  One clock underneath: the kernel's SystemClock (lx_now(),
 * microseconds since boot, read without entering the kernel).  MONOTONIC, MONOTONIC_RAW,
 * BOOTTIME and the COARSE variant are it; REALTIME is it plus the RTC's time at lx's start
 * (read once from the CMOS ports 0x70/0x71, which the root task maps to lx, a trusted boot
 * module, on the I/O fault) and whatever clock_settime/settimeofday changed.  CPU time is
 * an estimate lx makes from the messages it sees (cpu_enter/cpu_leave): the time between
 * lx's answer to a process and its next system call is user time, lx's time serving it is
 * system time, and a parked call's wait is neither.  Sleeps are parked calls whose deadline
 * is the wake-up time: lx serves everyone else meanwhile. */
#include "clock.h"
#include <stdio.h>
#include <string.h>

#define CLOCK_REALTIME           0
#define CLOCK_MONOTONIC          1
#define CLOCK_PROCESS_CPUTIME_ID 2
#define CLOCK_THREAD_CPUTIME_ID  3
#define CLOCK_MONOTONIC_RAW      4
#define CLOCK_REALTIME_COARSE    5
#define CLOCK_MONOTONIC_COARSE   6
#define CLOCK_BOOTTIME           7
#define CLOCK_TAI               11
#define TIMER_ABSTIME            1
#define USER_HZ                100  /* times(2)'s clock ticks (AT_CLKTCK) */

static int64_t realtime_offset;     /* ns: REALTIME = lx_now() + this */

/* --- the RTC ------------------------------------------------------------------------------- */

static uint8_t cmos_read(uint8_t reg)
{
    uint8_t v;
    __asm__ volatile("outb %0, %1" :: "a"(reg), "Nd"((unsigned short)0x70));
    __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"((unsigned short)0x71));
    return v;
}

static unsigned from_bcd(uint8_t v, bool binary)
{
    return binary ? v : (unsigned)(v >> 4) * 10 + (v & 0xF);
}

static bool leap(unsigned y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* Days from 1970-01-01 to the date (month 1-12, day 1-31). */
static uint64_t days_since_epoch(unsigned year, unsigned month, unsigned day)
{
    static const unsigned short before[12] = { 0, 31, 59, 90, 120, 151, 181, 212, 243, 273,
                                               304, 334 };
    uint64_t days = 0;
    for (unsigned y = 1970; y < year; y++)
        days += leap(y) ? 366 : 365;
    days += before[month - 1] + (month > 2 && leap(year)) + day - 1;
    return days;
}

/* The RTC's registers, read twice until two reads agree outside an update cycle. */
static bool rtc_read(uint8_t r[7])
{
    static const uint8_t regs[7] = { 0x00, 0x02, 0x04, 0x07, 0x08, 0x09, 0x32 };
    uint8_t prev[7];
    for (unsigned tries = 0; tries < 10; tries++) {
        for (unsigned spin = 0; spin < 100000 && (cmos_read(0x0A) & 0x80); spin++)
            ;                       /* update in progress: the values are changing */
        for (unsigned i = 0; i < 7; i++)
            r[i] = cmos_read(regs[i]);
        if (tries && !memcmp(prev, r, 7))
            return true;
        memcpy(prev, r, 7);
    }
    return false;
}

void clock_init(void)
{
    uint8_t r[7];
    if (!rtc_read(r)) {
        printf("lx: the RTC does not settle: the wall clock starts at the epoch\n");
        return;
    }
    uint8_t b = cmos_read(0x0B);
    bool binary = b & 0x04, h24 = b & 0x02;
    unsigned sec = from_bcd(r[0], binary), min = from_bcd(r[1], binary);
    unsigned hour = from_bcd(r[2] & 0x7F, binary);
    if (!h24) {                     /* 12-hour: bit 7 is PM, 12 o'clock is 12 */
        hour %= 12;
        if (r[2] & 0x80)
            hour += 12;
    }
    unsigned day = from_bcd(r[3], binary), month = from_bcd(r[4], binary);
    unsigned century = from_bcd(r[6], binary);
    unsigned year = from_bcd(r[5], binary) + (century >= 19 && century <= 99 ? century : 20) * 100;
    if (sec > 59 || min > 59 || hour > 23 || !day || day > 31 || !month || month > 12 ||
        year < 1970) {
        printf("lx: the RTC reads nonsense: the wall clock starts at the epoch\n");
        return;
    }
    uint64_t secs = ((days_since_epoch(year, month, day) * 24 + hour) * 60 + min) * 60 + sec;
    realtime_offset = (int64_t)(secs * NSEC_PER_SEC) - (int64_t)lx_now();
    printf("lx: wall clock from the RTC: %04u-%02u-%02u %02u:%02u:%02u UTC\n", year, month, day,
           hour, min, sec);
}

uint64_t clock_realtime(void)
{
    return (uint64_t)((int64_t)lx_now() + realtime_offset);
}

/* --- user time values ------------------------------------------------------------------------ */

/* Seconds and nanoseconds (both checked non-negative) as ns; beyond ~584 years: as good as
 * forever. */
static uint64_t to_ns(int64_t sec, int64_t nsec)
{
    if ((uint64_t)sec >= ~0ull / NSEC_PER_SEC - 1)
        return ~0ull - 1;
    return (uint64_t)sec * NSEC_PER_SEC + (uint64_t)nsec;
}

int timespec_get(struct task *t, l4_word_t uts, uint64_t *ns)
{
    int64_t ts[2];
    if (copy_from_user(&t->mm, ts, uts, sizeof ts))
        return -EFAULT;
    if (ts[0] < 0 || ts[1] < 0 || ts[1] >= (int64_t)NSEC_PER_SEC)
        return -EINVAL;
    *ns = to_ns(ts[0], ts[1]);
    return 0;
}

int timeval_get(struct task *t, l4_word_t utv, uint64_t *ns)
{
    int64_t tv[2];
    if (copy_from_user(&t->mm, tv, utv, sizeof tv))
        return -EFAULT;
    if (tv[0] < 0 || tv[1] < 0 || tv[1] >= 1000000)
        return -EINVAL;
    *ns = to_ns(tv[0], tv[1] * 1000);
    return 0;
}

int timespec_put(struct task *t, l4_word_t uts, uint64_t ns)
{
    int64_t ts[2] = { (int64_t)(ns / NSEC_PER_SEC), (int64_t)(ns % NSEC_PER_SEC) };
    return copy_to_user(&t->mm, uts, ts, sizeof ts);
}

int timeval_put(struct task *t, l4_word_t utv, uint64_t ns)
{
    int64_t tv[2] = { (int64_t)(ns / NSEC_PER_SEC), (int64_t)(ns % NSEC_PER_SEC / 1000) };
    return copy_to_user(&t->mm, utv, tv, sizeof tv);
}

/* --- CPU time -------------------------------------------------------------------------------- */

/* CPU times are kept in TSC ticks (clock.h: cpu_enter, cpu_leave) (rdtsc: a few instructions on every system call, where
 * the clock would cost tens) and turned into nanoseconds when reported, at the TSC rate the
 * KIP gives (InternalFreq, kHz). */

static uint64_t ticks_ns(uint64_t ticks)
{
    static uint64_t khz;
    if (!khz)
        khz = l4_kip_internal_freq(0) ? l4_kip_internal_freq(0) : 1000000;
    return (uint64_t)((unsigned __int128)ticks * 1000000 / khz);
}

void cpu_child_reaped(struct task *parent, const struct task *child)
{
    parent->cutime += child->utime + child->cutime;
    parent->cstime += child->stime + child->cstime;
}

static uint64_t cpu_time(const struct task *t)
{
    uint64_t now = tsc();
    return ticks_ns(t->utime + t->stime +
                    (t->cpu_mark && now > t->cpu_mark ? now - t->cpu_mark : 0));
}

void cpu_rusage(const struct task *t, int who, void *buf)
{
    int64_t *ru = buf;              /* utime{sec,usec}, stime{sec,usec}, 14 longs */
    memset(ru, 0, 144);
    uint64_t u = ticks_ns(who ? t->cutime : t->utime), s = ticks_ns(who ? t->cstime : t->stime);
    ru[0] = (int64_t)(u / NSEC_PER_SEC), ru[1] = (int64_t)(u % NSEC_PER_SEC / 1000);
    ru[2] = (int64_t)(s / NSEC_PER_SEC), ru[3] = (int64_t)(s % NSEC_PER_SEC / 1000);
    if (!who)
        ru[4] = (int64_t)(t->mm.pages * (LX_PAGE / 1024));  /* maxrss (KiB): pages held now */
}

/* --- the calls ---------------------------------------------------------------------------- */

/* The clock's value in ns, or -EINVAL for a clock lx does not have. */
static int clock_value(struct task *t, long clk, uint64_t *ns)
{
    switch (clk) {
    case CLOCK_REALTIME:
    case CLOCK_REALTIME_COARSE:
    case CLOCK_TAI:                 /* TAI - UTC is 0 until someone sets it, as in Linux */
        *ns = clock_realtime();
        return 0;
    case CLOCK_MONOTONIC:
    case CLOCK_MONOTONIC_RAW:
    case CLOCK_MONOTONIC_COARSE:
    case CLOCK_BOOTTIME:
        *ns = lx_now();
        return 0;
    case CLOCK_PROCESS_CPUTIME_ID:
    case CLOCK_THREAD_CPUTIME_ID:   /* one thread per process */
        *ns = cpu_time(t);
        return 0;
    }
    return -EINVAL;
}

long sys_clock_gettime(struct task *t, const struct sysargs *a)
{
    uint64_t ns;
    int e = clock_value(t, (int)a->a[0], &ns);
    return e ? e : timespec_put(t, a->a[1], ns);
}

long sys_clock_getres(struct task *t, const struct sysargs *a)
{
    uint64_t ns;
    int e = clock_value(t, (int)a->a[0], &ns);
    if (e || !a->a[1])
        return e;
    return timespec_put(t, a->a[1], 1000);  /* SystemClock counts microseconds */
}

long sys_clock_settime(struct task *t, const struct sysargs *a)
{
    uint64_t ns;
    int clk = (int)a->a[0], e;
    if (clk != CLOCK_REALTIME)
        return -EINVAL;             /* the others cannot be set, as in Linux */
    if ((e = timespec_get(t, a->a[1], &ns)))
        return e;
    realtime_offset = (int64_t)ns - (int64_t)lx_now();
    return 0;
}

long sys_gettimeofday(struct task *t, const struct sysargs *a)
{
    static const int tz[2];         /* minutes west, DST: UTC */
    if (a->a[0] && timeval_put(t, a->a[0], clock_realtime()))
        return -EFAULT;
    if (a->a[1] && copy_to_user(&t->mm, a->a[1], tz, sizeof tz))
        return -EFAULT;
    return 0;
}

long sys_settimeofday(struct task *t, const struct sysargs *a)
{
    uint64_t ns;
    int e;
    if (!a->a[0])
        return 0;                   /* the time zone alone: accepted, not kept */
    if ((e = timeval_get(t, a->a[0], &ns)))
        return e;
    realtime_offset = (int64_t)ns - (int64_t)lx_now();
    return 0;
}

long sys_time(struct task *t, const struct sysargs *a)
{
    int64_t now = (int64_t)(clock_realtime() / NSEC_PER_SEC);
    if (a->a[0] && copy_to_user(&t->mm, a->a[0], &now, sizeof now))
        return -EFAULT;
    return now;
}

long sys_times(struct task *t, const struct sysargs *a)
{
    const uint64_t tick = NSEC_PER_SEC / USER_HZ;
    if (a->a[0]) {
        int64_t tms[4] = { (int64_t)(ticks_ns(t->utime) / tick),
                           (int64_t)(ticks_ns(t->stime) / tick),
                           (int64_t)(ticks_ns(t->cutime) / tick),
                           (int64_t)(ticks_ns(t->cstime) / tick) };
        if (copy_to_user(&t->mm, a->a[0], tms, sizeof tms))
            return -EFAULT;
    }
    return (long)(lx_now() / tick);  /* ticks since boot */
}

long sys_getrusage(struct task *t, const struct sysargs *a)
{
    int who = (int)a->a[0];
    uint8_t ru[144];
    if (who != 0 && who != -1 && who != 1)     /* SELF, CHILDREN, THREAD */
        return -EINVAL;
    cpu_rusage(t, who == -1, ru);
    return copy_to_user(&t->mm, a->a[1], ru, sizeof ru);
}

long sys_sched_yield(struct task *t, const struct sysargs *a)
{
    (void)t, (void)a;
    return 0;                       /* the reply lets it run; the kernel schedules */
}

/* A sleep until deadline (lx_now()), parked: wakes only by its deadline (or a signal). */
static long sleep_until(struct task *t, uint64_t deadline)
{
    if (lx_now() >= deadline)
        return 0;
    t->wait_deadline = deadline;
    return park_call(t, deadline);
}

static long do_sleep(struct task *t, int clk, bool abs, l4_word_t ureq)
{
    if (park_retrying(t))
        return sleep_until(t, t->wait_deadline);
    uint64_t ns, now = lx_now();
    int e;
    switch (clk) {
    case CLOCK_REALTIME: case CLOCK_MONOTONIC: case CLOCK_BOOTTIME: case CLOCK_TAI:
        break;
    case CLOCK_THREAD_CPUTIME_ID:
        return -EINVAL;
    default:
        return clk == CLOCK_PROCESS_CPUTIME_ID ? -EOPNOTSUPP : -EINVAL;
    }
    if ((e = timespec_get(t, ureq, &ns)))
        return e;
    if (abs && (clk == CLOCK_REALTIME || clk == CLOCK_TAI)) {
        int64_t d = (int64_t)(ns > (uint64_t)INT64_MAX ? INT64_MAX : ns) - realtime_offset;
        return sleep_until(t, d > 0 ? (uint64_t)d : 1);
    }
    if (abs)
        return sleep_until(t, ns ? ns : 1);
    return sleep_until(t, ns > ~0ull - now ? ~0ull : now + ns);
}

long sys_nanosleep(struct task *t, const struct sysargs *a)
{
    return do_sleep(t, CLOCK_MONOTONIC, false, a->a[0]);
}

long sys_clock_nanosleep(struct task *t, const struct sysargs *a)
{
    if (a->a[1] & ~(l4_word_t)TIMER_ABSTIME)
        return -EINVAL;
    return do_sleep(t, (int)a->a[0], a->a[1] & TIMER_ABSTIME, a->a[2]);
}

long clock_sleep_interrupted(struct task *t)
{
    l4_word_t urem = 0;
    if (t->call.nr == 35)                                   /* nanosleep(req, rem) */
        urem = t->call.a[1];
    else if (t->call.nr == 230 && !(t->call.a[1] & TIMER_ABSTIME))   /* clock_nanosleep */
        urem = t->call.a[3];
    uint64_t now = lx_now();
    if (urem)
        timespec_put(t, urem, t->wait_deadline > now ? t->wait_deadline - now : 0);
    return -EINTR;
}
