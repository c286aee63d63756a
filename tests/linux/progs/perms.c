/* The VFS's permission checks as a user other than root (uid 1000, gid 1000, supplementary
 * group 2000), on files root made: search permission on a path's directories, open modes
 * and O_TRUNC, owner/group/other classes, write+search on a directory to create, remove,
 * rename, link; the sticky bit; new files' owners and the set-group-ID directory; chmod and
 * chown rules and the set-id bits they clear; writes and truncation clearing set-id bits;
 * access with the real ids against faccessat2(AT_EACCESS); utimensat's rules; exec
 * permission; root's override (read and write anything, execute only with an x bit);
 * /proc's owners and the checks on another process's files. */
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include "corpus.h"

static void mode_of(const char *what, const char *path)
{
    struct stat st;
    if (lstat(path, &st) < 0)
        printf("%s: stat %s\n", what, errname(errno));
    else
        printf("%s: mode %o uid %u gid %u\n", what, st.st_mode & 07777, st.st_uid, st.st_gid);
}

static void mk(const char *path, mode_t mode, uid_t uid, gid_t gid)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || write(fd, "data\n", 5) != 5)
        printf("mk %s: %s\n", path, errname(errno));
    close(fd);
    chown(path, uid, gid);
    chmod(path, mode);
}

static void mkd(const char *path, mode_t mode, uid_t uid, gid_t gid)
{
    mkdir(path, 0700);
    chown(path, uid, gid);
    chmod(path, mode);
}

static void become_user(void)
{
    gid_t g[1] = { 2000 };
    setgroups(1, g);
    syscall(SYS_setresgid, 1000, 1000, 1000);
    syscall(SYS_setresuid, 1000, 1000, 1000);
    umask(0);
}

static long opens(const char *what, const char *path, int flags)
{
    int fd = open(path, flags);
    if (fd < 0) {
        printf("%s: -1 %s\n", what, errname(errno));
        return -1;
    }
    close(fd);
    printf("%s: ok\n", what);
    return 0;
}

static void setup(void)
{
    chmod(".", 0755);
    mkd("nosearch", 0666, 0, 0);
    mk("nosearch/f", 0644, 0, 0);
    mkd("xonly", 0711, 0, 0);
    mk("xonly/f", 0644, 0, 0);
    mk("ro", 0444, 0, 0);
    mk("ownw", 0204, 1000, 0);          /* owner may only write, others read */
    mk("grp", 0040, 0, 2000);
    mk("grp1000", 0040, 0, 1000);
    mk("oth", 0004, 0, 3000);
    mk("none", 0000, 0, 0);
    mk("rw", 0666, 0, 0);
    mkd("rodir", 0755, 0, 0);
    mk("rodir/f", 0666, 0, 0);
    mkd("rodir/sub", 0777, 0, 0);
    mkd("rwdir", 0777, 0, 0);
    mkd("sgdir", 02777, 0, 3000);
    mkd("sticky", 01777, 0, 0);
    mk("sticky/rootf", 0666, 0, 0);
    mk("sticky/other", 0666, 1001, 1001);
    mk("sticky/mine", 0666, 1000, 1000);
    mkd("sticky2", 01777, 1000, 1000);
    mk("sticky2/rootf", 0666, 0, 0);
    mk("mine", 0644, 1000, 1000);
    mk("mine3000", 0644, 1000, 3000);
    mk("mine2000", 0644, 1000, 2000);
    mk("sid", 06755, 1000, 2000);
    mk("sidnx", 06745, 1000, 2000);     /* set-group-ID without group execute */
    mk("wsid", 06777, 0, 0);
    mk("wsidnx", 02767, 0, 0);
    mk("tsid", 04777, 0, 0);
    mk("rootsid", 06777, 0, 0);
    mk("rootchown", 06755, 0, 0);
    mk("rootchown2", 04755, 0, 0);
    mk("sgidother", 02745, 1000, 3000);
    mk("times_rw", 0666, 0, 0);
    mk("times_ro", 0644, 0, 0);
    mk("times_mine", 0644, 1000, 1000);
    mk("noexec", 0644, 0, 0);
    mk("root600", 0600, 0, 0);
    mk("user600", 0600, 1000, 1000);
    mkd("rootdir000", 0000, 0, 0);
    mk("rootdir000/f", 0644, 0, 0);
}

