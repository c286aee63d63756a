/* Identity and odds: uname (the stable fields), ids, umask, getrandom's size, sysconf,
 * unknown system calls, bad pointers (EFAULT). */
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include "corpus.h"

int main(void)
{
    corpus_init();
    struct utsname u;
    SHOW("uname", uname(&u));
    printf("sysname %s machine %s\n", u.sysname, u.machine);
    SHOW("uname NULL", syscall(SYS_uname, NULL));
    printf("uid %d euid %d gid %d egid %d\n", getuid(), geteuid(), getgid(), getegid());
    printf("pid positive: %d, tid == pid: %d\n", getpid() > 0,
           (long)getpid() == syscall(SYS_gettid));
    SHOW("umask 027 (old)", umask(027));
    SHOW("umask (old)", umask(022));
    char buf[32];
    SHOW("getrandom 16", getrandom(buf, 16, 0));
    SHOW("getrandom bad flags", getrandom(buf, 16, 0x1000));
    SHOW("syscall 500", syscall(500));
    SHOW("write from NULL", syscall(SYS_write, 1, NULL, 1));
    SHOW("read into NULL", syscall(SYS_read, open("/dev/zero", O_RDONLY), NULL, 1));
    SHOW("open NULL path", syscall(SYS_open, NULL, O_RDONLY));
    SHOW("stat into NULL", syscall(SYS_stat, "/", NULL));
    SHOW("getcwd into NULL", syscall(SYS_getcwd, NULL, 100));
    SHOW("getcwd size 1", syscall(SYS_getcwd, buf, 1));
    SHOW("read /dev/null", read(open("/dev/null", O_RDONLY), buf, 10));
    SHOW("write /dev/null", write(open("/dev/null", O_WRONLY), buf, 10));
    SHOW("write /dev/full", write(open("/dev/full", O_WRONLY), buf, 10));
    memset(buf, 1, 8);
    SHOW("read /dev/zero", read(open("/dev/zero", O_RDONLY), buf, 8));
    printf("zeros: %d\n", buf[0] == 0 && buf[7] == 0);
    SHOW("ioctl TIOCGWINSZ on a file", ioctl(1, 0x5413, buf) < 0 ? -1 : 0);
    struct stat st;
    stat("/dev/null", &st);
    printf("/dev/null: char %d, rdev %d:%d\n", S_ISCHR(st.st_mode),
           (int)(st.st_rdev >> 8), (int)(st.st_rdev & 0xff));
    SHOW("path of 5000 bytes", ({ char *p = malloc(5000); memset(p, 'a', 4999); p[4999] = 0;
                                  open(p, O_RDONLY); }));
    SHOW("name of 300 bytes", ({ char p[301]; memset(p, 'a', 300); p[300] = 0;
                                 open(p, O_RDONLY); }));
    return 0;
}
