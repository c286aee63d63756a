/* /proc/sys's registry and the ready hooks (fs/proc/sysctl.h).  Writes parse as Linux's
 * proc_dointvec does: blanks around, a number in C's notation (0x.. hex, 0.. octal, a sign
 * where the value may be negative), several for a vector, anything else EINVAL; a value
 * outside the bounds EINVAL and nothing changes. */
#include "fs/proc/sysctl.h"
#include "fs/proc/proc.h"
#include "lib/errno.h"
#include <stdlib.h>
#include <string.h>

static struct sysctl *registry;

void sysctl_register(struct sysctl *s)
{
    struct sysctl **pp = &registry;
    while (*pp && strcmp((*pp)->path, s->path) < 0)
        pp = &(*pp)->next;
    s->next = *pp;
    *pp = s;
}

void sysctl_register_all(struct sysctl *s, size_t n)
{
    for (size_t k = 0; k < n; k++)
        sysctl_register(&s[k]);
}

struct sysctl *sysctl_first(void)
{
    return registry;
}

static bool blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n';
}

/* The values of a write: up to max numbers into v (their count), or -EINVAL. */
static int parse_numbers(const char *text, size_t len, long *v, unsigned max, bool is_signed)
{
    const char *p = text, *end = text + len;
    unsigned n = 0;
    while (n < max) {
        while (p < end && blank(*p))
            p++;
        if (p == end)
            break;
        bool neg = false;
        if (*p == '-') {
            if (!is_signed)
                return -EINVAL;
            neg = true;
            p++;
        }
        if (p == end || *p < '0' || *p > '9')
            return -EINVAL;
        char *after;
        unsigned long u = strtoul(p, &after, 0);
        if (after == p || (after < end && !blank(*after)) ||
            (is_signed && u > (neg ? 0x80000000ul : 0x7FFFFFFFul)))
            return -EINVAL;
        v[n++] = neg ? -(long)u : (long)u;
        p = after;
    }
    while (p < end && blank(*p))
        p++;
    return n && p == end ? (int)n : -EINVAL;   /* more than the setting holds: EINVAL */
}

static int store_numbers(const struct sysctl *s, const char *text, size_t len, bool is_int)
{
    long v[8];
    unsigned want = s->n ? s->n : 1;
    int n = parse_numbers(text, len, v, want < 8 ? want : 8, is_int);
    if (n < 0)
        return n;
    for (int k = 0; k < n; k++)
        if ((s->min || s->max) && (v[k] < s->min || v[k] > s->max))
            return -EINVAL;
    for (int k = 0; k < n; k++) {
        if (is_int)
            ((int *)s->data)[k] = (int)v[k];
        else
            ((long *)s->data)[k] = v[k];
    }
    return 0;
}

void sysctl_show_int(struct out *o, const struct sysctl *s)
{
    unsigned n = s->n ? s->n : 1;
    for (unsigned k = 0; k < n; k++)
        out_printf(o, "%s%d", k ? "\t" : "", ((int *)s->data)[k]);
    out_printf(o, "\n");
}

int sysctl_store_int(struct thread *t, const struct sysctl *s, const char *text, size_t len)
{
    (void)t;
    return store_numbers(s, text, len, true);
}

void sysctl_show_uint(struct out *o, const struct sysctl *s)
{
    out_printf(o, "%u\n", *(unsigned *)s->data);
}

void sysctl_show_long(struct out *o, const struct sysctl *s)
{
    out_printf(o, "%lu\n", *(unsigned long *)s->data);
}

int sysctl_store_long(struct thread *t, const struct sysctl *s, const char *text, size_t len)
{
    (void)t;
    return store_numbers(s, text, len, false);
}

void sysctl_show_string(struct out *o, const struct sysctl *s)
{
    out_printf(o, "%s\n", (const char *)s->data);
}

/* Linux's proc_dostring: the text up to a newline, cut to the buffer. */
int sysctl_store_string(struct thread *t, const struct sysctl *s, const char *text, size_t len)
{
    (void)t;
    char *d = s->data;
    size_t n = 0;
    while (n < len && n + 1 < s->maxlen && text[n] && text[n] != '\n')
        n++;
    memcpy(d, text, n);
    d[n] = 0;
    return 0;
}

/* Settings whose subsystem lx does not have yet (inotify, sockets): Linux's defaults, kept
 * and shown; their owners take them over when they land. */
static int inotify_instances = 128, inotify_watches = 1048576, inotify_events = 16384,
           somaxconn = 4096;

static struct sysctl pending_sysctls[] = {
    { .path = "fs/inotify/max_user_instances", .mode = 0644, .show = sysctl_show_int,
      .store = sysctl_store_int, .data = &inotify_instances, .min = 0, .max = 0x7FFFFFFF },
    { .path = "fs/inotify/max_user_watches", .mode = 0644, .show = sysctl_show_int,
      .store = sysctl_store_int, .data = &inotify_watches, .min = 0, .max = 0x7FFFFFFF },
    { .path = "fs/inotify/max_queued_events", .mode = 0644, .show = sysctl_show_int,
      .store = sysctl_store_int, .data = &inotify_events, .min = 0, .max = 0x7FFFFFFF },
    { .path = "net/core/somaxconn", .mode = 0644, .show = sysctl_show_int,
      .store = sysctl_store_int, .data = &somaxconn, .min = 0, .max = 0x7FFFFFFF },
};
SYSCTL_TABLE(pending_sysctls)
