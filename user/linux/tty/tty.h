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

/* The tty's operations, shared by /dev/tty (5,0), /dev/console (5,1), /dev/ttyS0 (4,64)
 * and fds 0-2 of the processes lx starts. */
extern const struct file_ops tty_ops;
bool tty_file(const struct file *f);

/* open(2) of a tty device: /dev/tty is ENXIO without a controlling terminal; a session
 * leader without one that opens /dev/ttyS0 without O_NOCTTY gets it.  0 or -errno. */
int tty_open(struct thread *t, struct file *f, unsigned flags);
/* read(2) and write(2) on a tty: the job-control checks, then the line discipline; a read
 * that must wait is parked (LX_PARK) on the tty's readers, with a VTIME deadline. */
long tty_read(struct thread *t, struct file *f, l4_word_t buf, l4_word_t n);
long tty_write(struct thread *t, struct file *f, l4_word_t buf, l4_word_t n);

/* A process ends: if it led the session of the terminal, the foreground group gets SIGHUP
 * and SIGCONT and the session loses the terminal (Linux's disassociate_ctty). */
void tty_task_exit(struct process *p);

/* Bytes from the console device (console.c): input processing, echo, signals. */
void tty_receive(const char *buf, size_t n);

#endif
