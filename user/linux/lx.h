/* lx, the Linux server: the declarations its layers share (docs/linux-server.md).
 *
 *   main.c       the receive loop: one message from a process, dispatched by its type
 *   sys_table.c  every x86-64 system-call number -> handler or ENOSYS (counted)
 *   sys_*.c      thin handlers by area: decode, copy in/out, call the layers below
 *   task.c       processes: pid, L4 thread, state; start, exit, kill, zombies
 *   fork.c       fork, vfork, clone: a copy-on-write child that starts with our registers
 *   exec.c       execve: the image by name, argv/envp, a new memory model and registers
 *   wait.c       wait4: reaping zombies, the parked wait
 *   pgrp.c       process groups and sessions
 *   park.c       parked calls: wait queues, deadlines, retries
 *   elf.c        the ELF loader and the initial stack
 *   mm.c         the memory model of a process: regions, its pages, the page-fault handler
 *   page.c       lx's own page pool (its heap, paged by the root task)
 *   usercopy.c   the one checked path to process memory
 *   console.c    output of fd 1 and 2 */
#ifndef LX_H
#define LX_H

#include <libl4.h>
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

#define LX_PAGE        4096ul
#define LX_PAGE_MASK   (~(LX_PAGE - 1))
#define LX_NSYSCALLS   464              /* numbers 0..463 have an entry */
#define LX_USER_END    0x7FFFFFFFF000ul /* Linux's TASK_SIZE on x86-64 (4-level paging) */
#define LX_MMAP_MIN    0x10000ul        /* mmap_min_addr: the KIP and UTCBs live below */

/* Linux error numbers used here (the handlers return -E...). */
#define EPERM    1
#define ENOENT   2
#define ESRCH    3
#define EINTR    4
#define E2BIG    7
#define ENOEXEC  8
#define EBADF    9
#define ECHILD  10
#define EAGAIN  11
#define ENOMEM  12
#define EACCES  13
#define EFAULT  14
#define EBUSY   16
#define EEXIST  17
#define ENODEV  19
#define EINVAL  22
#define ENOTTY  25
#define ENAMETOOLONG 36
#define ENOSYS  38
#define ENOENT   2
#define EIO      5
#define ENXIO    6
#define ENOEXEC  8
#define EACCES  13
#define EXDEV   18
#define ENOTDIR 20
#define EISDIR  21
#define EMFILE  24
#define EFBIG   27
#define ENOSPC  28
#define ESPIPE  29
#define EROFS   30
#define EMLINK  31
#define EPIPE   32
#define ERANGE  34
#define ENAMETOOLONG 36
#define ENOTEMPTY 39
#define ELOOP   40
#define EOVERFLOW 75
#define EOPNOTSUPP 95

/* --- page.c: lx's page pool ----------------------------------------------------------- */
void page_init(l4_word_t base, l4_word_t size);
void *page_alloc(void);             /* zeroed, present in lx's space; NULL when exhausted */
/* The same for a process's memory (its pages, page tables, region records): NULL once only
 * lx's own reserve is left. */
void *page_alloc_user(void);
bool page_user_available(unsigned long n);  /* could n pages of process memory be had? */
void page_free(void *p);             /* a page nobody else holds */
void page_get(void *p);              /* one more holder (fork shares a page) */
bool page_put(void *p);              /* one holder less; true if that freed it */
unsigned page_refs(const void *p);
unsigned long page_free_count(void); /* every page of the heap when nothing is handed out */
unsigned long page_total(void);      /* the pages the pool can hand out */

/* --- mm.c: the memory model ----------------------------------------------------------- */
#include "vma.h"

#define PROT_READ   1
#define PROT_WRITE  2
#define PROT_EXEC   4

#define LX_MAX_MAP_COUNT 65530      /* vm.max_map_count: regions of one process */

struct mm {
    struct vma_tree regions;        /* disjoint, by address (vma.c) */
    unsigned long nregions;         /* Linux's map_count */
    l4_word_t *pgd;                 /* four-level table: user page -> lx's page */
    l4_word_t brk_start, brk;       /* the heap: [brk_start, page-up(brk)) is a region */
    l4_word_t mmap_top;             /* mmap without a hint searches down from here */
    unsigned long pages;            /* pages held (leaves of the table) */
    unsigned long tables;           /* nodes of the table */
};

