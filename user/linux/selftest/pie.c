/* A static-PIE C program for lx's exec test (tests/system/test_lx_exec.py), built against
 * glibc (gcc -static-pie, rcrt1.o) and musl (rcrt1.o) where the host has them, and as an
 * ordinary dynamically linked glibc PIE (its ld.so and libc.so.6 in the test's tree): the C
 * library relocates the program itself through AT_PHDR, sets up TLS from PT_TLS and makes
 * RELRO read-only with mprotect; then malloc (brk and mmap), realloc (mremap in glibc) and
 * a shared file mapping through stdio.  Prints "pie: ..." lines; exit status 0 when every
 * check holds.  Behaves the same on Linux (except the load address, which Linux
 * randomises). */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

extern const char __ehdr_start[];

static __thread int tls_data = 42;
static __thread int tls_bss;
static const char *const relro_table[] = { "one", "two" };  /* relocated, then read-only */
static int failures;

static void check(int ok, const char *what)
{
    printf("pie: %s: %s\n", ok ? "ok" : "FAIL", what);
    failures += !ok;
}

int main(int argc, char **argv)
{
    printf("pie: argc %d, argv[0] %s\n", argc, argv[0]);
    printf("pie: loaded at %p\n", (const void *)__ehdr_start);
    /* AT_BASE: 0 for a static program, the dynamic linker's address for a dynamic one. */
    const Elf64_Phdr *ph = (const Elf64_Phdr *)getauxval(AT_PHDR);
    int dynamic = 0;
    for (unsigned long i = 0; i < getauxval(AT_PHNUM); i++)
        dynamic |= ph[i].p_type == PT_INTERP;
    check(dynamic ? getauxval(AT_BASE) != 0 : getauxval(AT_BASE) == 0,
          dynamic ? "AT_BASE: the dynamic linker" : "AT_BASE 0");
    check(getauxval(AT_PHDR) == (unsigned long)__ehdr_start + ((const Elf64_Ehdr *)__ehdr_start)->e_phoff,
          "AT_PHDR");
    const char *platform = (const char *)getauxval(AT_PLATFORM);
    check(platform && !strcmp(platform, "x86_64"), "AT_PLATFORM");
    check(tls_data == 42 && tls_bss == 0, "TLS from PT_TLS");
    tls_data++, tls_bss++;
    check(tls_data == 43 && tls_bss == 1, "TLS writable");
    check(!strcmp(relro_table[0], "one") && !strcmp(relro_table[1], "two"),
          "relocated pointers in RELRO");
    char *p = malloc(100);
    char *big = malloc(1 << 20);
    check(p && big, "malloc small and large");
    memset(big, 7, 1 << 20);
    big = realloc(big, 8 << 20);
    check(big && big[(1 << 20) - 1] == 7, "realloc of a large block keeps its bytes");
    free(big);
    free(p);

    FILE *f = fopen("/tmp/pie.dat", "w+");
    check(f != NULL, "fopen /tmp/pie.dat");
    if (f) {
        fputs("mapped file contents\n", f);
        fflush(f);
        char *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fileno(f), 0);
        check(m != MAP_FAILED && !memcmp(m, "mapped", 6), "mmap of the file");
        if (m != MAP_FAILED) {
            memcpy(m, "MAPPED", 6);
            check(msync(m, 4096, MS_SYNC) == 0, "msync");
            char buf[8] = "";
            check(pread(fileno(f), buf, 6, 0) == 6 && !memcmp(buf, "MAPPED", 6),
                  "a store to the mapping, seen by pread");
            munmap(m, 4096);
        }
        fclose(f);
        unlink("/tmp/pie.dat");
    }
    printf("pie: %s\n", failures ? "FAILED" : "all passed");
    return failures != 0;
}
