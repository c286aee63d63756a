/* POSIX timers (posix_timer.c; docs/linux/event-files.md): timer_create's timers of a
 * process, on the clocks of time/clock_timer.h, sending a signal (SI_TIMER) to the process
 * or to one of its threads, or nothing (SIGEV_NONE).  A periodic timer is armed again when
 * its signal is taken, as in Linux: the periods missed meanwhile are its overrun. */
#ifndef LX_TIME_POSIX_TIMER_H
#define LX_TIME_POSIX_TIMER_H

#include <libl4.h>
#include <stdbool.h>
#include <stdint.h>

struct thread;
struct process;
struct k_siginfo;

#define SIGEV_SIGNAL    0
#define SIGEV_NONE      1
#define SIGEV_THREAD    2           /* glibc's and musl's: to the kernel, SIGEV_SIGNAL */
#define SIGEV_THREAD_ID 4

struct ptimer_event {               /* what struct sigevent asks for */
    l4_word_t value;
    int signo, notify, tid;
};

/* A new timer of t's process: its id, or -errno (EINVAL: clock or event, EOPNOTSUPP: a
 * clock without timers, EAGAIN: RLIMIT_SIGPENDING).  ev NULL: SIGALRM with the id as value.
 * The id is taken before uid is written (0 or -EFAULT), as Linux's. */
long posix_timer_create(struct thread *t, int clock, const struct ptimer_event *ev,
                        l4_word_t uid);
/* -EINVAL: no such timer of t's process. */
long posix_timer_settime(struct thread *t, int id, bool abs, uint64_t interval, uint64_t value,
                         uint64_t *old_interval, uint64_t *old_value);
long posix_timer_gettime(struct thread *t, int id, uint64_t *interval, uint64_t *value);
long posix_timer_getoverrun(struct thread *t, int id);
long posix_timer_delete(struct thread *t, int id);
/* The signal layer took a timer's signal (info: its siginfo, whose overrun is completed). */
void posix_timer_dequeued(struct process *p, struct k_siginfo *info);
/* Every timer of p deleted: execve (the next ids go on), the end of p. */
void posix_timers_exec(struct process *p);
void posix_timers_release(struct process *p);

#endif
