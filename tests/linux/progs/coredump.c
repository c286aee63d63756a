/* Core dumps: a child ended by a core-dump signal writes "core" in its working directory
 * only when RLIMIT_CORE is at least a page and it is dumpable; the wait status's core flag
 * says exactly that.  The core's ELF header, its program headers (a PT_NOTE first, then
 * PT_LOADs), its notes (types in order; NT_PRSTATUS's signal, pid and a register the child
 * set; NT_PRPSINFO's name; NT_SIGINFO's signal and address); core_pattern and
 * core_uses_pid name the file; an existing file of the name is replaced; RLIMIT_CORE cuts the
 * file.  Only the note types both kernels write are printed in order (Linux adds the FPU's
 * NT_FPREGSET and NT_X86_XSTATE, which lx does not read: docs/linux/signals.md); addresses,
 * sizes and the stack pointer differ and are not printed.  The unhandled SIGSEGV's kernel
 * log line is printed with its pid and stack pointer masked. */
#include <elf.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include "corpus.h"

static char buf[1 << 22];

static void set_core_limit(rlim_t soft)
{
    struct rlimit rl = { soft, RLIM_INFINITY };
    setrlimit(RLIMIT_CORE, &rl);
}

static void put(const char *name, const char *value)
{
    int f = open(name, O_WRONLY);
    if (f < 0 || write(f, value, strlen(value)) < 0)
        printf("write %s: %s\n", name, errname(errno));
    close(f);
}

/* A child that ends by sig: r12 holds a known value when it faults (SIGSEGV) or raises. */
static pid_t crash(int sig, rlim_t limit, int dumpable)
{
    pid_t pid = fork();
    if (pid == 0) {
        set_core_limit(limit);
        if (!dumpable)
            prctl(PR_SET_DUMPABLE, 0);
        if (sig == SIGSEGV)
            __asm__ volatile("mov $0x5ca1ab1e, %%r12\n\tmovq $0, 0x10\n\t" ::: "r12", "memory");
        else if (sig == SIGILL)
            __asm__ volatile("mov $0x5ca1ab1e, %%r12\n\tud2\n\t" ::: "r12");
        else
            raise(sig);
        _exit(0);
    }
    return pid;
}

static int wait_show(const char *what, pid_t pid)
{
    int st;
    waitpid(pid, &st, 0);
    show_status(what, st);
    return st;
}

static long file_size(const char *name)
{
    struct stat st;
    return stat(name, &st) ? -1 : (long)st.st_size;
}

