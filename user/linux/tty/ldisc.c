/* The line discipline (Linux's N_TTY) of every tty: input processing, echo, the signal
 * characters, canonical line editing, VMIN/VTIME reads, and the output processing
 * (docs/linux/tty.md §3).
 *
 * Input (ldisc_receive) goes through the input flags (ISTRIP, IGNCR, ICRNL, INLCR, IXON),
 * the signal characters (ISIG: ^C SIGINT, ^\ SIGQUIT, ^Z SIGTSTP to the foreground group),
 * and in canonical mode the line editing (ERASE, WERASE, KILL, EOF, EOL, LNEXT, REPRINT),
 * into a 4096-byte queue: [tail, canon) is committed (complete lines, readable), [canon,
 * head) the line being edited.  In non-canonical mode everything is committed at once and
 * a read finishes by VMIN and VTIME.  Echo and process output go through the output
 * processing (OPOST: ONLCR, OCRNL, ONOCR, ONLRET, XTABS) into the tty's buffer, which is
 * handed to its driver at the end of each batch.
 *
 * A read that must wait parks the caller (park/park.c) on the tty's readers; every change that
 * can make a read finish wakes them, and the VTIME timers are park deadlines. */
#include "tty/tty.h"
#include "lib/errno.h"
#include "park/park.h"
#include "signal/signal.h"
#include "task/process.h"
#include "time/clock.h"
#include "tty/termios.h"
#include "vfs/file.h"
#include <string.h>

#define MARK_EOL  1                 /* the byte ends a line (canonical mode) */
#define MARK_EOF  2                 /* the EOF character: ends a line, is not read */
#define DECISECOND 100000000ull     /* VTIME's unit in lx_now()'s nanoseconds */

/* --- output ---------------------------------------------------------------------------- */

/* The batch to the driver.  A pty's driver write is the other end's input, whose echo may
 * come back here: the buffer is emptied (into a copy) before the driver runs. */
static void flush_output(struct tty *tty)
{
    char out[sizeof tty->obuf];
    unsigned n = tty->olen;
    if (!n)
        return;
    memcpy(out, tty->obuf, n);
    tty->olen = 0;
    tty->drv->write(tty, out, n);
}

static void put_raw(struct tty *tty, char c)
{
    if (tty->olen == sizeof tty->obuf)
        flush_output(tty);
    tty->obuf[tty->olen++] = c;
}

/* One byte of output through OPOST's processing, keeping track of the column. */
static void put_out(struct tty *tty, unsigned char c)
{
    uint32_t o = tty->tio.c_oflag;
    if (!(o & OPOST)) {
        put_raw(tty, (char)c);
        return;
    }
    switch (c) {
    case '\n':
        if (o & ONLCR) {
            put_raw(tty, '\r');
            tty->column = 0;
        }
        if (o & ONLRET)
            tty->column = 0;
        break;
    case '\r':
        if ((o & ONOCR) && tty->column == 0)
            return;
        if (o & OCRNL) {
            c = '\n';
            if (o & ONLRET)
                tty->column = 0;
            break;
        }
        tty->column = 0;
        break;
    case '\t': {
        unsigned spaces = 8 - (tty->column & 7);
        if ((o & TABDLY) == XTABS) {
            tty->column += spaces;
            while (spaces--)
                put_raw(tty, ' ');
            return;
        }
        tty->column += spaces;
        break;
    }
    case '\b':
        if (tty->column)
            tty->column--;
        break;
    default:
        if (o & OLCUC && c >= 'a' && c <= 'z')
            c = (unsigned char)(c - 'a' + 'A');
        if (c >= 0x20 && c != 0x7f)
            tty->column++;
    }
    put_raw(tty, (char)c);
}

static bool is_ctl(unsigned char c)
{
    return c < 0x20 || c == 0x7f;
}

/* Echo one input character: control characters as ^X under ECHOCTL (not tab, newline). */
static void echo_char(struct tty *tty, unsigned char c)
{
    if ((tty->tio.c_lflag & ECHOCTL) && is_ctl(c) && c != '\t' && c != '\n') {
        put_out(tty, '^');
        put_out(tty, c ^ 0x40);
    } else {
        put_out(tty, c);
    }
}

/* --- the input queue ------------------------------------------------------------------- */

static unsigned queued(struct tty *tty)
{
    return tty->head - tty->tail;
}

