/* The system's names (task/uts.h) and their settings in /proc/sys/kernel.  The release is
 * 6.1's, as glibc checks it against its minimum; the node name is lx's own ("pecan") until a
 * program sets another. */
#include "task/uts.h"
#include "fs/proc/sysctl.h"

struct uts lx_uts = {
    .sysname = "Linux", .nodename = "pecan", .release = "6.1.0-pecan", .version = "#1 lx",
    .machine = "x86_64", .domainname = "(none)",
};

static struct sysctl uts_sysctls[] = {
    { .path = "kernel/hostname", .mode = 0644, .show = sysctl_show_string,
      .store = sysctl_store_string, .data = lx_uts.nodename, .maxlen = UTS_LEN + 1 },
    { .path = "kernel/domainname", .mode = 0644, .show = sysctl_show_string,
      .store = sysctl_store_string, .data = lx_uts.domainname, .maxlen = UTS_LEN + 1 },
    { .path = "kernel/ostype", .mode = 0444, .show = sysctl_show_string,
      .data = lx_uts.sysname },
    { .path = "kernel/osrelease", .mode = 0444, .show = sysctl_show_string,
      .data = lx_uts.release },
    { .path = "kernel/version", .mode = 0444, .show = sysctl_show_string,
      .data = lx_uts.version },
};
SYSCTL_TABLE(uts_sysctls)
