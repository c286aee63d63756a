/* The ELF64 file format (System V gABI, x86-64 psABI): the file header and the program
 * headers, as far as Pecan's loaders read them.  Shared by the kernel (σ0 and the root task
 * from modules), the Linux server lx (Linux programs) and the host tests. */
#ifndef ELF64_H
#define ELF64_H

#include <stdint.h>

struct elf64_ehdr {
    uint8_t ident[16];          /* 0x7F 'E' 'L' 'F', class 2 (64-bit), data 1 (little end) */
    uint16_t type, machine;
    uint32_t version;
    uint64_t entry, phoff, shoff;
    uint32_t flags;
    uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};

struct elf64_phdr {
    uint32_t type, flags;
    uint64_t offset, vaddr, paddr, filesz, memsz, align;
};

_Static_assert(sizeof(struct elf64_ehdr) == 64, "ELF64 header is 64 bytes");
_Static_assert(sizeof(struct elf64_phdr) == 56, "ELF64 program header is 56 bytes");

#define ET_EXEC       2
#define ET_DYN        3
#define EM_X86_64     62

#define PT_NULL       0
#define PT_LOAD       1
#define PT_NOTE       4
#define PT_PHDR       6
#define PT_TLS        7
#define PT_GNU_STACK  0x6474E551u

#define PF_X          1
#define PF_W          2
#define PF_R          4

#endif