static void search_and_open(void)
{
    struct stat st;
    TRY("stat in a dir without search", stat("nosearch/f", &st));
    opens("open in a dir without search", "nosearch/f", O_RDONLY);
    TRY("opendir without search", open("nosearch", O_RDONLY | O_DIRECTORY) < 0 ? -1 : 0);
    TRY("chdir without search", chdir("nosearch"));
    TRY("stat in a search-only dir", stat("xonly/f", &st));
    opens("open dir without read", "xonly", O_RDONLY | O_DIRECTORY);
    opens("O_RDONLY 0444", "ro", O_RDONLY);
    opens("O_WRONLY 0444", "ro", O_WRONLY);
    opens("O_RDWR 0444", "ro", O_RDWR);
    opens("O_RDONLY|O_TRUNC 0444", "ro", O_RDONLY | O_TRUNC);
    opens("owner 0204 read", "ownw", O_RDONLY);
    opens("owner 0204 write", "ownw", O_WRONLY);
    opens("supplementary group 0040", "grp", O_RDONLY);
    opens("primary group 0040", "grp1000", O_RDONLY);
    opens("other 0004", "oth", O_RDONLY);
    opens("0000", "none", O_RDONLY);
    opens("O_RDWR 0666", "rw", O_RDWR);
    opens("O_CREAT existing 0444", "ro", O_WRONLY | O_CREAT);
    opens("O_NOATIME not owner", "rw", O_RDONLY | O_NOATIME);
    opens("O_NOATIME owner", "mine", O_RDONLY | O_NOATIME);
    opens("O_PATH without read", "none", O_PATH);
}

static void dir_ops(void)
{
    TRY("creat in 0755 root dir", open("rodir/new", O_WRONLY | O_CREAT, 0644));
    TRY("mkdir in 0755 root dir", mkdir("rodir/newd", 0755));
    TRY("mknod fifo in 0755 root dir", mknod("rodir/fifo", S_IFIFO | 0644, 0));
    TRY("symlink in 0755 root dir", symlink("x", "rodir/sl"));
    TRY("link into 0755 root dir", link("mine", "rodir/ln"));
    TRY("unlink in 0755 root dir", unlink("rodir/f"));
    TRY("rmdir in 0755 root dir", rmdir("rodir/sub"));
    TRY("rename out of 0755 root dir", rename("rodir/f", "rwdir/f"));
    TRY("rename into 0755 root dir", rename("mine", "rodir/mine"));
    TRY("O_TMPFILE in 0755 root dir", open("rodir", O_TMPFILE | O_WRONLY, 0600));
    int fd = open("rwdir/new", O_WRONLY | O_CREAT, 0640);
    TRY("creat in 0777 dir", fd);
    close(fd);
    mode_of("new file", "rwdir/new");
    TRY("mkdir in 0777 dir", mkdir("rwdir/d", 0750));
    mode_of("new dir", "rwdir/d");
    TRY("mknod char device", mknod("rwdir/chr", S_IFCHR | 0644, makedev(1, 3)));
    TRY("creat in set-group-ID dir", close(open("sgdir/f", O_WRONLY | O_CREAT, 0644)));
    mode_of("file in sgdir", "sgdir/f");
    TRY("mkdir in set-group-ID dir", mkdir("sgdir/d", 0755));
    mode_of("dir in sgdir", "sgdir/d");
    TRY("creat 02755 in sgdir (not in group)", close(open("sgdir/g", O_WRONLY | O_CREAT, 02755)));
    mode_of("02755 in sgdir", "sgdir/g");
    TRY("unlink sticky: root's", unlink("sticky/rootf"));
    TRY("unlink sticky: another user's", unlink("sticky/other"));
    TRY("rename sticky: another user's", rename("sticky/other", "sticky/x"));
    TRY("rename over sticky: another user's", rename("sticky/mine", "sticky/other"));
    TRY("unlink sticky: own", unlink("sticky/mine"));
    TRY("unlink sticky dir's owner: root's file", unlink("sticky2/rootf"));
    TRY("write to own file in sticky", close(open("sticky/new", O_WRONLY | O_CREAT, 0600)));
}

