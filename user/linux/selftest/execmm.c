/* lxselftest.elf exec | mm | oom | showargs: executables and the memory model (issue 8
 * items 1 and 2; tests/system/test_lx_exec.py, docs/linux/exec.md and memory.md).  Runs
 * from the initramfs that test builds (this program as /bin/lxselftest, /tmp, /dev/zero,
 * /dev/null, /etc/hello.txt "hello file\n", /bin/script.sh and /etc/noexec.sh).  Included by
 * selftest.c after fs.c (whose helpers it uses); the expected values are Linux's.
 *
 *   exec      the loader (load base, auxv, bss, stack not executable), #! scripts, execve
 *             of /proc/self/exe and /proc/PID/exe, execve's errors
 *   mm        file mmap (MAP_PRIVATE, MAP_SHARED, past the end, across fork), /dev/zero,
 *             MAP_FIXED_NOREPLACE, MAP_NORESERVE, mremap, madvise, msync, mprotect guard
 *             pages, and the errors of each
 *   stackexec call code on the stack: SIGSEGV unless PT_GNU_STACK says PF_X
 *   oom       a mapping larger than memory is ENOMEM, brk too; a child that touches more
 *             than there is dies of SIGKILL, and its parent goes on
 *   showargs  (any argument starting with "showargs") print argv and AT_EXECFN on one line,
 *             exit 0: what the scripts and /proc/self/exe run */

enum { SYS_mprotect = 10, SYS_mremap = 25, SYS_msync = 26, SYS_madvise = 28,
       SYS_rename_ = 82 };
enum { X_E2BIG = 7, X_ENOEXEC = 8, X_ENOMEM = 12, X_ENODEV = 19, X_EOPNOTSUPP = 95 };

#define PROT_R 1
#define PROT_W 2
#define PROT_X 4
#define M_SHARED 0x01
#define M_PRIVATE 0x02
#define M_FIXED 0x10
#define M_ANON 0x20
#define M_NORESERVE 0x4000
#define M_FIXED_NOREPLACE 0x100000
#define PG 4096l

extern char __ehdr_start[], _edata[], _end[];

static long mmap6(u64 addr, u64 len, long prot, long flags, long fd, long off)
{
    return S6(SYS_mmap, addr, len, prot, flags, fd, off);
}

static int prefix(const char *s, const char *p)
{
    while (*p)
        if (*s++ != *p++)
            return 0;
    return 1;
}

/* One line at once: the words of a line are appended here, then written. */
static char line[4096];
static u64 line_n;

static void lput(const char *s)
{
    while (*s && line_n < sizeof line - 1)
        line[line_n++] = *s++;
}

static void lflush(void)
{
    line[line_n++] = '\n';
    sys3(SYS_write, 1, line, line_n);
    line_n = 0;
}

static int showargs(int argc, char **argv, u64 *auxv)
{
    lput("showargs:");
    for (int i = 0; i < argc; i++) {
        lput(" [");
        lput(argv[i]);
        lput("]");
    }
    const char *execfn = (const char *)auxval(auxv, 31);
    lput(" execfn=[");
    lput(execfn ? execfn : "(none)");
    lput("]");
    lflush();
    return 0;
}

