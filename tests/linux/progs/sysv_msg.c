/* System V message queues (docs/linux/sysvipc.md): msgget's keys and errors, msgsnd's and
 * msgrcv's errors, type selection (0, >0, <0, MSG_EXCEPT), MSG_NOERROR and E2BIG, MSG_COPY,
 * every msgctl command, senders blocked on a full queue and receivers blocked on an empty
 * one woken in Linux's order, EIDRM, EINTR for both even with SA_RESTART.  Processes are
 * ordered through pipes and /proc's sleeping state, never by time; ids only relative. */
#include <signal.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/syscall.h>
#include "threads.h"

#ifndef MSG_COPY
#define MSG_COPY 040000
#endif

#define BAD ((void *)16)

struct m {
    long type;
    char text[64];
};

static long snd(int q, long type, const char *text, int flags)
{
    struct m b = { type, "" };
    strncpy(b.text, text, sizeof b.text - 1);
    return msgsnd(q, &b, strlen(text) + 1, flags);
}

/* Receive and print: "what: type T text" or the error. */
static void rcv(const char *what, int q, size_t size, long type, int flags)
{
    struct m b = { 0, "" };
    errno = 0;
    long n = msgrcv(q, &b, size, type, flags);
    if (n < 0)
        printf("%s: -1 %s\n", what, errname(errno));
    else
        printf("%s: %ld bytes type %ld text %.*s\n", what, n, b.type, (int)n, b.text);
}

static void qstat(const char *what, int q)
{
    struct msqid_ds ds;
    if (msgctl(q, IPC_STAT, &ds)) {
        printf("%s: stat -1 %s\n", what, errname(errno));
        return;
    }
    printf("%s: qnum %lu cbytes %lu qbytes %lu mode %o lspid %s lrpid %s stime %d rtime %d\n",
           what, (unsigned long)ds.msg_qnum, (unsigned long)ds.__msg_cbytes,
           (unsigned long)ds.msg_qbytes, ds.msg_perm.mode,
           ds.msg_lspid == 0 ? "0" : ds.msg_lspid == getpid() ? "ours" : "other",
           ds.msg_lrpid == 0 ? "0" : ds.msg_lrpid == getpid() ? "ours" : "other",
           ds.msg_stime != 0, ds.msg_rtime != 0);
}

/* Each child reports through a pipe of its own (two woken children write in any order). */
static int result_fd[32768];

static int result_pipe(int *out)
{
    int r[2];
    pipe(r);
    *out = r[1];
    return r[0];
}

/* A child that says it is about to call, then receives (or sends) and reports through its
 * pipe: "NAME: result". */
static pid_t receiver(int q, const char *name, size_t size, long type, int flags, int unused)
{
    (void)unused;
    int out, in = result_pipe(&out);
    int p[2];
    pipe(p);
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        write(p[1], "x", 1);
        struct m b = { 0, "" };
        long n = msgrcv(q, &b, size, type, flags);
        char line[128];
        int len = n < 0 ? snprintf(line, sizeof line, "%s: -1 %s\n", name, errname(errno))
                        : snprintf(line, sizeof line, "%s: type %ld text %.*s\n", name, b.type,
                                   (int)n, b.text);
        write(out, line, (size_t)len);
        _exit(0);
    }
    close(p[1]);
    close(out);
    result_fd[pid % 32768] = in;
    char c;
    read(p[0], &c, 1);
    close(p[0]);
    sleeping(pid, pid);
    return pid;
}

static pid_t sender(int q, const char *name, long type, const char *text, int unused)
{
    (void)unused;
    int out, in = result_pipe(&out);
    int p[2];
    pipe(p);
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        write(p[1], "x", 1);
        long r = snd(q, type, text, 0);
        char line[128];
        int len = snprintf(line, sizeof line, "%s: %s\n", name, r ? errname(errno) : "sent");
        write(out, line, (size_t)len);
        _exit(0);
    }
    close(p[1]);
    close(out);
    result_fd[pid % 32768] = in;
    char c;
    read(p[0], &c, 1);
    close(p[0]);
    sleeping(pid, pid);
    return pid;
}

