/* System V shared memory (docs/linux/sysvipc.md): shmget's sizes, keys and errors, shmat's
 * address choice, rounding, SHM_REMAP, SHM_RDONLY and errors, shmdt by address (the whole
 * attachment, split ones too), every shmctl command (IPC_STAT's counts and pids, IPC_RMID
 * deferred to the last detach, SHM_LOCK), memory shared with children (fork inherits an
 * attachment; exit detaches), /proc/self/maps' name of a segment.  Ids, addresses, pids
 * and times are printed only as relations. */
#include <signal.h>
#include <stdint.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include "corpus.h"

#define BAD ((void *)16)
#define PAGE 4096

static long sctl(int id, int cmd, void *buf)
{
    return syscall(SYS_shmctl, id, cmd, buf);
}

static void stat_line(const char *what, int id)
{
    struct shmid_ds ds;
    if (shmctl(id, IPC_STAT, &ds)) {
        printf("%s: stat -1 %s\n", what, errname(errno));
        return;
    }
    printf("%s: size %zu nattch %lu mode %o key %s cpid ours %d lpid %s atime %d dtime %d\n",
           what, (size_t)ds.shm_segsz, (unsigned long)ds.shm_nattch, ds.shm_perm.mode,
           ds.shm_perm.__key ? "set" : "0", ds.shm_cpid == getpid(),
           ds.shm_lpid == 0 ? "0" : ds.shm_lpid == getpid() ? "ours" : "other",
           ds.shm_atime != 0, ds.shm_dtime != 0);
}

static void getting(void)
{
    key_t key = 0x5a3a0001;
    SHOW("shmget size 0", shmget(IPC_PRIVATE, 0, 0600));
    SHOW("shmget missing key", shmget(key, PAGE, 0600));
    SHOW("shmget huge", shmget(IPC_PRIVATE, (size_t)-1, 0600));
    SHOW("shmget SHM_HUGETLB", shmget(IPC_PRIVATE, 2 << 20, SHM_HUGETLB | 0600));
    int id = shmget(key, 5000, IPC_CREAT | 0640);
    printf("shmget create: %s\n", id >= 0 ? "ok" : errname(errno));
    printf("shmget again same id: %d\n", shmget(key, 5000, 0) == id);
    printf("shmget smaller same id: %d\n", shmget(key, 1, 0) == id);
    printf("shmget size 0 same id: %d\n", shmget(key, 0, 0) == id);
    SHOW("shmget larger", shmget(key, 5001, 0));
    SHOW("shmget excl", shmget(key, 5000, IPC_CREAT | IPC_EXCL | 0600));
    stat_line("fresh", id);
    int id2 = shmget(IPC_PRIVATE, 1, 0600);
    printf("next id - previous: %d\n", id2 - id);
    struct shmid_ds ds;
    ds.shm_perm.uid = geteuid();
    ds.shm_perm.gid = getegid();
    ds.shm_perm.mode = 0604;
    SHOW("set mode 604", shmctl(id, IPC_SET, &ds));
    stat_line("after set", id);
    ds.shm_perm.gid = (gid_t)-1;
    SHOW("set gid -1", shmctl(id, IPC_SET, &ds));
    SHOW("stat bad pointer", sctl(id, IPC_STAT, BAD));
    SHOW("set bad pointer", sctl(id, IPC_SET, BAD));
    SHOW("info bad pointer", sctl(0, IPC_INFO, BAD));
    SHOW("shm_info bad pointer", sctl(0, SHM_INFO, BAD));
    SHOW("bad command", sctl(id, 99, NULL));
    SHOW("negative id", sctl(-1, IPC_STAT, &ds));
    SHOW("negative command", sctl(id, -1, &ds));
    struct shminfo si;
    int max = shmctl(0, IPC_INFO, (struct shmid_ds *)&si);
    printf("ipc_info: max index ok %d shmmax %lu shmmin %lu shmmni %lu shmseg %lu shmall %lu\n",
           max >= id2 % 32768, (unsigned long)si.shmmax, (unsigned long)si.shmmin,
           (unsigned long)si.shmmni, (unsigned long)si.shmseg, (unsigned long)si.shmall);
    struct shm_info in;
    shmctl(0, SHM_INFO, (struct shmid_ds *)&in);
    int used = in.used_ids;
    unsigned long tot = in.shm_tot, rss = in.shm_rss;
    int id3 = shmget(IPC_PRIVATE, 3 * PAGE, 0600);
    char *p = shmat(id3, NULL, 0);
    p[0] = 1;
    p[2 * PAGE] = 1;
    shmctl(0, SHM_INFO, (struct shmid_ds *)&in);
    printf("shm_info: ids +%d pages +%lu resident +%lu\n", in.used_ids - used,
           in.shm_tot - tot, in.shm_rss - rss);
    shmdt(p);
    printf("shm_stat by index gives the id: %d\n", shmctl(id3 % 32768, SHM_STAT, &ds) == id3);
    printf("shm_stat_any by index gives the id: %d\n",
           shmctl(id3 % 32768, SHM_STAT_ANY, &ds) == id3);
    SHOW("shm_stat free index", shmctl(32767, SHM_STAT, &ds));
    SHOW("lock", shmctl(id, SHM_LOCK, NULL));
    shmctl(id, IPC_STAT, &ds);
    printf("locked flag: %o\n", ds.shm_perm.mode & 02000);
    SHOW("unlock", shmctl(id, SHM_UNLOCK, NULL));
    SHOW("lock missing id", shmctl(id3 + 1, SHM_LOCK, NULL));
    shmctl(id, IPC_RMID, NULL);
    shmctl(id2, IPC_RMID, NULL);
    shmctl(id3, IPC_RMID, NULL);
    SHOW("stat removed", shmctl(id, IPC_STAT, &ds));
}

