/* /proc/PID/cmdline and /proc/PID/environ: read from the process's memory, where execve put
 * the strings (struct mm's arg_start..env_end), so they are as long as the arguments were
 * and show what the program wrote over them, as Linux's get_mm_cmdline does.  One rule of
 * Linux's kept: when the byte that ended argv is no longer NUL (setproctitle), cmdline goes
 * on into the environment's area up to the first NUL. */
#include "fs/proc/proc.h"
#include "lib/errno.h"
#include "mm/usercopy.h"
#include "task/process.h"
#include "vfs/file.h"
#include <string.h>

/* Copy the text [from, to) of mm to the reader from *pos on; with stop_at_nul the text
 * ends after its first NUL.  The count moved, or -EFAULT if a fault stopped the first byte. */
static long copy_area(struct mm *mm, l4_word_t from, l4_word_t to, bool stop_at_nul,
                      struct uio *u, l4_word_t *pos)
{
    static char chunk[LX_PAGE];
    if (stop_at_nul) {                  /* where the text ends: its first NUL */
        for (l4_word_t at = from; at < to;) {
            size_t n = to - at < sizeof chunk ? (size_t)(to - at) : sizeof chunk;
            if (copy_from_user(mm, chunk, at, n))
                break;
            const char *z = memchr(chunk, 0, n);
            if (z) {
                to = at + (l4_word_t)(z - chunk) + 1;
                break;
            }
            at += n;
        }
    }
    if (*pos >= to - from)
        return 0;
    l4_word_t done = 0;
    for (l4_word_t at = from + *pos; at < to && u->resid && !u->fault;) {
        size_t n = to - at < sizeof chunk ? (size_t)(to - at) : sizeof chunk;
        if (copy_from_user(mm, chunk, at, n))
            break;                      /* unmapped since: the text ends there */
        l4_word_t k = uio_copy_out(u, chunk, n);
        done += k;
        at += k;
        if (k < n)
            break;
    }
    *pos += done;
    return done || !u->fault ? (long)done : -EFAULT;
}

long proc_args_read(struct process *p, bool environ, struct uio *u, l4_word_t *pos)
{
    struct mm *mm = process_mm(p);
    if (!mm || mm->arg_start >= mm->arg_end)
        return 0;
    if (environ)
        return copy_area(mm, mm->env_start, mm->env_end, false, u, pos);
    char last;
    if (!copy_from_user(mm, &last, mm->arg_end - 1, 1) && last)
        return copy_area(mm, mm->arg_start, mm->env_end, true, u, pos);
    return copy_area(mm, mm->arg_start, mm->arg_end, false, u, pos);
}
