/* execve: the process's memory model and registers are replaced by a new image's.  The
 * path, argv and envp are copied into lx (through user copy) and the new memory model is
 * built completely before the old one is dropped, so a failing execve returns to the old
 * image unharmed.  The reply is SET_REGS: RIP at the entry, RSP at the new initial stack,
 * every other register and the FS and GS bases 0 (docs/linux/exec.md).
 *
 * The file: found by the VFS's walk (so "/proc/self/exe" is proc's link to the executable,
 * as in Linux), checked as Linux's open_exec (a regular file with an execute bit on a mount
 * without noexec: EACCES otherwise) and read through its page provider (the ELF loader maps
 * its segments as private file mappings); or, for programs not in the tree, a data module
 * named by the path's last component.  A file that starts with "#!" is a script: its
 * interpreter runs with argv [interpreter, (argument,) script path, argv[1], ...], up to 5
 * scripts deep (ELOOP beyond), as Linux's binfmt_script.  The executable of a process is its
 * inode (a reference: it runs on after a rename or unlink) and the path it had, which
 * /proc/N/exe shows. */
#include "task/exec.h"
#include "ipc/util.h"
#include "task/cputime.h"
#include "fs/proc/proc.h"
#include "vfs/file.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "mm/mm.h"
#include "mm/module.h"
#include "mm/usercopy.h"
#include "signal/signal.h"
#include "syscalls/handlers.h"
#include "task/clone.h"
#include "task/elf.h"
#include "task/exec_args.h"
#include "task/process.h"
#include "task/ptrace.h"
#include "time/posix_timer.h"
#include "vfs/vfs.h"
#include "l4chan/l4chan.h"
#include <stdio.h>
#include <string.h>

#define DATA_BASE     0x400000000000ul  /* data modules mapped here in lx, 256 MiB apart, far
                                           above the heap (page.c uses all of it) */
#define DATA_SLOT     0x10000000ul
#define MAX_IMAGES    16
#define NAME_MAX_MOD  16                /* a data module's name (root task convention) */
#define BINPRM_BUF    256               /* the bytes of a file that decide what it is */
#define MAX_ARG_STRINGS 0x7fffffffl     /* argv and envp entries each */
#define MAX_REWRITES  5                 /* interpreters in a row (Linux: exec_binprm) */

struct image {
    char name[NAME_MAX_MOD + 1];
    const void *base;
    l4_word_t size;
    bool in;                        /* every page present (mm/module.c): read freely */
};

/* An image is read by plain loads (headers, segments' bytes: mm.c), so all of it is paged in
 * by call before it is used, once: -ENOMEM while the kernel has no memory for that. */
static int image_in(struct image *im, const void **image, l4_word_t *size)
{
    if (!im->in && !(im->in = module_in(im->base, im->size)))
        return -ENOMEM;
    *image = im->base;
    *size = im->size;
    return 0;
}

static struct image images[MAX_IMAGES];
static unsigned nimages;

int exec_image_lookup(const char *path, const void **image, l4_word_t *size)
{
    const char *name = strrchr(path, '/');
    name = name ? name + 1 : path;
    if (!*name || strlen(name) > NAME_MAX_MOD)
        return -ENOENT;
    for (unsigned i = 0; i < nimages; i++)
        if (!strcmp(images[i].name, name))
            return image_in(&images[i], image, size);
    if (nimages == MAX_IMAGES)
        return -ENOENT;
    /* Mapped once, read-only, for good: regions of processes point into it. */
    l4_word_t err, addr = DATA_BASE + nimages * DATA_SLOT;
    l4_word_t n = l4_data_map(name, 0, &err);
    if (!n || err || n > DATA_SLOT || !l4_data_map(name, addr, &err) || err)
        return -ENOENT;
    struct image *im = &images[nimages++];
    strcpy(im->name, name);
    im->base = (const void *)addr;
    im->size = n;
    return image_in(im, image, size);
}

/* --- the executable of a process ----------------------------------------------------------- */

const char *task_exe_path(const struct process *p)
{
    return p->exe;
}

struct inode *task_exe_inode(const struct process *p)
{
    return p->exe_inode;
}

/* The executable is file (its path now: what /proc/N/exe shows once it is unlinked), or for
 * a data module the name it was started by. */