/* The report of child pid (read once it has ended, so the order is the parent's). */
static void report(int unused, pid_t pid)
{
    (void)unused;
    waitpid(pid, NULL, 0);
    char line[128];
    int in = result_fd[pid % 32768];
    int n = (int)read(in, line, sizeof line);
    close(in);
    if (n > 0)
        printf("%.*s", n, line);
}

static void ids_and_errors(void)
{
    key_t key = 0x3a3a0001;
    SHOW("msgget missing key", msgget(key, 0600));
    int q = msgget(key, IPC_CREAT | 0600);
    printf("msgget create: %s\n", q >= 0 ? "ok" : errname(errno));
    printf("msgget again same id: %d\n", msgget(key, 0) == q);
    SHOW("msgget excl", msgget(key, IPC_CREAT | IPC_EXCL | 0600));
    int q2 = msgget(IPC_PRIVATE, 0600);
    printf("next id - previous: %d\n", q2 - q);
    qstat("fresh", q);
    SHOW("msgsnd type 0", snd(q, 0, "x", 0));
    SHOW("msgsnd type -1", snd(q, -1, "x", 0));
    struct m b = { 1, "" };
    SHOW("msgsnd size 8193", msgsnd(q, &b, 8193, 0));
    SHOW("msgsnd size -1", msgsnd(q, &b, (size_t)-1, 0));
    SHOW("msgsnd negative id", msgsnd(-1, &b, 1, 0));
    SHOW("msgsnd wrong id", msgsnd(q2 + 1, &b, 1, 0));
    SHOW("msgsnd bad pointer", syscall(SYS_msgsnd, q, BAD, 1, 0));
    SHOW("msgsnd size 0", msgsnd(q, &b, 0, 0));
    rcv("msgrcv empty text", q, 8, 0, 0);
    SHOW("msgrcv negative size", syscall(SYS_msgrcv, q, &b, -1L, 0, 0));
    SHOW("msgrcv negative id", syscall(SYS_msgrcv, -1, &b, 8, 0, 0));
    rcv("msgrcv nowait empty", q, 8, 0, IPC_NOWAIT);
    snd(q, 1, "hello", 0);
    SHOW("msgrcv bad pointer", syscall(SYS_msgrcv, q, BAD, 8, 0, IPC_NOWAIT));
    qstat("message lost to EFAULT", q);
    snd(q, 1, "hello", 0);
    rcv("msgrcv 3 bytes", q, 3, 0, IPC_NOWAIT);
    rcv("msgrcv 3 bytes MSG_NOERROR", q, 3, 0, IPC_NOWAIT | MSG_NOERROR);
    qstat("after", q);
    struct msqid_ds ds;
    msgctl(q, IPC_STAT, &ds);
    ds.msg_perm.mode = 0640;
    ds.msg_qbytes = 100;
    SHOW("set qbytes 100 mode 640", msgctl(q, IPC_SET, &ds));
    qstat("after set", q);
    ds.msg_qbytes = 16385;
    SHOW("set qbytes above msgmnb (root)", msgctl(q, IPC_SET, &ds));
    ds.msg_perm.uid = (uid_t)-1;
    SHOW("set uid -1", msgctl(q, IPC_SET, &ds));
    SHOW("stat bad pointer", syscall(SYS_msgctl, q, IPC_STAT, BAD));
    SHOW("set bad pointer", syscall(SYS_msgctl, q, IPC_SET, BAD));
    SHOW("info bad pointer", syscall(SYS_msgctl, 0, IPC_INFO, BAD));
    SHOW("bad command", msgctl(q, 99, &ds));
    SHOW("negative command", syscall(SYS_msgctl, q, -1, &ds));
    SHOW("negative id", msgctl(-1, IPC_STAT, &ds));
    struct msginfo mi;
    int max = msgctl(0, IPC_INFO, (struct msqid_ds *)&mi);
    printf("ipc_info: max index ok %d msgpool %d msgmap %d msgmax %d msgmnb %d msgmni %d "
           "msgssz %d msgtql %d msgseg %u\n", max >= q2 % 32768, mi.msgpool, mi.msgmap,
           mi.msgmax, mi.msgmnb, mi.msgmni, mi.msgssz, mi.msgtql, mi.msgseg);
    msgctl(0, MSG_INFO, (struct msqid_ds *)&mi);
    int queues = mi.msgpool, hdrs = mi.msgmap, bytes = mi.msgtql;
    snd(q2, 5, "abcd", 0);
    msgctl(0, MSG_INFO, (struct msqid_ds *)&mi);
    printf("msg_info: queues +%d messages +%d bytes +%d\n", mi.msgpool - queues,
           mi.msgmap - hdrs, mi.msgtql - bytes);
    printf("msg_stat by index gives the id: %d\n", msgctl(q2 % 32768, MSG_STAT, &ds) == q2);
    printf("msg_stat_any by index gives the id: %d\n",
           msgctl(q2 % 32768, MSG_STAT_ANY, &ds) == q2);
    SHOW("msg_stat free index", msgctl(32767, MSG_STAT, &ds));
    SHOW("rmid", msgctl(q, IPC_RMID, NULL));
    SHOW("rmid again", msgctl(q, IPC_RMID, NULL));
    rcv("msgrcv removed", q, 8, 0, IPC_NOWAIT);
    msgctl(q2, IPC_RMID, NULL);
}

