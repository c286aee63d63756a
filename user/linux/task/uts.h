/* The system's names (Linux's utsname): what uname(2) reports, kernel.hostname and
 * kernel.domainname in /proc/sys, sethostname(2) and setdomainname(2) change (task/uts.c). */
#ifndef LX_TASK_UTS_H
#define LX_TASK_UTS_H

#define UTS_LEN 64                  /* Linux's __NEW_UTS_LEN */

struct uts {
    char sysname[UTS_LEN + 1], nodename[UTS_LEN + 1], release[UTS_LEN + 1],
        version[UTS_LEN + 1], machine[UTS_LEN + 1], domainname[UTS_LEN + 1];
};
extern struct uts lx_uts;

#endif
