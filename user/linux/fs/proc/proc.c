/* proc's tree: /proc with its fixed files, self, lx/ and one directory per process, each
 * with its files and fd/.  Inodes are made on the first lookup and kept (one list per
 * mount, freed at umount) so a walk's result stays valid; a process's directory whose pid
 * has gone is freed when its slot gets a new process, unless something still holds an
 * inode of it (an open file, a cwd: it then stays until umount).  The text of a file is
 * made at each read (show.c). */
#include "fs/proc/proc.h"
#include "fs/proc/sysctl.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "mm/mm.h"
#include "syscalls/handlers_more.h"
#include "task/exec.h"
#include "task/process.h"
#include "vfs/lock.h"
#include "vfs/permission.h"
#include <stdio.h>
#include <string.h>

struct entry {
    const char *name;
    enum proc_kind kind;
    unsigned mode;
};

static const struct entry root_entries[] = {
    { "self", P_SELF, S_IFLNK | 0777 },        { "meminfo", P_MEMINFO, S_IFREG | 0444 },
    { "cpuinfo", P_CPUINFO, S_IFREG | 0444 },  { "uptime", P_UPTIME, S_IFREG | 0444 },
    { "mounts", P_MOUNTS_LINK, S_IFLNK | 0777 }, { "loadavg", P_LOADAVG, S_IFREG | 0444 },
    { "version", P_VERSION, S_IFREG | 0444 },  { "filesystems", P_FILESYSTEMS, S_IFREG | 0444 },
    { "stat", P_STAT, S_IFREG | 0444 },        { "lx", P_LX, S_IFDIR | 0555 },
    { "sysvipc", P_SYSVIPC, S_IFDIR | 0555 },
    { "sys", P_SYS_DIR, S_IFDIR | 0555 },       { "net", P_NET, S_IFDIR | 0555 },
};
static const struct entry net_entries[] = {
    { "tcp", P_NET_TCP, S_IFREG | 0444 }, { "tcp6", P_NET_TCP6, S_IFREG | 0444 },
    { "udp", P_NET_UDP, S_IFREG | 0444 }, { "udp6", P_NET_UDP6, S_IFREG | 0444 },
};
static const struct entry sysvipc_entries[] = {
    { "msg", P_SYSVIPC_MSG, S_IFREG | 0444 }, { "sem", P_SYSVIPC_SEM, S_IFREG | 0444 },
    { "shm", P_SYSVIPC_SHM, S_IFREG | 0444 },
};
static const struct entry lx_entries[] = {
    { "syscalls", P_LX_SYSCALLS, S_IFREG | 0444 },
};
static const struct entry pid_entries[] = {
    { "cmdline", P_CMDLINE, S_IFREG | 0444 }, { "comm", P_COMM, S_IFREG | 0644 },
    { "cwd", P_CWD, S_IFLNK | 0777 },         { "environ", P_ENVIRON, S_IFREG | 0400 },
    { "exe", P_EXE, S_IFLNK | 0777 },
    { "fd", P_FD, S_IFDIR | 0500 },           { "maps", P_MAPS, S_IFREG | 0444 },
    { "stat", P_PSTAT, S_IFREG | 0444 },      { "statm", P_STATM, S_IFREG | 0444 },
    { "status", P_STATUS, S_IFREG | 0444 },   { "mounts", P_MOUNTS, S_IFREG | 0444 },
    { "mountinfo", P_MOUNTINFO, S_IFREG | 0444 }, { "task", P_TASK, S_IFDIR | 0555 },
    { "limits", P_LIMITS, S_IFREG | 0444 },   { "root", P_ROOTLINK, S_IFLNK | 0777 },
    { "fdinfo", P_FDINFO, S_IFDIR | 0555 },
};
static const struct entry tid_entries[] = {
    { "comm", P_TCOMM, S_IFREG | 0644 },      { "stat", P_TSTAT, S_IFREG | 0444 },
    { "status", P_TSTATUS, S_IFREG | 0444 },
};
#define N(a) (sizeof a / sizeof a[0])

