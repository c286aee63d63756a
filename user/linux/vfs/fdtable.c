/* The fd table of a process: chunks of 448 fds (a page each: the open files, a
 * close-on-exec bit per fd, a count) in a radix tree, so a table grows with the fds used, up
 * to RLIMIT_NOFILE (soft 1024, hard 1048576 as Linux's defaults; fs.nr_open 1048576 is the
 * ceiling).  The lowest free fd is found from a hint (Linux's next_fd) and each chunk's count,
 * so opening many fds in a row costs O(1) each.  Shared by CLONE_FILES, counted; the working
 * directory and umask (struct fs_struct) likewise by CLONE_FS.  POSIX record locks belong to
 * the table (their owner, as Linux's files_struct): closing any fd of a file drops them. */
#include "vfs/file.h"
#include "fs/proc/sysctl.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "lib/radix.h"
#include "mm/page.h"
#include "task/process.h"
#include "vfs/lock.h"
#include <string.h>

#define CHUNK 448                   /* fds per chunk: 448 pointers and 7 bitmap words fit a page */

struct fd_chunk {
    struct file *f[CHUNK];
    uint64_t cloexec[CHUNK / 64];
    unsigned used;
};
_Static_assert(sizeof(struct fd_chunk) <= LX_PAGE, "a chunk is a page");

struct fdtable {
    unsigned refs;                  /* processes that share it (CLONE_FILES) */
    struct radix chunks;            /* fd / CHUNK -> struct fd_chunk */
    unsigned long next_fd;          /* no free fd below it */
    unsigned long max_fds;          /* the size Linux's table would have (select, FDSize) */
};

#define NR_OPEN_DEFAULT 64

unsigned sysctl_nr_open = 1u << 20;
/* fs.file-max: Linux's default for this much memory (a tenth of it in KiB, at least 8192);
 * lx counts no open files against it. */
static unsigned long files_max;

static void show_file_max(struct out *o, const struct sysctl *s)
{
    if (!files_max) {               /* the pool is there by the first read */
        unsigned long n = page_total() * (LX_PAGE / 1024) / 10;
        files_max = n > 8192 ? n : 8192;
    }
    sysctl_show_long(o, s);
}

static struct sysctl fd_sysctls[] = {
    { .path = "fs/nr_open", .mode = 0644, .show = sysctl_show_int, .store = sysctl_store_int,
      .data = &sysctl_nr_open, .min = 64, .max = 2147483584 },
    { .path = "fs/file-max", .mode = 0644, .show = show_file_max,
      .store = sysctl_store_long, .data = &files_max, .min = 0, .max = 0x7FFFFFFFFFFFFFFF },
};
SYSCTL_TABLE(fd_sysctls)

/* Linux's alloc_fdtable: room for fd, in multiples of 128 rounded to a power of two. */
static unsigned long linux_size(unsigned long fd)
{
    unsigned long nr = fd / 128 + 1, p = 1;
    while (p < nr)
        p <<= 1;
    return p * 128 > LX_NR_OPEN ? LX_NR_OPEN : p * 128;
}

static struct fd_chunk *chunk_of(struct fdtable *ft, unsigned long fd, bool create)
{
    void **slot = radix_slot(&ft->chunks, fd / CHUNK, create);
    if (!slot)
        return NULL;
    if (!*slot && create && !(*slot = page_alloc()))
        return NULL;
    return *slot;
}

unsigned long fd_limit(struct thread *t)
{
    uint64_t lim = t->proc->rlim[RLIMIT_NOFILE].cur;
    return lim > LX_NR_OPEN ? LX_NR_OPEN : (unsigned long)lim;
}

struct file *fd_get(struct thread *t, long fd)
{
    if (fd < 0 || !t->files)
        return NULL;
    struct fd_chunk *c = chunk_of(t->files, (unsigned long)fd, false);
    return c ? c->f[fd % CHUNK] : NULL;
}

bool fd_cloexec(struct thread *t, unsigned fd)
{
    struct fd_chunk *c = chunk_of(t->files, fd, false);
    return c && (c->cloexec[fd % CHUNK / 64] >> (fd % CHUNK % 64) & 1);
}

void fd_set_cloexec(struct thread *t, unsigned fd, bool on)
{
    struct fd_chunk *c = chunk_of(t->files, fd, false);
    if (!c)
        return;
    uint64_t bit = 1ull << (fd % CHUNK % 64);
    if (on)
        c->cloexec[fd % CHUNK / 64] |= bit;
    else
        c->cloexec[fd % CHUNK / 64] &= ~bit;
}

