/* Build-time configuration of the kernel. Values that are policy, not mechanism, live here. */
#ifndef CONFIG_H
#define CONFIG_H

#define CONFIG_THREAD_BITS        18        /* significant thread-number bits (KIP ThreadInfo.t) */
#define CONFIG_MAX_THREADS        (1ul << CONFIG_THREAD_BITS)
#ifndef CONFIG_TICK_US                      /* a build variant may set it (kernel/build.mk) */
#define CONFIG_TICK_US            1000      /* timer tick; SchedulePrecision */
#endif
#define CONFIG_TIMESLICE_US       10000     /* default time slice (X.2: 10 ms) */
#define CONFIG_DEFAULT_PRIO       100
#define CONFIG_ROOT_PRIO          255
#define CONFIG_IRQ_PRIO           255
#define CONFIG_USERBASE_OFFSET    32        /* UserBase = SystemBase + 32 (Pistachio) */
#define CONFIG_KMEM_MIN           (4ul << 20)
#define CONFIG_KMEM_MAX           (256ul << 20)
#define CONFIG_KMEM_FRACTION      8         /* default pool = RAM / 8 */
#define CONFIG_WAKEUP_SLOTS       256       /* timer wheel size (ticks) */

#endif
