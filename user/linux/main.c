/* lx, the Linux server (docs/linux-server.md).  A trusted boot module: the root task pages
 * it and gives it its heap with execute rights (`heapx=1`), which becomes the memory of the
 * Linux processes.  It is their pager and the handler of their foreign spaces: every system
 * call, page fault and exception of a Linux thread arrives here as a message, and the reply
 * continues the thread (docs/linux-abi.md).  One thread, one loop; lx never waits for one
 * process.
 *
 * Command line: `lx.elf heap=N heapx=1 [poweroff=1] [initrd=MODULE] [init=PATH ARGS...]
 * [-- PROGRAM ARGS... ...]`.  initrd names a data module holding newc cpio archives, unpacked
 * into the RAM file system at the start.  Each PROGRAM is a path in that file system (it
 * starts with '/'; init=PATH is the same) or names a data module (a static x86-64 ELF);
 * they run one after another as pids 1, 2, ....  poweroff=1: when the
 * last one has ended, print the report of unimplemented calls and end QEMU
 * (isa-debug-exit), for tests.  console=serial: the console tty is the serial driver
 * (tty/console.c). */
#include "ipc/util.h"
#include "fs/aio/aio.h"
#include "lib/errno.h"
#include "lib/server.h"
#include "log/log.h"
#include "mm/mm.h"
#include "mm/module.h"
#include "mm/oom.h"
#include "mm/oom_probe.h"
#include "park/park.h"
#include "park/timer_thread.h"
#include "signal/signal.h"
#include "signal/sigpage.h"
#include "syscalls/table.h"
#include "task/clone.h"
#include "task/exec.h"
#include "task/process.h"
#include "task/ptrace.h"
#include "time/clock.h"
#include "tty/console.h"
#include "tty/tty.h"
#include "vfs/file.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PROGRAMS  8
#define INITRD_BASE   0x500000000000ul  /* past task/exec.c's data-module slots and the heap */
#define INITRD_MAX    0x40000000ul

struct program {
    int argc;
    char *argv[LX_ARGV_MAX + 1];
};

static char cmdline[L4_TASK_CMDLINE_MAX];
static struct program programs[MAX_PROGRAMS];
static unsigned nprograms, next_program;
static bool poweroff;
static const char *initrd;
l4_word_t lx_self;
bool lx_work;

static char *const envp[] = { "HOME=/", "PATH=/bin:/usr/bin", "TERM=linux", NULL };

static void parse_cmdline(void)
{
    strncpy(cmdline, l4_task_cmdline(), sizeof cmdline - 1);
    struct program *p = NULL;
    char *s = cmdline;
    while (*s) {
        while (*s == ' ')
            *s++ = 0;
        if (!*s)
            break;
        char *w = s;
        while (*s && *s != ' ')
            s++;
        if (*s)
            *s++ = 0;
        if (!strcmp(w, "--") || !strncmp(w, "init=", 5)) {
            p = nprograms < MAX_PROGRAMS ? &programs[nprograms++] : NULL;
            if (p && w[0] == 'i')
                p->argv[p->argc++] = w + 5;
        } else if (p) {
            if (p->argc < LX_ARGV_MAX)
                p->argv[p->argc++] = w;
        } else if (!strcmp(w, "poweroff=1")) {
            poweroff = true;
        } else if (!strncmp(w, "initrd=", 7)) {
            initrd = w + 7;
        } else if (!strncmp(w, "oomprobe=", 9)) {
            oom_probe_offset = strtoul(w + 9, NULL, 0);     /* a test's (mm/oom_probe.c) */
        }
    }
}

/* Find each program's data module (mapped into lx once, read-only: task/exec.c). */
static void map_programs(void)
{
    for (unsigned i = 0; i < nprograms; i++) {
        struct program *p = &programs[i];
        const void *image;
        l4_word_t size;
        if (!p->argc || p->argv[0][0] == '/')
            continue;               /* a path: resolved when it starts */
        if (exec_image_lookup(p->argv[0], &image, &size))
            printf("lx: no data module %s\n", p->argv[0]);
    }
}