static void maps_name(void *at)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        unsigned long lo;
        char *name = strchr(line, '/');
        if (sscanf(line, "%lx-", &lo) == 1 && lo == (unsigned long)at)
            printf("maps: %c%c%c%c %s", line[strcspn(line, " ") + 1],
                   line[strcspn(line, " ") + 2], line[strcspn(line, " ") + 3],
                   line[strcspn(line, " ") + 4], name ? name : "(no name)\n");
    }
    if (f)
        fclose(f);
}

static void attach(void)
{
    int id = shmget(0x5a3a0002, 2 * PAGE, IPC_CREAT | 0600);
    char *a = shmat(id, NULL, 0);
    printf("shmat: %s aligned %d\n", a == (void *)-1 ? errname(errno) : "ok",
           ((uintptr_t)a & (PAGE - 1)) == 0);
    stat_line("attached", id);
    maps_name(a);
    strcpy(a, "hello");
    char *b = shmat(id, NULL, SHM_RDONLY);
    printf("second attach sees: %s, differs %d\n", b, a != b);
    stat_line("attached twice", id);
    maps_name(b);
    /* SHM_RDONLY: a write is SIGSEGV */
    pid_t pid = fork();
    if (pid == 0) {
        b[0] = 'x';
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    show_status("write to a read-only attach", st);
    stat_line("after the child", id);
    SHOW("shmdt b", shmdt(b));
    SHOW("shmdt b again", shmdt(b));
    SHOW("shmdt unaligned", shmdt(a + 1));
    SHOW("shmdt second page", shmdt(a + PAGE));
    SHOW("shmdt not attached", shmdt((void *)&st));
    SHOW("shmdt a", shmdt(a));
    stat_line("detached", id);
    /* addresses */
    errno = 0;
    char *c = shmat(id, a + 1, 0);
    printf("shmat unaligned: %s\n", c == (void *)-1 ? errname(errno) : "ok");
    c = shmat(id, a + 1, SHM_RND);
    printf("shmat SHM_RND rounds down: %d\n", c == a);
    c[0] = 'h';
    char *d = shmat(id, a, 0);
    printf("shmat over an attach: %s\n", d == (void *)-1 ? errname(errno) : "ok");
    d = shmat(id, NULL, SHM_REMAP);
    printf("shmat SHM_REMAP without address: %s\n", d == (void *)-1 ? errname(errno) : "ok");
    d = shmat(id, (void *)1, SHM_RND | SHM_REMAP);
    printf("shmat SHM_RND|SHM_REMAP below a page: %s\n", d == (void *)-1 ? errname(errno) : "ok");
    d = shmat(id, a, SHM_REMAP);
    printf("shmat SHM_REMAP over it: %s same %d\n", d == (void *)-1 ? errname(errno) : "ok",
           d == a);
    stat_line("remapped", id);
    SHOW("shmdt remapped", shmdt(a));
    stat_line("after shmdt", id);
    d = shmat(id + 1, NULL, 0);
    printf("shmat wrong id: %s\n", d == (void *)-1 ? errname(errno) : "ok");
    d = shmat(-1, NULL, 0);
    printf("shmat negative id: %s\n", d == (void *)-1 ? errname(errno) : "ok");
    /* a split attachment: shmdt takes every part */
    a = shmat(id, NULL, 0);
    SHOW("mprotect second page", mprotect(a + PAGE, PAGE, PROT_READ));
    stat_line("split in two", id);
    SHOW("shmdt split", shmdt(a));
    stat_line("after shmdt split", id);
    /* a mapping placed over part of it: munmap detaches that part only */
    a = shmat(id, NULL, 0);
    SHOW("munmap first page", munmap(a, PAGE));
    stat_line("first page unmapped", id);
    SHOW("shmdt at the start", shmdt(a));
    SHOW("shmdt second page (the rest)", shmdt(a + PAGE));
    stat_line("after both", id);
    shmctl(id, IPC_RMID, NULL);
}

static void shared_with_children(void)
{
    int id = shmget(IPC_PRIVATE, PAGE, 0600);
    volatile int *v = shmat(id, NULL, 0);
    v[0] = 1;
    int go[2], done[2];
    pipe(go);
    pipe(done);
    pid_t pid = fork();
    if (pid == 0) {
        char c;
        read(go[0], &c, 1);
        v[1] = v[0] + 41;           /* the parent wrote v[0] after the fork */
        write(done[1], "x", 1);
        read(go[0], &c, 1);
        _exit(0);
    }
    v[0] = 2;
    stat_line("inherited by fork", id);
    write(go[1], "x", 1);
    char c;
    read(done[0], &c, 1);
    printf("child wrote: %d\n", v[1]);
    write(go[1], "x", 1);
    int st;
    waitpid(pid, &st, 0);
    struct shmid_ds ds;
    shmctl(id, IPC_STAT, &ds);
    printf("after the child's exit: nattch %lu lpid is the child %d\n",
           (unsigned long)ds.shm_nattch, ds.shm_lpid == pid);
    /* a child that attaches by id itself */
    pid = fork();
    if (pid == 0) {
        volatile int *w = shmat(id, NULL, 0);
        w[2] = 7;
        shmdt((void *)w);
        _exit(0);
    }
    waitpid(pid, &st, 0);
    printf("child attached and wrote: %d\n", v[2]);
    shmdt((void *)v);
    shmctl(id, IPC_RMID, NULL);
}

static void removal(void)
{
    key_t key = 0x5a3a0003;
    int id = shmget(key, PAGE, IPC_CREAT | 0600);
    char *a = shmat(id, NULL, 0);
    strcpy(a, "kept");
    SHOW("rmid while attached", shmctl(id, IPC_RMID, NULL));
    stat_line("removed, attached", id);
    SHOW("shmget its key", shmget(key, PAGE, 0));
    int id2 = shmget(key, PAGE, IPC_CREAT | 0600);
    printf("a new segment under the key: %d\n", id2 >= 0 && id2 != id);
    char *b = shmat(id, NULL, 0);
    printf("attach by id after rmid: %s sees %s\n", b == (void *)-1 ? errname(errno) : "ok",
           b == (void *)-1 ? "-" : b);
    maps_name(a);
    pid_t pid = fork();
    if (pid == 0) {
        shmdt(a);
        shmdt(b);
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    stat_line("child detached its copies", id);
    SHOW("rmid again", shmctl(id, IPC_RMID, NULL));
    SHOW("shmdt a", shmdt(a));
    stat_line("one left", id);
    SHOW("shmdt b", shmdt(b));
    stat_line("none left", id);
    shmctl(id2, IPC_RMID, NULL);
    /* exit detaches: the last one destroys */
    id = shmget(IPC_PRIVATE, PAGE, 0600);
    pid = fork();
    if (pid == 0) {
        shmat(id, NULL, 0);
        shmctl(id, IPC_RMID, NULL);
        _exit(0);
    }
    waitpid(pid, &st, 0);
    stat_line("removed by a child that exited", id);
}

static void proc_listing(void)
{
    int id = shmget(0x5a3a0004, 3000, IPC_CREAT | 0640);
    FILE *f = fopen("/proc/sysvipc/shm", "r");
    if (!f) {
        printf("/proc/sysvipc/shm: %s\n", errname(errno));
    } else {
        char line[512];
        if (fgets(line, sizeof line, f))
            printf("header: %s", line);
        int found = 0;
        while (fgets(line, sizeof line, f)) {
            int key, sid;
            unsigned mode;
            unsigned long size, nattch;
            int cpid, lpid;
            if (sscanf(line, "%d %d %o %lu %d %d %lu", &key, &sid, &mode, &size, &cpid, &lpid,
                       &nattch) == 7 && sid == id)
                found = printf("row: key %x perms %o size %lu nattch %lu\n", key, mode, size,
                               nattch);
        }
        printf("row found: %d\n", found > 0);
        fclose(f);
    }
    shmctl(id, IPC_RMID, NULL);
}

int main(void)
{
    corpus_init();
    alarm(60);
    getting();
    attach();
    shared_with_children();
    removal();
    proc_listing();
    return 0;
}