bool mm_init(struct mm *mm);
void mm_destroy(struct mm *mm);     /* every page back to the pool (the space is gone) */
void mm_release(struct mm *mm);     /* the same while the space lives on: pages revoked */
/* dst (uninitialised) becomes a copy-on-write copy of src: 0 or -ENOMEM (dst empty). */
int mm_fork(struct mm *dst, struct mm *src);
struct region *mm_find(struct mm *mm, l4_word_t addr);
static inline struct region *mm_first(struct mm *mm) { return vma_first(&mm->regions); }
/* Map [start, end) as a new region, replacing whatever was there (MAP_FIXED). */
int mm_map(struct mm *mm, l4_word_t start, l4_word_t end, unsigned prot, l4_word_t fdata,
           l4_word_t fstart, l4_word_t fend);
int mm_unmap(struct mm *mm, l4_word_t start, l4_word_t end);
/* brk growing: anonymous memory at [start, end), joined only to the region below. */
int mm_brk(struct mm *mm, l4_word_t start, l4_word_t end);
int mm_protect(struct mm *mm, l4_word_t start, l4_word_t end, unsigned prot);
/* A free gap of len bytes, searched down from mm->mmap_top; 0 if none. */
l4_word_t mm_find_gap(struct mm *mm, l4_word_t len);
/* Is no page of [start, end) in a region? */
bool mm_range_free(struct mm *mm, l4_word_t start, l4_word_t end);
/* lx's page behind user page `addr` of a region, allocated and filled on first touch;
 * NULL when memory is exhausted. */
void *mm_page(struct mm *mm, struct region *r, l4_word_t addr);
/* The same for writing: a page this process alone holds (a copy if it was shared; with
 * revoke_old the shared one is also taken out of the process's space). */
void *mm_page_write(struct mm *mm, struct region *r, l4_word_t addr, bool revoke_old);
/* May the page be mapped with write rights now (the region allows it, nobody shares it)? */
bool mm_page_writable(const struct region *r, const void *page);
/* --- mm.c: file mappings, mremap, madvise (issue 8 item 2; docs/linux/memory.md) --- */
#define MM_FILE_END (~0ul)          /* fend of a file mapping: the file's own end decides */
/* Map a region built from tmpl (start, end, prot and backing), replacing whatever was in
 * [start, end) (MAP_FIXED); takes a reference to tmpl->file. */
int mm_map_region(struct mm *mm, const struct region *tmpl);
/* Is addr's page of r wholly past the end of the file it maps (a fault there is SIGBUS)? */
bool mm_past_eof(const struct region *r, l4_word_t addr);
/* mremap: 0 with *result the new address, or -errno; flags MREMAP_MAYMOVE/FIXED. */
long mm_remap(struct mm *mm, l4_word_t old, l4_word_t old_len, l4_word_t new_len,
              unsigned flags, l4_word_t new_addr);
/* madvise(MADV_DONTNEED): the private pages of [start, end) go (they refill from their
 * backing, zero for anonymous memory); -ENOMEM if part of the range is unmapped. */
int mm_discard(struct mm *mm, l4_word_t start, l4_word_t end);
/* Is every page of [start, end) in some region? */
bool mm_range_mapped(struct mm *mm, l4_word_t start, l4_word_t end);
/* Overcommit as Linux's heuristic: may one request of len bytes be promised at all? */
bool mm_may_commit(l4_word_t len);

/* --- oom.c: memory exhaustion ----------------------------------------------------------- */
struct task;
/* No page for t's fault at addr: the process Linux's OOM killer would pick ends by SIGKILL
 * (the one holding the most memory; init only if it is the one faulting).  True if that
 * was t itself (which has ended: no reply); false if memory came free, so try again. */
bool oom_fault(struct task *t, l4_word_t addr, l4_word_t ip);
/* No page for a user copy into or out of mm: if its process holds the most memory it gets
 * SIGKILL (it ends when its call does); the copy fails (-EFAULT) either way. */
void oom_copy(struct mm *mm);

/* --- usercopy.c: the one checked path ------------------------------------------------- */
/* Linux's access_ok: could [addr, addr + n) be user memory at all (below TASK_SIZE, no
 * wrap)?  Every call that moves bytes checks its whole range first, before any byte moves. */