static void selection(void)
{
    int q = msgget(IPC_PRIVATE, 0600);
    snd(q, 3, "three", 0);
    snd(q, 1, "one", 0);
    snd(q, 2, "two", 0);
    snd(q, 5, "five", 0);
    snd(q, 1, "one-b", 0);
    snd(q, 4, "four", 0);
    rcv("MSG_COPY 0", q, 64, 0, IPC_NOWAIT | MSG_COPY);
    rcv("MSG_COPY 4", q, 64, 4, IPC_NOWAIT | MSG_COPY);
    rcv("MSG_COPY 6", q, 64, 6, IPC_NOWAIT | MSG_COPY);
    rcv("MSG_COPY without IPC_NOWAIT", q, 64, 0, MSG_COPY);
    rcv("MSG_COPY with MSG_EXCEPT", q, 64, 0, MSG_COPY | MSG_EXCEPT | IPC_NOWAIT);
    rcv("MSG_COPY small", q, 2, 0, IPC_NOWAIT | MSG_COPY);
    rcv("MSG_COPY small MSG_NOERROR", q, 2, 0, IPC_NOWAIT | MSG_COPY | MSG_NOERROR);
    qstat("copies leave the queue", q);
    rcv("type 2", q, 64, 2, IPC_NOWAIT);
    rcv("type 9", q, 64, 9, IPC_NOWAIT);
    rcv("type -4", q, 64, -4, IPC_NOWAIT);
    rcv("type -4 again", q, 64, -4, IPC_NOWAIT);
    rcv("except 3", q, 64, 3, IPC_NOWAIT | MSG_EXCEPT);
    rcv("type -1", q, 64, -1, IPC_NOWAIT);
    rcv("type -LONG_MIN", q, 64, (long)(-9223372036854775807L - 1), IPC_NOWAIT);
    rcv("any", q, 64, 0, IPC_NOWAIT);
    rcv("any", q, 64, 0, IPC_NOWAIT);
    qstat("empty", q);
    msgctl(q, IPC_RMID, NULL);
}

static void on_usr1(int sig)
{
    (void)sig;
}