struct proc_fs {
    struct proc_inode *all;         /* every inode of this mount */
};

static const struct inode_ops proc_iops;
static const struct file_ops proc_fops, proc_dir_ops;

static struct proc_inode *pi_of(struct inode *i)
{
    return (struct proc_inode *)i;  /* the inode is the first member */
}

static struct proc_fs *fs_of(struct inode *i)
{
    return i->sb->priv;
}

static unsigned long ino_of(enum proc_kind kind, int pid, int fd)
{
    if ((kind == P_SYS_DIR || kind == P_SYS_FILE) && fd >= 0)    /* fd: the setting's */
        return 0x10000000ul + ((unsigned long)fd << 1) + (kind == P_SYS_FILE);
    if (kind == P_FDLINK || kind == P_FDINFO_FILE)
        return ((unsigned long)pid << 32) + (kind == P_FDLINK ? 0x80000000ul : 0xc0000000ul) +
               (unsigned long)fd;
    if (kind >= P_TID)              /* a thread's: by its tid (below 2^22) */
        return ((unsigned long)pid << 32) + 0x40000000ul + ((unsigned long)fd << 3) +
               (unsigned long)(kind - P_TID);
    return ((unsigned long)pid << 32) + 1 + kind;
}

/* A process's files belong to its effective ids, or to root when it is not dumpable
 * (Linux's task_dump_owner), as of each lookup (pid_revalidate). */
static struct inode *owned(struct proc_inode *p)
{
    struct process *o = p->kind >= P_PID ? process_by_pid(p->pid) : NULL;
    if (o) {
        p->i.uid = o->cred.nondumpable ? 0 : o->cred.euid;
        p->i.gid = o->cred.nondumpable ? 0 : o->cred.egid;
    }
    return &p->i;
}

/* Linux's ptrace_may_access(PTRACE_MODE_READ_FSCREDS) for the files that show a process's
 * memory or open files: EACCES unless allowed. */
static int may_look_inside(struct thread *t, int pid)
{
    struct process *o = process_by_pid(pid);
    if (!t || !o || o == t->proc || cred_capable(&t->proc->cred, CAP_SYS_PTRACE))
        return 0;
    return !o->cred.nondumpable && cred_may_read_proc(t->proc, o) ? 0 : -EACCES;
}

/* The inode of (kind, pid, fd) under parent: the kept one or a new one. */
static struct inode *get(struct inode *parent, enum proc_kind kind, int pid, int fd,
                         unsigned mode, const char *name)
{
    struct proc_fs *fs = fs_of(parent);
    for (struct proc_inode *p = fs->all; p; p = p->next)
        if (p->kind == kind && p->pid == pid && p->fd == fd && p->i.parent == parent)
            return owned(p);
    struct proc_inode *p = kmalloc(sizeof *p);
    if (!p)
        return NULL;
    p->kind = kind;
    p->pid = pid;
    p->fd = fd;
    strncpy(p->name, name, sizeof p->name - 1);
    p->i.mode = mode;
    p->i.nlink = S_ISDIR(mode) ? 2 : 1;     /* never freed by inode_put */
    p->i.ino = ino_of(kind, pid, fd);
    p->i.atime = p->i.mtime = p->i.ctime = vfs_now();
    p->i.parent = parent;
    p->i.sb = parent->sb;
    p->i.iop = &proc_iops;
    p->i.fop = S_ISREG(mode) ? &proc_fops : S_ISDIR(mode) ? &proc_dir_ops : NULL;
    p->next = fs->all;
    fs->all = p;
    return owned(p);
}

/* Is any inode of pid's directory (other than dir's own kept ones) held? */
static bool pid_held(struct proc_fs *fs, int pid, struct inode *parent)
{
    for (struct proc_inode *p = fs->all; p; p = p->next)
        if (p->pid == pid && p->i.refs && (p->kind != P_PID || p->i.parent == parent))
            return true;
    return false;
}

