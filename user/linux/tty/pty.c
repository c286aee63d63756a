/* Pseudo-terminals (docs/linux/tty.md §9): /dev/ptmx (5:2) makes a pair, a master (the file
 * that open returns) and a slave, /dev/pts/N (136:N) on devpts.  Both ends are ttys with the
 * line discipline (ldisc.c); a driver's write is the other end's input: the master's
 * writes go through the slave's input processing, the slave's output (after OPOST) is
 * what the master reads, the master's termios raw (Linux's ptm init_termios).  A writer
 * finds room only as far as the other end's input queue has it (4096 bytes, N_TTY's).
 *
 * As Linux: the slave is locked until TIOCSPTLCK 0 (unlockpt); opening it then needs the
 * master open.  The last slave close gives the master EIO and POLLHUP (once what is queued
 * has been read); the master's close hangs the slave up (tty_hangup) and takes its name
 * away; the number is free again when both ends are closed. */
#include "fs/devpts/devpts.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "mm/usercopy.h"
#include "signal/signal.h"
#include "task/process.h"
#include "tty/termios.h"
#include "tty/tty.h"
#include "vfs/file.h"

#define PTM_MAJOR 128
#define PTS_MAJOR 136
#define TIOCSIG   0x40045436

struct pty {
    struct tty master, slave;
    struct devpts *fs;
    int index;
    struct inode *node;             /* /dev/pts/N (NULL once the master closed) */
    bool master_open;
};

static struct pty *pty_of(struct tty *tty)
{
    return tty->priv;
}

static void to_link(struct tty *tty, const char *buf, size_t n)
{
    ldisc_receive(tty->link, buf, n);
}

static size_t link_room(struct tty *tty)
{
    return ldisc_room(tty->link);
}

static void pty_free(struct pty *p)
{
    devpts_kill_index(p->fs, p->index);
    tty_unregister(&p->master);
    tty_unregister(&p->slave);
    kfree(p->master.buf), kfree(p->master.mark), kfree(p->slave.buf), kfree(p->slave.mark);
    kfree(p);
}

static void master_release(struct tty *tty, struct file *f)
{
    (void)f;
    struct pty *p = pty_of(tty);
    p->master_open = false;
    p->slave.other_closed = true;
    if (p->node) {
        devpts_pty_kill(p->node);
        p->node = NULL;
    }
    tty_hangup(&p->slave);
    if (!p->slave.opens)
        pty_free(p);
}

static void slave_release(struct tty *tty, struct file *f)
{
    (void)f;
    struct pty *p = pty_of(tty);
    if (tty->opens)
        return;
    p->master.other_closed = true;
    waitq_wake(&p->master.readers);
    waitq_wake(&p->master.writers);
    if (!p->master_open)
        pty_free(p);
}

/* TIOCGPTPEER: the slave opened from the master, without a path (Linux's ptm_open_peer). */
static long open_peer(struct thread *t, struct pty *p, unsigned flags)
{
    int fd = fd_unused(t, 0), err;
    if (fd < 0)
        return fd;
    if (!p->node)
        return -EIO;
    struct file *f = file_open(t, p->node, flags, NULL, &err);
    if (!f)
        return err;
    return fd_install(t, f, 0, flags & O_CLOEXEC);
}

/* An int flag from the caller (TIOCSPTLCK, TIOCPKT): 0 or -EFAULT. */
static long get_flag(struct mm *mm, l4_word_t arg, bool *flag)
{
    int v;
    if (copy_from_user(mm, &v, arg, sizeof v))
        return -EFAULT;
    *flag = v != 0;
    return 0;
}

static long put_int(struct mm *mm, l4_word_t arg, int v)
{
    return copy_to_user(mm, arg, &v, sizeof v);
}

static long master_ioctl(struct thread *t, struct tty *tty, struct file *f, unsigned cmd,
                         l4_word_t arg)
{
    (void)f;
    struct pty *p = pty_of(tty);
    struct mm *mm = t->mm;
    bool was_packet = tty->packet;
    long r;
    switch (cmd) {
    case TIOCGPTN:
        return put_int(mm, arg, p->index);
    case TIOCSPTLCK:
        return get_flag(mm, arg, &tty->locked);
    case TIOCGPTLCK:
        return put_int(mm, arg, tty->locked);
    case TIOCPKT:
        if (!(r = get_flag(mm, arg, &tty->packet)) && tty->packet && !was_packet)
            p->slave.pktstatus = 0;     /* no event from before */
        return r;
    case TIOCGPKT:
        return put_int(mm, arg, tty->packet);
    case TIOCSIG:
        if (arg != SIGINT && arg != SIGQUIT && arg != SIGTSTP)
            return -EINVAL;
        if (p->slave.pgrp)
            signal_raise_pgrp(p->slave.pgrp, (int)arg);
        return 0;
    case TIOCGPTPEER:
        return open_peer(t, p, (unsigned)arg);
    }
    return -ENOIOCTLCMD;
}