static void set_exe(struct process *p, const char *path, struct inode *file)
{
    static char name[PATH_MAX];
    task_drop_exe(p);
    p->exe_inode = file;
    if (file) {
        inode_get(file);            /* runs even when renamed or unlinked, as in Linux */
        if (vfs_path_of(file, name, sizeof name) >= 0)
            path = name;
    }
    p->exe = kmalloc(strlen(path) + 1);
    if (p->exe)
        strcpy(p->exe, path);       /* no name if memory is short */
}

bool task_copy_exe(struct process *child, const struct process *parent)
{
    child->exe = NULL;
    child->exe_inode = parent->exe_inode;
    if (child->exe_inode)
        inode_get(child->exe_inode);
    if (!parent->exe)
        return true;
    child->exe = kmalloc(strlen(parent->exe) + 1);
    if (!child->exe)
        return false;
    strcpy(child->exe, parent->exe);
    return true;
}

void task_drop_exe(struct process *p)
{
    kfree(p->exe);
    p->exe = NULL;
    if (p->exe_inode)
        inode_put(p->exe_inode);
    p->exe_inode = NULL;
}

/* --- finding the image: files, scripts, /proc/self/exe ------------------------------------- */

static char path[PATH_MAX];         /* the program: the interpreter's after a #! line */
static char filename[PATH_MAX];     /* the path execve was given (the name comm takes) */
static struct exec_args args;       /* the strings of the execve being served */
/* execveat: the program's file, found from its dirfd before find_image (NULL: walk path) */
static struct inode *exec_first;

/* Rewrite argv for the script's #! line in hdr (the file's first BINPRM_BUF bytes, zero
 * past its end): [interpreter, (argument,) script path, argv[1], ...]; path becomes the
 * interpreter's.  As Linux: the line ends at a newline or at the buffer's last byte, the
 * name at a blank or NUL, the one argument (blanks inside kept) at the end or a NUL.
 * 0 or -ENOEXEC / -E2BIG. */