/* What the root task holds for lx's processes: back where it started when they are gone. */
static void root_report(void)
{
    l4_word_t err;
    l4_root_call(ROOT_MEMORY_INFO, 0, 0, 0, 0, &err);
    if (!err)
        printf("lx: root task: %lu tasks, %lu thread records\n", l4_mr(4), l4_mr(5));
}

static void power_off(void)
{
    /* isa-debug-exit: the root task maps the port to us, a trusted task, on the I/O fault. */
    __asm__ volatile("outl %0, %1" :: "a"(0u), "Nd"((unsigned short)0xF4));
}

/* The file system: empty, or the initramfs module's archives. */
static void mount_root(void)
{
    if (!tmpfs_init()) {
        printf("lx: no memory for the file system\n");
        return;
    }
    if (initrd) {
        l4_word_t err, size = l4_data_map(initrd, 0, &err);
        if (!size || err || size > INITRD_MAX || !l4_data_map(initrd, INITRD_BASE, &err) ||
            err) {
            printf("lx: no initramfs module %s (error %lu)\n", initrd, err);
        } else {
            module_window(INITRD_BASE, size);   /* its pages by call from now on (mm/module.c) */
            uint64_t t0 = tsc();    /* -icount: a tick per instruction (debian-root.md) */
            long n = cpio_unpack((const char *)INITRD_BASE, size);
            printf("lx: initramfs %s: %ld entries, %lu pages free, %lu TSC ticks\n", initrd, n,
                   page_free_count(), (unsigned long)(tsc() - t0));
        }
    }
    dev_populate();                 /* the standard /dev nodes the archive lacks */
}

/* Start programs until one runs (paths: files of the tree; bare names: data modules, both
 * through exec_spawn as execve would run them); with none left, the end of the run. */
static void start_next(void)
{
    while (next_program < nprograms) {
        struct program *p = &programs[next_program++];
        int e;
        if (!p->argc)
            continue;
        if (exec_spawn(p->argv[0], p->argc, p->argv, envp, &e))
            return;
        if (p->argv[0][0] == '/' || e != -ENOENT)     /* a missing module: said above */
            printf("lx: cannot run %s (error %d)\n", p->argv[0], -e);
    }
    ipc_shutdown();                 /* System V objects live on until the last process */
    aio_shutdown();                 /* the rings' internal tmpfs (every context has gone) */
    vfs_shutdown();                 /* the file system's pages too: the pool is complete */
    printf("lx: no processes left, %lu pages free\n", page_free_count());
    root_report();
    syscall_report();
    if (poweroff)
        power_off();
}

static unsigned rights_of(unsigned prot)
{
    return ((prot & PROT_READ) ? L4_R : 0) | ((prot & PROT_WRITE) ? L4_W : 0) |
           ((prot & PROT_EXEC) ? L4_X : 0);
}

/* The page a fault's reply maps, until the reply is sent: the kernel refuses the mapping when
 * its own memory is exhausted (message overflow, docs/ipc.md §3.6), and the thread would
 * then fault again for ever; lx treats it as out of memory (mapping_refused). */
static struct {
    struct thread *t;
    l4_word_t addr, ip;
} mapping;

/* A page fault: map the page with the region's rights, or SIGSEGV (signal/signal.c: its handler
 * through GET_REGS and SET_REGS replies, or the end of the process).  A page shared after
 * fork is mapped read-only; a write to it gets a copy (or the page itself, once nobody
 * shares it). */
