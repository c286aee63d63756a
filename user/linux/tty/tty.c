/* The tty core: the ttys lx has (the console and the pty ends), their file operations, the
 * ioctls every tty shares, the controlling terminal of a session and its foreground process
 * group, job control (docs/linux/tty.md §4, §5).  The line discipline is ldisc.c; what lies
 * below a tty is its driver (console.c, pty.c).
 *
 * Decision: a tty remembers the session it controls (Linux's tty->ctrl.session), and a
 * process's controlling terminal is the tty whose session is its own: lx keeps no tty
 * pointer in the process (docs/linux/tty.md §6). */
#include "tty/tty.h"
#include "syscalls/handlers_rest.h"
#include "lib/errno.h"
#include "mm/usercopy.h"
#include "park/park.h"
#include "signal/signal.h"
#include "task/process.h"
#include "tty/console.h"
#include "tty/termios.h"
#include "vfs/file.h"
#include "vfs/poll.h"
#include <string.h>

static struct list ttys = LIST_INIT(ttys);

/* --- the console ------------------------------------------------------------------------ */

static void console_out(struct tty *tty, const char *buf, size_t n)
{
    (void)tty;
    console_write(buf, n);
}

static bool console_in(struct tty *tty)
{
    (void)tty;
    return console_has_input();
}

/* struct serial_struct (linux/serial.h), 72 bytes: what cttyhack asks /dev/console. */
struct serial_struct {
    int32_t type, line;
    uint32_t port;
    int32_t irq, flags, xmit_fifo_size, custom_divisor, baud_base;
    uint16_t close_delay;
    uint8_t io_type, reserved_char;
    int32_t hub6;
    uint16_t closing_wait, closing_wait2;
    uint64_t iomem_base;
    uint16_t iomem_reg_shift;
    uint32_t port_high;
    uint64_t iomap_base;
};
_Static_assert(sizeof(struct serial_struct) == 72, "Linux's struct serial_struct");

static long console_ioctl(struct thread *t, struct tty *tty, struct file *f, unsigned cmd,
                          l4_word_t arg)
{
    (void)tty, (void)f;
    if (cmd != TIOCGSERIAL)
        return -ENOIOCTLCMD;
    struct serial_struct s = {
        .type = 4 /* PORT_16550A */, .line = 0, .port = 0x3F8, .irq = 4,
        .xmit_fifo_size = 16, .baud_base = 115200, .close_delay = 50, .closing_wait = 3000,
    };
    return copy_to_user(t->mm, arg, &s, sizeof s);
}

static const struct tty_driver console_driver = {
    .write = console_out, .has_input = console_in, .ioctl = console_ioctl,
};

/* Linux's default for a serial console. */
static const struct ktermios console_termios = {
    .c_iflag = ICRNL | IXON,
    .c_oflag = OPOST | ONLCR,
    .c_cflag = B115200 | CS8 | CREAD | HUPCL | CLOCAL,
    .c_lflag = ISIG | ICANON | ECHO | ECHOE | ECHOK | ECHOCTL | ECHOKE | IEXTEN,
    .c_cc = { [VINTR] = 3, [VQUIT] = 034, [VERASE] = 0177, [VKILL] = 025, [VEOF] = 4,
              [VTIME] = 0, [VMIN] = 1, [VSTART] = 021, [VSTOP] = 023, [VSUSP] = 032,
              [VREPRINT] = 022, [VDISCARD] = 017, [VWERASE] = 027, [VLNEXT] = 026 },
};

static struct tty console;
static unsigned char console_buf[TTY_BUF], console_mark[TTY_BUF];

void tty_receive(const char *buf, size_t n)
{
    ldisc_receive(&console, buf, n);
}

/* --- ttys ------------------------------------------------------------------------------- */

void tty_setup(struct tty *tty, const struct tty_driver *drv, const struct ktermios *tio,
               unsigned major, unsigned minor, unsigned char *buf, unsigned char *mark)
{
    memset(tty, 0, sizeof *tty);
    tty->buf = buf;
    tty->mark = mark;
    tty->drv = drv;
    tty->tio = *tio;
    tty->major = major;
    tty->minor = minor;
    list_add_tail(&ttys, &tty->all_link);
}

static void set_ctty(struct tty *tty, struct pid *session, struct pid *pgrp);

void tty_unregister(struct tty *tty)
{
    set_ctty(tty, NULL, NULL);
    waitq_wake(&tty->readers);
    waitq_wake(&tty->writers);
    list_del(&tty->all_link);
}