static inline bool access_ok(l4_word_t addr, size_t n)
{
    return n <= LX_USER_END && addr <= LX_USER_END - n;
}
int copy_from_user(struct mm *mm, void *dst, l4_word_t src, size_t n);    /* 0 or -EFAULT */
int copy_to_user(struct mm *mm, l4_word_t dst, const void *src, size_t n);
/* A NUL-terminated string of at most max bytes (with the NUL): its length, -EFAULT, or
 * -ENAMETOOLONG when the first max bytes hold no NUL. */
long strncpy_from_user(struct mm *mm, char *dst, l4_word_t src, size_t max);

/* --- task.c: processes ---------------------------------------------------------------- */
enum task_state { TASK_FREE, TASK_RUNNING, TASK_ZOMBIE };

#define LX_MAX_TASKS 32
#define LX_ARGV_MAX  32

/* What a process waits for when lx has not answered its last message yet (a parked call:
 * lx goes on serving everyone else and replies when the condition holds). */
enum park {
    PARK_NONE,
    PARK_FORK_REGS,                 /* fork: its registers (GET_REGS) are on their way */
    PARK_FORK_FPU,                  /* fork: it saves its FPU state (the signal page) */
    PARK_VFORK,                     /* vfork: until the child (park_pid) execs or ends */
    PARK_CALL,                      /* a call that runs again when woken (park.c) */
    PARK_START,                     /* a new child: its first message gets the registers */
};

#define SIGCHLD 17

/* The message being served (MRs copied out once: the handlers may use IPC). */
struct sysargs {
    l4_word_t nr, a[6], rip, rsp, rflags;
};
/* serve_syscall copies it from MR1..MR10 in one piece. */
_Static_assert(sizeof(struct sysargs) == L4_FSC_WORDS * sizeof(l4_word_t) &&
               L4_FSC_RAX == 1 && L4_FSC_RDI == 2 && L4_FSC_RIP == 8 && L4_FSC_RFLAGS == 10,
               "struct sysargs is MR1..MR10 of the foreign system-call message");

struct waitq { uint64_t tasks; };   /* process slots parked on something (park.c) */

/* --- signals (signal.c, sigframe.c, sys_signal.c; docs/linux/signals.md) --------------- */
struct k_sigaction {                /* Linux's x86-64 struct sigaction as the kernel sees it */
    l4_word_t handler, flags, restorer;
    uint64_t mask;
};
struct k_siginfo {                  /* what a pending signal carries into its siginfo */
    int code, pid, uid, status;
    l4_word_t addr;
    int trapno, err;                /* a fault's: the sigcontext's trapno and err */
};
enum sig_hold {                     /* what a stopped process gets when it continues */
    SIG_HOLD_NONE,
    SIG_HOLD_RESULT,                /* a finished system call's result (hold_value) */
    SIG_HOLD_CALL,                  /* its parked call, run again (a restart) */
    SIG_HOLD_REGS,                  /* its registers (hold_regs): the delivery goes on */
};
struct sigstate {
    struct k_sigaction action[64];  /* by signal - 1 */
    struct k_siginfo info[64];      /* of each pending signal (one per signal: no queue) */
    uint64_t blocked;
    uint64_t saved_mask;            /* rt_sigsuspend's: restored when it ends */
    bool restore_mask;
    l4_word_t ss_sp, ss_size;       /* sigaltstack; size 0: disabled */
    int ss_flags;                   /* as given (SS_AUTODISARM matters) */
    bool want_regs;                 /* GET_REGS sent: the registers come as a REGS message */
    long result;                    /* ... with the call's result (or an ERESTART code) */
    l4_word_t result_nr;            /* ... and its number (a restart) */
    bool in_syscall;                /* ... the registers are those at a system call */
    struct k_siginfo fault;         /* ... or a page fault's SIGSEGV to force */
    int fault_sig;
    bool stopped;                   /* SIGSTOP & co.: not answered until SIGCONT */
    int stop_sig;
    enum sig_hold hold;
    long hold_value;
    l4_word_t hold_regs[L4_FREG_WORDS];
    int report;                     /* wait4: 0, or the stop signal, or -1 continued */
    uint64_t alarm_at, alarm_interval;  /* ITIMER_REAL: lx_now() values; 0 off */
    uint64_t wait_set;              /* rt_sigtimedwait: the signals it takes ... */
    uint64_t wait_deadline;         /* ... until then (lx_now()); 0 none */
};

