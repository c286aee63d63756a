/* Pecan's extensions to the X.2 binary interface (docs/linux-abi.md): the foreign system-call
 * ABI, through which a personality server (user/linux) runs programs of another operating
 * system whose `syscall` instructions become IPC to it. */
#ifndef L4_PECAN_H
#define L4_PECAN_H

#include <l4/message.h>

/* SpaceControl's control word (RSI).  Bit 63 applies bits 0-62; without it (every X.2
 * program passes 0) nothing changes.  The old control word comes back in RDX. */
#define L4_SPACE_CTL_APPLY     (1ull << 63)
#define L4_SPACE_CTL_FOREIGN   (1ull << 0)     /* foreign system-call ABI, handler in R10 */

/* Channels (docs/linux-abi.md §9): SpaceControl with bit 62 (and 63 clear) changes only the
 * set of threads the foreign space's threads may reach by native IPC; R10 names the partner
 * (a global id; anythread with REVOKE: all of them). */
#define L4_SPACE_CTL_CHANNEL     (1ull << 62)
#define L4_SPACE_CTL_CHAN_REVOKE (1ull << 1)   /* remove the partner (else add or update it) */
#define L4_SPACE_CTL_CHAN_MAP    (1ull << 2)   /* map and grant items allowed with it */
#define L4_SPACE_CTL_CHAN_WINDOW (1ull << 3)   /* R10 an fpage (nilpage: none): the only place
                                                  native receives accept mappings into */
#define L4_CHANNEL_PARTNERS      8             /* partners per space */

/* Native IPC of a thread of a foreign space whose channel set is not empty: `syscall` with
 * this RAX (a number Linux does not assign: -ENOSYS there) is an X.2 Ipc with the registers
 * RSI to, RDX FromSpecifier, R8 timeouts, R9 MR0, RDI MR1, RBX MR2, R10 MR3, R12-R15
 * MR4-MR7, RBP the acceptor.  Returns RAX = the ErrorCode (0: none), R9 MR0, RDI MR1, RBX,
 * R10, R12-R15 MR2-MR7, RSI the sender's global id; RCX and R11 as `syscall` leaves them;
 * every other register is kept.  At most MR0-MR7 travel (u + t <= 7). */
#define L4_FOREIGN_IPC_NR        0x4C3400ul
#define L4_FOREIGN_IPC_MRS       8
/* Native Unmap, on the same condition: X.2 Unmap (contract 4.4.8) of the caller's own space,
 * RDX the control word (k = bits 0-5 at most 7: MR0-MR7, the f bit 6 allowed), the fpages in
 * native IPC's MR registers (R9, RDI, RBX, R10, R12-R15), each returned with its access
 * status.  RAX returns 0, or L4_ERR_INVALID_PARAM (5) for k > 7 (nothing unmapped). */
#define L4_FOREIGN_UNMAP_NR      0x4C3401ul
/* Receive buffers for string items (long IPC), on the same condition: RDX = n, the number of
 * buffer words (n <= 8), loaded from native IPC's MR registers (R9, RDI, RBX, R10, R12-R15)
 * into BR1..BRn of the thread's kernel-held UTCB (BRn+1 becomes 0, which ends any chain);
 * R8 the XferTimeouts word (X.2: send << 16 | receive) of the thread's string copies.  A native
 * receive then accepts strings when its acceptor (RBP) has bit 0 (L4_ACCEPT_STRINGS) set.
 * Returns RAX = 0, or L4_ERR_INVALID_PARAM (5) for n > 8 (nothing changed); every other
 * register is kept. */
#define L4_FOREIGN_BUFFERS_NR    0x4C3402ul
#define L4_FOREIGN_BUFFER_WORDS  8

/* Kernel messages of a thread of a foreign space, all sent to the space's handler as a Call
 * on the thread's behalf (the thread waits for the reply). */
#define L4_PROTO_FOREIGN_SYSCALL    L4_PROTO(10)    /* `syscall`: the compact message */
#define L4_PROTO_FOREIGN_EXCEPTION  L4_PROTO(11)    /* a CPU exception other than #PF */
#define L4_PROTO_FOREIGN_INTERRUPT  L4_PROTO(12)    /* the handler interrupted the thread */
#define L4_PROTO_FOREIGN_REGS       L4_PROTO(13)    /* the answer to L4_FOREIGN_GET_REGS */

/* The foreign system-call message: u = 10, the Linux argument registers first. */
enum l4_foreign_syscall_mr {
    L4_FSC_RAX = 1, L4_FSC_RDI, L4_FSC_RSI, L4_FSC_RDX, L4_FSC_R10, L4_FSC_R8, L4_FSC_R9,
    L4_FSC_RIP, L4_FSC_RSP, L4_FSC_RFLAGS,
    L4_FSC_WORDS = L4_FSC_RFLAGS
};

/* The register set (exception, interrupt and register messages; the SET_REGS reply):
 * MR1..MR18 in the order of the X.2 exception message (contract §6.2), then the FS and GS
 * bases.  An exception message adds the vector, the error code and the fault address. */
enum l4_foreign_reg_mr {
    L4_FREG_RIP = 1, L4_FREG_RBX, L4_FREG_R10, L4_FREG_R12, L4_FREG_R13, L4_FREG_R14,
    L4_FREG_R15, L4_FREG_RAX, L4_FREG_RCX, L4_FREG_RDX, L4_FREG_RSI, L4_FREG_RDI,
    L4_FREG_RBP, L4_FREG_R8, L4_FREG_R9, L4_FREG_R11, L4_FREG_RSP, L4_FREG_RFLAGS,
    L4_FREG_FS_BASE, L4_FREG_GS_BASE,
    L4_FREG_WORDS = L4_FREG_GS_BASE,
    L4_FEXC_VECTOR = L4_FREG_WORDS + 1, L4_FEXC_ERROR, L4_FEXC_ADDR,
    L4_FEXC_WORDS = L4_FEXC_ADDR
};

/* The label of the handler's reply to any of these messages (and to a page fault of a
 * foreign thread). */
#define L4_FOREIGN_RESUME    0   /* syscall: RAX = MR1 if u >= 1; otherwise no change */
#define L4_FOREIGN_SET_REGS  1   /* MR1..MRu (u <= 20) set the register set in its order */
#define L4_FOREIGN_GET_REGS  2   /* answered by an L4_PROTO_FOREIGN_REGS message */
#define L4_FOREIGN_YIELD     3   /* syscall: as RESUME, then the thread yields: it goes to the
                                    end of its priority's ready queue (ThreadSwitch(nil)) */
/* A page fault of a foreign thread raised during a string copy (its faulting IP is
 * L4_XFER_FAULT_IP, contract 5.7) answered with any label but RESUME (lx: this one) is refused:
 * the copy, and the IPC, end with message overflow (4) at the current offset. */
#define L4_FOREIGN_FAULT_REFUSED 4
#define L4_XFER_FAULT_IP         (~0ul)

/* ExchangeRegisters' control word: a foreign space's handler may name threads of that space
 * (not only of its own); bit 17 with bit 18 sets (or clears) a pending interrupt, which the
 * thread delivers as an L4_PROTO_FOREIGN_INTERRUPT message before it next runs user code.
 * Output bit 3: an interrupt was pending. */
#define L4_EXREGS_INTERRUPT        (1ul << 17)
#define L4_EXREGS_APPLY_INTERRUPT  (1ul << 18)
#define L4_EXREGS_OUT_INTERRUPT    (1ul << 3)

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
