/* syslog(2) (klogctl): the kernel log's actions as Linux's do_syslog takes them
 * (docs/linux/system.md, "The kernel log").  READ takes records past the syslog reader's
 * place, waiting for one if there is none (a partly read record goes on at the next READ);
 * READ_ALL the newest records that fit the buffer from what CLEAR left; the CONSOLE_*
 * actions change the levels /proc/sys/kernel/printk shows (lx echoes nothing to the console
 * either way). */
#include "syscalls/handlers.h"
#include "lib/errno.h"
#include "log/log.h"
#include "mm/usercopy.h"
#include "task/process.h"
#include "task/thread.h"
#include <stdint.h>

int dmesg_restrict = 1;             /* Debian's CONFIG_SECURITY_DMESG_RESTRICT */
uint64_t log_clear_seq;
static struct log_cursor syslog_cur;    /* READ's place */
static size_t syslog_partial;       /* bytes of its record READ gave already */
static int saved_console_loglevel = -1;

/* CAP_SYSLOG: lx's processes are root (issue 14 brings other users; their capabilities
 * then decide here). */
static bool capable_syslog(struct thread *t)
{
    return !t || t->proc->cred.euid == 0;
}

int syslog_permission(struct thread *t, int type, int source)
{
    if (source == SYSLOG_FROM_PROC && type != SYSLOG_ACTION_OPEN)
        return 0;
    bool restricted = dmesg_restrict || (type != SYSLOG_ACTION_READ_ALL &&
                                         type != SYSLOG_ACTION_SIZE_BUFFER);
    return restricted && !capable_syslog(t) ? -EPERM : 0;
}

static char text[LOG_TEXT_MAX * 2 + 64];

static long syslog_read(struct thread *t, l4_word_t ubuf, long size)
{
    struct mm *mm = process_mm(t->proc);
    long len = 0;
    struct log_record r;
    bool lost;
    while (size > 0 && log_peek(&syslog_cur, &r, &lost)) {
        if (lost)
            syslog_partial = 0;
        size_t n = log_format_syslog(&r, text, sizeof text), skip = syslog_partial;
        if (n - syslog_partial <= (size_t)size) {
            log_advance(&syslog_cur);
            n -= syslog_partial;
            syslog_partial = 0;
        } else if (!len) {
            n = (size_t)size;       /* a part of the first record: the rest comes next */
            syslog_partial += n;
        } else {
            break;
        }
        if (copy_to_user(mm, ubuf + (l4_word_t)len, text + skip, n))
            return len ? len : -EFAULT;
        len += (long)n;
        size -= (long)n;
    }
    return len;
}

static long syslog_read_all(struct thread *t, l4_word_t ubuf, long size, bool clear)
{
    struct mm *mm = process_mm(t->proc);
    struct log_cursor c;
    struct log_record r;
    log_cursor_at(&c, log_clear_seq);
    /* The newest records whose text fits: skip the oldest while the rest is too long. */
    size_t total = 0;
    for (struct log_cursor k = c; log_peek(&k, &r, NULL); log_advance(&k))
        total += log_format_syslog(&r, NULL, SIZE_MAX);
    for (; total > (size_t)size && log_peek(&c, &r, NULL); log_advance(&c))
        total -= log_format_syslog(&r, NULL, SIZE_MAX);
    long len = 0;
    for (; log_peek(&c, &r, NULL); log_advance(&c)) {
        size_t n = log_format_syslog(&r, text, sizeof text);
        if ((size_t)len + n > (size_t)size)
            break;
        if (copy_to_user(mm, ubuf + (l4_word_t)len, text, n)) {
            len = -EFAULT;
            break;
        }
        len += (long)n;
    }
    if (clear)
        log_clear_seq = c.seq;
    return len;
}

static long size_unread(void)
{
    struct log_cursor c = syslog_cur;
    struct log_record r;
    bool lost, first_lost = false;
    long n = 0;
    for (bool first = true; log_peek(&c, &r, &lost); log_advance(&c), first = false) {
        first_lost |= first && lost;
        n += (long)log_format_syslog(&r, NULL, SIZE_MAX);
    }
    return n - (long)(first_lost ? 0 : syslog_partial);
}

/* The reading actions' buffer: -EINVAL (none, a negative length), 0 (length 0: the answer
 * is 0), -EFAULT (not user memory), or 1 to go on. */
static int read_args(l4_word_t ubuf, long len)
{
    if (!ubuf || len < 0)
        return -EINVAL;
    if (!len)
        return 0;
    return access_ok(ubuf, (size_t)len) ? 1 : -EFAULT;
}

long sys_syslog(struct thread *t, const struct sysargs *a)
{
    int type = (int)a->a[0];
    l4_word_t ubuf = a->a[1];
    long len = (int)a->a[2];
    int e = syslog_permission(t, type, SYSLOG_FROM_READER);
    if (e)
        return e;
    switch (type) {
    case SYSLOG_ACTION_CLOSE:
    case SYSLOG_ACTION_OPEN:
        return 0;
    case SYSLOG_ACTION_READ: {
        if ((e = read_args(ubuf, len)) <= 0)
            return e;
        struct log_cursor c = syslog_cur;
        struct log_record r;
        if (!log_peek(&c, &r, NULL)) {
            waitq_add(&log_wait, t);
            return park_call(t, 0, -ERESTARTSYS);
        }
        return syslog_read(t, ubuf, len);
    }
    case SYSLOG_ACTION_READ_CLEAR:
    case SYSLOG_ACTION_READ_ALL:
        if ((e = read_args(ubuf, len)) <= 0)
            return e;
        return syslog_read_all(t, ubuf, len, type == SYSLOG_ACTION_READ_CLEAR);
    case SYSLOG_ACTION_CLEAR: {
        struct log_cursor c;
        log_cursor_end(&c);
        log_clear_seq = c.seq;
        return 0;
    }
    case SYSLOG_ACTION_CONSOLE_OFF:
        if (saved_console_loglevel == -1)
            saved_console_loglevel = console_loglevel;
        console_loglevel = minimum_console_loglevel;
        return 0;
    case SYSLOG_ACTION_CONSOLE_ON:
        if (saved_console_loglevel != -1) {
            console_loglevel = saved_console_loglevel;
            saved_console_loglevel = -1;
        }
        return 0;
    case SYSLOG_ACTION_CONSOLE_LEVEL:
        if (len < 1 || len > 8)
            return -EINVAL;
        console_loglevel = len < minimum_console_loglevel ? minimum_console_loglevel : (int)len;
        saved_console_loglevel = -1;
        return 0;
    case SYSLOG_ACTION_SIZE_UNREAD:
        return size_unread();
    case SYSLOG_ACTION_SIZE_BUFFER:
        return LOG_BUF_LEN;
    default:
        return -EINVAL;
    }
}
