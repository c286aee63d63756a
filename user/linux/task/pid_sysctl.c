/* kernel.pid_max in /proc/sys: the pid table's (task/pid.c), registered apart from it so
 * that the table builds alone (the host's unit test of pid.c). */
#include "fs/proc/sysctl.h"
#include "task/pid.h"

static struct sysctl pid_sysctls[] = {
    { .path = "kernel/pid_max", .mode = 0644, .show = sysctl_show_int,
      .store = sysctl_store_int, .data = &pid_max, .min = RESERVED_PIDS + 1, .max = PID_MAX },
};
SYSCTL_TABLE(pid_sysctls)