static void attrs(void)
{
    TRY("chmod root's file", chmod("rw", 0777));
    TRY("chmod own file", chmod("mine", 0600));
    mode_of("chmod own", "mine");
    TRY("chmod 02755, group not mine", chmod("mine3000", 02755));
    mode_of("sgid dropped", "mine3000");
    TRY("chmod 02755, supplementary group", chmod("mine2000", 02755));
    mode_of("sgid kept", "mine2000");
    TRY("chown own to 1001", chown("mine", 1001, -1));
    TRY("chown own to itself", chown("mine", 1000, -1));
    TRY("chgrp own to 2000", chown("mine", -1, 2000));
    mode_of("chgrp", "mine");
    TRY("chgrp own to 3000", chown("mine", -1, 3000));
    TRY("chgrp root's file to 1000", chown("rw", -1, 1000));
    TRY("chown root's file to root", chown("rw", 0, -1));
    TRY("chgrp set-id file", chown("sid", -1, 1000));
    mode_of("set-id after chgrp", "sid");
    TRY("chgrp set-id file, no group x", chown("sidnx", -1, 1000));
    mode_of("sgid-no-x after chgrp", "sidnx");
    TRY("lchown own", lchown("mine", -1, 1000));
    TRY("chown -1 -1 root's file", chown("rw", -1, -1));
    TRY("chgrp sgid-no-x file of a group not mine", chown("sgidother", -1, 1000));
    mode_of("sgid-no-x, group not mine, after chgrp", "sgidother");
    int fd = open("wsid", O_WRONLY);
    TRY("write 0 bytes to set-id file", write(fd, "", 0));
    mode_of("0-byte write", "wsid");
    TRY("write to set-id file", write(fd, "x", 1));
    mode_of("after write", "wsid");
    close(fd);
    fd = open("wsidnx", O_WRONLY);
    TRY("write to sgid-no-x file", write(fd, "x", 1));
    mode_of("sgid-no-x after write", "wsidnx");
    close(fd);
    TRY("truncate set-uid file", truncate("tsid", 1));
    mode_of("after truncate", "tsid");
    TRY("utimes NULL, writable", utimensat(AT_FDCWD, "times_rw", NULL, 0));
    TRY("utimes NULL, not writable", utimensat(AT_FDCWD, "times_ro", NULL, 0));
    struct timespec now2[2] = { { 0, UTIME_NOW }, { 0, UTIME_NOW } };
    TRY("utimes NOW NOW, writable", utimensat(AT_FDCWD, "times_rw", now2, 0));
    TRY("utimes NOW NOW, not writable", utimensat(AT_FDCWD, "times_ro", now2, 0));
    struct timespec set[2] = { { 1000, 0 }, { 2000, 0 } };
    TRY("utimes explicit, writable", utimensat(AT_FDCWD, "times_rw", set, 0));
    TRY("utimes explicit, not writable", utimensat(AT_FDCWD, "times_ro", set, 0));
    TRY("utimes explicit, own", utimensat(AT_FDCWD, "times_mine", set, 0));
    struct stat st;
    stat("times_mine", &st);
    printf("own times: %ld %ld\n", (long)st.st_atime, (long)st.st_mtime);
    TRY("utimes(2) NULL, writable", utimes("times_rw", NULL));
}

static void exec_checks(void)
{
    execl("noexec", "noexec", NULL);
    printf("exec 0644: %s\n", errname(errno));
    execl("rwdir", "rwdir", NULL);
    printf("exec a directory: %s\n", errname(errno));
    TRY("access X_OK 0644", access("noexec", X_OK));
}

static void access_ids(void)
{
    /* real 1000, effective root: access asks as 1000, AT_EACCESS as root */
    syscall(SYS_setresuid, 1000, 0, 0);
    TRY("access R_OK root600 (real 1000)", access("root600", R_OK));
    TRY("faccessat2 AT_EACCESS root600", syscall(SYS_faccessat2, AT_FDCWD, "root600", R_OK, AT_EACCESS));
    TRY("faccessat root600", syscall(SYS_faccessat, AT_FDCWD, "root600", R_OK));
    TRY("access in dir 000 (real 1000)", access("rootdir000/f", F_OK));
    TRY("faccessat2 AT_EACCESS in dir 000", syscall(SYS_faccessat2, AT_FDCWD, "rootdir000/f", F_OK, AT_EACCESS));
    TRY("access R_OK user600 (real 1000)", access("user600", R_OK));
    TRY("open root600 (effective root)", close(open("root600", O_RDONLY)));
    /* real root, effective 1000 */
    syscall(SYS_setresuid, 0, 1000, 0);
    TRY("access R_OK root600 (real root)", access("root600", R_OK));
    TRY("faccessat2 AT_EACCESS root600 (effective 1000)", syscall(SYS_faccessat2, AT_FDCWD, "root600", R_OK, AT_EACCESS));
    TRY("open root600 (effective 1000)", open("root600", O_RDONLY));
    TRY("faccessat2 bad flag", syscall(SYS_faccessat2, AT_FDCWD, "root600", R_OK, 0x10000));
}

