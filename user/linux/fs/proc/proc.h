/* proc, the process file system (docs/linux/files.md, "/proc"): a mountable type whose
 * files are made when read, from the processes (task/process.h). */
#ifndef LX_FS_PROC_PROC_H
#define LX_FS_PROC_PROC_H

#include "vfs/file.h"

/* --- the file system (proc.c) and its files (show.c) ----------------------------------- */
enum proc_kind {
    /* in /proc */
    P_ROOT, P_SELF, P_MEMINFO, P_CPUINFO, P_UPTIME, P_MOUNTS_LINK, P_LOADAVG, P_VERSION,
    P_FILESYSTEMS, P_STAT, P_LX,
    /* in /proc/lx */
    P_LX_SYSCALLS,
    /* /proc/sysvipc and its listings (ipc/) */
    P_SYSVIPC, P_SYSVIPC_SEM, P_SYSVIPC_SHM, P_SYSVIPC_MSG,
    /* /proc/net and its socket tables (net.c) */
    P_NET, P_NET_TCP, P_NET_TCP6, P_NET_UDP, P_NET_UDP6,
    /* /proc/sys and below (fs/proc/sysctl.h): a directory, a setting */
    P_SYS_DIR, P_SYS_FILE,
    /* in /proc/N */
    P_PID, P_CMDLINE, P_ENVIRON, P_COMM, P_CWD, P_EXE, P_FD, P_MAPS, P_PSTAT, P_STATM, P_STATUS,
    P_MOUNTS, P_MOUNTINFO, P_TASK, P_LIMITS, P_ROOTLINK, P_FDINFO,
    /* in /proc/N/fd and /proc/N/fdinfo */
    P_FDLINK, P_FDINFO_FILE,
    /* in /proc/N/task: a thread's directory (fd: its tid) and its files */
    P_TID, P_TCOMM, P_TSTAT, P_TSTATUS,
    P_NKINDS
};

struct proc_inode {
    struct inode i;                 /* first: the VFS's view */
    enum proc_kind kind;
    int pid, fd;                    /* fd: the fd of P_FDLINK, the tid of P_TID and below */
    char name[16];
    /* P_SYS_DIR below /proc/sys: a setting under it, whose path's first plen bytes are the
     * directory's ("kernel/"); P_SYS_FILE: the setting.  The name is path[nameoff...]. */
    const struct sysctl *ctl;
    unsigned short plen, nameoff;
    struct proc_inode *next;        /* every inode of the mount */
};

struct out {                        /* a file's text as it is made */
    char *buf;
    size_t len, cap;
};
void out_printf(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void out_bytes(struct out *o, const char *p, size_t n);
/* /proc/net/tcp, tcp6, udp, udp6 (net.c): kind's table of sockets. */
void proc_net_show(struct out *o, enum proc_kind kind);
/* The text of a proc file (pi->pid's process, if it has one): 0 or -errno. */
int proc_show(struct proc_inode *pi, struct out *o);
struct thread;
struct process;
struct sysctl;
/* /proc/N/fdinfo/FD (fdinfo.c): fd's lines, or -ENOENT (not open). */
int proc_fdinfo(struct out *o, struct thread *owner, int fd);
/* status and limits (status.c) */
void proc_status(struct out *o, struct process *p, const struct thread *shown);
void proc_limits(struct out *o, struct process *p);
/* A thread's state letter (R, S, T, Z: show.c) and its words ("S (sleeping)"). */
char proc_thread_state(const struct thread *t);
const char *proc_state_name(char s);
/* Thread tid of p (the ended leader too), or NULL. */
struct thread *proc_thread_of(struct process *p, int tid);
/* Where the last read of an open /proc/N/maps stopped (its private data), so that reading
 * one through (65,530 lines and more, a page a call) costs what it returns, as Linux's
 * seq_file does: the position, the region whose line comes next, the bytes of it already
 * read.  A read at another position starts from the first line. */
struct maps_cursor {
    l4_word_t pos, addr, skip;
};
struct uio;
struct process;
/* /proc/N/maps of p at *pos (advanced): the bytes moved into u. */
long proc_maps_read(struct process *p, struct maps_cursor *cur, struct uio *u, l4_word_t *pos);
/* /proc/PID/cmdline (or environ) from the process's memory (cmdline.c). */
long proc_args_read(struct process *p, bool environ, struct uio *u, l4_word_t *pos);
/* The name /proc/N/fd/M shows for an open file (its path, or "pipe:[ino]" and the like):
 * its length into buf. */
int proc_file_name(struct file *f, char *buf, size_t size);

#endif
