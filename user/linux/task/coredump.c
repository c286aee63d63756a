/* Core dumps (task/coredump.h; docs/linux/signals.md, "Core dumps"), as Linux 6.1's
 * do_coredump and elf_core_dump write them:
 *   - the name from kernel.core_pattern ("core"; %p %P %i %I %u %g %s %t %h %e %E %c %d %%)
 *     with ".PID" appended when kernel.core_uses_pid is set and the pattern has no %p,
 *     relative to the dumping thread's working directory; a pattern starting with '|'
 *     (a program to pipe to) is not supported: no core is written;
 *   - no core unless RLIMIT_CORE is at least a page and the process is dumpable;
 *   - what is there is unlinked, the file made with O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600,
 *     and given up unless it is a regular file of one link with exactly that mode;
 *   - an ELF file: its header, a PT_NOTE, one PT_LOAD per region; the notes NT_PRSTATUS
 *     (each thread's registers, the dumping thread first), NT_PRPSINFO, NT_SIGINFO,
 *     NT_AUXV and NT_FILE; the regions' bytes as coredump_filter 0x33 keeps them
 *     (anonymous memory that was written, shared anonymous memory, the first page of a
 *     file mapped from its start, the signal page), pages never touched left as holes;
 *   - RLIMIT_CORE cuts the file: a write that would pass it is not made, nor any after it.
 * lx holds the registers of the thread that takes the signal; another thread's are those
 * of the system call it waits in (rip, rsp, rflags and the arguments; the rest 0) or of its
 * group stop, and 0 while it runs.  No NT_FPREGSET: lx does not read the FPU state. */
#include "task/coredump.h"
#include "fs/proc/sysctl.h"
#include "lib/errno.h"
#include "mm/mm.h"
#include "mm/usercopy.h"
#include "signal/sigframe.h"
#include "signal/sigpage.h"
#include "task/exec.h"
#include "task/process.h"
#include "task/thread.h"
#include "task/uts.h"
#include "time/clock.h"
#include "vfs/file.h"
#include <elf64.h>
#include <stdio.h>
#include <string.h>

#define CORENAME_MAX   128          /* Linux's CORENAME_MAX_SIZE */
#define ET_CORE        4
#define NT_PRSTATUS    1
#define NT_PRPSINFO    3
#define NT_AUXV        6
#define NT_SIGINFO     0x53494749u
#define NT_FILE        0x46494c45u
#define PF_DUMPCORE    0x200
#define PF_SIGNALED    0x400
#define R(name) regs[L4_FREG_##name - 1]

static char core_pattern[CORENAME_MAX] = "core";    /* Debian's kernel default */
static int core_uses_pid;

static struct sysctl core_sysctls[] = {
    { .path = "kernel/core_pattern", .mode = 0644, .show = sysctl_show_string,
      .store = sysctl_store_string, .data = core_pattern, .maxlen = CORENAME_MAX },
    { .path = "kernel/core_uses_pid", .mode = 0644, .show = sysctl_show_int,
      .store = sysctl_store_int, .data = &core_uses_pid },
};
SYSCTL_TABLE(core_sysctls)

bool coredump_wanted(const struct thread *t)
{
    const struct process *p = t->proc;
    return !p->cred.nondumpable && p->rlim[RLIMIT_CORE].cur >= LX_PAGE && core_pattern[0] != '|';
}

/* --- the name ------------------------------------------------------------------------------ */

struct name {
    char *s;
    size_t len;
};

static void put(struct name *n, const char *s, bool escape)
{
    for (; *s && n->len < CORENAME_MAX - 1; s++)
        n->s[n->len++] = escape && *s == '/' ? '!' : *s;
    n->s[n->len] = 0;
}

static void put_num(struct name *n, unsigned long v)
{
    char num[24];
    snprintf(num, sizeof num, "%lu", v);
    put(n, num, false);
}

