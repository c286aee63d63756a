/* sethostname and setdomainname (seen by uname, EINVAL, EFAULT; EPERM for a user that is
 * not root waits for issue 14's credentials: every lx process is root today), and the numbers Linux 6.1 answers ENOSYS for on Debian's kernel as lx does: the
 * removed and never-implemented calls, _sysctl, memfd_secret. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sys/syscall.h>
#include <sys/utsname.h>
#include "corpus.h"

static void names(const char *what)
{
    struct utsname u;
    uname(&u);
    printf("%s: nodename [%s] domainname [%s]\n", what, u.nodename, u.domainname);
}

int main(void)
{
    corpus_init();
    struct utsname orig;
    uname(&orig);
    SHOW("sethostname", sethostname("corpus-host", 11));
    SHOW("setdomainname", setdomainname("corpus.dom", 10));
    names("after");
    SHOW("sethostname 64", sethostname("0123456789012345678901234567890123456789012345678901234567890123", 64));
    names("64 bytes");
    SHOW("sethostname 65", syscall(SYS_sethostname, "x", 65));
    SHOW("sethostname -1", syscall(SYS_sethostname, "x", -1));
    SHOW("sethostname bad pointer", syscall(SYS_sethostname, 8L, 4));
    SHOW("setdomainname 0", setdomainname("", 0));
    SHOW("sethostname 3 of more", sethostname("abcdef", 3));
    names("short");
        sethostname(orig.nodename, strlen(orig.nodename));
    setdomainname(orig.domainname, strlen(orig.domainname));

    static const struct { int nr; const char *name; } gone[] = {
        { 156, "_sysctl" }, { 174, "create_module" }, { 177, "get_kernel_syms" },
        { 178, "query_module" }, { 180, "nfsservctl" }, { 181, "getpmsg" }, { 182, "putpmsg" },
        { 183, "afs_syscall" }, { 184, "tuxcall" }, { 185, "security" },
        { 214, "epoll_ctl_old" }, { 215, "epoll_wait_old" }, { 236, "vserver" },
        { 447, "memfd_secret" },
    };
    for (unsigned k = 0; k < sizeof gone / sizeof gone[0]; k++)
        SHOW(gone[k].name, syscall(gone[k].nr, 0, 0, 0, 0, 0, 0));
    return 0;
}