/* The inodes of processes that have gone: freed, unless one of them is held. */
static void sweep(struct proc_fs *fs)
{
    for (struct proc_inode *p = fs->all; p; p = p->next) {
        if (p->kind != P_PID || process_by_pid(p->pid) || pid_held(fs, p->pid, p->i.parent))
            continue;
        int pid = p->pid;
        for (struct proc_inode **pp = &fs->all; *pp;) {
            struct proc_inode *q = *pp;
            if (q->pid == pid && q->kind >= P_PID) {
                *pp = q->next;
                locks_inode_free(&q->i);
                kfree(q);
            } else {
                pp = &q->next;
            }
        }
        p = fs->all;                /* the list changed: again from the start */
        if (!p)
            break;
    }
}

/* The inodes of pid's threads that have gone (each tid's directory and files, unless one of
 * them is held): a process that makes and ends many threads keeps only its live ones. */
static void sweep_tids(struct proc_fs *fs, struct process *pr, int pid)
{
    for (struct proc_inode **pp = &fs->all; *pp;) {
        struct proc_inode *q = *pp;
        bool gone = q->pid == pid && q->kind >= P_TID && !proc_thread_of(pr, q->fd);
        if (gone) {
            for (struct proc_inode *h = fs->all; h && gone; h = h->next)
                if (h->pid == pid && h->kind >= P_TID && h->fd == q->fd && h->i.refs)
                    gone = false;
        }
        if (gone) {
            *pp = q->next;
            locks_inode_free(&q->i);
            kfree(q);
        } else {
            pp = &q->next;
        }
    }
}

static bool name_is(const char *name, size_t len, const char *s)
{
    return strlen(s) == len && !memcmp(name, s, len);
}

static long number(const char *name, size_t len)
{
    if (!len || len > 9 || (name[0] == '0' && len > 1))
        return -1;
    long v = 0;
    for (size_t k = 0; k < len; k++) {
        if (name[k] < '0' || name[k] > '9')
            return -1;
        v = v * 10 + (name[k] - '0');
    }
    return v;
}

static struct inode *lookup_tid(struct inode *dir, const struct entry *e, size_t n, int pid,
                                int tid, const char *name, size_t len)
{
    for (size_t k = 0; k < n; k++)
        if (name_is(name, len, e[k].name))
            return get(dir, e[k].kind, pid, tid, e[k].mode, e[k].name);
    return NULL;
}

static struct inode *lookup_in(struct inode *dir, const struct entry *e, size_t n, int pid,
                               const char *name, size_t len)
{
    return lookup_tid(dir, e, n, pid, -1, name, len);
}

/* --- /proc/sys: directories made from the settings' paths (sysctl.h) --------------------- */

/* The part of s's path after the directory d's (its length; 0 if s is not below d). */
static size_t sys_part(const struct proc_inode *d, const struct sysctl *s, const char **part)
{
    const char *prefix = d->ctl ? d->ctl->path : "";
    if (strncmp(s->path, prefix, d->plen))
        return 0;
    *part = s->path + d->plen;
    size_t n = 0;
    while ((*part)[n] && (*part)[n] != '/')
        n++;
    return n;
}

static struct inode *sys_lookup(struct inode *dir, struct proc_inode *d, const char *name,
                                size_t len)
{
    int id = 0;
    for (struct sysctl *s = sysctl_first(); s; s = s->next, id++) {
        const char *part;
        size_t n = sys_part(d, s, &part);
        if (!n || n != len || memcmp(part, name, len))
            continue;
        bool leaf = !part[n];
        struct inode *i = get(dir, leaf ? P_SYS_FILE : P_SYS_DIR, 0, id,
                              leaf ? S_IFREG | s->mode : S_IFDIR | 0555, "");
        if (i) {
            struct proc_inode *p = pi_of(i);
            p->ctl = s;
            p->nameoff = (unsigned short)d->plen;
            p->plen = (unsigned short)(d->plen + n + 1);
        }
        return i;
    }
    return NULL;
}

