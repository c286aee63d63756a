/* execve and the executable of a process (exec.c; issue 8 item 1, docs/linux/exec.md). */
#ifndef LX_TASK_EXEC_H
#define LX_TASK_EXEC_H

#include <libl4.h>
#include <stdbool.h>

struct process;
struct thread;
struct inode;

/* p's executable: its file (referenced by the process; NULL for a data module) and the path it
 * had (/proc/N/exe shows it with " (deleted)" once the file has no name; a data module's
 * name as it was started). */
const char *task_exe_path(const struct process *p);
struct inode *task_exe_inode(const struct process *p);
/* fork: the child's executable is the parent's; false when memory is short. */
bool task_copy_exe(struct process *child, const struct process *parent);
void task_drop_exe(struct process *p); /* exit */
/* Start a program as a new process, as execve would run it: a path is a file of the tree
 * (or a #! script), a bare name a data module; NULL with *err. */
struct process *exec_spawn(const char *path, int argc, char *const argv[], char *const envp[],
                           int *err);
/* The data module named by path's last component: lx's address and size of its image;
 * 0 or -ENOENT.  (Mapped once, read-only, into lx.) */
int exec_image_lookup(const char *path, const void **image, l4_word_t *size);

#endif
