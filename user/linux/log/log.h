/* The kernel log (docs/linux/system.md, "The kernel log"): a ring of records, each with a
 * priority (facility << 3 | level), a sequence number and a timestamp, as Linux's printk
 * buffer keeps them.  lx's own messages that Linux would log go here (klog); syslog(2)
 * (syscalls/sys_syslog.c) and /dev/kmsg (log/kmsg.c) read it.  The log is an additional
 * destination: lx's console lines stay what they are, and nothing in the log is echoed to
 * the console. */
#ifndef LX_LOG_LOG_H
#define LX_LOG_LOG_H

#include "park/waitq.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LOG_BUF_SHIFT 17            /* Debian's CONFIG_LOG_BUF_SHIFT: 128 KiB */
#define LOG_BUF_LEN   (1u << LOG_BUF_SHIFT)
#define LOG_TEXT_MAX  1024          /* Linux's PRINTK_MESSAGE_MAX: a longer text is cut */

enum { KERN_EMERG, KERN_ALERT, KERN_CRIT, KERN_ERR, KERN_WARNING, KERN_NOTICE, KERN_INFO,
       KERN_DEBUG };
#define LOG_FAC_USER 1

/* A kernel message (facility 0) at level: printf's format, no trailing newline needed. */
void klog(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A record of facility and level with text (a /dev/kmsg write); a trailing newline is
 * dropped. */
void klog_emit(int facility, int level, const char *text, size_t len);

/* One record as a reader gets it (text not NUL-terminated). */
struct log_record {
    uint64_t seq, ts_us;
    unsigned prio;
    const char *text;
    size_t len;
};
/* Where a reader is: the next record's sequence number (and where it is stored). */
struct log_cursor {
    uint64_t seq;
    size_t off;
};
/* The record at c (moved to the oldest one if c's was overwritten: *lost says so, when
 * lost is not NULL); false when c is at the end. */
bool log_peek(struct log_cursor *c, struct log_record *r, bool *lost);
void log_advance(struct log_cursor *c);     /* past the record log_peek gave */
void log_cursor_first(struct log_cursor *c);    /* the oldest record */
void log_cursor_end(struct log_cursor *c);      /* past the newest */
void log_cursor_at(struct log_cursor *c, uint64_t seq);  /* seq's record (or the nearest) */
extern struct waitq log_wait;       /* woken by every new record */

/* The record as syslog(2) formats it: "<prio>[    s.uuuuuu] text\n", into buf (size):
 * its length, cut to size. */
size_t log_format_syslog(const struct log_record *r, char *buf, size_t size);

/* The console's levels (/proc/sys/kernel/printk; syslog's CONSOLE_* actions). */
extern int console_printk[4];
#define console_loglevel         (console_printk[0])
#define default_message_loglevel (console_printk[1])
#define minimum_console_loglevel (console_printk[2])
#define default_console_loglevel (console_printk[3])

/* syslog(2)'s actions (syscalls/sys_syslog.c) and who may take them: Linux's
 * check_syslog_permissions with kernel.dmesg_restrict (Debian's default 1: only CAP_SYSLOG;
 * 0: anyone may READ_ALL and SIZE_BUFFER).  0 or -EPERM. */
enum { SYSLOG_ACTION_CLOSE, SYSLOG_ACTION_OPEN, SYSLOG_ACTION_READ, SYSLOG_ACTION_READ_ALL,
       SYSLOG_ACTION_READ_CLEAR, SYSLOG_ACTION_CLEAR, SYSLOG_ACTION_CONSOLE_OFF,
       SYSLOG_ACTION_CONSOLE_ON, SYSLOG_ACTION_CONSOLE_LEVEL, SYSLOG_ACTION_SIZE_UNREAD,
       SYSLOG_ACTION_SIZE_BUFFER };
enum { SYSLOG_FROM_READER, SYSLOG_FROM_PROC };
struct thread;
int syslog_permission(struct thread *t, int type, int source);
extern int dmesg_restrict;
extern uint64_t log_clear_seq;      /* syslog's CLEAR: READ_ALL starts here */

void kmsg_init(void);               /* /dev/kmsg's number (log/kmsg.c) */
void log_init(void);                /* lx's start: the boot records, the sysctls */

#endif