/* The first thread of live process pid (its files, cwd), or NULL. */
static struct thread *live_thread(int pid)
{
    struct process *p = process_by_pid(pid);
    return p && p->state == PROCESS_LIVE ? process_thread(p) : NULL;
}

static struct inode *proc_lookup(struct thread *t, struct inode *dir, const char *name,
                                 size_t len)
{
    (void)t;
    struct proc_inode *d = pi_of(dir);
    struct thread *p;
    switch (d->kind) {
    case P_ROOT: {
        long pid = number(name, len);
        if (pid < 0)
            return lookup_in(dir, root_entries, N(root_entries), 0, name, len);
        if (!process_by_pid((int)pid))
            return NULL;
        sweep(fs_of(dir));
        char buf[16];
        snprintf(buf, sizeof buf, "%ld", pid);
        return get(dir, P_PID, (int)pid, -1, S_IFDIR | 0555, buf);
    }
    case P_LX:
        return lookup_in(dir, lx_entries, N(lx_entries), 0, name, len);
    case P_SYSVIPC:
        return lookup_in(dir, sysvipc_entries, N(sysvipc_entries), 0, name, len);
    case P_NET:
        return lookup_in(dir, net_entries, N(net_entries), 0, name, len);
    case P_SYS_DIR:
        return sys_lookup(dir, d, name, len);
    case P_PID:
        if (!process_by_pid(d->pid))
            return NULL;
        return lookup_in(dir, pid_entries, N(pid_entries), d->pid, name, len);
    case P_TASK: {
        long tid = number(name, len);
        struct process *pr = process_by_pid(d->pid);
        if (tid <= 0 || !pr || !proc_thread_of(pr, (int)tid))
            return NULL;
        sweep_tids(fs_of(dir), pr, d->pid);
        char buf[16];
        snprintf(buf, sizeof buf, "%ld", tid);
        return get(dir, P_TID, d->pid, (int)tid, S_IFDIR | 0555, buf);
    }
    case P_TID: {
        struct process *pr = process_by_pid(d->pid);
        if (!pr || !proc_thread_of(pr, d->fd))
            return NULL;
        return lookup_tid(dir, tid_entries, N(tid_entries), d->pid, d->fd, name, len);
    }
    case P_FD:
    case P_FDINFO: {
        long fd = number(name, len);
        p = live_thread(d->pid);
        if (fd < 0 || !p || !fd_get(p, fd))
            return NULL;
        char buf[16];
        snprintf(buf, sizeof buf, "%ld", fd);
        return d->kind == P_FD ? get(dir, P_FDLINK, d->pid, (int)fd, S_IFLNK | 0700, buf)
                               : get(dir, P_FDINFO_FILE, d->pid, (int)fd, S_IFREG | 0444, buf);
    }
    default:
        return NULL;
    }
}

/* --- directories ------------------------------------------------------------------------- */

