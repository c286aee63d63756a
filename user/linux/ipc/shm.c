/* System V shared memory (docs/linux/sysvipc.md), with Linux 6.1's ipc/shm.c as the
 * reference.  A segment is an unnamed file of an internal tmpfs (Linux's shm_mnt), and an
 * attachment is a MAP_SHARED mapping of it: the pages are the file's, so every process
 * that attaches (and every child that inherits an attachment through fork) sees the same
 * memory, and exit, exec and munmap detach by dropping their regions.  Each region holds a
 * reference to the file, so shm_nattch is the file's references less the segment's own, as
 * Linux counts its vmas; mm.c tells this file when a region of a segment goes (the hook
 * mm_file_unmapped), which is where a segment removed while attached (SHM_DEST) ends. */
#include "ipc/shm.h"
#include "ipc/util.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "mm/mm.h"
#include "mm/usercopy.h"
#include "task/process.h"
#include "vfs/vfs.h"
#include <stdio.h>

#define SHM_STAT     13
#define SHM_INFO     14
#define SHM_STAT_ANY 15
#define SHM_LOCK     11
#define SHM_UNLOCK   12

#define SHM_DEST    01000
#define SHM_LOCKED  02000
#define SHM_HUGETLB 04000
#define SHM_HUGE_SHIFT 26
#define SHM_HUGE_MASK  0x3f

#define SHM_RDONLY  010000
#define SHM_RND     020000
#define SHM_REMAP   040000
#define SHM_EXEC    0100000

#define SHMMIN 1
#define SHMLBA LX_PAGE

struct shmid_kernel {
    struct ipc_perm_k perm;         /* first */
    l4_word_t segsz;
    int64_t atime, dtime, ctime;
    int cpid, lpid;
    struct inode *file;             /* the segment's pages (a reference) */
    int name_key;                   /* the key it was made with: its file's name */
};

static struct super_block *shm_sb;  /* the internal tmpfs of every segment */
static unsigned long shm_tot;       /* pages of all segments */
static int closing_pid;

static inline struct shmid_kernel *shm_of(struct ipc_perm_k *p)
{
    return (struct shmid_kernel *)p;
}

static unsigned long nattch(const struct shmid_kernel *shp)
{
    return shp->file->refs - 1;
}

static void shm_destroy(struct shmid_kernel *shp)
{
    shm_tot -= (shp->segsz + LX_PAGE - 1) / LX_PAGE;
    ipc_remove(&shm_ids, &shp->perm);
    inode_put(shp->file);
    kfree(shp);
}

/* mm.c: a region of file i goes (munmap, shmdt, exit, exec); i's last reference is not
 * this call's to drop (the region's put follows). */
static void region_gone(struct inode *i)
{
    if (i->sb != shm_sb)
        return;
    struct ipc_perm_k *ip = ipc_obtain_idx(&shm_ids, (int)i->ino);
    if (!ip || shm_of(ip)->file != i)
        return;
    struct shmid_kernel *shp = shm_of(ip);
    shp->dtime = ipc_seconds();
    if (closing_pid)
        shp->lpid = closing_pid;
    if ((shp->perm.mode & SHM_DEST) && i->refs == 2)
        shm_destroy(shp);
}

void shm_closing(int pid)
{
    closing_pid = pid;
}

/* --- shmget ---------------------------------------------------------------------------------- */

