/* A file's pages in its mappings (docs/linux/memory.md §2): a MAP_PRIVATE page not yet written
 * shows the file's later changes (write(2), a MAP_SHARED mapping's stores); after the
 * process's first write it is the process's own copy; fork's child shares the file's page;
 * madvise(MADV_DONTNEED) gives a written page back to the file's contents; mprotect and mremap
 * keep it; truncate makes a page past the new end SIGBUS, and growing the file again shows a
 * hole (zeros); the executable's own pages mapped privately read as the file and a private
 * write leaves the file as it was. */
#include "corpus.h"
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>

#define PG 4096
#define NPAGES 4
#define PATH "/tmp/mmap_filecow"

static sigjmp_buf env;

static void on_bus(int sig)
{
    siglongjmp(env, sig);
}

/* The byte at p, or the signal that touching it raised. */
static void show_byte(const char *what, volatile const char *p)
{
    int sig = sigsetjmp(env, 1);
    if (sig) {
        printf("%s: signal %d\n", what, sig);
        return;
    }
    char c = *p;
    printf("%s: %s%c\n", what, c ? "" : "zero", c ? c : ' ');
}

static char file_byte(int fd, off_t off)
{
    char c = '?';
    if (pread(fd, &c, 1, off) != 1)
        return '!';
    return c;
}

static void put(int fd, off_t off, char c)
{
    if (pwrite(fd, &c, 1, off) != 1)
        printf("pwrite %ld: %s\n", (long)off, errname(errno));
}

/* The program's own file mapped privately: the same bytes as read(); a private write stays
 * private (the file, and a second mapping, keep theirs). */
static void own_executable(void)
{
    int fd = open("/proc/self/exe", O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st)) {
        printf("exe: %s\n", errname(errno));
        return;
    }
    size_t len = (size_t)st.st_size & ~(size_t)(PG - 1);
    char *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    char *w = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED || w == MAP_FAILED) {
        printf("exe mmap: %s\n", errname(errno));
        return;
    }
    static char buf[PG];
    int same = 1;
    for (size_t off = 0; off < len; off += PG)
        if (pread(fd, buf, PG, (off_t)off) != PG || memcmp(buf, m + off, PG) ||
            memcmp(buf, w + off, PG))
            same = 0;
    printf("exe: mappings read as the file: %d\n", same);
    char old = w[PG];
    w[PG] = (char)(old ^ 0x5a);
    printf("exe: private write seen by the writer: %d, by the file: %d, by another mapping: %d\n",
           w[PG] != old, file_byte(fd, PG) != old, m[PG] != old);
    munmap(m, len);
    munmap(w, len);
    close(fd);
}