static struct tty *tty_of(struct file *f)
{
    return f->priv;
}

/* The tty whose ioctls a pty master's termios and job-control calls reach (Linux's
 * real_tty): its slave; any other tty itself. */
static struct tty *real_tty(struct tty *tty)
{
    return tty->drv->master ? tty->link : tty;
}

static bool has_input(struct tty *tty)
{
    return !tty->drv->has_input || tty->drv->has_input(tty);
}

/* --- the controlling terminal ----------------------------------------------------------- */

/* The terminal's session and foreground group (NULL: none), references held. */
static void set_ctty(struct tty *tty, struct pid *session, struct pid *pgrp)
{
    if (session)
        pid_get(session);
    if (pgrp)
        pid_get(pgrp);
    if (tty->session)
        pid_put(tty->session);
    if (tty->pgrp)
        pid_put(tty->pgrp);
    tty->session = session;
    tty->pgrp = pgrp;
}

/* Does tty still control a live session?  (A session whose leader has gone without
 * tty_task_exit, which should not happen, loses it here.) */
static bool session_alive(struct tty *tty)
{
    if (!tty->session)
        return false;
    struct process *l = tty->session->proc;
    if (l && l->state == PROCESS_LIVE && l->session == tty->session)
        return true;
    set_ctty(tty, NULL, NULL);
    return false;
}

/* The controlling terminal of session s, or NULL. */
static struct tty *session_tty(const struct pid *s)
{
    struct tty *tty;
    list_each(tty, &ttys, all_link)
        if (tty->session == s && session_alive(tty))
            return tty;
    return NULL;
}

static bool is_ctty(struct tty *tty, const struct thread *t)
{
    return session_alive(tty) && t->proc->session == tty->session;
}

static bool leader(const struct thread *t)
{
    return t->proc->session == t->proc->pid;
}

void tty_open_ctty(struct thread *t, struct tty *tty, unsigned flags)
{
    if (t && !(flags & O_NOCTTY) && (flags & O_ACCMODE) != O_WRONLY && leader(t) &&
        !session_alive(tty) && !session_tty(t->proc->session))
        set_ctty(tty, t->proc->session, t->proc->pgrp);
}

/* vhangup: root (CAP_SYS_TTY_CONFIG) hangs up its controlling terminal, if it has one. */
long sys_vhangup(struct thread *t, const struct sysargs *a)
{
    (void)a;
    enum { CAP_SYS_TTY_CONFIG = 26 };
    if (!cred_capable(&t->proc->cred, CAP_SYS_TTY_CONFIG))
        return -EPERM;
    struct tty *tty = session_tty(t->proc->session);
    if (tty)
        tty_hangup(tty);
    return 0;
}

unsigned tty_nr_of(const struct process *p)
{
    struct tty *tty = session_tty(p->session);
    if (!tty)
        return 0;
    return (tty->minor & 0xff) | (tty->major << 8) | ((tty->minor & ~0xffu) << 12);
}

int tty_tpgid_of(const struct process *p)
{
    struct tty *tty = session_tty(p->session);
    return !tty ? -1 : tty->pgrp ? tty->pgrp->nr : 0;
}

/* Sessions whose terminal hung up under them (tty_hangup): the foreground group then, which
 * gets SIGHUP when the leader ends (Linux's tty_old_pgrp).  A few at a time suffice. */
static struct { struct pid *session, *pgrp; } old_pgrps[16];

static void remember_old_pgrp(struct pid *session, struct pid *pgrp)
{
    for (unsigned k = 0; k < sizeof old_pgrps / sizeof old_pgrps[0]; k++)
        if (!old_pgrps[k].session) {
            pid_get(session);
            pid_get(pgrp);
            old_pgrps[k].session = session;
            old_pgrps[k].pgrp = pgrp;
            return;
        }
}

/* SIGHUP and SIGCONT for a group's processes, but not for `leaving` (an ending leader). */
static void hup_group(struct pid *pgrp, const struct process *leaving, bool cont)
{
    struct process *p, *n;
    struct k_siginfo info = { .code = SI_KERNEL };
    list_each_safe(p, n, &pgrp->pgrp, pgrp_link)
        if (p != leaving && p->state == PROCESS_LIVE) {
            signal_send(p, SIGHUP, &info);
            if (cont)
                signal_send(p, SIGCONT, &info);
        }
}

