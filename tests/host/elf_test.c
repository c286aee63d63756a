/* Host unit test of the ELF64 program-header parser, compiled with the real kernel/elf.c.
 *
 * Cases build headers by hand and exercise every error path.  "--file PATH" parses a file
 * produced by the host toolchain and prints what elf_parse found, for test_kernel_units.py to
 * compare with `readelf -lW`. */
#include "unit_check.h"
#include "elf.h"

#define PT_NULL 0
#define PT_LOAD 1
#define PT_NOTE 4
#define PT_PHDR 6
#define PT_GNU_STACK 0x6474E551u

/* The file format, written down here from the ELF specification on purpose (kernel/elf.c and lx
 * share include/elf64.h): a mistake in one is then caught by the other. */
struct ehdr {
    unsigned char ident[16];
    uint16_t type, machine;
    uint32_t version;
    uint64_t entry, phoff, shoff;
    uint32_t flags;
    uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};

struct phdr {
    uint32_t type, flags;
    uint64_t offset, vaddr, paddr, filesz, memsz, align;
};

_Static_assert(sizeof(struct ehdr) == 64, "ELF64 header is 64 bytes");
_Static_assert(sizeof(struct phdr) == 56, "ELF64 program header is 56 bytes");

#define FILE_SIZE 0x4000ul
static _Alignas(8) unsigned char buf[FILE_SIZE];

static struct ehdr *eh(void) { return (struct ehdr *)buf; }
static struct phdr *ph(unsigned i) { return (struct phdr *)(buf + eh()->phoff) + i; }

/* A valid executable: text at 0x1000 (file) -> 0x400000, data+bss at 0x2000 -> 0x600000. */
static void build(unsigned nph)
{
    memset(buf, 0, sizeof(buf));
    struct ehdr *e = eh();
    memcpy(e->ident, "\x7F" "ELF", 4);
    e->ident[4] = 2;            /* ELFCLASS64 */
    e->ident[5] = 1;            /* little endian */
    e->ident[6] = 1;            /* EV_CURRENT */
    e->type = 2;                /* ET_EXEC */
    e->machine = 62;            /* EM_X86_64 */
    e->version = 1;
    e->entry = 0x400080;
    e->phoff = 64;
    e->ehsize = 64;
    e->phentsize = 56;
    e->phnum = (uint16_t)nph;
    for (unsigned i = 0; i < nph; i++)
        *ph(i) = (struct phdr){ PT_NOTE, 4, 0x100, 0, 0, 0x10, 0x10, 4 };
    if (nph > 0)
        *ph(0) = (struct phdr){ PT_LOAD, ELF_PF_R | ELF_PF_X, 0x1000, 0x400000, 0x1400000, 0x800, 0x800, 0x1000 };
    if (nph > 1)
        *ph(1) = (struct phdr){ PT_LOAD, ELF_PF_R | ELF_PF_W, 0x2000, 0x600000, 0x1600000, 0x100, 0x5000, 0x1000 };
}

static enum elf_error parse(size_t size, struct elf_image *img)
{
    return elf_parse(buf, size, img);
}

#define EXPECT(err, size, what)                                                     \
    do {                                                                            \
        struct elf_image img_;                                                      \
        memset(&img_, 0xEE, sizeof(img_));                                          \
        enum elf_error got_ = parse(size, &img_);                                   \
        CHECK(got_ == (err), "%s: elf_parse = %d (%s), expected %d (%s)", what,     \
              got_, elf_strerror(got_), err, elf_strerror(err));                    \
    } while (0)