/* Linux's format_corename for a file (not '|'). */
static void core_name(struct thread *t, int sig, char *out)
{
    struct process *p = t->proc;
    struct name n = { out, 0 };
    bool pid_in = false;
    out[0] = 0;
    for (const char *c = core_pattern; *c; c++) {
        if (*c != '%') {
            char one[2] = { *c, 0 };
            put(&n, one, false);
            continue;
        }
        switch (*++c) {
        case 0: c--; break;                 /* a '%' at the end: dropped */
        case '%': put(&n, "%", false); break;
        case 'p': case 'P': pid_in = true; put_num(&n, (unsigned long)process_pid(p)); break;
        case 'i': case 'I': put_num(&n, (unsigned long)t->tid->nr); break;
        case 'u': put_num(&n, p->cred.uid); break;
        case 'g': put_num(&n, p->cred.gid); break;
        case 'd': put_num(&n, 1); break;    /* SUID_DUMP_USER */
        case 's': put_num(&n, (unsigned long)sig); break;
        case 't': put_num(&n, (unsigned long)((int64_t)lx_now() + clock_realtime_offset()) /
                                  1000000000ul); break;
        case 'h': put(&n, lx_uts.nodename, true); break;
        case 'e': put(&n, t->comm, true); break;
        case 'E': put(&n, task_exe_path(p) ? task_exe_path(p) : "", true); break;
        case 'c': put_num(&n, p->rlim[RLIMIT_CORE].cur); break;
        default: break;                     /* an unknown one: both characters go */
        }
    }
    if (core_uses_pid && !pid_in) {
        put(&n, ".", false);
        put_num(&n, (unsigned long)process_pid(p));
    }
}

/* Linux's checks on the file it made: a regular file, one link, mode 0600. */
static struct file *core_open(struct thread *t, const char *name)
{
    static char last[NAME_MAX + 1];
    bool trailing;
    int err;
    struct inode *dir = path_parent(t, NULL, name, last, &trailing, &err);
    if (dir && !trailing)
        vfs_unlink(t, dir, last, false);    /* fine if there was none */
    struct file *f = vfs_open(t, NULL, name,
                              O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW | O_LARGEFILE, 0600, &err);
    if (!f)
        return NULL;
    struct inode *i = f->inode;
    if (i->nlink > 1 || !S_ISREG(i->mode) || (i->mode & 0677) != 0600 || !f->ops->write) {
        file_put(f);
        return NULL;
    }
    return f;
}

/* --- the file ------------------------------------------------------------------------------ */

struct dump {
    struct thread *t;
    struct file *f;
    uint64_t pos;                   /* where the next bytes go (a skip leaves a hole) */
    uint64_t end;                   /* how far the file has been written */
    uint64_t written, limit;        /* bytes written; RLIMIT_CORE */
    bool failed;                    /* a write failed or passed the limit: no more */
};

static bool emit(struct dump *d, const void *p, size_t n)
{
    if (d->failed || d->written + n > d->limit) {
        d->failed = true;
        return false;
    }
    struct uio_seg seg = { (l4_word_t)p, n };
    struct uio u;
    uio_init(&u, NULL, &seg, 1);
    l4_word_t pos = d->pos;
    if (d->f->ops->write(d->t, d->f, &u, &pos) != (long)n) {
        d->failed = true;
        return false;
    }
    d->pos += n;
    d->written += n;
    d->end = d->pos;
    return true;
}

static void pad_to(struct dump *d, uint64_t pos)
{
    static const char zero[8];
    while (d->pos < pos && emit(d, zero, pos - d->pos < 8 ? pos - d->pos : 8))
        ;
}

static size_t pad4(size_t n)
{
    return (n + 3) & ~3ul;
}

/* A note: its size; written too when d is not NULL. */
static size_t note(struct dump *d, uint32_t type, const void *desc, size_t n)
{
    struct { uint32_t namesz, descsz, type; char name[8]; } h = { 5, (uint32_t)n, type, "CORE" };
    if (d) {
        emit(d, &h, sizeof h);
        emit(d, desc, n);
        pad_to(d, d->pos + pad4(n) - n);
    }
    return sizeof h + pad4(n);
}