static int newseg(struct thread *t, int key, unsigned flag, void *arg)
{
    l4_word_t size = *(l4_word_t *)arg;
    l4_word_t numpages = (size + LX_PAGE - 1) / LX_PAGE;
    if (size < SHMMIN || size > ipc_lim.shmmax)
        return -EINVAL;
    if (numpages * LX_PAGE < size)
        return -ENOSPC;
    if (shm_tot + numpages < shm_tot || shm_tot + numpages > ipc_lim.shmall)
        return -ENOSPC;
    if (flag & SHM_HUGETLB) {
        /* no huge pages are reserved: a known size cannot be had, another is unknown */
        unsigned log = (flag >> SHM_HUGE_SHIFT) & SHM_HUGE_MASK;
        return !log || log == 21 ? -ENOMEM : -EINVAL;
    }
    if (!shm_sb) {
        if (!(shm_sb = vfs_kern_mount(&tmpfs_type, NULL)))
            return -ENOMEM;
        mm_file_unmapped = region_gone;
    }
    struct shmid_kernel *shp = kmalloc(sizeof *shp);
    if (!shp)
        return -ENOMEM;
    struct inode *file;
    int e = shm_sb->root->iop->tmpfile(t, shm_sb->root, S_IFREG | (flag & S_IRWXUGO), &file);
    if (e) {
        kfree(shp);
        return e;
    }
    inode_get(file);
    struct iattr ia = { .valid = ATTR_SIZE, .size = size };
    if ((e = file->iop->setattr(t, file, &ia))) {
        inode_put(file);
        kfree(shp);
        return e;
    }
    shp->file = file;
    shp->segsz = size;
    shp->cpid = ipc_tgid(t);
    shp->ctime = ipc_seconds();
    if ((e = ipc_add(&shm_ids, &shp->perm, t, key, flag, ipc_lim.shmmni))) {
        inode_put(file);
        kfree(shp);
        return e;
    }
    shp->name_key = key;
    file->ino = (unsigned long)shp->perm.id;    /* as Linux: maps shows the id as inode */
    shm_tot += numpages;
    return shp->perm.id;
}

static int shm_more_checks(struct ipc_perm_k *p, void *arg)
{
    return shm_of(p)->segsz < *(l4_word_t *)arg ? -EINVAL : 0;
}

long shm_shmget(struct thread *t, int key, l4_word_t size, unsigned flag)
{
    return ipc_get(t, &shm_ids, key, flag, shm_more_checks, newseg, &size);
}

/* --- shmat, shmdt ---------------------------------------------------------------------------- */

long shm_shmat(struct thread *t, int shmid, l4_word_t addr, unsigned flag)
{
    struct mm *mm = t->mm;
    if (shmid < 0)
        return -EINVAL;
    if (addr) {
        if (addr & (SHMLBA - 1)) {
            if (!(flag & SHM_RND))
                return -EINVAL;
            addr &= ~(SHMLBA - 1);
            if (!addr && (flag & SHM_REMAP))
                return -EINVAL;
        }
    } else if (flag & SHM_REMAP) {
        return -EINVAL;
    }
    unsigned prot = PROT_READ, acc = 0444;
    if (!(flag & SHM_RDONLY)) {
        prot |= PROT_WRITE;
        acc |= 0222;
    }
    if (flag & SHM_EXEC) {
        prot |= PROT_EXEC;
        acc |= 0111;
    }
    struct ipc_perm_k *ip = ipc_obtain_check(&shm_ids, shmid);
    if (!ip)
        return -EINVAL;
    if (ipc_perms(t, ip, acc))
        return -EACCES;
    struct shmid_kernel *shp = shm_of(ip);
    l4_word_t len = (shp->segsz + LX_PAGE - 1) & LX_PAGE_MASK;
    if (addr) {
        if (addr + len < addr)
            return -EINVAL;
        if (!(flag & SHM_REMAP) && !mm_range_free(mm, addr, addr + len))
            return -EINVAL;
        if (addr > LX_USER_END - len)
            return -ENOMEM;
        if (addr < LX_MMAP_MIN)
            return -EPERM;
    } else if (!(addr = mm_find_gap(mm, len))) {
        return -ENOMEM;
    }
    if (mm->nregions > LX_MAX_MAP_COUNT)
        return -ENOMEM;
    struct region r = { .start = addr, .end = addr + len, .prot = prot, .shared = true,
                        .file = shp->file, .fstart = addr, .fend = MM_FILE_END,
                        .bus_past_eof = true, .no_write = (flag & SHM_RDONLY) != 0 };
    int e = mm_map_region(mm, &r);
    if (e)
        return e;
    shp->atime = ipc_seconds();
    shp->lpid = ipc_tgid(t);
    return (long)addr;
}