struct task {
    enum task_state state;
    int pid, ppid, pgid, sid;
    l4_word_t tid;                  /* its L4 thread (global id) */
    struct mm mm;
    l4_word_t clear_child_tid;      /* set_tid_address */
    struct fdtable *files;          /* vfs/: open files (shared with CLONE_FILES) */
    struct fs_struct *fs;           /* vfs/: cwd and umask (shared with CLONE_FS) */
    unsigned long nsyscalls;
    int status;                     /* a zombie's, as wait() reports it */
    int exit_signal;                /* sent to the parent at the end (clone's low byte) */
    bool execed;                    /* has called execve (setpgid by the parent: EACCES) */
    char comm[16];                  /* its name: the executable's, or prctl(PR_SET_NAME) */
    uint64_t sigpending;            /* recorded, for the signal layer (bit sig - 1) */
    enum park park;
    int park_pid;                   /* PARK_VFORK: the child */
    l4_word_t park_args[5];         /* PARK_FORK_REGS: clone's flags, stack, tid pointers, tls */
    l4_word_t fork_saved[L4_FREG_WORDS]; /* PARK_FORK_FPU, PARK_VFORK: its registers */
    l4_word_t fork_area;            /* PARK_FORK_FPU: where it saved its FPU state */
    struct sysargs call;            /* PARK_CALL: the call, run again when woken */
    uint64_t park_deadline;         /* PARK_CALL: lx_now() at which it runs again; 0 none */
    bool retrying;                  /* the handler runs for a parked call */
    struct waitq child_wait;        /* wait4 of this process: a child changed state */
    l4_word_t regs[L4_FREG_WORDS];  /* PARK_START: the registers to start with (MR order) */
    /* --- pipes, poll, time (pipe.h, clock.h; docs/linux/pipes.md, docs/linux/time.md) --- */
    l4_word_t io_done;              /* a parked write/writev: bytes moved by earlier runs */
    uint64_t wait_deadline;         /* a parked poll/select/sleep: lx_now() when it ends; 0 none */
    uint64_t wait_sigmask;          /* ppoll/pselect6's mask while parked (the signal layer's) */
    bool wait_sigmask_set;
    uint64_t cpu_mark;              /* TSC when lx last let it run; 0 while lx holds it */
    uint64_t utime, stime;          /* estimated CPU time (TSC ticks): clock.c */
    uint64_t cutime, cstime;        /* of its reaped children */
    /* --- end pipes, poll, time --- */
    char *exe;                      /* exec.c: the executable's absolute path (kmalloc) */
    struct inode *exe_inode;        /* exec.c: and its file (a reference), NULL: a module */
    struct sigstate sig;            /* signals (signal.c) */
};

struct task *task_by_tid(l4_word_t tid);
struct task *task_by_pid(int pid);  /* running or zombie */
struct task *task_alloc(void);      /* a free slot (zeroed, still TASK_FREE) or NULL */
/* A new L4 task for t (pager and handler lx), waiting for its start message: 0 or -errno. */
int task_create_thread(struct task *t);
/* Answer t's parked (or current) system call now, with RAX = value. */
void task_reply(struct task *t, long value);
/* A new process running the ELF image at [image, image + size) with argv/envp; NULL with
 * *err (if err) when it cannot be. */
struct task *task_spawn(const void *image, l4_word_t size, const char *execfn, int argc,
                        char *const argv[], char *const envp[], int *err);
/* End a process: its space and pages go away; status as wait() would report it.  The
 * parent learns of it (a zombie until reaped); clobbers the MRs. */
void task_exit(struct task *t, int status);
void task_free(struct task *t);     /* a reaped zombie's slot */
void task_set_comm(struct task *t, const char *path);  /* the last component, 15 bytes */
unsigned task_count(void);
/* Each slot in turn (i < LX_MAX_TASKS), for the layers that look for children or groups. */
struct task *task_slot(unsigned i);
extern l4_word_t lx_self;           /* lx's own thread */