int main(void)
{
    corpus_init();
    struct sigaction sa = { .sa_handler = on_bus };
    sigaction(SIGBUS, &sa, NULL);
    sigaction(SIGSEGV, &sa, NULL);

    int fd = open(PATH, O_RDWR | O_CREAT | O_TRUNC, 0600);
    static char page[PG];
    for (int i = 0; i < NPAGES; i++) {
        memset(page, 'a' + i, PG);
        if (write(fd, page, PG) != PG)
            printf("write: %s\n", errname(errno));
    }
    char *p = mmap(NULL, NPAGES * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    char *q = mmap(NULL, NPAGES * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED || q == MAP_FAILED) {
        printf("mmap: %s\n", errname(errno));
        return 1;
    }

    /* Page 0: read, then the file changes by write(2), then by the shared mapping. */
    show_byte("private page 0 first read", p);
    put(fd, 0, 'X');
    show_byte("private page 0 after pwrite", p);
    q[1] = 'S';
    show_byte("private page 0 after a shared store", p + 1);
    /* Page 1 never touched before the shared store. */
    q[PG] = 'Y';
    show_byte("private page 1 (untouched) after a shared store", p + PG);

    /* The first private write: a copy of the page as it is now; later changes of the file
     * no longer show, and the file never sees the private store. */
    p[2] = 'P';
    show_byte("private page 0 after its own write", p + 2);
    show_byte("private page 0 keeps the file's bytes of that time", p);
    printf("file byte 2 after the private write: %c, shared mapping: %c\n", file_byte(fd, 2), q[2]);
    put(fd, 0, 'Z');
    q[1] = 'T';
    show_byte("written private page 0 after pwrite", p);
    show_byte("written private page 0 after a shared store", p + 1);

    /* fork: the child shares the file's page (it sees a change made after the fork) until it
     * writes; its write reaches neither the parent nor the file. */
    show_byte("parent page 2 before fork", p + 2 * PG);
    int go[2], done[2];
    if (pipe(go) || pipe(done))
        return 1;
    pid_t c = fork();
    if (c == 0) {
        char b;
        if (read(go[0], &b, 1) != 1)
            _exit(2);
        show_byte("child page 2 after the parent's pwrite", p + 2 * PG);
        p[2 * PG] = 'C';
        show_byte("child page 2 after its own write", p + 2 * PG);
        if (write(done[1], "x", 1) != 1)
            _exit(3);
        _exit(0);
    }
    put(fd, 2 * PG, 'Q');
    char b = 'x';
    if (write(go[1], &b, 1) != 1 || read(done[0], &b, 1) != 1)
        return 1;
    int st;
    waitpid(c, &st, 0);
    show_status("child", st);
    show_byte("parent page 2 after the child's write", p + 2 * PG);
    printf("file byte at page 2: %c\n", file_byte(fd, 2 * PG));

    /* madvise(MADV_DONTNEED): the written page goes; the file's bytes come back. */
    SHOW("madvise DONTNEED page 0", madvise(p, PG, MADV_DONTNEED));
    show_byte("private page 0 after DONTNEED", p);
    show_byte("private page 0 byte 2 after DONTNEED", p + 2);
    put(fd, 0, 'D');
    show_byte("private page 0 after DONTNEED and pwrite", p);

    /* mprotect: read-only and back; the page still follows the file until written. */
    SHOW("mprotect page 3 read-only", mprotect(p + 3 * PG, PG, PROT_READ));
    show_byte("private page 3 read-only", p + 3 * PG);
    put(fd, 3 * PG, 'R');
    show_byte("private page 3 read-only after pwrite", p + 3 * PG);
    SHOW("mprotect page 3 read-write", mprotect(p + 3 * PG, PG, PROT_READ | PROT_WRITE));
    p[3 * PG + 1] = 'w';
    put(fd, 3 * PG, 'r');
    show_byte("private page 3 written after pwrite", p + 3 * PG);
    printf("file bytes at page 3: %c%c\n", file_byte(fd, 3 * PG), file_byte(fd, 3 * PG + 1));

    /* mremap: the moved mapping still shows the file (page 1 untouched by writes). */
    char *r = mremap(p, NPAGES * PG, 2 * NPAGES * PG, MREMAP_MAYMOVE);
    if (r == MAP_FAILED) {
        printf("mremap: %s\n", errname(errno));
        return 1;
    }
    p = r;
    put(fd, PG, 'M');
    show_byte("moved private page 1 after pwrite", p + PG);
    show_byte("moved private page 3 keeps its own", p + 3 * PG + 1);
    show_byte("moved mapping past the file's end", p + NPAGES * PG);

    /* truncate: pages past the new end SIGBUS (untouched, or read but never written) in
     * both mappings; growing the file again gives a hole: zeros. */
    show_byte("private page 2 (parent's, never written) before truncate", p + 2 * PG);
    SHOW("ftruncate to 1 page", ftruncate(fd, PG));
    show_byte("private page 1 after truncate", p + PG);
    show_byte("private page 2 after truncate", p + 2 * PG);
    show_byte("shared page 1 after truncate", q + PG);
    show_byte("private page 0 after truncate", p);
    SHOW("ftruncate to 4 pages", ftruncate(fd, NPAGES * PG));
    show_byte("private page 1 after growing again", p + PG);
    show_byte("shared page 2 after growing again", q + 2 * PG);
    q[PG] = 'G';
    show_byte("private page 1 after a shared store in the hole", p + PG);

    SHOW("munmap private", munmap(p, 2 * NPAGES * PG));
    SHOW("munmap shared", munmap(q, NPAGES * PG));
    close(fd);
    SHOW("unlink", unlink(PATH));

    own_executable();
    return 0;
}
