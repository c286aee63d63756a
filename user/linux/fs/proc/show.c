/* The text of each proc file, in Linux's format (proc(5)), from lx's own tables: the page
 * pool for meminfo, the processes for their files and loadavg, the mount table for
 * mounts, CPUID for cpuinfo, the L4 clock for uptime.  What lx does not measure (CPU time
 * per process, load, page faults) reads as 0. */
#include "ipc/msg.h"
#include "ipc/sem.h"
#include "ipc/shm.h"
#include "fs/proc/proc.h"
#include "tty/tty.h"
#include "fs/proc/sysctl.h"
#include "lib/errno.h"
#include "signal/signal.h"
#include "signal/sigpage.h"
#include "syscalls/table.h"
#include "task/exec.h"
#include "task/process.h"
#include "task/ptrace.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define HZ 100                      /* USER_HZ: the unit of times in stat */

void out_bytes(struct out *o, const char *p, size_t n)
{
    if (n > o->cap - o->len)
        n = o->cap - o->len;
    memcpy(o->buf + o->len, p, n);
    o->len += n;
}

void out_printf(struct out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = o->cap - o->len;
    int n = vsnprintf(o->buf + o->len, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->len += (size_t)n < room ? (size_t)n : room ? room - 1 : 0;
}

/* --- /proc ------------------------------------------------------------------------------- */

static void show_meminfo(struct out *o)
{
    unsigned long total = page_total() * 4, free = page_free_count() * 4;
    static const char *const zero[] = {
        "Buffers", "Cached", "SwapCached", "Active", "Inactive", "Active(anon)",
        "Inactive(anon)", "Active(file)", "Inactive(file)", "Unevictable", "Mlocked",
        "SwapTotal", "SwapFree", "Dirty", "Writeback", "AnonPages", "Mapped", "Shmem",
        "KReclaimable", "Slab", "SReclaimable", "SUnreclaim", "KernelStack", "PageTables",
        "NFS_Unstable", "Bounce", "WritebackTmp",
    };
    out_printf(o, "%-16s%8lu kB\n", "MemTotal:", total);
    out_printf(o, "%-16s%8lu kB\n", "MemFree:", free);
    out_printf(o, "%-16s%8lu kB\n", "MemAvailable:", free);
    for (unsigned k = 0; k < sizeof zero / sizeof zero[0]; k++) {
        char name[24];
        snprintf(name, sizeof name, "%s:", zero[k]);
        out_printf(o, "%-16s%8lu kB\n", name, 0ul);
    }
    out_printf(o, "%-16s%8lu kB\n", "CommitLimit:", total);
    out_printf(o, "%-16s%8lu kB\n", "Committed_AS:", total - free);
}

static void cpuid(unsigned leaf, unsigned r[4])
{
    __asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
                     : "a"(leaf), "c"(0));
}

