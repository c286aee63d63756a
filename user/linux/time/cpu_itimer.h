/* ITIMER_VIRTUAL and ITIMER_PROF (cpu_itimer.c; docs/linux/time.md "Interval timers on CPU
 * time"): a process's user CPU time, and its user plus system CPU time, as lx estimates them
 * (task/cputime.h), with SIGVTALRM and SIGPROF when they reach the value set. */
#ifndef LX_TIME_CPU_ITIMER_H
#define LX_TIME_CPU_ITIMER_H

#include <stdint.h>

struct thread;
struct process;

#define ITIMER_VIRTUAL 1
#define ITIMER_PROF    2

/* which's time left (ns; 0: disarmed) and its interval. */
void cpu_itimer_get(struct process *p, int which, uint64_t *value, uint64_t *interval);
/* Arm which of t's process value ns of its CPU time from now, then every interval ns (value
 * 0: disarm). */
void cpu_itimer_set(struct thread *t, int which, uint64_t value, uint64_t interval);
void cpu_itimer_exit(struct process *p);    /* the process ended: both stop */

#endif
