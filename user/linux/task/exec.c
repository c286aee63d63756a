/* execve: the process's memory model and registers are replaced by a new image's.  The
 * path, argv and envp are copied into lx (through user copy) and the new memory model is
 * built completely before the old one is dropped, so a failing execve returns to the old
 * image unharmed.  The reply is SET_REGS: RIP at the entry, RSP at the new initial stack,
 * every other register and the FS and GS bases 0 (docs/linux/exec.md).
 *
 * The file: a file of the tree (an initramfs file, run in place), or for programs not in
 * the tree a data module named by the path's last component.  A file that starts with
 * "#!" is a script: its interpreter runs with argv [interpreter, (argument,) script path,
 * argv[1], ...], up to 5 scripts deep (ELOOP beyond), as Linux's binfmt_script.
 * "/proc/self/exe" and "/proc/PID/exe" name the executable of that process, recorded at
 * each exec (task_exe_path, for the /proc file system too). */
#include "task/exec.h"
#include "fs/proc/proc.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "mm/mm.h"
#include "mm/usercopy.h"
#include "signal/signal.h"
#include "syscalls/handlers.h"
#include "task/clone.h"
#include "task/elf.h"
#include "task/process.h"
#include "vfs/vfs.h"
#include <stdio.h>
#include <string.h>

#define DATA_BASE     0x200000000ul     /* data modules mapped here in lx, 256 MiB apart */
#define DATA_SLOT     0x10000000ul
#define MAX_IMAGES    16
#define NAME_MAX_MOD  16                /* a data module's name (root task convention) */
#define ARGS_MAX      4096              /* argv and envp entries each */
#define STRINGS_MAX   (256ul << 10)     /* argv and envp strings together (Linux: 2 MiB) */
#define BINPRM_BUF    256               /* the bytes of a file that decide what it is */
#define ARG_STRLEN    (128ul << 10)     /* one argument string at most (MAX_ARG_STRLEN) */
#define MAX_REWRITES  5                 /* interpreters in a row (Linux: exec_binprm) */

struct image {
    char name[NAME_MAX_MOD + 1];
    const void *base;
    l4_word_t size;
};

static struct image images[MAX_IMAGES];
static unsigned nimages;

int exec_image_lookup(const char *path, const void **image, l4_word_t *size)
{
    const char *name = strrchr(path, '/');
    name = name ? name + 1 : path;
    if (!*name || strlen(name) > NAME_MAX_MOD)
        return -ENOENT;
    for (unsigned i = 0; i < nimages; i++)
        if (!strcmp(images[i].name, name)) {
            *image = images[i].base;
            *size = images[i].size;
            return 0;
        }
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
    *image = im->base;
    *size = n;
    return 0;
}

/* --- the executable of a process ----------------------------------------------------------- */

/* The absolute path of directory d into buf (size bytes): its length, or -1. */
static int dir_path(struct inode *d, char *buf, size_t size)
{
    static char tmp[PATH_MAX];
    size_t pos = sizeof tmp - 1;
    tmp[pos] = 0;
    for (; d != tmpfs_root; d = d->parent) {
        if (!d->parent)
            return -1;              /* removed */
        const struct dentry *de = d->parent->entries;
        while (de && de->inode != d)
            de = de->next;
        if (!de || pos < (size_t)de->len + 1)
            return -1;
        pos -= de->len;
        memcpy(tmp + pos, de->name, de->len);
        tmp[--pos] = '/';
    }
    size_t n = sizeof tmp - 1 - pos;
    if (n + 1 > size)
        return -1;
    memcpy(buf, tmp + pos, n + 1);
    return (int)n;
}

/* path as /proc/PID/exe shows it: absolute, the directories and a final symlink resolved
 * (a kmalloc'd copy); a path that is no file of the tree (a data module) stays as given. */
static char *exe_name(struct thread *t, const char *path)
{
    static char cur[PATH_MAX], out[PATH_MAX];
    const char *result = path;
    struct inode *dir = NULL;
    size_t n = strlen(path);
    if (n >= sizeof cur)
        return NULL;
    memcpy(cur, path, n + 1);
    for (int depth = 0; depth <= LX_SYMLOOP; depth++) {
        char last[NAME_MAX + 1];
        bool trailing;
        int err;
        struct inode *d = path_parent(t, dir, cur, last, &trailing, &err);
        struct inode *i = d ? tmpfs_lookup(d, last, strlen(last)) : NULL;
        if (!i)
            break;
        if (S_ISLNK(i->mode)) {
            if (strlen(i->target) >= sizeof cur)
                break;
            strcpy(cur, i->target);
            dir = d;
            continue;
        }
        int len = dir_path(d, out, sizeof out);
        if (len < 0 || (size_t)len + 2 + strlen(last) > sizeof out)
            break;
        if (len > 1)
            out[len++] = '/';
        strcpy(out + len, last);
        result = out;
        break;
    }
    char *s = kmalloc(strlen(result) + 1);
    if (s)
        strcpy(s, result);
    return s;
}

