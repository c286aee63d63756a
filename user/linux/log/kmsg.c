/* /dev/kmsg (1:11): the kernel log as records (Linux's Documentation/ABI/testing/dev-kmsg).
 * A read gives one record, "prio,seq,usec,flag;text\n" with the text's control bytes and
 * backslashes as \xNN; a buffer too small for it is EINVAL, a record the ring dropped
 * before the reader got to it EPIPE (the reader then goes on from the oldest); no record
 * waits (EAGAIN with O_NONBLOCK).  A write is one record: an optional "<N>" prefix gives
 * the level (and a facility other than 0; the default is LOG_USER), at most 1024 bytes,
 * and like Linux's default printk.devkmsg=ratelimit each open file may log 10 records in
 * 5 s, the rest dropped silently (counted when it closes).  lseek moves to the oldest
 * record (SEEK_SET), past what syslog's CLEAR cleared (SEEK_DATA) or to the end. */
#include "log/log.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "task/process.h"
#include "time/clock.h"
#include "vfs/poll.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KMSG_WRITE_MAX 1024         /* Linux's PRINTKRB_RECORD_MAX */
#define RATELIMIT_NS   (5 * 1000000000ull)
#define RATELIMIT_BURST 10

struct kmsg_user {
    struct log_cursor cur;
    uint64_t window;                /* the ratelimit's: when the current 5 s began */
    unsigned printed, missed;
};

static int kmsg_open(struct thread *t, struct inode *i, struct file *f)
{
    (void)i;
    if ((f->flags & O_ACCMODE) != O_WRONLY) {
        int e = syslog_permission(t, SYSLOG_ACTION_READ_ALL, SYSLOG_FROM_READER);
        if (e)
            return e;
    }
    struct kmsg_user *u = kmalloc(sizeof *u);
    if (!u)
        return -ENOMEM;
    log_cursor_first(&u->cur);
    f->priv = u;
    return 0;
}

static void kmsg_release(struct file *f)
{
    struct kmsg_user *u = f->priv;
    if (u->missed)
        klog(KERN_WARNING, "printk: %s: %u output lines suppressed due to ratelimiting",
             "kmsg", u->missed);
    kfree(u);
}

/* The record as /dev/kmsg gives it into out (size): its length, or 0 if it does not fit. */
static size_t kmsg_format(const struct log_record *r, char *out, size_t size)
{
    size_t n = (size_t)snprintf(out, size, "%u,%lu,%lu,-;", r->prio, (unsigned long)r->seq,
                                (unsigned long)r->ts_us);
    for (size_t k = 0; k < r->len && n < size; k++) {
        unsigned char c = (unsigned char)r->text[k];
        if (c < ' ' || c >= 127 || c == '\\')
            n += (size_t)snprintf(out + n, size - n, "\\x%02x", c);
        else
            out[n++] = (char)c;
    }
    if (n >= size)
        return 0;
    out[n++] = '\n';
    return n;
}

static long kmsg_read(struct thread *t, struct file *f, struct uio *u, l4_word_t *pos)
{
    (void)t, (void)pos;
    static char text[LOG_TEXT_MAX * 4 + 64];
    struct kmsg_user *k = f->priv;
    struct log_record r;
    bool lost;
    if (!log_peek(&k->cur, &r, &lost))
        return -EAGAIN;             /* the VFS parks a blocking reader on log_wait */
    if (lost)
        return -EPIPE;
    size_t n = kmsg_format(&r, text, sizeof text);
    log_advance(&k->cur);           /* as Linux: the record is gone for this reader even if
                                       the buffer cannot take it */
    if (n > u->resid)
        return -EINVAL;
    l4_word_t done = uio_copy_out(u, text, n);
    if (done < n)
        return -EFAULT;
    return (long)done;
}

static bool ratelimit_ok(struct kmsg_user *k)
{
    uint64_t now = lx_now();
    if (!k->window || now - k->window >= RATELIMIT_NS) {
        k->window = now;
        k->printed = 0;
    }
    if (k->printed < RATELIMIT_BURST) {
        k->printed++;
        return true;
    }
    k->missed++;
    return false;
}

static long kmsg_write(struct thread *t, struct file *f, struct uio *u, l4_word_t *pos)
{
    (void)t, (void)pos;
    static char line[KMSG_WRITE_MAX + 1];
    l4_word_t len = u->resid;
    if (len > KMSG_WRITE_MAX)
        return -EINVAL;
    if (!ratelimit_ok(f->priv))
        return (long)uio_discard(u, len);
    if (uio_copy_in(u, line, len) < len)
        return -EFAULT;
    line[len] = 0;
    const char *text = line;
    int level = default_message_loglevel, facility = LOG_FAC_USER;
    if (text[0] == '<') {
        char *end;
        unsigned long v = strtoul(text + 1, &end, 10);
        if (*end == '>') {
            level = (int)(v & 7);
            if (v >> 3)
                facility = (int)((v >> 3) & 0xFF);
            text = end + 1;
        }
    }
    klog_emit(facility, level, text, strnlen(text, len - (size_t)(text - line)));
    return (long)len;
}

static long kmsg_llseek(struct thread *t, struct file *f, long off, int whence)
{
    (void)t;
    struct kmsg_user *k = f->priv;
    if (off)
        return -ESPIPE;
    switch (whence) {
    case 0: log_cursor_first(&k->cur); break;                  /* SEEK_SET */
    case 3: log_cursor_at(&k->cur, log_clear_seq); break;      /* SEEK_DATA */
    case 2: log_cursor_end(&k->cur); break;                    /* SEEK_END */
    default: return -EINVAL;
    }
    return 0;
}

static unsigned kmsg_poll(struct thread *t, struct file *f, struct poll_table *pt)
{
    (void)t;
    struct kmsg_user *k = f->priv;
    struct log_record r;
    bool lost;
    if (pt)
        poll_wait(pt, &log_wait);
    struct log_cursor c = k->cur;
    if (!log_peek(&c, &r, &lost))
        return 0;                   /* Linux's devkmsg_poll: never POLLOUT */
    return POLLIN | POLLRDNORM | (lost ? POLLERR | POLLPRI : 0);
}

static const struct file_ops kmsg_ops = {
    .open = kmsg_open, .release = kmsg_release, .read = kmsg_read, .write = kmsg_write,
    .llseek = kmsg_llseek, .poll = kmsg_poll,
};

static struct chrdev kmsg_device = { .major = 1, .minor = 11, .count = 1, .ops = &kmsg_ops };

void kmsg_init(void)
{
    chrdev_register(&kmsg_device);
}
