/* acct(2) (BSD process accounting, version 3 records of acct(5)): its errors (EPERM without
 * CAP_SYS_PACCT, EFAULT, ENOENT, EISDIR, EACCES for a file that is not regular), one record
 * per process that ends while accounting is on (a child that exits, one killed by a signal,
 * one that execs), the caller's own record when accounting stops, and nothing after that.
 * Fields that depend on time or memory (btime, etime, utime, stime, mem) are not printed. */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "corpus.h"

struct acct_v3 {
    char ac_flag, ac_version;
    uint16_t ac_tty;
    uint32_t ac_exitcode, ac_uid, ac_gid, ac_pid, ac_ppid, ac_btime;
    float ac_etime;
    uint16_t ac_utime, ac_stime, ac_mem, ac_io, ac_rw, ac_minflt, ac_majflt, ac_swaps;
    char ac_comm[16];
};

#define FILE_ "/tmp/pacct"

static void *volatile bad_address = (void *)8;

static long acct_(const char *path)
{
    return syscall(SYS_acct, path);
}

static void as_nobody(void)
{
    if (setgid(65534) || setuid(65534))
        _exit(2);
    SHOW("acct as nobody", acct_(FILE_));
    SHOW("acct(NULL) as nobody", acct_(NULL));
}

int main(int argc, char **argv)
{
    corpus_init();
    if (argc > 1 && argv[1][0]) {  /* the child that execs: it ends with 7 */
        return 7;
    }
    int fd = open(FILE_, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    close(fd);
    SHOW("acct bad pointer", acct_(bad_address));
    SHOW("acct empty path", acct_(""));
    SHOW("acct missing file", acct_("/tmp/no/such/file"));
    SHOW("acct a directory", acct_("/tmp"));
    SHOW("acct /dev/null", acct_("/dev/null"));
    run_child("nobody", as_nobody);
    SHOW("acct(NULL) while off", acct_(NULL));
    SHOW("acct on", acct_(FILE_));

    /* one child at a time, so that the records come in this order */
    pid_t pids[4];
    int st;
    pids[0] = fork();
    if (pids[0] == 0)
        _exit(3);
    waitpid(pids[0], &st, 0);
    show_status("exit child", st);
    pids[1] = fork();
    if (pids[1] == 0) {
        for (;;)
            pause();
    }
    kill(pids[1], SIGKILL);
    waitpid(pids[1], &st, 0);
    show_status("killed child", st);
    pids[2] = fork();
    if (pids[2] == 0) {
        execl("/proc/self/exe", "acct", "child", (char *)NULL);
        _exit(99);
    }
    waitpid(pids[2], &st, 0);
    show_status("exec child", st);
    pids[3] = fork();
    if (pids[3] == 0) {
        raise(SIGTERM);
        _exit(1);
    }
    waitpid(pids[3], &st, 0);
    show_status("SIGTERM child", st);
    SHOW("acct on again (the same file)", acct_(FILE_));
    SHOW("acct off", acct_(NULL));
    pid_t late = fork();
    if (late == 0)
        _exit(0);
    waitpid(late, &st, 0);          /* no record: accounting is off */

    struct stat sb;
    stat(FILE_, &sb);
    printf("file size %lld (%lld records)\n", (long long)sb.st_size,
           (long long)sb.st_size / (long long)sizeof(struct acct_v3));
    fd = open(FILE_, O_RDONLY);
    struct acct_v3 ac;
    while (read(fd, &ac, sizeof ac) == sizeof ac) {
        const char *who = "?";
        for (int k = 0; k < 4; k++)
            if (ac.ac_pid == (uint32_t)pids[k])
                who = k == 0 ? "exit child" : k == 1 ? "killed child" : k == 2 ? "exec child"
                                                                         : "SIGTERM child";
        if (ac.ac_pid == (uint32_t)getpid())
            who = "the caller";
        printf("record of %s: version %d flag %#x exitcode %#x uid %u gid %u ppid %s tty %u "
               "comm %.16s io %u rw %u swaps %u etime %s\n", who, ac.ac_version, ac.ac_flag & 0xff,
               ac.ac_exitcode, ac.ac_uid, ac.ac_gid,
               ac.ac_ppid == (uint32_t)getpid() ? "=caller" :
               ac.ac_ppid == (uint32_t)getppid() ? "=caller's parent" : "other",
               ac.ac_tty, ac.ac_comm, ac.ac_io, ac.ac_rw, ac.ac_swaps,
               ac.ac_etime >= 0 ? ">= 0" : "< 0");
    }
    close(fd);
    unlink(FILE_);
    return 0;
}