static void show_cpuinfo(struct out *o)
{
    static const struct { unsigned reg, bit; const char *name; } flags[] = {
        { 3, 0, "fpu" }, { 3, 1, "vme" }, { 3, 2, "de" }, { 3, 3, "pse" }, { 3, 4, "tsc" },
        { 3, 5, "msr" }, { 3, 6, "pae" }, { 3, 7, "mce" }, { 3, 8, "cx8" }, { 3, 9, "apic" },
        { 3, 11, "sep" }, { 3, 12, "mtrr" }, { 3, 13, "pge" }, { 3, 14, "mca" },
        { 3, 15, "cmov" }, { 3, 16, "pat" }, { 3, 17, "pse36" }, { 3, 19, "clflush" },
        { 3, 23, "mmx" }, { 3, 24, "fxsr" }, { 3, 25, "sse" }, { 3, 26, "sse2" },
        { 2, 0, "pni" }, { 2, 1, "pclmulqdq" }, { 2, 9, "ssse3" }, { 2, 12, "fma" },
        { 2, 13, "cx16" }, { 2, 19, "sse4_1" }, { 2, 20, "sse4_2" }, { 2, 22, "movbe" },
        { 2, 23, "popcnt" }, { 2, 25, "aes" }, { 2, 26, "xsave" }, { 2, 28, "avx" },
        { 2, 29, "f16c" }, { 2, 30, "rdrand" }, { 2, 31, "hypervisor" },
    };
    unsigned r[4], max, sig[4], brand[12];
    cpuid(0, r);
    max = r[0];
    char vendor[13];
    memcpy(vendor, &r[1], 4), memcpy(vendor + 4, &r[3], 4), memcpy(vendor + 8, &r[2], 4);
    vendor[12] = 0;
    cpuid(1, sig);
    unsigned family = (sig[0] >> 8) & 15, model = (sig[0] >> 4) & 15;
    if (family == 15)
        family += (sig[0] >> 20) & 0xFF;
    if (family >= 6)
        model |= ((sig[0] >> 16) & 15) << 4;
    cpuid(0x80000000, r);
    char name[49] = "unknown";
    if (r[0] >= 0x80000004) {
        cpuid(0x80000002, brand), cpuid(0x80000003, brand + 4), cpuid(0x80000004, brand + 8);
        memcpy(name, brand, 48);
        name[48] = 0;
    }
    const char *n = name;
    while (*n == ' ')
        n++;
    out_printf(o, "processor\t: 0\nvendor_id\t: %s\ncpu family\t: %u\nmodel\t\t: %u\n"
               "model name\t: %s\nstepping\t: %u\nmicrocode\t: 0x1\n"
               "physical id\t: 0\nsiblings\t: 1\ncore id\t\t: 0\ncpu cores\t: 1\n"
               "apicid\t\t: 0\ninitial apicid\t: 0\nfpu\t\t: yes\nfpu_exception\t: yes\n"
               "cpuid level\t: %u\nwp\t\t: yes\nflags\t\t:", vendor, family, model, n,
               sig[0] & 15, max);
    for (unsigned k = 0; k < sizeof flags / sizeof flags[0]; k++)
        if (sig[flags[k].reg] >> flags[k].bit & 1)
            out_printf(o, " %s", flags[k].name);
    cpuid(0x80000001, r);
    if (r[3] >> 11 & 1)
        out_printf(o, " syscall");
    if (r[3] >> 20 & 1)
        out_printf(o, " nx");
    if (r[3] >> 29 & 1)
        out_printf(o, " lm");
    out_printf(o, "\nclflush size\t: 64\ncache_alignment\t: 64\n"
               "address sizes\t: 40 bits physical, 48 bits virtual\npower management:\n\n");
}

static void show_uptime(struct out *o)
{
    unsigned long us = l4_system_clock();
    out_printf(o, "%lu.%02lu 0.00\n", us / 1000000, us / 10000 % 100);
}

static void show_loadavg(struct out *o)
{
    out_printf(o, "0.00 0.00 0.00 %lu/%lu %d\n", process_nr_live, process_nr_all, pid_last());
}

/* A path as /proc/mounts writes it: space, tab, newline and backslash as octal escapes. */
static void out_escaped(struct out *o, const char *s)
{
    for (; *s; s++)
        if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\\')
            out_printf(o, "\\%03o", (unsigned char)*s);
        else
            out_bytes(o, s, 1);
}

/* The per-mount options (mountinfo's sixth field, the middle of a mounts line): the root,
 * mounted by the kernel, has no atime flag, as Linux's rootfs. */
static void mount_options(struct out *o, struct super_block *sb)
{
    out_printf(o, "%s%s%s%s", sb->flags & MS_RDONLY ? "ro" : "rw",
               sb->flags & MS_NOSUID ? ",nosuid" : "", sb->flags & MS_NODEV ? ",nodev" : "",
               sb->flags & MS_NOEXEC ? ",noexec" : "");
    if (sb != root_sb)
        out_printf(o, "%s", sb->flags & MS_NOATIME ? ",noatime" : ",relatime");
}

/* The file system's own options ("rw,size=...k,inode64"). */
static void super_options(struct out *o, struct super_block *sb)
{
    char buf[128] = "";
    if (sb->type->show_options)
        sb->type->show_options(sb, buf, sizeof buf);
    out_printf(o, "%s", buf);
}

static const char *type_name(struct super_block *sb)
{
    return sb == root_sb ? "rootfs" : sb->type->name;   /* as Linux calls the initramfs's */
}