static void blocking(void)
{
    int out[2];
    pipe(out);
    int q = msgget(IPC_PRIVATE, 0600);
    /* receivers in line: each message goes to the first that takes its type */
    pid_t r1 = receiver(q, "r1 (type 2)", 64, 2, 0, out[1]);
    pid_t r2 = receiver(q, "r2 (any)", 64, 0, 0, out[1]);
    pid_t r3 = receiver(q, "r3 (any, 2 bytes)", 2, 0, 0, out[1]);
    pid_t r4 = receiver(q, "r4 (type <= 3)", 64, -3, 0, out[1]);
    snd(q, 1, "first", 0);
    report(out[0], r2);
    snd(q, 7, "second", 0);
    report(out[0], r3);             /* first to take any type but too small: E2BIG */
    qstat("after second", q);
    snd(q, 2, "third", 0);
    report(out[0], r1);
    snd(q, 3, "fourth", 0);
    report(out[0], r4);
    rcv("left in the queue", q, 64, 0, IPC_NOWAIT);
    /* senders on a full queue */
    struct msqid_ds ds;
    msgctl(q, IPC_STAT, &ds);
    ds.msg_qbytes = 10;
    msgctl(q, IPC_SET, &ds);
    snd(q, 1, "12345678", 0);
    SHOW("full, IPC_NOWAIT", snd(q, 1, "abc", IPC_NOWAIT));
    pid_t s1 = sender(q, "s1", 1, "abc", out[1]);
    pid_t s2 = sender(q, "s2", 1, "x", out[1]);
    rcv("make room", q, 64, 0, IPC_NOWAIT);
    report(out[0], s1);
    report(out[0], s2);
    qstat("both sent", q);
    rcv("then", q, 64, 0, IPC_NOWAIT);
    rcv("then", q, 64, 0, IPC_NOWAIT);
    /* IPC_SET with more room wakes a sender */
    snd(q, 1, "12345678", 0);
    pid_t s3 = sender(q, "s3", 1, "grown", out[1]);
    ds.msg_qbytes = 100;
    msgctl(q, IPC_SET, &ds);
    report(out[0], s3);
    qstat("after growing", q);
    /* removal ends both kinds of waiter */
    ds.msg_qbytes = 1;
    msgctl(q, IPC_SET, &ds);
    pid_t s4 = sender(q, "s4 at removal", 1, "y", out[1]);
    int q2 = msgget(IPC_PRIVATE, 0600);
    pid_t r5 = receiver(q2, "r5 at removal", 64, 0, 0, out[1]);
    msgctl(q, IPC_RMID, NULL);
    msgctl(q2, IPC_RMID, NULL);
    report(out[0], s4);
    report(out[0], r5);
    /* signals: EINTR even with SA_RESTART (no restart after a handler) */
    struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_RESTART };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    q = msgget(IPC_PRIVATE, 0600);
    pid_t r6 = receiver(q, "r6 and SIGUSR1", 64, 0, 0, out[1]);
    kill(r6, SIGUSR1);
    report(out[0], r6);
    msgctl(q, IPC_STAT, &ds);
    ds.msg_qbytes = 1;
    msgctl(q, IPC_SET, &ds);
    snd(q, 1, "", 0);
    pid_t s5 = sender(q, "s5 and SIGUSR1", 1, "z", out[1]);
    kill(s5, SIGUSR1);
    report(out[0], s5);
    /* a stop and SIGCONT without a handler: the call goes on */
    rcv("empty it", q, 64, 0, IPC_NOWAIT);
    ds.msg_qbytes = 100;
    msgctl(q, IPC_SET, &ds);
    pid_t r7 = receiver(q, "r7 after SIGSTOP, SIGCONT", 64, 0, 0, out[1]);
    kill(r7, SIGSTOP);
    int st;
    waitpid(r7, &st, WUNTRACED);
    kill(r7, SIGCONT);
    sleeping(r7, r7);
    snd(q, 4, "late", 0);
    report(out[0], r7);
    signal(SIGUSR1, SIG_DFL);
    msgctl(q, IPC_RMID, NULL);
}

static void proc_listing(void)
{
    int q = msgget(0x3a3a0002, IPC_CREAT | 0640);
    snd(q, 1, "abc", 0);
    FILE *f = fopen("/proc/sysvipc/msg", "r");
    if (!f) {
        printf("/proc/sysvipc/msg: %s\n", errname(errno));
    } else {
        char line[512];
        if (fgets(line, sizeof line, f))
            printf("header: %s", line);
        int found = 0;
        while (fgets(line, sizeof line, f)) {
            int key, id;
            unsigned mode;
            unsigned long cbytes, qnum;
            if (sscanf(line, "%d %d %o %lu %lu", &key, &id, &mode, &cbytes, &qnum) == 5 &&
                id == q)
                found = printf("row: key %x perms %o cbytes %lu qnum %lu\n", key, mode, cbytes,
                               qnum);
        }
        printf("row found: %d\n", found > 0);
        fclose(f);
    }
    msgctl(q, IPC_RMID, NULL);
}

int main(void)
{
    threads_init();
    ids_and_errors();
    selection();
    blocking();
    proc_listing();
    return 0;
}
