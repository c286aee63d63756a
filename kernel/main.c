/* Kernel start: bring up the machine and the kernel's memory, then start sigma0 and the root
 * task (contract §7) and become the idle thread. */
#include "types.h"
#include "console.h"
#include "boot.h"
#include "bootmem.h"
#include "bootinfo.h"
#include "kmem.h"
#include "kip.h"
#include "space.h"
#include "thread.h"
#include "sched.h"
#include "timeout.h"
#include "irq.h"
#include "iospace.h"
#include "arch.h"
#include "glue.h"
#include "platform.h"
#include "lib.h"
#include "version.h"
#include "kdb/kdb.h"
#include <l4/utcb.h>
#include <l4/fpage.h>

struct boot_params boot_params;        /* arch_read_boot_params fills it, first thing */

/* INITIAL_KIP_AREA, INITIAL_UTCB_AREA: bootmem.h (no module may lie behind them) */

static struct tcb *start_server(unsigned idx, word_t no, word_t pager, word_t scheduler)
{
    struct space *s = space_create();
    if (!s)
        panic("no memory for initial server %u", idx);
    s->privileged = true;
    if (space_setup_areas(s, l4_fpage_log2(INITIAL_KIP_AREA, 12),
                          l4_fpage_log2(INITIAL_UTCB_AREA, INITIAL_UTCB_LOG2)))
        panic("initial server %u: areas", idx);
    struct tcb *t = thread_create(l4_global_id(no, 1), s, scheduler);
    if (!t)
        panic("no memory for initial server %u", idx);
    t->utcb_location = INITIAL_UTCB_AREA;
    t->prio = CONFIG_ROOT_PRIO;
    if (thread_activate(t, pager))
        panic("initial server %u: UTCB", idx);
    thread_start_now(t, bootmem.elf[idx].entry, 0);
    return t;
}

void kmain(void)
{
    const char *opt;
    console_init();
    printk("\n%s\n", PECAN_VERSION_STRING);
    arch_cpu_detect();
    arch_read_boot_params();
    kdb_init();
    paging_init();
    arch_cpu_init();
    bootmem_init();
    kmem_init(bootmem.pool.start, bootmem.pool.end - bootmem.pool.start);
    printk("mem: kernel %lx-%lx, pool %lx-%lx (%lu KiB), boot data %lx\n",
           bootmem.image.start, bootmem.image.end, bootmem.pool.start, bootmem.pool.end,
           kmem_free_bytes() >> 10, bootmem.bootdata.start);
    space_init_kernel();
    arch_interrupts_init();
    arch_timer_init();
    kip_init();
    kip_set_clock(arch_tsc_khz(), arch_bus_khz());
    sched_init();
    timeout_init();
    irq_init();
    idle_tcb = thread_create_idle();
    cpu0.current = idle_tcb;

    bootmem_load_servers();
    kip_set_servers();
    kip_set_memory();
    kip_set_bootinfo(bootinfo_build());
    for (unsigned i = 0; i < boot_params.nmod; i++)
        printk("boot: module %u at %lx-%lx: %s\n", i, boot_params.mod[i].start,
               boot_params.mod[i].end, boot_params.mod[i].cmdline);

    word_t user_base = kip_user_base();
    word_t root = l4_global_id(user_base + 2, 1), sigma0 = l4_global_id(user_base, 1);
    struct tcb *s0 = start_server(0, user_base, L4_NILTHREAD, root);
    s0->space->sigma0 = true;
    sigma0_space = s0->space;
    if (!iospace_init_sigma0(s0->space))
        panic("no memory for sigma0's I/O space");
    start_server(1, user_base + 2, sigma0, root);
    cpu_enable_pcid();
    if (boot_option("fastpath", &opt) && !strncmp(opt, "off", 3))
        arch_ipc_fastpath(false);
    else
        arch_ipc_fastpath(true);
    printk("kernel: IPC fast path %s\n", arch_ipc_fastpath_on() ? "on" : "off");

    printk("kernel: starting sigma0 %lx and root task %lx (%lu KiB kernel memory free)\n",
           sigma0, root, kmem_free_bytes() >> 10);
    /* From here on this is the idle thread. */
    for (;;) {
        if (sched_highest_prio() >= 0)
            schedule();
        arch_idle();
    }
}