/* Each mount's point, escaped; false if it cannot be named. */
static bool mount_point(struct out *o, struct super_block *sb)
{
    static char path[PATH_MAX];
    if (!sb->mountpoint)
        strcpy(path, "/");
    else if (vfs_path_of(sb->mountpoint, path, sizeof path) < 0)
        return false;               /* not reachable */
    out_escaped(o, path);
    return true;
}

/* /proc/N/mounts: "source point type options 0 0". */
static void show_mounts(struct out *o)
{
    for (struct super_block *sb = mount_first(); sb; sb = mount_next(sb)) {
        size_t start = o->len;
        out_escaped(o, sb->source);
        out_bytes(o, " ", 1);
        if (!mount_point(o, sb)) {
            o->len = start;
            continue;
        }
        out_printf(o, " %s ", type_name(sb));
        mount_options(o, sb);
        super_options(o, sb);
        out_printf(o, " 0 0\n");
    }
}

/* /proc/N/mountinfo: "id parent major:minor root point options - type source super-options". */
static void show_mountinfo(struct out *o)
{
    for (struct super_block *sb = mount_first(); sb; sb = mount_next(sb)) {
        size_t start = o->len;
        out_printf(o, "%u %u 0:%u / ", sb->id, sb->parent ? sb->parent->id : sb->id, sb->dev);
        if (!mount_point(o, sb)) {
            o->len = start;
            continue;
        }
        out_bytes(o, " ", 1);
        mount_options(o, sb);
        out_printf(o, " - %s ", type_name(sb));
        out_escaped(o, sb->source);
        out_printf(o, " %s", sb->flags & MS_RDONLY ? "ro" : "rw");
        super_options(o, sb);
        out_bytes(o, "\n", 1);
    }
}

static void show_filesystems(struct out *o)
{
    const struct fs_type *ft;
    for (unsigned k = 0; (ft = fs_type_nth(k)); k++)
        out_printf(o, "%s\t%s\n", ft->nodev ? "nodev" : "", ft->name);
}

static void show_stat(struct out *o)
{
    unsigned long idle = l4_system_clock() / (1000000 / HZ);
    out_printf(o, "cpu  0 0 0 %lu 0 0 0 0 0 0\ncpu0 0 0 0 %lu 0 0 0 0 0 0\nintr 0\nctxt 0\n"
               "btime 0\nprocesses %lu\nprocs_running %lu\nprocs_blocked 0\nsoftirq 0\n",
               idle, idle, process_nr_all, process_nr_live);
}

static void show_syscalls(struct out *o)
{
    out_printf(o, "nr  name                     count\n");
    for (unsigned nr = 0; nr < LX_NSYSCALLS; nr++) {
        unsigned long n = syscall_unimplemented(nr);
        if (n)
            out_printf(o, "%-3u %-24s %lu\n", nr, sys_names[nr] ? sys_names[nr] : "unassigned",
                       n);
    }
}

/* --- /proc/N ----------------------------------------------------------------------------- */

static const char *comm_of(const struct process *p)
{
    const struct thread *t = list_first(&p->threads, struct thread, proc_link);
    return t ? t->comm : "";        /* the leader's (an ended leader keeps its name) */
}

struct thread *proc_thread_of(struct process *p, int tid)
{
    struct pid *id = pid_find(tid);
    return id && id->thread && id->thread->proc == p && p->state == PROCESS_LIVE ? id->thread
                                                                                : NULL;
}

/* A thread's state letter: Z an ended leader, T in a group stop, S in a parked call, R
 * otherwise. */
char proc_thread_state(const struct thread *t)
{
    if (!t || t->exited)
        return 'Z';
    if (ptrace_stopped(t))
        return 't';
    if (t->proc->sig.stopped)
        return 'T';
    /* Asleep in a call lx answers later; a new child before its first instruction and a
     * fork on its way are runnable. */
    return t->park.kind == PARK_CALL || t->park.kind == PARK_VFORK ? 'S' : 'R';
}

const char *proc_state_name(char s)
{
    return s == 'Z' ? "Z (zombie)" : s == 'S' ? "S (sleeping)" : s == 'T' ? "T (stopped)"
         : s == 't' ? "t (tracing stop)" : "R (running)";
}

static unsigned long vm_size(struct mm *mm)
{
    unsigned long n = 0;
    for (struct region *r = mm ? mm_first(mm) : NULL; r; r = vma_next(r))
        n += r->end - r->start;
    return n;
}

