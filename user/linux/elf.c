/* The ELF loader: a static, non-PIE x86-64 executable becomes regions of a process's memory
 * model (its PT_LOAD segments backed by the image's bytes, bss zero-filled), a heap (brk)
 * after the last segment, a stack, and the initial stack exactly as Linux builds it for
 * _start: argc, argv, envp, the auxiliary vector, RSP 16-byte aligned at argc. */
#include "lx.h"
#include <elf64.h>
#include <stdio.h>
#include <string.h>

#define STACK_TOP    LX_USER_END
#define STACK_SIZE   (8ul << 20)                /* RLIMIT_STACK's default */
#define MMAP_TOP     0x7F0000000000ul           /* mmap grows down from here */


enum {
    AT_NULL = 0, AT_PHDR = 3, AT_PHENT = 4, AT_PHNUM = 5, AT_PAGESZ = 6, AT_BASE = 7,
    AT_FLAGS = 8, AT_ENTRY = 9, AT_UID = 11, AT_EUID = 12, AT_GID = 13, AT_EGID = 14,
    AT_PLATFORM = 15, AT_HWCAP = 16, AT_CLKTCK = 17, AT_SECURE = 23, AT_RANDOM = 25,
    AT_HWCAP2 = 26, AT_EXECFN = 31,
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

static int load_segments(struct mm *mm, const uint8_t *image, l4_word_t size,
                         const struct elf64_ehdr *eh, l4_word_t *phdr_addr)
{
    l4_word_t top = 0;
    *phdr_addr = 0;
    for (unsigned i = 0; i < eh->phnum; i++) {
        const struct elf64_phdr *ph = (const void *)(image + eh->phoff + i * sizeof *ph);
        if (ph->type != PT_LOAD || ph->memsz == 0)
            continue;
        if (ph->filesz > ph->memsz || ph->offset > size || size - ph->offset < ph->filesz ||
            ph->vaddr < LX_MMAP_MIN || ph->memsz > STACK_TOP - STACK_SIZE ||
            ph->vaddr > STACK_TOP - STACK_SIZE - ph->memsz) {
            printf("lx: elf: bad segment %u\n", i);
            return -EINVAL;
        }
        l4_word_t start = ph->vaddr & LX_PAGE_MASK;
        l4_word_t end = (ph->vaddr + ph->memsz + LX_PAGE - 1) & LX_PAGE_MASK;
        /* The file bytes of the segment's first page from its page start, as Linux maps
         * them (if the file has them). */
        l4_word_t head = ph->vaddr - start;
        if (ph->offset < head)
            head = 0;
        l4_word_t fdata = (l4_word_t)image + ph->offset - head;
        int e = mm_map(mm, start, end, prot_of(ph->flags), fdata, ph->vaddr - head,
                       ph->vaddr + ph->filesz);
        if (e)
            return e;
        if (eh->phoff >= ph->offset && eh->phoff - ph->offset < ph->filesz)
            *phdr_addr = ph->vaddr + (eh->phoff - ph->offset);
        if (end > top)
            top = end;
    }
    if (!top) {
        printf("lx: elf: no loadable segment\n");
        return -EINVAL;
    }
    mm->brk_start = mm->brk = top;
    return 0;
}

/* Copy a string to the user stack below *p; its user address. */
static l4_word_t push_string(struct mm *mm, l4_word_t *p, const char *s, int *err)
{
    size_t n = strlen(s) + 1;
    *p -= n;
    if (copy_to_user(mm, *p, s, n))
        *err = -EFAULT;
    return *p;
}

static int build_stack(struct mm *mm, const struct elf64_ehdr *eh, l4_word_t phdr_addr, int argc,
                       char *const argv[], char *const envp[], l4_word_t *sp)
{
    int envc = 0, err = 0;
    while (envp[envc])
        envc++;
    if (argc > LX_ARGV_MAX || envc > LX_ARGV_MAX)
        return -EINVAL;
    int e = mm_map(mm, STACK_TOP - STACK_SIZE, STACK_TOP, PROT_READ | PROT_WRITE, 0, 0, 0);
    if (e)
        return e;
    l4_word_t p = STACK_TOP - 8;            /* the top word stays 0, as in Linux */
    l4_word_t execfn = push_string(mm, &p, argc ? argv[0] : "", &err);
    l4_word_t envs[LX_ARGV_MAX], args[LX_ARGV_MAX];
    for (int i = envc; i-- > 0;)
        envs[i] = push_string(mm, &p, envp[i], &err);
    for (int i = argc; i-- > 0;)
        args[i] = push_string(mm, &p, argv[i], &err);
    l4_word_t platform = push_string(mm, &p, "x86_64", &err);
    uint8_t rnd[16];
    random_bytes(rnd);
    p = (p - 16) & ~15ul;
    l4_word_t random = p;
    if (copy_to_user(mm, random, rnd, sizeof rnd))
        err = -EFAULT;

    l4_word_t auxv[][2] = {
        { AT_HWCAP, hwcap() }, { AT_PAGESZ, LX_PAGE }, { AT_CLKTCK, 100 },
        { AT_PHDR, phdr_addr }, { AT_PHENT, sizeof(struct elf64_phdr) }, { AT_PHNUM, eh->phnum },
        { AT_BASE, 0 }, { AT_FLAGS, 0 }, { AT_ENTRY, eh->entry },
        { AT_UID, 0 }, { AT_EUID, 0 }, { AT_GID, 0 }, { AT_EGID, 0 }, { AT_SECURE, 0 },
        { AT_RANDOM, random }, { AT_HWCAP2, 0 }, { AT_EXECFN, execfn },
        { AT_PLATFORM, platform }, { AT_NULL, 0 },
    };
    unsigned nauxv = sizeof auxv / sizeof auxv[0];
    l4_word_t words[1 + 2 * (LX_ARGV_MAX + 1) + 2 * 20], n = 0;
    words[n++] = (l4_word_t)argc;
    for (int i = 0; i < argc; i++)
        words[n++] = args[i];
    words[n++] = 0;
    for (int i = 0; i < envc; i++)
        words[n++] = envs[i];
    words[n++] = 0;
    for (unsigned i = 0; i < nauxv; i++) {
        words[n++] = auxv[i][0];
        words[n++] = auxv[i][1];
    }
    /* RSP (pointing at argc) 16-byte aligned, as the x86-64 psABI requires at _start. */
    l4_word_t rsp = (p - n * 8) & ~15ul;
    if (copy_to_user(mm, rsp, words, n * 8))
        err = -EFAULT;
    *sp = rsp;
    return err;
}

int elf_load(struct mm *mm, const void *image, l4_word_t size, int argc, char *const argv[],
             char *const envp[], l4_word_t *entry, l4_word_t *sp)
{
    const struct elf64_ehdr *eh = image;
    if (size < sizeof *eh || memcmp(eh->ident, "\177ELF", 4) || eh->ident[4] != 2 ||
        eh->ident[5] != 1 || eh->machine != 62) {
        printf("lx: elf: not an x86-64 ELF64 file\n");
        return -EINVAL;
    }
    if (eh->type != 2) {
        printf("lx: elf: not a static non-PIE executable (type %u)\n", eh->type);
        return -EINVAL;
    }
    if (eh->phentsize != sizeof(struct elf64_phdr) || eh->phoff > size ||
        (size - eh->phoff) / sizeof(struct elf64_phdr) < eh->phnum) {
        printf("lx: elf: bad program headers\n");
        return -EINVAL;
    }
    l4_word_t phdr_addr;
    int e = load_segments(mm, image, size, eh, &phdr_addr);
    if (e)
        return e;
    mm->mmap_top = MMAP_TOP;
    *entry = eh->entry;
    return build_stack(mm, eh, phdr_addr, argc, argv, envp, sp);
}