/* --- elf.c ------------------------------------------------------------------------------ */
/* Load a static ELF (non-PIE or static-PIE) into mm and build its initial stack; execfn
 * is AT_EXECFN's string (the path execve was given); *entry and *sp for the start;
 * 0 or -errno (a message says why: -ENOEXEC for what is no loadable static ELF). */
int elf_load(struct mm *mm, const void *image, l4_word_t size, const char *execfn, int argc,
             char *const argv[], char *const envp[], l4_word_t *entry, l4_word_t *sp);

/* The same from a tmpfs file that has been written (its pages are not one piece). */
int elf_load_file(struct mm *mm, struct inode *file, const char *execfn, int argc,
                  char *const argv[], char *const envp[], l4_word_t *entry, l4_word_t *sp);

/* --- exec.c: the executable of a process (issue 8 item 1; docs/linux/exec.md) ----------- */
/* The absolute path of t's executable as /proc/<pid>/exe shows it (as it was named at the
 * exec), or NULL (none known); its inode (referenced by the task) or NULL (a data module). */
const char *task_exe_path(const struct task *t);
struct inode *task_exe_inode(const struct task *t);
/* Record path (resolved to an absolute path in the tree if it is one) as t's executable. */
void task_set_exe(struct task *t, const char *path);
/* fork: the child's executable is the parent's; false when memory is short. */
bool task_copy_exe(struct task *child, const struct task *parent);
void task_drop_exe(struct task *t); /* exit */
/* Start the program at path (a file of the tree, a #! script, or a data module) as a new
 * process, as execve would run it; NULL with *err. */
struct task *exec_spawn(const char *path, int argc, char *const argv[], char *const envp[],
                        int *err);

/* --- park.c: parked calls ------------------------------------------------------------ */
#define LX_PARK  (-0x7FFFFFFFFFFFFFFDl)     /* the handler parked the caller (park_call) */
uint64_t lx_now(void);              /* nanoseconds since boot (the kernel's clock) */
void waitq_add(struct waitq *q, struct task *t);
void waitq_wake(struct waitq *q);   /* its tasks' calls run again (after this message) */
void park_wake(struct task *t);     /* t's parked call runs again */
/* Park t's call (after waitq_add on what it waits for): returns LX_PARK for the handler to
 * return.  deadline: lx_now() value at which the call runs again anyway; 0 for none. */
long park_call(struct task *t, uint64_t deadline);
static inline bool park_retrying(const struct task *t) { return t->retrying; }
/* End t's parked call without running it (a signal): true if it was parked; the caller
 * answers it. */
bool park_cancel(struct task *t);
void park_task_exit(struct task *t);
/* The receive loop's part (main.c). */
extern uint64_t park_ready;
extern unsigned park_ntimed;
/* Anything woken or timed at all?  The loop's one test per message when nothing is. */
static inline bool park_busy(void) { return park_ready | park_ntimed; }
void park_parked(struct task *t, const struct sysargs *a);  /* the handler said LX_PARK */
bool park_pending(void);            /* calls to run again now */
void park_run(void);                /* run them; clobbers the MRs */
uint16_t park_timeout(void);        /* the receive timeout until the next deadline */

/* --- fork.c, exec.c, wait.c ------------------------------------------------------------- */
/* The parent's registers arrived (its fork's GET_REGS): make the child; true if the MRs
 * hold the reply to the parent. */
bool fork_regs(struct task *parent);
/* Its FPU state is saved (the signal page's LX_SYS_FORK_FPU call): make the child; true
 * if the MRs hold the reply to the parent. */
bool fork_fpu_saved(struct task *parent);
/* A child's first message (the pending interrupt set at its start): its registers. */
void fork_child_start(struct task *child);
/* A child of parent ended, or exec'ed: a parent parked in vfork for it goes on. */
void fork_vfork_done(struct task *child);
/* The executable called path: lx's address and size of its image; 0 or -ENOENT.  For now
 * a data module named by the path's last component (the VFS replaces this later). */
int exec_image_lookup(const char *path, const void **image, l4_word_t *size);
/* A child of parent has become a zombie: the parent's parked wait4 looks again. */
static inline void wait_child_ended(struct task *parent) { waitq_wake(&parent->child_wait); }

