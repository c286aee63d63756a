/* execve and the executable of a process (exec.c; issue 8 item 1, docs/linux/exec.md). */
#ifndef LX_TASK_EXEC_H
#define LX_TASK_EXEC_H

#include <libl4.h>
#include <stdbool.h>

struct process;
struct thread;
struct inode;

/* The absolute path of p's executable as /proc/<pid>/exe shows it (as it was named at the
 * exec), or NULL (none known); its inode (referenced by the task) or NULL (a data module). */
const char *task_exe_path(const struct process *p);
struct inode *task_exe_inode(const struct process *p);
/* Record path (resolved from t's cwd to an absolute path in the tree if it is one) as the
 * executable of t's process. */
void task_set_exe(struct thread *t, const char *path);
/* fork: the child's executable is the parent's; false when memory is short. */
bool task_copy_exe(struct process *child, const struct process *parent);
void task_drop_exe(struct process *p); /* exit */
/* Start the program at path (a file of the tree, a #! script, or a data module) as a new
 * process, as execve would run it; NULL with *err. */
struct process *exec_spawn(const char *path, int argc, char *const argv[], char *const envp[],
                           int *err);
/* The executable called path: lx's address and size of its image; 0 or -ENOENT.  For now
 * a data module named by the path's last component (the VFS replaces this later). */
int exec_image_lookup(const char *path, const void **image, l4_word_t *size);

#endif
