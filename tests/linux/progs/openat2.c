/* openat2: struct open_how's size rules (E2BIG for a non-zero tail, EINVAL below version
 * 0), its strict flag, mode and resolve checks, and each RESOLVE_* flag in the path walk:
 * NO_SYMLINKS, NO_MAGICLINKS, NO_XDEV, BENEATH (".." and absolute paths or links out of the
 * dirfd's tree: EXDEV), IN_ROOT (the dirfd as "/"), CACHED. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "corpus.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#define RESOLVE_NO_XDEV       0x01
#define RESOLVE_NO_MAGICLINKS 0x02
#define RESOLVE_NO_SYMLINKS   0x04
#define RESOLVE_BENEATH       0x08
#define RESOLVE_IN_ROOT       0x10
#define RESOLVE_CACHED        0x20

struct how {
    uint64_t flags, mode, resolve;
};

static struct stat target;

static long o2(int dirfd, const char *path, uint64_t flags, uint64_t mode, uint64_t resolve)
{
    struct how h = { flags, mode, resolve };
    return syscall(SYS_openat2, dirfd, path, &h, sizeof h);
}

/* The result, and for a file whether it is o2/f. */
static void show(const char *what, long fd)
{
    if (fd < 0) {
        printf("%s: -1 %s\n", what, errname(errno));
        return;
    }
    struct stat st;
    fstat((int)fd, &st);
    printf("%s: ok%s\n", what, st.st_ino == target.st_ino && st.st_dev == target.st_dev ?
                                   " (o2/f)" : S_ISDIR(st.st_mode) ? " (a directory)" : "");
    close((int)fd);
}