static int proc_iterate(struct thread *t, struct file *f, struct dir_context *ctx)
{
    (void)t;
    static char num[24];
    struct proc_inode *d = pi_of(f->inode);
    const struct entry *e = NULL;
    size_t n = 0;
    if (!dir_emit_dots(f, ctx))
        return 0;
    switch (d->kind) {
    case P_ROOT:
        e = root_entries, n = N(root_entries);
        break;
    case P_LX:
        e = lx_entries, n = N(lx_entries);
        break;
    case P_SYSVIPC:
        e = sysvipc_entries, n = N(sysvipc_entries);
        break;
    case P_NET:
        e = net_entries, n = N(net_entries);
        break;
    case P_SYS_DIR: {
        /* Position 2 + k: the k-th setting (sorted by path), where its part of the path
         * differs from the setting before it. */
        struct sysctl *s = sysctl_first(), *prev = NULL;
        unsigned long k = 0;
        for (; s && k < ctx->pos - 2; k++)
            prev = s, s = s->next;
        for (; s; prev = s, s = s->next, k++) {
            const char *part, *pp;
            size_t len = sys_part(d, s, &part);
            if (!len || (prev && sys_part(d, prev, &pp) == len && !memcmp(pp, part, len)))
                continue;
            bool leaf = !part[len];
            if (!ctx->emit(ctx, part, len, ino_of(leaf ? P_SYS_FILE : P_SYS_DIR, 0, (int)k),
                           leaf ? S_IFREG >> 12 : S_IFDIR >> 12))
                return 0;
            ctx->pos = 2 + k + 1;
        }
        return 0;
    }
    case P_PID:
        if (!process_by_pid(d->pid))
            return 0;
        e = pid_entries, n = N(pid_entries);
        break;
    case P_TID:
        if (!process_by_pid(d->pid))
            return 0;
        for (; ctx->pos - 2 < N(tid_entries); ctx->pos++) {
            const struct entry *x = &tid_entries[ctx->pos - 2];
            if (!ctx->emit(ctx, x->name, strlen(x->name), ino_of(x->kind, d->pid, d->fd),
                           (x->mode >> 12) & 15))
                return 0;
        }
        return 0;
    case P_TASK: {
        /* The threads in tid order (the pid table's): position 2 + tid is tid's entry. */
        struct process *pr = process_by_pid(d->pid);
        for (struct pid *next; pr;) {
            unsigned long from = ctx->pos - 2;
            next = pid_find_ge(from > PID_MAX ? PID_MAX : (int)from);
            while (next && !(next->thread && next->thread->proc == pr))
                next = pid_find_ge(next->nr + 1);
            if (!next)
                return 0;
            snprintf(num, sizeof num, "%d", next->nr);
            if (!ctx->emit(ctx, num, strlen(num), ino_of(P_TID, d->pid, next->nr),
                           S_IFDIR >> 12))
                return 0;
            ctx->pos = 2 + (unsigned long)next->nr + 1;
        }
        return 0;
    }
    case P_FD:
    case P_FDINFO: {
        /* Position 2 + fd is fd's entry. */
        struct thread *p = live_thread(d->pid);
        bool info = d->kind == P_FDINFO;
        for (long fd; p && (fd = fd_next(p, ctx->pos - 2)) >= 0;) {
            snprintf(num, sizeof num, "%ld", fd);
            if (!ctx->emit(ctx, num, strlen(num),
                           ino_of(info ? P_FDINFO_FILE : P_FDLINK, d->pid, (int)fd),
                           (info ? S_IFREG : S_IFLNK) >> 12))
                return 0;
            ctx->pos = (l4_word_t)fd + 3;
        }
        return 0;
    }
    default:
        return 0;
    }
    for (; ctx->pos - 2 < n; ctx->pos++) {
        const struct entry *x = &e[ctx->pos - 2];
        if (!ctx->emit(ctx, x->name, strlen(x->name), ino_of(x->kind, d->pid, -1),
                       (x->mode >> 12) & 15))
            return 0;
    }
    if (d->kind != P_ROOT)
        return 0;
    /* The processes in pid order (the pid table's): the position after the fixed entries is
     * 2 + n + pid. */
    for (;;) {
        unsigned long from = ctx->pos - 2 - n;
        struct pid *next = pid_find_ge(from > PID_MAX ? PID_MAX : (int)from);
        while (next && !next->proc)
            next = pid_find_ge(next->nr + 1);   /* a number a group or session holds */
        if (!next)
            return 0;
        snprintf(num, sizeof num, "%d", next->nr);
        if (!ctx->emit(ctx, num, strlen(num), ino_of(P_PID, next->nr, -1), S_IFDIR >> 12))
            return 0;
        ctx->pos = 2 + n + (unsigned long)next->nr + 1;
    }
}

/* --- links ------------------------------------------------------------------------------- */

