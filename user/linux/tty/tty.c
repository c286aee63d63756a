/* The console tty: Linux's line discipline with termios on the console device (console.c),
 * the controlling terminal of a session and its foreground process group
 * (docs/linux/tty.md).
 *
 * Input (tty_receive) goes through the input flags (ISTRIP, IGNCR, ICRNL, INLCR, IXON),
 * the signal characters (ISIG: ^C SIGINT, ^\ SIGQUIT, ^Z SIGTSTP to the foreground group),
 * and in canonical mode the line editing (ERASE, WERASE, KILL, EOF, EOL, LNEXT, REPRINT),
 * into a 4096-byte queue: [tail, canon) is committed (complete lines, readable), [canon,
 * head) the line being edited.  In non-canonical mode everything is committed at once and
 * a read finishes by VMIN and VTIME.  Echo and process output go through the output
 * processing (OPOST: ONLCR, OCRNL, ONOCR, ONLRET, XTABS) into a buffer that is written to
 * the device at the end of each batch.
 *
 * A read that must wait parks the caller (park/park.c) on the tty's readers; every change that
 * can make a read finish wakes them, and the VTIME timers are park deadlines. */
#include "tty/tty.h"
#include "lib/errno.h"
#include "mm/usercopy.h"
#include "park/park.h"
#include "signal/signal.h"
#include "task/process.h"
#include "time/clock.h"
#include "tty/console.h"
#include "vfs/file.h"
#include "vfs/poll.h"
#include <string.h>

/* termios: Linux's kernel ABI (struct termios of TCGETS, 36 bytes) and flag values. */
#define NCCS 19
struct ktermios {
    uint32_t c_iflag, c_oflag, c_cflag, c_lflag;
    uint8_t c_line;
    uint8_t c_cc[NCCS];
};
_Static_assert(sizeof(struct ktermios) == 36, "Linux's struct termios");

enum { VINTR, VQUIT, VERASE, VKILL, VEOF, VTIME, VMIN, VSWTC, VSTART, VSTOP, VSUSP, VEOL,
       VREPRINT, VDISCARD, VWERASE, VLNEXT, VEOL2 };

#define ISTRIP  0000040
#define INLCR   0000100
#define IGNCR   0000200
#define ICRNL   0000400
#define IXON    0002000
#define OPOST   0000001
#define OLCUC   0000002
#define ONLCR   0000004
#define OCRNL   0000010
#define ONOCR   0000020
#define ONLRET  0000040
#define TABDLY  0014000
#define XTABS   0014000
#define B115200 0010002
#define CS8     0000060
#define CREAD   0000200
#define HUPCL   0002000
#define CLOCAL  0004000
#define ISIG    0000001
#define ICANON  0000002
#define ECHO    0000010
#define ECHOE   0000020
#define ECHOK   0000040
#define ECHONL  0000100
#define NOFLSH  0000200
#define TOSTOP  0000400
#define ECHOCTL 0001000
#define ECHOKE  0004000
#define IEXTEN  0100000

struct winsize { uint16_t ws_row, ws_col, ws_xpixel, ws_ypixel; };

/* The ioctls (asm-generic/ioctls.h). */
#define TCGETS      0x5401
#define TCSETS      0x5402
#define TCSETSW     0x5403
#define TCSETSF     0x5404
#define TCSBRK      0x5409
#define TCXONC      0x540A
#define TCFLSH      0x540B
#define TIOCEXCL    0x540C
#define TIOCNXCL    0x540D
#define TIOCSCTTY   0x540E
#define TIOCGPGRP   0x540F
#define TIOCSPGRP   0x5410
#define TIOCOUTQ    0x5411
#define TIOCGWINSZ  0x5413
#define TIOCSWINSZ  0x5414
#define TIOCGSERIAL 0x541E
#define TIOCNOTTY   0x5422
#define TIOCSETD    0x5423
#define TIOCGETD    0x5424
#define TCSBRKP     0x5425
#define TIOCGSID    0x5429