static int script_rewrite(char *hdr)
{
    char *end = memchr(hdr, '\n', BINPRM_BUF);
    char *buf_end = hdr + BINPRM_BUF - 1;
    if (!end) {
        /* No newline in the first 256 bytes: the interpreter's name must end before the
         * buffer does (the argument may be cut short, never the name). */
        char *s = hdr + 2;
        while (s < buf_end && (*s == ' ' || *s == '\t'))
            s++;
        while (s < buf_end && *s != ' ' && *s != '\t' && *s != 0)
            s++;
        if (s == buf_end)
            return -ENOEXEC;
        end = buf_end;
    }
    while (end > hdr + 2 && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    char *name = hdr + 2;
    while (name < end && (*name == ' ' || *name == '\t'))
        name++;
    if (name == end || *name == 0)
        return -ENOEXEC;                    /* no interpreter */
    char *sep = name;
    while (sep < end && *sep != ' ' && *sep != '\t' && *sep != 0)
        sep++;
    char *arg = NULL, *arg_end = end;
    if (sep < end && *sep != 0) {
        arg = sep;
        while (arg < end && (*arg == ' ' || *arg == '\t'))
            arg++;
        if (arg == end)
            arg = NULL;
        else if (memchr(arg, 0, (size_t)(end - arg)))
            arg_end = memchr(arg, 0, (size_t)(end - arg));
    }
    /* As binfmt_script: argv[0] goes; the script's path, the argument and the interpreter
     * come in its place (pushed downwards: the interpreter ends up first). */
    if ((size_t)(sep - name) >= sizeof path)
        return -ENAMETOOLONG;
    exec_args_pop(&args);
    args.argc--;
    int e = exec_args_push(&args, path, strlen(path));
    if (!e && arg)
        e = exec_args_push(&args, arg, (size_t)(arg_end - arg));
    if (!e)
        e = exec_args_push(&args, name, (size_t)(sep - name));
    if (e)
        return e;
    args.argc += arg ? 3 : 2;
    memmove(path, name, (size_t)(sep - name));
    path[sep - name] = 0;
    return 0;
}

/* Linux's open_exec: a regular file with an execute bit, on a mount that allows it. */
static int may_exec(struct thread *t, struct inode *i)
{
    if (S_ISDIR(i->mode) || !S_ISREG(i->mode) || (i->sb->flags & MS_NOEXEC))
        return -EACCES;
    return inode_permission(t, i, MAY_EXEC);
}

/* The program behind path, through scripts (t NULL: one lx starts, from /; tree: look in
 * the tree first, else only the data modules).  *file: the file of the tree (read through
 * its page provider), or NULL and the data module's *image and *size.  path and argv may
 * be rewritten. */
static int find_image(struct thread *t, bool tree, const void **image, l4_word_t *size,
                      struct inode **file)
{
    for (int rewrites = 0;;) {
        char hdr[BINPRM_BUF];
        size_t n;
        int e = -ENOENT;
        struct inode *i = exec_first ? exec_first : tree ? path_walk(t, NULL, path, true, &e)
                                                         : NULL;
        exec_first = NULL;
        if (i) {
            if ((e = may_exec(t, i)))
                return e;
            long r = vfs_kernel_read(i, hdr, sizeof hdr, 0);
            if (r < 0)
                return (int)r;
            n = (size_t)r;
            *image = NULL;
            *size = i->size;
        } else {
            if (e != -ENOENT)
                return e;
            /* Not in the tree: a data module of that name, if there is one. */
            e = exec_image_lookup(path, image, size);
            if (e)
                return e;
            n = *size < sizeof hdr ? *size : sizeof hdr;
            memcpy(hdr, *image, n);
        }
        if (n >= 2 && hdr[0] == '#' && hdr[1] == '!') {
            if (++rewrites > MAX_REWRITES)
                return -ELOOP;
            memset(hdr + n, 0, sizeof hdr - n);
            e = script_rewrite(hdr);
            if (e)
                return e;
            tree = true;            /* an interpreter is a file of the tree */
            continue;
        }
        *file = i;
        return 0;
    }
}

/* The program into a fresh memory model *mmp: 0 or -errno (ENOEXEC, E2BIG, ENOMEM, the
 * interpreter's ENOENT or EACCES), nothing of it left behind. */
static int load_image(struct mm **mmp, const void *image, l4_word_t size, struct inode *file,
                      l4_word_t *entry, l4_word_t *sp)
{
    struct mm *mm = mm_new();
    if (!mm)
        return -ENOMEM;
    int e = file ? elf_load_file(mm, file, &args, entry, sp)
                 : elf_load(mm, image, size, &args, entry, sp);
    if (e) {
        mm_put(mm, false);          /* nothing of it was ever mapped */
        return e;                   /* a missing interpreter is ENOENT, as Linux says */
    }
    *mmp = mm;
    return 0;
}

/* Linux's count(): the strings of the NULL-terminated vector at user address uvec (none if
 * it is 0), read a page of pointers at a time; -EFAULT, or -E2BIG past MAX_ARG_STRINGS. */
static long count_vector(struct mm *mm, l4_word_t uvec)
{
    long n = 0;
    if (!uvec)
        return 0;
    for (;;) {
        l4_word_t at = uvec + (l4_word_t)n * sizeof(l4_word_t), ptrs[64];
        size_t k = (LX_PAGE - (at & ~LX_PAGE_MASK)) / sizeof ptrs[0];
        if (k == 0 || k > 64)
            k = (at & 7) ? 1 : 64;          /* a misaligned vector: a pointer at a time */
        if (copy_from_user(mm, ptrs, at, k * sizeof ptrs[0]))
            return -EFAULT;
        for (size_t i = 0; i < k; i++, n++) {
            if (!ptrs[i])
                return n;
            if (n == MAX_ARG_STRINGS)
                return -E2BIG;
        }
    }
}

/* Linux's copy_strings: the n strings of the vector at uvec, from the last to the first. */
static int push_vector(struct mm *mm, l4_word_t uvec, long n)
{
    while (n-- > 0) {
        l4_word_t s;
        if (copy_from_user(mm, &s, uvec + (l4_word_t)n * sizeof s, sizeof s))
            return -EFAULT;
        int e = exec_args_push_user(&args, mm, s);
        if (e)
            return e;
    }
    return 0;
}

/* The strings of an execve in Linux's order and with its limits: the counts, the limit for
 * them under RLIMIT_STACK, the path (AT_EXECFN's string), the environment, the arguments;
 * an empty argv gets "" (Linux 5.18 on). */
static int copy_args(struct thread *t, const struct sysargs *a, size_t pathlen)
{
    long argc = count_vector(t->mm, a->a[1]);
    if (argc < 0)
        return (int)argc;
    long envc = count_vector(t->mm, a->a[2]);
    if (envc < 0)
        return (int)envc;
    int e = exec_args_begin(&args, t->proc->rlim[RLIMIT_STACK].cur, argc, envc);
    if (!e)
        e = exec_args_push(&args, path, pathlen);
    args.exec = args.p;
    if (!e)
        e = push_vector(t->mm, a->a[2], envc);
    if (!e)
        e = push_vector(t->mm, a->a[1], argc);
    if (!e && argc == 0) {
        e = exec_args_push(&args, "", 0);
        args.argc = 1;
    }
    return e;
}

/* The execing thread t takes the leader's place (the others have ended): its tid becomes
 * the pid, its old tid goes, and it is first in the list, as Linux's de_thread. */
static void exec_take_leader(struct thread *t)
{
    struct process *p = t->proc;
    struct thread *leader = list_first(&p->threads, struct thread, proc_link);
    if (leader != t) {              /* the ended leader (a zombie thread): gone now */
        cpu_thread_gone(leader);
        list_del(&leader->proc_link);
        p->pid->thread = NULL;
        pid_put(p->pid);            /* the leader thread's reference */
        thread_free(leader);        /* it held nothing: no message of it is being served */
    }
    if (t->tid != p->pid) {
        t->tid->thread = NULL;
        pid_put(t->tid);
        t->tid = p->pid;
        pid_get(p->pid);
        p->pid->thread = t;
    }
    list_del(&t->proc_link);
    list_add_head(&p->threads, &t->proc_link);
}


/* execveat's start (Linux's do_open_execat): the file named by dirfd and the path the user
 * gave (in `user`), or NULL with *err. */
static struct inode *open_execat(struct thread *t, int dirfd, const char *user, int flags,
                                 int *err)
{
    if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)) {
        *err = -EINVAL;
        return NULL;
    }
    struct inode *dir = NULL;
    if (dirfd != AT_FDCWD && user[0] != '/') {
        struct file *f = fd_get(t, dirfd);
        if (!f) {
            *err = -EBADF;
            return NULL;
        }
        if (!user[0])
            return f->inode;        /* AT_EMPTY_PATH: fexecve */
        if (!S_ISDIR(f->inode->mode)) {
            *err = -ENOTDIR;
            return NULL;
        }
        dir = f->inode;
    }
    struct inode *i = path_walk(t, dir, user, !(flags & AT_SYMLINK_NOFOLLOW), err);
    if (i && S_ISLNK(i->mode)) {
        *err = -ELOOP;
        return NULL;
    }
    return i;
}