struct prstatus {                   /* x86-64's struct elf_prstatus */
    int si_signo, si_code, si_errno;
    short cursig, pad;
    uint64_t sigpend, sighold;
    int pid, ppid, pgrp, sid;
    struct { int64_t sec, usec; } utime, stime, cutime, cstime;
    uint64_t reg[27];               /* struct user_regs_struct */
    int fpvalid, pad2;
};
_Static_assert(sizeof(struct prstatus) == 336, "elf_prstatus");

struct prpsinfo {                   /* x86-64's struct elf_prpsinfo */
    char state, sname, zomb, nice;
    uint32_t pad;
    uint64_t flag;
    uint32_t uid, gid;
    int pid, ppid, pgrp, sid;
    char fname[16];
    char psargs[80];
};
_Static_assert(sizeof(struct prpsinfo) == 136, "elf_prpsinfo");

enum { UR15, UR14, UR13, UR12, URBP, URBX, UR11, UR10, UR9, UR8, URAX, URCX, URDX, URSI, URDI,
       UORIG_RAX, URIP, UCS, UEFLAGS, URSP, USS, UFS_BASE, UGS_BASE };

/* user_regs_struct from lx's register words. */
static void user_regs(uint64_t *u, const l4_word_t *regs, long orig_rax)
{
    const unsigned map[][2] = {
        { UR15, L4_FREG_R15 }, { UR14, L4_FREG_R14 }, { UR13, L4_FREG_R13 },
        { UR12, L4_FREG_R12 }, { URBP, L4_FREG_RBP }, { URBX, L4_FREG_RBX },
        { UR11, L4_FREG_R11 }, { UR10, L4_FREG_R10 }, { UR9, L4_FREG_R9 }, { UR8, L4_FREG_R8 },
        { URAX, L4_FREG_RAX }, { URCX, L4_FREG_RCX }, { URDX, L4_FREG_RDX },
        { URSI, L4_FREG_RSI }, { URDI, L4_FREG_RDI }, { URIP, L4_FREG_RIP },
        { UEFLAGS, L4_FREG_RFLAGS }, { URSP, L4_FREG_RSP }, { UFS_BASE, L4_FREG_FS_BASE },
        { UGS_BASE, L4_FREG_GS_BASE },
    };
    for (unsigned k = 0; k < sizeof map / sizeof map[0]; k++)
        u[map[k][0]] = regs[map[k][1] - 1];
    u[UORIG_RAX] = (uint64_t)orig_rax;
    u[UCS] = 0x33;                  /* __USER_CS, __USER_DS */
    u[USS] = 0x2b;
}

/* Another thread's registers, as far as lx has them. */
static void other_regs(uint64_t *u, struct thread *o)
{
    if (o->sig.hold == SIG_HOLD_REGS) {
        user_regs(u, o->sig.hold_regs, -1);
        return;
    }
    u[UORIG_RAX] = ~0ul;
    u[UCS] = 0x33;
    u[USS] = 0x2b;
    if (o->park.kind != PARK_CALL)
        return;
    const struct sysargs *a = &o->park.call;
    u[UORIG_RAX] = a->nr;
    u[URDI] = a->a[0], u[URSI] = a->a[1], u[URDX] = a->a[2];
    u[UR10] = a->a[3], u[UR8] = a->a[4], u[UR9] = a->a[5];
    u[URIP] = a->rip, u[URSP] = a->rsp, u[UEFLAGS] = a->rflags;
}

static size_t prstatus_note(struct dump *d, struct thread *u, int sig, const l4_word_t *regs,
                            long orig_rax)
{
    struct process *p = u->proc;
    struct prstatus s;
    memset(&s, 0, sizeof s);
    s.si_signo = s.cursig = (short)sig;
    s.sigpend = u->sig.pending.set;
    s.sighold = u->sig.blocked;
    s.pid = u->tid->nr;
    s.ppid = process_ppid(p);
    s.pgrp = process_pgid(p);
    s.sid = process_sid(p);
    if (regs)
        user_regs(s.reg, regs, orig_rax);
    else
        other_regs(s.reg, u);
    return note(d, NT_PRSTATUS, &s, sizeof s);
}