static const struct tty_driver master_driver = {
    .write = to_link, .write_room = link_room, .ioctl = master_ioctl,
    .release = master_release, .master = true,
};
static const struct tty_driver slave_driver = {
    .write = to_link, .write_room = link_room, .release = slave_release,
};

/* Linux's tty_std_termios and the ptm and pts drivers' changes to it. */
#define STD_CC { [VINTR] = 3, [VQUIT] = 034, [VERASE] = 0177, [VKILL] = 025, [VEOF] = 4, \
                 [VTIME] = 0, [VMIN] = 1, [VSTART] = 021, [VSTOP] = 023, [VSUSP] = 032, \
                 [VREPRINT] = 022, [VDISCARD] = 017, [VWERASE] = 027, [VLNEXT] = 026 }
static const struct ktermios master_termios = {
    .c_cflag = B38400 | CS8 | CREAD, .c_cc = STD_CC,
};
static const struct ktermios slave_termios = {
    .c_iflag = ICRNL | IXON, .c_oflag = OPOST | ONLCR, .c_cflag = B38400 | CS8 | CREAD,
    .c_lflag = ISIG | ICANON | ECHO | ECHOE | ECHOK | ECHOCTL | ECHOKE | IEXTEN,
    .c_cc = STD_CC,
};

/* open(2) of a ptmx node: a new pair in the node's devpts instance, the slave locked. */
static int ptmx_open(struct thread *t, struct inode *i, struct file *f)
{
    int err;
    struct devpts *fs = devpts_acquire(t, i, &err);
    if (!fs)
        return err;
    int index = devpts_new_index(fs);
    if (index < 0)
        return index;
    struct pty *p = kmalloc(sizeof *p);
    unsigned char *b[4] = { kmalloc(TTY_BUF), kmalloc(TTY_BUF), kmalloc(TTY_BUF),
                            kmalloc(TTY_BUF) };
    struct inode *node = p && b[0] && b[1] && b[2] && b[3] ?
                         devpts_pty_new(t, fs, index, p) : NULL;
    if (!node) {
        kfree(p), kfree(b[0]), kfree(b[1]), kfree(b[2]), kfree(b[3]);
        devpts_kill_index(fs, index);
        return -ENOMEM;
    }
    tty_setup(&p->master, &master_driver, &master_termios, PTM_MAJOR, (unsigned)index,
              b[0], b[1]);
    tty_setup(&p->slave, &slave_driver, &slave_termios, PTS_MAJOR, (unsigned)index, b[2],
              b[3]);
    p->master.link = &p->slave;
    p->slave.link = &p->master;
    p->master.priv = p->slave.priv = p;
    p->master.locked = true;
    p->master.opens = 1;
    p->master_open = true;
    p->fs = fs;
    p->index = index;
    p->node = node;
    f->priv = &p->master;
    return 0;
}

/* open(2) of a slave: its pty must have a master and be unlocked (else EIO, as Linux). */
static int pts_open(struct thread *t, struct inode *i, struct file *f)
{
    struct pty *p = devpts_get_priv(i);
    if (!p || !p->master_open || p->master.locked)
        return -EIO;
    p->slave.opens++;
    p->slave.hungup = false;
    p->master.other_closed = false;
    f->priv = &p->slave;
    tty_open_ctty(t, &p->slave, f->flags);
    return 0;
}

static const struct file_ops ptmx_ops = {
    .open = ptmx_open, .release = tty_release, .read = tty_read, .write = tty_write,
    .poll = tty_poll, .ioctl = tty_ioctl,
};
static const struct file_ops pts_ops = {
    .open = pts_open, .release = tty_release, .read = tty_read, .write = tty_write,
    .poll = tty_poll, .ioctl = tty_ioctl,
};

static struct chrdev pty_devices[] = {
    { .major = 5, .minor = 2, .count = 1, .ops = &ptmx_ops },
    { .major = PTS_MAJOR, .minor = 0, .count = 1u << 20, .ops = &pts_ops },
};

void pty_init(void)
{
    for (unsigned k = 0; k < sizeof pty_devices / sizeof pty_devices[0]; k++)
        chrdev_register(&pty_devices[k]);
}
