/* lxselftest.elf fs: the file system calls against the initramfs that
 * tests/system/test_lx_fs.py builds (/etc/hello.txt "hello file\n", /etc/motd replaced by a
 * second concatenated archive, /link -> etc/hello.txt, /dev/{null,zero,full}, /tmp, this
 * program as /bin/lxselftest).  Included by selftest.c; the expected values are Linux's. */
#define S6(nr, a, b, c, d, e, f) \
    sys6(nr, (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), (long)(f))

enum { SYS_read = 0, SYS_open = 2, SYS_close = 3, SYS_stat = 4, SYS_fstat = 5, SYS_lstat = 6,
       SYS_lseek = 8, SYS_pread64 = 17, SYS_pwrite64 = 18, SYS_readv = 19, SYS_access = 21,
       SYS_dup = 32, SYS_dup2 = 33, SYS_fcntl = 72, SYS_truncate = 76, SYS_ftruncate = 77,
       SYS_getcwd = 79, SYS_chdir = 80, SYS_fchdir = 81, SYS_rename = 82, SYS_mkdir = 83,
       SYS_rmdir = 84, SYS_link = 86, SYS_unlink = 87, SYS_symlink = 88, SYS_readlink = 89,
       SYS_chmod = 90, SYS_fchmod = 91, SYS_umask = 95, SYS_getdents64 = 217,
       SYS_openat = 257, SYS_newfstatat = 262, SYS_unlinkat = 263, SYS_renameat2 = 316,
       SYS_dup3 = 292 };

enum { ENOENT = 2, EBADF = 9, EACCES = 13, EFAULT = 14, EEXIST = 17, ENOTDIR = 20,
       EISDIR = 21, EINVAL = 22, EMFILE = 24, EFBIG = 27, ENOSPC = 28, ESPIPE = 29,
       ENAMETOOLONG = 36, ENOTEMPTY = 39, ELOOP = 40 };

#define O_WRONLY 01
#define O_RDWR 02
#define O_CREAT 0100
#define O_EXCL 0200
#define O_TRUNC 01000
#define O_APPEND 02000
#define O_DIRECTORY 0200000
#define O_NOFOLLOW 0400000
#define O_CLOEXEC 02000000
#define AT_FDCWD (-100)

struct kstat {
    u64 dev, ino, nlink;
    unsigned mode, uid, gid, pad0;
    u64 rdev;
    long size, blksize, blocks;
    u64 t[6];
    long unused[3];
};