static size_t prpsinfo_note(struct dump *d, struct thread *t)
{
    struct process *p = t->proc;
    struct mm *mm = t->mm;
    struct prpsinfo s;
    memset(&s, 0, sizeof s);
    s.sname = 'R';                  /* the dumping thread runs */
    s.flag = PF_DUMPCORE | PF_SIGNALED;
    s.uid = p->cred.uid;
    s.gid = p->cred.gid;
    s.pid = process_pid(p);
    s.ppid = process_ppid(p);
    s.pgrp = process_pgid(p);
    s.sid = process_sid(p);
    memcpy(s.fname, t->comm, sizeof s.fname);
    size_t n = mm->arg_end > mm->arg_start ? mm->arg_end - mm->arg_start : 0;
    if (n > sizeof s.psargs - 1)
        n = sizeof s.psargs - 1;
    if (n && copy_from_user(mm, s.psargs, mm->arg_start, n))
        n = 0;
    for (size_t k = 0; k < n; k++)
        if (!s.psargs[k])
            s.psargs[k] = ' ';
    s.psargs[n] = 0;
    return note(d, NT_PRPSINFO, &s, sizeof s);
}

static size_t auxv_note(struct dump *d, struct mm *mm)
{
    l4_word_t auxv[64] = { 0 };
    size_t n = mm->auxv_end - mm->auxv_start;
    if (n > sizeof auxv || copy_from_user(mm, auxv, mm->auxv_start, n))
        n = 0;
    return note(d, NT_AUXV, auxv, n);
}

static char files[16384];           /* NT_FILE's text (Linux allows up to 4 MiB) */

/* NT_FILE: count, page size, (start, end, page offset) per file mapping, then the names. */
static size_t file_note(struct dump *d, struct process *p, struct mm *mm)
{
    static char path[PATH_MAX];
    size_t count = 0, names = 0, nmax = 0;
    for (struct region *r = mm_first(mm); r; r = vma_next(r))
        nmax += r->file || r->fdata;
    size_t head = 16 + 24 * nmax;
    if (head > sizeof files)
        nmax = 0, head = 16;
    l4_word_t *w = (l4_word_t *)files;
    for (struct region *r = mm_first(mm); r && nmax; r = vma_next(r)) {
        const char *name = NULL;
        if (r->file && vfs_path_of(r->file, path, sizeof path) >= 0)
            name = path;
        else if (r->fdata || r->file)
            name = r->fdata ? task_exe_path(p) : "/[deleted] (deleted)";
        if (!name)
            continue;
        size_t len = strlen(name) + 1;
        if (head + names + len > sizeof files)
            break;
        w[2 + 3 * count] = r->start;
        w[3 + 3 * count] = r->end;
        w[4 + 3 * count] = r->file ? (r->foff + (r->start - r->fstart)) / LX_PAGE : 0;
        count++;
        memcpy(files + head + names, name, len);
        names += len;
    }
    /* the names follow the triples that were made */
    size_t used = 16 + 24 * count;
    memmove(files + used, files + head, names);
    w[0] = count;
    w[1] = LX_PAGE;
    return note(d, NT_FILE, files, used + names);
}

static size_t notes(struct dump *d, struct thread *t, int sig, const struct k_siginfo *info,
                    const l4_word_t *regs, long orig_rax)
{
    struct process *p = t->proc;
    unsigned char si[128];
    sigframe_siginfo(sig, info, si);
    size_t n = prstatus_note(d, t, sig, regs, orig_rax);
    n += prpsinfo_note(d, t);
    n += note(d, NT_SIGINFO, si, sizeof si);
    n += auxv_note(d, t->mm);
    n += file_note(d, p, t->mm);
    struct thread *u;
    list_each(u, &p->threads, proc_link)
        if (u != t && !u->exited)
            n += prstatus_note(d, u, sig, NULL, 0);
    return n;
}