/* --- sys_table.c ------------------------------------------------------------------------ */
#define LX_NOREPLY  (-0x7FFFFFFFFFFFFFFFl)  /* the handler answered (or ended) the caller */
#define LX_REPLIED  (-0x7FFFFFFFFFFFFFFEl)  /* the handler put its own reply into the MRs */
typedef long (*sys_handler)(struct task *t, const struct sysargs *a);
long syscall_dispatch(struct task *t, const struct sysargs *a);
void syscall_report(void);          /* the debug hook: unimplemented calls seen, by number */
extern const char *const sys_names[LX_NSYSCALLS];

/* The handlers, by area. */
long sys_read(struct task *, const struct sysargs *);
long sys_write(struct task *, const struct sysargs *);
long sys_writev(struct task *, const struct sysargs *);
long sys_ioctl(struct task *, const struct sysargs *);
long sys_readv(struct task *, const struct sysargs *);
long sys_pread64(struct task *, const struct sysargs *);
long sys_pwrite64(struct task *, const struct sysargs *);
long sys_lseek(struct task *, const struct sysargs *);
/* sys_fs.c: files and the tree */
long sys_open(struct task *, const struct sysargs *);
long sys_openat(struct task *, const struct sysargs *);
long sys_creat(struct task *, const struct sysargs *);
long sys_close(struct task *, const struct sysargs *);
long sys_stat(struct task *, const struct sysargs *);
long sys_lstat(struct task *, const struct sysargs *);
long sys_fstat(struct task *, const struct sysargs *);
long sys_newfstatat(struct task *, const struct sysargs *);
long sys_getdents64(struct task *, const struct sysargs *);
long sys_mkdir(struct task *, const struct sysargs *);
long sys_mkdirat(struct task *, const struct sysargs *);
long sys_rmdir(struct task *, const struct sysargs *);
long sys_unlink(struct task *, const struct sysargs *);
long sys_unlinkat(struct task *, const struct sysargs *);
long sys_rename(struct task *, const struct sysargs *);
long sys_renameat(struct task *, const struct sysargs *);
long sys_renameat2(struct task *, const struct sysargs *);
long sys_link(struct task *, const struct sysargs *);
long sys_linkat(struct task *, const struct sysargs *);
long sys_symlink(struct task *, const struct sysargs *);
long sys_symlinkat(struct task *, const struct sysargs *);
long sys_readlink(struct task *, const struct sysargs *);
long sys_readlinkat(struct task *, const struct sysargs *);
long sys_chdir(struct task *, const struct sysargs *);
long sys_fchdir(struct task *, const struct sysargs *);
long sys_getcwd(struct task *, const struct sysargs *);
long sys_dup(struct task *, const struct sysargs *);
long sys_dup2(struct task *, const struct sysargs *);
long sys_dup3(struct task *, const struct sysargs *);
long sys_fcntl(struct task *, const struct sysargs *);
long sys_access(struct task *, const struct sysargs *);
long sys_faccessat(struct task *, const struct sysargs *);
long sys_faccessat2(struct task *, const struct sysargs *);
long sys_chmod(struct task *, const struct sysargs *);
long sys_fchmod(struct task *, const struct sysargs *);
long sys_fchmodat(struct task *, const struct sysargs *);
long sys_truncate(struct task *, const struct sysargs *);
long sys_ftruncate(struct task *, const struct sysargs *);
long sys_umask(struct task *, const struct sysargs *);
long sys_exit(struct task *, const struct sysargs *);
long sys_exit_group(struct task *, const struct sysargs *);
long sys_getpid(struct task *, const struct sysargs *);
long sys_getppid(struct task *, const struct sysargs *);
long sys_gettid(struct task *, const struct sysargs *);
long sys_getuid(struct task *, const struct sysargs *);
long sys_set_tid_address(struct task *, const struct sysargs *);
long sys_arch_prctl(struct task *, const struct sysargs *);
long sys_uname(struct task *, const struct sysargs *);
long sys_rt_sigaction(struct task *, const struct sysargs *);
long sys_rt_sigprocmask(struct task *, const struct sysargs *);
long sys_brk(struct task *, const struct sysargs *);
long sys_mmap(struct task *, const struct sysargs *);
long sys_munmap(struct task *, const struct sysargs *);
long sys_mprotect(struct task *, const struct sysargs *);
long sys_mremap(struct task *, const struct sysargs *);
long sys_msync(struct task *, const struct sysargs *);
long sys_madvise(struct task *, const struct sysargs *);
long sys_set_robust_list(struct task *, const struct sysargs *);
long sys_prlimit64(struct task *, const struct sysargs *);
long sys_getrandom(struct task *, const struct sysargs *);
/* sys_system.c: identity, limits, scheduling, the system */
long sys_setuid(struct task *, const struct sysargs *);
long sys_setreuid(struct task *, const struct sysargs *);
long sys_setresuid(struct task *, const struct sysargs *);
long sys_getresuid(struct task *, const struct sysargs *);
long sys_setfsuid(struct task *, const struct sysargs *);
long sys_getgroups(struct task *, const struct sysargs *);
long sys_setgroups(struct task *, const struct sysargs *);
long sys_getrlimit(struct task *, const struct sysargs *);
long sys_setrlimit(struct task *, const struct sysargs *);
long sys_sched_getaffinity(struct task *, const struct sysargs *);
long sys_sched_setaffinity(struct task *, const struct sysargs *);
long sys_sched_getscheduler(struct task *, const struct sysargs *);
long sys_sched_getparam(struct task *, const struct sysargs *);
long sys_sched_setscheduler(struct task *, const struct sysargs *);
long sys_sched_setparam(struct task *, const struct sysargs *);
long sys_sched_get_priority_max(struct task *, const struct sysargs *);
long sys_sched_get_priority_min(struct task *, const struct sysargs *);
long sys_getpriority(struct task *, const struct sysargs *);
long sys_setpriority(struct task *, const struct sysargs *);
long sys_getcpu(struct task *, const struct sysargs *);
long sys_personality(struct task *, const struct sysargs *);
long sys_sysinfo(struct task *, const struct sysargs *);
long sys_prctl(struct task *, const struct sysargs *);
long sys_fork(struct task *, const struct sysargs *);
long sys_vfork(struct task *, const struct sysargs *);
long sys_clone(struct task *, const struct sysargs *);
long sys_execve(struct task *, const struct sysargs *);
long sys_wait4(struct task *, const struct sysargs *);
long sys_setpgid(struct task *, const struct sysargs *);
long sys_getpgid(struct task *, const struct sysargs *);
long sys_getpgrp(struct task *, const struct sysargs *);
long sys_setsid(struct task *, const struct sysargs *);
long sys_getsid(struct task *, const struct sysargs *);