/* /proc/N/stat, and /proc/N/task/T/stat for thread t (for /proc/N, the leader). */
static void show_pstat_of(struct out *o, struct process *p, const struct thread *t)
{
    struct mm *mm = process_mm(p);
    unsigned long start = (unsigned long)p->start_us / (1000000 / HZ);
    out_printf(o, "%d (%s) %c %d %d %d %u %d %u 0 0 0 0 0 0 0 0 20 0 %u 0 %lu %lu %lu "
               "18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 %d 0 0 0 0 0 0 0 0 0 0 0 0 0 %d\n",
               t ? t->tid->nr : process_pid(p), t ? t->comm : "",
               p->state == PROCESS_LIVE ? proc_thread_state(t) : 'Z', process_ppid(p),
               process_pgid(p), process_sid(p), tty_nr_of(p), tty_tpgid_of(p),
               0u /* no PF_* flag lx knows */, p->nthreads,
               start, vm_size(mm), mm ? mm->pages : 0, p->exit_signal,
               p->state == PROCESS_ZOMBIE ? exit_status_word(p->exit) : 0);
}

static struct thread *leader_of(const struct process *p)
{
    return list_first(&p->threads, struct thread, proc_link);
}

static void show_pstat(struct out *o, struct process *p)
{
    show_pstat_of(o, p, leader_of(p));
}

static void show_statm(struct out *o, struct process *p)
{
    struct mm *mm = process_mm(p);
    out_printf(o, "%lu %lu 0 0 0 %lu 0\n", vm_size(mm) / LX_PAGE, mm ? mm->pages : 0,
               vm_size(mm) / LX_PAGE);
}

/* v in hex, at least 8 digits (%08lx). */
static char *hex_field(char *p, unsigned long v)
{
    int digits = 8;
    while (digits < 16 && (v >> (4 * digits)))
        digits++;
    for (int i = digits - 1; i >= 0; i--)
        *p++ = "0123456789abcdef"[(v >> (4 * i)) & 15];
    return p;
}

/* One line of /proc/N/maps. */
static void maps_line(struct out *o, struct process *p, struct mm *mm, const struct region *r)
{
    static char path[PATH_MAX];
    const char *name = NULL;
    if (r->start == LX_SIGPAGE)
        name = "[vdso]";            /* the signal page (signal/sigpage.c): lx's counterpart */
    else if (r->file && shm_maps_name(r->file, path, sizeof path))
        name = path;                /* a SysV segment: "/SYSV%08x (deleted)" */
    else if (r->file && vfs_path_of(r->file, path, sizeof path) >= 0)
        name = path;                /* the program, its interpreter, mapped files */
    else if (r->fdata)
        name = task_exe_path(p);    /* a data module */
    else if (r->end == LX_USER_END)
        name = "[stack]";
    else if (!r->file && r->start <= mm->brk && r->end >= mm->brk_start)
        name = "[heap]";            /* Linux's test: touching [start_brk, brk] */
    else if (r->shared && !r->file)
        name = "/dev/zero (deleted)";   /* Linux's shmem file behind MAP_SHARED|MAP_ANONYMOUS */
    /* "%08lx-%08lx rwxp 00000000 00:00 0", by hand: a maps file of 65,530 lines is read
     * through this, and vsnprintf costs several times as much. */
    char text[64], *c = text;
    c = hex_field(c, r->start);
    *c++ = '-';
    c = hex_field(c, r->end);
    *c++ = ' ';
    *c++ = r->prot & PROT_READ ? 'r' : '-';
    *c++ = r->prot & PROT_WRITE ? 'w' : '-';
    *c++ = r->prot & PROT_EXEC ? 'x' : '-';
    *c++ = r->shared ? 's' : 'p';
    if (r->file) {                  /* the offset in the file, its device and inode */
        c += snprintf(c, sizeof text - (size_t)(c - text), " %08lx 00:%02x %lu",
                      (unsigned long)(r->foff + (r->start - r->fstart)), r->file->sb->dev,
                      (unsigned long)r->file->ino);
    } else {
        memcpy(c, r->shared ? " 00000000 00:01 0" : " 00000000 00:00 0", 17);
        c += 17;
    }
    out_bytes(o, text, (size_t)(c - text));
    if (name) {
        size_t col = (size_t)(c - text);
        out_printf(o, "%*s%s", col < 73 ? (int)(73 - col) : 1, "", name);
    }
    out_bytes(o, "\n", 1);
}

