/* Native L4 IPC for a thread of a foreign space (a Linux process of lx) through its channel
 * (docs/linux-abi.md §9, docs/linux/l4chan.md).  Freestanding (stdint.h only), so that a Linux
 * program built with glibc or musl and the kernel's own tests include the same code.  The
 * message is MR0-MR7 (MR0 the tag: label << 16 | t << 6 | u, u + t <= 7); every call returns
 * the X.2 ErrorCode word (0: success; the code is (error >> 1) & 7, bit 0 the receive
 * phase).  Without a channel the call is a Linux system call that does not exist: Linux and
 * lx return -ENOSYS (-38). */
#ifndef L4CHAN_H
#define L4CHAN_H

#include <stdint.h>

#define L4CHAN_IPC_NR     0x4C3400ul        /* L4_FOREIGN_IPC_NR, include/l4/pecan.h */
#define L4CHAN_UNMAP_NR   0x4C3401ul        /* L4_FOREIGN_UNMAP_NR */
#define L4CHAN_NILTHREAD  0ul
#define L4CHAN_ANYTHREAD  (~0ul)
#define L4CHAN_NEVER      0x0000u           /* X.2 timeouts (contract §5.5) */
#define L4CHAN_ZERO       0x0400u
#define L4CHAN_NOACCEPT   0ul               /* acceptor: no mappings */

/* lx's side (docs/linux/l4chan.md): open("/dev/l4chan") makes a channel of two ends; ioctl
 * JOIN makes the calling thread one end (the first two callers from two processes) and
 * returns both ids (partner 0 until the other end joined); PEER returns them without joining.
 * Both ends joined, each may reach the other by native IPC until the channel's file is
 * closed for good or either process exits or execs. */
struct l4chan_ends {
    uint64_t self, partner;
};
#define L4CHAN_IOC_JOIN   0x80104C01u       /* _IOR('L', 1, struct l4chan_ends) */
#define L4CHAN_IOC_PEER   0x80104C02u       /* _IOR('L', 2, struct l4chan_ends) */

/* JOIN with the map right: as JOIN, and [base, base + size) becomes the caller's window, the
 * only place native IPC may map into its memory (size a power of two, at least 4 KiB, base
 * aligned to it; exactly one private anonymous mapping of the caller, e.g. mmap PROT_NONE).
 * The channel's ends then may send map items of their own memory (grants: error 4).  EINVAL:
 * no such mapping; EBUSY: the process has another window. */
struct l4chan_join_map {
    uint64_t self, partner;             /* out, as l4chan_ends */
    uint64_t base, size;                /* in: the window */
};
#define L4CHAN_IOC_JOIN_MAP 0xC0204C03u     /* _IOWR('L', 3, struct l4chan_join_map) */
/* Take every mapping out of the caller's window: lx sets the same window again, which the
 * kernel empties first (l4chan_unmap with the flush bit does the same without lx).  EINVAL:
 * no window. */
#define L4CHAN_IOC_UNMAP    0x00004C04u     /* _IO('L', 4) */

/* An fpage (contract §1.2: base aligned to 2^log2size, rights rwx = 4|2|1) and a map item
 * (MR pair: the send base with the type bits 100, then the fpage), for messages of the map
 * right; an acceptor is an fpage too (the kernel cuts it to the receiver's window). */
static inline uint64_t l4chan_fpage(uint64_t base, unsigned log2size, unsigned rights)
{
    return (base & ~((1ull << log2size) - 1)) | (uint64_t)log2size << 4 | (rights & 7);
}
#define L4CHAN_MAP_ITEM(base) (((base) & ~0x3FFull) | 0x8)

/* X.2 error codes ((error >> 1) & 7). */
enum { L4CHAN_ETIMEOUT = 1, L4CHAN_ENOPARTNER = 2, L4CHAN_ECANCELED = 3, L4CHAN_EOVERFLOW = 4,
       L4CHAN_EABORTED = 7 };