/* execve and execveat: the program at dirfd/upath with the vectors at uargv and uenvp.  As
 * Linux, a path taken from a dirfd is named "/dev/fd/N/PATH" ("/dev/fd/N" for an empty one)
 * for comm, AT_EXECFN and a script's interpreter. */
static long do_execveat(struct thread *t, int dirfd, l4_word_t upath, l4_word_t uargv,
                        l4_word_t uenvp, int flags, bool at)
{
    long n = strncpy_from_user(t->mm, path, upath, sizeof path);
    if (n < 0)
        return n;
    if (!n && !(flags & AT_EMPTY_PATH))
        return -ENOENT;
    bool fdpath = dirfd != AT_FDCWD && path[0] != '/';
    if (fdpath)
        n = snprintf(filename, sizeof filename, n ? "/dev/fd/%d/%s" : "/dev/fd/%d", dirfd, path);
    else
        memcpy(filename, path, (size_t)n + 1);
    if (n >= (long)sizeof filename)
        return -ENAMETOOLONG;
    static char user[PATH_MAX];
    memcpy(user, path, sizeof user);
    memcpy(path, filename, (size_t)n + 1);
    struct sysargs va = { .a = { 0, uargv, uenvp } };
    int e = copy_args(t, &va, (size_t)n);
    exec_first = NULL;
    if (!e && at)
        exec_first = open_execat(t, dirfd, user, flags, &e);
    if (e) {
        exec_args_end(&args);
        return e;
    }
    const void *image;
    l4_word_t size;
    struct inode *file;
    e = find_image(t, true, &image, &size, &file);
    /* The ids the program runs with (Linux's bprm creds), committed past the point of no
     * return: a set-user-ID or set-group-ID file's owner, unless the mount is nosuid. */
    struct cred nc = t->proc->cred;
    args.secure = false;
    if (!e)
        cred_exec(&nc, file ? file->mode : 0, file ? file->uid : 0, file ? file->gid : 0,
                  !file || (file->sb->flags & MS_NOSUID), t->trace && !t->trace->privileged,
                  &args.secure);
    args.cred = &nc;
    args.walker = t;
    l4_word_t entry, sp;
    struct mm *nm;
    if (!e)
        e = load_image(&nm, image, size, file, &entry, &sp);
    exec_args_end(&args);           /* on the new stack now, or the execve failed */
    if (e)
        return e;
    /* The point of no return.  The other threads end (Linux's de_thread) and the caller
     * takes the leader's place and id; the old image goes (its pages out of the space
     * first), or, when another process shares it (a vfork child), the caller's space goes
     * with its mappings of the parent's pages and a new one starts the image. */
    struct process *p = t->proc;
    thread_kill_others(t);
    exec_take_leader(t);
    bool shared = t->mm->users > 1;
    ipc_exit_begin(p);              /* shm attachments go with the old image */
    if (shared) {
        process_drop_task(p);
        mm_put(t->mm, false);
    } else {
        mm_put(t->mm, true);
    }
    ipc_exit_end();
    t->mm = nm;
    set_exe(t->proc, path, file);   /* no path if memory is short */
    t->proc->cred = nc;             /* the same groups: no reference changes hands */
    t->proc->execed = true;
    t->proc->membarrier = 0;        /* registrations are the old memory's */
    /* As Linux: the name execve was given (a link's); from a dirfd, the file's own name. */
    if (fdpath && file && vfs_path_of(file, filename, sizeof filename) < 0)
        strcpy(filename, path);
    thread_set_comm(t, filename);
    vfs_task_exec(t);               /* close-on-exec */
    l4chan_process_leave(t->proc);  /* the new program has no channel */
    signal_exec(t);                 /* handlers back to default (ignored stay ignored) */
    posix_timers_exec(t->proc);     /* timer_create's timers are deleted */
    t->clear_child_tid = 0;
    fork_vfork_done(t);             /* a vfork parent goes on (uses the MRs) */
    l4_word_t regs[L4_FREG_WORDS] = { 0 };
    regs[L4_FREG_RIP - 1] = entry;
    regs[L4_FREG_RSP - 1] = sp;
    /* A traced thread: SIGTRAP, or a stop before its first instruction (task/ptrace.c). */
    if (t->trace && ptrace_exec(t, shared ? NULL : regs))
        return LX_NOREPLY;
    if (shared) {
        int e2 = process_start_task(p, entry, sp);
        if (e2) {
            process_exit(p, exit_status_killed(SIGKILL));     /* Linux: past the point of no
                                                                 * return, a fatal signal */
        }
        return LX_NOREPLY;
    }
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_SET_REGS, L4_FREG_WORDS, 0));
    for (unsigned i = 1; i <= L4_FREG_WORDS; i++)
        l4_set_mr(i, 0);
    l4_set_mr(L4_FREG_RIP, entry);
    l4_set_mr(L4_FREG_RSP, sp);
    return LX_REPLIED;
}

