/* The control words of ExchangeRegisters (contract §4.4.2), Schedule (§4.4.6) and Unmap
 * (§4.4.8), named once for the kernel, libl4 and the tests.  Pecan's additions to the
 * ExchangeRegisters and SpaceControl words are in pecan.h. */
#ifndef L4_CONTROL_H
#define L4_CONTROL_H

#include "types.h"

/* --- ExchangeRegisters: input control word ----------------------------------------- */
#define L4_EXREGS_HALT          0x001u  /* H: with h, halt (1) or resume (0) */
#define L4_EXREGS_ABORT_RECV    0x002u  /* R */
#define L4_EXREGS_ABORT_SEND    0x004u  /* S */
#define L4_EXREGS_SET_SP        0x008u  /* s */
#define L4_EXREGS_SET_IP        0x010u  /* i */
#define L4_EXREGS_SET_FLAGS     0x020u  /* f */
#define L4_EXREGS_SET_HANDLE    0x040u  /* u */
#define L4_EXREGS_SET_PAGER     0x080u  /* p */
#define L4_EXREGS_SET_HALT      0x100u  /* h: apply H */
#define L4_EXREGS_DELIVER       0x200u  /* d */
/* ... output control word: the state before the call. */
#define L4_EXREGS_WAS_HALTED    0x1u
#define L4_EXREGS_WAS_RECEIVING 0x2u
#define L4_EXREGS_WAS_SENDING   0x4u

/* --- Schedule ------------------------------------------------------------------------ */
#define L4_SCHEDULE_NO_CHANGE   (~0ull)         /* any of the four words: leave unchanged */
/* TimeControl: two time periods; 0xFFFF in one half leaves that half unchanged. */
#define L4_TIME_CTL_SLICE_SHIFT 16              /* bits 16-31: time-slice length */
#define L4_TIME_CTL_QUANTUM_SHIFT 0             /* bits 0-15: total quantum */
#define L4_TIME_CTL_KEEP        0xFFFFu
/* PrioControl: bits 0-8; a value above 255 leaves the priority unchanged. */
#define L4_PRIO_CTL_MASK        0x1FFu
#define L4_PRIO_CTL_MAX         255u
/* ProcessorControl: bits 0-15 the processor number. */
#define L4_PROC_CTL_MASK        0xFFFFu
/* PreemptionControl: bits 0-15 the longest delay (us), bits 16-23 the sensitive priority. */
#define L4_PREEMPT_CTL_DELAY_MASK   0xFFFFu
#define L4_PREEMPT_CTL_PRIO_SHIFT   16
#define L4_PREEMPT_CTL_PRIO_MASK    0xFFu
/* Result: the thread's state (§1.8); 0 is the error result. */
#define L4_SCHEDULE_ERROR        0
#define L4_SCHEDULE_DEAD         1
#define L4_SCHEDULE_INACTIVE     2
#define L4_SCHEDULE_RUNNING      3
#define L4_SCHEDULE_PENDING_SEND 4
#define L4_SCHEDULE_SENDING      5
#define L4_SCHEDULE_WAITING      6
#define L4_SCHEDULE_RECEIVING    7

static inline l4_word_t l4_time_control(uint16_t slice, uint16_t quantum)
{
    return ((l4_word_t)slice << L4_TIME_CTL_SLICE_SHIFT) | ((l4_word_t)quantum << L4_TIME_CTL_QUANTUM_SHIFT);
}
static inline uint16_t l4_time_control_slice(l4_word_t tc)   { return (uint16_t)(tc >> L4_TIME_CTL_SLICE_SHIFT); }
static inline uint16_t l4_time_control_quantum(l4_word_t tc) { return (uint16_t)(tc >> L4_TIME_CTL_QUANTUM_SHIFT); }
static inline l4_word_t l4_preemption_control(unsigned sensitive_prio, unsigned max_delay_us)
{
    return ((l4_word_t)(sensitive_prio & L4_PREEMPT_CTL_PRIO_MASK) << L4_PREEMPT_CTL_PRIO_SHIFT) |
           (max_delay_us & L4_PREEMPT_CTL_DELAY_MASK);
}

/* --- Unmap: bits 0-5 k (MR0..MRk hold fpages), bit 6 flush the caller's own too ------- */
#define L4_UNMAP_COUNT_MASK     0x3Fu
#define L4_UNMAP_FLUSH          0x40u

#endif
