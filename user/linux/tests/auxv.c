/* auxv: print the initial process state the kernel built (argc, argv, envp and the auxiliary
 * vector entries the lx personality must provide) in a form that is the same on every run and on
 * Linux and lx alike: values that change between runs (addresses, random bytes) are checked
 * and printed as "ok"/"present" instead of their value.  Exit status 0 when every check holds.
 *
 * The vector is read from the stack (after envp's terminating NULL), not through getauxval(), so
 * what is seen is exactly what the kernel wrote. */
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The linker defines it at the ELF header of the executable (static and static-PIE alike). */
extern const ElfW(Ehdr) __ehdr_start;
extern void _start(void);

struct want {
    unsigned long type;
    const char *name;
    int seen;
    unsigned long value;
};

static struct want wanted[] = {
    { AT_PHDR, "AT_PHDR", 0, 0 },   { AT_PHENT, "AT_PHENT", 0, 0 },
    { AT_PHNUM, "AT_PHNUM", 0, 0 }, { AT_PAGESZ, "AT_PAGESZ", 0, 0 },
    { AT_ENTRY, "AT_ENTRY", 0, 0 }, { AT_RANDOM, "AT_RANDOM", 0, 0 },
    { AT_EXECFN, "AT_EXECFN", 0, 0 }, { AT_CLKTCK, "AT_CLKTCK", 0, 0 },
    { AT_HWCAP, "AT_HWCAP", 0, 0 }, { AT_UID, "AT_UID", 0, 0 },
    { AT_EUID, "AT_EUID", 0, 0 },   { AT_GID, "AT_GID", 0, 0 },
    { AT_EGID, "AT_EGID", 0, 0 },   { AT_SECURE, "AT_SECURE", 0, 0 },
};
#define NWANTED (sizeof(wanted) / sizeof(wanted[0]))

static int failures;

static void check(const char *what, int ok)
{
    printf("%s: %s\n", what, ok ? "ok" : "WRONG");
    if (!ok)
        failures++;
}

int main(int argc, char **argv, char **envp)
{
    char **p = envp;
    int envc = 0;

    printf("argc=%d\n", argc);
    for (int i = 0; i < argc; i++)
        printf("argv[%d]=%s\n", i, argv[i]);
    check("argv[argc] == NULL", argv[argc] == NULL);
    /* The kernel puts argc at the initial stack pointer, argv right above it, envp right after
     * argv's NULL; the stack pointer is 16-byte aligned at process entry. */
    check("envp follows argv", envp == argv + argc + 1);
    check("entry stack 16-byte aligned", ((uintptr_t)(argv - 1) & 15) == 0);
    for (; *p; p++, envc++)
        printf("envp[%d]=%s\n", envc, *p);

    ElfW(auxv_t) *av = (ElfW(auxv_t) *)(p + 1);
    int other = 0;
    for (; av->a_type != AT_NULL; av++) {
        size_t i;
        for (i = 0; i < NWANTED; i++) {
            if (wanted[i].type == av->a_type) {
                wanted[i].seen++;
                wanted[i].value = av->a_un.a_val;
                break;
            }
        }
        if (i == NWANTED)
            other++;
    }

    for (size_t i = 0; i < NWANTED; i++) {
        struct want *w = &wanted[i];
        if (w->seen != 1) {
            printf("%s: %s\n", w->name, w->seen ? "DUPLICATE" : "MISSING");
            failures++;
            continue;
        }
        switch (w->type) {
        case AT_PHDR:   /* the load address varies for static-PIE */
            check("AT_PHDR", w->value == (uintptr_t)&__ehdr_start + __ehdr_start.e_phoff);
            break;
        case AT_ENTRY:
            check("AT_ENTRY", w->value == (uintptr_t)&_start);
            break;
        case AT_PHENT:
            check("AT_PHENT", w->value == __ehdr_start.e_phentsize);
            break;
        case AT_PHNUM:
            check("AT_PHNUM", w->value == __ehdr_start.e_phnum);
            break;
        case AT_RANDOM: {   /* 16 random bytes: readable, and not all zero */
            const unsigned char *r = (const unsigned char *)w->value;
            int nonzero = 0;
            for (int k = 0; k < 16; k++)
                nonzero |= r[k];
            printf("AT_RANDOM: present%s\n", nonzero ? "" : " (all zero)");
            break;
        }
        case AT_EXECFN:
            printf("AT_EXECFN=%s\n", (const char *)w->value);
            break;
        case AT_HWCAP:
            printf("AT_HWCAP=%#lx\n", w->value);
            break;
        default:
            printf("%s=%lu\n", w->name, w->value);
            break;
        }
    }
    /* Others (AT_SYSINFO_EHDR, AT_HWCAP2, AT_PLATFORM, ...) differ between kernels: counted to
     * stderr only, so stdout stays comparable. */
    fprintf(stderr, "auxv: %d other entries\n", other);
    fflush(stdout);
    return failures != 0;
}
