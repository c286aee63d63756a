/* The tty layer (docs/linux/tty.md): a tty is Linux's line discipline (N_TTY, ldisc.c) with
 * termios, job control and the controlling terminal (tty.c), on a driver: the console
 * (console.c) or one end of a pseudo-terminal (pty.c, /dev/ptmx and devpts). */
#ifndef LX_TTY_TTY_H
#define LX_TTY_TTY_H

#include "lib/list.h"
#include "park/waitq.h"
#include <libl4.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct file;
struct process;
struct thread;
struct uio;
struct pid;
struct poll_table;

/* termios: Linux's kernel ABI (struct termios of TCGETS, 36 bytes). */
#define NCCS 19
struct ktermios {
    uint32_t c_iflag, c_oflag, c_cflag, c_lflag;
    uint8_t c_line;
    uint8_t c_cc[NCCS];
};

struct winsize { uint16_t ws_row, ws_col, ws_xpixel, ws_ypixel; };

#define TTY_BUF   4096              /* the input queue (Linux's N_TTY_BUF_SIZE) */
#define ENOIOCTLCMD 515             /* a driver's "not mine" (Linux's, never seen by a process) */

struct tty;

/* What lies below a tty: where its output goes. */
struct tty_driver {
    /* output after OPOST's processing (never more than write_room said) */
    void (*write)(struct tty *tty, const char *buf, size_t n);
    size_t (*write_room)(struct tty *tty);      /* NULL: unbounded (the console) */
    bool (*has_input)(struct tty *tty);         /* NULL: yes; false: reads give EOF */
    /* the driver's own ioctls: -ENOIOCTLCMD for the common ones (tty.c) */
    long (*ioctl)(struct thread *t, struct tty *tty, struct file *f, unsigned cmd,
                  l4_word_t arg);
    void (*release)(struct tty *tty, struct file *f);   /* an open file of it closes */
    bool master;                    /* a pty master: the termios and job-control ioctls
                                       act on its slave (Linux's real_tty) */
};

struct tty {
    const struct tty_driver *drv;
    unsigned major, minor;          /* its device number (stat, /proc/N/stat's tty_nr) */
    struct tty *link;               /* a pty's other end */
    struct list all_link;           /* on the list of ttys (tty_register) */
    struct ktermios tio;
    struct winsize ws;
    /* the input queue: [tail, canon) is committed (readable), [canon, head) the line being
       edited; free-running indices */
    unsigned char *buf, *mark;      /* TTY_BUF bytes each: the bytes, their marks */
    unsigned head, canon, tail;
    bool lnext;                     /* the next character is literal (VLNEXT) */
    unsigned column;                /* output column (erasing tabs, ONOCR) */
    unsigned line_column;           /* the column where the line being edited began */
    char obuf[512];                 /* output of one batch, written at its end */
    unsigned olen;
    struct pid *session, *pgrp;     /* the session it controls, its foreground group (held) */
    struct waitq readers;           /* input or state changed: reads and polls run again */
    struct waitq writers;           /* room below (the pty's other end read) */
    uint64_t last_input;            /* lx_now() of the last byte (VTIME between bytes) */
    /* pty state */
    unsigned opens;                 /* open files of this end */
    bool hungup;                    /* a slave whose master closed: EOF, EIO (Linux's hung
                                       up files) */
    bool other_closed;              /* a master whose slave has no open file: EIO, POLLHUP */
    bool locked;                    /* a master's slave may not open (TIOCSPTLCK) */
    bool packet;                    /* a master in packet mode (TIOCPKT) */
    uint8_t pktstatus;              /* a slave's TIOCPKT_* events for its master's reads */
    bool excl;                      /* TIOCEXCL */
    void *priv;                     /* the driver's */
};

/* The tty's file operations registered for /dev/tty (5,0), /dev/console (5,1) and
 * /dev/ttyS0 (4,64), whose nodes (and fds 0-2 of the processes lx starts) reach it; and
 * /dev/ptmx (5,2), the slaves (136,N). */
void tty_init(void);

void pty_init(void);                /* /dev/ptmx and the slaves' numbers (pty.c) */

/* A process ends: if it led the session of a terminal, the foreground group gets SIGHUP
 * and SIGCONT and the session loses the terminal (Linux's disassociate_ctty). */
void tty_task_exit(struct process *p);

/* The device number of p's controlling terminal (Linux's new_encode_dev), 0 if none:
 * /proc/N/stat's tty_nr. */
unsigned tty_nr_of(const struct process *p);
int tty_tpgid_of(const struct process *p);     /* its foreground group (tpgid), -1: none */

/* Bytes from the console device (console.c): input processing, echo, signals. */
void tty_receive(const char *buf, size_t n);

/* --- the core, for the drivers (tty.c) ------------------------------------------------ */
/* The file operations of any tty (f->priv: the tty, set by the open operation). */
long tty_read(struct thread *t, struct file *f, struct uio *u, l4_word_t *pos);
long tty_write(struct thread *t, struct file *f, struct uio *u, l4_word_t *pos);
unsigned tty_poll(struct thread *t, struct file *f, struct poll_table *pt);
long tty_ioctl(struct thread *t, struct file *f, unsigned cmd, l4_word_t arg);
void tty_release(struct file *f);
/* A fresh tty on the list, with its queue's memory (TTY_BUF bytes each). */
void tty_setup(struct tty *tty, const struct tty_driver *drv, const struct ktermios *tio,
               unsigned major, unsigned minor, unsigned char *buf, unsigned char *mark);
void tty_unregister(struct tty *tty);
/* Linux's tty_vhangup: the session leader gets SIGHUP and SIGCONT, the terminal has no
 * session any more, its files read EOF and write EIO. */
void tty_hangup(struct tty *tty);
/* A session leader without a terminal that opens tty without O_NOCTTY gets it. */
void tty_open_ctty(struct thread *t, struct tty *tty, unsigned flags);

/* --- the line discipline (ldisc.c) ------------------------------------------------------ */
void ldisc_receive(struct tty *tty, const char *buf, size_t n);  /* input; echoes */
long ldisc_read(struct thread *t, struct tty *tty, struct file *f, struct uio *u);
long ldisc_write(struct tty *tty, struct uio *u);   /* -EAGAIN: no room below */
bool ldisc_readable(struct tty *tty);       /* a read would not wait for input */
unsigned ldisc_inq(struct tty *tty);        /* FIONREAD */
void ldisc_flush_input(struct tty *tty);
void ldisc_set_termios(struct tty *tty, const struct ktermios *n);
size_t ldisc_room(struct tty *tty);         /* what its input queue can take now */

#endif
