/* A small test framework for in-system tests (programs that run on Pecan).
 *
 * Output protocol, read by tests/system (docs/testing.md):
 *   "ok N - <case>"                         a case passed
 *   "not ok N - <case> # <reason>"          a case failed (first failed check)
 *   "PECAN-TEST-DONE passed=P failed=F"     the program finished
 * The program then ends the QEMU run through the isa-debug-exit port (0xf4): value 0 when
 * every case passed (QEMU exits with status 1), 1 otherwise (status 3).  A case is declared
 * with TEST(name) { ... } and fails at its first failed CHECK. */
#ifndef TESTLIB_H
#define TESTLIB_H

#include <libl4.h>
#include <stdio.h>

struct test_case {
    const char *name;
    void (*fn)(void);
};

#define TEST(name)                                                                  \
    static void test_##name(void);                                                  \
    static const struct test_case tc_##name                                         \
        __attribute__((used, section("test_cases"), aligned(8))) = { #name, test_##name }; \
    static void test_##name(void)

/* Fails the current case (and returns from it) if cond is false. */
#define CHECK(cond, ...)                                                            \
    do {                                                                            \
        if (!(cond)) {                                                              \
            test_fail(__FILE__, __LINE__, #cond, "" __VA_ARGS__);                   \
            return;                                                                 \
        }                                                                           \
    } while (0)

#define CHECK_EQ(a, b)                                                              \
    do {                                                                            \
        unsigned long long _a = (unsigned long long)(a), _b = (unsigned long long)(b); \
        if (_a != _b) {                                                             \
            test_fail_eq(__FILE__, __LINE__, #a, #b, _a, _b);                       \
            return;                                                                 \
        }                                                                           \
    } while (0)

void test_fail(const char *file, int line, const char *cond, const char *fmt, ...);
void test_fail_eq(const char *file, int line, const char *a, const char *b,
                  unsigned long long va, unsigned long long vb);
bool test_failed(void);
/* Run every TEST of the program (in link order), print the summary, exit QEMU. */
__attribute__((noreturn)) void tests_run(const char *suite);
/* Run a single named case (NULL: all) — used by programs that take a command line. */
void test_note(const char *fmt, ...);
void qemu_exit(unsigned code);

#endif