static void set(struct fdtable *ft, struct fd_chunk *c, unsigned long fd, struct file *f)
{
    if (f && fd >= ft->max_fds)
        ft->max_fds = linux_size(fd);
    if (!c->f[fd % CHUNK] && f)
        c->used++;
    else if (c->f[fd % CHUNK] && !f)
        c->used--;
    c->f[fd % CHUNK] = f;
    if (!f && fd < ft->next_fd)
        ft->next_fd = fd;
}

/* The lowest free fd >= from: its chunk (made if need be) in *chunk, or -EMFILE/-ENOMEM. */
static long lowest_free(struct thread *t, unsigned from, struct fd_chunk **chunk)
{
    struct fdtable *ft = t->files;
    unsigned long limit = fd_limit(t);
    unsigned long fd = from > ft->next_fd ? from : ft->next_fd;
    while (fd < limit) {
        struct fd_chunk *c = chunk_of(ft, fd, true);
        if (!c)
            return -ENOMEM;
        unsigned long end = (fd / CHUNK + 1) * CHUNK;
        for (; c->used < CHUNK && fd < end && fd < limit; fd++)
            if (!c->f[fd % CHUNK]) {
                *chunk = c;
                return (long)fd;
            }
        fd = end;                   /* full: the next chunk */
    }
    return -EMFILE;
}

int fd_unused(struct thread *t, unsigned from)
{
    struct fd_chunk *c;
    return (int)lowest_free(t, from, &c);
}

int fd_install(struct thread *t, struct file *f, unsigned from, bool cloexec)
{
    struct fd_chunk *c;
    long fd = lowest_free(t, from, &c);
    if (fd < 0)
        return (int)fd;
    set(t->files, c, (unsigned long)fd, f);
    fd_set_cloexec(t, (unsigned)fd, cloexec);
    if (from <= t->files->next_fd)
        t->files->next_fd = (unsigned long)fd + 1;   /* everything below is taken */
    return (int)fd;
}

int fd_install_new(struct thread *t, struct file *f, bool cloexec)
{
    int fd = fd_install(t, f, 0, cloexec);
    if (fd < 0)
        file_put(f);
    return fd;
}

int fd_install_at(struct thread *t, struct file *f, unsigned fd, bool cloexec)
{
    if (fd >= fd_limit(t))
        return -EBADF;
    struct fd_chunk *c = chunk_of(t->files, fd, true);
    if (!c)
        return -ENOMEM;
    struct file *old = c->f[fd % CHUNK];
    set(t->files, c, fd, f);
    fd_set_cloexec(t, fd, cloexec);
    if (old) {
        locks_remove_posix(old, t->files);
        file_put(old);
    }
    return (int)fd;
}

int fd_close(struct thread *t, long fd)
{
    struct file *f = fd_get(t, fd);
    if (!f)
        return -EBADF;
    struct fd_chunk *c = chunk_of(t->files, (unsigned long)fd, false);
    set(t->files, c, (unsigned long)fd, NULL);
    fd_set_cloexec(t, (unsigned)fd, false);
    locks_remove_posix(f, t->files);    /* POSIX: any close drops the process's locks */
    file_put(f);
    return 0;
}

struct next_ctx {
    unsigned long from, found;
};

static bool find_open(void **slot, unsigned long index, void *p)
{
    struct next_ctx *n = p;
    struct fd_chunk *c = *slot;
    for (unsigned long k = index * CHUNK < n->from ? n->from - index * CHUNK : 0; k < CHUNK; k++)
        if (c->f[k]) {
            n->found = index * CHUNK + k;
            return false;
        }
    return true;
}

long fd_next(struct thread *t, unsigned long from)
{
    if (!t->files)
        return -1;
    struct next_ctx n = { from, ~0ul };
    radix_each(&t->files->chunks, from / CHUNK, find_open, &n);
    return n.found == ~0ul ? -1 : (long)n.found;
}

unsigned long fd_table_size(struct thread *t)
{
    return !t->files ? 0 : t->files->max_fds > NR_OPEN_DEFAULT ? t->files->max_fds
                                                              : NR_OPEN_DEFAULT;
}

/* --- the process hooks ---------------------------------------------------------------------- */