static void test_valid(void)
{
    build(3);
    struct elf_image img;
    memset(&img, 0xEE, sizeof(img));
    enum elf_error e = parse(FILE_SIZE, &img);
    CHECK_EQ(e, ELF_OK, "hand-built executable with two PT_LOAD and one PT_NOTE");
    CHECK_EQ(img.entry, 0x400080, "entry");
    CHECK_EQ(img.nseg, 2, "only PT_LOAD segments are recorded");
    CHECK_EQ(img.seg[0].vaddr, 0x400000, "seg 0 vaddr");
    CHECK_EQ(img.seg[0].paddr, 0x1400000, "seg 0 paddr");
    CHECK_EQ(img.seg[0].offset, 0x1000, "seg 0 offset");
    CHECK_EQ(img.seg[0].filesz, 0x800, "seg 0 filesz");
    CHECK_EQ(img.seg[0].memsz, 0x800, "seg 0 memsz");
    CHECK_EQ(img.seg[0].flags, ELF_PF_R | ELF_PF_X, "seg 0 flags");
    CHECK_EQ(img.seg[1].filesz, 0x100, "seg 1 filesz");
    CHECK_EQ(img.seg[1].memsz, 0x5000, "seg 1 memsz (bss)");
    CHECK_EQ(img.seg[1].flags, ELF_PF_R | ELF_PF_W, "seg 1 flags");
    CHECK_EQ(img.vlow, 0x400000, "vlow");
    CHECK_EQ(img.vhigh, 0x605000, "vhigh = end of bss");
    CHECK_EQ(img.plow, 0x1400000, "plow");
    CHECK_EQ(img.phigh, 0x1605000, "phigh");

    /* Segment order does not matter for the bounds. */
    build(2);
    struct phdr t = *ph(0); *ph(0) = *ph(1); *ph(1) = t;
    memset(&img, 0, sizeof(img));
    CHECK_EQ(parse(FILE_SIZE, &img), ELF_OK, "segments in descending order");
    CHECK(img.vlow == 0x400000 && img.vhigh == 0x605000 && img.plow == 0x1400000 && img.phigh == 0x1605000,
          "bounds over unordered segments: v [%#llx, %#llx) p [%#llx, %#llx)",
          (unsigned long long)img.vlow, (unsigned long long)img.vhigh,
          (unsigned long long)img.plow, (unsigned long long)img.phigh);

    /* Boundaries that are still fine. */
    build(2);
    ph(1)->filesz = FILE_SIZE - ph(1)->offset;
    ph(1)->memsz = ph(1)->filesz;
    EXPECT(ELF_OK, FILE_SIZE, "segment ending exactly at the end of the file");
    build(2);
    eh()->phoff = FILE_SIZE - 2 * 56;
    memcpy(buf + FILE_SIZE - 2 * 56, buf + 64, 2 * 56);
    EXPECT(ELF_OK, FILE_SIZE, "program header table ending exactly at the end of the file");
    build(2);
    ph(1)->filesz = 0;
    EXPECT(ELF_OK, FILE_SIZE, "pure bss segment (filesz 0)");
    build(2);
    ph(1)->vaddr = ~0ull - ph(1)->memsz;
    ph(1)->paddr = ~0ull - ph(1)->memsz;
    EXPECT(ELF_OK, FILE_SIZE, "segment ending one byte below 2^64");
    build(2);
    ph(1)->offset = ~0ull;          /* ignored: nothing to load, memsz 0 */
    ph(1)->memsz = 0;
    ph(1)->filesz = 0;
    memset(&img, 0, sizeof(img));
    CHECK_EQ(parse(FILE_SIZE, &img), ELF_OK, "PT_LOAD with memsz 0 is ignored");
    CHECK_EQ(img.nseg, 1, "... and not recorded");
    build(2);
    eh()->shoff = ~0ull;            /* section headers are not looked at */
    eh()->shnum = 1000;
    EXPECT(ELF_OK, FILE_SIZE, "bogus section header fields are ignored");
}

static void test_short(void)
{
    build(2);
    EXPECT(ELF_ERR_SHORT, 0, "empty file");
    EXPECT(ELF_ERR_SHORT, 1, "1 byte");
    EXPECT(ELF_ERR_SHORT, 63, "63 bytes: shorter than the ELF header");
    EXPECT(ELF_ERR_SHORT, 64, "header only: program headers beyond the end");
    EXPECT(ELF_ERR_SHORT, 64 + 2 * 56 - 1, "program header table one byte short");
    EXPECT(ELF_ERR_SEGMENT, 64 + 2 * 56, "program headers present, segment data missing");
    build(2);
    eh()->phoff = FILE_SIZE;
    EXPECT(ELF_ERR_SHORT, FILE_SIZE, "phoff at the end of the file");
    build(2);
    eh()->phoff = 1ull << 40;
    EXPECT(ELF_ERR_SHORT, FILE_SIZE, "phoff far beyond the file");
    build(2);
    eh()->phnum = 0xFFFF;
    EXPECT(ELF_ERR_SHORT, FILE_SIZE, "phnum 65535 does not fit the file");
    build(2);
    eh()->phoff = 65;
    EXPECT(ELF_ERR_PHDR, FILE_SIZE, "misaligned program header table");
}