static void root_override(void)
{
    opens("root: O_RDWR 0000", "none", O_RDWR);
    struct stat st;
    TRY("root: stat in dir 0000", stat("rootdir000/f", &st));
    TRY("root: access X_OK 0644", access("noexec", X_OK));
    TRY("root: access R_OK|W_OK 0000", access("none", R_OK | W_OK));
    execl("noexec", "noexec", NULL);
    printf("root: exec 0644: %s\n", errname(errno));
    TRY("root: write to set-id file", close(open("rootsid", O_WRONLY)));
    int fd = open("rootsid", O_WRONLY);
    write(fd, "x", 1);
    close(fd);
    mode_of("root: after write", "rootsid");
    TRY("root: chown set-id file", chown("rootchown", 5, 5));
    mode_of("root: after chown", "rootchown");
    TRY("root: chown -1 -1 set-uid file", chown("rootchown2", -1, -1));
    mode_of("root: after chown -1 -1", "rootchown2");
}

/* Root without CAP_DAC_OVERRIDE reads anything (CAP_DAC_READ_SEARCH) but writes only by the
 * mode bits; without both, it is a user like others. */
static void root_dropped(void)
{
    struct { unsigned version; int pid; } h = { 0x20080522, 0 };
    struct { unsigned eff, prm, inh; } d[2] = { { ~2u, ~2u, 0 }, { 0x1ff, 0x1ff, 0 } };
    TRY("capset drop DAC_OVERRIDE", syscall(SYS_capset, &h, d));
    opens("read 0000", "none", O_RDONLY);
    opens("write 0000", "none", O_WRONLY);
    struct stat st;
    TRY("stat in dir 0000", stat("rootdir000/f", &st));
    TRY("access R_OK 0000 (real root: all of permitted)", access("none", R_OK | W_OK));
    d[0].eff = d[0].prm = ~6u;
    TRY("capset drop DAC_READ_SEARCH too", syscall(SYS_capset, &h, d));
    opens("read 0000", "none", O_RDONLY);
    TRY("stat in dir 0000", stat("rootdir000/f", &st));
    opens("read own 0600", "root600", O_RDONLY);
}

static void user_proc(void)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/environ", (int)getppid());
    opens("parent's environ", path, O_RDONLY);
    snprintf(path, sizeof path, "/proc/%d/status", (int)getppid());
    opens("parent's status", path, O_RDONLY);
    snprintf(path, sizeof path, "/proc/%d/exe", (int)getppid());
    char buf[256];
    TRY("readlink parent's exe", readlink(path, buf, sizeof buf));
    snprintf(path, sizeof path, "/proc/%d/fd", (int)getppid());
    opens("parent's fd dir", path, O_RDONLY | O_DIRECTORY);
    mode_of("own /proc/self/environ (after setuid)", "/proc/self/environ");
    opens("own environ (not dumpable)", "/proc/self/environ", O_RDONLY);
    opens("own fd dir", "/proc/self/fd", O_RDONLY | O_DIRECTORY);
}

static void exec_user_proc(void)
{
    become_user();
    execl("/proc/self/exe", "perms", "--proc", NULL);
    printf("exec self: %s\n", errname(errno));
}

static void user(void (*fn)(void))
{
    become_user();
    fn();
}

static void u_search(void) { user(search_and_open); }
static void u_dir(void) { user(dir_ops); }
static void u_attrs(void) { user(attrs); }
static void u_exec(void) { user(exec_checks); }
static void u_proc(void) { user(user_proc); }

int main(int argc, char **argv)
{
    corpus_init();
    if (argc == 2 && !strcmp(argv[1], "--proc")) {
        mode_of("after exec: /proc/self/environ", "/proc/self/environ");
        opens("after exec: own environ", "/proc/self/environ", O_RDONLY);
        return 0;
    }
    setup();
    run_child("search and open", u_search);
    run_child("directory operations", u_dir);
    run_child("attributes", u_attrs);
    run_child("exec", u_exec);
    run_child("access", access_ids);
    run_child("root", root_override);
    run_child("root without DAC capabilities", root_dropped);
    run_child("proc", u_proc);
    run_child("exec as user", exec_user_proc);
    return 0;
}
