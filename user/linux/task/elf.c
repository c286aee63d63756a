/* The ELF loader: an x86-64 executable, non-PIE (ET_EXEC) or PIE (ET_DYN), becomes regions
 * of a process's memory model (its PT_LOAD segments backed by the image's bytes, bss
 * zero-filled), a heap (brk) after the last segment, a stack, and the initial stack exactly
 * as Linux builds it for _start: argc, argv, envp, the auxiliary vector, RSP 16-byte
 * aligned at argc (docs/linux/exec.md).  A dynamically linked one (PT_INTERP) gets its
 * interpreter (ld.so, a file of the tree) loaded into the mmap area, as Linux does: the
 * process starts there, with AT_BASE its load address.
 *
 * A static-PIE is loaded at ELF_ET_DYN_BASE (2/3 of TASK_SIZE, page-aligned: 0x555555554000
 * for an image linked at 0), aligned to its largest PT_LOAD alignment: where Linux puts a
 * PIE that has an interpreter, and where a randomising Linux moves a static-PIE's brk.  The
 * program relocates itself (glibc's and musl's rcrt1.o), through AT_PHDR; AT_BASE stays 0.
 * PT_TLS and PT_GNU_RELRO are the C library's business (it finds them through AT_PHDR and
 * mprotects RELRO itself); PT_GNU_STACK with PF_X makes the stack executable.
 *
 * The bytes come from a file of the tree, read through its page provider (the segments are
 * private file mappings of it: the file's own pages until a write, mm/mm.c), or from a data
 * module in lx's memory (the segments are backed by it in place). */
#include "task/elf.h"
#include "task/exec_args.h"
#include "task/cred.h"
#include "lib/errno.h"
#include "mm/mm.h"
#include "mm/usercopy.h"
#include "vfs/vfs.h"
#include <elf64.h>
#include <stdio.h>
#include <string.h>

#define STACK_TOP    LX_USER_END
#define STACK_SIZE   (8ul << 20)                /* RLIMIT_STACK's default */
#define MMAP_TOP     0x7F0000000000ul           /* mmap grows down from here */
#define ET_DYN_BASE  ((LX_USER_END / 3 * 2) & LX_PAGE_MASK)    /* x86-64's ELF_ET_DYN_BASE */
#define PT_INTERP    3
#define PT_GNU_RELRO 0x6474E552u
/* AT_MINSIGSTKSZ: the room a signal frame needs without XSAVE (Linux's rt_sigframe with
 * siginfo and ucontext, 440 bytes, and 512 bytes of FXSAVE state with its 4-byte end
 * marker, rounded up to 64 and the frame's alignment slack), as Linux 6.x computes it for
 * a CPU without XSAVE.  The signal layer's frame must fit. */
#define LX_MINSIGSTKSZ 1024

enum {
    AT_NULL = 0, AT_PHDR = 3, AT_PHENT = 4, AT_PHNUM = 5, AT_PAGESZ = 6, AT_BASE = 7,
    AT_FLAGS = 8, AT_ENTRY = 9, AT_UID = 11, AT_EUID = 12, AT_GID = 13, AT_EGID = 14,
    AT_PLATFORM = 15, AT_HWCAP = 16, AT_CLKTCK = 17, AT_SECURE = 23, AT_RANDOM = 25,
    AT_HWCAP2 = 26, AT_EXECFN = 31, AT_MINSIGSTKSZ = 51,
};

static unsigned prot_of(uint32_t flags)
{
    return ((flags & PF_R) ? PROT_READ : 0) | ((flags & PF_W) ? PROT_WRITE : 0) |
           ((flags & PF_X) ? PROT_EXEC : 0);
}

static uint64_t hwcap(void)
{
    uint32_t a = 1, b, c = 0, d;
    __asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
    return d;
}

/* 16 bytes for AT_RANDOM: not secret here, only different per process. */
static void random_bytes(uint8_t out[16])
{
    static uint64_t state = 0x9E3779B97F4A7C15ull;
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    state ^= ((uint64_t)hi << 32) | lo;
    for (int i = 0; i < 16; i++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        out[i] = (uint8_t)(state >> 56);
    }
}

/* The file: a file of the tree, or an image in memory (a data module). */
struct elf_src {
    const uint8_t *image;
    struct inode *file;
    l4_word_t size;
};

/* Copies of an ELF's headers (the program's and its interpreter's). */
#define MAX_PHDRS (65536 / sizeof(struct elf64_phdr))
struct hdrs {
    struct elf64_ehdr eh;
    struct elf64_phdr ph[MAX_PHDRS];
};
static struct hdrs prog, interp;

/* n bytes at offset off of the file (the caller has checked the range): false when they
 * cannot be read (no memory for the initramfs's page, mm/module.c). */
