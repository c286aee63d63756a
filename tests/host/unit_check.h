/* Minimal check macros for the host unit tests of kernel logic (test_kernel_units.py).
 *
 * Every check prints one line: "ok   file:line: message" or "FAIL file:line: message".
 * CHECKQ only prints on failure (for checks inside large loops).  A test program selects a
 * case by name (argv[1]; "--list" prints the names) and exits non-zero if any check failed. */
#ifndef UNIT_CHECK_H
#define UNIT_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <stdbool.h>

static unsigned long uc_failed, uc_passed;

#define UC_REPORT(ok, quiet, ...)                                                         \
    do {                                                                                  \
        if (ok) {                                                                         \
            uc_passed++;                                                                  \
            if (!(quiet)) {                                                               \
                printf("ok   %s:%d: ", __FILE__, __LINE__);                               \
                printf(__VA_ARGS__);                                                      \
                printf("\n");                                                             \
            }                                                                             \
        } else {                                                                          \
            uc_failed++;                                                                  \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                   \
            printf(__VA_ARGS__);                                                          \
            printf("\n");                                                                 \
        }                                                                                 \
    } while (0)

/* CHECK(cond, fmt, ...): one line, "ok" or "FAIL", with the formatted message. */
#define CHECK(cond, ...)  UC_REPORT((cond), false, __VA_ARGS__)
#define CHECKQ(cond, ...) UC_REPORT((cond), true, __VA_ARGS__)

/* Equality of two unsigned 64-bit values, both shown in hex. */
#define CHECK_EQ_IMPL(quiet, a, b, ...)                                                   \
    do {                                                                                  \
        unsigned long long uc_a = (unsigned long long)(a), uc_b = (unsigned long long)(b); \
        if (uc_a == uc_b) {                                                               \
            uc_passed++;                                                                  \
            if (!(quiet)) {                                                               \
                printf("ok   %s:%d: ", __FILE__, __LINE__);                               \
                printf(__VA_ARGS__);                                                      \
                printf(" (%s == %#llx)\n", #a, uc_a);                                     \
            }                                                                             \
        } else {                                                                          \
            uc_failed++;                                                                  \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                   \
            printf(__VA_ARGS__);                                                          \
            printf(": %s = %#llx, expected %s = %#llx\n", #a, uc_a, #b, uc_b);            \
        }                                                                                 \
    } while (0)
#define CHECK_EQ(a, b, ...)  CHECK_EQ_IMPL(false, a, b, __VA_ARGS__)
#define CHECK_EQQ(a, b, ...) CHECK_EQ_IMPL(true, a, b, __VA_ARGS__)

struct uc_case {
    const char *name;
    void (*fn)(void);
};

/* main() body: run the case named by argv[1] (or all with "all"), "--list" lists them. */
static inline int uc_main(int argc, char **argv, const struct uc_case *cases, size_t n)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 2) {
        fprintf(stderr, "usage: %s --list | all | CASE...\n", argv[0]);
        return 2;
    }
    if (!strcmp(argv[1], "--list")) {
        for (size_t i = 0; i < n; i++)
            printf("%s\n", cases[i].name);
        return 0;
    }
    for (int a = 1; a < argc; a++) {
        bool found = false;
        for (size_t i = 0; i < n; i++) {
            if (strcmp(argv[a], "all") && strcmp(argv[a], cases[i].name))
                continue;
            found = true;
            printf("=== %s\n", cases[i].name);
            cases[i].fn();
        }
        if (!found) {
            printf("FAIL unknown case %s\n", argv[a]);
            return 2;
        }
    }
    printf("=== %lu checks passed, %lu failed\n", uc_passed, uc_failed);
    return uc_failed ? 1 : 0;
}

#define UC_CASE(f) { #f, f }

#endif