static bool serve_page_fault(struct thread *t, l4_word_t tag)
{
    l4_word_t addr = l4_mr(L4_PF_ADDR), ip = l4_mr(L4_PF_IP);
    unsigned access = l4_pagefault_access(tag);
    struct region *r = mm_find(t->mm, addr);
    unsigned rights = r ? rights_of(r->prot) : 0;
    /* A fault of the kernel's string copy for native IPC (docs/linux/l4chan.md) that would
     * be a signal is refused instead: the IPC fails, as Linux's copy fails with EFAULT. */
    bool copy = ip == L4_XFER_FAULT_IP;
    if (copy && (!r || r->native_window || (access & ~rights) || !rights || mm_past_eof(r, addr))) {
        l4_set_mr(0, l4_tag_make(L4_FOREIGN_FAULT_REFUSED, 0, 0));
        return true;
    }
    if (!r || r->native_window || (access & ~rights) || !rights)
        return signal_page_fault(t, addr, ip, access, r != NULL);
    if (mm_past_eof(r, addr))       /* a file mapping's page past the file's end */
        return signal_bus_fault(t, addr, ip);
    void *page;
    int err;
    /* A copy made for a writer of a model another process's space also maps (vfork's):
     * the old page leaves every space, so that the other one faults the copy in too. */
    bool revoke = t->mm->users > t->proc->nthreads;
    while (!(page = (access & L4_W) ? mm_page_write(t->mm, r, addr, revoke, &err)
                                    : mm_page(t->mm, r, addr, &err))) {
        if (err == -ENOSPC && copy) {   /* the mapped file's mount is full: refused, */
            l4_set_mr(0, l4_tag_make(L4_FOREIGN_FAULT_REFUSED, 0, 0));
            return true;
        }
        if (err == -ENOSPC)             /* or SIGBUS, as Linux */
            return signal_bus_fault(t, addr, ip);
        if (oom_fault(t, addr, ip))     /* the largest process ended: t, or memory came back */
            return false;
    }
    if (!mm_page_writable(r, page))
        rights &= ~L4_W;
    mapping.t = t;
    mapping.addr = addr;
    mapping.ip = ip;
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_RESUME, 0, 2));
    l4_set_mr(1, l4_map_item(addr & LX_PAGE_MASK));
    l4_set_mr(2, l4_fpage_log2((l4_word_t)page, 12) | rights);
    return true;
}

static bool serve_syscall(struct thread *t)
{
    /* MR1..MR10 hold RAX, the six arguments, RIP, RSP, RFLAGS: struct sysargs's order,
     * so one copy (a loop of volatile reads costs twice as much on every call). */
    struct sysargs a = *(const struct sysargs *)&l4_utcb()[L4_FSC_RAX];
    if (__builtin_expect(t->park.kind == PARK_FORK_FPU, 0) && a.nr == LX_SYS_FORK_FPU &&
        a.rip == sigpage_fork_end())
        return fork_fpu_saved(t);   /* fork's second step (task/clone.c) */
    if (__builtin_expect(t->trace != NULL, 0) && ptrace_syscall_enter(t, &a))
        return true;                /* a syscall-enter-stop first (task/ptrace.c) */
    long r = syscall_dispatch(t, &a);
    if (r == LX_PARK) {
        park_parked(t, &a);
        return false;
    }
    if (r == LX_NOREPLY)
        return false;
    if (r == LX_REPLIED)
        return true;
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_RESUME, 1, 0));
    l4_set_mr(1, (l4_word_t)r);
    return true;
}

/* A CPU exception: its signal (signal/signal.c), with the registers the message carries. */
static bool serve_exception(struct thread *t)
{
    return signal_exception(t);
}

/* A message from one of lx's own threads: true if the MRs hold the reply. */
static bool serve_own(l4_word_t from, l4_word_t tag)
{
    if (console_is_input(from))
        return console_input(tag);  /* console input: the tty (tty/console.c, tty/tty.c) */
    timer_thread_message(from, tag);    /* a tick: answered after the loop's work */
    return false;                   /* else not a thread of ours (or one that ended) */
}

