/* Time: clock_gettime (REALTIME, MONOTONIC; invalid clocks), gettimeofday, time, nanosleep
 * (a short sleep moves the monotonic clock at least that far; EINVAL), clock_getres.
 * Only relations are printed, never times. */
#include <sys/time.h>
#include <time.h>
#include "corpus.h"

static long long ns(struct timespec t) { return t.tv_sec * 1000000000LL + t.tv_nsec; }

int main(void)
{
    corpus_init();
    struct timespec a, b, r;
    SHOW("clock_gettime MONOTONIC", clock_gettime(CLOCK_MONOTONIC, &a));
    SHOW("clock_gettime REALTIME", clock_gettime(CLOCK_REALTIME, &b));
    printf("realtime after 2020: %d\n", b.tv_sec > 1577836800);
    printf("nsec in range: %d\n", a.tv_nsec >= 0 && a.tv_nsec < 1000000000 &&
           b.tv_nsec >= 0 && b.tv_nsec < 1000000000);
    SHOW("clock_gettime bad clock", clock_gettime((clockid_t)12345, &a));
    SHOW("clock_getres MONOTONIC", clock_getres(CLOCK_MONOTONIC, &r));
    printf("resolution at most 1 ms: %d\n", r.tv_sec == 0 && r.tv_nsec <= 1000000);
    struct timeval tv;
    SHOW("gettimeofday", gettimeofday(&tv, NULL));
    time_t t = time(NULL);
    printf("time() agrees with gettimeofday: %d\n", t - tv.tv_sec >= 0 && t - tv.tv_sec < 5);

    clock_gettime(CLOCK_MONOTONIC, &a);
    struct timespec d = {0, 20 * 1000 * 1000};
    SHOW("nanosleep 20 ms", nanosleep(&d, NULL));
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("monotonic moved at least 20 ms: %d\n", ns(b) - ns(a) >= 20000000);
    d.tv_nsec = 1000000000;
    SHOW("nanosleep nsec 1e9", nanosleep(&d, NULL));
    d.tv_sec = -1;
    d.tv_nsec = 0;
    SHOW("nanosleep negative", nanosleep(&d, NULL));
    long long prev = 0, back = 0;
    for (int i = 0; i < 1000; i++) {
        clock_gettime(CLOCK_MONOTONIC, &a);
        back += ns(a) < prev;
        prev = ns(a);
    }
    printf("monotonic never went back: %d\n", back == 0);
    return 0;
}