long sys_execve(struct thread *t, const struct sysargs *a)
{
    return do_execveat(t, AT_FDCWD, a->a[0], a->a[1], a->a[2], 0, false);
}

long sys_execveat(struct thread *t, const struct sysargs *a)
{
    return do_execveat(t, (int)a->a[0], a->a[1], a->a[2], a->a[3], (int)a->a[4], true);
}

struct process *exec_spawn(const char *prog, int argc, char *const argv[],
                           char *const env[], int *err)
{
    size_t n = strlen(prog);
    if (n >= sizeof path) {
        *err = -ENAMETOOLONG;
        return NULL;
    }
    memcpy(path, prog, n + 1);
    memcpy(filename, prog, n + 1);
    long envc = 0;
    while (env[envc])
        envc++;
    /* init's RLIMIT_STACK (process_rlimit_defaults): 8 MiB. */
    *err = exec_args_begin(&args, 8ul << 20, argc, envc);
    if (!*err)
        *err = exec_args_push(&args, prog, n);
    args.exec = args.p;
    args.cred = NULL;               /* root's */
    args.walker = NULL;
    args.secure = false;
    for (long i = envc; !*err && i-- > 0;)
        *err = exec_args_push(&args, env[i], strlen(env[i]));
    for (long i = argc; !*err && i-- > 0;)
        *err = exec_args_push(&args, argv[i], strlen(argv[i]));
    const void *image;
    l4_word_t size, entry, sp;
    struct inode *file;
    struct mm *nm;
    /* A path is a file of the tree; a bare name a data module (the root task's). */
    if (!*err)
        *err = find_image(NULL, prog[0] == '/', &image, &size, &file);
    if (!*err)
        *err = load_image(&nm, image, size, file, &entry, &sp);
    exec_args_end(&args);
    if (*err)
        return NULL;
    struct process *p = process_spawn(nm, entry, sp, filename, err);
    if (p)
        set_exe(p, path, file);
    return p;
}
