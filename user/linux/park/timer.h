/* Deadlines (timer.c): every timed thing of lx (a parked call's deadline, a process's
 * ITIMER_REAL) is a struct timer in one ordered structure, a pairing heap: the next deadline
 * in O(1), arming in O(1), cancelling and firing in O(log n) amortised.  Nothing scans the
 * processes for what is due. */
#ifndef LX_PARK_TIMER_H
#define LX_PARK_TIMER_H

#include <stdbool.h>
#include <stdint.h>

struct timer {
    uint64_t when;                  /* lx_now() at which it fires */
    bool armed;
    struct timer *child, *next;     /* its first child; its next sibling */
    struct timer *prev;             /* its previous sibling, or its parent if it is the first */
    void (*fire)(struct timer *tm); /* called once when due (it may arm the timer again) */
};

void timer_init(struct timer *tm, void (*fire)(struct timer *tm));
void timer_arm(struct timer *tm, uint64_t when);    /* (again): fires at `when` */
void timer_cancel(struct timer *tm);                /* not armed: nothing */
/* The earliest deadline armed, ~0 if none. */
uint64_t timer_next(void);
/* Fire every timer due at `now`, earliest first; returns how many fired. */
unsigned timer_run(uint64_t now);
/* Called (if set) when an armed timer becomes the earliest: the timer thread may have to
 * wake sooner (timer_thread.c). */
extern void (*timer_changed)(uint64_t next);

#endif