/* The session leader gives up (or loses) the terminal. */
static void disassociate(struct tty *tty, const struct process *leaving)
{
    if (tty->pgrp)
        hup_group(tty->pgrp, leaving, tty == &console || !leaving);
    set_ctty(tty, NULL, NULL);
    waitq_wake(&tty->readers);
}

void tty_hangup(struct tty *tty)
{
    struct k_siginfo info = { .code = SI_KERNEL };
    if (session_alive(tty)) {
        struct process *l = tty->session->proc;
        signal_send(l, SIGHUP, &info);
        signal_send(l, SIGCONT, &info);
        if (tty->pgrp)
            remember_old_pgrp(tty->session, tty->pgrp);
    }
    set_ctty(tty, NULL, NULL);
    tty->hungup = true;
    waitq_wake(&tty->readers);
    waitq_wake(&tty->writers);
}

void tty_task_exit(struct process *p)
{
    if (p->pid != p->session)
        return;
    struct tty *tty = session_tty(p->session);
    if (tty)
        disassociate(tty, p);
    for (unsigned k = 0; k < sizeof old_pgrps / sizeof old_pgrps[0]; k++)
        if (old_pgrps[k].session == p->pid) {
            if (!tty)               /* a terminal of its own again: that one's group only */
                hup_group(old_pgrps[k].pgrp, p, true);
            pid_put(old_pgrps[k].session);
            pid_put(old_pgrps[k].pgrp);
            old_pgrps[k].session = old_pgrps[k].pgrp = NULL;
        }
}

static bool background(struct tty *tty, const struct thread *t)
{
    return is_ctty(tty, t) && tty->pgrp && t->proc->pgrp != tty->pgrp;
}

/* --- the file operations ---------------------------------------------------------------- */

/* read(2): the job-control checks, then the line discipline. */
long tty_read(struct thread *t, struct file *f, struct uio *u, l4_word_t *pos)
{
    (void)pos;
    struct tty *tty = tty_of(f);
    if (tty->hungup)                /* as Linux: a read the hangup woke ends with EIO */
        return park_retrying(t) ? -EIO : 0;
    if (background(tty, t)) {
        /* As Linux: EIO if the reader ignores or blocks SIGTTIN or nobody would continue
         * its group; else SIGTTIN for the group, and the read is restarted after SIGCONT
         * (or ends with EINTR if a handler without SA_RESTART ran). */
        int c = signal_tty_stop_check(t, SIGTTIN);
        if (c)
            return -EIO;
        signal_raise_pgrp(t->proc->pgrp, SIGTTIN);
        return -ERESTARTSYS;
    }
    if (!has_input(tty) || !u->resid)
        return 0;
    return ldisc_read(t, tty, f, u);
}

/* A background process changes the terminal (a TOSTOP write, TIOCSPGRP): as Linux, one that
 * ignores or blocks SIGTTOU goes ahead (0); an orphaned group gets `orphaned`; else SIGTTOU
 * for its group and the call restarts after SIGCONT. */
static long background_change(struct thread *t, long orphaned)
{
    int c = signal_tty_stop_check(t, SIGTTOU);
    if (c < 0)
        return orphaned;
    if (c)
        return 0;
    signal_raise_pgrp(t->proc->pgrp, SIGTTOU);
    return -ERESTARTSYS;
}

/* write(2): a TOSTOP background writer first (job control), then the output processing. */
long tty_write(struct thread *t, struct file *f, struct uio *u, l4_word_t *pos)
{
    (void)pos;
    struct tty *tty = tty_of(f);
    if (tty->hungup)
        return -EIO;
    if ((tty->tio.c_lflag & TOSTOP) && t && background(tty, t)) {
        long r = background_change(t, -EIO);
        if (r)
            return r;
    }
    return ldisc_write(tty, u);
}

unsigned tty_poll(struct thread *t, struct file *f, struct poll_table *pt)
{
    (void)t;
    struct tty *tty = tty_of(f);
    if (tty->hungup)
        return POLLIN | POLLOUT | POLLERR | POLLHUP | POLLRDNORM | POLLWRNORM;
    unsigned r = 0;
    if (!has_input(tty) || ldisc_readable(tty))
        r |= POLLIN | POLLRDNORM;
    if (tty->packet && tty->link && tty->link->pktstatus)
        r |= POLLPRI | POLLIN | POLLRDNORM;
    if (tty->other_closed)
        r |= POLLHUP;
    if (!tty->drv->write_room || tty->drv->write_room(tty))
        r |= POLLOUT | POLLWRNORM;
    poll_wait(pt, &tty->readers);
    poll_wait(pt, &tty->writers);
    return r;
}

