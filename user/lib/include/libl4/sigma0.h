/* libl4: client of the sigma0 protocol (contract §6.6). */
#ifndef LIBL4_SIGMA0_H
#define LIBL4_SIGMA0_H

#include <l4/types.h>
#include <l4/fpage.h>
#include <l4/message.h>
#include "kip.h"

/* sigma0's label: -6 in 48 bits (request MR0 0xFFFFFFFFFFA00002). */
#define L4_SIGMA0_LABEL 0xFFFFFFFFFFA0ull

/* Request exactly `fpage` (base = physical address, size; rights ignored, sigma0 gives rwx)
 * with memory attribute 0.  BR0 is set to rcv_window for the call (and restored after).
 * Returns the fpage sigma0 mapped (MR2 of the reply) or L4_NILPAGE on refusal or IPC error. */
l4_word_t l4_sigma0_get_page(l4_word_t sigma0, l4_word_t fpage, l4_word_t rcv_window);
/* The same with memory attributes (MR2 of the request, see L4_MEMATTR_*). */
l4_word_t l4_sigma0_get_page_attr(l4_word_t sigma0, l4_word_t fpage, l4_word_t attributes,
                                  l4_word_t rcv_window);
/* Any free, naturally aligned block of 2^log2size bytes of conventional memory. */
l4_word_t l4_sigma0_get_any(l4_word_t sigma0, unsigned log2size, l4_word_t rcv_window);
/* I/O ports: io_fpage is an I/O fpage (l4_io_fpage); the acceptor only has to be non-nil
 * (the kernel ignores the window for I/O fpages).  Returns the I/O fpage or L4_NILPAGE. */
l4_word_t l4_sigma0_get_ports(l4_word_t sigma0, l4_word_t io_fpage);

/* The "any page" request fpage: base bits 10-63 all ones. */
static inline l4_word_t l4_sigma0_any_fpage(unsigned log2size)
{
    return (~0ull << 10) | ((l4_word_t)(log2size & 0x3F) << 4) | L4_RWX;
}

/* sigma0's thread id: (UserBase, 1) from the KIP. */
static inline l4_word_t l4_sigma0_id(void) { return l4_sigma0_tid(); }

#endif