static bool is_attach(const struct region *r, l4_word_t addr)
{
    return r->file && r->file->sb == shm_sb && shm_sb &&
           (r->start - addr) / LX_PAGE == (r->foff + (r->start - r->fstart)) / LX_PAGE;
}

long shm_shmdt(struct thread *t, l4_word_t addr)
{
    struct mm *mm = t->mm;
    if (addr & ~LX_PAGE_MASK)
        return -EINVAL;
    closing_pid = ipc_tgid(t);
    struct region *r = vma_from(&mm->regions, addr);
    struct inode *file = NULL;
    l4_word_t size = 0;
    for (; r; r = vma_next(r))
        if (is_attach(r, addr)) {
            file = r->file;
            size = file->size;
            l4_word_t next = r->end;
            mm_unmap(mm, r->start, r->end);
            r = vma_from(&mm->regions, next);
            break;
        }
    if (!file) {
        closing_pid = 0;
        return -EINVAL;
    }
    size = (size + LX_PAGE - 1) & LX_PAGE_MASK;
    while (r && r->end - addr <= size) {
        l4_word_t next = r->end;
        if (is_attach(r, addr) && r->file == file)
            mm_unmap(mm, r->start, r->end);
        r = vma_from(&mm->regions, next);
    }
    closing_pid = 0;
    return 0;
}

/* --- shmctl ---------------------------------------------------------------------------------- */

struct shmid64_ds {
    struct ipc64_perm shm_perm;
    unsigned long shm_segsz;
    long shm_atime, shm_dtime, shm_ctime;
    int shm_cpid, shm_lpid;
    unsigned long shm_nattch, unused4, unused5;
};
_Static_assert(sizeof(struct shmid64_ds) == 112, "shmid64_ds");

struct shminfo64 {
    unsigned long shmmax, shmmin, shmmni, shmseg, shmall, unused1, unused2, unused3, unused4;
};

struct shm_info {
    int used_ids;
    unsigned long shm_tot, shm_rss, shm_swp, swap_attempts, swap_successes;
};

static void add_rss(struct ipc_perm_k *p, void *ctx)
{
    struct kstat st = { 0 };
    vfs_getattr(shm_of(p)->file, &st);
    *(unsigned long *)ctx += st.blocks / (LX_PAGE / 512);
}