bool vfs_task_init(struct thread *t)
{
    int err;
    t->files = kmalloc(sizeof *t->files);
    t->fs = kmalloc(sizeof *t->fs);
    struct file *con = file_open(NULL, console_inode(), O_RDWR | O_LARGEFILE, NULL, &err);
    if (!t->files || !t->fs || !con || !root_sb) {
        if (con)
            file_put(con);
        kfree(t->files), kfree(t->fs);
        t->files = NULL, t->fs = NULL;
        return false;
    }
    t->files->refs = 1;
    t->fs->refs = 1;
    t->fs->umask = 022;
    t->fs->cwd = root_sb->root;
    inode_get(t->fs->cwd);
    for (unsigned fd = 0; fd < 3; fd++) {
        if (fd)
            file_get(con);
        if (fd_install(t, con, fd, false) < 0) {
            file_put(con);
            vfs_task_exit(t);
            return false;
        }
    }
    return true;
}

static struct fdtable *closing;     /* put_chunk's table */

static void put_chunk(void *item)
{
    struct fd_chunk *c = item;
    for (unsigned k = 0, seen = 0; seen < c->used; k++)
        if (c->f[k]) {
            locks_remove_posix(c->f[k], closing);
            file_put(c->f[k]);
            seen++;
        }
    page_free(c);
}

void vfs_task_exit(struct thread *t)
{
    if (t->files && --t->files->refs == 0) {
        closing = t->files;
        radix_destroy(&t->files->chunks, put_chunk);
        kfree(t->files);
    }
    if (t->fs && --t->fs->refs == 0) {
        inode_put(t->fs->cwd);
        if (t->fs->root)
            inode_put(t->fs->root);
        kfree(t->fs);
    }
    t->files = NULL;
    t->fs = NULL;
}

struct copy_ctx {
    struct fdtable *to;
    long high;                      /* the highest open fd copied */
    bool failed;
};

static bool copy_chunk(void **slot, unsigned long index, void *p)
{
    struct copy_ctx *cc = p;
    struct fd_chunk *src = *slot, *dst = chunk_of(cc->to, index * CHUNK, true);
    if (!dst) {
        cc->failed = true;
        return false;
    }
    memcpy(dst, src, sizeof *dst);
    for (unsigned k = 0, seen = 0; seen < dst->used; k++)
        if (dst->f[k]) {
            file_get(dst->f[k]);
            seen++;
            cc->high = (long)(index * CHUNK + k);
        }
    return true;
}

/* A copy of src holding the same open files (Linux's dup_fd), refs 1; NULL: no memory. */
static struct fdtable *table_copy(struct fdtable *src)
{
    struct fdtable *ft = kmalloc(sizeof *ft);
    if (!ft)
        return NULL;
    ft->refs = 1;
    ft->next_fd = src->next_fd;
    struct copy_ctx cc = { ft, -1, false };
    radix_each(&src->chunks, 0, copy_chunk, &cc);
    /* Linux's dup_fd sizes the copy by the highest open fd. */
    ft->max_fds = cc.high >= NR_OPEN_DEFAULT ? linux_size((unsigned long)cc.high) : 0;
    if (cc.failed) {
        closing = ft;
        radix_destroy(&ft->chunks, put_chunk);
        kfree(ft);
        return NULL;
    }
    return ft;
}

bool fd_unshare(struct thread *t)
{
    if (t->files->refs == 1)
        return true;
    struct fdtable *ft = table_copy(t->files);
    if (!ft)
        return false;
    t->files->refs--;
    t->files = ft;
    return true;
}

bool vfs_task_fork(struct thread *child, struct thread *parent, bool share_files, bool share_fs)
{
    child->files = parent->files;
    child->fs = parent->fs;
    if (share_files)
        parent->files->refs++;
    else
        child->files = table_copy(parent->files);
    if (share_fs) {
        parent->fs->refs++;
    } else if ((child->fs = kmalloc(sizeof *child->fs))) {
        *child->fs = *parent->fs;
        child->fs->refs = 1;
        inode_get(child->fs->cwd);
        if (child->fs->root)
            inode_get(child->fs->root);
    }
    if (child->files && child->fs)
        return true;
    vfs_task_exit(child);
    return false;
}

static bool close_on_exec(void **slot, unsigned long index, void *p)
{
    struct thread *t = p;
    struct fd_chunk *c = *slot;
    for (unsigned w = 0; w < CHUNK / 64; w++)
        for (uint64_t bits = c->cloexec[w]; bits; bits &= bits - 1)
            fd_close(t, (long)(index * CHUNK + w * 64 + (unsigned)__builtin_ctzll(bits)));
    return true;
}

void vfs_task_exec(struct thread *t)
{
    radix_each(&t->files->chunks, 0, close_on_exec, t);
}