/* One message from thread `from`: true if the MRs now hold the reply. */
static bool serve(l4_word_t from, l4_word_t tag)
{
    struct thread *t = thread_by_l4(from);
    if (__builtin_expect(!t, 0))
        return serve_own(from, tag);
    bool reply;
    if (l4_tag_is_proto(tag, L4_PROTO_FOREIGN_SYSCALL))
        reply = serve_syscall(t);
    else if ((tag & L4_PROTO_MASK) == L4_PROTO_PAGEFAULT)
        reply = serve_page_fault(t, tag);
    else if (l4_tag_is_proto(tag, L4_PROTO_FOREIGN_EXCEPTION))
        reply = serve_exception(t);
    else if (l4_tag_is_proto(tag, L4_PROTO_FOREIGN_REGS) && t->park.kind == PARK_FORK_REGS)
        reply = fork_regs(t);
    else if (l4_tag_is_proto(tag, L4_PROTO_FOREIGN_INTERRUPT) && t->park.kind == PARK_START) {
        fork_child_start(t);
        reply = true;
    } else if (l4_tag_is_proto(tag, L4_PROTO_FOREIGN_REGS) && signal_waiting_regs(t)) {
        reply = signal_regs(t);     /* a signal's delivery: the registers it needed */
    } else if (l4_tag_is_proto(tag, L4_PROTO_FOREIGN_INTERRUPT)) {
        reply = signal_interrupt(t);
    } else if (l4_tag_is_proto(tag, L4_PROTO_FOREIGN_REGS)) {
        l4_set_mr(0, l4_tag_make(L4_FOREIGN_RESUME, 0, 0));
        reply = true;
    } else
        return false;
    signal_note(t);                 /* more to deliver: interrupt it after the reply */
    return reply;
}

/* The loop's work besides answering messages (lx_work): timers the timer thread says are
 * due, woken calls, signals for threads lx does not hold, ended processes, the next program;
 * until none is left.  Clobbers the MRs. */
static void loop_work(void)
{
    do {
        lx_work = false;
        timer_thread_work();
        park_run();
        signal_run();
        exit_flush();
        if (!process_nr_live)
            start_next();
    } while (lx_work);
    timer_thread_answer();
}

/* The reply just sent failed (tag): if the kernel had no memory for the mapping it carried,
 * that is out of memory as when lx has no page (mm/oom.c): the largest process ends, the
 * faulting one if it is the largest; the kernel's memory it held comes back and a thread
 * that faults again gets its page. */
static void mapping_refused(l4_word_t tag)
{
    struct thread *t = mapping.t;
    mapping.t = NULL;
    if (!t || !l4_ipc_failed(tag) || l4_ipc_last_error_rcv() ||
        l4_ipc_last_error() != L4_IPC_OVERFLOW)
        return;
    printf("lx: pid %d: the kernel has no memory to map %lx\n", thread_pid(t),
           mapping.addr & LX_PAGE_MASK);
    oom_probe();
    oom_fault(t, mapping.addr, mapping.ip);
}

int main(void)
{
    l4_image_touch();               /* lx's own pages: docs/linux/memory.md §4 */
    const struct l4_task_start *ts = l4_task_start();
    lx_self = l4_my_global_id();
    if (!ts || !ts->heap_size) {
        printf("lx: no heap: start me as a boot module with heap=N heapx=1\n");
        return 1;
    }
    page_init(ts->heap_base, ts->heap_size);
    clock_init();                   /* the wall clock, before the files' times */
    log_init();                     /* the kernel log, its first records */
    parse_cmdline();
    mount_root();
    console_init();                 /* console=serial: the tty on the serial driver */
    tty_init();                     /* its device numbers (5:0, 5:1, 4:64) */
    timer_thread_init();            /* deadlines fire through it */
    map_programs();
    printf("lx: Linux server, %lu KiB of memory, %u program(s)\n", ts->heap_size >> 10,
           nprograms);
    root_report();
    start_next();
    /* The loop: serve a message, answer it and wait for the next, with no timeout (the
     * kernel's fast path; deadlines come as the timer thread's messages); when the message
     * left other work (lx_work), it is answered first, then the work is done.  With nothing
     * of that this is one reply-and-wait per message, whatever others wait for. */
    l4_word_t from, tag = l4_wait(&from);
    for (;;) {
        mapping.t = NULL;
        bool reply = !l4_ipc_failed(tag) && serve(from, tag);
        if (__builtin_expect(lx_work, 0)) {
            if (reply)
                mapping_refused(l4_reply(from));  /* answered first: the work clobbers the MRs */
            reply = false;
            loop_work();
        }
        if (reply) {
            tag = l4_reply_wait(from, &from);
            if (!l4_ipc_failed(tag) || l4_ipc_last_error_rcv())
                continue;
            /* The reply failed: nothing was received. */
            mapping_refused(tag);
            if (lx_work)
                loop_work();
        }
        tag = l4_wait(&from);
    }
}
