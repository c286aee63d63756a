/* ELF64 executables: parse and validate program headers (pure logic, unit-tested on the host). */
#ifndef ELF_H
#define ELF_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

#define ELF_MAX_SEGMENTS 16
#define ELF_PF_X 1
#define ELF_PF_W 2
#define ELF_PF_R 4

struct elf_segment {
    uint64_t vaddr, paddr, offset, filesz, memsz;
    uint32_t flags;
};

struct elf_image {
    uint64_t entry;
    unsigned nseg;
    struct elf_segment seg[ELF_MAX_SEGMENTS];
    uint64_t vlow, vhigh;           /* [vlow, vhigh) spanned by the segments (virtual) */
    uint64_t plow, phigh;           /* the same, physical */
};

enum elf_error {
    ELF_OK = 0,
    ELF_ERR_SHORT,          /* file smaller than its headers claim */
    ELF_ERR_MAGIC,
    ELF_ERR_CLASS,          /* not ELF64 little-endian x86-64 executable */
    ELF_ERR_PHDR,           /* malformed program header table */
    ELF_ERR_SEGMENT,        /* segment outside the file, filesz > memsz, or overflow */
    ELF_ERR_TOO_MANY,
    ELF_ERR_EMPTY,          /* no loadable segment */
};

enum elf_error elf_parse(const void *file, size_t size, struct elf_image *out);
const char *elf_strerror(enum elf_error e);

#endif
