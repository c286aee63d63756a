/* lxselftest.elf proc: mounts, /proc, /dev and the remaining file calls, against the
 * initramfs of tests/system/test_lx_proc.py (/etc/hello.txt "hello file\n", empty /proc,
 * /mnt and /tmp, no /dev nodes: lx adds them; this program as /bin/lxselftest).  Run as
 * `/bin/lxselftest proc`; the expected values are Linux's (docs/linux/files.md lists where
 * lx differs).  Included by selftest.c after fs.c. */
enum { SYS_ioctl = 16, SYS_sendfile = 40, SYS_flock = 73, SYS_fsync = 74, SYS_fdatasync = 75,
       SYS_getdents = 78, SYS_chown = 92, SYS_fchown = 93, SYS_lchown = 94,
       SYS_mknod = 133, SYS_statfs = 137, SYS_fstatfs = 138, SYS_sync = 162, SYS_mount = 165,
       SYS_umount2 = 166, SYS_tuxcall = 184, SYS_readahead = 187, SYS_fadvise64 = 221,
       SYS_utimes = 235, SYS_mknodat = 259, SYS_fchownat = 260, SYS_utimensat = 280,
       SYS_syncfs = 306, SYS_getrandom = 318, SYS_statx = 332 };
enum { EPERM = 1, ESRCH = 3, EIO = 5, EBUSY = 16, EXDEV = 18, ENODEV = 19, ENOTTY = 25,
       EOPNOTSUPP = 95 };

#define O_PATH_ 010000000
#define O_TMPFILE_ (020000000 | O_DIRECTORY)
#define AT_SYMLINK_NOFOLLOW 0x100
#define AT_EMPTY_PATH 0x1000
#define UTIME_NOW_ ((1l << 30) - 1)
#define UTIME_OMIT_ ((1l << 30) - 2)

struct kstatfs {
    long type, bsize;
    u64 blocks, bfree, bavail, files, ffree;
    int fsid[2];
    long namelen, frsize, flags, spare[4];
};

static char text[8192];

/* A whole file into text (NUL-terminated): its length or -errno. */
static long slurp(const char *path)
{
    long fd = sopen(path, 0, 0), n = 0, r;
    if (fd < 0)
        return fd;
    while ((r = sys3(SYS_read, fd, text + n, sizeof text - 1 - n)) > 0)
        n += r;
    sys3(SYS_close, fd, 0, 0);
    text[n] = 0;
    return r < 0 ? r : n;
}

static int starts(const char *s, const char *prefix)
{
    while (*prefix)
        if (*s++ != *prefix++)
            return 0;
    return 1;
}

static int has(const char *s, const char *needle)
{
    for (; *s; s++)
        if (starts(s, needle))
            return 1;
    return 0;
}

static long rlink(const char *path, char *buf, long size)
{
    long n = sys3(SYS_readlink, path, buf, size - 1);
    buf[n > 0 ? n : 0] = 0;
    return n;
}

/* Count the fields of a line separated by single spaces (the comm in parentheses is one). */
static int fields(const char *s)
{
    int n = 1;
    for (; *s && *s != '\n'; s++)
        if (*s == ' ')
            n++;
    return n;
}

static long mnt(const char *src, const char *target, const char *type, long flags)
{
    return S6(SYS_mount, src, target, type, flags, 0, 0);
}