int proc_file_name(struct file *f, char *buf, size_t size)
{
    struct inode *i = f->inode;
    int n = vfs_path_of(i, buf, size);
    if (n >= 0 || (n = memfd_file_name(f, buf, size)) >= 0)
        return n;
    if (f->ops->anon_name)
        return snprintf(buf, size, "anon_inode:%s", f->ops->anon_name);
    const char *what = S_ISFIFO(i->mode) ? "pipe" :
                       (i->mode & S_IFMT) == S_IFSOCK ? "socket" : NULL;
    if (what)
        return snprintf(buf, size, "%s:[%lu]", what, i->ino);
    if (S_ISCHR(i->mode) && i->rdev_major == 5)
        return snprintf(buf, size, "/dev/%s", i->rdev_minor ? "console" : "tty");
    return snprintf(buf, size, "/[deleted] (deleted)");
}

/* The executable's path as exe shows it: where the file is now, or where it was with
 * " (deleted)", or a data module's name. */
static int exe_name(struct process *o, char *tmp)
{
    struct inode *i = task_exe_inode(o);
    int n = i ? vfs_path_of(i, tmp, PATH_MAX) : -ENOENT;
    if (n >= 0)
        return n;
    const char *path = task_exe_path(o);
    if (!path)
        return -ENOENT;
    return snprintf(tmp, PATH_MAX, "%s%s", path, i ? " (deleted)" : "");
}

/* The target's text, whole, into tmp (PATH_MAX): its length or -errno. */
static int link_text(struct thread *t, struct proc_inode *p, char *tmp)
{
    struct thread *o = live_thread(p->pid);
    int e = p->kind == P_SELF || p->kind == P_MOUNTS_LINK ? 0 : may_look_inside(t, p->pid);
    if (e)
        return e;
    switch (p->kind) {
    case P_SELF:
        return snprintf(tmp, PATH_MAX, "%d", t ? thread_pid(t) : 0);
    case P_MOUNTS_LINK:
        return snprintf(tmp, PATH_MAX, "self/mounts");
    case P_EXE:
        return o ? exe_name(o->proc, tmp) : -ENOENT;
    case P_CWD:
        return o && o->fs ? vfs_path_from_root(t, o->fs->cwd, tmp, PATH_MAX) : -ENOENT;
    case P_ROOTLINK:
        return o && o->fs ? vfs_path_from_root(t, vfs_root(o), tmp, PATH_MAX) : -ENOENT;
    case P_FDLINK: {
        struct file *f = o ? fd_get(o, p->fd) : NULL;
        return f ? proc_file_name(f, tmp, PATH_MAX) : -ENOENT;
    }
    default:
        return -EINVAL;
    }
}

/* readlink: cut to size, as Linux cuts it (no NUL). */
static int proc_readlink(struct thread *t, struct inode *i, char *buf, size_t size)
{
    static char tmp[PATH_MAX];
    int n = link_text(t, pi_of(i), tmp);
    if (n < 0)
        return n;
    if ((size_t)n > size)
        n = (int)size;
    memcpy(buf, tmp, (size_t)n);
    return n;
}

/* self and mounts lead where their text says; fd/N, cwd and exe to the file itself,
 * whatever its name (or none): Linux's "magic" links. */
static struct inode *proc_follow(struct thread *t, struct inode *i, int *err)
{
    struct proc_inode *p = pi_of(i);
    *err = -ENOENT;
    if (p->kind == P_SELF || p->kind == P_MOUNTS_LINK) {
        char tmp[16];
        snprintf(tmp, sizeof tmp, "%d", t ? thread_pid(t) : 0);
        struct inode *self = proc_lookup(t, i->parent, tmp, strlen(tmp));
        if (!self || p->kind == P_SELF)
            return self;
        return proc_lookup(t, self, "mounts", 6);
    }
    struct thread *o = live_thread(p->pid);
    if (!o)
        return NULL;
    if ((*err = may_look_inside(t, p->pid)))
        return NULL;
    *err = -ENOENT;
    if (p->kind == P_CWD)
        return o->fs->cwd;
    if (p->kind == P_ROOTLINK)
        return vfs_root(o);
    if (p->kind == P_FDLINK) {
        struct file *f = fd_get(o, p->fd);
        return f ? f->inode : NULL;
    }
    return task_exe_inode(o->proc); /* NULL for a data module: ENOENT */
}