static bool canonical(struct tty *tty)
{
    return tty->tio.c_lflag & ICANON;
}

size_t ldisc_room(struct tty *tty)
{
    return TTY_BUF - queued(tty);
}

/* A byte for the queue; false when it is full (the byte is lost, as in Linux).  In
 * canonical mode the last place is kept for the line's end. */
static bool store(struct tty *tty, unsigned char c, unsigned char mark)
{
    unsigned room = TTY_BUF - queued(tty);
    if (!room || (canonical(tty) && !mark && room == 1))
        return false;
    tty->buf[tty->head % TTY_BUF] = c;
    tty->mark[tty->head % TTY_BUF] = mark;
    tty->head++;
    return true;
}

static void commit(struct tty *tty)
{
    tty->canon = tty->head;
    tty->last_input = lx_now();
    waitq_wake(&tty->readers);
}

void ldisc_flush_input(struct tty *tty)
{
    tty->head = tty->canon = tty->tail;
    tty->lnext = false;
    if (tty->link)
        waitq_wake(&tty->link->writers);    /* room for the other end's output */
}

/* The width an edited character took when it was echoed, from the line's start. */
static unsigned echo_width(struct tty *tty, unsigned pos)
{
    unsigned char c = tty->buf[pos % TTY_BUF];
    if (c == '\t') {
        unsigned col = tty->line_column;
        for (unsigned p = tty->canon; p < pos; p++) {
            unsigned char d = tty->buf[p % TTY_BUF];
            col += d == '\t' ? 8 - (col & 7) : is_ctl(d) ? 2 : 1;
        }
        return 8 - (col & 7);
    }
    if (is_ctl(c))
        return (tty->tio.c_lflag & ECHOCTL) ? 2 : 0;
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
static void erase(struct tty *tty, enum erase kind, unsigned char ch)
{
    uint32_t l = tty->tio.c_lflag;
    if (tty->head == tty->canon)
        return;
    bool echo = l & ECHO;
    if (kind == KILL && echo && !((l & ECHOK) && (l & ECHOKE) && (l & ECHOE))) {
        tty->head = tty->canon;     /* the line goes; the KILL character says so */
        echo_char(tty, ch);
        if (l & ECHOK)
            put_out(tty, '\n');
        return;
    }
    if (kind == ERASE && echo && !(l & ECHOE)) {
        tty->head--;
        echo_char(tty, ch);
        return;
    }
    bool seen_word = false;
    while (tty->head != tty->canon) {
        unsigned pos = tty->head - 1;
        unsigned char c = tty->buf[pos % TTY_BUF];
        if (kind == WERASE) {
            if (word_char(c))
                seen_word = true;
            else if (seen_word)
                break;
        }
        unsigned w = echo ? echo_width(tty, pos) : 0;
        tty->head--;
        while (w--) {
            put_out(tty, '\b');
            put_out(tty, ' ');
            put_out(tty, '\b');
        }
        if (kind == ERASE)
            break;
    }
}

static bool is_cc(struct tty *tty, unsigned char c, int idx)
{
    return tty->tio.c_cc[idx] && c == tty->tio.c_cc[idx];
}

/* The line being edited, again (VREPRINT). */
static void reprint(struct tty *tty, unsigned char ch)
{
    echo_char(tty, ch);
    put_out(tty, '\n');
    for (unsigned p = tty->canon; p != tty->head; p++)
        echo_char(tty, tty->buf[p % TTY_BUF]);
}

/* A signal character: the queue flushed (a master in packet mode hears of it), echo, the
 * signal for the foreground group. */
static void signal_char(struct tty *tty, unsigned char c, int sig)
{
    if (!(tty->tio.c_lflag & NOFLSH)) {
        ldisc_flush_input(tty);
        if (tty->link && tty->link->packet) {
            tty->pktstatus |= TIOCPKT_FLUSHREAD;
            waitq_wake(&tty->link->readers);
        }
    }
    if (tty->tio.c_lflag & ECHO)
        echo_char(tty, c);
    if (tty->pgrp)
        signal_raise_pgrp(tty->pgrp, sig);
    waitq_wake(&tty->readers);
}

static void receive_char(struct tty *tty, unsigned char c)
{
    uint32_t i = tty->tio.c_iflag, l = tty->tio.c_lflag;
    if (i & ISTRIP)
        c &= 0x7f;
    if (tty->lnext) {               /* a literal character: no special meaning at all */
        tty->lnext = false;
        if (l & ECHO) {
            put_out(tty, '\b');
            echo_char(tty, c);
        }
        if (store(tty, c, 0) && !canonical(tty))
            commit(tty);
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
    if ((i & IXON) && (is_cc(tty, c, VSTART) || is_cc(tty, c, VSTOP)))
        return;                     /* flow control: output is never stopped here */
    if (l & ISIG) {
        int sig = is_cc(tty, c, VINTR) ? SIGINT : is_cc(tty, c, VQUIT) ? SIGQUIT :
                  is_cc(tty, c, VSUSP) ? SIGTSTP : 0;
        if (sig) {
            signal_char(tty, c, sig);
            return;
        }
    }
    if (canonical(tty)) {
        if (is_cc(tty, c, VERASE)) {
            erase(tty, ERASE, c);
            return;
        }
        if (is_cc(tty, c, VKILL)) {
            erase(tty, KILL, c);
            return;
        }
        if ((l & IEXTEN) && is_cc(tty, c, VWERASE)) {
            erase(tty, WERASE, c);
            return;
        }
        if ((l & IEXTEN) && is_cc(tty, c, VLNEXT)) {
            tty->lnext = true;
            if ((l & ECHO) && (l & ECHOCTL)) {
                put_out(tty, '^');
                put_out(tty, '\b');
            }
            return;
        }
        if ((l & IEXTEN) && is_cc(tty, c, VREPRINT) && (l & ECHO)) {
            reprint(tty, c);
            return;
        }
        if (c == '\n') {
            if (l & (ECHO | ECHONL))
                put_out(tty, '\n');
            if (store(tty, c, MARK_EOL))
                commit(tty);
            return;
        }
        if (is_cc(tty, c, VEOF)) {
            if (store(tty, c, MARK_EOL | MARK_EOF))
                commit(tty);
            return;
        }
        if (is_cc(tty, c, VEOL) || is_cc(tty, c, VEOL2)) {
            if (l & ECHO)
                echo_char(tty, c);
            if (store(tty, c, MARK_EOL))
                commit(tty);
            return;
        }
    }
    if (tty->head == tty->canon)
        tty->line_column = tty->column;     /* where the line's echo begins (erasing tabs) */
    if (l & ECHO)
        echo_char(tty, c);
    if (store(tty, c, 0) && !canonical(tty))
        commit(tty);
}

void ldisc_receive(struct tty *tty, const char *buf, size_t n)
{
    for (size_t k = 0; k < n; k++)
        receive_char(tty, (unsigned char)buf[k]);
    flush_output(tty);
}

/* --- reading --------------------------------------------------------------------------- */

/* Bytes a read can take now, up to n: in canonical mode up to and including the end of the
 * first committed line (its EOF character counted, to be dropped). */
static unsigned readable(struct tty *tty, unsigned n)
{
    unsigned avail = tty->canon - tty->tail;
    if (!canonical(tty))
        return avail < n ? avail : n;
    unsigned k = 0;
    while (k < avail) {
        unsigned char m = tty->mark[(tty->tail + k) % TTY_BUF];
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

static bool line_complete(struct tty *tty)
{
    unsigned avail = tty->canon - tty->tail;
    for (unsigned k = 0; k < avail; k++)
        if (tty->mark[(tty->tail + k) % TTY_BUF] & MARK_EOL)
            return true;
    return false;
}

bool ldisc_readable(struct tty *tty)
{
    return canonical(tty) ? line_complete(tty) : tty->canon != tty->tail;
}

unsigned ldisc_inq(struct tty *tty)
{
    return canonical(tty) ? tty->canon - tty->tail : queued(tty);
}

/* Take up to n bytes (a canonical read: of one line) into buf: the count given.  *took
 * is what left the queue (an EOF character leaves without being given). */
static unsigned peek(struct tty *tty, char *buf, unsigned n, unsigned *took)
{
    unsigned k = readable(tty, n), given = 0;
    for (unsigned p = 0; p < k; p++) {
        unsigned pos = (tty->tail + p) % TTY_BUF;
        if (tty->mark[pos] & MARK_EOF)
            break;
        buf[given++] = (char)tty->buf[pos];
    }
    *took = k;
    return given;
}

static void consume(struct tty *tty, unsigned took)
{
    tty->tail += took;
    if (took && tty->link)
        waitq_wake(&tty->link->writers);    /* room for the other end's output */
}

/* The line discipline's part of read(2): VMIN/VTIME or a line; parks (LX_PARK) on the
 * tty's readers, with a VTIME deadline, when it must wait; -EAGAIN with O_NONBLOCK.  A
 * master in packet mode gives a status byte first.  Bytes whose copy to the process fails
 * stay queued. */
long ldisc_read(struct thread *t, struct tty *tty, struct file *f, struct uio *u)
{
    static char rbuf[TTY_BUF + 1];
    struct park_io *io = park_io(&t->park);     /* vfs_rw took it: the read's scratch */
    struct tty *peer = tty->link;
    if (tty->packet && peer && peer->pktstatus) {
        char status = (char)peer->pktstatus;    /* an event: one byte, alone */
        if (uio_copy_out(u, &status, 1) < 1)
            return -EFAULT;
        peer->pktstatus = 0;
        return 1;
    }
    unsigned want = u->resid > TTY_BUF ? TTY_BUF : (unsigned)u->resid;
    unsigned avail = tty->canon - tty->tail;
    uint64_t deadline = 0;
    bool ready;
    if (tty->packet && want)
        want--;                     /* the status byte's place */
    if (canonical(tty)) {
        ready = line_complete(tty);
    } else {
        unsigned vmin = tty->tio.c_cc[VMIN], vtime = tty->tio.c_cc[VTIME];
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
            deadline = tty->last_input + vtime * DECISECOND;
            ready = avail >= need || now >= deadline;
        } else {
            ready = avail >= need;
        }
    }
    if (tty->other_closed && !ldisc_readable(tty))
        return -EIO;                /* a master whose slave has gone: nothing will come */
    if (!ready) {
        if (f->flags & O_NONBLOCK) {
            if (!avail || canonical(tty))
                return -EAGAIN;
        } else {
            waitq_add(&tty->readers, t);
            return park_call(t, deadline, -ERESTARTSYS);
        }
    }
    unsigned took, off = tty->packet ? 1 : 0, k = peek(tty, rbuf + off, want, &took);
    if (tty->packet) {
        if (!k && !took)
            return 0;
        rbuf[0] = TIOCPKT_DATA;
    }
    l4_word_t copied = uio_copy_out(u, rbuf, k + off);
    if (copied < k + off) {         /* a bad page: what did not reach it stays queued */
        unsigned data = copied > off ? (unsigned)(copied - off) : 0;
        consume(tty, data);
        return copied ? (long)copied : -EFAULT;
    }
    consume(tty, took);
    return k + off;
}

/* --- writing --------------------------------------------------------------------------- */

/* Process output (write(2)'s bytes) through OPOST to the driver, a piece at a time, as much
 * as the driver has room for: the count taken, or -EAGAIN if there was no room at all
 * (the VFS parks a blocking writer on the tty's writers). */
long ldisc_write(struct tty *tty, struct uio *u)
{
    static char wbuf[512];
    uint32_t o = tty->tio.c_oflag;
    /* the most one byte can become: a tab of spaces, or "\r\n" */
    size_t grow = !(o & OPOST) ? 1 : (o & TABDLY) == XTABS ? 8 : 2;
    l4_word_t start = u->done;
    while (u->resid) {
        size_t want = sizeof wbuf;
        if (tty->drv->write_room) {
            size_t room = tty->drv->write_room(tty) / grow;
            if (!room)
                break;
            if (want > room)
                want = room;
        }
        l4_word_t k = uio_copy_in(u, wbuf, want);
        for (l4_word_t j = 0; j < k; j++)
            put_out(tty, (unsigned char)wbuf[j]);
        flush_output(tty);
        if (!k)
            break;
    }
    if (u->done == start && u->resid && !u->fault)
        return -EAGAIN;
    return (long)(u->done - start);
}

void ldisc_set_termios(struct tty *tty, const struct ktermios *n)
{
    bool was_canon = canonical(tty);
    tty->tio = *n;
    if (was_canon && !canonical(tty)) {
        tty->canon = tty->head;     /* the line being edited becomes readable */
        tty->lnext = false;
    } else if (!was_canon && canonical(tty) && tty->canon != tty->tail) {
        tty->mark[(tty->canon - 1) % TTY_BUF] |= MARK_EOL;  /* what was typed is a line */
    }
    waitq_wake(&tty->readers);      /* VMIN, VTIME or ICANON may finish a parked read */
}