#define TCIFLUSH  0
#define TCOFLUSH  1
#define TCIOFLUSH 2

#define TTY_BUF   4096              /* the input queue (Linux's N_TTY_BUF_SIZE) */
#define MARK_EOL  1                 /* the byte ends a line (canonical mode) */
#define MARK_EOF  2                 /* the EOF character: ends a line, is not read */
#define DECISECOND 100000000ull     /* VTIME's unit in lx_now()'s nanoseconds */

static struct tty {
    struct ktermios tio;
    struct winsize ws;
    unsigned char buf[TTY_BUF], mark[TTY_BUF];
    unsigned head, canon, tail;     /* free-running indices: [tail, canon) committed */
    bool lnext;                     /* the next character is literal (VLNEXT) */
    unsigned column;                /* output column (erasing tabs, ONOCR) */
    unsigned line_column;           /* the column where the line being edited began */
    struct pid *session, *pgrp;     /* the session it controls, its foreground group (held) */
    struct waitq readers;
    uint64_t last_input;            /* lx_now() of the last byte (VTIME between bytes) */
} tty = {
    .tio = {
        .c_iflag = ICRNL | IXON,
        .c_oflag = OPOST | ONLCR,
        .c_cflag = B115200 | CS8 | CREAD | HUPCL | CLOCAL,
        .c_lflag = ISIG | ICANON | ECHO | ECHOE | ECHOK | ECHOCTL | ECHOKE | IEXTEN,
        .c_cc = { [VINTR] = 3, [VQUIT] = 034, [VERASE] = 0177, [VKILL] = 025, [VEOF] = 4,
                  [VTIME] = 0, [VMIN] = 1, [VSTART] = 021, [VSTOP] = 023, [VSUSP] = 032,
                  [VREPRINT] = 022, [VDISCARD] = 017, [VWERASE] = 027, [VLNEXT] = 026 },
    },
    .ws = { .ws_row = 24, .ws_col = 80 },
};

/* --- output ---------------------------------------------------------------------------- */

static char obuf[512];
static unsigned olen;

static void flush_output(void)
{
    if (olen)
        console_write(obuf, olen);
    olen = 0;
}

static void put_raw(char c)
{
    if (olen == sizeof obuf)
        flush_output();
    obuf[olen++] = c;
}

/* One byte of output through OPOST's processing, keeping track of the column. */
static void put_out(unsigned char c)
{
    uint32_t o = tty.tio.c_oflag;
    if (!(o & OPOST)) {
        put_raw((char)c);
        return;
    }
    switch (c) {
    case '\n':
        if (o & ONLCR) {
            put_raw('\r');
            tty.column = 0;
        }
        if (o & ONLRET)
            tty.column = 0;
        break;
    case '\r':
        if ((o & ONOCR) && tty.column == 0)
            return;
        if (o & OCRNL) {
            c = '\n';
            if (o & ONLRET)
                tty.column = 0;
            break;
        }
        tty.column = 0;
        break;
    case '\t': {
        unsigned spaces = 8 - (tty.column & 7);
        if ((o & TABDLY) == XTABS) {
            tty.column += spaces;
            while (spaces--)
                put_raw(' ');
            return;
        }
        tty.column += spaces;
        break;
    }
    case '\b':
        if (tty.column)
            tty.column--;
        break;
    default:
        if (o & OLCUC && c >= 'a' && c <= 'z')
            c = (unsigned char)(c - 'a' + 'A');
        if (c >= 0x20 && c != 0x7f)
            tty.column++;
    }
    put_raw((char)c);
}

static bool is_ctl(unsigned char c)
{
    return c < 0x20 || c == 0x7f;
}

/* Echo one input character: control characters as ^X under ECHOCTL (not tab, newline). */
static void echo_char(unsigned char c)
{
    if ((tty.tio.c_lflag & ECHOCTL) && is_ctl(c) && c != '\t' && c != '\n') {
        put_out('^');
        put_out(c ^ 0x40);
    } else {
        put_out(c);
    }
}

/* --- the input queue ------------------------------------------------------------------- */