static inline uint64_t l4chan_tag(uint64_t label, unsigned u, unsigned t)
{
    return label << 16 | (uint64_t)t << 6 | u;
}

static inline uint64_t l4chan_timeouts(uint16_t snd, uint16_t rcv)
{
    return (uint64_t)snd << 16 | rcv;
}

/* The whole Ipc: send mr to `to` (nilthread: no send), then receive from `from` (a partner,
 * anythread: any partner, nilthread: none) into mr; *sender: who sent it. */
static inline uint64_t l4chan_ipc(uint64_t to, uint64_t from, uint64_t timeouts,
                                  uint64_t acceptor, uint64_t mr[8], uint64_t *sender)
{
    register uint64_t r8 __asm__("r8") = timeouts;
    register uint64_t r9 __asm__("r9") = mr[0];
    register uint64_t r10 __asm__("r10") = mr[3];
    register uint64_t r11 __asm__("r11") = acceptor;
    register uint64_t r12 __asm__("r12") = mr[4];
    register uint64_t r13 __asm__("r13") = mr[5];
    register uint64_t r14 __asm__("r14") = mr[6];
    register uint64_t r15 __asm__("r15") = mr[7];
    uint64_t rax = L4CHAN_IPC_NR, rdi = mr[1], rbx = mr[2], rsi = to, rdx = from, rcx;
    /* RBP carries the acceptor; it is saved below the red zone. */
    __asm__ volatile("leaq -128(%%rsp), %%rsp\n\t"
                     "pushq %%rbp\n\t"
                     "movq %%r11, %%rbp\n\t"
                     "syscall\n\t"
                     "popq %%rbp\n\t"
                     "leaq 128(%%rsp), %%rsp"
                     : "+a"(rax), "+D"(rdi), "+b"(rbx), "+S"(rsi), "+d"(rdx), "=c"(rcx),
                       "+r"(r8), "+r"(r9), "+r"(r10), "+r"(r11), "+r"(r12), "+r"(r13),
                       "+r"(r14), "+r"(r15)
                     :: "memory", "cc");
    mr[0] = r9;  mr[1] = rdi; mr[2] = rbx; mr[3] = r10;
    mr[4] = r12; mr[5] = r13; mr[6] = r14; mr[7] = r15;
    if (sender)
        *sender = rsi;
    return rax;
}

/* X.2 Unmap of the caller's own space (contract 4.4.8), with a channel only: fpage[0..k]
 * (k <= 7) lose the rights their rwx bits name in every mapping derived from the caller's
 * (the pages it mapped to partners), with L4CHAN_UNMAP_FLUSH in the caller's own too (its
 * own pages fault to lx again, which maps them again; its window is emptied).  Each fpage
 * comes back with the access status (r|x: referenced, w: written) in its rwx bits.  Returns
 * 0, or 5 for k > 7 (nothing unmapped); without a channel -ENOSYS (-38), as on Linux. */
#define L4CHAN_UNMAP_FLUSH 0x40u
static inline uint64_t l4chan_unmap(unsigned control, uint64_t fpage[8])
{
    register uint64_t r9 __asm__("r9") = fpage[0];
    register uint64_t r10 __asm__("r10") = fpage[3];
    register uint64_t r12 __asm__("r12") = fpage[4];
    register uint64_t r13 __asm__("r13") = fpage[5];
    register uint64_t r14 __asm__("r14") = fpage[6];
    register uint64_t r15 __asm__("r15") = fpage[7];
    uint64_t rax = L4CHAN_UNMAP_NR, rdi = fpage[1], rbx = fpage[2], rdx = control;
    __asm__ volatile("syscall"
                     : "+a"(rax), "+D"(rdi), "+b"(rbx), "+d"(rdx), "+r"(r9), "+r"(r10),
                       "+r"(r12), "+r"(r13), "+r"(r14), "+r"(r15)
                     :: "rcx", "r11", "memory", "cc");
    fpage[0] = r9;  fpage[1] = rdi; fpage[2] = rbx; fpage[3] = r10;
    fpage[4] = r12; fpage[5] = r13; fpage[6] = r14; fpage[7] = r15;
    return rax;
}