static int wfile(const char *path, const char *data, long mode)
{
    long fd = sopen(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    if (fd < 0)
        return 0;
    long n = sys3(SYS_write, fd, data, slen(data));
    sys3(SYS_close, fd, 0, 0);
    return n == (long)slen(data) && sys3(SYS_chmod, path, mode, 0) == 0;
}

static char *envp0[] = { 0 };

/* Run path with argv in a child; its wait status (exit code 100 + errno if execve failed). */
static int run(const char *path, char **args)
{
    long pid = sys3(SYS_fork, 0, 0, 0);
    if (pid == 0) {
        long r = sys3(SYS_execve, path, args, envp0);
        sys3(SYS_exit, 100 - r, 0, 0);
    }
    int st = -1;
    if (pid < 0 || wait4(pid, &st, 0) != pid)
        return -1;
    return st;
}

/* A child that runs fn; its wait status. */
static int in_child(void (*fn)(u64), u64 arg)
{
    long pid = sys3(SYS_fork, 0, 0, 0);
    if (pid == 0) {
        fn(arg);
        sys3(SYS_exit, 0, 0, 0);
    }
    int st = -1;
    if (pid < 0 || wait4(pid, &st, 0) != pid)
        return -1;
    return st;
}

static void touch_byte(u64 addr)
{
    *(volatile char *)addr = 1;
}

static void read_byte(u64 addr)
{
    (void)*(volatile char *)addr;
}

static void call_code(u64 addr)
{
    ((void (*)(void))addr)();
}

/* --- exec ----------------------------------------------------------------------------------- */

static void exec_loader(u64 *auxv)
{
    /* bss: every byte from the end of the file's data to the end of that page and beyond
     * is zero at the start (entry_sp and entry_rdx, stored by _start, excepted). */
    int zero = 1;
    for (char *p = _edata; p < _end; p++) {
        if ((p >= (char *)&entry_sp && p < (char *)(&entry_sp + 1)) ||
            (p >= (char *)&entry_rdx && p < (char *)(&entry_rdx + 1)))
            continue;
        zero &= *p == 0;
    }
    check(zero, "bss zero, from the end of the file's bytes on");
    lput("exec: loaded at ");
    char buf[24];
    int i = 23;
    buf[i] = 0;
    u64 v = (u64)__ehdr_start;
    do
        buf[--i] = "0123456789abcdef"[v % 16];
    while (v /= 16);
    lput(&buf[i]);
    lflush();
    check(auxval(auxv, 3) == (u64)__ehdr_start + ((u64 *)__ehdr_start)[4],
          "AT_PHDR: the program headers where they are loaded");
    check(auxval(auxv, 9) == (u64)_start, "AT_ENTRY: the entry where it is loaded");
    check(auxval(auxv, 7) == 0 && auxval(auxv, 8) == 0, "AT_BASE 0, AT_FLAGS 0");
    const char *platform = (const char *)auxval(auxv, 15);
    check(platform && seq(platform, "x86_64"), "AT_PLATFORM x86_64");
    check(auxval(auxv, 51) >= 1024, "AT_MINSIGSTKSZ");
    u64 *a = auxv;
    int hwcap2 = 0, sysinfo = 0;
    for (; a[0]; a += 2)
        hwcap2 |= a[0] == 26, sysinfo |= a[0] == 33;
    check(hwcap2, "AT_HWCAP2 present");
    puts1(sysinfo ? "exec: AT_SYSINFO_EHDR present\n" : "exec: no AT_SYSINFO_EHDR\n");
    /* The stack is not executable (PT_GNU_STACK without PF_X): a child that calls code
     * on its stack dies of SIGSEGV. */
    volatile unsigned char code[16] = { 0xC3 };        /* ret */
    int st = in_child(call_code, (u64)code);
    check((st & 0x7f) == 11, "code on the stack: SIGSEGV (not executable)");
    /* And an executable mapping runs it. */
    long m = mmap6(0, PG, PROT_R | PROT_W | PROT_X, M_PRIVATE | M_ANON, -1, 0);
    ((volatile unsigned char *)m)[0] = 0xC3;
    call_code((u64)m);
    check(1, "code in a PROT_EXEC mapping runs");
    sys3(SYS_munmap, m, PG, 0);
}

static void exec_scripts(char **argv)
{
    char *args[] = { "name", "a", "b c", 0 };
    /* The interpreter with one argument (spaces and tabs around it go, inside it stay). */
    check(wfile("/tmp/s1", "#!/bin/lxselftest showargs\n", 0755), "write /tmp/s1");
    check(run("/tmp/s1", args) == 0, "script: interpreter and argument");
    check(wfile("/tmp/s2", "#! \t/bin/lxselftest \t showargs  two words \t\nexit 3\n", 0755) &&
          run("/tmp/s2", args) == 0, "script: spaces and tabs around the argument");
    /* Without an argument: the script's path becomes argv[1]. */
    char *args3[] = { "x", "showargs-noarg", 0 };
    check(wfile("/tmp/s3", "#!/bin/lxselftest\n", 0755) && run("/tmp/s3", args3) == 0,
          "script: interpreter alone");
    /* An initramfs script, relative path from /tmp. */
    check(sys3(SYS_chdir, "/bin", 0, 0) == 0 && run("script.sh", args) == 0,
          "script: from the initramfs, by a relative path");
    sys3(SYS_chdir, "/", 0, 0);
    /* A script whose interpreter is a script: both rewrite argv. */
    check(wfile("/tmp/s4", "#!/tmp/s1 inner\n", 0755) && run("/tmp/s4", args) == 0,
          "script: an interpreter that is a script");
    /* No newline in the first 256 bytes: fine if the name ends there, ENOEXEC if not. */
    static char longline[400];
    char *p = longline;
    for (const char *s = "#!/bin/lxselftest showargs-long "; *s;)
        *p++ = *s++;
    while (p < longline + 300)
        *p++ = 'x';
    *p = 0;
    check(wfile("/tmp/s5", longline, 0755) && run("/tmp/s5", args) == 0,
          "script: a long first line, the argument cut at 256 bytes");
    p = longline + 2;
    for (int i = 0; i < 300; i++)
        *p++ = 'y';
    *p = 0;
    check(wfile("/tmp/s6", longline, 0755), "write /tmp/s6");
    check(sys3(SYS_execve, "/tmp/s6", args, envp0) == -X_ENOEXEC,
          "script: an interpreter name longer than 256 bytes: ENOEXEC");
    /* Five scripts deep runs; six is ELOOP.  d1 -> d2 -> ... -> d5 -> lxselftest. */
    check(wfile("/tmp/d5", "#!/bin/lxselftest showargs-deep\n", 0755) &&
          wfile("/tmp/d4", "#!/tmp/d5\n", 0755) && wfile("/tmp/d3", "#!/tmp/d4\n", 0755) &&
          wfile("/tmp/d2", "#!/tmp/d3\n", 0755) && wfile("/tmp/d1", "#!/tmp/d2\n", 0755) &&
          wfile("/tmp/d0", "#!/tmp/d1\n", 0755), "write /tmp/d0 ... d5");
    check(run("/tmp/d1", args) == 0, "script: five deep runs");
    check(sys3(SYS_execve, "/tmp/d0", args, envp0) == -ELOOP, "script: six deep: ELOOP");
    check(wfile("/tmp/loop", "#!/tmp/loop\n", 0755) &&
          sys3(SYS_execve, "/tmp/loop", args, envp0) == -ELOOP, "script: itself: ELOOP");
    /* The errors. */
    check(wfile("/tmp/e1", "#!/nonexistent/interp\n", 0755) &&
          sys3(SYS_execve, "/tmp/e1", args, envp0) == -ENOENT, "script: no interpreter: ENOENT");
    check(wfile("/tmp/e2", "#!\n", 0755) && sys3(SYS_execve, "/tmp/e2", args, envp0) == -X_ENOEXEC,
          "script: #! alone: ENOEXEC");
    check(wfile("/tmp/e3", "#!  \t \n", 0755) &&
          sys3(SYS_execve, "/tmp/e3", args, envp0) == -X_ENOEXEC, "script: #! and blanks: ENOEXEC");
    check(wfile("/tmp/e4", "#!/tmp\n", 0755) && sys3(SYS_execve, "/tmp/e4", args, envp0) == -EACCES,
          "script: a directory as interpreter: EACCES");
    check(wfile("/tmp/e5", "#!/bin/lxselftest showargs\n", 0644) &&
          sys3(SYS_execve, "/tmp/e5", args, envp0) == -EACCES, "script without x: EACCES");
    check(sys3(SYS_execve, "/etc/noexec.sh", args, envp0) == -EACCES,
          "initramfs script without x: EACCES");
    check(wfile("/tmp/e6", "echo hello\n", 0755) &&
          sys3(SYS_execve, "/tmp/e6", args, envp0) == -X_ENOEXEC,
          "no #! and no ELF: ENOEXEC (the shell's job)");
    check(wfile("/tmp/e7", "#!/etc/hello.txt\n", 0755) &&
          sys3(SYS_execve, "/tmp/e7", args, envp0) == -EACCES,
          "script: an interpreter without x: EACCES");
    (void)argv;
}

/* A copy of this program written with write(): its pages are not one piece (a written tmpfs
 * file), it runs all the same; a changed copy runs its change. */
static void exec_written(char **argv)
{
    static char buf[PG];
    long in = sopen(argv[0], 0, 0), out = sopen("/tmp/copy", O_WRONLY | O_CREAT | O_TRUNC, 0755);
    long n, total = 0;
    while ((n = sys3(SYS_read, in, buf, sizeof buf)) > 0)
        total += sys3(SYS_write, out, buf, n);
    sys3(SYS_close, in, 0, 0);
    sys3(SYS_close, out, 0, 0);
    check(total > 0 && sys3(SYS_chmod, "/tmp/copy", 0755, 0) == 0, "a copy of the program");
    char *args[] = { "copy", "showargs-copy", 0 };
    check(run("/tmp/copy", args) == 0, "execve of a written copy");
    check(sys3(SYS_unlink, "/tmp/copy", 0, 0) == 0, "unlink it");
}

static void exec_proc_self(char **argv)
{
    char *args[] = { "me", "showargs-self", 0 };
    /* /proc/self/exe is proc's link, as on Linux: proc must be mounted. */
    long mounted = sys6(165 /* mount */, (long)"proc", (long)"/proc", (long)"proc", 0, 0, 0);
    check(mounted == 0, "mount proc on /proc");
    check(run("/proc/self/exe", args) == 0, "execve(/proc/self/exe)");
    char path[40] = "/proc/", num[24];
    utoa(sys3(SYS_getpid, 0, 0, 0), num);
    char *d = path + 6;
    for (char *s = num; *s;)
        *d++ = *s++;
    for (const char *s = "/exe"; *s;)
        *d++ = *s++;
    *d = 0;
    args[1] = "showargs-parent";
    check(run(path, args) == 0, "execve(/proc/PID/exe) of the parent");
    check(sys3(SYS_execve, "/proc/999999/exe", args, envp0) == -ENOENT,
          "execve(/proc/999999/exe): ENOENT");
    /* The file itself, not its name: it runs after a rename too. */
    if (seq(argv[0], "/bin/lxselftest")) {
        check(sys3(SYS_rename_, "/bin/lxselftest", "/bin/moved", 0) == 0, "rename the program");
        args[1] = "showargs-moved";
        check(run("/proc/self/exe", args) == 0, "execve(/proc/self/exe) after a rename");
        check(sys3(SYS_rename_, "/bin/moved", "/bin/lxselftest", 0) == 0, "rename it back");
    }
    check(sys3(166 /* umount2 */, "/proc", 0, 0) == 0, "umount /proc");
}

static void exec_errors(char **argv)
{
    char *args[] = { argv[0], "showargs", 0 };
    check(sys3(SYS_execve, "/etc/hello.txt", args, envp0) == -EACCES, "execve of a file without x: EACCES");
    check(sys3(SYS_execve, "/tmp", args, envp0) == -EACCES, "execve of a directory: EACCES");
    check(sys3(SYS_execve, "/etc/hello.txt/x", args, envp0) == -ENOTDIR,
          "execve through a file: ENOTDIR");
    check(sys3(SYS_execve, "", args, envp0) == -ENOENT, "execve(\"\"): ENOENT");
    check(sys3(SYS_execve, "/bin/lxselftest", (char **)0x10, envp0) == -EFAULT,
          "execve with a bad argv: EFAULT");
    char *badarg[] = { "x", (char *)0x10, 0 };
    check(sys3(SYS_execve, "/bin/lxselftest", badarg, envp0) == -EFAULT,
          "execve with a bad argv string: EFAULT");
    /* A string longer than 128 KiB (Linux's MAX_ARG_STRLEN): E2BIG. */
    long m = mmap6(0, 160 * 1024, PROT_R | PROT_W, M_PRIVATE | M_ANON, -1, 0);
    char *big = (char *)m;
    for (long i = 0; i < 140 * 1024; i++)
        big[i] = 'z';
    char *bigargs[] = { "x", big, 0 };
    check(sys3(SYS_execve, "/bin/lxselftest", bigargs, envp0) == -X_E2BIG,
          "execve with a 140 KiB argument: E2BIG");
    /* A path longer than PATH_MAX: ENAMETOOLONG. */
    for (long i = 0; i < 5000; i++)
        big[i] = 'a';
    big[5000] = 0;
    check(sys3(SYS_execve, big, args, envp0) == -ENAMETOOLONG, "execve of a 5000-byte path: ENAMETOOLONG");
    sys3(SYS_munmap, m, 160 * 1024, 0);
    /* The old image is intact after each failure. */
    check(cow_value == 1234, "after the failed execve calls: still the old image");
}

/* stackexec: call code on the stack; killed by SIGSEGV unless PT_GNU_STACK has PF_X (the
 * test patches a copy of this program so that it has). */
static int stackexec(void)
{
    volatile unsigned char code[16] = { 0xC3 };
    call_code((u64)code);
    puts1("stackexec: code on the stack ran\n");
    return 0;
}

static int exectest(int argc, char **argv, u64 *auxv)
{
    (void)argc;
    exec_loader(auxv);
    exec_scripts(argv);
    exec_written(argv);
    exec_proc_self(argv);
    exec_errors(argv);
    puts1(failures ? "selftest: FAILED\n" : "selftest: all passed\n");
    return 0;
}

/* --- mm ------------------------------------------------------------------------------------- */

static int all_bytes(const char *p, u64 n, char c)
{
    for (u64 i = 0; i < n; i++)
        if (p[i] != c)
            return 0;
    return 1;
}

/* A 3-page + 100-byte file: page k holds 'A' + k. */
static long make_file(const char *path)
{
    static char pagebuf[PG];
    long fd = sopen(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    for (int k = 0; k < 4; k++) {
        for (u64 i = 0; i < PG; i++)
            pagebuf[i] = (char)('A' + k);
        sys3(SYS_write, fd, pagebuf, k < 3 ? PG : 100);
    }
    return fd;
}

static void mm_file_private(void)
{
    long fd = make_file("/tmp/map1");
    check(fd >= 0 && fsize(fd) == 3 * PG + 100, "a file of 3 pages and 100 bytes");
    long m = mmap6(0, 4 * PG, PROT_R | PROT_W, M_PRIVATE, fd, 0);
    check(m > 0, "mmap MAP_PRIVATE of a file");
    char *p = (char *)m;
    check(all_bytes(p, PG, 'A') && all_bytes(p + 2 * PG, PG, 'C') && all_bytes(p + 3 * PG, 100, 'D'),
          "MAP_PRIVATE: the file's bytes");
    check(all_bytes(p + 3 * PG + 100, PG - 100, 0), "the last page past the end of the file: zero");
    p[5] = 'x';
    char c = 0;
    check(S6(SYS_pread64, fd, &c, 1, 5, 0, 0) == 1 && c == 'A',
          "MAP_PRIVATE: a store stays private (the file unchanged)");
    /* MADV_DONTNEED of a private file page: it reads from the file again. */
    check(sys3(SYS_madvise, m, PG, 4) == 0 && p[5] == 'A', "MADV_DONTNEED: the file's bytes again");
    /* With an offset. */
    long m2 = mmap6(0, PG, PROT_R, M_PRIVATE, fd, 2 * PG);
    check(m2 > 0 && all_bytes((char *)m2, PG, 'C'), "mmap at a file offset");
    /* Copy on write across fork. */
    p[7] = 'y';
    long pid = sys3(SYS_fork, 0, 0, 0);
    if (pid == 0) {
        int ok = p[7] == 'y';
        p[7] = 'z';
        sys3(SYS_exit, ok && p[7] == 'z' ? 0 : 1, 0, 0);
    }
    int st = -1;
    check(wait4(pid, &st, 0) == pid && st == 0 && p[7] == 'y',
          "MAP_PRIVATE of a file across fork: copy on write");
    /* A page wholly past the end of the file: SIGBUS. */
    long m3 = mmap6(0, 8 * PG, PROT_R, M_PRIVATE, fd, 0);
    st = in_child(read_byte, m3 + 5 * PG);
    check((st & 0x7f) == 7, "a page past the end of the file: SIGBUS");
    check(sys3(SYS_write, 1, m3 + 5 * PG, 1) == -EFAULT, "write() from it: EFAULT");
    sys3(SYS_munmap, m, 4 * PG, 0);
    sys3(SYS_munmap, m2, PG, 0);
    sys3(SYS_munmap, m3, 8 * PG, 0);
    sys3(SYS_close, fd, 0, 0);
}

static void mm_file_shared(void)
{
    long fd = make_file("/tmp/map2");
    long m = mmap6(0, 4 * PG, PROT_R | PROT_W, M_SHARED, fd, 0);
    check(m > 0, "mmap MAP_SHARED of a file opened O_RDWR");
    char *p = (char *)m;
    check(all_bytes(p + PG, PG, 'B'), "MAP_SHARED: the file's bytes");
    p[PG + 1] = 's';
    char c = 0;
    check(S6(SYS_pread64, fd, &c, 1, PG + 1, 0, 0) == 1 && c == 's',
          "MAP_SHARED: a store reaches read()");
    check(p[2 * PG + 9] == 'C', "MAP_SHARED: the third page");
    check(S6(SYS_pwrite64, fd, "w", 1, 2 * PG + 9, 0, 0) == 1 && p[2 * PG + 9] == 'w',
          "MAP_SHARED: write() reaches the mapping");
    long m2 = mmap6(0, PG, PROT_R, M_SHARED, fd, PG);
    check(m2 > 0 && ((char *)m2)[1] == 's', "a second MAP_SHARED mapping sees the first");
    long pid = sys3(SYS_fork, 0, 0, 0);
    if (pid == 0) {
        p[3] = 'k';
        sys3(SYS_exit, 0, 0, 0);
    }
    int st = -1;
    check(wait4(pid, &st, 0) == pid && p[3] == 'k', "MAP_SHARED across fork: the child's store");
    check(sys3(SYS_msync, m, 4 * PG, 4) == 0, "msync MS_SYNC");
    check(sys3(SYS_msync, m, PG, 0) == 0 && sys3(SYS_msync, m, PG, 3) == 0, "msync MS_ASYNC");
    check(sys3(SYS_msync, m, PG, 5) == -EINVAL, "msync MS_ASYNC|MS_SYNC: EINVAL");
    check(sys3(SYS_msync, m + 1, PG, 4) == -EINVAL, "msync unaligned: EINVAL");
    check(sys3(SYS_msync, m, PG, 8) == -EINVAL, "msync with unknown flags: EINVAL");
    /* mremap moves a shared file mapping: it still is the file. */
    long r = S6(SYS_mremap, m, 4 * PG, 6 * PG, 1, 0, 0);
    check(r > 0 && ((char *)r)[PG + 1] == 's', "mremap of a MAP_SHARED file mapping");
    if (r > 0) {
        ((char *)r)[10] = 'm';
        check(S6(SYS_pread64, fd, &c, 1, 10, 0, 0) == 1 && c == 'm',
              "mremap'd: stores still reach the file");
        m = r;
    }
    /* The file outlives its name while mapped. */
    check(sys3(SYS_unlink, "/tmp/map2", 0, 0) == 0 && sys3(SYS_close, fd, 0, 0) == 0 &&
          ((char *)m)[PG + 1] == 's', "unlinked and closed: the mapping goes on");
    sys3(SYS_munmap, m, 6 * PG, 0);
    sys3(SYS_munmap, m2, PG, 0);
    /* A read-only initramfs file, shared. */
    long ro = sopen("/etc/hello.txt", 0, 0);
    m = mmap6(0, PG, PROT_R, M_SHARED, ro, 0);
    check(m > 0 && meq((char *)m, "hello file\n", 11), "MAP_SHARED of an initramfs file");
    check(sys3(SYS_mprotect, m, PG, PROT_R | PROT_W) == -EACCES,
          "mprotect(PROT_WRITE) of a shared mapping of an O_RDONLY fd: EACCES");
    sys3(SYS_munmap, m, PG, 0);
    m = mmap6(0, PG, PROT_R | PROT_W, M_PRIVATE, ro, 0);
    check(m > 0 && meq((char *)m, "hello file\n", 11), "MAP_PRIVATE writable of an O_RDONLY fd");
    sys3(SYS_munmap, m, PG, 0);
    /* The errors, in Linux's order. */
    check(mmap6(0, PG, PROT_R | PROT_W, M_SHARED, ro, 0) == -EACCES,
          "MAP_SHARED|PROT_WRITE of an O_RDONLY fd: EACCES");
    check(mmap6(0, PG, PROT_R, M_SHARED, ro, 1) == -EINVAL, "an unaligned offset: EINVAL");
    check(mmap6(0, PG, PROT_R, M_SHARED, 99, 0) == -EBADF, "a closed fd: EBADF");
    check(mmap6(0, PG, PROT_R, M_SHARED, 99, 1) == -EINVAL, "an unaligned offset before EBADF");
    check(mmap6(0, 0, PROT_R, M_SHARED, ro, 0) == -EINVAL, "length 0: EINVAL");
    check(mmap6(0, PG, PROT_R, 0, ro, 0) == -EINVAL, "neither shared nor private: EINVAL");
    check(mmap6(0, PG, PROT_R, 0x03 | 0x80000, ro, 0) == -X_EOPNOTSUPP,
          "MAP_SHARED_VALIDATE with MAP_SYNC: EOPNOTSUPP");
    long wo = sopen("/tmp/map1", O_WRONLY, 0);
    check(mmap6(0, PG, PROT_R, M_PRIVATE, wo, 0) == -EACCES, "an O_WRONLY fd: EACCES");
    long dir = sopen("/tmp", O_DIRECTORY, 0);
    check(mmap6(0, PG, PROT_R, M_PRIVATE, dir, 0) == -X_ENODEV, "a directory: ENODEV");
    long null = sopen("/dev/null", O_RDWR, 0);
    check(mmap6(0, PG, PROT_R, M_PRIVATE, null, 0) == -X_ENODEV, "/dev/null: ENODEV");
    long zero = sopen("/dev/zero", O_RDWR, 0);
    m = mmap6(0, 2 * PG, PROT_R | PROT_W, M_PRIVATE, zero, 0);
    check(m > 0 && all_bytes((char *)m, 2 * PG, 0), "MAP_PRIVATE of /dev/zero: zero memory");
    ((char *)m)[4] = 1;
    sys3(SYS_munmap, m, 2 * PG, 0);
    sys3(SYS_close, ro, 0, 0);
    sys3(SYS_close, wo, 0, 0);
    sys3(SYS_close, dir, 0, 0);
    sys3(SYS_close, null, 0, 0);
    sys3(SYS_close, zero, 0, 0);
    sys3(SYS_unlink, "/tmp/map1", 0, 0);
}

static void mm_anon(void)
{
    /* MAP_FIXED_NOREPLACE: EEXIST over a mapping, fine in a hole. */
    long m = mmap6(0, 3 * PG, PROT_R | PROT_W, M_PRIVATE | M_ANON, -1, 0);
    check(mmap6(m + PG, PG, PROT_R, M_PRIVATE | M_ANON | M_FIXED_NOREPLACE, -1, 0) == -EEXIST,
          "MAP_FIXED_NOREPLACE over a mapping: EEXIST");
    sys3(SYS_munmap, m + PG, PG, 0);
    check(mmap6(m + PG, PG, PROT_R, M_PRIVATE | M_ANON | M_FIXED_NOREPLACE, -1, 0) == m + PG,
          "MAP_FIXED_NOREPLACE in a hole");
    check(mmap6(m + 1, PG, PROT_R, M_PRIVATE | M_ANON | M_FIXED, -1, 0) == -EINVAL,
          "MAP_FIXED unaligned: EINVAL");
    check(mmap6(0, 1ul << 47, PROT_R, M_PRIVATE | M_ANON, -1, 0) == -X_ENOMEM,
          "a mapping larger than the address space: ENOMEM");
    sys3(SYS_munmap, m, 3 * PG, 0);

    /* PROT_NONE guard page. */
    m = mmap6(0, 3 * PG, PROT_R | PROT_W, M_PRIVATE | M_ANON, -1, 0);
    char *p = (char *)m;
    p[0] = 1, p[2 * PG] = 2;
    check(sys3(SYS_mprotect, m + PG, PG, 0) == 0, "mprotect PROT_NONE");
    int st = in_child(touch_byte, m + PG);
    check((st & 0x7f) == 11, "a store to the guard page: SIGSEGV");
    st = in_child(read_byte, m + PG);
    check((st & 0x7f) == 11, "a load from the guard page: SIGSEGV");
    check(sys3(SYS_write, 1, m + PG, 1) == -EFAULT, "write() from the guard page: EFAULT");
    check(p[0] == 1 && p[2 * PG] == 2, "the pages around it");
    check(sys3(SYS_mprotect, m + PG, PG, PROT_R | PROT_W) == 0 && (p[PG] = 5) == 5,
          "mprotect back: usable again");
    check(sys3(SYS_mprotect, m + 1, PG, 0) == -EINVAL, "mprotect unaligned: EINVAL");

    /* madvise. */
    p[5] = 9, p[PG + 5] = 9;
    check(sys3(SYS_madvise, m, 2 * PG, 4) == 0 && p[5] == 0 && p[PG + 5] == 0 && p[2 * PG] == 2,
          "MADV_DONTNEED: private anonymous pages read zero");
    check(sys3(SYS_madvise, m, PG, 0) == 0 && sys3(SYS_madvise, m, PG, 3) == 0 &&
          sys3(SYS_madvise, m, PG, 1) == 0 && sys3(SYS_madvise, m, PG, 2) == 0,
          "MADV_NORMAL, RANDOM, SEQUENTIAL, WILLNEED: 0");
    check(sys3(SYS_madvise, m, PG, 5) == -EINVAL && sys3(SYS_madvise, m, PG, 999) == -EINVAL,
          "unknown advice: EINVAL");
    check(sys3(SYS_madvise, m + 1, PG, 4) == -EINVAL, "madvise unaligned: EINVAL");
    check(sys3(SYS_madvise, m, 0, 4) == 0, "madvise of 0 bytes: 0");
    check(sys3(SYS_madvise, 0x7fe000000000, PG, 4) == -X_ENOMEM, "madvise unmapped: ENOMEM");
    sys3(SYS_munmap, m, 3 * PG, 0);
    volatile u64 *sh = (u64 *)mmap6(0, PG, PROT_R | PROT_W, M_SHARED | M_ANON, -1, 0);
    sh[0] = 77;
    check(sys3(SYS_madvise, sh, PG, 4) == 0 && sh[0] == 77,
          "MADV_DONTNEED of shared anonymous memory: its contents stay");
    sys3(SYS_munmap, sh, PG, 0);
    check(sys3(SYS_msync, 0x7fe000000000, PG, 4) == -X_ENOMEM, "msync unmapped: ENOMEM");

    /* MAP_NORESERVE: a promise larger than memory, as long as it is not used. */
    long big = mmap6(0, 1ul << 40, PROT_R | PROT_W, M_PRIVATE | M_ANON | M_NORESERVE, -1, 0);
    check(big > 0, "MAP_NORESERVE of 1 TiB");
    ((char *)big)[12345678] = 1;
    check(sys3(SYS_munmap, big, 1ul << 40, 0) == 0, "touched once, unmapped");
}

static void mm_remap(void)
{
    /* Grow in place: a place with room after it. */
    long m = mmap6(0, 8 * PG, PROT_R | PROT_W, M_PRIVATE | M_ANON, -1, 0);
    sys3(SYS_munmap, m + 2 * PG, 6 * PG, 0);
    char *p = (char *)m;
    p[0] = 'a', p[PG] = 'b';
    long r = S6(SYS_mremap, m, 2 * PG, 4 * PG, 0, 0, 0);
    check(r == m && p[0] == 'a' && p[PG] == 'b' && p[3 * PG] == 0, "mremap grows in place");
    p[3 * PG] = 'd';
    /* Blocked: without MREMAP_MAYMOVE ENOMEM, with it moved. */
    long block = mmap6(m + 4 * PG, PG, PROT_R, M_PRIVATE | M_ANON | M_FIXED_NOREPLACE, -1, 0);
    check(block == m + 4 * PG, "a mapping right after it");
    check(S6(SYS_mremap, m, 4 * PG, 6 * PG, 0, 0, 0) == -X_ENOMEM,
          "mremap blocked without MREMAP_MAYMOVE: ENOMEM");
    r = S6(SYS_mremap, m, 4 * PG, 6 * PG, 1, 0, 0);
    char *q = (char *)r;
    check(r > 0 && r != m && q[0] == 'a' && q[PG] == 'b' && q[3 * PG] == 'd' && q[5 * PG] == 0,
          "mremap MREMAP_MAYMOVE moves, the contents along");
    check(sys3(SYS_write, 1, m, 1) == -EFAULT, "the old place is unmapped");
    /* Shrink. */
    check(S6(SYS_mremap, r, 6 * PG, 2 * PG, 0, 0, 0) == r && q[PG] == 'b', "mremap shrinks");
    check(sys3(SYS_write, 1, r + 2 * PG, 1) == -EFAULT, "the tail is unmapped");
    /* MREMAP_FIXED to a place of our choosing (replacing what is there). */
    long dst = mmap6(0, 4 * PG, PROT_R, M_PRIVATE | M_ANON, -1, 0);
    long f = S6(SYS_mremap, r, 2 * PG, 3 * PG, 3, dst, 0);
    check(f == dst && ((char *)dst)[0] == 'a' && ((char *)dst)[PG] == 'b',
          "mremap MREMAP_FIXED: moved to the given address");
    ((char *)dst)[2 * PG] = 1;
    /* The errors. */
    check(S6(SYS_mremap, dst + 1, PG, PG, 0, 0, 0) == -EINVAL, "mremap unaligned: EINVAL");
    check(S6(SYS_mremap, dst, PG, 2 * PG, 2, dst + 8 * PG, 0) == -EINVAL,
          "MREMAP_FIXED without MREMAP_MAYMOVE: EINVAL");
    check(S6(SYS_mremap, dst, 2 * PG, 2 * PG, 3, dst + PG, 0) == -EINVAL,
          "MREMAP_FIXED onto itself: EINVAL");
    check(S6(SYS_mremap, dst, PG, 0, 1, 0, 0) == -EINVAL, "mremap to 0 bytes: EINVAL");
    check(S6(SYS_mremap, dst, PG, PG, 64, 0, 0) == -EINVAL, "mremap unknown flags: EINVAL");
    check(S6(SYS_mremap, 0x7fe000000000, PG, 2 * PG, 1, 0, 0) == -EFAULT,
          "mremap of nothing: EFAULT");
    check(S6(SYS_mremap, dst, 8 * PG, 9 * PG, 1, 0, 0) == -EFAULT,
          "mremap past the end of the mapping: EFAULT");
    sys3(SYS_munmap, dst, 4 * PG, 0);
    sys3(SYS_munmap, block, PG, 0);
    /* Shared anonymous memory moved by mremap stays shared with a child. */
    volatile u64 *sh = (u64 *)mmap6(0, PG, PROT_R | PROT_W, M_SHARED | M_ANON, -1, 0);
    long pid = sys3(SYS_fork, 0, 0, 0);
    if (pid == 0) {
        while (sh[0] != 1)
            ;
        sh[1] = 2;
        sys3(SYS_exit, 0, 0, 0);
    }
    volatile u64 *sh2 = (u64 *)S6(SYS_mremap, sh, PG, 2 * PG, 1, 0, 0);
    sh2[0] = 1;
    int st;
    check(wait4(pid, &st, 0) == pid && sh2[1] == 2, "mremap'd MAP_SHARED memory stays shared");
    sys3(SYS_munmap, sh2, 2 * PG, 0);
}

static int mmtest(void)
{
    mm_file_private();
    mm_file_shared();
    mm_anon();
    mm_remap();
    puts1(failures ? "selftest: FAILED\n" : "selftest: all passed\n");
    return 0;
}

/* --- oom ------------------------------------------------------------------------------------ */

static void eat_memory(u64 unused)
{
    (void)unused;
    long m = mmap6(0, 1ul << 36, PROT_R | PROT_W, M_PRIVATE | M_ANON | M_NORESERVE, -1, 0);
    for (u64 off = 0; m > 0; off += PG)
        ((volatile char *)m)[off] = 1;  /* until there is no page left: SIGKILL */
}

static int oomtest(void)
{
    check(mmap6(0, 1ul << 40, PROT_R | PROT_W, M_PRIVATE | M_ANON, -1, 0) == -X_ENOMEM,
          "mmap of 1 TiB (more than memory): ENOMEM");
    u64 b0 = sys3(SYS_brk, 0, 0, 0);
    check((u64)sys3(SYS_brk, b0 + (1ul << 40), 0, 0) == b0, "brk by 1 TiB: the break stays");
    check(mmap6(0, 1ul << 40, PROT_R, M_PRIVATE | M_ANON, -1, 0) > 0,
          "a read-only 1 TiB mapping costs nothing: fine");
    int st = in_child(eat_memory, 0);
    putline("oom: the child ended with status ", st);
    check((st & 0x7f) == 9, "a child that touches more than there is: SIGKILL");
    st = in_child(eat_memory, 0);
    check((st & 0x7f) == 9, "and again: the memory came back");
    long m = mmap6(0, 64 * PG, PROT_R | PROT_W, M_PRIVATE | M_ANON, -1, 0);
    for (int i = 0; i < 64; i++)
        ((volatile char *)m)[i * PG] = 1;
    check(m > 0, "the parent goes on: 64 fresh pages");
    puts1(failures ? "selftest: FAILED\n" : "selftest: all passed\n");
    return 0;
}