static bool src_read(const struct elf_src *src, void *buf, l4_word_t n, l4_word_t off)
{
    if (!src->image)
        return vfs_kernel_read(src->file, buf, n, off) >= 0;
    memcpy(buf, src->image + off, n);       /* paged in whole by exec_image_lookup */
    return true;
}

/* The headers of src into h, checked: 0 or -ENOEXEC (with a message). */
static int read_headers(const struct elf_src *src, struct hdrs *h)
{
    const struct elf64_ehdr *eh = &h->eh;
    l4_word_t size = src->size;
    memset(&h->eh, 0, sizeof h->eh);
    if (size >= sizeof h->eh && !src_read(src, &h->eh, sizeof h->eh, 0))
        return -ENOMEM;
    if (size < sizeof *eh || memcmp(eh->ident, "\177ELF", 4) || eh->ident[4] != 2 ||
        eh->ident[5] != 1 || eh->machine != EM_X86_64) {
        printf("lx: elf: not an x86-64 ELF64 file\n");
        return -ENOEXEC;
    }
    if (eh->type != ET_EXEC && eh->type != ET_DYN) {
        printf("lx: elf: not an executable (type %u)\n", eh->type);
        return -ENOEXEC;
    }
    /* Linux refuses program headers of more than 64 KiB; so do we. */
    if (eh->phentsize != sizeof(struct elf64_phdr) || eh->phoff > size || eh->phnum == 0 ||
        (size - eh->phoff) / sizeof(struct elf64_phdr) < eh->phnum || eh->phnum > MAX_PHDRS) {
        printf("lx: elf: bad program headers\n");
        return -ENOEXEC;
    }
    return src_read(src, h->ph, eh->phnum * sizeof(struct elf64_phdr), eh->phoff) ? 0
                                                                                   : -ENOMEM;
}

/* The span of the PT_LOAD segments: [*lo, *hi) in pages, and their largest alignment. */
static bool load_span(const struct hdrs *h, l4_word_t *lo, l4_word_t *hi, l4_word_t *align)
{
    *lo = ~0ul, *hi = 0, *align = LX_PAGE;
    for (unsigned i = 0; i < h->eh.phnum; i++) {
        const struct elf64_phdr *ph = &h->ph[i];
        if (ph->type != PT_LOAD)
            continue;
        if (ph->vaddr < *lo)
            *lo = ph->vaddr & LX_PAGE_MASK;
        if (ph->vaddr + ph->memsz > *hi && ph->vaddr + ph->memsz >= ph->vaddr)
            *hi = (ph->vaddr + ph->memsz + LX_PAGE - 1) & LX_PAGE_MASK;
        if (ph->align > *align && !(ph->align & (ph->align - 1)) && ph->align <= (1ul << 30))
            *align = ph->align;
    }
    return *lo != ~0ul && *hi > *lo;
}

/* The program's load bias: 0 for ET_EXEC; for ET_DYN ELF_ET_DYN_BASE less its lowest page,
 * aligned to its largest power-of-two PT_LOAD alignment (as Linux's load_elf_binary). */
static l4_word_t load_bias(const struct hdrs *h)
{
    l4_word_t lo, hi, align;
    if (h->eh.type != ET_DYN || !load_span(h, &lo, &hi, &align))
        return 0;
    return (ET_DYN_BASE - lo) & ~(align - 1);
}

/* Map the PT_LOAD segments of src (headers h) at bias; *phdr_addr: where the program
 * headers are, *top: the end of the highest segment. */
static int load_segments(struct mm *mm, const struct elf_src *src, const struct hdrs *h,
                         l4_word_t bias, l4_word_t *phdr_addr, l4_word_t *top)
{
    const struct elf64_ehdr *eh = &h->eh;
    const uint8_t *image = src->image;
    l4_word_t size = src->size;
    *top = 0;
    *phdr_addr = 0;
    for (unsigned i = 0; i < eh->phnum; i++) {
        const struct elf64_phdr *ph = &h->ph[i];
        if (ph->type != PT_LOAD || ph->memsz == 0)
            continue;
        l4_word_t vaddr = ph->vaddr + bias;
        if (ph->filesz > ph->memsz || ph->offset > size || size - ph->offset < ph->filesz ||
            vaddr < LX_MMAP_MIN || ph->memsz > STACK_TOP - STACK_SIZE ||
            vaddr > STACK_TOP - STACK_SIZE - ph->memsz) {
            printf("lx: elf: bad segment %u\n", i);
            return -ENOEXEC;
        }
        l4_word_t start = vaddr & LX_PAGE_MASK;
        l4_word_t end = (vaddr + ph->memsz + LX_PAGE - 1) & LX_PAGE_MASK;
        /* The file bytes of the segment's first page from its page start, as Linux maps
         * them (if the file has them); the rest of the last file page is zero (bss). */
        l4_word_t head = vaddr - start;
        if (ph->offset < head)
            head = 0;
        struct region r = { .start = start, .end = end, .prot = prot_of(ph->flags),
                            .fstart = vaddr - head, .fend = vaddr + ph->filesz };
        if (image)
            r.fdata = (l4_word_t)image + ph->offset - head;
        else
            r.file = src->file, r.foff = ph->offset - head;
        int e = mm_map_region(mm, &r);
        if (e)
            return e == -EINVAL ? -ENOEXEC : e;
        if (eh->phoff >= ph->offset && eh->phoff - ph->offset < ph->filesz)
            *phdr_addr = vaddr + (eh->phoff - ph->offset);
        if (end > *top)
            *top = end;
    }
    if (!*top) {
        printf("lx: elf: no loadable segment\n");
        return -ENOEXEC;
    }
    return 0;
}

