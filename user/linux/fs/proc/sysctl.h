/* /proc/sys (docs/linux/proc.md, "/proc/sys"): settings registered by the subsystem that
 * owns each value, by path ("kernel/pid_max"), mode and a show and a store hook; proc makes
 * the directories from the paths.  The common kinds have ready hooks: integers (one or a
 * vector, with bounds: Linux's proc_dointvec_minmax and proc_doulongvec_minmax) and
 * strings (proc_dostring). */
#ifndef LX_FS_PROC_SYSCTL_H
#define LX_FS_PROC_SYSCTL_H

#include <stdbool.h>
#include <stddef.h>

struct out;
struct thread;

struct sysctl {
    const char *path;               /* below /proc/sys, '/' between the parts */
    unsigned mode;                  /* 0644, 0444 (root may not write either), 0600 */
    /* the text a read gives (made at each read) */
    void (*show)(struct out *o, const struct sysctl *s);
    /* a write's text (NUL-terminated, len bytes): 0 or -errno (EINVAL for bad text);
     * NULL: read-only */
    int (*store)(struct thread *t, const struct sysctl *s, const char *text, size_t len);
    void *data;                     /* the hooks' value: int *, long *, char * */
    unsigned n;                     /* the integer hooks: how many values (0: one) */
    size_t maxlen;                  /* the string hooks: the buffer's size */
    long min, max;                  /* the integer hooks: the bounds of a write (both 0: none) */
    void (*changed)(const struct sysctl *s);    /* after a store, to act on the value */
    struct sysctl *next;            /* the registry's (sorted by path) */
};

/* Add s (the owner's, static) to /proc/sys. */
void sysctl_register(struct sysctl *s);
/* Register each of n. */
void sysctl_register_all(struct sysctl *s, size_t n);

void sysctl_show_int(struct out *o, const struct sysctl *s);   /* data: int[n], tabs */
int sysctl_store_int(struct thread *t, const struct sysctl *s, const char *text, size_t len);
void sysctl_show_uint(struct out *o, const struct sysctl *s);  /* data: unsigned */
void sysctl_show_long(struct out *o, const struct sysctl *s);  /* data: long */
int sysctl_store_long(struct thread *t, const struct sysctl *s, const char *text, size_t len);
void sysctl_show_string(struct out *o, const struct sysctl *s);    /* data: char[maxlen] */
int sysctl_store_string(struct thread *t, const struct sysctl *s, const char *text,
                        size_t len);

/* Register a static table of settings before lx's main runs (a constructor), from the file
 * of their owner. */
#define SYSCTL_TABLE(table)                                                                  \
    __attribute__((constructor)) static void table##_register(void)                         \
    {                                                                                        \
        sysctl_register_all(table, sizeof table / sizeof table[0]);                          \
    }

/* The registry's walk (proc.c): the first sysctl, the next one. */
struct sysctl *sysctl_first(void);

#endif
