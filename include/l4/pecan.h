/* Pecan's extensions to the X.2 binary interface (docs/linux-abi.md): the foreign system-call
 * ABI, through which a personality server (user/linux) runs programs of another operating
 * system whose `syscall` instructions become IPC. */
#ifndef L4_PECAN_H
#define L4_PECAN_H

#include <l4/message.h>

/* SpaceControl's control word (RSI).  Bit 63 applies bits 0-62; without it (every X.2
 * program passes 0) nothing changes.  The old control word comes back in RDX. */
#define L4_SPACE_CTL_APPLY     (1ull << 63)
#define L4_SPACE_CTL_FOREIGN   (1ull << 0)     /* foreign system-call ABI for the space */

/* The foreign system-call message a thread of such a space sends its pager when it executes
 * `syscall` outside the KIP stubs: MR0 = L4_PROTO_FOREIGN_SYSCALL | u (u = 17), then the
 * registers in this order.  The pager's reply with u = k sets the registers of MR1..MRk (in
 * the same order) and the thread continues after its `syscall` with RCX = RIP and
 * R11 = RFLAGS, as Linux returns; u = 0 changes nothing. */
#define L4_PROTO_FOREIGN_SYSCALL  L4_PROTO(10)
enum l4_foreign_mr {
    L4_FSC_RAX = 1, L4_FSC_RDI, L4_FSC_RSI, L4_FSC_RDX, L4_FSC_R10, L4_FSC_R8, L4_FSC_R9,
    L4_FSC_RIP, L4_FSC_RSP, L4_FSC_RFLAGS, L4_FSC_RBX, L4_FSC_RBP, L4_FSC_R12, L4_FSC_R13,
    L4_FSC_R14, L4_FSC_R15, L4_FSC_FS_BASE,
    L4_FSC_WORDS = L4_FSC_FS_BASE               /* u of the message */
};

/* ExchangeRegisters' control word (RSI), bits X.2 leaves ignored (docs/x2-deviations.md):
 * every thread owns an FS and a GS base (new threads: FS 0, GS the page whose word 0 is the
 * UTCB pointer, %gs:0).  Set FS from R12, set GS from R13; with GET_BASES the bases from
 * before the call come back in R12 and R13 (without it R12 and R13 are left alone, as X.2
 * programs expect).  A non-canonical base fails the call: result nilthread, ErrorCode 5
 * (invalid parameter), nothing changed. */
#define L4_EXREGS_SET_FS_BASE  (1ull << 14)
#define L4_EXREGS_SET_GS_BASE  (1ull << 15)
#define L4_EXREGS_GET_BASES    (1ull << 16)

#endif