/* The dynamic linker named by PT_INTERP: loaded into the mmap area (where Linux puts it),
 * its bias into *base, its entry into *entry. */
static int load_interp(struct mm *mm, const char *path, struct thread *walker, l4_word_t *base,
                       l4_word_t *entry)
{
    int err;
    struct inode *i = path_walk(walker, NULL, path, true, &err);
    if (!i) {
        printf("lx: elf: no interpreter %s (error %d)\n", path, -err);
        return err;
    }
    if (!S_ISREG(i->mode) || (i->sb->flags & MS_NOEXEC) || inode_permission(NULL, i, MAY_EXEC))
        return -EACCES;             /* Linux opens it as an executable too */
    struct elf_src src = { .file = i, .size = i->size };
    int e = read_headers(&src, &interp);
    if (e)
        return e;
    l4_word_t lo, hi, align;
    if (!load_span(&interp, &lo, &hi, &align) || hi - lo > (1ul << 32)) {
        printf("lx: elf: interpreter %s: no loadable segment\n", path);
        return -ENOEXEC;
    }
    l4_word_t bias = 0;
    if (interp.eh.type == ET_DYN) {
        l4_word_t at = mm_find_gap(mm, hi - lo + align);
        if (!at)
            return -ENOMEM;
        bias = ((at + align - 1) & ~(align - 1)) - lo;
    }
    l4_word_t phdr_addr, top;
    e = load_segments(mm, &src, &interp, bias, &phdr_addr, &top);
    if (e)
        return e;
    *base = bias;
    *entry = interp.eh.entry + bias;
    return 0;
}

/* --- the initial stack ----------------------------------------------------------------------- */

/* Words written upwards from an address, through user copy, a batch at a time. */
struct wordbuf {
    struct mm *mm;
    l4_word_t at;
    l4_word_t w[64];
    unsigned n;
    int err;
};

static void wb_flush(struct wordbuf *b)
{
    if (b->n && copy_to_user(b->mm, b->at, b->w, b->n * 8))
        b->err = -ENOMEM;           /* the stack is ours: only memory can be short */
    b->at += b->n * 8;
    b->n = 0;
}

static void wb_put(struct wordbuf *b, l4_word_t v)
{
    b->w[b->n++] = v;
    if (b->n == 64)
        wb_flush(b);
}