static unsigned queued(void)
{
    return tty.head - tty.tail;
}

static bool canonical(void)
{
    return tty.tio.c_lflag & ICANON;
}

/* A byte for the queue; false when it is full (the byte is lost, as in Linux).  In
 * canonical mode the last place is kept for the line's end. */
static bool store(unsigned char c, unsigned char mark)
{
    unsigned room = TTY_BUF - queued();
    if (!room || (canonical() && !mark && room == 1))
        return false;
    tty.buf[tty.head % TTY_BUF] = c;
    tty.mark[tty.head % TTY_BUF] = mark;
    tty.head++;
    return true;
}

static void commit(void)
{
    tty.canon = tty.head;
    tty.last_input = lx_now();
    waitq_wake(&tty.readers);
}

static void flush_input(void)
{
    tty.head = tty.canon = tty.tail;
    tty.lnext = false;
}

/* The width an edited character took when it was echoed, from the line's start. */
static unsigned echo_width(unsigned pos)
{
    unsigned char c = tty.buf[pos % TTY_BUF];
    if (c == '\t') {
        unsigned col = tty.line_column;
        for (unsigned p = tty.canon; p < pos; p++) {
            unsigned char d = tty.buf[p % TTY_BUF];
            col += d == '\t' ? 8 - (col & 7) : is_ctl(d) ? 2 : 1;
        }
        return 8 - (col & 7);
    }
    if (is_ctl(c))
        return (tty.tio.c_lflag & ECHOCTL) ? 2 : 0;
    return 1;
}

enum erase { ERASE, WERASE, KILL };

static bool word_char(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           c == '_';
}

/* ERASE, WERASE and KILL in canonical mode: take characters off the line being edited and
 * off the screen. */
static void erase(enum erase kind, unsigned char ch)
{
    uint32_t l = tty.tio.c_lflag;
    if (tty.head == tty.canon)
        return;
    bool echo = l & ECHO;
    if (kind == KILL && echo && !((l & ECHOK) && (l & ECHOKE) && (l & ECHOE))) {
        tty.head = tty.canon;       /* the line goes; the KILL character says so */
        echo_char(ch);
        if (l & ECHOK)
            put_out('\n');
        return;
    }
    if (kind == ERASE && echo && !(l & ECHOE)) {
        tty.head--;
        echo_char(ch);
        return;
    }
    bool seen_word = false;
    while (tty.head != tty.canon) {
        unsigned pos = tty.head - 1;
        unsigned char c = tty.buf[pos % TTY_BUF];
        if (kind == WERASE) {
            if (word_char(c))
                seen_word = true;
            else if (seen_word)
                break;
        }
        unsigned w = echo ? echo_width(pos) : 0;
        tty.head--;
        while (w--) {
            put_out('\b');
            put_out(' ');
            put_out('\b');
        }
        if (kind == ERASE)
            break;
    }
}

static bool is_cc(unsigned char c, int idx)
{
    return tty.tio.c_cc[idx] && c == tty.tio.c_cc[idx];
}

/* The line being edited, again (VREPRINT). */
static void reprint(unsigned char ch)
{
    echo_char(ch);
    put_out('\n');
    for (unsigned p = tty.canon; p != tty.head; p++)
        echo_char(tty.buf[p % TTY_BUF]);
}

