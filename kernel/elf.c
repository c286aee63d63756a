/* ELF64 executables: parse and validate program headers. */
#include "elf.h"
#include <elf64.h>


static bool add_overflows(uint64_t a, uint64_t b) { return a + b < a; }

enum elf_error elf_parse(const void *file, size_t size, struct elf_image *out)
{
    const struct elf64_ehdr *eh = file;
    if (size < sizeof(*eh))
        return ELF_ERR_SHORT;
    if (eh->ident[0] != 0x7F || eh->ident[1] != 'E' || eh->ident[2] != 'L' || eh->ident[3] != 'F')
        return ELF_ERR_MAGIC;
    if (eh->ident[4] != 2 || eh->ident[5] != 1 || eh->type != ET_EXEC || eh->machine != EM_X86_64)
        return ELF_ERR_CLASS;
    /* The table is read in place: it must be aligned (every linker aligns it). */
    if (eh->phentsize != sizeof(struct elf64_phdr) || (eh->phoff & 7) || add_overflows(eh->phoff, (uint64_t)eh->phnum * sizeof(struct elf64_phdr)))
        return ELF_ERR_PHDR;
    if (eh->phoff + (uint64_t)eh->phnum * sizeof(struct elf64_phdr) > size)
        return ELF_ERR_SHORT;

    out->entry = eh->entry;
    out->nseg = 0;
    out->vlow = out->plow = UINT64_MAX;
    out->vhigh = out->phigh = 0;
    const struct elf64_phdr *ph = (const struct elf64_phdr *)((const char *)file + eh->phoff);
    for (unsigned i = 0; i < eh->phnum; i++) {
        if (ph[i].type != PT_LOAD || ph[i].memsz == 0)
            continue;
        if (ph[i].filesz > ph[i].memsz || add_overflows(ph[i].offset, ph[i].filesz) ||
            ph[i].offset + ph[i].filesz > size || add_overflows(ph[i].vaddr, ph[i].memsz) ||
            add_overflows(ph[i].paddr, ph[i].memsz))
            return ELF_ERR_SEGMENT;
        if (out->nseg == ELF_MAX_SEGMENTS)
            return ELF_ERR_TOO_MANY;
        struct elf_segment *s = &out->seg[out->nseg++];
        s->vaddr = ph[i].vaddr;
        s->paddr = ph[i].paddr;
        s->offset = ph[i].offset;
        s->filesz = ph[i].filesz;
        s->memsz = ph[i].memsz;
        s->flags = ph[i].flags;
        if (s->vaddr < out->vlow) out->vlow = s->vaddr;
        if (s->vaddr + s->memsz > out->vhigh) out->vhigh = s->vaddr + s->memsz;
        if (s->paddr < out->plow) out->plow = s->paddr;
        if (s->paddr + s->memsz > out->phigh) out->phigh = s->paddr + s->memsz;
    }
    if (out->nseg == 0)
        return ELF_ERR_EMPTY;
    return ELF_OK;
}

const char *elf_strerror(enum elf_error e)
{
    static const char *const msg[] = {
        "ok", "file too short", "bad magic", "not an x86-64 ELF64 executable",
        "bad program header table", "bad segment", "too many segments", "no loadable segment",
    };
    return (unsigned)e < sizeof(msg) / sizeof(msg[0]) ? msg[e] : "?";
}