static int build_stack(struct mm *mm, const struct elf64_ehdr *eh, l4_word_t bias,
                       l4_word_t base, l4_word_t phdr_addr, unsigned stack_prot,
                       const struct exec_args *args, l4_word_t *sp)
{
    int e = mm_map(mm, STACK_TOP - STACK_SIZE, STACK_TOP, stack_prot, 0, 0, 0);
    if (e)
        return e;
    /* From the top: an 8-byte zero, AT_EXECFN's string, the environment strings, below
     * them the argument strings (each vector in order, upwards): the block execve built
     * (within a quarter of the stack at most); then "x86_64", 16 random bytes; then,
     * 16-byte aligned, argc, argv, NULL, envp, NULL, the auxiliary vector. */
    l4_word_t to_user = STACK_TOP - 8 - EXEC_ARGS_TOP;     /* window offset -> address */
    l4_word_t strings = to_user + args->p;
    if (exec_args_to_user(args, mm, strings))
        return -ENOMEM;
    l4_word_t execfn_at = to_user + args->exec;
    l4_word_t platform = strings - sizeof "x86_64";
    if (copy_to_user(mm, platform, "x86_64", sizeof "x86_64"))
        return -ENOMEM;
    uint8_t rnd[16];
    random_bytes(rnd);
    l4_word_t random = (platform - 16) & ~15ul;
    if (copy_to_user(mm, random, rnd, sizeof rnd))
        return -ENOMEM;

    const struct cred *c = args->cred;
    const l4_word_t auxv[][2] = {
        { AT_MINSIGSTKSZ, LX_MINSIGSTKSZ },
        { AT_HWCAP, hwcap() }, { AT_PAGESZ, LX_PAGE }, { AT_CLKTCK, 100 },
        { AT_PHDR, phdr_addr }, { AT_PHENT, sizeof(struct elf64_phdr) }, { AT_PHNUM, eh->phnum },
        { AT_BASE, base }, { AT_FLAGS, 0 }, { AT_ENTRY, eh->entry + bias },
        { AT_UID, c ? c->uid : 0 }, { AT_EUID, c ? c->euid : 0 },
        { AT_GID, c ? c->gid : 0 }, { AT_EGID, c ? c->egid : 0 }, { AT_SECURE, args->secure },
        { AT_RANDOM, random }, { AT_HWCAP2, 0 }, { AT_EXECFN, execfn_at },
        { AT_PLATFORM, platform }, { AT_NULL, 0 },
    };
    l4_word_t nauxv = sizeof auxv / sizeof auxv[0];
    l4_word_t nwords = 1 + (l4_word_t)args->argc + 1 + (l4_word_t)args->envc + 1 + 2 * nauxv;
    /* RSP (pointing at argc) 16-byte aligned, as the x86-64 psABI requires at _start. */
    struct wordbuf b = { .mm = mm, .at = (random - nwords * 8) & ~15ul };
    *sp = b.at;
    wb_put(&b, (l4_word_t)args->argc);
    /* The strings' addresses; /proc/PID/cmdline and environ read [arg_start, env_end). */
    l4_word_t off = args->p;
    mm->arg_start = to_user + off;
    for (long i = 0; i < args->argc; i++) {
        wb_put(&b, to_user + off);
        off += exec_args_strlen(args, off) + 1;
    }
    wb_put(&b, 0);
    mm->arg_end = mm->env_start = to_user + off;
    for (long i = 0; i < args->envc; i++) {
        wb_put(&b, to_user + off);
        off += exec_args_strlen(args, off) + 1;
    }
    mm->env_end = to_user + off;
    wb_put(&b, 0);
    mm->auxv_start = *sp + 8 * (1 + (l4_word_t)args->argc + 1 + (l4_word_t)args->envc + 1);
    mm->auxv_end = mm->auxv_start + 16 * nauxv;
    for (unsigned i = 0; i < nauxv; i++) {
        wb_put(&b, auxv[i][0]);
        wb_put(&b, auxv[i][1]);
    }
    wb_flush(&b);
    return b.err;
}

static int load(struct mm *mm, const struct elf_src *src, const struct exec_args *args,
                l4_word_t *entry, l4_word_t *sp)
{
    int e = read_headers(src, &prog);
    if (e)
        return e;
    const struct elf64_ehdr *eh = &prog.eh;
    unsigned stack_prot = PROT_READ | PROT_WRITE;
    static char interp_path[256];
    interp_path[0] = 0;
    for (unsigned i = 0; i < eh->phnum; i++) {
        const struct elf64_phdr *ph = &prog.ph[i];
        if (ph->type == PT_INTERP) {
            if (ph->offset > src->size || ph->filesz < 2 || ph->filesz > sizeof interp_path ||
                ph->filesz > src->size - ph->offset) {
                printf("lx: elf: bad PT_INTERP\n");
                return -ENOEXEC;
            }
            if (!src_read(src, interp_path, ph->filesz, ph->offset))
                return -ENOMEM;
            interp_path[ph->filesz - 1] = 0;
        }
        /* x86-64 Linux (5.8 on): the stack is executable only when PT_GNU_STACK says so. */
        if (ph->type == PT_GNU_STACK && (ph->flags & PF_X))
            stack_prot |= PROT_EXEC;
    }
    l4_word_t bias = load_bias(&prog), phdr_addr, top;
    e = load_segments(mm, src, &prog, bias, &phdr_addr, &top);
    if (e)
        return e;
    mm->brk_start = mm->brk = top;
    mm->mmap_top = MMAP_TOP;
    *entry = eh->entry + bias;
    l4_word_t base = 0;
    if (interp_path[0] && (e = load_interp(mm, interp_path, args->walker, &base, entry)))
        return e;
    return build_stack(mm, eh, bias, base, phdr_addr, stack_prot, args, sp);
}

int elf_load(struct mm *mm, const void *image, l4_word_t size, const struct exec_args *args,
             l4_word_t *entry, l4_word_t *sp)
{
    struct elf_src src = { .image = image, .size = size };
    return load(mm, &src, args, entry, sp);
}

int elf_load_file(struct mm *mm, struct inode *file, const struct exec_args *args,
                  l4_word_t *entry, l4_word_t *sp)
{
    struct elf_src src = { .file = file, .size = file->size };
    return load(mm, &src, args, entry, sp);
}