int main(void)
{
    corpus_init();
    mkdir("o2", 0755);
    mkdir("o2/sub", 0755);
    close(open("o2/f", O_CREAT | O_WRONLY, 0644));
    stat("o2/f", &target);
    symlink("f", "o2/lnk");
    symlink("/tmp", "o2/abs");
    symlink("/sub", "o2/abs2");
    symlink("../o2/f", "o2/up");
    int d = open("o2", O_RDONLY | O_DIRECTORY);

    /* the struct */
    struct { struct how h; uint64_t extra[2]; } big = { { O_RDONLY, 0, 0 }, { 0, 0 } };
    show("plain", syscall(SYS_openat2, d, "f", &big, sizeof big.h));
    show("size 23", syscall(SYS_openat2, d, "f", &big, 23));
    show("size 40, zero tail", syscall(SYS_openat2, d, "f", &big, sizeof big));
    big.extra[1] = 1;
    show("size 40, non-zero tail", syscall(SYS_openat2, d, "f", &big, sizeof big));
    void *volatile bad = (void *)8;
    show("bad how pointer", syscall(SYS_openat2, d, "f", bad, sizeof big.h));
    show("bad path pointer", o2(d, bad, O_RDONLY, 0, 0));
    show("empty path", o2(d, "", O_RDONLY, 0, 0));
    show("bad dirfd", o2(99, "f", O_RDONLY, 0, 0));
    show("a file as dirfd", o2(open("o2/f", O_RDONLY), "f", O_RDONLY, 0, 0));

    /* the checks */
    show("unknown flag bit 40", o2(d, "f", 1ull << 40, 0, 0));
    show("unknown flag 0x4000000", o2(d, "f", 0x4000000, 0, 0));
    show("unknown resolve bit", o2(d, "f", O_RDONLY, 0, 0x40));
    show("BENEATH with IN_ROOT", o2(d, "f", O_RDONLY, 0, RESOLVE_BENEATH | RESOLVE_IN_ROOT));
    show("mode without O_CREAT", o2(d, "f", O_RDONLY, 0644, 0));
    show("O_CREAT, mode with S_IFREG", o2(d, "n", O_CREAT | O_WRONLY, 0100644, 0));
    long fd = o2(d, "n", O_CREAT | O_WRONLY, 0640, 0);
    struct stat st;
    fstat((int)fd, &st);
    printf("O_CREAT mode 0640: created %o\n", st.st_mode & 07777);
    close((int)fd);
    show("O_PATH with O_APPEND", o2(d, "f", O_PATH | O_APPEND, 0, 0));
    show("O_PATH with O_NOFOLLOW on a symlink", o2(d, "lnk", O_PATH | O_NOFOLLOW, 0, 0));
    show("O_TMPFILE read-only", o2(d, ".", O_TMPFILE | O_RDONLY, 0600, 0));
    show("CACHED", o2(d, "f", O_RDONLY, 0, RESOLVE_CACHED));
    show("CACHED with O_CREAT", o2(d, "f", O_RDONLY | O_CREAT, 0600, RESOLVE_CACHED));
    show("CACHED with O_TRUNC", o2(d, "f", O_WRONLY | O_TRUNC, 0, RESOLVE_CACHED));

    /* NO_SYMLINKS, NO_MAGICLINKS */
    show("NO_SYMLINKS, a symlink", o2(d, "lnk", O_RDONLY, 0, RESOLVE_NO_SYMLINKS));
    show("NO_SYMLINKS, sub/../f", o2(d, "sub/../f", O_RDONLY, 0, RESOLVE_NO_SYMLINKS));
    show("NO_SYMLINKS, O_PATH|O_NOFOLLOW on a symlink",
         o2(d, "lnk", O_PATH | O_NOFOLLOW, 0, RESOLVE_NO_SYMLINKS));
    char magic[64];
    snprintf(magic, sizeof magic, "/proc/self/fd/%d", d);
    show("a magic link", o2(AT_FDCWD, magic, O_RDONLY, 0, 0));
    show("NO_MAGICLINKS, a magic link", o2(AT_FDCWD, magic, O_RDONLY, 0, RESOLVE_NO_MAGICLINKS));
    show("NO_MAGICLINKS, a symlink", o2(d, "lnk", O_RDONLY, 0, RESOLVE_NO_MAGICLINKS));

    /* NO_XDEV */
    show("NO_XDEV, same mount", o2(d, "sub/../lnk", O_RDONLY, 0, RESOLVE_NO_XDEV));
    show("NO_XDEV into /proc", o2(AT_FDCWD, "/proc/self/status", O_RDONLY, 0, RESOLVE_NO_XDEV));
    int proc = open("/proc", O_RDONLY | O_DIRECTORY);
    show("NO_XDEV, .. out of /proc", o2(proc, "..", O_RDONLY, 0, RESOLVE_NO_XDEV));
    show("NO_XDEV, a file in /proc", o2(proc, "self/status", O_RDONLY, 0, RESOLVE_NO_XDEV));
    close(proc);

    /* BENEATH */
    show("BENEATH, f", o2(d, "f", O_RDONLY, 0, RESOLVE_BENEATH));
    show("BENEATH, sub/../f", o2(d, "sub/../f", O_RDONLY, 0, RESOLVE_BENEATH));
    show("BENEATH, a relative symlink", o2(d, "lnk", O_RDONLY, 0, RESOLVE_BENEATH));
    show("BENEATH, ../o2/f", o2(d, "../o2/f", O_RDONLY, 0, RESOLVE_BENEATH));
    show("BENEATH, an absolute path", o2(d, "/tmp", O_RDONLY, 0, RESOLVE_BENEATH));
    show("BENEATH, an absolute symlink", o2(d, "abs", O_RDONLY, 0, RESOLVE_BENEATH));
    show("BENEATH, a symlink out and back", o2(d, "up", O_RDONLY, 0, RESOLVE_BENEATH));
    show("BENEATH, a magic link", o2(AT_FDCWD, magic, O_RDONLY, 0, RESOLVE_BENEATH));
    show("BENEATH, O_CREAT beneath", o2(d, "sub/new", O_CREAT | O_WRONLY, 0600, RESOLVE_BENEATH));
    show("BENEATH, O_CREAT outside", o2(d, "../new", O_CREAT | O_WRONLY, 0600, RESOLVE_BENEATH));

    /* IN_ROOT */
    show("IN_ROOT, /f", o2(d, "/f", O_RDONLY, 0, RESOLVE_IN_ROOT));
    show("IN_ROOT, ../../f", o2(d, "../../f", O_RDONLY, 0, RESOLVE_IN_ROOT));
    show("IN_ROOT, an absolute symlink to /tmp", o2(d, "abs", O_RDONLY, 0, RESOLVE_IN_ROOT));
    show("IN_ROOT, an absolute symlink to /sub", o2(d, "abs2", O_RDONLY, 0, RESOLVE_IN_ROOT));
    show("IN_ROOT, a symlink out and back", o2(d, "up", O_RDONLY, 0, RESOLVE_IN_ROOT));
    show("IN_ROOT, a magic link", o2(d, magic, O_RDONLY, 0, RESOLVE_IN_ROOT));

    close(d);
    unlink("o2/n"), unlink("o2/sub/new"), unlink("o2/f"), unlink("o2/lnk"), unlink("o2/abs");
    unlink("o2/abs2"), unlink("o2/up"), unlink("new");
    rmdir("o2/sub"), rmdir("o2");
    return 0;
}
