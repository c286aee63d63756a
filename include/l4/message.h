/* Message tags (MR0, contract §1.4), typed items (§1.5), acceptor (§1.6) and IPC error codes (§1.7). */
#ifndef L4_MESSAGE_H
#define L4_MESSAGE_H

#include "types.h"

#define L4_MR_COUNT 64
#define L4_BR_COUNT 33

/* --- Message tag ------------------------------------------------------------------- */
#define L4_TAG_U_MASK      0x3Full
#define L4_TAG_T_SHIFT     6
#define L4_TAG_T_MASK      (0x3Full << 6)
#define L4_TAG_P           (1ull << 12)    /* propagated */
#define L4_TAG_R           (1ull << 13)    /* redirected */
#define L4_TAG_X           (1ull << 14)    /* crossed processors */
#define L4_TAG_E           (1ull << 15)    /* error */
#define L4_TAG_FLAGS       (L4_TAG_P | L4_TAG_R | L4_TAG_X | L4_TAG_E)
#define L4_TAG_LABEL_SHIFT 16

static inline unsigned  l4_tag_u(l4_word_t tag)     { return (unsigned)(tag & 0x3F); }
static inline unsigned  l4_tag_t(l4_word_t tag)     { return (unsigned)((tag >> 6) & 0x3F); }
static inline l4_word_t l4_tag_label(l4_word_t tag) { return tag >> 16; }
static inline l4_word_t l4_tag_make(l4_word_t label, unsigned u, unsigned t)
{
    return (label << 16) | ((l4_word_t)(t & 0x3F) << 6) | (u & 0x3F);
}

/* Protocol labels are -k << 4 in 48 bits; MR0 with bits 0-19 masked equals -k << 20. */
#define L4_PROTO(k)            ((l4_word_t)(-(int64_t)(k)) << 20)
#define L4_PROTO_MASK          (~0xFFFFFull)
#define L4_PROTO_INTERRUPT     L4_PROTO(1)
#define L4_PROTO_PAGEFAULT     L4_PROTO(2)
#define L4_PROTO_PREEMPTION    L4_PROTO(3)
#define L4_PROTO_EXCEPTION     L4_PROTO(5)
#define L4_PROTO_SIGMA0        L4_PROTO(6)
#define L4_PROTO_IO_PAGEFAULT  L4_PROTO(8)
#define L4_PROTO_SIGMA0_EXT    L4_PROTO(1001)

static inline bool l4_tag_is_proto(l4_word_t tag, l4_word_t proto)
{
    return (tag & L4_PROTO_MASK) == proto;
}

/* --- Kernel messages: the MRs after MR0 (contract §6.1, §6.2, §6.4) ----------------- */
/* Page fault (and I/O page fault, §6.7): label PAGEFAULT | access bits, u = 2. */
#define L4_PF_ACCESS_SHIFT     16          /* rwx in the label: MR0 bits 16-18 */
enum l4_pagefault_mr { L4_PF_ADDR = 1, L4_PF_IP = 2, L4_PF_WORDS = L4_PF_IP };
static inline l4_word_t l4_pagefault_tag(l4_word_t proto, unsigned access)
{
    return proto | ((l4_word_t)(access & 7) << L4_PF_ACCESS_SHIFT) | L4_PF_WORDS;
}
static inline unsigned l4_pagefault_access(l4_word_t tag) { return (unsigned)(tag >> L4_PF_ACCESS_SHIFT) & 7; }
/* Exception: label EXCEPTION, u = 20 (Pecan sends the error code, §6.2).  The reply's
 * MR1..MR18 set the registers; MR19 and MR20 are ignored. */
enum l4_exception_mr {
    L4_EXC_RIP = 1, L4_EXC_RBX, L4_EXC_R10, L4_EXC_R12, L4_EXC_R13, L4_EXC_R14, L4_EXC_R15,
    L4_EXC_RAX, L4_EXC_RCX, L4_EXC_RDX, L4_EXC_RSI, L4_EXC_RDI, L4_EXC_RBP, L4_EXC_R8,
    L4_EXC_R9, L4_EXC_R11, L4_EXC_RSP, L4_EXC_RFLAGS,
    L4_EXC_REGS = L4_EXC_RFLAGS,           /* the registers a reply sets */
    L4_EXC_VECTOR, L4_EXC_ERROR,
    L4_EXC_WORDS = L4_EXC_ERROR
};
/* Preemption (to the scheduler): label PREEMPTION, u = 2; the time fault (total quantum
 * exhausted, Pecan) adds a third word. */