static void proc_mounts(void)
{
    struct kstat st, st2;
    struct kstatfs sf;
    check(sopen("/proc/meminfo", 0, 0) == -ENOENT, "/proc before mount: empty");
    check(mnt("proc", "/nonexistent", "proc", 0) == -ENOENT, "mount on nothing: ENOENT");
    check(mnt("proc", "/etc/hello.txt", "proc", 0) == -ENOTDIR, "mount on a file: ENOTDIR");
    check(mnt("x", "/proc", "nosuchfs", 0) == -ENODEV, "mount of an unknown type: ENODEV");
    check(mnt("x", "/proc", 0, 0) == -EINVAL, "mount without a type: EINVAL");
    check(mnt("x", "/proc", (char *)0x10, 0) == -EFAULT, "mount with a bad type: EFAULT");
    check(mnt("/tmp", "/proc", 0, 4096) == -EINVAL, "mount --bind: EINVAL (not yet)");
    check(mnt("x", "/proc", 0, 32) == -EINVAL, "remount of no mount point: EINVAL");
    check(mnt("proc", "/proc", "proc", 0) == 0, "mount proc on /proc");
    check(sys3(SYS_statfs, "/proc", &sf, 0) == 0 && sf.type == 0x9fa0 && sf.namelen == 255,
          "statfs /proc: PROC_SUPER_MAGIC");
    check(sys3(SYS_statfs, "/", &sf, 0) == 0 && sf.type == 0x01021994 && sf.bsize == 4096 &&
          sf.blocks > 0 && sf.bfree <= sf.blocks, "statfs /: TMPFS_MAGIC, pool size");
    check(sys3(SYS_statfs, "/nonexistent", &sf, 0) == -ENOENT, "statfs of nothing: ENOENT");
    check(sys3(SYS_fstatfs, 99, &sf, 0) == -EBADF, "fstatfs of a closed fd: EBADF");
    long fd = sopen("/proc", O_DIRECTORY, 0);
    check(sys3(SYS_fstatfs, fd, &sf, 0) == 0 && sf.type == 0x9fa0, "fstatfs of /proc");
    sys3(SYS_close, fd, 0, 0);
    check(sys3(SYS_stat, "/proc", &st, 0) == 0 && sys3(SYS_stat, "/", &st2, 0) == 0 &&
          st.dev != st2.dev && st.mode == 040555, "st_dev differs per mount");
    check(sys3(SYS_stat, "/proc/..", &st, 0) == 0 && st.ino == st2.ino && st.dev == st2.dev,
          "/proc/.. is /");

    /* A tmpfs on /mnt. */
    check(mnt("scratch", "/mnt", "tmpfs", 2 | 4) == 0, "mount tmpfs on /mnt");
    fd = sopen("/mnt/a", O_CREAT | O_RDWR, 0644);
    check(fd >= 0 && sys3(SYS_write, fd, "abc", 3) == 3, "a file in the new tmpfs");
    struct kstat sr;
    sys3(SYS_stat, "/", &sr, 0);
    check(sys3(SYS_fstat, fd, &st, 0) == 0 && st.dev != sr.dev && sys3(SYS_stat, "/mnt", &st2, 0)
          == 0 && st2.dev == st.dev && st2.mode == 041777, "its st_dev; its root 1777");
    check(sys3(SYS_link, "/mnt/a", "/tmp/b", 0) == -EXDEV, "link across mounts: EXDEV");
    check(sys3(SYS_rename, "/mnt/a", "/tmp/b", 0) == -EXDEV, "rename across mounts: EXDEV");
    check(sys3(SYS_rmdir, "/mnt", 0, 0) == -EBUSY, "rmdir of a mount point: EBUSY");
    check(sys3(SYS_mkdir, "/mnt/sub", 0755, 0) == 0 && sys3(SYS_chdir, "/mnt/sub", 0, 0) == 0 &&
          sys3(SYS_getcwd, text, sizeof text, 0) == 9 && seq(text, "/mnt/sub"),
          "getcwd inside a mount");
    check(sys3(SYS_chdir, "../..", 0, 0) == 0 && sys3(SYS_getcwd, text, sizeof text, 0) == 2 &&
          seq(text, "/"), ".. leaves the mount");
    check(sys3(SYS_umount2, "/mnt", 0, 0) == -EBUSY, "umount with an open file: EBUSY");
    char buf[64], link[32] = "/proc/self/fd/";
    utoa(fd, link + 14);
    check(rlink(link, buf, sizeof buf) == 6 && seq(buf, "/mnt/a"), "/proc/self/fd/N -> /mnt/a");
    sys3(SYS_close, fd, 0, 0);
    check(slurp("/proc/mounts") > 0 && starts(text, "rootfs / rootfs rw,size=") &&
          has(text, ",inode64 0 0\n") && has(text, "\nproc /proc proc rw,relatime 0 0\n") &&
          has(text, "\nscratch /mnt tmpfs rw,nosuid,nodev,relatime,inode64 0 0\n"),
          "/proc/mounts");
    check(sys3(SYS_umount2, "/mnt/sub", 0, 0) == -EINVAL, "umount of no mount point: EINVAL");
    check(sys3(SYS_umount2, "/nonexistent", 0, 0) == -ENOENT, "umount of nothing: ENOENT");
    check(sys3(SYS_umount2, "/mnt", 0x100, 0) == -EINVAL, "umount2 bad flags: EINVAL");
    check(sys3(SYS_umount2, "/mnt", 5, 0) == -EINVAL, "MNT_EXPIRE | MNT_FORCE: EINVAL");
    check(sys3(SYS_umount2, "/", 0, 0) == -EINVAL, "umount /: EINVAL");
    check(sys3(SYS_umount2, "/mnt", 0, 0) == 0 && sopen("/mnt/a", 0, 0) == -ENOENT &&
          sys3(SYS_stat, "/mnt", &st, 0) == 0 && st.dev == sr.dev, "umount /mnt");
    check(sys3(SYS_umount2, "/mnt", 0, 0) == -EINVAL, "umount again: EINVAL");

    /* proc itself: busy while used, then mounted again. */
    check(sys3(SYS_chdir, "/proc", 0, 0) == 0 && sys3(SYS_umount2, "/proc", 0, 0) == -EBUSY &&
          sys3(SYS_chdir, "/", 0, 0) == 0, "umount of the cwd's file system: EBUSY");
    fd = sopen("/proc/uptime", 0, 0);
    check(sys3(SYS_umount2, "/proc", 0, 0) == -EBUSY, "umount with a proc file open: EBUSY");
    sys3(SYS_close, fd, 0, 0);
    check(sys3(SYS_umount2, "/proc", 0, 0) == 0 && sopen("/proc/uptime", 0, 0) == -ENOENT,
          "umount /proc");
    check(mnt("proc", "/proc", "proc", 0) == 0, "mount proc again");
}