long proc_maps_read(struct process *p, struct maps_cursor *cur, struct uio *u, l4_word_t *pos)
{
    struct mm *mm = process_mm(p);
    if (!mm)
        return 0;
    static char text[PATH_MAX + 128];
    struct out line = { text, 0, sizeof text };
    struct region *r;
    l4_word_t skip = 0;
    if (*pos && cur->pos == *pos) {
        r = vma_from(&mm->regions, cur->addr);
        skip = r && r->start == cur->addr ? cur->skip : 0;
    } else {
        l4_word_t at = 0;
        for (r = mm_first(mm); r; r = vma_next(r)) {
            line.len = 0;
            maps_line(&line, p, mm, r);
            if (at + line.len > *pos)
                break;
            at += line.len;
        }
        skip = *pos - at;
    }
    l4_word_t done = 0;
    for (; r && u->resid && !u->fault; skip = 0, r = vma_next(r)) {
        line.len = 0;
        maps_line(&line, p, mm, r);
        l4_word_t k = uio_copy_out(u, text + skip, line.len - skip);
        done += k;
        if (skip + k < line.len) {
            skip += k;
            break;                  /* the reader's buffer ends within this line */
        }
    }
    *pos += done;
    cur->pos = *pos;
    cur->addr = r ? r->start : ~0ul;
    cur->skip = r ? skip : 0;
    return (long)done;
}

int proc_show(struct proc_inode *pi, struct out *o)
{
    struct process *p = NULL;
    if (pi->kind >= P_PID) {
        p = process_by_pid(pi->pid);
        if (!p)
            return -ESRCH;
    }
    switch (pi->kind) {
    case P_MEMINFO: show_meminfo(o); break;
    case P_CPUINFO: show_cpuinfo(o); break;
    case P_UPTIME: show_uptime(o); break;
    case P_MOUNTS: show_mounts(o); break;
    case P_MOUNTINFO: show_mountinfo(o); break;
    case P_LOADAVG: show_loadavg(o); break;
    case P_VERSION:
        out_printf(o, "Linux version 6.1.0-pecan (lx@pecan) (gcc) #1 lx\n");
        break;
    case P_FILESYSTEMS: show_filesystems(o); break;
    case P_STAT: show_stat(o); break;
    case P_LX_SYSCALLS: show_syscalls(o); break;
    case P_SYSVIPC_SEM: o->len += sem_proc_show(o->buf + o->len, o->cap - o->len); break;
    case P_SYSVIPC_SHM: o->len += shm_proc_show(o->buf + o->len, o->cap - o->len); break;
    case P_SYSVIPC_MSG: o->len += msg_proc_show(o->buf + o->len, o->cap - o->len); break;
    case P_SYS_FILE: pi->ctl->show(o, pi->ctl); break;
    case P_NET_TCP: case P_NET_TCP6: case P_NET_UDP: case P_NET_UDP6:
        proc_net_show(o, pi->kind);
        break;
    case P_COMM: out_printf(o, "%s\n", comm_of(p)); break;
    case P_TCOMM: case P_TSTAT: case P_TSTATUS: {
        struct thread *t = proc_thread_of(p, pi->fd);
        if (!t)
            return -ESRCH;
        if (pi->kind == P_TCOMM)
            out_printf(o, "%s\n", t->comm);
        else if (pi->kind == P_TSTAT)
            show_pstat_of(o, p, t);
        else
            proc_status(o, p, t);
        break;
    }
    case P_PSTAT: show_pstat(o, p); break;
    case P_STATUS: proc_status(o, p, leader_of(p)); break;
    case P_LIMITS: proc_limits(o, p); break;
    case P_STATM: show_statm(o, p); break;
    case P_FDINFO_FILE: {
        struct thread *t = p->state == PROCESS_LIVE ? process_thread(p) : NULL;
        return t ? proc_fdinfo(o, t, pi->fd) : -ENOENT;
    }
    default: return -EINVAL;
    }
    return 0;
}