static void describe(const char *name, pid_t pid, int sig)
{
    int f = open(name, O_RDONLY);
    if (f < 0) {
        printf("  %s: %s\n", name, errname(errno));
        return;
    }
    struct stat st;
    fstat(f, &st);
    printf("  %s: mode %o, nlink %ld\n", strncmp(name, "core.", 5) ? name : "core.PID", st.st_mode,
           (long)st.st_nlink);
    long n = read(f, buf, sizeof buf);
    close(f);
    Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;
    if (n < (long)sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG)) {
        printf("  not ELF (%ld bytes)\n", n);
        return;
    }
    printf("  class %d data %d version %d osabi %d type %d machine %d e_version %d phoff %lu "
           "shoff %lu flags %u ehsize %d phentsize %d shentsize %d shnum %d\n",
           eh->e_ident[EI_CLASS], eh->e_ident[EI_DATA], eh->e_ident[EI_VERSION],
           eh->e_ident[EI_OSABI], eh->e_type, eh->e_machine, eh->e_version,
           (unsigned long)eh->e_phoff, (unsigned long)eh->e_shoff, eh->e_flags, eh->e_ehsize,
           eh->e_phentsize, eh->e_shentsize, eh->e_shnum);
    Elf64_Phdr *ph = (Elf64_Phdr *)(buf + eh->e_phoff);
    int loads = 0, aligned = 1, inside = 1;
    for (int k = 1; k < eh->e_phnum; k++) {
        loads += ph[k].p_type == PT_LOAD;
        aligned &= ph[k].p_offset % 4096 == 0 && ph[k].p_align == 4096;
        inside &= ph[k].p_filesz <= ph[k].p_memsz;
    }
    printf("  first phdr type %u flags %u; PT_LOADs after it: %s, at page offsets %s, "
           "filesz <= memsz %s\n", ph[0].p_type, ph[0].p_flags,
           loads == eh->e_phnum - 1 && loads > 0 ? "all" : "no", aligned ? "yes" : "no",
           inside ? "yes" : "no");
    /* the notes */
    char *p = buf + ph[0].p_offset, *end = p + ph[0].p_filesz;
    int prstatus = 0;
    printf("  notes:");
    while (p + 12 <= end) {
        Elf64_Nhdr *nh = (Elf64_Nhdr *)p;
        char *name_ = p + 12, *desc = name_ + ((nh->n_namesz + 3) & ~3u);
        unsigned type = nh->n_type;
        if (type == NT_PRSTATUS || type == NT_PRPSINFO || type == NT_SIGINFO ||
            type == NT_AUXV || type == NT_FILE)
            printf(" %s:%#x", name_, type);
        if (type == NT_PRSTATUS && !prstatus++) {
            struct { int si[3]; short cursig, pad; unsigned long sigpend, sighold;
                     int pid, ppid, pgrp, sid; long times[8]; unsigned long reg[27]; } *s =
                (void *)desc;
            printf(" [sig %d cursig %d pid %s r12 %#lx cs %#lx ss %#lx]", s->si[0], s->cursig,
                   s->pid == pid ? "the child's" : "other", s->reg[3], s->reg[17], s->reg[20]);
        }
        if (type == NT_PRPSINFO) {
            struct { char state, sname, zomb, nice; unsigned pad; unsigned long flag;
                     unsigned uid, gid; int pid, ppid, pgrp, sid; char fname[16];
                     char psargs[80]; } *s = (void *)desc;
            printf(" [fname %s psargs %s pid %s uid %u]", s->fname, s->psargs,
                   s->pid == pid ? "the child's" : "other", s->uid);
        }
        if (type == NT_SIGINFO) {
            siginfo_t *si = (void *)desc;
            printf(" [signo %d code %d", si->si_signo, si->si_code);
            if (sig == SIGSEGV)
                printf(" addr %p", si->si_addr);
            printf("]");
        }
        if (type == NT_AUXV) {
            unsigned long *a = (void *)desc;
            int pagesz = 0, null_last = nh->n_descsz >= 16 && !a[nh->n_descsz / 8 - 2];
            for (unsigned k = 0; k + 1 < nh->n_descsz / 8; k += 2)
                if (a[k] == AT_PAGESZ)
                    pagesz = (int)a[k + 1];
            printf(" [AT_PAGESZ %d, AT_NULL last %s]", pagesz, null_last ? "yes" : "no");
        }
        if (type == NT_FILE) {
            unsigned long *w = (void *)desc;
            char *names = (char *)(w + 2 + 3 * w[0]);
            int self = 0;
            for (unsigned long k = 0; k < w[0]; k++, names += strlen(names) + 1)
                self |= strstr(names, "coredump") != NULL;
            printf(" [page size %lu, maps the program: %s]", w[1], self ? "yes" : "no");
        }
        p = desc + ((nh->n_descsz + 3) & ~3u);
    }
    printf("\n");
}

/* The kernel log's records since the last call (its lines with "segfault" or "traps"). */
static void show_log(int kmsg)
{
    long n;
    while ((n = read(kmsg, buf, 8192)) > 0) {
        buf[n] = 0;
        char *text = strchr(buf, ';');
        if (!text || (!strstr(text, "segfault") && !strstr(text, "traps:")))
            continue;
        text++;
        /* mask the pid and the stack pointer */
        char *br = strchr(text, '['), *sp = strstr(text, " sp ");
        if (!sp)
            sp = strstr(text, " sp:");
        printf("log <%d>: %.*s[PID]", atoi(buf) & 7, (int)(br - text), text);
        char *after = strchr(br, ']');
        printf("%.*s", (int)(sp + 4 - after - 1), after + 1);
        char *rest = sp + 4;
        while (*rest && *rest != ' ')
            rest++;
        printf("SP%s", rest);
    }
}