const char *task_exe_path(const struct process *p)
{
    return p->exe;
}

struct inode *task_exe_inode(const struct process *p)
{
    return p->exe_inode;
}

/* The executable is file (NULL: look path up, from t's cwd; none there: a data module). */
static void set_exe(struct thread *t, const char *path, struct inode *file)
{
    struct process *p = t->proc;
    task_drop_exe(p);
    int err;
    p->exe_inode = file ? file : path_walk(t, NULL, path, true, &err);
    if (p->exe_inode)
        inode_get(p->exe_inode);    /* runs even when renamed or unlinked, as in Linux */
    p->exe = exe_name(t, path);
}

void task_set_exe(struct thread *t, const char *path)
{
    set_exe(t, path, NULL);
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

static char path[PATH_MAX];
static char strings[STRINGS_MAX];
static size_t used;
static char *argv[ARGS_MAX + 1], *envp[ARGS_MAX + 1];
static int argc;

/* A copy of s[0..n) in strings[]: NULL when there is no room (E2BIG). */
static char *add_string(const char *s, size_t n)
{
    if (n + 1 > STRINGS_MAX - used)
        return NULL;
    char *d = &strings[used];
    memcpy(d, s, n);
    d[n] = 0;
    used += n + 1;
    return d;
}

/* "/proc/self/exe" and "/proc/PID/exe": that process's executable instead, its file
 * itself (*file, even if renamed or unlinked since) or, for a data module, its name (the
 * /proc file system, where it exists, would say the same through its symlink). */
static int proc_exe(struct thread *t, struct inode **file)
{
    const char *s = path;
    if (strncmp(s, "/proc/", 6))
        return 0;
    s += 6;
    struct process *who = NULL;
    if (!strncmp(s, "self/", 5)) {
        who = t->proc;
        s += 5;
    } else {
        int pid = 0;
        if (*s < '1' || *s > '9')
            return 0;
        while (*s >= '0' && *s <= '9' && pid < 1000000)
            pid = pid * 10 + (*s++ - '0');
        if (*s++ != '/')
            return 0;
        who = process_by_pid(pid);
        if (!who || who->state != PROCESS_LIVE)
            return -ENOENT;
    }
    if (strcmp(s, "exe"))
        return 0;
    if (!who || (!who->exe && !who->exe_inode))
        return -ENOENT;
    *file = who->exe_inode;
    if (who->exe)
        strcpy(path, who->exe);     /* both at most PATH_MAX bytes */
    return 0;
}

static char *find_byte(char *s, char c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] == c)
            return s + i;
    return NULL;
}

/* Rewrite argv for the script's #! line in hdr (the file's first BINPRM_BUF bytes, zero
 * past its end): [interpreter, (argument,) script path, argv[1], ...]; path becomes the
 * interpreter's.  As Linux: the line ends at a newline or at the buffer's last byte, the
 * name at a blank or NUL, the one argument (blanks inside kept) at the end or a NUL.
 * 0 or -ENOEXEC / -E2BIG. */
static int script_rewrite(char *hdr)
{
    char *end = find_byte(hdr, '\n', BINPRM_BUF);
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
        else if (find_byte(arg, 0, (size_t)(end - arg)))
            arg_end = find_byte(arg, 0, (size_t)(end - arg));
    }
    int add = arg ? 2 : 1;                  /* argv[0] goes, the script path comes */
    if (argc + add > ARGS_MAX)
        return -E2BIG;
    char *s_name = add_string(name, (size_t)(sep - name));
    char *s_arg = arg ? add_string(arg, (size_t)(arg_end - arg)) : NULL;
    char *s_path = add_string(path, strlen(path));
    if (!s_name || (arg && !s_arg) || !s_path)
        return -E2BIG;
    if (strlen(s_name) >= sizeof path)
        return -ENAMETOOLONG;
    memmove(&argv[add + 1], &argv[1], (size_t)argc * sizeof argv[0]);   /* with the NULL */
    argv[0] = s_name;
    if (arg)
        argv[1] = s_arg;
    argv[add] = s_path;
    argc += add;
    strcpy(path, s_name);
    return 0;
}

/* The image behind path, through scripts and /proc/PID/exe (t NULL: a program lx starts,
 * from /).  path and argv may be rewritten. */
static int find_image(struct thread *t, const void **image, l4_word_t *size,
                      struct inode **file)
{
    for (int rewrites = 0;;) {
        struct inode *i = NULL;
        int e = t ? proc_exe(t, &i) : 0;
        if (e)
            return e;
        char hdr[BINPRM_BUF];
        size_t n;
        if (!i)
            i = path_walk(t, NULL, path, true, &e);
        if (i) {
            if (S_ISDIR(i->mode) || !S_ISREG(i->mode) || !(i->mode & 0111))
                return -EACCES;
            n = (size_t)tmpfs_read(i, hdr, sizeof hdr, 0);
            *image = i->ro;
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
            continue;
        }
        *file = i;              /* a written file: *image NULL, loaded from its pages */
        return 0;
    }
}

