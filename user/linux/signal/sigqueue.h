/* The queue of pending signals with their siginfo (sigqueue.c; docs/linux/signals.md §"The
 * queue"), as Linux 6.1 keeps it: a standard signal is pending once (a second send is merged:
 * the first siginfo stays), a real-time one (SIGRTMIN..SIGRTMAX) once per send, taken in the
 * order of arrival.  The first siginfo of each signal lives in struct sigpending.info[]; the
 * real-time ones behind it are entries on a list.  Each siginfo queued counts against
 * RLIMIT_SIGPENDING of the receiver's real user (Linux's ucounts), which /proc/PID/status's
 * SigQ shows. */
#ifndef LX_SIGNAL_SIGQUEUE_H
#define LX_SIGNAL_SIGQUEUE_H

#include "signal/sigstate.h"

#define SIGRTMIN_K 32               /* the kernel's: glibc keeps 32 and 33 for itself */
#define RLIMIT_SIGPENDING 11
#define SI_QUEUE   (-1)
#define SI_MESGQ   (-3)

/* Queue sig with info on q for a receiver of real user uid whose RLIMIT_SIGPENDING is limit:
 * 0 queued, 1 merged with a pending one (a standard signal), -EAGAIN if the limit (or lx's
 * memory) is exhausted for a real-time signal with a siginfo of its own.  override: a
 * standard signal from the kernel or kill (si_code >= 0), which is queued past the limit;
 * another standard signal over the limit is pending without its siginfo (SI_USER, pid 0). */
int sigqueue_add(struct sigpending *q, int sig, const struct k_siginfo *info, unsigned uid,
                 uint64_t limit);
/* Take the first siginfo of sig off q (sig pending there): the bit stays while more are
 * queued. */
struct k_siginfo sigqueue_take(struct sigpending *q, int sig);
/* Drop every siginfo of the signals of mask from q. */
void sigqueue_flush(struct sigpending *q, uint64_t mask);
/* A siginfo a process gave (rt_sigqueueinfo: 128 bytes, Linux's layout) for sig, as lx keeps
 * it: si_code and the fields its layout has. */
struct k_siginfo sigqueue_info_from_user(int sig, const void *siginfo);
/* The siginfos queued for user uid (SigQ). */
unsigned long sigqueue_user_count(unsigned uid);

#endif