static void proc_files(char **argv)
{
    char buf[64], num[24], want[64];
    long pid = sys3(SYS_getpid, 0, 0, 0), n;
    utoa(pid, num);
    check(rlink("/proc/self", buf, sizeof buf) == (long)slen(num) && seq(buf, num),
          "/proc/self -> pid");
    n = slurp("/proc/self/stat");
    utoa(pid, want);
    u64 k = slen(want);
    const char *tail = " (lxselftest) R ";
    for (u64 i = 0; i <= slen(tail); i++)
        want[k + i] = tail[i];
    check(n > 0 && starts(text, want) && fields(text) == 52 && text[n - 1] == '\n',
          "/proc/self/stat: pid (comm) R ppid ..., 52 fields");
    n = slurp("/proc/self/status");
    check(n > 0 && starts(text, "Name:\tlxselftest\n") && has(text, "\nState:\tR (running)\n") &&
          has(text, "\nPPid:\t") && has(text, "\nVmRSS:\t") && has(text, "\nUid:\t0\t0\t0\t0\n"),
          "/proc/self/status");
    check(slurp("/proc/self/cmdline") == 21 && meq(text, "/bin/lxselftest\0proc\0", 21),
          "/proc/self/cmdline");
    check(slurp("/proc/self/comm") == 11 && seq(text, "lxselftest\n"), "/proc/self/comm");
    check(rlink("/proc/self/exe", buf, sizeof buf) == 15 && seq(buf, argv[0]),
          "/proc/self/exe -> /bin/lxselftest");
    n = slurp("/proc/self/maps");
    check(n > 0 && has(text, " r-xp 00000000 00:00 0 ") && has(text, "[stack]\n") &&
          has(text, "/bin/lxselftest\n"), "/proc/self/maps");
    check(slurp("/proc/self/statm") > 0 && fields(text) == 7, "/proc/self/statm");
    check(rlink("/proc/self/cwd", buf, sizeof buf) == 1 && seq(buf, "/"), "/proc/self/cwd");
    check(rlink("/proc/self/fd/1", buf, sizeof buf) > 0 && seq(buf, "/dev/console"),
          "/proc/self/fd/1 -> /dev/console");
    check(dir_has("/proc/self/fd", "0") && dir_has("/proc/self/fd", "2") &&
          !dir_has("/proc/self/fd", "9"), "/proc/self/fd lists the open fds");
    check(dir_has("/proc", "self") && dir_has("/proc", num) && dir_has("/proc", "meminfo") &&
          dir_has("/proc/self", "status"), "/proc lists files and processes");
    long fd = sopen("/etc/hello.txt", 0, 0);
    char link[32] = "/proc/self/fd/";
    utoa(fd, link + 14);
    long fd2 = sopen(link, 0, 0);
    check(fd >= 3 && fd2 > fd && sys3(SYS_read, fd2, buf, 5) == 5 && meq(buf, "hello", 5),
          "open /proc/self/fd/N: the same file");
    sys3(SYS_close, fd2, 0, 0);
    sys3(SYS_close, fd, 0, 0);
    check(sopen(link, 0, 0) == -ENOENT, "a closed fd's link: ENOENT");
    check(sopen("/proc/99999/stat", 0, 0) == -ENOENT, "/proc/99999: ENOENT");

    n = slurp("/proc/meminfo");
    check(n > 0 && starts(text, "MemTotal:") && text[24] == ' ' && text[25] == 'k' &&
          text[27] == '\n' && has(text, "\nMemFree:") && has(text, "\nMemAvailable:") &&
          has(text, "\nCached:") && has(text, "\nSwapTotal:") && has(text, "\nShmem:"),
          "/proc/meminfo: MemTotal:%8lu kB ...");
    n = slurp("/proc/uptime");
    check(n >= 10 && text[n - 1] == '\n' && has(text, ".") && fields(text) == 2, "/proc/uptime");
    n = slurp("/proc/loadavg");
    check(starts(text, "0.00 0.00 0.00 ") && has(text, "/") && fields(text) == 5, "/proc/loadavg");
    check(slurp("/proc/version") > 0 && starts(text, "Linux version 6.1.0-pecan "),
          "/proc/version");
    check(slurp("/proc/filesystems") > 0 && has(text, "nodev\ttmpfs\n") &&
          has(text, "nodev\tproc\n"), "/proc/filesystems");
    check(slurp("/proc/cpuinfo") > 0 && starts(text, "processor\t: 0\nvendor_id\t: ") &&
          has(text, "\nflags\t\t: fpu"), "/proc/cpuinfo");
    check(slurp("/proc/stat") > 0 && starts(text, "cpu  "), "/proc/stat");

    sys3(SYS_tuxcall, 0, 0, 0);
    sys3(SYS_tuxcall, 0, 0, 0);
    check(slurp("/proc/lx/syscalls") > 0 && has(text, "\n184 tuxcall                  2\n"),
          "/proc/lx/syscalls counts ENOSYS calls");

    /* proc's errors. */
    check(sys3(SYS_mkdir, "/proc/x", 0755, 0) == -ENOENT, "mkdir in /proc: ENOENT");
    check(sopen("/proc/x", O_CREAT | O_WRONLY, 0644) == -ENOENT, "create in /proc: ENOENT");
    check(sys3(SYS_symlink, "a", "/proc/x", 0) == -ENOENT, "symlink in /proc: ENOENT");
    fd = sopen("/proc/meminfo", O_WRONLY, 0);
    check(fd >= 0 && sys3(SYS_write, fd, "x", 1) == -EIO, "a write to meminfo: EIO");
    check(sys3(SYS_ftruncate, fd, 0, 0) == 0 && sys3(SYS_truncate, "/proc/meminfo", 0, 0) == 0 &&
          slurp("/proc/meminfo") > 100, "truncate of a proc file: 0, nothing changes");
    check(sys3(SYS_chmod, "/proc/self/stat", 0600, 0) == -EPERM, "chmod of a proc file: EPERM");
    sys3(SYS_close, fd, 0, 0);
    check(sys3(SYS_unlink, "/proc/meminfo", 0, 0) == -EPERM, "unlink in /proc: EPERM");
    check(sys3(SYS_rename, "/etc/hello.txt", "/proc/y", 0) == -EXDEV,
          "rename into /proc: EXDEV");
    check(sys3(SYS_readlink, "/proc/meminfo", buf, sizeof buf) == -EINVAL,
          "readlink of a proc file: EINVAL");
    check(sopen("/proc", O_TMPFILE_ | O_RDWR, 0600) == -EOPNOTSUPP,
          "O_TMPFILE in /proc: EOPNOTSUPP");

    /* A child: its directory, its zombie, gone after wait4. */
    long c = sys3(SYS_fork, 0, 0, 0);
    if (c == 0)
        sys3(SYS_exit, 7, 0, 0);
    char path[64] = "/proc/", *p = path + 6;
    utoa(c, p);
    p += slen(p);
    const char *st = "/stat";
    for (int i = 0; i <= 5; i++)
        p[i] = st[i];
    int status = 0;
    for (long i = 0; i < 100000 && slurp(path) > 0 && !has(text, ") Z "); i++)
        ;                           /* until the child has ended */
    check(has(text, ") Z ") && has(text, num), "a child's stat: a zombie, its parent");
    check(wait4(c, &status, 0) == c && status == 7 << 8 && slurp(path) == -ENOENT,
          "reaped: its /proc directory is gone");
}