/* The mode bits, and a process may always look in its own fd directory (Linux's
 * proc_fd_permission). */
static int proc_permission(struct thread *t, struct inode *i, int mask)
{
    if (pi_of(i)->kind == P_FD && t && process_by_pid(pi_of(i)->pid) == t->proc)
        return 0;
    return generic_permission(t, i, mask);
}

static int proc_name(struct inode *i, struct inode **dir, char *buf)
{
    struct proc_inode *p = pi_of(i);
    const char *name = p->ctl ? p->ctl->path + p->nameoff : p->name;
    size_t n = !p->ctl ? strlen(name) : p->kind == P_SYS_FILE ? strlen(name)
                                                                : p->plen - p->nameoff - 1u;
    memcpy(buf, name, n);
    *dir = i->parent;
    return (int)n;
}

/* Attributes (Linux's proc_setattr): no mode changes; a size is accepted and changes
 * nothing; owners and times are kept on the inode. */
static int proc_setattr(struct thread *t, struct inode *i, const struct iattr *ia)
{
    (void)t;
    if (ia->valid & ATTR_MODE)
        return -EPERM;
    setattr_copy(i, ia);
    return 0;
}

static const struct inode_ops proc_iops = {
    .lookup = proc_lookup, .readlink = proc_readlink, .follow_link = proc_follow,
    .permission = proc_permission,
    .setattr = proc_setattr, .name = proc_name,
};

/* --- reading ---------------------------------------------------------------------------- */

static char text[16384];            /* one file's text at a time: lx serves one call */

static long proc_read(struct thread *t, struct file *f, struct uio *u, l4_word_t *pos)
{
    (void)t;
    struct proc_inode *pi = pi_of(f->inode);
    if (pi->kind == P_MAPS || pi->kind == P_CMDLINE || pi->kind == P_ENVIRON) {
        /* as long as the process's regions or strings: read in pieces */
        struct process *p = process_by_pid(pi->pid);
        if (!p)
            return -ESRCH;
        return pi->kind == P_MAPS ? proc_maps_read(p, f->priv, u, pos)
                                  : proc_args_read(p, pi->kind == P_ENVIRON, u, pos);
    }
    struct out o = { text, 0, sizeof text };
    int e = proc_show(pi, &o);
    if (e)
        return e;
    if (*pos >= o.len)
        return 0;
    l4_word_t n = uio_copy_out(u, text + *pos, o.len - *pos);
    *pos += n;
    return (long)n;
}

/* A setting's new text: its store hook with the text (at most a page, as Linux takes it).
 * Linux's sysctl_writes_strict: the text always counts from the start. */
static long sys_write(struct thread *t, const struct sysctl *s, struct uio *u)
{
    static char buf[4096];
    struct uio peek = *u;           /* nothing counts as written unless the store takes it */
    l4_word_t want = u->resid, n = uio_copy_in(&peek, buf, want < sizeof buf ? want : sizeof buf - 1);
    if (peek.fault && !n)
        return -EFAULT;
    if (!want)
        return 0;
    buf[n] = 0;
    int e = s->store ? s->store(t, s, buf, n) : -EINVAL;
    if (e)
        return e;
    if (s->changed)
        s->changed(s);
    uio_discard(u, u->resid);
    return (long)want;
}

/* comm: a thread of the writer's own process gets the name (at most 15 bytes, as Linux's
 * comm_write: no newline removed); another process's EINVAL. */