static int meq(const char *a, const char *b, u64 n)
{
    for (u64 i = 0; i < n; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

static long sopen(const char *p, long flags, long mode)
{
    return sys3(SYS_open, p, flags, mode);
}

static long fsize(long fd)
{
    struct kstat st;
    return sys3(SYS_fstat, fd, &st, 0) ? -1 : st.size;
}

/* Does directory path hold name (getdents64, in small reads)? */
static int dir_has(const char *path, const char *name)
{
    char buf[64];
    long fd = sopen(path, O_DIRECTORY, 0), n, found = 0;
    while ((n = sys3(SYS_getdents64, fd, buf, sizeof buf)) > 0)
        for (long o = 0; o < n; o += *(unsigned short *)(buf + o + 16))
            found |= seq(buf + o + 19, name);
    sys3(SYS_close, fd, 0, 0);
    return (int)found && n == 0;
}

static int fs(void)
{
    char buf[256];
    struct kstat st;

    /* Reading an initramfs file. */
    long fd = sopen("/etc/hello.txt", 0, 0);
    check(fd == 3, "open: the lowest free fd (3)");
    check(sys3(SYS_read, fd, buf, sizeof buf) == 11 && meq(buf, "hello file\n", 11), "read");
    check(sys3(SYS_read, fd, buf, sizeof buf) == 0, "read at the end: 0");
    check(S6(SYS_pread64, fd, buf, 5, 6, 0, 0) == 5 && meq(buf, "file\n", 5), "pread64");
    check(sys3(SYS_lseek, fd, -4, 2) == 7 && sys3(SYS_read, fd, buf, 2) == 2 &&
          meq(buf, "il", 2), "lseek SEEK_END, read");
    check(sys3(SYS_lseek, fd, -100, 1) == -EINVAL, "lseek before 0: EINVAL");
    check(sys3(SYS_fstat, fd, &st, 0) == 0 && st.size == 11 && st.mode == 0100644 &&
          st.nlink == 1, "fstat");
    check(sys3(SYS_write, fd, "x", 1) == -EBADF, "write to a read-only fd: EBADF");
    check(sys3(SYS_lseek, fd, 0, 0) == 0 && sys3(SYS_read, fd, 0x10, 4) == -EFAULT,
          "read into the NULL page: EFAULT");
    check(sys3(SYS_close, fd, 0, 0) == 0 && sys3(SYS_close, fd, 0, 0) == -EBADF,
          "close, close again: EBADF");
    fd = sopen("/etc/motd", 0, 0);
    check(sys3(SYS_read, fd, buf, sizeof buf) == 4 && meq(buf, "two\n", 4),
          "a second archive replaces a file");
    sys3(SYS_close, fd, 0, 0);
    check(sys3(SYS_stat, "/etc/extra", &st, 0) == 0 && st.mode == 0100600,
          "a second archive adds a file");

    struct kstat st2;
    check(sys3(SYS_stat, "/etc/hl1", &st, 0) == 0 && sys3(SYS_stat, "/etc/hl2", &st2, 0) == 0 &&
          st.ino == st2.ino && st.nlink == 2 && st.size == 7, "hard links of the archive");
    check(sys3(SYS_stat, "/etc/owned", &st, 0) == 0 && st.uid == 5 && st.gid == 6 &&
          st.t[2] == 1000000000 && st.mode == 0100640, "owner and mtime of the archive");
    fd = sopen("/etc/owned", O_WRONLY, 0);
    check(sys3(SYS_write, fd, "y", 1) == 1 && sys3(SYS_fstat, fd, &st, 0) == 0 &&
          st.t[2] != 1000000000 && st.t[4] == st.t[2], "a write sets mtime and ctime");
    sys3(SYS_close, fd, 0, 0);

    /* Symlinks and lookup errors. */
    check(sys3(SYS_stat, "/link", &st, 0) == 0 && st.size == 11 && (st.mode >> 12) == 010,
          "stat follows a symlink");
    check(sys3(SYS_lstat, "/link", &st, 0) == 0 && st.size == 13 && (st.mode >> 12) == 012,
          "lstat does not");
    check(sys3(SYS_readlink, "/link", buf, sizeof buf) == 13 && meq(buf, "etc/hello.txt", 13),
          "readlink");
    check(sys3(SYS_readlink, "/etc/hello.txt", buf, sizeof buf) == -EINVAL,
          "readlink of a file: EINVAL");
    check(S6(SYS_newfstatat, AT_FDCWD, "/link", &st, 0x100, 0, 0) == 0 &&
          (st.mode >> 12) == 012, "newfstatat AT_SYMLINK_NOFOLLOW");
    check(S6(SYS_newfstatat, 1, "", &st, 0x1000, 0, 0) == 0 && (st.mode >> 12) == 02,
          "newfstatat AT_EMPTY_PATH on the console");
    check(S6(SYS_newfstatat, AT_FDCWD, "", &st, 0, 0, 0) == -ENOENT,
          "newfstatat of an empty path: ENOENT");
    check(sopen("/nonexistent", 0, 0) == -ENOENT, "open of a missing file: ENOENT");
    check(sopen("/etc/hello.txt/x", 0, 0) == -ENOTDIR, "a file as a directory: ENOTDIR");
    check(sopen("/etc", O_WRONLY, 0) == -EISDIR, "a directory for writing: EISDIR");
    check(sopen("/etc/hello.txt", O_DIRECTORY, 0) == -ENOTDIR, "O_DIRECTORY on a file: ENOTDIR");
    check(sopen("/link", O_NOFOLLOW, 0) == -ELOOP, "O_NOFOLLOW on a symlink: ELOOP");
    check(sopen((char *)0x10, 0, 0) == -EFAULT, "open of a bad pointer: EFAULT");
    check(sys3(SYS_stat, "/etc/hello.txt", _start, 0) == -EFAULT, "stat into text: EFAULT");
    char longname[300];
    longname[0] = '/';
    for (int i = 1; i < 299; i++)
        longname[i] = 'a';
    longname[299] = 0;
    check(sopen(longname, 0, 0) == -ENAMETOOLONG, "a 298-byte name: ENAMETOOLONG");
    check(sys3(SYS_symlink, "loop", "/tmp/loop", 0) == 0 && sopen("/tmp/loop", 0, 0) == -ELOOP,
          "a symlink to itself: ELOOP");
    check(sys3(SYS_symlink, "x", "/tmp/loop", 0) == -EEXIST, "symlink over a name: EEXIST");
    check(sys3(SYS_symlink, "nowhere", "/tmp/dangling", 0) == 0 &&
          sopen("/tmp/dangling", 0, 0) == -ENOENT, "a dangling symlink: ENOENT");

    /* Creating, writing, the cwd. */
    check(sys3(SYS_umask, 022, 0, 0) == 022, "umask (022 at the start)");
    check(sys3(SYS_mkdir, "/tmp/d", 0777, 0) == 0 && sys3(SYS_stat, "/tmp/d", &st, 0) == 0 &&
          st.mode == 040755 && st.nlink == 2, "mkdir with the umask");
    check(sys3(SYS_mkdir, "/tmp/d", 0777, 0) == -EEXIST, "mkdir again: EEXIST");
    check(sys3(SYS_mkdir, "/tmp/nodir/d", 0777, 0) == -ENOENT, "mkdir under a missing: ENOENT");
    check(sys3(SYS_chdir, "/tmp/d", 0, 0) == 0 && sys3(SYS_getcwd, buf, sizeof buf, 0) == 7 &&
          seq(buf, "/tmp/d"), "chdir, getcwd");
    check(sys3(SYS_getcwd, buf, 3, 0) == -34, "getcwd too small: ERANGE");
    fd = sopen("f", O_CREAT | O_EXCL | O_RDWR, 0666);
    check(fd >= 0, "open O_CREAT|O_EXCL, relative");
    check(sys3(SYS_write, fd, "abcdef", 6) == 6 && sys3(SYS_lseek, fd, 0, 1) == 6, "write");
    check(S6(SYS_pwrite64, fd, "XY", 2, 1, 0, 0) == 2 && S6(SYS_pread64, fd, buf, 10, 0, 0,
          0) == 6 && meq(buf, "aXYdef", 6), "pwrite64, pread64");
    check(sopen("f", O_CREAT | O_EXCL | O_RDWR, 0666) == -EEXIST, "O_EXCL on a file: EEXIST");
    check(sys3(SYS_fstat, fd, &st, 0) == 0 && st.mode == 0100644, "created mode with the umask");
    long fa = sopen("/tmp/d/f", O_WRONLY | O_APPEND, 0);
    check(sys3(SYS_write, fa, "gh", 2) == 2 && fsize(fd) == 8, "O_APPEND writes at the end");
    check(sys3(SYS_fcntl, fa, 3, 0) == (O_WRONLY | O_APPEND | 0100000), "F_GETFL");
    check(sys3(SYS_ftruncate, fa, 3, 0) == 0 && fsize(fd) == 3, "ftruncate shrinks");
    check(sys3(SYS_ftruncate, sopen("/etc/hello.txt", 0, 0), 0, 0) == -EINVAL,
          "ftruncate of a read-only fd: EINVAL");
    check(sys3(SYS_truncate, "f", 3 * 4096 + 5, 0) == 0 && fsize(fd) == 3 * 4096 + 5 &&
          S6(SYS_pread64, fd, buf, 4, 3, 0, 0) == 4 && buf[0] == 0 && buf[3] == 0,
          "truncate grows with zeros");
    check(sys3(SYS_truncate, "/tmp", 0, 0) == -EISDIR, "truncate of a directory: EISDIR");
    struct { const char *b; u64 n; } wv[2] = { { "12", 2 }, { "345", 3 } };
    check(sys3(SYS_lseek, fd, 0, 0) == 0 && sys3(SYS_writev, fd, wv, 2) == 5, "writev to a file");
    char r1[2], r2[3];
    struct { char *b; u64 n; } rv[2] = { { r1, 2 }, { r2, 3 } };
    check(sys3(SYS_lseek, fd, 0, 0) == 0 && sys3(SYS_readv, fd, rv, 2) == 5 &&
          meq(r1, "12", 2) && meq(r2, "345", 3), "readv from a file");
    /* No size cap but Linux's: a write at 64 MiB makes a sparse file whose holes cost
     * nothing; at the largest offset (LLONG_MAX) EFBIG. */
    check(S6(SYS_pwrite64, fd, "z", 1, 64l << 20, 0, 0) == 1 && fsize(fd) == (64l << 20) + 1 &&
          sys3(SYS_fstat, fd, &st, 0) == 0 && st.blocks <= 16, "a sparse file past 2 MiB");
    check(S6(SYS_pwrite64, fd, "z", 1, 0x7fffffffffffffffl, 0, 0) == -EINVAL,
          "a write past the largest offset: EINVAL");
    long ft = sopen("f", O_WRONLY | O_TRUNC, 0);
    check(ft >= 0 && fsize(fd) == 0, "O_TRUNC");
    sys3(SYS_close, ft, 0, 0);
    check(sys3(SYS_lseek, fd, 0, 0) == 0 && sys3(SYS_write, fd, "data", 4) == 4, "write after O_TRUNC");

    /* Links, rename, unlink while open. */
    check(sys3(SYS_link, "f", "g", 0) == 0 && sys3(SYS_fstat, fd, &st, 0) == 0 && st.nlink == 2,
          "link");
    check(sys3(SYS_link, "f", "g", 0) == -EEXIST, "link onto a name: EEXIST");
    check(sys3(SYS_link, "/tmp", "/tmp/d/t", 0) == -1, "link of a directory: EPERM");
    check(sys3(SYS_unlink, "f", 0, 0) == 0 && sys3(SYS_fstat, fd, &st, 0) == 0 && st.nlink == 1
          && sopen("f", 0, 0) == -ENOENT, "unlink one name");
    check(sys3(SYS_rename, "g", "h", 0) == 0 && sys3(SYS_stat, "h", &st, 0) == 0 &&
          st.size == 4 && sys3(SYS_stat, "g", &st, 0) == -ENOENT, "rename");
    long fi = sopen("i", O_CREAT | O_WRONLY, 0600);
    sys3(SYS_close, fi, 0, 0);
    check(sys3(SYS_rename, "h", "i", 0) == 0 && sys3(SYS_stat, "i", &st, 0) == 0 &&
          st.size == 4, "rename over a file");
    check(S6(SYS_renameat2, AT_FDCWD, "i", AT_FDCWD, "/tmp/dangling", 1, 0) == -EEXIST,
          "renameat2 RENAME_NOREPLACE: EEXIST");
    check(sys3(SYS_rename, "/tmp/d", "/tmp/d/sub", 0) == -EINVAL,
          "rename a directory into itself: EINVAL");
    check(sys3(SYS_rename, "i", "/tmp", 0) == -ENOTEMPTY,
          "rename over an ancestor of the source: ENOTEMPTY");
    check(sys3(SYS_rename, "i", "/etc", 0) == -EISDIR, "rename a file over a dir: EISDIR");
    check(sys3(SYS_unlink, "i", 0, 0) == 0 && sys3(SYS_lseek, fd, 0, 0) == 0 &&
          sys3(SYS_read, fd, buf, 10) == 4 && meq(buf, "data", 4), "an unlinked file stays open");
    sys3(SYS_close, fd, 0, 0);
    sys3(SYS_close, fa, 0, 0);
    check(sys3(SYS_unlink, "/tmp", 0, 0) == -EISDIR, "unlink of a directory: EISDIR");
    check(sys3(SYS_rmdir, "/etc/hello.txt", 0, 0) == -ENOTDIR, "rmdir of a file: ENOTDIR");
    check(sys3(SYS_rmdir, "/tmp", 0, 0) == -ENOTEMPTY, "rmdir of a full dir: ENOTEMPTY");
    check(sys3(SYS_rmdir, ".", 0, 0) == -EINVAL, "rmdir .: EINVAL");

    /* getdents64 */
    long e = sopen("/tmp/d/e1", O_CREAT | O_WRONLY, 0644);
    sys3(SYS_close, e, 0, 0);
    check(sys3(SYS_mkdir, "/tmp/d/e2", 0755, 0) == 0 && dir_has("/tmp/d", ".") &&
          dir_has("/tmp/d", "..") && dir_has("/tmp/d", "e1") && dir_has("/tmp/d", "e2") &&
          !dir_has("/tmp/d", "f"), "getdents64");
    long dfd = sopen("/tmp/d", O_DIRECTORY, 0);
    check(sys3(SYS_getdents64, dfd, buf, 10) == -EINVAL, "getdents64 too small: EINVAL");
    check(sys3(SYS_read, dfd, buf, 10) == -EISDIR, "read of a directory: EISDIR");
    check(sys3(SYS_getdents64, 1, buf, 100) == -ENOTDIR, "getdents64 of the console: ENOTDIR");
    check(S6(SYS_openat, dfd, "e1", 0, 0, 0, 0) >= 0, "openat relative to a dir fd");
    check(sys3(SYS_unlinkat, dfd, "e2", 0) == -EISDIR &&
          sys3(SYS_unlinkat, dfd, "e2", 0x200) == 0, "unlinkat, AT_REMOVEDIR");
    check(sys3(SYS_unlinkat, dfd, "e1", 0) == 0 && sys3(SYS_rmdir, "/tmp/d", 0, 0) == 0,
          "rmdir of the cwd");
    check(sys3(SYS_getcwd, buf, sizeof buf, 0) == -ENOENT, "getcwd of a removed dir: ENOENT");
    check(sopen("x", O_CREAT | O_WRONLY, 0644) == -ENOENT, "create in a removed dir: ENOENT");
    check(sys3(SYS_fchdir, sopen("/etc", O_DIRECTORY, 0), 0, 0) == 0 &&
          sys3(SYS_getcwd, buf, sizeof buf, 0) == 5 && seq(buf, "/etc"), "fchdir");
    check(sys3(SYS_chdir, "hello.txt", 0, 0) == -ENOTDIR, "chdir to a file: ENOTDIR");

    /* dup, fcntl */
    long d = sys3(SYS_dup, 1, 0, 0);
    check(d > 2 && sys3(SYS_write, d, "dup works\n", 10) == 10, "dup");
    check(sys3(SYS_dup2, d, 40, 0) == 40 && sys3(SYS_fcntl, 40, 1, 0) == 0, "dup2");
    check(sys3(SYS_dup3, d, 41, O_CLOEXEC) == 41 && sys3(SYS_fcntl, 41, 1, 0) == 1,
          "dup3 O_CLOEXEC, F_GETFD");
    check(sys3(SYS_fcntl, 41, 2, 0) == 0 && sys3(SYS_fcntl, 41, 1, 0) == 0, "F_SETFD");
    check(sys3(SYS_fcntl, d, 1030, 50) == 50 && sys3(SYS_fcntl, 50, 1, 0) == 1,
          "F_DUPFD_CLOEXEC");
    check(sys3(SYS_fcntl, d, 0, 45) == 45, "F_DUPFD");
    check(sys3(SYS_dup3, d, d, 0) == -EINVAL, "dup3 to itself: EINVAL");
    check(sys3(SYS_dup2, 99, 5, 0) == -EBADF && sys3(SYS_dup2, d, 100000, 0) == -EBADF,
          "dup2 of a closed fd or to a bad one: EBADF");
    check(sys3(SYS_lseek, 1, 0, 0) == -ESPIPE, "lseek on the console: ESPIPE");

    /* access, chmod */
    check(sys3(SYS_access, "/etc/hello.txt", 4, 0) == 0, "access R_OK");
    check(sys3(SYS_access, "/etc/hello.txt", 1, 0) == -EACCES, "access X_OK of a 0644 file");
    check(sys3(SYS_access, "/bin/lxselftest", 1, 0) == 0, "access X_OK of a program");
    check(sys3(SYS_access, "/etc/hello.txt", 8, 0) == -EINVAL, "access with a bad mode");
    check(sys3(SYS_chmod, "/etc/hello.txt", 0755, 0) == 0 &&
          sys3(SYS_access, "/etc/hello.txt", 1, 0) == 0 &&
          sys3(SYS_stat, "/etc/hello.txt", &st, 0) == 0 && st.mode == 0100755, "chmod");
    long h = sopen("/etc/hello.txt", 0, 0);
    check(sys3(SYS_fchmod, h, 0600, 0) == 0 && sys3(SYS_fstat, h, &st, 0) == 0 &&
          st.mode == 0100600, "fchmod");

    /* Devices */
    long z = sopen("/dev/zero", 0, 0), nl = sopen("/dev/null", O_RDWR, 0);
    long fu = sopen("/dev/full", O_WRONLY, 0);
    buf[3] = 1;
    check(sys3(SYS_read, z, buf, 16) == 16 && buf[3] == 0, "/dev/zero");
    check(sys3(SYS_write, nl, "x", 1) == 1 && sys3(SYS_read, nl, buf, 1) == 0, "/dev/null");
    check(sys3(SYS_write, fu, "x", 1) == -ENOSPC, "/dev/full: ENOSPC");

    /* A file over several pages, written through the initramfs copy. */
    long w = sopen("/etc/hello.txt", O_WRONLY | O_APPEND, 0);
    char page[4096];
    for (int i = 0; i < 4096; i++)
        page[i] = (char)('a' + i % 26);
    check(sys3(SYS_write, w, page, 4096) == 4096 && sys3(SYS_write, w, page, 4096) == 4096 &&
          fsize(w) == 11 + 8192, "write to an initramfs file");
    check(S6(SYS_pread64, h, buf, 11, 0, 0, 0) == 11 && meq(buf, "hello file\n", 11) &&
          S6(SYS_pread64, h, buf, 26, 11 + 4096, 0, 0) == 26 && meq(buf, page, 26),
          "its old bytes and the new ones");

    /* user.* attributes on tmpfs, as Linux from 6.6 (6.1 says EOPNOTSUPP; tests/linux's
     * xattr case compares the rest with Linux): regular files and directories only. */
    enum { SYS_setxattr = 188, SYS_lsetxattr = 189, SYS_getxattr = 191, SYS_lgetxattr = 192,
           ENODATA = 61, EPERM = 1 };
    char xv[8];
    sys3(SYS_close, sopen("/tmp/xattrs", O_CREAT | O_WRONLY, 0644), 0, 0);
    check(S6(SYS_setxattr, "/tmp/xattrs", "user.colour", "blue", 4, 0, 0) == 0 &&
          S6(SYS_getxattr, "/tmp/xattrs", "user.colour", xv, sizeof xv, 0, 0) == 4 &&
          meq(xv, "blue", 4), "user.* on a tmpfs file");
    check(S6(SYS_setxattr, "/tmp", "user.dir", "d", 1, 0, 0) == 0, "user.* on a directory");
    check(S6(SYS_lsetxattr, "/tmp/loop", "user.x", "l", 1, 0, 0) == -EPERM &&
          S6(SYS_lgetxattr, "/tmp/loop", "user.x", xv, sizeof xv, 0, 0) == -ENODATA,
          "user.* on a symlink: EPERM, ENODATA");
    check(S6(SYS_setxattr, "/dev/null", "user.x", "n", 1, 0, 0) == -EPERM,
          "user.* on a device: EPERM");

    /* Running out of fds: EMFILE; the process exits with them open (lx closes them). */
    long last = 0, n;
    while ((n = sopen("/etc/motd", 0, 0)) >= 0)
        last = n;
    check(n == -EMFILE && last == 1023, "EMFILE after fd 1023 (RLIMIT_NOFILE)");
    puts1(failures ? "selftest: FAILED\n" : "selftest: all passed\n");
    return 0;
}

/* lxselftest.elf fsfill: one file grows until /tmp is full: ENOSPC for the writer (the
 * root tmpfs's size limit, half of lx's memory), never lx's death, and a child that waits
 * meanwhile still runs (makes pages and a process of its own); removing the file gives the
 * room back. */
static char chunk[65536];

static void fill_child(int rfd)
{
    char c;
    sys3(SYS_read, rfd, &c, 1);     /* until the parent has filled /tmp */
    static char mem[256 * 4096];    /* pages it touches only now */
    for (unsigned i = 0; i < sizeof mem; i += 4096)
        mem[i] = 1;
    long pid = sys3(SYS_fork, 0, 0, 0);
    if (pid == 0)
        sys3(SYS_exit, 7, 0, 0);
    int st = -1;
    sys3(SYS_exit, pid > 0 && wait4(pid, &st, 0) == pid && st == 7 << 8 ? 0 : 1, 0, 0);
}

static int fsfill(void)
{
    enum { SYS_pipe = 22 };
    for (int i = 0; i < 65536; i++)
        chunk[i] = (char)i;
    int p[2];
    check(sys3(SYS_pipe, p, 0, 0) == 0, "pipe");
    long child = sys3(SYS_fork, 0, 0, 0);
    if (child == 0)
        fill_child(p[0]);
    long fd = sopen("/tmp/fill", O_CREAT | O_WRONLY, 0644), r;
    long written = 0;
    while ((r = sys3(SYS_write, fd, chunk, sizeof chunk)) > 0)
        written += r;
    check(r == -ENOSPC, "the file grows until /tmp is full: ENOSPC");
    check(written > (2l << 20), "no per-file limit (more than 2 MiB)");
    sys3(SYS_write, p[1], "g", 1);
    int st = -1;
    check(wait4(child, &st, 0) == child && st == 0, "another process still runs");
    check(sys3(SYS_close, fd, 0, 0) == 0 && sys3(SYS_unlink, "/tmp/fill", 0, 0) == 0,
          "unlink it");
    fd = sopen("/tmp/after", O_CREAT | O_RDWR, 0644);
    check(fd >= 0 && sys3(SYS_write, fd, chunk, sizeof chunk) == sizeof chunk,
          "the room is back");
    puts1(failures ? "selftest: FAILED\n" : "selftest: all passed\n");
    return 0;
}