static void dev_files(void)
{
    char buf[64];
    struct kstat st;
    long fd;
    check(rlink("/dev/fd", buf, sizeof buf) == 13 && seq(buf, "/proc/self/fd"), "/dev/fd");
    check(rlink("/dev/stdin", buf, sizeof buf) > 0 && seq(buf, "/proc/self/fd/0"), "/dev/stdin");
    fd = sopen("/dev/stdout", O_WRONLY, 0);
    check(fd >= 0 && sys3(SYS_write, fd, "via /dev/stdout\n", 16) == 16, "write to /dev/stdout");
    sys3(SYS_close, fd, 0, 0);
    /* No controlling terminal (no setsid and open of a tty here): /dev/tty is ENXIO. */
    check(sopen("/dev/tty", O_RDWR, 0) == -6, "/dev/tty without a controlling terminal: ENXIO");
    check(sys3(SYS_stat, "/dev/console", &st, 0) == 0 && st.mode == 020600 && st.rdev == 0x501,
          "/dev/console 5,1");
    u64 r[4] = { 0, 0, 0, 0 };
    fd = sopen("/dev/urandom", 0, 0);
    check(sys3(SYS_read, fd, r, 32) == 32 && (r[0] | r[1]) && r[0] != r[1], "/dev/urandom");
    sys3(SYS_close, fd, 0, 0);
    fd = sopen("/dev/random", 0, 0);
    check(sys3(SYS_read, fd, r, 8) == 8, "/dev/random");
    sys3(SYS_close, fd, 0, 0);
    fd = sopen("/dev/full", O_RDWR, 0);
    check(sys3(SYS_write, fd, "x", 1) == -ENOSPC && sys3(SYS_read, fd, r, 8) == 8 && !r[0],
          "/dev/full: ENOSPC, reads zeros");
    sys3(SYS_close, fd, 0, 0);
    check(sys3(SYS_getrandom, r, 8, 8) == -EINVAL && sys3(SYS_getrandom, text, 300, 1) == 300,
          "getrandom: flags checked, more than 256 bytes");
}

