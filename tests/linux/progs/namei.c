/* Names: the errors of mkdir(at), rmdir, unlink(at), rename(at2), link(at), symlink(at),
 * mknod(at) and open(O_CREAT) in the corner cases, in Linux's order: ".", "..", "/",
 * trailing slashes, a mount point, a removed working directory, bad and non-directory
 * dirfds, a file in the middle of a path, an ancestor as the target of a rename. */
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "corpus.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE 1
#define RENAME_EXCHANGE  2
#endif

static void touch(const char *path)
{
    int fd = open(path, O_CREAT | O_WRONLY, 0644);
    if (fd >= 0)
        close(fd);
}

int main(void)
{
    corpus_init();
    mkdir("d", 0755);
    mkdir("d/e", 0755);
    touch("f");
    touch("d/g");

    /* mkdir, mkdirat */
    SHOW("mkdir d (exists)", mkdir("d", 0755));
    SHOW("mkdir d/ (exists, slash)", mkdir("d/", 0755));
    SHOW("mkdir n/ (new, slash)", mkdir("n/", 0755));
    SHOW("mkdir n2//", mkdir("n2//", 0755));
    SHOW("mkdir f (a file)", mkdir("f", 0755));
    SHOW("mkdir f/ (a file, slash)", mkdir("f/", 0755));
    SHOW("mkdir f/x (under a file)", mkdir("f/x", 0755));
    SHOW("mkdir missing/x", mkdir("missing/x", 0755));
    SHOW("mkdir .", mkdir(".", 0755));
    SHOW("mkdir ..", mkdir("..", 0755));
    SHOW("mkdir /", mkdir("/", 0755));
    SHOW("mkdir d/.", mkdir("d/.", 0755));
    SHOW("mkdir empty name", mkdir("", 0755));
    SHOW("mkdirat bad dirfd", mkdirat(99, "x", 0755));
    SHOW("mkdirat negative dirfd", mkdirat(-5, "x", 0755));
    int ffd = open("f", O_RDONLY), dfd = open("d", O_RDONLY | O_DIRECTORY);
    SHOW("mkdirat a file's fd", mkdirat(ffd, "x", 0755));
    SHOW("mkdirat bad dirfd, absolute", mkdirat(99, "/tmp", 0755));
    SHOW("mkdirat dirfd", mkdirat(dfd, "h", 0755));
    SHOW("mkdirat dirfd again", mkdirat(dfd, "h", 0755));
    SHOW("mkdirat bad dirfd, empty", mkdirat(99, "", 0755));

    /* rmdir */
    SHOW("rmdir d (not empty)", rmdir("d"));
    SHOW("rmdir d/ (not empty, slash)", rmdir("d/"));
    SHOW("rmdir .", rmdir("."));
    SHOW("rmdir ..", rmdir(".."));
    SHOW("rmdir /", rmdir("/"));
    SHOW("rmdir d/e/.", rmdir("d/e/."));
    SHOW("rmdir d/e/..", rmdir("d/e/.."));
    SHOW("rmdir f (a file)", rmdir("f"));
    SHOW("rmdir f/ (a file, slash)", rmdir("f/"));
    SHOW("rmdir missing", rmdir("missing"));
    SHOW("rmdir f/x (under a file)", rmdir("f/x"));
    SHOW("rmdir empty name", rmdir(""));
    SHOW("rmdir d/h/ (slash)", rmdir("d/h/"));
    SHOW("unlinkat AT_REMOVEDIR bad dirfd", unlinkat(99, "x", AT_REMOVEDIR));
    SHOW("unlinkat AT_REMOVEDIR a file's fd", unlinkat(ffd, "x", AT_REMOVEDIR));
    SHOW("unlinkat bad flag", unlinkat(dfd, "g", 0x4000));
    mkdir("m", 0755);
    if (mount("none", "m", "tmpfs", 0, "size=64k") == 0) {
        SHOW("rmdir a mount point", rmdir("m"));
        SHOW("rename a mount point", rename("m", "m2"));
        SHOW("unlink a mount point", unlink("m"));
        SHOW("rmdir m/.", rmdir("m/."));
        SHOW("umount", umount("m"));
    } else {
        printf("mount: %s\n", errname(errno));
    }
    SHOW("rmdir m (unmounted)", rmdir("m"));

    /* unlink */
    SHOW("unlink d (a dir)", unlink("d"));
    SHOW("unlink .", unlink("."));
    SHOW("unlink /", unlink("/"));
    SHOW("unlink f/ (a file, slash)", unlink("f/"));
    SHOW("unlink missing/ (slash)", unlink("missing/"));
    SHOW("unlink d/ (a dir, slash)", unlink("d/"));
    SHOW("unlink missing", unlink("missing"));
    SHOW("unlinkat a file's fd", unlinkat(ffd, "x", 0));

    /* rename */
    SHOW("rename d d/e/x (into itself)", rename("d", "d/e/x"));
    SHOW("rename d/e d (over an ancestor)", rename("d/e", "d"));
    SHOW("rename d/g . (over the cwd)", rename("d/g", "."));
    SHOW("rename . x", rename(".", "x"));
    SHOW("rename f . ", rename("f", "."));
    SHOW("rename f d (file over dir)", rename("f", "d"));
    SHOW("rename d f (dir over file)", rename("d", "f"));
    mkdir("ne", 0755);
    touch("ne/x");
    SHOW("rename d/e ne (dir over a non-empty dir)", rename("d/e", "ne"));
    SHOW("rename d/e n (dir over an empty dir)", rename("d/e", "n"));
    SHOW("rename f/ g (file, slash)", rename("f/", "g"));
    SHOW("rename f g/ (to slash)", rename("f", "g/"));
    SHOW("rename missing x", rename("missing", "x"));
    SHOW("rename f missing/x", rename("f", "missing/x"));
    SHOW("rename f f (itself)", rename("f", "f"));
    SHOW("renameat2 RENAME_NOREPLACE onto .", syscall(SYS_renameat2, AT_FDCWD, "f", AT_FDCWD,
                                                      ".", RENAME_NOREPLACE));
    SHOW("renameat2 bad flags", syscall(SYS_renameat2, AT_FDCWD, "f", AT_FDCWD, "g", 8));
    SHOW("renameat2 EXCHANGE|NOREPLACE", syscall(SYS_renameat2, AT_FDCWD, "f", AT_FDCWD, "g",
                                                 RENAME_EXCHANGE | RENAME_NOREPLACE));

    /* link, symlink, mknod */
    SHOW("link d x (a dir)", link("d", "x"));
    SHOW("link d f (a dir onto a name)", link("d", "f"));
    SHOW("link f d/g (onto a name)", link("f", "d/g"));
    SHOW("link f x/ (slash)", link("f", "x/"));
    SHOW("link f .", link("f", "."));
    SHOW("link missing x", link("missing", "x"));
    SHOW("link f into proc (a new name)", link("f", "/proc/self/x"));
    SHOW("link f onto a name in proc", link("f", "/proc/self/stat"));
    SHOW("rename f into proc", rename("f", "/proc/self/x"));
    SHOW("symlink t d (onto a dir)", symlink("t", "d"));
    SHOW("symlink t x/ (slash)", symlink("t", "x/"));
    SHOW("symlink empty target", symlink("", "x"));
    SHOW("symlink t .", symlink("t", "."));
    SHOW("mknod x/ (slash)", mknod("x/", S_IFREG | 0644, 0));
    SHOW("mknod d (exists)", mknod("d", S_IFREG | 0644, 0));
    SHOW("mknod a directory type", mknod("x", S_IFDIR | 0755, 0));
    SHOW("mknod a bad type", mknod("x", 0170000 | 0644, 0));
    SHOW("mknod fifo", mknod("p", S_IFIFO | 0644, 0));
    SHOW("mknodat bad dirfd", mknodat(99, "x", S_IFREG | 0644, 0));

    /* open O_CREAT */
    SHOW("open O_CREAT d/ (slash)", open("d/", O_CREAT | O_WRONLY, 0644));
    SHOW("open O_CREAT new/ (slash)", open("new/", O_CREAT | O_WRONLY, 0644));
    SHOW("open O_CREAT .", open(".", O_CREAT | O_WRONLY, 0644));
    SHOW("open O_CREAT|O_EXCL f", open("f", O_CREAT | O_EXCL | O_WRONLY, 0644));
    SHOW("open O_CREAT|O_EXCL d", open("d", O_CREAT | O_EXCL | O_WRONLY, 0644));
    SHOW("open O_CREAT d (a dir)", open("d", O_CREAT | O_RDONLY, 0644));
    symlink("target", "dangling");
    TRY("open O_CREAT through a dangling symlink", open("dangling", O_CREAT | O_WRONLY, 0644));
    struct stat st;
    SHOW("the target was made", stat("target", &st));
    SHOW("open O_CREAT|O_EXCL of a symlink", open("dangling", O_CREAT | O_EXCL | O_WRONLY, 0644));
    SHOW("open O_CREAT|O_NOFOLLOW of a symlink",
         open("dangling", O_CREAT | O_NOFOLLOW | O_WRONLY, 0644));
    SHOW("open O_DIRECTORY of a file", open("f", O_DIRECTORY | O_RDONLY));
    SHOW("open O_WRONLY of a dir", open("d", O_WRONLY));
    SHOW("open a bad dirfd", openat(99, "f", O_RDONLY));

    /* a removed working directory */
    mkdir("gone", 0755);
    SHOW("chdir gone", chdir("gone"));
    SHOW("rmdir the cwd", rmdir("../gone"));
    SHOW("mkdir in it", mkdir("x", 0755));
    SHOW("mkdir . in it", mkdir(".", 0755));
    SHOW("open O_CREAT in it", open("x", O_CREAT | O_WRONLY, 0644));
    SHOW("rmdir . in it", rmdir("."));
    SHOW("unlink x in it", unlink("x"));
    SHOW("symlink in it", symlink("t", "x"));
    SHOW("chdir ..", chdir(".."));
    return 0;
}
