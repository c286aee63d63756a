/* execve's strings while the old image still runs (exec_args.c): the path, the environment
 * and the arguments, laid out as they will lie at the top of the new stack, within the
 * limit Linux's bprm_stack_limits gives (docs/linux/exec.md §2). */
#ifndef LX_TASK_EXEC_ARGS_H
#define LX_TASK_EXEC_ARGS_H

#include <libl4.h>
#include <stdbool.h>
#include <stddef.h>

struct mm;
struct cred;

#define EXEC_ARGS_DIRS 4                /* index pages: 4 x 512 pages = the 8 MiB window */

/* Strings are pushed downwards from the window's top, as Linux copies them into the new
 * stack: the path first (AT_EXECFN's string), then the environment and the arguments, each
 * from its last string to its first; so [p, top) is argv's strings, envp's, the path's. */
struct exec_args {
    void **dir[EXEC_ARGS_DIRS];         /* window page -> a pool page (process memory) */
    l4_word_t p;                        /* the lowest byte in use */
    l4_word_t argmin;                   /* p never goes below: the limit */
    l4_word_t exec;                     /* the path's string (AT_EXECFN) */
    long argc, envc;
    const struct cred *cred;            /* the new ids for the auxiliary vector (NULL: root) */
    struct thread *walker;              /* whose root (chroot) the interpreter is found from
                                           (NULL: lx's own start, from /) */
    bool secure;                        /* AT_SECURE: the ids differ or were gained */
};

#define EXEC_ARGS_TOP   (8ul << 20)     /* the window's top; the limit is at most 6 MiB */

/* Linux's limit for argc argument and envc environment strings under RLIMIT_STACK stack:
 * a quarter of it, at most 6 MiB, at least 128 KiB, less a pointer per string (an empty
 * argv counts as one).  0 or -E2BIG. */
int exec_args_begin(struct exec_args *a, unsigned long stack, long argc, long envc);
/* A NUL-terminated string of the process's at src, or one of lx's (n bytes, a NUL added):
 * 0, -EFAULT, -E2BIG (past MAX_ARG_STRLEN or the limit) or -ENOMEM. */
int exec_args_push_user(struct exec_args *a, struct mm *mm, l4_word_t src);
int exec_args_push(struct exec_args *a, const char *s, size_t n);
/* The lowest string goes (binfmt_script's remove_arg_zero); its length with the NUL. */
size_t exec_args_pop(struct exec_args *a);
/* The bytes [off, off + n) of the window (off >= p) into dst / into the process's memory. */
void exec_args_read(const struct exec_args *a, l4_word_t off, void *dst, size_t n);
int exec_args_to_user(const struct exec_args *a, struct mm *mm, l4_word_t dst);
/* The string at off: its length without the NUL (it ends below the top). */
size_t exec_args_strlen(const struct exec_args *a, l4_word_t off);
void exec_args_end(struct exec_args *a);    /* every page back */

#endif
