/* sysinfo(2): uptime, memory from lx's page pool (in bytes: mem_unit 1, as 64-bit Linux
 * reports it), process count;
 * the load averages are 0 (lx does not measure load).  busybox's uptime and free use it. */
#include "lx.h"
#include "fs/proc/proc.h"
#include <string.h>

long sys_sysinfo(struct task *t, const struct sysargs *a)
{
    uint8_t si[112];
    memset(si, 0, sizeof si);
    uint64_t v[10] = { l4_system_clock() / 1000000, 0, 0, 0, page_total_count() * LX_PAGE,
                       page_free_count() * LX_PAGE, 0, 0, 0, 0 };
    memcpy(si, v, sizeof v);        /* uptime, loads[3], totalram, freeram, shared, buffer,
                                       totalswap, freeswap */
    uint16_t procs = (uint16_t)task_count();
    memcpy(si + 80, &procs, 2);
    uint32_t unit = 1;
    memcpy(si + 104, &unit, 4);
    return copy_to_user(&t->mm, a->a[0], si, sizeof si);
}
