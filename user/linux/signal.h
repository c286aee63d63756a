/* Signals as the other layers raise them (the signal layer: docs/linux/signals.md).  A
 * raised signal is pending until lx delivers it: at the process's next system call or
 * fault, or by interrupting it (a parked call ends with EINTR or restarts). */
#ifndef LX_SIGNAL_H
#define LX_SIGNAL_H

#include "lx.h"

#define SIGHUP   1
#define SIGINT   2
#define SIGQUIT  3
#define SIGILL   4
#define SIGTRAP  5
#define SIGABRT  6
#define SIGBUS   7
#define SIGFPE   8
#define SIGKILL  9
#define SIGUSR1 10
#define SIGSEGV 11
#define SIGUSR2 12
#define SIGPIPE 13
#define SIGALRM 14
#define SIGTERM 15
/* SIGCHLD 17 is in lx.h */
#define SIGCONT 18
#define SIGSTOP 19
#define SIGTSTP 20
#define SIGTTIN 21
#define SIGTTOU 22
#define SIGWINCH 28

/* Raise sig for process t (sent by lx itself: SIGPIPE, SIGCHLD, SIGTTIN, ...). */
void signal_raise(struct task *t, int sig);
/* Raise sig for every process of group pgid (the tty's ^C, ^Z, ^\); the number reached. */
int signal_raise_pgrp(int pgid, int sig);

#endif
