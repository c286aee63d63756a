/* Time (docs/linux/time.md).  One clock underneath: the kernel's SystemClock (lx_now(),
 * microseconds since boot, read without entering the kernel).  MONOTONIC, MONOTONIC_RAW,
 * BOOTTIME and the COARSE variant are it; REALTIME is it plus the RTC's time at lx's start
 * (read once from the CMOS ports 0x70/0x71, which the root task maps to lx, a trusted boot
 * module, on the I/O fault) and whatever clock_settime/settimeofday changed.  The system
 * calls on the clocks are syscalls/sys_time.c; CPU time is task/cputime.c. */
#include "time/clock.h"
#include "lib/errno.h"
#include "mm/usercopy.h"
#include <stdio.h>
#include <string.h>

static int64_t realtime_offset;     /* ns: REALTIME = lx_now() + this */

uint64_t lx_now(void)
{
    return (uint64_t)l4_system_clock() * 1000;
}

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

void clock_set_realtime(uint64_t ns)
{
    realtime_offset = (int64_t)ns - (int64_t)lx_now();
}

int64_t clock_realtime_offset(void)
{
    return realtime_offset;
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

int timespec_get(struct mm *mm, l4_word_t uts, uint64_t *ns)
{
    int64_t ts[2];
    if (copy_from_user(mm, ts, uts, sizeof ts))
        return -EFAULT;
    if (ts[0] < 0 || ts[1] < 0 || ts[1] >= (int64_t)NSEC_PER_SEC)
        return -EINVAL;
    *ns = to_ns(ts[0], ts[1]);
    return 0;
}

int timeval_get(struct mm *mm, l4_word_t utv, uint64_t *ns)
{
    int64_t tv[2];
    if (copy_from_user(mm, tv, utv, sizeof tv))
        return -EFAULT;
    if (tv[0] < 0 || tv[1] < 0 || tv[1] >= 1000000)
        return -EINVAL;
    *ns = to_ns(tv[0], tv[1] * 1000);
    return 0;
}

int timespec_put(struct mm *mm, l4_word_t uts, uint64_t ns)
{
    int64_t ts[2] = { (int64_t)(ns / NSEC_PER_SEC), (int64_t)(ns % NSEC_PER_SEC) };
    return copy_to_user(mm, uts, ts, sizeof ts);
}

int timeval_put(struct mm *mm, l4_word_t utv, uint64_t ns)
{
    int64_t tv[2] = { (int64_t)(ns / NSEC_PER_SEC), (int64_t)(ns % NSEC_PER_SEC / 1000) };
    return copy_to_user(mm, utv, tv, sizeof tv);
}

/* --- TSC ticks ------------------------------------------------------------------------------- */

/* CPU times are kept in TSC ticks (task/cputime.h: rdtsc is a few instructions on every
 * system call, where the clock would cost tens) and turned into nanoseconds when reported,
 * at the TSC rate the KIP gives (InternalFreq, kHz). */

uint64_t clock_tsc_ns(uint64_t ticks)
{
    static uint64_t khz;
    if (!khz)
        khz = l4_kip_internal_freq(0) ? l4_kip_internal_freq(0) : 1000000;
    return (uint64_t)((unsigned __int128)ticks * 1000000 / khz);
}
