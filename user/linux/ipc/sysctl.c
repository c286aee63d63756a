/* The System V IPC limits as /proc/sys/kernel shows and sets them (docs/linux/sysvipc.md):
 * sem (semmsl semmns semopm semmni), shmmax, shmall, shmmni, msgmax, msgmnb, msgmni, with
 * Linux 6.1's ranges: the text of a file, its parser, and their registration in /proc/sys. */
#include "ipc/util.h"
#include "fs/proc/proc.h"
#include "fs/proc/sysctl.h"
#include "lib/errno.h"
#include <limits.h>
#include <stdio.h>
#include <string.h>

/* The integers of text (at most max of them, separated by white space): how many, or -EINVAL
 * for anything else, as proc_dointvec / proc_doulongvec parse. */
static int parse(const char *text, size_t len, long long *v, int max, bool is_unsigned)
{
    int n = 0;
    size_t i = 0;
    for (;;) {
        while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n'))
            i++;
        if (i >= len || !text[i])
            return n;
        if (n == max)
            return n;               /* Linux ignores what follows the last value */
        bool neg = text[i] == '-';
        if (neg) {
            if (is_unsigned)
                return -EINVAL;
            i++;
        }
        if (i >= len || text[i] < '0' || text[i] > '9')
            return -EINVAL;
        unsigned long long x = 0;
        for (; i < len && text[i] >= '0' && text[i] <= '9'; i++) {
            unsigned long long y = x * 10 + (unsigned)(text[i] - '0');
            if (y / 10 != x)
                return -EINVAL;
            x = y;
        }
        if (i < len && text[i] && text[i] != ' ' && text[i] != '\t' && text[i] != '\n')
            return -EINVAL;
        if (!is_unsigned && x > (neg ? (unsigned long long)INT_MAX + 1 : (unsigned long long)INT_MAX))
            return -EINVAL;
        v[n++] = neg ? -(long long)x : (long long)x;
    }
}

int ipc_sysctl_read(const char *name, char *buf, size_t size)
{
    const struct ipc_limits *l = &ipc_lim;
    if (!strcmp(name, "sem"))
        return snprintf(buf, size, "%d\t%d\t%d\t%d\n", l->semmsl, l->semmns, l->semopm,
                        l->semmni);
    if (!strcmp(name, "shmmax"))
        return snprintf(buf, size, "%lu\n", l->shmmax);
    if (!strcmp(name, "shmall"))
        return snprintf(buf, size, "%lu\n", l->shmall);
    const int *v = !strcmp(name, "shmmni") ? &l->shmmni : !strcmp(name, "msgmax") ? &l->msgmax
                 : !strcmp(name, "msgmnb") ? &l->msgmnb : !strcmp(name, "msgmni") ? &l->msgmni
                 : NULL;
    return v ? snprintf(buf, size, "%d\n", *v) : -ENOENT;
}

int ipc_sysctl_write(const char *name, const char *text, size_t len)
{
    struct ipc_limits *l = &ipc_lim;
    long long v[4];
    if (!strcmp(name, "sem")) {
        int n = parse(text, len, v, 4, false);
        if (n < 0)
            return n;
        int *f[4] = { &l->semmsl, &l->semmns, &l->semopm, &l->semmni };
        int old_semmni = l->semmni;
        for (int i = 0; i < n; i++)
            *f[i] = (int)v[i];
        if (l->semmni < 0 || l->semmni > IPCMNI) {
            l->semmni = old_semmni;     /* only semmni is put back, as Linux */
            return -EINVAL;
        }
        return 0;
    }
    bool ul = !strcmp(name, "shmmax") || !strcmp(name, "shmall");
    if (ul) {
        int n = parse(text, len, v, 1, true);
        if (n <= 0)
            return n;
        *(!strcmp(name, "shmmax") ? &l->shmmax : &l->shmall) = (unsigned long)v[0];
        return 0;
    }
    int *f = !strcmp(name, "shmmni") ? &l->shmmni : !strcmp(name, "msgmax") ? &l->msgmax
           : !strcmp(name, "msgmnb") ? &l->msgmnb : !strcmp(name, "msgmni") ? &l->msgmni : NULL;
    if (!f)
        return -ENOENT;
    int n = parse(text, len, v, 1, false);
    if (n <= 0)
        return n;
    long long max = f == &l->shmmni || f == &l->msgmni ? IPCMNI : INT_MAX;
    if (v[0] < 0 || v[0] > max)
        return -EINVAL;
    *f = (int)v[0];
    return 0;
}

/* --- /proc/sys/kernel: the seven files, each named by its data (fs/proc/sysctl.h) ------------ */

static void ipc_show(struct out *o, const struct sysctl *s)
{
    char buf[96];
    int n = ipc_sysctl_read(s->data, buf, sizeof buf);
    if (n > 0)
        out_printf(o, "%s", buf);
}

static int ipc_store(struct thread *t, const struct sysctl *s, const char *text, size_t len)
{
    (void)t;
    return ipc_sysctl_write(s->data, text, len);
}

#define IPC_SYSCTL(name) \
    { .path = "kernel/" name, .mode = 0644, .show = ipc_show, .store = ipc_store, .data = name }

static struct sysctl ipc_sysctls[] = {
    IPC_SYSCTL("sem"), IPC_SYSCTL("shmmax"), IPC_SYSCTL("shmall"), IPC_SYSCTL("shmmni"),
    IPC_SYSCTL("msgmax"), IPC_SYSCTL("msgmnb"), IPC_SYSCTL("msgmni"),
};
SYSCTL_TABLE(ipc_sysctls)
