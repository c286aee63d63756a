/* memfd_create and its seals (F_ADD_SEALS, F_GET_SEALS): flags, names, what each seal
 * forbids (write, truncate, grow, shared writable mappings), EBUSY while mapped shared,
 * the seals of an ordinary tmpfs file, /proc/self/fd's name, and the errors. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "corpus.h"

#ifndef F_SEAL_FUTURE_WRITE
#define F_SEAL_FUTURE_WRITE 0x0010
#endif

static int mfd(const char *name, unsigned flags)
{
    return (int)syscall(SYS_memfd_create, name, flags);
}

int main(void)
{
    corpus_init();
    char name[300];
    int fd = TRY("memfd_create plain", mfd("plain", 0));
    struct stat st;
    fstat(fd, &st);
    printf("mode %o nlink %lu size %ld\n", st.st_mode, (unsigned long)st.st_nlink, (long)st.st_size);
    printf("F_GETFL accmode %d\n", fcntl(fd, F_GETFL) & O_ACCMODE);
    printf("F_GETFD %d\n", fcntl(fd, F_GETFD));
    static char buf[8192];
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, buf, sizeof buf - 1);
    printf("link: %.*s\n", (int)(n > 0 ? n : 0), buf);
    SHOW("F_GET_SEALS plain", fcntl(fd, F_GET_SEALS));
    SHOW("F_ADD_SEALS plain", fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE));
    SHOW("write", write(fd, "hello", 5));
    SHOW("pread", pread(fd, buf, 10, 0));
    close(fd);

    int c = mfd("cloexec", MFD_CLOEXEC);
    printf("cloexec F_GETFD %d\n", fcntl(c, F_GETFD));
    close(c);
    SHOW("bad flags", mfd("x", 0x100));
    SHOW("bad pointer", mfd((const char *)8, 0));
    memset(name, 'a', sizeof name);
    name[249] = 0;
    TRY("name 249", fd = mfd(name, 0));
    close(fd);
    name[249] = 'a';
    name[250] = 0;
    SHOW("name 250", mfd(name, 0));
    SHOW("MFD_HUGETLB with other bits", mfd("h", MFD_HUGETLB | 0x100));

    /* sealing */
    int s = TRY("memfd_create sealing", mfd("seal", MFD_CLOEXEC | MFD_ALLOW_SEALING));
    SHOW("F_GET_SEALS", fcntl(s, F_GET_SEALS));
    SHOW("write 256", write(s, memset(buf, (int)0x78, 256), 256));
    SHOW("ftruncate 8192", ftruncate(s, 8192));
    SHOW("F_ADD_SEALS bad", fcntl(s, F_ADD_SEALS, 0x100));
    SHOW("F_ADD_SEALS SHRINK", fcntl(s, F_ADD_SEALS, F_SEAL_SHRINK));
    SHOW("F_GET_SEALS", fcntl(s, F_GET_SEALS));
    SHOW("ftruncate smaller", ftruncate(s, 4096));
    SHOW("ftruncate larger", ftruncate(s, 16384));
    SHOW("F_ADD_SEALS GROW", fcntl(s, F_ADD_SEALS, F_SEAL_GROW));
    SHOW("ftruncate larger", ftruncate(s, 32768));
    SHOW("ftruncate same", ftruncate(s, 16384));
    SHOW("pwrite inside", pwrite(s, "abc", 3, 100));
    SHOW("pwrite past the end", pwrite(s, "abc", 3, 16384));
    SHOW("pwrite across the end", pwrite(s, buf, 200, 16300));
    SHOW("pwrite pages across the end", pwrite(s, buf, 4000, 12000));
    SHOW("fallocate past", fallocate(s, 0, 16000, 1000));
    SHOW("fallocate inside", fallocate(s, 0, 0, 1000));
    fstat(s, &st);
    printf("size %ld\n", (long)st.st_size);

    /* F_SEAL_WRITE: EBUSY while a shared mapping exists */
    char *m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, s, 0);
    printf("mmap shared: %s\n", m == MAP_FAILED ? errname(errno) : "ok");
    SHOW("F_ADD_SEALS WRITE while mapped", fcntl(s, F_ADD_SEALS, F_SEAL_WRITE));
    munmap(m, 4096);
    char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, s, 0);
    SHOW("F_ADD_SEALS WRITE with a private mapping", fcntl(s, F_ADD_SEALS, F_SEAL_WRITE));
    printf("private mapping still writes: %d\n", (p[0] = 'z') == 'z');
    munmap(p, 4096);
    SHOW("F_GET_SEALS", fcntl(s, F_GET_SEALS));
    SHOW("write sealed", write(s, "a", 1));
    SHOW("pwrite sealed", pwrite(s, "a", 1, 0));
    SHOW("write 0 sealed", write(s, "a", 0));
    SHOW("read sealed", pread(s, buf, 3, 100));
    m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, s, 0);
    printf("mmap shared writable: %s\n", m == MAP_FAILED ? errname(errno) : "ok");
    m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, s, 0);
    printf("mmap shared read-only: %s\n", m == MAP_FAILED ? errname(errno) : "ok");
    m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, s, 0);
    printf("mmap private writable: %s\n", m == MAP_FAILED ? errname(errno) : "ok");
    SHOW("fallocate punch sealed", fallocate(s, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 10));
    SHOW("F_ADD_SEALS SEAL", fcntl(s, F_ADD_SEALS, F_SEAL_SEAL));
    SHOW("F_ADD_SEALS after SEAL", fcntl(s, F_ADD_SEALS, F_SEAL_SHRINK));
    SHOW("F_GET_SEALS", fcntl(s, F_GET_SEALS));

    /* F_SEAL_FUTURE_WRITE: existing read-only mappings stay, none becomes writable */
    int fw = mfd("future", MFD_ALLOW_SEALING);
    ftruncate(fw, 4096);
    m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fw, 0);
    SHOW("F_ADD_SEALS FUTURE_WRITE while mapped", fcntl(fw, F_ADD_SEALS, F_SEAL_FUTURE_WRITE));
    SHOW("write future-sealed", write(fw, "a", 1));
    char *m2 = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fw, 0);
    printf("mmap shared read-only: %s\n", m2 == MAP_FAILED ? errname(errno) : "ok");
    SHOW("mprotect it writable", mprotect(m2, 4096, PROT_READ | PROT_WRITE));
    m2 = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fw, 0);
    printf("mmap shared writable: %s\n", m2 == MAP_FAILED ? errname(errno) : "ok");
    SHOW("ftruncate future-sealed", ftruncate(fw, 100));

    /* a read-only fd cannot add seals */
    snprintf(link, sizeof link, "/proc/self/fd/%d", fw);
    int ro = open(link, O_RDONLY);
    SHOW("reopen read-only F_GET_SEALS", fcntl(ro, F_GET_SEALS));
    int fw2 = mfd("ro", MFD_ALLOW_SEALING);
    snprintf(link, sizeof link, "/proc/self/fd/%d", fw2);
    int ro2 = open(link, O_RDONLY);
    SHOW("F_ADD_SEALS on a read-only fd", fcntl(ro2, F_ADD_SEALS, F_SEAL_GROW));

    /* an ordinary tmpfs file has F_SEAL_SEAL; a pipe has no seals */
    int f = open("memfd_plain", O_CREAT | O_RDWR, 0644);
    SHOW("tmpfs file F_GET_SEALS", fcntl(f, F_GET_SEALS));
    SHOW("tmpfs file F_ADD_SEALS", fcntl(f, F_ADD_SEALS, F_SEAL_GROW));
    unlink("memfd_plain");
    int pp[2];
    pipe(pp);
    SHOW("pipe F_GET_SEALS", fcntl(pp[0], F_GET_SEALS));
    SHOW("bad fd F_GET_SEALS", fcntl(999, F_GET_SEALS));

    /* a child sees the data through an inherited memfd */
    int d = mfd("shared", 0);
    write(d, "from parent", 11);
    pid_t pid = fork();
    if (!pid) {
        char b[16] = { 0 };
        pread(d, b, 11, 0);
        printf("child reads: %s\n", b);
        pwrite(d, "CHILD", 5, 0);
        _exit(0);
    }
    int status;
    waitpid(pid, &status, 0);
    char b[16] = { 0 };
    pread(d, b, 11, 0);
    printf("parent reads: %s\n", b);
    return 0;
}
