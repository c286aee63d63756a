/* The system-call fuzzer's parts that its phases share (test_fuzz.c defines them; the
 * descriptor-attack phase, fuzz_desc.c, uses them). */
#ifndef FUZZ_H
#define FUZZ_H

#include <libl4.h>
#include <stdbool.h>

extern l4_word_t fz_seed;           /* the run's seed (seed=N) */
extern unsigned fz_rounds;          /* rounds per unprivileged phase (rounds=N) */
extern bool fz_leak_each_round;     /* leak=1 */
extern char fz_msg[240];            /* why a phase failed */

/* A seed for a part of the run (splitmix64 of the seed and the part's number). */
uint64_t fz_mix(uint64_t seed, uint64_t part);
/* xorshift64*: the fuzzers' random numbers.  Always inlined, so that the copies in the fuzz
 * threads' code lie in their section (fuzztext). */
static inline __attribute__((always_inline)) uint64_t fz_xorshift(uint64_t *x)
{
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    return *x * 0x2545F4914F6CDD1Dull;
}

/* The end of a round: fz_quiet_arm() lets the priority-1 "quiet" thread call us once every
 * other thread is blocked; its call is the message fz_is_quiet() recognises. */
void fz_quiet_arm(void);
bool fz_is_quiet(l4_word_t tag, l4_word_t from);

/* The watchdog ends a round whose threads keep each other busy without a word to us: it
 * deletes the n threads after 2 * FZ_ROUND_MAX_US unless disarmed; disarm says if it fired. */
#define FZ_ROUND_MAX_US 400000ul
void fz_watchdog_arm(const l4_word_t *tids, unsigned n);
bool fz_watchdog_disarm(void);

/* An IPC round trip with a new thread in a new space (false, fz_msg set, if it fails). */
bool fz_system_works(void);
/* With leak=1: false (fz_msg set) if kernel memory leaked since the baseline. */
bool fz_leak_check(const char *what, unsigned round);

/* The descriptor-attack phase (fuzz_desc.c): false with fz_msg set if it found something. */
bool fd_phase(void);
void fd_configure(void);            /* reads its command-line options */

#endif