/* String items (long IPC, docs/linux-abi.md 9.2b): the kernel copies a string from the
 * sender's memory into the receiver's buffers in one IPC.  A sender names its strings in its
 * message (a simple string: L4CHAN_STRING_ITEM(length), then the address; u + t <= 7 as
 * always; no map right needed).  A receiver loads its buffers once per thread with
 * l4chan_buffers (words[0..n-1], n <= 8, the same layout: e.g. a buffer of `size` bytes at
 * `addr` is { L4CHAN_STRING_ITEM(size), addr }, n = 2) and then receives with
 * L4CHAN_ACCEPT_STRINGS in its acceptor.  xfer_timeouts: the XferTimeouts of its copies (X.2:
 * send << 16 | receive; 0: never).  Returns 0, 5 for n > 8; -ENOSYS (-38) without a channel.
 * A string longer than the buffer: error 4 (overflow) on both sides, the bytes that fit
 * copied, their count in the error's offset (l4chan_error_offset). */
#define L4CHAN_BUFFERS_NR      0x4C3402ul   /* L4_FOREIGN_BUFFERS_NR */
#define L4CHAN_ACCEPT_STRINGS  1ul
#define L4CHAN_STRING_ITEM(length) ((uint64_t)(length) << 10)  /* one substring, no chain */
#define L4CHAN_STRING_MAX      ((1ul << 22) - 1)               /* bytes per item (X.2) */
static inline uint64_t l4chan_buffers(unsigned n, const uint64_t words[8],
                                      uint64_t xfer_timeouts)
{
    register uint64_t r8 __asm__("r8") = xfer_timeouts;
    register uint64_t r9 __asm__("r9") = words[0];
    register uint64_t r10 __asm__("r10") = words[3];
    register uint64_t r12 __asm__("r12") = words[4];
    register uint64_t r13 __asm__("r13") = words[5];
    register uint64_t r14 __asm__("r14") = words[6];
    register uint64_t r15 __asm__("r15") = words[7];
    uint64_t rax = L4CHAN_BUFFERS_NR, rdi = words[1], rbx = words[2], rdx = n;
    __asm__ volatile("syscall"
                     : "+a"(rax)
                     : "D"(rdi), "b"(rbx), "d"(rdx), "r"(r8), "r"(r9), "r"(r10), "r"(r12),
                       "r"(r13), "r"(r14), "r"(r15)
                     : "rcx", "r11", "memory", "cc");
    return rax;
}

/* The parts of an ErrorCode: the code, whether the receive phase failed, the bytes of
 * strings copied before the error (codes 4-7). */
static inline unsigned l4chan_error_code(uint64_t err) { return (unsigned)(err >> 1) & 7; }
static inline uint64_t l4chan_error_offset(uint64_t err) { return err >> 4; }

static inline uint64_t l4chan_send(uint64_t to, uint64_t mr[8])
{
    return l4chan_ipc(to, L4CHAN_NILTHREAD, 0, L4CHAN_NOACCEPT, mr, 0);
}

static inline uint64_t l4chan_receive(uint64_t from, uint64_t mr[8], uint64_t *sender)
{
    return l4chan_ipc(L4CHAN_NILTHREAD, from, 0, L4CHAN_NOACCEPT, mr, sender);
}

static inline uint64_t l4chan_call(uint64_t to, uint64_t mr[8])
{
    return l4chan_ipc(to, to, 0, L4CHAN_NOACCEPT, mr, 0);
}

/* Reply to `to` (if it waits: zero send timeout), then wait for any partner. */
static inline uint64_t l4chan_reply_wait(uint64_t to, uint64_t mr[8], uint64_t *sender)
{
    return l4chan_ipc(to, L4CHAN_ANYTHREAD, l4chan_timeouts(L4CHAN_ZERO, L4CHAN_NEVER),
                      L4CHAN_NOACCEPT, mr, sender);
}

#endif