/* Linux's vma_dump_size with coredump_filter 0x33. */
static l4_word_t dump_size(const struct region *r)
{
    l4_word_t whole = r->end - r->start;
    if (r->start == LX_SIGPAGE)
        return whole;               /* the vDSO's place: always */
    if (r->shared)
        return r->file ? 0 : whole; /* shared anonymous yes, shared file mappings no */
    if (r->anon)
        return whole;               /* private memory that was written */
    if (!r->file && !r->fdata)
        return 0;
    bool at_start = r->file ? r->foff + (r->start - r->fstart) == 0 : r->start == r->fstart;
    return at_start && (r->prot & PROT_READ) ? LX_PAGE : 0;    /* ELF headers */
}

static void write_core(struct dump *d, struct thread *t, int sig, const struct k_siginfo *info,
                       const l4_word_t *regs, long orig_rax)
{
    struct mm *mm = t->mm;
    size_t nseg = mm->nregions + 1;
    struct elf64_ehdr eh;
    memset(&eh, 0, sizeof eh);
    memcpy(eh.ident, "\177ELF\2\1\1", 7);
    eh.type = ET_CORE;
    eh.machine = EM_X86_64;
    eh.version = 1;
    eh.phoff = sizeof eh;
    eh.ehsize = sizeof eh;
    eh.phentsize = sizeof(struct elf64_phdr);
    eh.phnum = (uint16_t)(nseg < 0xFFFF ? nseg : 0xFFFF);
    if (!emit(d, &eh, sizeof eh))
        return;
    uint64_t off = sizeof eh + nseg * sizeof(struct elf64_phdr);
    size_t nsize = notes(NULL, t, sig, info, regs, orig_rax);
    struct elf64_phdr ph = { .type = PT_NOTE, .offset = off, .filesz = nsize };
    emit(d, &ph, sizeof ph);
    off = (off + nsize + LX_PAGE - 1) & ~(uint64_t)(LX_PAGE - 1);
    for (struct region *r = mm_first(mm); r; r = vma_next(r)) {
        l4_word_t size = dump_size(r);
        ph = (struct elf64_phdr){
            .type = PT_LOAD, .offset = off, .vaddr = r->start, .filesz = size,
            .memsz = r->end - r->start, .align = LX_PAGE,
            .flags = (r->prot & PROT_READ ? PF_R : 0) | (r->prot & PROT_WRITE ? PF_W : 0) |
                     (r->prot & PROT_EXEC ? PF_X : 0),
        };
        emit(d, &ph, sizeof ph);
        off += size;
    }
    notes(d, t, sig, info, regs, orig_rax);
    pad_to(d, (d->pos + LX_PAGE - 1) & ~(uint64_t)(LX_PAGE - 1));
    for (struct region *r = mm_first(mm); r && !d->failed; r = vma_next(r)) {
        l4_word_t size = dump_size(r);
        for (l4_word_t a = r->start; a < r->start + size && !d->failed; a += LX_PAGE) {
            void *page = mm_page_present(mm, a);
            if (!page && (r->file || r->fdata))
                page = mm_page(mm, r, a, NULL);
            if (page)
                emit(d, page, LX_PAGE);
            else
                d->pos += LX_PAGE;  /* a hole: never touched, reads as zeros */
        }
    }
    if (d->pos > d->end) {          /* the file reaches to the last hole's end */
        d->pos--;
        emit(d, "", 1);
    }
}

bool coredump_write(struct thread *t, int sig, const struct k_siginfo *info,
                    const l4_word_t *regs, long orig_rax)
{
    static char name[CORENAME_MAX];
    if (!coredump_wanted(t) || !t->mm)
        return false;
    core_name(t, sig, name);
    struct file *f = core_open(t, name);
    if (!f)
        return false;
    struct dump d = { .t = t, .f = f, .limit = t->proc->rlim[RLIMIT_CORE].cur };
    write_core(&d, t, sig, info, regs, orig_rax);
    file_put(f);
    return true;                    /* made, even if cut short (Linux's has_dumped) */
}