/* --- files: mounts, /proc, the remaining file calls (sys_mount.c, sys_fs.c, sys_file.c) --- */
long sys_mount(struct task *, const struct sysargs *);
long sys_umount2(struct task *, const struct sysargs *);
long sys_statfs(struct task *, const struct sysargs *);
long sys_fstatfs(struct task *, const struct sysargs *);
long sys_getdents(struct task *, const struct sysargs *);
long sys_statx(struct task *, const struct sysargs *);
long sys_utimensat(struct task *, const struct sysargs *);
long sys_futimesat(struct task *, const struct sysargs *);
long sys_utimes(struct task *, const struct sysargs *);
long sys_utime(struct task *, const struct sysargs *);
long sys_chown(struct task *, const struct sysargs *);
long sys_fchown(struct task *, const struct sysargs *);
long sys_lchown(struct task *, const struct sysargs *);
long sys_fchownat(struct task *, const struct sysargs *);
long sys_mknod(struct task *, const struct sysargs *);
long sys_mknodat(struct task *, const struct sysargs *);
long sys_sendfile(struct task *, const struct sysargs *);
long sys_fsync(struct task *, const struct sysargs *);
long sys_fdatasync(struct task *, const struct sysargs *);
long sys_sync(struct task *, const struct sysargs *);
long sys_syncfs(struct task *, const struct sysargs *);
long sys_readahead(struct task *, const struct sysargs *);
long sys_fadvise64(struct task *, const struct sysargs *);
long sys_flock(struct task *, const struct sysargs *);
/* --- end of files --- */

/* --- console.c -------------------------------------------------------------------------- */
void console_write(const char *buf, size_t n);

/* --- faults (main.c) -------------------------------------------------------------------- */
/* A fatal fault: report it and end the process as killed by signal sig. */
void task_fault_kill(struct task *t, int sig, const char *what, l4_word_t addr, l4_word_t ip);

#endif