static void file_calls(void)
{
    struct kstat st;
    char buf[64];
    unsigned char x[256];
    /* statx */
    for (int i = 0; i < 256; i++)
        x[i] = 0xAA;
    check(S6(SYS_statx, AT_FDCWD, "/etc/hello.txt", 0, 0x7ff, x, 0) == 0 &&
          (*(unsigned *)x & 0x7ff) == 0x7ff && *(u64 *)(x + 40) == 11 &&
          *(unsigned short *)(x + 28) == 0100644 && *(unsigned *)(x + 16) == 1 && x[255] == 0,
          "statx");
    check(S6(SYS_statx, AT_FDCWD, "/etc/hello.txt", 0x6000, 0x7ff, x, 0) == -EINVAL &&
          S6(SYS_statx, AT_FDCWD, "/etc/hello.txt", 0, 0x80000000, x, 0) == -EINVAL &&
          S6(SYS_statx, AT_FDCWD, "/etc/hello.txt", 0x8000000, 0x7ff, x, 0) == -EINVAL,
          "statx bad flags and mask: EINVAL");
    check(S6(SYS_statx, AT_FDCWD, "/nonexistent", 0, 0x7ff, x, 0) == -ENOENT &&
          S6(SYS_statx, AT_FDCWD, 0, 0, 0x7ff, x, 0) == -EFAULT &&
          S6(SYS_statx, AT_FDCWD, "/", 0, 0x7ff, 0x10, 0) == -EFAULT, "statx errors");
    check(S6(SYS_statx, AT_FDCWD, "", AT_EMPTY_PATH, 0x7ff, x, 0) == 0 &&
          (*(unsigned short *)(x + 28) & 0170000) == 040000, "statx AT_EMPTY_PATH: the cwd");

    /* times */
    long fd = sopen("/tmp/t", O_CREAT | O_RDWR, 0644);
    long ts[4] = { 100, 5, 200, 7 };
    check(S6(SYS_utimensat, AT_FDCWD, "/tmp/t", ts, 0, 0, 0) == 0 &&
          sys3(SYS_stat, "/tmp/t", &st, 0) == 0 && st.t[0] == 100 && st.t[1] == 5 &&
          st.t[2] == 200 && st.t[3] == 7, "utimensat sets atime and mtime");
    ts[1] = UTIME_OMIT_, ts[2] = 300, ts[3] = 0;
    check(S6(SYS_utimensat, AT_FDCWD, "/tmp/t", ts, 0, 0, 0) == 0 &&
          sys3(SYS_stat, "/tmp/t", &st, 0) == 0 && st.t[0] == 100 && st.t[2] == 300,
          "UTIME_OMIT keeps atime");
    ts[1] = UTIME_NOW_, ts[3] = UTIME_OMIT_;
    check(S6(SYS_utimensat, fd, 0, ts, 0, 0, 0) == 0 && sys3(SYS_fstat, fd, &st, 0) == 0 &&
          st.t[0] != 100 && st.t[2] == 300, "futimens: UTIME_NOW");
    ts[1] = UTIME_OMIT_;
    check(S6(SYS_utimensat, AT_FDCWD, "/nonexistent", ts, 0, 0, 0) == 0,
          "both UTIME_OMIT: 0 before any lookup");
    ts[1] = 1000000000;
    check(S6(SYS_utimensat, AT_FDCWD, "/tmp/t", ts, 0, 0, 0) == -EINVAL, "utimensat bad nsec");
    check(S6(SYS_utimensat, AT_FDCWD, "/tmp/t", 0, 0x4000, 0, 0) == -EINVAL,
          "utimensat bad flags: EINVAL");
    check(S6(SYS_utimensat, AT_FDCWD, "/tmp/t", 0x10, 0, 0, 0) == -EFAULT, "utimensat EFAULT");
    sys3(SYS_symlink, "t", "/tmp/tl", 0);
    ts[0] = 50, ts[1] = 0, ts[2] = 60, ts[3] = 0;
    check(S6(SYS_utimensat, AT_FDCWD, "/tmp/tl", ts, AT_SYMLINK_NOFOLLOW, 0, 0) == 0 &&
          sys3(SYS_lstat, "/tmp/tl", &st, 0) == 0 && st.t[2] == 60 &&
          sys3(SYS_stat, "/tmp/tl", &st, 0) == 0 && st.t[2] == 300,
          "AT_SYMLINK_NOFOLLOW: the link's times");
    long tv[4] = { 10, 0, 20, 1000000 };
    check(sys3(SYS_utimes, "/tmp/t", tv, 0) == -EINVAL, "utimes bad usec: EINVAL");
    tv[3] = 500;
    check(sys3(SYS_utimes, "/tmp/t", tv, 0) == 0 && sys3(SYS_stat, "/tmp/t", &st, 0) == 0 &&
          st.t[2] == 20 && st.t[3] == 500000, "utimes");
    check(sys3(SYS_utimes, "/nonexistent", 0, 0) == -ENOENT, "utimes of nothing: ENOENT");

    /* owners */
    sys3(SYS_chmod, "/tmp/t", 06755, 0);
    check(sys3(SYS_chown, "/tmp/t", 5, 6) == 0 && sys3(SYS_stat, "/tmp/t", &st, 0) == 0 &&
          st.uid == 5 && st.gid == 6 && st.mode == 0100755, "chown; set-id bits dropped");
    check(sys3(SYS_fchown, fd, -1, 8) == 0 && sys3(SYS_fstat, fd, &st, 0) == 0 &&
          st.uid == 5 && st.gid == 8, "fchown, -1 keeps");
    check(sys3(SYS_lchown, "/tmp/tl", 9, 9) == 0 && sys3(SYS_lstat, "/tmp/tl", &st, 0) == 0 &&
          st.uid == 9 && sys3(SYS_stat, "/tmp/t", &st, 0) == 0 && st.uid == 5,
          "lchown: the link's owner");
    check(S6(SYS_fchownat, AT_FDCWD, "/tmp/t", 1, 1, 0x4000, 0) == -EINVAL &&
          S6(SYS_fchownat, fd, "", 0, 0, AT_EMPTY_PATH, 0) == 0 &&
          sys3(SYS_fstat, fd, &st, 0) == 0 && st.uid == 0, "fchownat");
    check(sys3(SYS_chown, "/nonexistent", 0, 0) == -ENOENT && sys3(SYS_fchown, 99, 0, 0) == -EBADF,
          "chown errors");

    /* sendfile */
    long in = sopen("/etc/hello.txt", 0, 0);
    long off = 6;
    check(sys6(SYS_sendfile, fd, in, (long)&off, 100, 0, 0) == 5 && off == 11 &&
          sys3(SYS_lseek, in, 0, 1) == 0, "sendfile with an offset: the fd's position stays");
    check(sys6(SYS_sendfile, 1, in, 0, 100, 0, 0) == 11 && sys3(SYS_lseek, in, 0, 1) == 11,
          "sendfile to the console");
    check(sys6(SYS_sendfile, in, fd, 0, 1, 0, 0) == -EBADF, "sendfile to a read-only fd: EBADF");
    check(sys6(SYS_sendfile, fd, 99, 0, 1, 0, 0) == -EBADF, "sendfile from no fd: EBADF");
    off = -1;
    check(sys6(SYS_sendfile, fd, in, (long)&off, 1, 0, 0) == -EINVAL, "negative offset: EINVAL");

    /* ioctl FIONREAD, the sync family, readahead, fadvise, flock */
    int left = -1;
    sys3(SYS_lseek, in, 4, 0);
    check(sys3(SYS_ioctl, in, 0x541B, &left) == 0 && left == 7, "FIONREAD on a file");
    check(sys3(SYS_ioctl, 1, 0x541B, &left) == -ENOTTY || sys3(SYS_ioctl, 1, 0x541B, &left) == 0,
          "FIONREAD on the console");
    long nul = sopen("/dev/null", O_RDWR, 0);
    check(sys3(SYS_fsync, fd, 0, 0) == 0 && sys3(SYS_fdatasync, fd, 0, 0) == 0 &&
          sys3(SYS_fsync, nul, 0, 0) == -EINVAL && sys3(SYS_fsync, 99, 0, 0) == -EBADF,
          "fsync, fdatasync");
    check(sys3(SYS_sync, 0, 0, 0) == 0 && sys3(SYS_syncfs, fd, 0, 0) == 0 &&
          sys3(SYS_syncfs, 99, 0, 0) == -EBADF, "sync, syncfs");
    check(sys3(SYS_readahead, in, 0, 100) == 0 && sys3(SYS_readahead, nul, 0, 1) == -EINVAL,
          "readahead");
    check(S6(SYS_fadvise64, in, 0, 0, 4, 0, 0) == 0 && S6(SYS_fadvise64, in, 0, 0, 9, 0, 0) ==
          -EINVAL && S6(SYS_fadvise64, 99, 0, 0, 0, 0, 0) == -EBADF, "fadvise64");
    check(sys3(SYS_flock, fd, 2, 0) == 0 && sys3(SYS_flock, fd, 8, 0) == 0 &&
          sys3(SYS_flock, fd, 3, 0) == -EINVAL && sys3(SYS_flock, 99, 2, 0) == -EBADF, "flock");
    sys3(SYS_close, nul, 0, 0);
    sys3(SYS_close, in, 0, 0);
    sys3(SYS_close, fd, 0, 0);

    /* the old getdents: d_type in the record's last byte */
    char d[512];
    fd = sopen("/tmp", O_DIRECTORY, 0);
    long n = sys3(SYS_getdents, fd, d, sizeof d);
    int found = 0;
    for (long o = 0; o < n; o += *(unsigned short *)(d + o + 16)) {
        unsigned short rl = *(unsigned short *)(d + o + 16);
        if (seq(d + o + 18, "tl") && d[o + rl - 1] == 10)
            found = 1;
    }
    check(n > 0 && found, "getdents (the old one)");
    sys3(SYS_close, fd, 0, 0);

    /* mknod */
    check(sys3(SYS_mknod, "/tmp/n", 020666, 0x103) == 0 && sys3(SYS_stat, "/tmp/n", &st, 0) ==
          0 && st.rdev == 0x103 && (fd = sopen("/tmp/n", O_RDWR, 0)) >= 0 &&
          sys3(SYS_write, fd, "x", 1) == 1 && sys3(SYS_read, fd, buf, 1) == 0,
          "mknod of a null device");
    sys3(SYS_close, fd, 0, 0);
    check(sys3(SYS_mknod, "/tmp/r", 0100600, 0) == 0 && sys3(SYS_stat, "/tmp/r", &st, 0) == 0 &&
          st.mode == 0100600 && S6(SYS_mknodat, AT_FDCWD, "/tmp/r2", 0600, 0, 0, 0) == 0,
          "mknod of regular files");
    check(sys3(SYS_mknod, "/tmp/r", 0100600, 0) == -EEXIST, "mknod over a name: EEXIST");
    check(sys3(SYS_mknod, "/tmp/f", 010600, 0) == 0 && sys3(SYS_stat, "/tmp/f", &st, 0) == 0 &&
          (st.mode & 0170000) == 010000, "mknod of a FIFO");
    check(sys3(SYS_mknod, "/tmp/dd", 040755, 0) == -EPERM, "mknod of a directory: EPERM");
    check(sys3(SYS_mknod, "/tmp/bad", 0170600, 0) == -EINVAL, "mknod of a bad type: EINVAL");

    /* open's flags */
    check(sopen("/tmp/tl", O_NOFOLLOW, 0) == -ELOOP, "O_NOFOLLOW on a symlink: ELOOP");
    check(sopen("/tmp/t", O_DIRECTORY, 0) == -ENOTDIR, "O_DIRECTORY on a file: ENOTDIR");
    fd = sopen("/tmp", O_TMPFILE_ | O_RDWR, 0600);
    check(fd >= 0 && sys3(SYS_write, fd, "tmp", 3) == 3 && sys3(SYS_fstat, fd, &st, 0) == 0 &&
          st.nlink == 0 && st.size == 3 && !dir_has("/tmp", "#"), "O_TMPFILE: an unnamed file");
    sys3(SYS_close, fd, 0, 0);
    check(sopen("/tmp", O_TMPFILE_, 0600) == -EINVAL, "O_TMPFILE read-only: EINVAL");
    check(sopen("/tmp/t", O_TMPFILE_ | O_RDWR, 0600) == -ENOTDIR, "O_TMPFILE on a file: ENOTDIR");
    check(sopen("/tmp", 020000000 | O_RDWR, 0600) == -EINVAL, "__O_TMPFILE alone: EINVAL");

    /* sysinfo */
    u64 si[14];
    check(sys3(SYS_sysinfo, si, 0, 0) == 0 && si[4] > 0 && si[5] <= si[4] &&
          *(unsigned *)((char *)si + 104) == 1 && *(unsigned short *)((char *)si + 80) >= 1,
          "sysinfo");
    check(sys3(SYS_sysinfo, 0x10, 0, 0) == -EFAULT, "sysinfo EFAULT");
    for (const char *const *f = (const char *const[]){ "/tmp/t", "/tmp/tl", "/tmp/n", "/tmp/r",
                                                       "/tmp/r2", 0 }; *f; f++)
        sys3(SYS_unlink, *f, 0, 0);
}