static void receive_char(unsigned char c)
{
    uint32_t i = tty.tio.c_iflag, l = tty.tio.c_lflag;
    if (i & ISTRIP)
        c &= 0x7f;
    if (tty.lnext) {                /* a literal character: no special meaning at all */
        tty.lnext = false;
        if (l & ECHO) {
            put_out('\b');
            echo_char(c);
        }
        if (store(c, 0) && !canonical())
            commit();
        return;
    }
    if (c == '\r') {
        if (i & IGNCR)
            return;
        if (i & ICRNL)
            c = '\n';
    } else if (c == '\n' && (i & INLCR)) {
        c = '\r';
    }
    if ((i & IXON) && (is_cc(c, VSTART) || is_cc(c, VSTOP)))
        return;                     /* flow control: output is never stopped here */
    if (l & ISIG) {
        int sig = is_cc(c, VINTR) ? SIGINT : is_cc(c, VQUIT) ? SIGQUIT :
                  is_cc(c, VSUSP) ? SIGTSTP : 0;
        if (sig) {
            if (!(l & NOFLSH))
                flush_input();
            if (l & ECHO)
                echo_char(c);
            if (tty.pgrp)
                signal_raise_pgrp(tty.pgrp, sig);
            waitq_wake(&tty.readers);
            return;
        }
    }
    if (canonical()) {
        if (is_cc(c, VERASE)) {
            erase(ERASE, c);
            return;
        }
        if (is_cc(c, VKILL)) {
            erase(KILL, c);
            return;
        }
        if ((l & IEXTEN) && is_cc(c, VWERASE)) {
            erase(WERASE, c);
            return;
        }
        if ((l & IEXTEN) && is_cc(c, VLNEXT)) {
            tty.lnext = true;
            if ((l & ECHO) && (l & ECHOCTL)) {
                put_out('^');
                put_out('\b');
            }
            return;
        }
        if ((l & IEXTEN) && is_cc(c, VREPRINT) && (l & ECHO)) {
            reprint(c);
            return;
        }
        if (c == '\n') {
            if (l & (ECHO | ECHONL))
                put_out('\n');
            if (store(c, MARK_EOL))
                commit();
            return;
        }
        if (is_cc(c, VEOF)) {
            if (store(c, MARK_EOL | MARK_EOF))
                commit();
            return;
        }
        if (is_cc(c, VEOL) || is_cc(c, VEOL2)) {
            if (l & ECHO)
                echo_char(c);
            if (store(c, MARK_EOL))
                commit();
            return;
        }
    }
    if (tty.head == tty.canon)
        tty.line_column = tty.column;   /* where the line's echo begins (erasing tabs) */
    if (l & ECHO)
        echo_char(c);
    if (store(c, 0) && !canonical())
        commit();
}

void tty_receive(const char *buf, size_t n)
{
    for (size_t k = 0; k < n; k++)
        receive_char((unsigned char)buf[k]);
    flush_output();
}

/* --- reading --------------------------------------------------------------------------- */

/* Bytes a read can take now, up to n: in canonical mode up to and including the end of the
 * first committed line (its EOF character counted, to be dropped). */
static unsigned readable(unsigned n)
{
    unsigned avail = tty.canon - tty.tail;
    if (!canonical())
        return avail < n ? avail : n;
    unsigned k = 0;
    while (k < avail) {
        unsigned char m = tty.mark[(tty.tail + k) % TTY_BUF];
        if (m & MARK_EOF)
            return k + 1;           /* the EOF character itself is taken, not given */
        if (k == n)
            break;
        k++;
        if (m & MARK_EOL)
            break;
    }
    return k;
}

static unsigned line_complete(void)
{
    unsigned avail = tty.canon - tty.tail;
    for (unsigned k = 0; k < avail; k++)
        if (tty.mark[(tty.tail + k) % TTY_BUF] & MARK_EOL)
            return 1;
    return 0;
}

/* Take up to n bytes (a canonical read: of one line) into buf: the count given.  *took
 * is what left the queue (an EOF character leaves without being given). */
static unsigned peek(char *buf, unsigned n, unsigned *took)
{
    unsigned k = readable(n), given = 0;
    for (unsigned p = 0; p < k; p++) {
        unsigned pos = (tty.tail + p) % TTY_BUF;
        if (tty.mark[pos] & MARK_EOF)
            break;
        buf[given++] = (char)tty.buf[pos];
    }
    *took = k;
    return given;
}

static void consume(unsigned took)
{
    tty.tail += took;
}

static char rbuf[TTY_BUF];

static bool ctty_session_alive(void)
{
    struct process *l = tty.session->proc;
    return l && l->state == PROCESS_LIVE && l->session == tty.session;
}

