/* The kernel log's ring (log/log.h).  Records are stored whole, 8-byte aligned, oldest
 * first from `head` to `tail`; one that does not fit before the buffer's end starts again
 * at 0 (a header of size 0, or too little room for a header, marks the jump), and the
 * oldest records are dropped to make room, as Linux's ring drops them.  A reader's cursor
 * is a sequence number with the record's place: the place is good while the number is not
 * older than the oldest record. */
#include "log/log.h"
#include "fs/proc/sysctl.h"
#include "time/clock.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct log_hdr {
    uint64_t seq, ts_us;
    uint16_t size;                  /* the whole record, header included; 0: go to 0 */
    uint16_t len;                   /* the text's */
    uint16_t prio;                  /* facility (8 bits) << 3 | level */
};
#define HDR ((sizeof(struct log_hdr) + 7) & ~7ul)

static char buf[LOG_BUF_LEN] __attribute__((aligned(8)));
static size_t head, tail;           /* the oldest record's place; where the next goes */
static uint64_t first_seq, next_seq;
/* The newest record came without a newline (a /dev/kmsg write): Linux leaves it open for a
 * continuation, and readers see it only once another record is stored. */
static bool last_open;
static size_t last_off;

static uint64_t visible_end(void)
{
    return next_seq - (last_open ? 1 : 0);
}
struct waitq log_wait;

/* Debian's levels (CONFIG_CONSOLE_LOGLEVEL_DEFAULT 7, CONFIG_MESSAGE_LOGLEVEL_DEFAULT 4) as
 * its kernel boots with "quiet" (its GRUB entry's, and the corpus's reference boot): the
 * console's level is then 4. */
int console_printk[4] = { 4, 4, 1, 7 };

static struct sysctl log_sysctls[] = {
    { .path = "kernel/printk", .mode = 0644, .show = sysctl_show_int,
      .store = sysctl_store_int, .data = console_printk, .n = 4 },
    { .path = "kernel/dmesg_restrict", .mode = 0644, .show = sysctl_show_int,
      .store = sysctl_store_int, .data = &dmesg_restrict, .min = 0, .max = 1 },
};
SYSCTL_TABLE(log_sysctls)

static struct log_hdr *hdr_at(size_t off)
{
    return (struct log_hdr *)(buf + off);
}

/* off, or 0 where a record at off would not fit (the jump to the start). */
static size_t norm(size_t off)
{
    return LOG_BUF_LEN - off < HDR || hdr_at(off)->size == 0 ? 0 : off;
}

static void mark_jump(size_t off)
{
    if (LOG_BUF_LEN - off >= HDR)
        hdr_at(off)->size = 0;
}

static void drop_oldest(void)
{
    head = norm(head);
    head += hdr_at(head)->size;
    first_seq++;
    if (first_seq != next_seq)
        head = norm(head);
}

/* Where a record of n bytes goes: the oldest records dropped until it fits. */
static size_t place(size_t n)
{
    for (;;) {
        if (first_seq == next_seq) {
            if (tail + n > LOG_BUF_LEN) {
                mark_jump(tail);
                tail = 0;
            }
            head = tail;
            return tail;
        }
        if (head < tail) {
            if (tail + n <= LOG_BUF_LEN)
                return tail;
            if (n <= head) {
                mark_jump(tail);
                return 0;
            }
        } else if (head > tail && tail + n <= head) {
            return tail;
        }
        drop_oldest();
    }
}

void klog_emit(int facility, int level, const char *text, size_t len)
{
    bool open = !len || text[len - 1] != '\n';
    if (!open)
        len--;
    if (len > LOG_TEXT_MAX)
        len = LOG_TEXT_MAX;
    size_t n = (HDR + len + 7) & ~7ul;
    size_t off = place(n);
    struct log_hdr *h = hdr_at(off);
    *h = (struct log_hdr){ .seq = next_seq++, .ts_us = lx_now() / 1000, .size = (uint16_t)n,
                           .len = (uint16_t)len, .prio = (uint16_t)((facility & 0xFF) << 3 | (level & 7)) };
    memcpy(buf + off + HDR, text, len);
    tail = off + n;
    last_off = off;
    last_open = open;
    waitq_wake(&log_wait);
}

void klog(int level, const char *fmt, ...)
{
    char text[LOG_TEXT_MAX + 1];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    size_t len = (size_t)n < sizeof text - 1 ? (size_t)n : sizeof text - 2;
    text[len++] = '\n';             /* lx's own lines are whole */
    klog_emit(0, level, text, len);
}

bool log_peek(struct log_cursor *c, struct log_record *r, bool *lost)
{
    if (lost)
        *lost = false;
    if (c->seq < first_seq) {
        if (lost)
            *lost = true;
        c->seq = first_seq;
        c->off = head;
    }
    if (c->seq >= visible_end()) {
        if (c->seq > next_seq)
            c->seq = next_seq;
        return false;
    }
    c->off = norm(c->off);
    const struct log_hdr *h = hdr_at(c->off);
    *r = (struct log_record){ h->seq, h->ts_us, h->prio, buf + c->off + HDR, h->len };
    return true;
}

void log_advance(struct log_cursor *c)
{
    c->off = norm(c->off) + hdr_at(norm(c->off))->size;
    c->seq++;
}

void log_cursor_first(struct log_cursor *c)
{
    c->seq = first_seq;
    c->off = head;
}

void log_cursor_end(struct log_cursor *c)
{
    c->seq = visible_end();
    c->off = last_open ? last_off : tail;
}

void log_cursor_at(struct log_cursor *c, uint64_t seq)
{
    struct log_record r;
    log_cursor_first(c);
    while (c->seq < seq && log_peek(c, &r, NULL))
        log_advance(c);
}

size_t log_format_syslog(const struct log_record *r, char *out, size_t size)
{
    char prefix[48];
    int pn = snprintf(prefix, sizeof prefix, "<%u>[%5lu.%06lu] ", r->prio,
                      (unsigned long)(r->ts_us / 1000000), (unsigned long)(r->ts_us % 1000000));
    size_t n = 0;
    /* Each line of a text of several lines gets the prefix (Linux's record_print_text). */
    for (size_t k = 0, line = 0; k <= r->len; k++) {
        if (k < r->len && r->text[k] != '\n')
            continue;
        size_t parts[3] = { (size_t)pn, k - line, 1 };
        const char *src[3] = { prefix, r->text + line, "\n" };
        for (int p = 0; p < 3; p++) {
            size_t m = parts[p] < size - n ? parts[p] : size - n;
            if (out)
                memcpy(out + n, src[p], m);
            n += m;
        }
        line = k + 1;
    }
    return n;
}

void log_init(void)
{
    kmsg_init();
    klog(KERN_NOTICE, "Linux version 6.1.0-pecan (lx@pecan) (gcc) #1 lx");
    klog(KERN_INFO, "lx: the Linux personality of Pecan (L4 X.2): one CPU, memory only");
}
