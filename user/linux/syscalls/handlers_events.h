/* The system-call handlers of the event files and the POSIX timers (issue 14 item 2; the
 * table: table.c).  Kept apart from handlers.h so that the areas grow without touching it. */
#ifndef LX_SYSCALLS_HANDLERS_EVENTS_H
#define LX_SYSCALLS_HANDLERS_EVENTS_H

#include "park/park.h"

struct thread;

/* fs/anon/eventfd.c */
long sys_eventfd(struct thread *, const struct sysargs *);
long sys_eventfd2(struct thread *, const struct sysargs *);
/* fs/anon/timerfd.c */
long sys_timerfd_create(struct thread *, const struct sysargs *);
long sys_timerfd_settime(struct thread *, const struct sysargs *);
long sys_timerfd_gettime(struct thread *, const struct sysargs *);
/* fs/anon/signalfd.c */
long sys_signalfd(struct thread *, const struct sysargs *);
long sys_signalfd4(struct thread *, const struct sysargs *);
/* fs/anon/inotify.c */
long sys_inotify_init(struct thread *, const struct sysargs *);
long sys_inotify_add_watch(struct thread *, const struct sysargs *);
long sys_inotify_rm_watch(struct thread *, const struct sysargs *);
long sys_inotify_init1(struct thread *, const struct sysargs *);
/* syscalls/sys_timer.c: POSIX timers (time/posix_timer.c) */
long sys_timer_create(struct thread *, const struct sysargs *);
long sys_timer_settime(struct thread *, const struct sysargs *);
long sys_timer_gettime(struct thread *, const struct sysargs *);
long sys_timer_getoverrun(struct thread *, const struct sysargs *);
long sys_timer_delete(struct thread *, const struct sysargs *);

#endif