/* The terminal's session and foreground group (NULL: none), references held. */
static void set_ctty(struct pid *session, struct pid *pgrp)
{
    if (session)
        pid_get(session);
    if (pgrp)
        pid_get(pgrp);
    if (tty.session)
        pid_put(tty.session);
    if (tty.pgrp)
        pid_put(tty.pgrp);
    tty.session = session;
    tty.pgrp = pgrp;
}

/* Is this tty t's controlling terminal?  (A session whose leader has gone without
 * tty_task_exit, which should not happen, loses it here too.) */
static bool is_ctty(const struct thread *t)
{
    if (tty.session && !ctty_session_alive())
        set_ctty(NULL, NULL);
    return tty.session && t->proc->session == tty.session;
}

/* SIGHUP and SIGCONT for the foreground group, but not for `leaving` (an ending leader). */
static void hang_up(const struct process *leaving)
{
    struct process *p, *n;
    struct k_siginfo info = { .code = SI_KERNEL };
    if (tty.pgrp)
        list_each_safe(p, n, &tty.pgrp->pgrp, pgrp_link)
            if (p != leaving && p->state == PROCESS_LIVE) {
                signal_send(p, SIGHUP, &info);
                signal_send(p, SIGCONT, &info);
            }
    set_ctty(NULL, NULL);
    waitq_wake(&tty.readers);
}

void tty_task_exit(struct process *p)
{
    if (tty.session && p->pid == tty.session && p->session == tty.session)
        hang_up(p);
}

static bool background(const struct thread *t)
{
    return is_ctty(t) && tty.pgrp && t->proc->pgrp != tty.pgrp;
}

/* read(2) on the tty: the job-control checks, then the line discipline.  A read that must
 * wait parks the caller itself (LX_PARK) on the tty's readers, with a VTIME deadline; with
 * O_NONBLOCK it is -EAGAIN.  Bytes whose copy to the process fails stay queued. */
static long op_read(struct thread *t, struct file *f, struct uio *u, l4_word_t *pos)
{
    (void)pos;
    struct park_io *io = park_io(&t->park);     /* vfs_rw took it: the read's scratch */
    if (background(t)) {
        /* As Linux: EIO if the reader ignores or blocks SIGTTIN or nobody would continue
         * its group; else SIGTTIN for the group, and the read is restarted after SIGCONT
         * (or ends with EINTR if a handler without SA_RESTART ran). */
        int c = signal_tty_stop_check(t, SIGTTIN);
        if (c)
            return -EIO;
        signal_raise_pgrp(t->proc->pgrp, SIGTTIN);
        return -ERESTARTSYS;
    }
    if (!console_has_input() || !u->resid)
        return 0;
    unsigned want = u->resid > TTY_BUF ? TTY_BUF : (unsigned)u->resid;
    unsigned avail = tty.canon - tty.tail;
    uint64_t deadline = 0;
    bool ready;
    if (canonical()) {
        ready = line_complete();
    } else {
        unsigned vmin = tty.tio.c_cc[VMIN], vtime = tty.tio.c_cc[VTIME];
        unsigned need = vmin < want ? vmin : want;
        uint64_t now = lx_now();
        if (!vmin && !vtime) {
            ready = true;           /* polling read: whatever is there, maybe nothing */
        } else if (!vmin) {         /* a timer for the whole read, from its start */
            if (!park_retrying(t))
                io->vtime_end = now + vtime * DECISECOND;
            deadline = io->vtime_end;
            ready = avail || now >= deadline;
        } else if (vtime && avail) {    /* a timer between bytes, once one has come */
            deadline = tty.last_input + vtime * DECISECOND;
            ready = avail >= need || now >= deadline;
        } else {
            ready = avail >= need;
        }
    }
    if (!ready) {
        if (f->flags & O_NONBLOCK) {
            if (!avail || canonical())
                return -EAGAIN;
        } else {
            waitq_add(&tty.readers, t);
            return park_call(t, deadline, -ERESTARTSYS);
        }
    }
    unsigned took, k = peek(rbuf, want, &took);
    l4_word_t copied = uio_copy_out(u, rbuf, k);
    if (copied < k) {               /* a bad page: what did not reach it stays queued */
        consume((unsigned)copied);
        return copied ? (long)copied : -EFAULT;
    }
    consume(took);
    return k;
}