static void test_ident(void)
{
    for (int i = 0; i < 4; i++) {
        build(2);
        buf[i] ^= 0x20;
        char what[64];
        snprintf(what, sizeof(what), "magic byte %d wrong", i);
        EXPECT(ELF_ERR_MAGIC, FILE_SIZE, what);
    }
    build(2);
    buf[4] = 1;
    EXPECT(ELF_ERR_CLASS, FILE_SIZE, "ELFCLASS32");
    build(2);
    buf[4] = 0;
    EXPECT(ELF_ERR_CLASS, FILE_SIZE, "ELFCLASSNONE");
    build(2);
    buf[5] = 2;
    EXPECT(ELF_ERR_CLASS, FILE_SIZE, "big endian");
    build(2);
    buf[5] = 0;
    EXPECT(ELF_ERR_CLASS, FILE_SIZE, "no data encoding");
    static const uint16_t types[] = { 0, 1, 3, 4, 0xFE00 };
    static const char *const tnames[] = { "ET_NONE", "ET_REL", "ET_DYN", "ET_CORE", "ET_LOOS" };
    for (unsigned i = 0; i < 5; i++) {
        build(2);
        eh()->type = types[i];
        EXPECT(ELF_ERR_CLASS, FILE_SIZE, tnames[i]);
    }
    static const uint16_t machines[] = { 0, 3, 40, 183, 243 };
    for (unsigned i = 0; i < 5; i++) {
        build(2);
        eh()->machine = machines[i];
        char what[64];
        snprintf(what, sizeof(what), "e_machine %u (not x86-64)", machines[i]);
        EXPECT(ELF_ERR_CLASS, FILE_SIZE, what);
    }
}

static void test_phdr_table(void)
{
    static const uint16_t sizes[] = { 0, 32, 55, 57, 64 };
    for (unsigned i = 0; i < 5; i++) {
        build(2);
        eh()->phentsize = sizes[i];
        char what[64];
        snprintf(what, sizeof(what), "e_phentsize %u", sizes[i]);
        EXPECT(ELF_ERR_PHDR, FILE_SIZE, what);
    }
    build(2);
    eh()->phoff = ~0ull - 56;
    EXPECT(ELF_ERR_PHDR, FILE_SIZE, "phoff + table size overflows");
    build(2);
    eh()->phoff = ~0ull - 2 * 56 + 1;
    EXPECT(ELF_ERR_PHDR, FILE_SIZE, "phoff + table size = 2^64 exactly (wraps to 0)");
    build(0);
    EXPECT(ELF_ERR_EMPTY, FILE_SIZE, "no program headers at all");
}

static void test_segments(void)
{
    build(2);
    ph(1)->filesz = FILE_SIZE - ph(1)->offset + 1;
    ph(1)->memsz = ph(1)->filesz;
    EXPECT(ELF_ERR_SEGMENT, FILE_SIZE, "segment data one byte beyond the file");
    build(2);
    ph(1)->offset = FILE_SIZE;
    ph(1)->filesz = 1;
    EXPECT(ELF_ERR_SEGMENT, FILE_SIZE, "segment starting at the end of the file");
    build(2);
    ph(0)->filesz = ph(0)->memsz + 1;
    EXPECT(ELF_ERR_SEGMENT, FILE_SIZE, "filesz > memsz");
    build(2);
    ph(1)->offset = ~0ull - 0x10;
    ph(1)->filesz = 0x20;
    EXPECT(ELF_ERR_SEGMENT, FILE_SIZE, "offset + filesz overflows");
    build(2);
    ph(1)->offset = ~0ull - 0x1F;
    ph(1)->filesz = 0x20;
    EXPECT(ELF_ERR_SEGMENT, FILE_SIZE, "offset + filesz = 2^64 exactly");
    build(2);
    ph(1)->vaddr = ~0ull - 0x1000;
    EXPECT(ELF_ERR_SEGMENT, FILE_SIZE, "vaddr + memsz overflows");
    build(2);
    ph(1)->paddr = ~0ull - 0x1000;
    EXPECT(ELF_ERR_SEGMENT, FILE_SIZE, "paddr + memsz overflows");
    build(2);
    ph(1)->vaddr = ~0ull - ph(1)->memsz + 1;
    EXPECT(ELF_ERR_SEGMENT, FILE_SIZE, "vaddr + memsz = 2^64 exactly");
    build(2);
    ph(1)->memsz = ~0ull;
    EXPECT(ELF_ERR_SEGMENT, FILE_SIZE, "memsz 2^64-1");
    build(3);
    ph(2)->type = PT_LOAD;
    ph(2)->filesz = 0x20;
    ph(2)->memsz = 0x10;
    EXPECT(ELF_ERR_SEGMENT, FILE_SIZE, "a bad third segment after two good ones");
    build(2);
    ph(0)->type = PT_NOTE;
    ph(1)->type = PT_PHDR;
    EXPECT(ELF_ERR_EMPTY, FILE_SIZE, "no PT_LOAD (PT_NOTE, PT_PHDR)");
    build(2);
    ph(0)->type = PT_GNU_STACK;
    ph(1)->type = PT_NULL;
    EXPECT(ELF_ERR_EMPTY, FILE_SIZE, "no PT_LOAD (PT_GNU_STACK, PT_NULL)");
    build(2);
    ph(0)->memsz = ph(0)->filesz = 0;
    ph(1)->memsz = ph(1)->filesz = 0;
    EXPECT(ELF_ERR_EMPTY, FILE_SIZE, "only empty PT_LOAD segments");
    build(2);
    ph(0)->type = PT_NOTE;
    ph(0)->filesz = 0x100000;      /* a bad non-LOAD header is not a loadable segment */
    EXPECT(ELF_OK, FILE_SIZE, "non-PT_LOAD header with bogus sizes is ignored");
}

