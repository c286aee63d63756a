/* uname, sethostname and setdomainname: the names of task/uts.h (docs/linux/system.md). */
#include "syscalls/handlers.h"
#include "lib/errno.h"
#include "mm/usercopy.h"
#include "task/process.h"
#include "task/thread.h"
#include "task/uts.h"
#include <string.h>

long sys_uname(struct thread *t, const struct sysargs *a)
{
    return copy_to_user(t->mm, a->a[0], &lx_uts, sizeof lx_uts);
}

/* Linux's: CAP_SYS_ADMIN (lx's processes are root), a length of 0 .. 64, the name copied
 * whole before it changes. */
static long set_name(struct thread *t, const struct sysargs *a, char *name)
{
    long len = (int)a->a[1];
    if (t->proc->cred.euid != 0)
        return -EPERM;
    if (len < 0 || len > UTS_LEN)
        return -EINVAL;
    char tmp[UTS_LEN + 1] = { 0 };
    if (copy_from_user(t->mm, tmp, a->a[0], (size_t)len))
        return -EFAULT;
    memcpy(name, tmp, sizeof tmp);
    return 0;
}

long sys_sethostname(struct thread *t, const struct sysargs *a)
{
    return set_name(t, a, lx_uts.nodename);
}

long sys_setdomainname(struct thread *t, const struct sysargs *a)
{
    return set_name(t, a, lx_uts.domainname);
}