/* --- writing --------------------------------------------------------------------------- */

/* write(2) on the tty: a TOSTOP background writer first (job control), then the bytes
 * through the output processing, a piece at a time (a bad page ends the write there). */
static long op_write(struct thread *t, struct file *f, struct uio *u, l4_word_t *pos)
{
    (void)f, (void)pos;
    static char wbuf[512];
    if ((tty.tio.c_lflag & TOSTOP) && t && background(t)) {
        /* As Linux: a writer that ignores or blocks SIGTTOU writes; an orphaned group
         * gets EIO; else SIGTTOU for the group and the write restarts after SIGCONT. */
        int c = signal_tty_stop_check(t, SIGTTOU);
        if (c < 0)
            return -EIO;
        if (!c) {
            signal_raise_pgrp(t->proc->pgrp, SIGTTOU);
            return -ERESTARTSYS;
        }
    }
    l4_word_t start = u->done;
    while (u->resid) {
        l4_word_t k = uio_copy_in(u, wbuf, sizeof wbuf);
        for (l4_word_t j = 0; j < k; j++)
            put_out((unsigned char)wbuf[j]);
        flush_output();
        if (!k)
            break;
    }
    return (long)(u->done - start);
}

/* --- poll ------------------------------------------------------------------------------ */

static unsigned op_poll(struct thread *t, struct file *f, struct poll_table *pt)
{
    (void)t, (void)f;
    unsigned r = POLLOUT | POLLWRNORM;
    if (!console_has_input() || (canonical() ? line_complete() : tty.canon != tty.tail))
        r |= POLLIN | POLLRDNORM;
    poll_wait(pt, &tty.readers);
    return r;
}

/* --- ioctl ----------------------------------------------------------------------------- */

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