void tty_release(struct file *f)
{
    struct tty *tty = tty_of(f);
    if (!tty)
        return;
    if (tty->opens)
        tty->opens--;
    if (tty->drv->release)
        tty->drv->release(tty, f);
}

/* --- ioctl ------------------------------------------------------------------------------ */

/* The process group numbered pgrp if a live member of it is in session (else NULL). */
static struct pid *group_in_session(int pgrp, const struct pid *session)
{
    struct pid *g = pid_find(pgrp);
    struct process *p;
    if (g)
        list_each(p, &g->pgrp, pgrp_link)
            if (p->state == PROCESS_LIVE && p->session == session)
                return g;
    return NULL;
}

/* TIOCSCTTY, TIOCNOTTY, TIOCGPGRP, TIOCSPGRP, TIOCGSID (Linux's tty_jobctrl_ioctl): on a
 * master, the group calls reach its slave, without the controlling-terminal check for the
 * reading ones. */
static long jobctrl_ioctl(struct thread *t, struct tty *tty, struct tty *real, unsigned cmd,
                          l4_word_t arg, struct file *f)
{
    struct mm *mm = t->mm;
    switch (cmd) {
    case TIOCSCTTY:
        if (leader(t) && t->proc->session == tty->session && session_alive(tty))
            return 0;               /* already ours */
        if (!leader(t) || session_tty(t->proc->session))
            return -EPERM;          /* only a session leader without a terminal */
        if (session_alive(tty) && arg != 1)
            return -EPERM;          /* another session's; arg 1 steals it (we are root) */
        (void)f;
        set_ctty(tty, t->proc->session, t->proc->pgrp);
        return 0;
    case TIOCNOTTY:
        if (!is_ctty(tty, t))
            return -ENOTTY;
        if (leader(t))
            disassociate(tty, NULL);    /* the leader gives it up for the whole session */
        return 0;
    case TIOCGPGRP:
    case TIOCGSID: {
        if (tty == real && !is_ctty(tty, t))
            return -ENOTTY;
        if (cmd == TIOCGSID && !session_alive(real))
            return -ENOTTY;
        int v = cmd == TIOCGPGRP ? (real->pgrp ? real->pgrp->nr : 0) : real->session->nr;
        return copy_to_user(mm, arg, &v, sizeof v);
    }
    case TIOCSPGRP: {
        int pgrp;
        if (background(real, t)) {
            long r = background_change(t, -ENOTTY);
            if (r)
                return r;
        }
        if (copy_from_user(mm, &pgrp, arg, sizeof pgrp))
            return -EFAULT;
        if (pgrp < 0)
            return -EINVAL;         /* both before the terminal's check, as Linux */
        if (!is_ctty(real, t))
            return -ENOTTY;
        if (!pid_find(pgrp))
            return -ESRCH;
        struct pid *g = group_in_session(pgrp, t->proc->session);
        if (!g)
            return -EPERM;          /* no group of the caller's session */
        set_ctty(real, real->session, g);
        waitq_wake(&real->readers); /* a parked background reader is one no longer */
        return 0;
    }
    }
    return -ENOIOCTLCMD;
}

static long set_winsize(struct tty *tty, struct tty *real, struct mm *mm, l4_word_t arg)
{
    struct winsize w;
    if (copy_from_user(mm, &w, arg, sizeof w))
        return -EFAULT;
    if (!memcmp(&w, &real->ws, sizeof w))
        return 0;
    real->ws = w;
    if (real->pgrp)
        signal_raise_pgrp(real->pgrp, SIGWINCH);
    if (real->link && real->link->pgrp && real->link->pgrp != real->pgrp)
        signal_raise_pgrp(real->link->pgrp, SIGWINCH);
    (void)tty;
    return 0;
}

/* TCFLSH: the input queue; a slave's master in packet mode hears of it. */
static long flush(struct tty *tty, l4_word_t arg)
{
    if (arg > TCIOFLUSH)
        return -EINVAL;
    uint8_t ev = 0;
    if (arg != TCOFLUSH) {
        ldisc_flush_input(tty);
        ev |= TIOCPKT_FLUSHREAD;
    }
    if (arg != TCIFLUSH)
        ev |= TIOCPKT_FLUSHWRITE;   /* output is never queued: only the event */
    if (tty->link && tty->link->packet && !tty->drv->master) {
        tty->pktstatus |= ev;
        waitq_wake(&tty->link->readers);
    }
    return 0;
}

