/* tmpfs's limits: a mount with size= and nr_inodes= filled by a writer (ENOSPC for it, a
 * partial write first, while a child goes on), statfs's view of it, remount to grow it,
 * bad options (EINVAL); files larger than 2 MiB and sparse ones (holes cost no blocks);
 * the mount in /proc/self/mounts and /proc/self/mountinfo. */
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include "corpus.h"

static char chunk[65536];

static void show_statfs(const char *what, const char *path)
{
    struct statfs s;
    if (statfs(path, &s) < 0) {
        printf("%s: -1 %s\n", what, errname(errno));
        return;
    }
    printf("%s: type %lx bsize %ld blocks %ld free %ld avail %ld files %ld ffree %ld\n", what,
           (unsigned long)s.f_type, (long)s.f_bsize, (long)s.f_blocks, (long)s.f_bfree,
           (long)s.f_bavail, (long)s.f_files, (long)s.f_ffree);
}

/* This mount's line of a mounts file, less what differs between kernels. */
static void show_line(const char *file, const char *mnt)
{
    FILE *f = fopen(file, "r");
    if (!f) {
        printf("%s: %s\n", file, errname(errno));
        return;
    }
    char line[512];
    while (fgets(line, sizeof line, f))
        if (strstr(line, mnt)) {
            /* mountinfo: skip the ids and the device (the first three fields) */
            char *p = line;
            if (strstr(file, "mountinfo"))
                for (int k = 0; k < 3 && p; k++)
                    p = strchr(p, ' ') ? strchr(p, ' ') + 1 : NULL;
            char *at = p ? strstr(p, mnt) : NULL;
            printf("%s: %s", file, at ? at : line);
        }
    fclose(f);
}

int main(void)
{
    corpus_init();
    for (int i = 0; i < (int)sizeof chunk; i++)
        chunk[i] = (char)i;
    char cwd[256], mnt[300];
    getcwd(cwd, sizeof cwd);
    snprintf(mnt, sizeof mnt, "%s/m", cwd);
    mkdir("m", 0755);

    /* Bad options. */
    SHOW("mount size=bogus", mount("t", "m", "tmpfs", 0, "size=bogus"));
    SHOW("mount size=10x", mount("t", "m", "tmpfs", 0, "size=10x"));
    SHOW("mount nr_inodes=x", mount("t", "m", "tmpfs", 0, "nr_inodes=x"));
    SHOW("mount an unknown option", mount("t", "m", "tmpfs", 0, "nosuchopt"));
    SHOW("mount mode=9", mount("t", "m", "tmpfs", 0, "mode=9"));

    /* 64 KiB and 8 inodes. */
    SHOW("mount size=64k,nr_inodes=8,mode=700",
         mount("t", "m", "tmpfs", 0, "size=64k,nr_inodes=8,mode=700"));
    struct stat st;
    stat("m", &st);
    printf("root mode %o\n", (unsigned)st.st_mode & 07777);
    show_statfs("statfs empty", "m");
    show_line("/proc/self/mounts", mnt);
    show_line("/proc/self/mountinfo", mnt);

    int pfd[2];
    pipe(pfd);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        char c;
        read(pfd[0], &c, 1);        /* the mount is full now: this process goes on */
        static char mem[64 * 4096];
        for (unsigned i = 0; i < sizeof mem; i += 4096)
            mem[i] = 1;
        printf("child: runs on after the mount filled\n");
        _exit(3);
    }
    int fd = open("m/a", O_CREAT | O_WRONLY, 0644);
    SHOW("write 40 KiB", write(fd, chunk, 40 << 10));
    SHOW("write 40 KiB more (partial)", write(fd, chunk, 40 << 10));
    SHOW("write again: full", write(fd, chunk, 1));
    show_statfs("statfs full", "m");
    int fd2 = open("m/b", O_CREAT | O_WRONLY, 0644);
    SHOW("a second file's first byte", write(fd2, "x", 1));
    write(pfd[1], "g", 1);
    int status;
    waitpid(pid, &status, 0);
    show_status("child", status);
    fstat(fd, &st);
    printf("a: size %ld blocks %ld\n", (long)st.st_size, (long)st.st_blocks);

    /* Inodes: the root counts, and so does every extra hard link; 8 in all. */
    char name[32];
    int made = 0, r = 0;
    for (int i = 0; i < 10; i++) {
        snprintf(name, sizeof name, "m/n%d", i);
        if ((r = mkdir(name, 0755)) < 0)
            break;
        made++;
    }
    printf("directories made %d, then %s\n", made, r < 0 ? errname(errno) : "none");
    show_statfs("statfs inodes", "m");
    SHOW("a link when the inodes are used up", link("m/a", "m/a2"));
    SHOW("a symlink when the inodes are used up", symlink("a", "m/s"));
    SHOW("rmdir one", rmdir("m/n0"));
    SHOW("now the link", link("m/a", "m/a2"));
    SHOW("and no more", symlink("a", "m/s"));

    /* Remount larger: the writer goes on. */
    SHOW("remount size=128k", mount("t", "m", "tmpfs", MS_REMOUNT, "size=128k"));
    SHOW("write after the remount", write(fd, chunk, 4096));
    SHOW("remount smaller than used", mount("t", "m", "tmpfs", MS_REMOUNT, "size=8k"));
    SHOW("remount a bad option", mount("t", "m", "tmpfs", MS_REMOUNT, "size=q"));
    show_statfs("statfs remounted", "m");
    show_line("/proc/self/mounts", mnt);
    close(fd);
    close(fd2);
    SHOW("unlink a", unlink("m/a"));
    SHOW("unlink a2", unlink("m/a2"));
    show_statfs("statfs after unlink", "m");
    SHOW("umount while nothing is open", umount("m"));

    /* No per-file limit; holes cost nothing. */
    SHOW("mount size=16m", mount("t", "m", "tmpfs", 0, "size=16m"));
    fd = open("m/big", O_CREAT | O_RDWR, 0644);
    long total = 0;
    for (int i = 0; i < 64; i++)
        total += write(fd, chunk, sizeof chunk);
    printf("wrote %ld\n", total);
    fstat(fd, &st);
    printf("big: size %ld blocks %ld\n", (long)st.st_size, (long)st.st_blocks);
    char b[4];
    SHOW("pread at 3 MiB + 5", pread(fd, b, 4, (3 << 20) + 5));
    printf("bytes %d %d %d %d\n", b[0], b[1], b[2], b[3]);
    int sp = open("m/sparse", O_CREAT | O_RDWR, 0644);
    SHOW("pwrite at 1 GiB", pwrite(sp, "z", 1, 1l << 30));
    fstat(sp, &st);
    printf("sparse: size %ld blocks %ld\n", (long)st.st_size, (long)st.st_blocks);
    SHOW("pread in the hole", pread(sp, b, 4, 1 << 20));
    printf("hole bytes %d %d %d %d\n", b[0], b[1], b[2], b[3]);
    SHOW("ftruncate to 8 GiB", ftruncate(sp, 8l << 30));
    fstat(sp, &st);
    printf("sparse: size %ld blocks %ld\n", (long)st.st_size, (long)st.st_blocks);
    SHOW("pwrite at the largest offset", pwrite(sp, "z", 1, 0x7fffffffffffffffl));
    SHOW("lseek SEEK_DATA past the end", lseek(sp, 9l << 30, SEEK_DATA));
    close(fd);
    close(sp);
    SHOW("umount busy?", umount("m"));
    return 0;
}