long shm_shmctl(struct thread *t, int shmid, int cmd, l4_word_t ubuf)
{
    if (cmd < 0 || shmid < 0)
        return -EINVAL;
    switch (cmd) {
    case IPC_INFO: {
        struct shminfo64 si = { .shmmni = (unsigned long)ipc_lim.shmmni,
                                .shmseg = (unsigned long)ipc_lim.shmmni,
                                .shmmax = ipc_lim.shmmax, .shmall = ipc_lim.shmall,
                                .shmmin = SHMMIN };
        int max = ipc_max_idx(&shm_ids);
        if (copy_to_user(t->mm, ubuf, &si, sizeof si))
            return -EFAULT;
        return max < 0 ? 0 : max;
    }
    case SHM_INFO: {
        struct shm_info si = { .used_ids = shm_ids.in_use, .shm_tot = shm_tot };
        ipc_each(&shm_ids, add_rss, &si.shm_rss);
        int max = ipc_max_idx(&shm_ids);
        if (copy_to_user(t->mm, ubuf, &si, sizeof si))
            return -EFAULT;
        return max < 0 ? 0 : max;
    }
    case IPC_STAT:
    case SHM_STAT:
    case SHM_STAT_ANY: {
        struct ipc_perm_k *ip = cmd == IPC_STAT ? ipc_obtain_check(&shm_ids, shmid)
                                 : ipc_obtain_idx(&shm_ids, shmid);
        if (!ip)
            return -EINVAL;
        if (cmd != SHM_STAT_ANY && ipc_perms(t, ip, 0444))
            return -EACCES;
        struct shmid_kernel *shp = shm_of(ip);
        struct shmid64_ds ds = { .shm_segsz = shp->segsz, .shm_atime = shp->atime,
                                 .shm_dtime = shp->dtime, .shm_ctime = shp->ctime,
                                 .shm_cpid = shp->cpid, .shm_lpid = shp->lpid,
                                 .shm_nattch = nattch(shp) };
        ipc_to_user_perm(ip, &ds.shm_perm);
        if (copy_to_user(t->mm, ubuf, &ds, sizeof ds))
            return -EFAULT;
        return cmd == IPC_STAT ? 0 : ip->id;
    }
    case IPC_SET:
    case IPC_RMID: {
        struct shmid64_ds ds;
        if (cmd == IPC_SET && copy_from_user(t->mm, &ds, ubuf, sizeof ds))
            return -EFAULT;
        struct ipc_perm_k *ip = ipc_obtain_check(&shm_ids, shmid);
        if (!ip)
            return -EINVAL;
        int e = ipc_owner_check(t, ip);
        if (e)
            return e;
        struct shmid_kernel *shp = shm_of(ip);
        if (cmd == IPC_RMID) {
            if (nattch(shp)) {
                shp->perm.mode |= SHM_DEST;
                ipc_set_key_private(&shm_ids, ip);
            } else {
                shm_destroy(shp);
            }
            return 0;
        }
        if ((e = ipc_update_perm(&ds.shm_perm, ip)))
            return e;
        shp->ctime = ipc_seconds();
        return 0;
    }
    case SHM_LOCK:
    case SHM_UNLOCK: {
        struct ipc_perm_k *ip = ipc_obtain_check(&shm_ids, shmid);
        if (!ip)
            return -EINVAL;
        if (!ipc_privileged(t)) {
            unsigned euid = ipc_euid(t);
            if (euid != ip->uid && euid != ip->cuid)
                return -EPERM;
            if (cmd == SHM_LOCK && !t->proc->rlim[8].cur)   /* RLIMIT_MEMLOCK */
                return -EPERM;
        }
        if (cmd == SHM_LOCK)
            ip->mode |= SHM_LOCKED;     /* nothing is swapped here: accepted */
        else
            ip->mode &= ~(unsigned)SHM_LOCKED;
        return 0;
    }
    }
    return -EINVAL;
}

static void destroy_segment(struct ipc_perm_k *p)
{
    shm_destroy(shm_of(p));
}

void shm_shutdown(void)
{
    ipc_each_remove(&shm_ids, destroy_segment);
    if (shm_sb) {
        vfs_kern_umount(shm_sb);
        shm_sb = NULL;
        mm_file_unmapped = NULL;
    }
}

/* --- names ----------------------------------------------------------------------------------- */

bool shm_maps_name(struct inode *i, char *buf, size_t size)
{
    if (!shm_sb || i->sb != shm_sb)
        return false;
    struct ipc_perm_k *ip = ipc_obtain_idx(&shm_ids, (int)i->ino);
    int key = ip && shm_of(ip)->file == i ? shm_of(ip)->name_key : 0;
    snprintf(buf, size, "/SYSV%08x (deleted)", (unsigned)key);
    return true;
}

static void show_one(struct ipc_perm_k *p, struct ipc_show *s)
{
    struct shmid_kernel *shp = shm_of(p);
    unsigned long rss = 0;
    add_rss(p, &rss);
    ipc_show_printf(s,
                    "%10d %10d  %4o %21lu %5u %5u  %5lu %5u %5u %5u %5u %10lld %10lld %10lld %21lu %21lu\n",
                    p->key, p->id, p->mode, shp->segsz, shp->cpid, shp->lpid,
                    nattch(shp), p->uid, p->gid, p->cuid, p->cgid,
                    (long long)shp->atime, (long long)shp->dtime,
                    (long long)shp->ctime, rss * LX_PAGE, 0ul);
}

size_t shm_proc_show(char *buf, size_t size)
{
    return ipc_proc_show(&shm_ids, "       key      shmid perms                  size  cpid  lpid nattch   uid   gid  cuid  cgid      atime      dtime      ctime                   rss                  swap\n", show_one, buf, size);
}
