/* libl4: the UTCB of the current thread (contract §3).  %gs:0 holds the address of MR0,
 * which is also the thread's local id.  All accesses are volatile: the kernel writes MRs,
 * ErrorCode etc. during system calls, so values must never be cached across them. */
#ifndef LIBL4_UTCB_H
#define LIBL4_UTCB_H

#include <stdint.h>
#include <l4/types.h>
#include <l4/utcb.h>

/* Constant for a given thread, so the compiler may reuse it within a function. */
static inline l4_word_t *l4_utcb(void)
{
    l4_word_t *p;
    __asm__("movq %%gs:0, %0" : "=r"(p));
    return p;
}

/* Word idx relative to MR0 (negative indices are the TCRs and BRs, include/l4/utcb.h). */
static inline l4_word_t l4_utcb_word(int idx)              { return ((volatile l4_word_t *)l4_utcb())[idx]; }
static inline void      l4_utcb_set_word(int idx, l4_word_t v) { ((volatile l4_word_t *)l4_utcb())[idx] = v; }

/* Message registers MR0..MR63 and buffer registers BR0..BR32. */
static inline l4_word_t l4_mr(int i)                { return l4_utcb_word(L4_UTCB_MR(i)); }
static inline void      l4_set_mr(int i, l4_word_t v) { l4_utcb_set_word(L4_UTCB_MR(i), v); }
static inline l4_word_t l4_br(int i)                { return l4_utcb_word(L4_UTCB_BR(i)); }
static inline void      l4_set_br(int i, l4_word_t v) { l4_utcb_set_word(L4_UTCB_BR(i), v); }

/* --- thread control registers (§3.2) ------------------------------------------------- */
static inline l4_word_t l4_my_global_id(void) { return l4_utcb_word(L4_UTCB_MY_GLOBAL_ID); }
/* The local id is the UTCB pointer itself (not stored in the UTCB). */
static inline l4_word_t l4_my_local_id(void)  { return (l4_word_t)l4_utcb(); }
static inline l4_word_t l4_processor_no(void) { return l4_utcb_word(L4_UTCB_PROCESSOR_NO); }

static inline l4_word_t l4_user_handle(void)              { return l4_utcb_word(L4_UTCB_USER_HANDLE); }
static inline void      l4_set_user_handle(l4_word_t v)   { l4_utcb_set_word(L4_UTCB_USER_HANDLE, v); }
static inline l4_word_t l4_pager(void)                    { return l4_utcb_word(L4_UTCB_PAGER); }
static inline void      l4_set_pager(l4_word_t v)         { l4_utcb_set_word(L4_UTCB_PAGER, v); }
static inline l4_word_t l4_exception_handler(void)        { return l4_utcb_word(L4_UTCB_EXC_HANDLER); }
static inline void      l4_set_exception_handler(l4_word_t v) { l4_utcb_set_word(L4_UTCB_EXC_HANDLER, v); }

/* Byte 0 of the flags word: PreemptFlags (L4_PREEMPT_*); byte 1: CopFlags. */
static inline volatile uint8_t *l4_utcb_flag_bytes(void)
{
    return (volatile uint8_t *)&l4_utcb()[L4_UTCB_FLAGS];
}
static inline uint8_t l4_preempt_flags(void)          { return l4_utcb_flag_bytes()[0]; }
static inline void    l4_set_preempt_flags(uint8_t f) { l4_utcb_flag_bytes()[0] = f; }
static inline uint8_t l4_cop_flags(void)              { return l4_utcb_flag_bytes()[1]; }
static inline void    l4_set_cop_flags(uint8_t f)     { l4_utcb_flag_bytes()[1] = f; }

/* Valid only after a system call that reported failure (§1.7). */
static inline l4_word_t l4_error_code(void) { return l4_utcb_word(L4_UTCB_ERROR_CODE); }

/* Bits 0-15 receive-transfer timeout, bits 16-31 send-transfer timeout. */
static inline l4_word_t l4_xfer_timeouts(void)            { return l4_utcb_word(L4_UTCB_XFER_TIMEOUTS); }
static inline void      l4_set_xfer_timeouts(l4_word_t v) { l4_utcb_set_word(L4_UTCB_XFER_TIMEOUTS, v); }

static inline l4_word_t l4_intended_receiver(void) { return l4_utcb_word(L4_UTCB_INTENDED_RCV); }
/* One word: written by the user before a propagating send (VirtualSender), by the kernel on
 * a propagated receive (ActualSender). */
static inline void      l4_set_virtual_sender(l4_word_t v) { l4_utcb_set_word(L4_UTCB_VIRT_ACT_SENDER, v); }
static inline l4_word_t l4_virtual_sender(void)            { return l4_utcb_word(L4_UTCB_VIRT_ACT_SENDER); }
static inline l4_word_t l4_actual_sender(void)             { return l4_utcb_word(L4_UTCB_VIRT_ACT_SENDER); }

/* ThreadWord0/1: free for user-level runtimes; the kernel never touches them. */
static inline l4_word_t l4_thread_word(int i)
{
    return l4_utcb_word(i ? L4_UTCB_THREAD_WORD1 : L4_UTCB_THREAD_WORD0);
}
static inline void l4_set_thread_word(int i, l4_word_t v)
{
    l4_utcb_set_word(i ? L4_UTCB_THREAD_WORD1 : L4_UTCB_THREAD_WORD0, v);
}

#endif
