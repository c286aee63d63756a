/* The in-system test framework (see testlib.h for the output protocol). */
#include "testlib.h"
#include <stdarg.h>
#include <string.h>

/* Weak: a program without test cases (a benchmark) links too. */
extern const struct test_case __start_test_cases[] __attribute__((weak));
extern const struct test_case __stop_test_cases[] __attribute__((weak));

static bool failed;
static char reason[256];

void test_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
    if (failed)
        return;
    failed = true;
    int n = snprintf(reason, sizeof(reason), "%s:%d: %s", file, line, cond);
    if (fmt && *fmt && n > 0 && (size_t)n < sizeof(reason)) {
        va_list ap;
        va_start(ap, fmt);
        snprintf(reason + n, sizeof(reason) - n, ": ");
        vsnprintf(reason + n + 2, sizeof(reason) - n - 2, fmt, ap);
        va_end(ap);
    }
}

void test_fail_eq(const char *file, int line, const char *a, const char *b,
                  unsigned long long va, unsigned long long vb)
{
    if (failed)
        return;
    failed = true;
    snprintf(reason, sizeof(reason), "%s:%d: %s == %s (0x%llx != 0x%llx)", file, line, a, b, va, vb);
}

bool test_failed(void)
{
    return failed;
}

void test_note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("# ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
}

static inline void outl_port(unsigned short port, unsigned v)
{
    __asm__ volatile("outl %0, %1" :: "a"(v), "Nd"(port));
}

void qemu_exit(unsigned code)
{
    /* The I/O fault on this port reaches our pager (sigma0 for a root task), which maps it. */
    outl_port(0xF4, code);
    l4_sleep_forever();
}

void tests_run(const char *suite)
{
    unsigned n = 0, passed = 0, nfailed = 0;
    printf("# suite %s\n", suite);
    for (const struct test_case *tc = __start_test_cases; tc < __stop_test_cases; tc++) {
        n++;
        failed = false;
        reason[0] = 0;
        tc->fn();
        if (failed) {
            nfailed++;
            printf("not ok %u - %s # %s\n", n, tc->name, reason);
        } else {
            passed++;
            printf("ok %u - %s\n", n, tc->name);
        }
    }
    printf("PECAN-TEST-DONE passed=%u failed=%u\n", passed, nfailed);
    qemu_exit(nfailed ? 1 : 0);
    for (;;)
        ;
}