/* A NULL-terminated vector of strings at user address uvec into vec (NULL-terminated),
 * the strings into strings[]: the count or -EFAULT / -E2BIG. */
static int copy_vector(struct mm *mm, l4_word_t uvec, char **vec)
{
    int n = 0;
    for (; uvec; n++) {
        l4_word_t p;
        if (copy_from_user(mm, &p, uvec + (l4_word_t)n * sizeof p, sizeof p))
            return -EFAULT;
        if (!p)
            break;
        if (n == ARGS_MAX)
            return -E2BIG;
        size_t room = STRINGS_MAX - used < ARG_STRLEN ? STRINGS_MAX - used : ARG_STRLEN;
        long len = strncpy_from_user(mm, &strings[used], p, room);
        if (len == -ENAMETOOLONG)
            return -E2BIG;
        if (len < 0)
            return (int)len;
        vec[n] = &strings[used];
        used += (size_t)len + 1;
    }
    vec[n] = NULL;
    return n;
}

long sys_execve(struct thread *t, const struct sysargs *a)
{
    long n = strncpy_from_user(t->mm, path, a->a[0], sizeof path);
    if (n < 0)
        return n;
    used = 0;
    argc = copy_vector(t->mm, a->a[1], argv);
    if (argc < 0)
        return argc;
    int envc = copy_vector(t->mm, a->a[2], envp);
    if (envc < 0)
        return envc;
    if (argc == 0) {                /* Linux (5.18 on) runs it with argv { "", NULL } */
        argv[0] = add_string("", 0);
        argv[1] = NULL;
        argc = 1;
        if (!argv[0])
            return -E2BIG;
    }
    const char *execfn = add_string(path, (size_t)n);   /* AT_EXECFN: what was asked for */
    if (!execfn)
        return -E2BIG;
    const void *image;
    l4_word_t size;
    struct inode *file;
    int e = find_image(t, &image, &size, &file);
    if (e)
        return e;
    l4_word_t entry, sp;
    struct mm *nm = mm_new();
    if (!nm)
        return -ENOMEM;
    if (image)
        e = elf_load(nm, image, size, execfn, argc, argv, envp, &entry, &sp);
    else
        e = elf_load_file(nm, file, execfn, argc, argv, envp, &entry, &sp);
    if (e) {
        mm_put(nm, false);          /* nothing of it was ever mapped */
        return e == -ENOEXEC || e == -E2BIG ? e : -ENOMEM;
    }
    /* The point of no return: the old image goes (its pages out of the space first). */
    mm_put(t->mm, true);
    t->mm = nm;
    set_exe(t, path, file);         /* no path if memory is short */
    t->proc->execed = true;
    thread_set_comm(t, execfn);     /* as Linux: the name execve was given (a link's) */
    vfs_task_exec(t);               /* close-on-exec */
    process_set_cmdline(t->proc, argc, argv);   /* /proc/N/cmdline */
    signal_exec(t);                 /* handlers back to default (ignored stay ignored) */
    t->clear_child_tid = 0;
    fork_vfork_done(t->proc);       /* a vfork parent goes on (uses the MRs) */
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_SET_REGS, L4_FREG_WORDS, 0));
    for (unsigned i = 1; i <= L4_FREG_WORDS; i++)
        l4_set_mr(i, 0);
    l4_set_mr(L4_FREG_RIP, entry);
    l4_set_mr(L4_FREG_RSP, sp);
    return LX_REPLIED;
}

struct process *exec_spawn(const char *prog, int nargs, char *const args[],
                           char *const env[], int *err)
{
    used = 0;
    size_t n = strlen(prog);
    if (n >= sizeof path) {
        *err = -ENAMETOOLONG;
        return NULL;
    }
    memcpy(path, prog, n + 1);
    const char *execfn = add_string(prog, n);
    argc = 0;
    for (int i = 0; i < nargs && i < ARGS_MAX; i++)
        argv[argc++] = args[i];
    argv[argc] = NULL;
    int envc = 0;
    for (; env[envc] && envc < ARGS_MAX; envc++)
        envp[envc] = env[envc];
    envp[envc] = NULL;
    const void *image;
    l4_word_t size;
    struct inode *file;
    *err = find_image(NULL, &image, &size, &file);
    if (!*err && !image)
        *err = -ENOEXEC;            /* a written file: only through execve */
    if (*err)
        return NULL;
    struct process *p = process_spawn(image, size, execfn, argc, argv, envp, err);
    if (!p)
        return NULL;
    set_exe(process_thread(p), path, file);
    return p;
}
