/* process_vm_readv and process_vm_writev (Linux's mm/process_vm_access.c): bytes between
 * the caller's iovecs and another process's, through lx's checked copies (a page of lx's at
 * a time: both sides go through mm/usercopy.c, so a bad page on either side ends the
 * transfer exactly at its start).  The answer is the count moved, or the first error when
 * nothing moved: EFAULT for a bad page on either side, as Linux. */
#include "task/sharing.h"
#include "lib/errno.h"
#include "mm/usercopy.h"
#include "syscalls/handlers_more.h"
#include "task/process.h"
#include "vfs/file.h"

#define IOV_MAX 1024

static struct uio_seg remote[IOV_MAX];
static char bounce[LX_PAGE];

static l4_word_t page_left(l4_word_t addr)
{
    return LX_PAGE - (addr & (LX_PAGE - 1));
}

static long process_vm_rw(struct thread *t, const struct sysargs *a, bool write)
{
    if (a->a[5])
        return -EINVAL;
    struct uio local;
    long e = iov_import(t, a->a[1], a->a[2], &local);
    if (e)
        return e;
    if (!local.resid)
        return 0;
    l4_word_t nr = a->a[4];
    if (nr > IOV_MAX)
        return -EINVAL;
    if (nr && copy_from_user(t->mm, remote, a->a[3], nr * sizeof remote[0]))
        return -EFAULT;
    bool any = false;
    for (l4_word_t k = 0; k < nr; k++) {
        if ((long)remote[k].len < 0)
            return -EINVAL;
        any |= remote[k].len != 0;
    }
    if (!any)
        return 0;
    struct pid *pid = (int)a->a[0] > 0 ? pid_find((int)a->a[0]) : NULL;
    struct process *p = pid ? pid->proc ? pid->proc : pid->thread ? pid->thread->proc : NULL
                            : NULL;
    struct mm *mm = p ? process_mm(p) : NULL;
    if (!mm)
        return -ESRCH;
    if (mm != t->mm && !ptrace_may_access(t, p))
        return -EPERM;
    long err = 0;
    for (l4_word_t k = 0; k < nr && local.resid && !err; k++) {
        l4_word_t base = remote[k].base, len = remote[k].len, off = 0;
        while (off < len && local.resid) {
            l4_word_t n = len - off, at = base + off;
            if (n > page_left(at))
                n = page_left(at);
            if (!write) {
                if (copy_from_user(mm, bounce, at, n)) {
                    err = -EFAULT;
                    break;
                }
                l4_word_t m = uio_copy_out(&local, bounce, n);
                off += m;
                if (m < n) {
                    err = -EFAULT;
                    break;
                }
            } else {
                /* Take what the local side gives (up to n), then write it remotely. */
                struct uio peek = local;
                l4_word_t m = uio_copy_in(&peek, bounce, n);
                if (m && copy_to_user(mm, at, bounce, m)) {
                    err = -EFAULT;
                    break;
                }
                local = peek;
                off += m;
                if (m < n && local.resid) {
                    err = -EFAULT;
                    break;
                }
            }
        }
    }
    return local.done ? (long)local.done : err ? err : 0;
}

long sys_process_vm_readv(struct thread *t, const struct sysargs *a)
{
    return process_vm_rw(t, a, false);
}

long sys_process_vm_writev(struct thread *t, const struct sysargs *a)
{
    return process_vm_rw(t, a, true);
}
