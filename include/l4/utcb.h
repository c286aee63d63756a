/* UTCB layout relative to MR0 (= the local thread id = %gs:0), contract §3.2. */
#ifndef L4_UTCB_H
#define L4_UTCB_H

#include "types.h"

#define L4_UTCB_SIZE          1024
#define L4_UTCB_MR0_OFFSET    0x200     /* MR0 = UTCB location + 0x200 */

/* Word indices relative to MR0. */
#define L4_UTCB_MY_GLOBAL_ID   (-15)
#define L4_UTCB_PROCESSOR_NO   (-14)
#define L4_UTCB_USER_HANDLE    (-13)
#define L4_UTCB_PAGER          (-12)
#define L4_UTCB_EXC_HANDLER    (-11)
#define L4_UTCB_FLAGS          (-10)    /* byte 0 PreemptFlags, byte 1 CopFlags */
#define L4_UTCB_ERROR_CODE     (-9)
#define L4_UTCB_XFER_TIMEOUTS  (-8)
#define L4_UTCB_INTENDED_RCV   (-7)
#define L4_UTCB_VIRT_ACT_SENDER (-6)
#define L4_UTCB_THREAD_WORD1   (-5)
#define L4_UTCB_THREAD_WORD0   (-4)
#define L4_UTCB_WORD_SIZE_MASK (-1)
#define L4_UTCB_BR(i)          (-16 - (int)(i))   /* BRi at MR0 - 0x80 - 8i */
#define L4_UTCB_MR(i)          (i)

/* PreemptFlags bits (byte 0 of the flags word). */
#define L4_PREEMPT_SIGNAL   (1u << 5)
#define L4_PREEMPT_DELAY    (1u << 6)
#define L4_PREEMPT_PENDING  (1u << 7)

#endif