enum l4_preemption_mr {
    L4_PREEMPTION_CLOCK = 1, L4_PREEMPTION_CLOCK_HIGH, L4_PREEMPTION_WORDS = L4_PREEMPTION_CLOCK_HIGH,
    L4_PREEMPTION_TIMEFAULT, L4_TIMEFAULT_WORDS = L4_PREEMPTION_TIMEFAULT
};

/* --- Typed items ------------------------------------------------------------------- */
#define L4_ITEM_C          1ull            /* continued (receive buffers) */
#define L4_ITEM_TYPE(w)    (((w) >> 1) & 7)
#define L4_ITEM_MAP        4               /* 100 */
#define L4_ITEM_GRANT      5               /* 101 */
#define L4_ITEM_CTRLXFER   6               /* not on amd64: invalid */
#define L4_ITEM_RESERVED   7

static inline bool l4_item_is_string(l4_word_t w0) { return (w0 & 8) == 0; }
static inline bool l4_item_is_map(l4_word_t w0)    { return L4_ITEM_TYPE(w0) == L4_ITEM_MAP; }
static inline bool l4_item_is_grant(l4_word_t w0)  { return L4_ITEM_TYPE(w0) == L4_ITEM_GRANT; }
static inline l4_word_t l4_map_item_sndbase(l4_word_t w0) { return w0 & ~0x3FFull; }
static inline l4_word_t l4_map_item(l4_word_t sndbase) { return (sndbase & ~0x3FFull) | 0x8; }
static inline l4_word_t l4_grant_item(l4_word_t sndbase) { return (sndbase & ~0x3FFull) | 0xA; }

/* String item word 0: bits 4-8 j (substrings - 1), bit 9 compound, bits 10-63 length. */
static inline unsigned  l4_string_substrings(l4_word_t w0) { return (unsigned)((w0 >> 4) & 0x1F) + 1; }
static inline bool      l4_string_compound(l4_word_t w0)   { return (w0 >> 9) & 1; }
static inline l4_word_t l4_string_length(l4_word_t w0)     { return w0 >> 10; }
static inline l4_word_t l4_string_item(l4_word_t length, unsigned substrings, bool compound)
{
    return (length << 10) | ((l4_word_t)compound << 9) | ((l4_word_t)((substrings - 1) & 0x1F) << 4);
}

/* --- Acceptor (BR0) ---------------------------------------------------------------- */
#define L4_ACCEPT_STRINGS  1ull
static inline l4_word_t l4_acceptor_window(l4_word_t br0) { return br0 & ~0xFull; }

/* --- IPC error codes (ErrorCode after MR0.e = 1) ------------------------------------ */
#define L4_IPC_ERR_RECEIVE_PHASE   1ull
#define L4_IPC_TIMEOUT             1
#define L4_IPC_NOPARTNER           2
#define L4_IPC_CANCELED            3
#define L4_IPC_OVERFLOW            4
#define L4_IPC_XFER_TIMEOUT_OWN    5
#define L4_IPC_XFER_TIMEOUT_PEER   6
#define L4_IPC_ABORTED             7

static inline l4_word_t l4_ipc_error(unsigned code, bool receive_phase, l4_word_t offset)
{
    return (offset << 4) | ((l4_word_t)(code & 7) << 1) | (receive_phase ? 1 : 0);
}
static inline unsigned  l4_ipc_error_code(l4_word_t ec)   { return (unsigned)((ec >> 1) & 7); }
static inline bool      l4_ipc_error_is_rcv(l4_word_t ec) { return ec & 1; }
static inline l4_word_t l4_ipc_error_offset(l4_word_t ec) { return ec >> 4; }

/* --- Error codes of the other system calls ----------------------------------------- */
#define L4_ERR_OK               0
#define L4_ERR_NO_PRIVILEGE     1
#define L4_ERR_INVALID_THREAD   2
#define L4_ERR_INVALID_SPACE    3
#define L4_ERR_INVALID_SCHED    4
#define L4_ERR_INVALID_PARAM    5
#define L4_ERR_UTCB_AREA        6
#define L4_ERR_KIP_AREA         7
#define L4_ERR_NO_MEM           8

#endif