/* Bad pointers to the new calls: EFAULT, lx unharmed. */
static void bad_pointers(void)
{
    char buf[4];
    long off = 0;
    check(sys3(SYS_statfs, "/", 0x10, 0) == -EFAULT && sys3(SYS_statfs, 0x10, buf, 0) == -EFAULT,
          "statfs: EFAULT");
    check(mnt((char *)0x10, "/mnt", "tmpfs", 0) == -EFAULT && mnt("x", (char *)0x10, "tmpfs", 0)
          == -EFAULT && sys3(SYS_umount2, 0x10, 0, 0) == -EFAULT, "mount, umount2: EFAULT");
    long in = sopen("/etc/hello.txt", 0, 0), out = sopen("/dev/null", O_WRONLY, 0);
    check(sys6(SYS_sendfile, out, in, 0x10, 1, 0, 0) == -EFAULT, "sendfile offset: EFAULT");
    check(sys6(SYS_sendfile, out, in, (long)&off, 0, 0, 0) == 0, "sendfile of 0 bytes: 0");
    sys3(SYS_close, in, 0, 0);
    sys3(SYS_close, out, 0, 0);
    check(sys3(SYS_readlink, "/proc/self/exe", buf, 1) == 1 && buf[0] == '/',
          "readlink into 1 byte: truncated");
    check(sys3(SYS_readlink, "/proc/self/exe", 0x10, 64) == -EFAULT, "readlink: EFAULT");
    check(sys3(SYS_read, sopen("/proc/self/status", 0, 0), 0x10, 64) == -EFAULT,
          "read of a proc file into the NULL page: EFAULT");
    check(sys3(SYS_utimes, "/tmp", 0x10, 0) == -EFAULT, "utimes: EFAULT");
}

static int proc(char **argv)
{
    proc_mounts();
    proc_files(argv);
    dev_files();
    file_calls();
    bad_pointers();
    /* Left mounted at the exit, one inside the other: lx unmounts them at the end of the
     * run (its page pool must be complete again). */
    check(mnt("t", "/mnt", "tmpfs", 0) == 0 && sys3(SYS_mkdir, "/mnt/p", 0755, 0) == 0 &&
          mnt("p", "/mnt/p", "proc", 0) == 0 && sopen("/mnt/p/self/status", 0, 0) >= 0 &&
          sys3(SYS_umount2, "/mnt", 0, 0) == -EBUSY, "nested mounts, left at the exit");
    sys3(SYS_umount2, "/proc", 0, 0);
    puts1(failures ? "selftest: FAILED\n" : "selftest: all passed\n");
    return failures ? 1 : 0;
}
