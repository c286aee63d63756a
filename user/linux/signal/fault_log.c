/* The kernel log's lines for a fault no handler takes (Linux's show_unhandled_signals, on by
 * default): "NAME[PID]: segfault at ADDR ip IP sp SP error E in FILE[START+SIZE] likely on
 * CPU 0 (core 0, socket 0)" and the "Code:" line after it (the bytes around the ip) for a
 * page fault's SIGSEGV, as arch/x86/mm/fault.c's show_signal_msg; "traps: NAME[PID] trap
 * invalid opcode ip:IP sp:SP error:E in ..." for an exception, as traps.c's show_signal.
 * init's lines are KERN_EMERG, the others' KERN_INFO. */
#include "signal/fault_log.h"
#include "fs/proc/sysctl.h"
#include "log/log.h"
#include "mm/mm.h"
#include "mm/usercopy.h"
#include "task/exec.h"
#include "task/process.h"
#include "task/thread.h"
#include "vfs/vfs.h"
#include <stdio.h>
#include <string.h>

#define R(name) regs[L4_FREG_##name - 1]

/* debug.exception-trace (Linux's show_unhandled_signals): 0 turns the lines off. */
static int show_unhandled_signals = 1;

static struct sysctl fault_log_sysctls[] = {
    { .path = "debug/exception-trace", .mode = 0644, .show = sysctl_show_int,
      .store = sysctl_store_int, .data = &show_unhandled_signals },
};
SYSCTL_TABLE(fault_log_sysctls)
#define PROLOGUE 42                 /* Linux's show_opcodes: bytes before the ip, after it */
#define EPILOGUE 21

/* " in FILE[START+SIZE]" for the file mapping holding ip (print_vma_addr), or "". */
static void vma_name(struct thread *t, l4_word_t ip, char *out, size_t size)
{
    static char path[PATH_MAX];
    struct region *r = t->mm ? mm_find(t->mm, ip) : NULL;
    const char *name = NULL;
    out[0] = 0;
    if (r && r->file && vfs_path_of(r->file, path, sizeof path) >= 0)
        name = path;
    else if (r && r->fdata)
        name = task_exe_path(t->proc);
    if (!name)
        return;
    const char *base = strrchr(name, '/');
    snprintf(out, size, " in %s[%lx+%lx]", base ? base + 1 : name, (unsigned long)r->start,
             (unsigned long)(r->end - r->start));
}

static int level_of(struct thread *t)
{
    return process_pid(t->proc) > 1 ? KERN_INFO : KERN_EMERG;
}

void fault_log_segfault(struct thread *t, l4_word_t addr, int err, const l4_word_t *regs)
{
    char in[PATH_MAX + 48];
    int level = level_of(t);
    if (!show_unhandled_signals)
        return;
    vma_name(t, R(RIP), in, sizeof in);
    klog(level, "%s[%d]: segfault at %lx ip %016lx sp %016lx error %x%s likely on CPU 0 "
         "(core 0, socket 0)", t->comm, process_pid(t->proc), (unsigned long)addr,
         (unsigned long)R(RIP), (unsigned long)R(RSP), err, in);
    unsigned char code[PROLOGUE + 1 + EPILOGUE];
    l4_word_t from = R(RIP) - PROLOGUE;
    if (!t->mm || copy_from_user(t->mm, code, from, sizeof code)) {
        klog(level, "Code: Unable to access opcode bytes at 0x%lx.", (unsigned long)from);
        return;
    }
    char line[8 + 3 * sizeof code + 4];
    size_t n = (size_t)snprintf(line, sizeof line, "Code:");
    for (unsigned k = 0; k < sizeof code; k++)
        n += (size_t)snprintf(line + n, sizeof line - n, k == PROLOGUE ? " <%02x>" : " %02x",
                              code[k]);
    klog(level, "%s", line);
}

void fault_log_trap(struct thread *t, const char *type, const char *desc, long err,
                    const l4_word_t *regs)
{
    char in[PATH_MAX + 48];
    if (!show_unhandled_signals)
        return;
    vma_name(t, R(RIP), in, sizeof in);
    klog(KERN_INFO, "traps: %s[%d] %s%s ip:%lx sp:%lx error:%lx%s", t->comm,
         process_pid(t->proc), type, desc, (unsigned long)R(RIP), (unsigned long)R(RSP),
         (unsigned long)err, in);
}
