/* File descriptors: dup, dup2, dup3, fcntl (GETFD/SETFD/GETFL/SETFL/DUPFD/DUPFD_CLOEXEC),
 * shared offsets, lowest free fd, close-on-exec across execve, errors. */
#include <fcntl.h>
#include <sys/wait.h>
#include "corpus.h"

int main(int argc, char **argv)
{
    corpus_init();
    if (argc > 1) {
        /* After execve: which of the fds survived? */
        for (int fd = 3; fd < 12; fd++)
            printf("exec'd: fd %d %s\n", fd, fcntl(fd, F_GETFD) >= 0 ? "open" : errname(errno));
        return 0;
    }
    int fd = SHOW("open (lowest free fd)", open("f", O_CREAT | O_RDWR, 0644));
    write(fd, "abcdef", 6);
    SHOW("dup", dup(fd));
    SHOW("lseek via fd 3", lseek(3, 1, SEEK_SET));
    SHOW("offset shared by fd 4", lseek(4, 0, SEEK_CUR));
    SHOW("dup2 3 -> 9", dup2(3, 9));
    SHOW("dup2 3 -> 3", dup2(3, 3));
    SHOW("dup2 bad fd", dup2(77, 8));
    SHOW("dup2 to -1", dup2(3, -1));
    SHOW("dup3 same fd", dup3(3, 3, 0));
    SHOW("dup3 bad flags", dup3(3, 8, 12345));
    SHOW("dup3 O_CLOEXEC -> 8", dup3(3, 8, O_CLOEXEC));
    SHOW("F_GETFD 8", fcntl(8, F_GETFD));
    SHOW("F_GETFD 9", fcntl(9, F_GETFD));
    SHOW("F_DUPFD from 5", fcntl(3, F_DUPFD, 5));
    SHOW("F_DUPFD_CLOEXEC from 6", fcntl(3, F_DUPFD_CLOEXEC, 6));
    SHOW("F_GETFD 6", fcntl(6, F_GETFD));
    SHOW("F_SETFD 9 cloexec", fcntl(9, F_SETFD, FD_CLOEXEC));
    SHOW("F_SETFD 5 0", fcntl(5, F_SETFD, 0));
    SHOW("F_GETFL & accmode", fcntl(3, F_GETFL) & O_ACCMODE);
    SHOW("F_SETFL O_APPEND", fcntl(3, F_SETFL, O_APPEND));
    SHOW("O_APPEND seen through dup", (fcntl(4, F_GETFL) & O_APPEND) != 0);
    SHOW("F_GETFL bad fd", fcntl(50, F_GETFL));
    SHOW("fcntl bad cmd", fcntl(3, 9999));
    SHOW("F_DUPFD negative", fcntl(3, F_DUPFD, -1));
    SHOW("close 4", close(4));
    SHOW("open takes 4 again", open("f", O_RDONLY));
    SHOW("close -1", close(-1));
    SHOW("write bad fd", write(42, "x", 1));
    SHOW("lseek on a fd to /dev/null", lseek(open("/dev/null", O_RDWR), 0, SEEK_CUR));

    /* 3, 4, 5, 7, 10 stay open; 6, 8 and 9 are close-on-exec. */
    pid_t pid = fork();
    if (pid == 0) {
        execl(argv[0], argv[0], "exec", (char *)NULL);
        _exit(127);
    }
    int st;
    waitpid(pid, &st, 0);
    show_status("child", st);
    return 0;
}