int main(void)
{
    corpus_init();
    int kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
    lseek(kmsg, 0, SEEK_END);
    mkdir("/tmp/cores", 0755);
    chdir("/tmp/cores");
    put("/proc/sys/kernel/core_pattern", "core");

    printf("RLIMIT_CORE 0:\n");
    wait_show("  SIGSEGV", crash(SIGSEGV, 0, 1));
    printf("  core: %s\n", file_size("core") < 0 ? "none" : "exists");
    show_log(kmsg);
    printf("RLIMIT_CORE 4095:\n");
    wait_show("  SIGABRT", crash(SIGABRT, 4095, 1));
    printf("  core: %s\n", file_size("core") < 0 ? "none" : "exists");
    printf("not dumpable:\n");
    wait_show("  SIGQUIT", crash(SIGQUIT, RLIM_INFINITY, 0));
    printf("  core: %s\n", file_size("core") < 0 ? "none" : "exists");
    printf("SIGTERM (no core action):\n");
    wait_show("  SIGTERM", crash(SIGTERM, RLIM_INFINITY, 1));
    printf("  core: %s\n", file_size("core") < 0 ? "none" : "exists");

    printf("SIGSEGV, RLIMIT_CORE unlimited:\n");
    pid_t pid = crash(SIGSEGV, RLIM_INFINITY, 1);
    wait_show("  status", pid);
    describe("core", pid, SIGSEGV);
    show_log(kmsg);

    printf("SIGILL over an existing core:\n");
    pid = crash(SIGILL, RLIM_INFINITY, 1);
    wait_show("  status", pid);
    describe("core", pid, SIGILL);
    show_log(kmsg);

    printf("SIGABRT, core_uses_pid:\n");
    unlink("core");
    put("/proc/sys/kernel/core_uses_pid", "1");
    pid = crash(SIGABRT, RLIM_INFINITY, 1);
    wait_show("  status", pid);
    char name[64];
    snprintf(name, sizeof name, "core.%d", pid);
    printf("  core: %s, core.PID: %s\n", file_size("core") < 0 ? "none" : "exists",
           file_size(name) < 0 ? "none" : "exists");
    describe(name, pid, SIGABRT);
    unlink(name);
    put("/proc/sys/kernel/core_uses_pid", "0");

    printf("core_pattern %%e-%%s.dump:\n");
    put("/proc/sys/kernel/core_pattern", "%e-%s.dump");
    pid = crash(SIGQUIT, RLIM_INFINITY, 1);
    wait_show("  status", pid);
    printf("  coredump-3.dump: %s\n", file_size("coredump-3.dump") < 0 ? "none" : "exists");
    unlink("coredump-3.dump");
    put("/proc/sys/kernel/core_pattern", "core");

    printf("RLIMIT_CORE 8192 cuts it:\n");
    pid = crash(SIGSEGV, 8192, 1);
    wait_show("  status", pid);
    long size = file_size("core");
    printf("  core: %s\n", size < 0 ? "none" : size <= 8192 ? "at most 8192 bytes" : "longer");
    show_log(kmsg);

    printf("a directory named core:\n");
    unlink("core");
    mkdir("core", 0755);
    pid = crash(SIGSEGV, RLIM_INFINITY, 1);
    wait_show("  status", pid);
    rmdir("core");
    show_log(kmsg);

    printf("PR_GET_DUMPABLE %d\n", prctl(PR_GET_DUMPABLE));
    SHOW("PR_SET_DUMPABLE 2", prctl(PR_SET_DUMPABLE, 2));
    SHOW("PR_SET_DUMPABLE 0", prctl(PR_SET_DUMPABLE, 0));
    printf("PR_GET_DUMPABLE %d\n", prctl(PR_GET_DUMPABLE));
    return 0;
}
