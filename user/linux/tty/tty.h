/* The console tty (tty.c, docs/linux/tty.md): Linux's line discipline (N_TTY) with termios,
 * job control and the controlling terminal, on the console device (console.c). */
#ifndef LX_TTY_TTY_H
#define LX_TTY_TTY_H

#include <libl4.h>
#include <stdbool.h>
#include <stddef.h>

struct file;
struct process;
struct thread;

/* The tty's file operations registered for /dev/tty (5,0), /dev/console (5,1) and
 * /dev/ttyS0 (4,64), whose nodes (and fds 0-2 of the processes lx starts) reach it. */
void tty_init(void);

/* A process ends: if it led the session of the terminal, the foreground group gets SIGHUP
 * and SIGCONT and the session loses the terminal (Linux's disassociate_ctty). */
void tty_task_exit(struct process *p);

/* Bytes from the console device (console.c): input processing, echo, signals. */
void tty_receive(const char *buf, size_t n);

#endif
