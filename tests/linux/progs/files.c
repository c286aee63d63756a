/* Files: open/creat flags, read/write/lseek/pread/pwrite, truncate, stat fields, links,
 * rename, unlink of an open file, and the error returns of each. */
#include <fcntl.h>
#include <sys/stat.h>
#include "corpus.h"

static void show_stat(const char *what, const char *path, int follow)
{
    struct stat st;
    int r = follow ? stat(path, &st) : lstat(path, &st);
    if (r < 0) {
        printf("%s: -1 %s\n", what, errname(errno));
        return;
    }
    printf("%s: mode %o nlink %ld size %ld uid %d gid %d\n", what, (unsigned)st.st_mode,
           (long)st.st_nlink, (long)st.st_size, (int)st.st_uid, (int)st.st_gid);
}

int main(void)
{
    corpus_init();
    char buf[64];

    int fd = SHOW("open O_CREAT|O_EXCL new", open("a", O_RDWR | O_CREAT | O_EXCL, 0640));
    SHOW("open O_CREAT|O_EXCL again", open("a", O_RDWR | O_CREAT | O_EXCL, 0640));
    SHOW("write 11", write(fd, "hello world", 11));
    SHOW("lseek SEEK_CUR", lseek(fd, 0, SEEK_CUR));
    SHOW("lseek SEEK_SET 6", lseek(fd, 6, SEEK_SET));
    memset(buf, 0, sizeof buf);
    SHOW("read", read(fd, buf, sizeof buf));
    printf("data: %s\n", buf);
    SHOW("read at end", read(fd, buf, sizeof buf));
    SHOW("lseek SEEK_END -5", lseek(fd, -5, SEEK_END));
    SHOW("lseek negative", lseek(fd, -100, SEEK_SET));
    SHOW("lseek bad whence", lseek(fd, 0, 42));
    SHOW("pwrite at 0", pwrite(fd, "J", 1, 0));
    memset(buf, 0, sizeof buf);
    SHOW("pread 5 at 0", pread(fd, buf, 5, 0));
    printf("data: %s\n", buf);
    SHOW("position unchanged", lseek(fd, 0, SEEK_CUR));
    SHOW("lseek past end", lseek(fd, 20, SEEK_SET));
    SHOW("write past end", write(fd, "!", 1));
    SHOW("pread the hole", pread(fd, buf, 3, 11));
    printf("hole bytes: %d %d %d\n", buf[0], buf[1], buf[2]);
    show_stat("stat a", "a", 1);
    SHOW("ftruncate 5", ftruncate(fd, 5));
    show_stat("stat a", "a", 1);
    SHOW("ftruncate negative", ftruncate(fd, -1));
    SHOW("close", close(fd));
    SHOW("close again", close(fd));
    SHOW("read closed fd", read(fd, buf, 1));

    fd = SHOW("open O_RDONLY", open("a", O_RDONLY));
    SHOW("write to O_RDONLY", write(fd, "x", 1));
    close(fd);
    fd = SHOW("open O_WRONLY|O_APPEND", open("a", O_WRONLY | O_APPEND));
    SHOW("read from O_WRONLY", read(fd, buf, 1));
    lseek(fd, 0, SEEK_SET);
    SHOW("append", write(fd, "++", 2));
    SHOW("position after append", lseek(fd, 0, SEEK_CUR));
    close(fd);
    fd = open("a", O_RDWR | O_TRUNC);
    show_stat("after O_TRUNC", "a", 1);
    close(fd);

    SHOW("open missing", open("missing", O_RDONLY));
    SHOW("open missing/x", open("missing/x", O_RDONLY));
    SHOW("open a/x (a is a file)", open("a/x", O_RDONLY));
    SHOW("open . for writing", open(".", O_WRONLY));
    SHOW("open a with O_DIRECTORY", open("a", O_RDONLY | O_DIRECTORY));
    SHOW("creat", creat("b", 0600));
    show_stat("stat b", "b", 1);

    SHOW("link a c", link("a", "c"));
    show_stat("stat a (2 links)", "a", 1);
    SHOW("link a c again", link("a", "c"));
    SHOW("link missing", link("missing", "d"));
    SHOW("symlink", symlink("a", "s"));
    show_stat("lstat s", "s", 0);
    show_stat("stat s", "s", 1);
    memset(buf, 0, sizeof buf);
    SHOW("readlink s", readlink("s", buf, sizeof buf));
    printf("target: %s\n", buf);
    SHOW("readlink a (no link)", readlink("a", buf, sizeof buf));
    SHOW("symlink dangling", symlink("nowhere", "t"));
    SHOW("open dangling", open("t", O_RDONLY));
    SHOW("symlink loop", symlink("loop", "loop"));
    SHOW("open loop", open("loop", O_RDONLY));

    SHOW("rename a e", rename("a", "e"));
    SHOW("rename missing", rename("a", "f"));
    SHOW("rename over b", rename("e", "b"));
    show_stat("stat b", "b", 1);
    SHOW("access b F_OK", access("b", F_OK));
    SHOW("access missing", access("a", F_OK));

    fd = open("c", O_RDWR);
    SHOW("write c", write(fd, "still here", 10));
    SHOW("unlink c", unlink("c"));
    SHOW("unlink c again", unlink("c"));
    memset(buf, 0, sizeof buf);
    SHOW("pread unlinked", pread(fd, buf, 10, 0));
    printf("data: %s\n", buf);
    close(fd);
    SHOW("unlink .", unlink("."));

    SHOW("chmod 0604", chmod("b", 0604));
    show_stat("stat b", "b", 1);
    SHOW("umask", umask(077));
    fd = open("g", O_CREAT | O_WRONLY, 0666);
    show_stat("stat g (umask 077)", "g", 1);
    close(fd);
    SHOW("truncate g 1000", truncate("g", 1000));
    show_stat("stat g", "g", 1);
    SHOW("truncate missing", truncate("missing", 1));
    return 0;
}
