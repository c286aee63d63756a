/* Core dumps (coredump.c; docs/linux/signals.md, "Core dumps"): a process a core-dump signal
 * ends writes an ELF core file, as Linux's do_coredump and binfmt_elf's elf_core_dump, when
 * RLIMIT_CORE is at least a page and the process is dumpable. */
#ifndef LX_TASK_COREDUMP_H
#define LX_TASK_COREDUMP_H

#include <libl4.h>
#include <stdbool.h>

struct thread;
struct k_siginfo;

/* Would a core-dump signal make t's process write a core (the signal path then fetches the
 * registers first)? */
bool coredump_wanted(const struct thread *t);
/* Write the core of t's process, ended by sig with info; regs: t's (L4_FREG order),
 * orig_rax the system call it was in (-1: none).  True if a core file was made: the wait
 * status's core flag (task/exit_status.h). */
bool coredump_write(struct thread *t, int sig, const struct k_siginfo *info,
                    const l4_word_t *regs, long orig_rax);

#endif
