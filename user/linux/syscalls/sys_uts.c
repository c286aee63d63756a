/* The host and domain names uname reports (Linux's one UTS namespace): sethostname and
 * setdomainname change them for every process, root only (CAP_SYS_ADMIN). */
#include "syscalls/handlers_more.h"
#include "lib/errno.h"
#include "mm/usercopy.h"
#include "task/process.h"
#include <string.h>

#define UTS_LEN 64                  /* __NEW_UTS_LEN */

char uts_nodename[UTS_LEN + 1] = "pecan";
char uts_domainname[UTS_LEN + 1] = "(none)";

static long set_name(struct thread *t, const struct sysargs *a, char *dst)
{
    int len = (int)a->a[1];
    if (t->proc->cred.euid != 0)
        return -EPERM;
    if (len < 0 || len > UTS_LEN)
        return -EINVAL;
    char tmp[UTS_LEN];
    if (copy_from_user(t->mm, tmp, a->a[0], (size_t)len))
        return -EFAULT;
    memcpy(dst, tmp, (size_t)len);
    memset(dst + len, 0, UTS_LEN + 1 - (size_t)len);
    return 0;
}

long sys_sethostname(struct thread *t, const struct sysargs *a)
{
    return set_name(t, a, uts_nodename);
}

long sys_setdomainname(struct thread *t, const struct sysargs *a)
{
    return set_name(t, a, uts_domainname);
}