static void test_too_many(void)
{
    for (unsigned n = ELF_MAX_SEGMENTS - 1; n <= ELF_MAX_SEGMENTS + 2; n++) {
        build(n + 2);
        for (unsigned i = 0; i < n; i++)
            *ph(i) = (struct phdr){ PT_LOAD, ELF_PF_R, 0x1000, 0x400000 + i * 0x1000ull,
                                    0x400000 + i * 0x1000ull, 0x100, 0x1000, 0x1000 };
        struct elf_image img;
        enum elf_error e = parse(FILE_SIZE, &img);
        char what[80];
        snprintf(what, sizeof(what), "%u PT_LOAD segments (+2 PT_NOTE)", n);
        CHECK_EQ(e, n <= ELF_MAX_SEGMENTS ? ELF_OK : ELF_ERR_TOO_MANY, "%s", what);
        if (n <= ELF_MAX_SEGMENTS && e == ELF_OK) {
            CHECK_EQ(img.nseg, n, "%s: all recorded", what);
            CHECK_EQ(img.vhigh, 0x400000 + n * 0x1000ull, "%s: vhigh", what);
        }
    }
    /* Empty PT_LOADs do not count against the limit. */
    build(ELF_MAX_SEGMENTS + 4);
    for (unsigned i = 0; i < ELF_MAX_SEGMENTS + 4; i++)
        *ph(i) = (struct phdr){ PT_LOAD, ELF_PF_R, 0x1000, 0x400000 + i * 0x1000ull,
                                0x400000 + i * 0x1000ull, 0, i % 5 == 0 ? 0 : 0x1000, 0x1000 };
    EXPECT(ELF_OK, FILE_SIZE, "20 PT_LOAD of which 4 empty: 16 loadable");
}

static void test_strerror(void)
{
    for (int e = ELF_OK; e <= ELF_ERR_EMPTY; e++) {
        const char *s = elf_strerror((enum elf_error)e);
        CHECK(s && *s && strcmp(s, "?"), "elf_strerror(%d) = \"%s\"", e, s ? s : "(null)");
    }
    CHECK(!strcmp(elf_strerror(ELF_OK), "ok"), "ELF_OK is \"ok\"");
    CHECK(!strcmp(elf_strerror((enum elf_error)(ELF_ERR_EMPTY + 1)), "?"), "unknown error: \"?\"");
    CHECK(!strcmp(elf_strerror((enum elf_error)-1), "?"), "negative error: \"?\"");
}

/* Parse a file from the host toolchain; print the result for the Python side. */
static int parse_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        printf("FAIL cannot open %s\n", path);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    /* Exact-size heap copy: AddressSanitizer catches any read beyond the file. */
    unsigned char *data = malloc(n > 0 ? (size_t)n : 1);
    if (n > 0 && fread(data, 1, (size_t)n, f) != (size_t)n) {
        printf("FAIL cannot read %s\n", path);
        return 1;
    }
    fclose(f);
    struct elf_image img;
    enum elf_error e = elf_parse(data, (size_t)n, &img);
    printf("result %d %s\n", e, elf_strerror(e));
    if (e == ELF_OK) {
        printf("entry %#llx\n", (unsigned long long)img.entry);
        for (unsigned i = 0; i < img.nseg; i++)
            printf("seg offset=%#llx vaddr=%#llx paddr=%#llx filesz=%#llx memsz=%#llx flags=%u\n",
                   (unsigned long long)img.seg[i].offset, (unsigned long long)img.seg[i].vaddr,
                   (unsigned long long)img.seg[i].paddr, (unsigned long long)img.seg[i].filesz,
                   (unsigned long long)img.seg[i].memsz, img.seg[i].flags);
        printf("bounds vlow=%#llx vhigh=%#llx plow=%#llx phigh=%#llx\n",
               (unsigned long long)img.vlow, (unsigned long long)img.vhigh,
               (unsigned long long)img.plow, (unsigned long long)img.phigh);
    }
    free(data);
    return 0;
}

static const struct uc_case cases[] = {
    UC_CASE(test_valid),
    UC_CASE(test_short),
    UC_CASE(test_ident),
    UC_CASE(test_phdr_table),
    UC_CASE(test_segments),
    UC_CASE(test_too_many),
    UC_CASE(test_strerror),
};

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--file"))
        return parse_file(argv[2]);
    return uc_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