static long proc_write(struct thread *t, struct file *f, struct uio *u, l4_word_t *pos)
{
    (void)pos;
    struct proc_inode *pi = pi_of(f->inode);
    if (pi->kind == P_SYS_FILE)
        return sys_write(t, pi->ctl, u);
    if (pi->kind != P_COMM && pi->kind != P_TCOMM)
        return -EIO;                /* Linux's answer for a file without a write method */
    struct process *p = process_by_pid(pi->pid);
    struct thread *target = !p ? NULL : pi->kind == P_TCOMM ? proc_thread_of(p, pi->fd)
                                                              : process_thread(p);
    if (!target || target->exited)
        return -ESRCH;
    if (!t || target->proc != t->proc)
        return -EINVAL;
    char name[16] = { 0 };
    l4_word_t want = u->resid, n = uio_copy_in(u, name, want < 15 ? want : 15);
    if (u->fault && !n)
        return -EFAULT;
    memcpy(target->comm, name, sizeof name);
    uio_discard(u, u->resid);
    return (long)want;
}

/* A maps file keeps where its last read stopped (proc_maps_read).  The fdinfo directory is
 * checked as its files are (Linux's proc_open_fdinfo): its listing shows which fds are open. */
static int proc_open(struct thread *t, struct inode *i, struct file *f)
{
    struct proc_inode *pi = pi_of(i);
    int e = pi->kind == P_ENVIRON || pi->kind == P_MAPS || pi->kind == P_FDINFO ||
            pi->kind == P_FDINFO_FILE ? may_look_inside(t, pi->pid) : 0;
    if (e)
        return e;
    unsigned acc = f->flags & O_ACCMODE;
    /* a setting: its mode, for root too (Linux's sysctl_perm) */
    if (pi->kind == P_SYS_FILE && ((acc != O_RDONLY && !(pi->ctl->mode & 0222)) ||
                                   (acc != O_WRONLY && !(pi->ctl->mode & 0444))))
        return -EACCES;
    if (pi->kind == P_MAPS && !(f->priv = kmalloc(sizeof(struct maps_cursor))))
        return -ENOMEM;
    return 0;
}

static void proc_release(struct file *f)
{
    kfree(f->priv);
}

static const struct file_ops proc_fops = { .open = proc_open, .release = proc_release,
                                           .read = proc_read, .write = proc_write,
                                           .llseek = dir_llseek, .fsync = generic_file_fsync };
static const struct file_ops proc_dir_ops = { .open = proc_open, .iterate = proc_iterate,
                                               .llseek = dir_llseek, .fsync = generic_file_fsync };

/* --- the type --------------------------------------------------------------------------- */

static int proc_fill(struct super_block *sb, const char *data)
{
    (void)data;                     /* hidepid= and friends: not yet */
    struct proc_fs *fs = kmalloc(sizeof *fs);
    struct proc_inode *r = kmalloc(sizeof *r);
    if (!fs || !r) {
        kfree(fs), kfree(r);
        return -ENOMEM;
    }
    r->kind = P_ROOT;
    r->fd = -1;
    r->i.mode = S_IFDIR | 0555;
    r->i.nlink = 2;
    r->i.ino = 1;
    r->i.atime = r->i.mtime = r->i.ctime = vfs_now();
    r->i.parent = &r->i;
    r->i.sb = sb;
    r->i.iop = &proc_iops;
    r->i.fop = &proc_dir_ops;
    fs->all = r;
    r->next = NULL;
    sb->root = &r->i;
    sb->priv = fs;
    return 0;
}

static bool proc_busy(struct super_block *sb)
{
    return sb->refs != 0;           /* the root's own reference (the mount's) is not counted */
}

static void proc_kill(struct super_block *sb)
{
    struct proc_fs *fs = sb->priv;
    while (fs->all) {
        struct proc_inode *p = fs->all;
        fs->all = p->next;
        locks_inode_free(&p->i);
        kfree(p);
    }
    kfree(fs);
}

static void proc_evict(struct inode *i)
{
    (void)i;                        /* never: proc's inodes keep a link; sweep frees them */
}

const struct fs_type proc_type = {
    .name = "proc", .magic = PROC_SUPER_MAGIC, .nodev = true, .fill = proc_fill,
    .busy = proc_busy, .kill = proc_kill, .evict = proc_evict,
};