long tty_ioctl(struct thread *t, struct file *f, unsigned cmd, l4_word_t arg)
{
    struct tty *tty = tty_of(f), *real = real_tty(tty);
    struct mm *mm = t->mm;
    if (tty->hungup)
        return cmd == TIOCSPGRP ? -ENOTTY : -EIO;
    long r = jobctrl_ioctl(t, tty, real, cmd, arg, f);
    if (r == -ENOIOCTLCMD && tty->drv->ioctl)
        r = tty->drv->ioctl(t, tty, f, cmd, arg);
    if (r != -ENOIOCTLCMD)
        return r;
    switch (cmd) {
    case TCGETS:
        return copy_to_user(mm, arg, &real->tio, sizeof real->tio);
    case TCSETS:
    case TCSETSW:                   /* output is never queued: nothing to drain */
    case TCSETSF: {
        struct ktermios n;
        if (copy_from_user(mm, &n, arg, sizeof n))
            return -EFAULT;
        if (cmd == TCSETSF)
            ldisc_flush_input(real);
        if (real->link) {           /* a pty keeps CS8 CREAD, no parity (pty_set_termios) */
            n.c_cflag &= ~(uint32_t)(CSIZE | PARENB);
            n.c_cflag |= CS8 | CREAD;
        }
        ldisc_set_termios(real, &n);
        return 0;
    }
    case TCSBRK:
    case TCSBRKP:
    case TCXONC:
        return 0;
    case TIOCEXCL:
    case TIOCNXCL:
        tty->excl = cmd == TIOCEXCL;
        return 0;
    case TIOCGEXCL: {
        int v = tty->excl;
        return copy_to_user(mm, arg, &v, sizeof v);
    }
    case TCFLSH:
        return flush(tty, arg);
    case TIOCOUTQ: {
        int zero = 0;
        return copy_to_user(mm, arg, &zero, sizeof zero);
    }
    case FIONREAD: {
        int n = (int)ldisc_inq(tty);
        return copy_to_user(mm, arg, &n, sizeof n);
    }
    case TIOCGWINSZ:
        return copy_to_user(mm, arg, &real->ws, sizeof real->ws);
    case TIOCSWINSZ:
        return set_winsize(tty, real, mm, arg);
    case TIOCGETD: {
        int ldisc = 0;              /* N_TTY */
        return copy_to_user(mm, arg, &ldisc, sizeof ldisc);
    }
    case TIOCSETD: {
        int ldisc;
        if (copy_from_user(mm, &ldisc, arg, sizeof ldisc))
            return -EFAULT;
        return ldisc == 0 ? 0 : -EINVAL;
    }
    case TIOCGPTPEER:
        return -EIO;                /* not a master (pty.c answers for one) */
    default:
        return -ENOTTY;
    }
}

/* open(2) of the console's devices: /dev/tty is the caller's controlling terminal (ENXIO
 * without one); a session leader without one that opens /dev/ttyS0 without O_NOCTTY gets
 * it (never /dev/console, as in Linux). */
static int console_open(struct thread *t, struct inode *i, struct file *f)
{
    f->priv = &console;
    if (!t)
        return 0;                   /* lx's own: fds 0-2 of the programs it starts */
    if (i->rdev_major == 5 && i->rdev_minor == 0) {     /* /dev/tty */
        struct tty *tty = session_tty(t->proc->session);
        if (!tty)
            return -ENXIO;
        if (tty->hungup)
            return -EIO;
        f->priv = tty;
        tty->opens++;
        return 0;
    }
    console.opens++;
    if (i->rdev_major == 4)
        tty_open_ctty(t, &console, f->flags);
    return 0;
}

static const struct file_ops console_ops = {
    .open = console_open, .release = tty_release, .read = tty_read, .write = tty_write,
    .poll = tty_poll, .ioctl = tty_ioctl,
};

/* /dev/tty (5:0), /dev/console (5:1), /dev/ttyS0 (4:64). */
static struct chrdev tty_devices[] = {
    { .major = 5, .minor = 0, .count = 2, .ops = &console_ops },
    { .major = 4, .minor = 64, .count = 1, .ops = &console_ops },
};

void tty_init(void)
{
    tty_setup(&console, &console_driver, &console_termios, 4, 64, console_buf, console_mark);
    console.ws = (struct winsize){ .ws_row = 24, .ws_col = 80 };   /* a pty's starts at 0 */
    for (unsigned k = 0; k < sizeof tty_devices / sizeof tty_devices[0]; k++)
        chrdev_register(&tty_devices[k]);
    pty_init();
}