static void set_termios(const struct ktermios *n)
{
    bool was_canon = canonical();
    tty.tio = *n;
    if (was_canon && !canonical()) {
        tty.canon = tty.head;       /* the line being edited becomes readable */
        tty.lnext = false;
    } else if (!was_canon && canonical() && tty.canon != tty.tail) {
        tty.mark[(tty.canon - 1) % TTY_BUF] |= MARK_EOL;    /* what was typed is a line */
    }
    waitq_wake(&tty.readers);       /* VMIN, VTIME or ICANON may finish a parked read */
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

static long op_ioctl(struct thread *t, struct file *f, unsigned cmd, l4_word_t arg)
{
    (void)f;
    struct mm *mm = t->mm;
    switch (cmd) {
    case TCGETS:
        return copy_to_user(mm, arg, &tty.tio, sizeof tty.tio);
    case TCSETS:
    case TCSETSW:                   /* output is never queued: nothing to drain */
    case TCSETSF: {
        struct ktermios n;
        if (copy_from_user(mm, &n, arg, sizeof n))
            return -EFAULT;
        if (cmd == TCSETSF)
            flush_input();
        set_termios(&n);
        return 0;
    }
    case TCSBRK:
    case TCSBRKP:
    case TCXONC:
    case TIOCEXCL:
    case TIOCNXCL:
        return 0;
    case TCFLSH:
        if (arg > TCIOFLUSH)
            return -EINVAL;
        if (arg != TCOFLUSH)
            flush_input();
        return 0;
    case TIOCOUTQ: {
        int zero = 0;
        return copy_to_user(mm, arg, &zero, sizeof zero);
    }
    case FIONREAD: {
        int n = (int)(canonical() ? tty.canon - tty.tail : queued());
        return copy_to_user(mm, arg, &n, sizeof n);
    }
    case TIOCGWINSZ:
        return copy_to_user(mm, arg, &tty.ws, sizeof tty.ws);
    case TIOCSWINSZ: {
        struct winsize w;
        if (copy_from_user(mm, &w, arg, sizeof w))
            return -EFAULT;
        bool changed = memcmp(&w, &tty.ws, sizeof w) != 0;
        tty.ws = w;
        if (changed && tty.pgrp)
            signal_raise_pgrp(tty.pgrp, SIGWINCH);
        return 0;
    }
    case TIOCSCTTY:
        if (t->proc->session != t->proc->pid)
            return -EPERM;          /* only a session leader */
        if (is_ctty(t))
            return 0;               /* already ours */
        if (tty.session && arg != 1)
            return -EPERM;          /* another session's; arg 1 steals it (we are root) */
        set_ctty(t->proc->session, t->proc->pgrp);
        return 0;
    case TIOCNOTTY:
        if (!is_ctty(t))
            return -ENOTTY;
        if (t->proc->session == t->proc->pid)
            hang_up(NULL);          /* the leader gives it up for the whole session */
        return 0;
    case TIOCGPGRP:
    case TIOCGSID: {
        if (!is_ctty(t))
            return -ENOTTY;
        int v = cmd == TIOCGPGRP ? (tty.pgrp ? tty.pgrp->nr : 0) : tty.session->nr;
        return copy_to_user(mm, arg, &v, sizeof v);
    }
    case TIOCSPGRP: {
        int pgrp;
        if (!is_ctty(t))
            return -ENOTTY;
        if (copy_from_user(mm, &pgrp, arg, sizeof pgrp))
            return -EFAULT;
        if (pgrp < 0)
            return -EINVAL;
        struct pid *g = group_in_session(pgrp, t->proc->session);
        if (!g)
            return -EPERM;
        if (background(t)) {        /* as Linux: SIGTTOU unless ignored or blocked */
            int c = signal_tty_stop_check(t, SIGTTOU);
            if (c < 0)
                return -EIO;
            if (!c) {
                signal_raise_pgrp(t->proc->pgrp, SIGTTOU);
                return -ERESTARTSYS;
            }
        }
        set_ctty(tty.session, g);
        waitq_wake(&tty.readers);   /* a parked background reader is one no longer */
        return 0;
    }
    case TIOCGSERIAL: {
        struct serial_struct s = {
            .type = 4 /* PORT_16550A */, .line = 0, .port = 0x3F8, .irq = 4,
            .xmit_fifo_size = 16, .baud_base = 115200, .close_delay = 50,
            .closing_wait = 3000,
        };
        return copy_to_user(mm, arg, &s, sizeof s);
    }
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
    default:
        return -ENOTTY;
    }
}

/* open(2) of a tty device: /dev/tty is ENXIO without a controlling terminal; a session
 * leader without one that opens /dev/ttyS0 without O_NOCTTY gets it (never /dev/console,
 * as in Linux). */
static int op_open(struct thread *t, struct inode *i, struct file *f)
{
    if (!t)
        return 0;                   /* lx's own: fds 0-2 of the programs it starts */
    if (i->rdev_major == 5 && i->rdev_minor == 0)
        return is_ctty(t) ? 0 : -ENXIO;     /* /dev/tty: the controlling terminal */
    if (!(f->flags & O_NOCTTY) && i->rdev_major == 4 && t->proc->session == t->proc->pid &&
        !is_ctty(t) && !tty.session) {
        set_ctty(t->proc->session, t->proc->pgrp);
    }
    return 0;
}

static const struct file_ops tty_ops = {
    .open = op_open, .read = op_read, .write = op_write, .poll = op_poll, .ioctl = op_ioctl,
};

/* /dev/tty (5:0), /dev/console (5:1), /dev/ttyS0 (4:64): the one tty. */
static struct chrdev tty_devices[] = {
    { .major = 5, .minor = 0, .count = 2, .ops = &tty_ops },
    { .major = 4, .minor = 64, .count = 1, .ops = &tty_ops },
};

void tty_init(void)
{
    for (unsigned k = 0; k < sizeof tty_devices / sizeof tty_devices[0]; k++)
        chrdev_register(&tty_devices[k]);
}
