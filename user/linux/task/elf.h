/* The ELF loader and the initial stack (elf.c; docs/linux/exec.md). */
#ifndef LX_TASK_ELF_H
#define LX_TASK_ELF_H

#include <libl4.h>

struct mm;
struct inode;
struct exec_args;

/* Load a static ELF (non-PIE or static-PIE) into mm and build its initial stack with the
 * strings of args (the arguments, the environment and AT_EXECFN's path, exec_args.h);
 * *entry and *sp for the start; 0 or -errno (a message says why: -ENOEXEC for what is no
 * loadable static ELF). */
int elf_load(struct mm *mm, const void *image, l4_word_t size, const struct exec_args *args,
             l4_word_t *entry, l4_word_t *sp);

/* The same from a tmpfs file that has been written (its pages are not one piece). */
int elf_load_file(struct mm *mm, struct inode *file, const struct exec_args *args,
                  l4_word_t *entry, l4_word_t *sp);

#endif
