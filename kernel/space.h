/* Address spaces. */
#ifndef SPACE_H
#define SPACE_H

#include "types.h"
#include "arch.h"
#include <l4/pecan.h>

struct tcb;
struct iospace;

struct space {
    struct arch_space arch;     /* page tables, PCID (api/arch.h) */
    bool privileged;            /* may use ThreadControl, SpaceControl, ... (initial servers) */
    bool sigma0;                /* the identity-mapped space of sigma0 */
    bool foreign;               /* foreign system-call ABI (docs/linux-abi.md); fixed once a
                                 * thread of the space is active */
    bool ipc_slow;              /* redirector or foreign: IPC from here takes the C path
                                 * (the fast path tests this one byte) */
    word_t kip_area;            /* fpage; 0 while the space is not initialised */
    word_t utcb_area;           /* fpage; in a foreign space only the valid UTCB locations */
    word_t foreign_handler;     /* global id: receives the kernel messages of its threads */
    word_t redirector;          /* global id or nilthread (Manual §5.10, contract decision 5) */
    struct channel_partner {    /* foreign: whom its threads may reach by IPC (channel.c) */
        word_t gid;
        bool map;               /* map and grant items allowed both ways */
    } chan[L4_CHANNEL_PARTNERS];
    unsigned nchan;
    word_t chan_window;         /* foreign: the fpage native receives map into (nil: none) */
    unsigned nthreads;
    struct tcb *threads;        /* list through tcb->space_next/prev */
    struct iospace *io;         /* I/O permissions (NULL: no ports) */
};

extern struct space *sigma0_space;
extern struct space kernel_space;

void space_init_kernel(void);
struct space *space_create(void);                       /* NULL on out of memory */
void space_destroy(struct space *s);
/* SpaceControl's initialisation: map the KIP, record the areas. Returns an L4 error code. */
int space_setup_areas(struct space *s, word_t kip_area, word_t utcb_area);
/* SpaceControl (contract §4.4.9; Pecan's control word, docs/linux-abi.md) by `self`, ids
 * already global: validates and allocates first (an error changes nothing), then applies.
 * Returns an L4_ERR_* code; *old_ctl is the old control word either way. */
word_t space_control(struct tcb *self, word_t spec, word_t ctl, word_t kip_area,
                     word_t utcb_area, word_t redirector, word_t handler, word_t *old_ctl);
bool space_initialised(const struct space *s);
bool space_in_kip_area(const struct space *s, word_t va, word_t size);
/* Whether [va, va + size) overlaps the UTCB area of an ordinary space: the kernel's there
 * (a foreign space's UTCB area reserves no addresses, docs/linux-abi.md §2). */
bool space_in_utcb_area(const struct space *s, word_t va, word_t size);
/* Memory for the UTCB of a thread being activated at `location` in s, as the kernel reaches
 * it: in an ordinary space the page of the UTCB area, backed now unless it is; in a foreign
 * space the thread's own, mapped nowhere.  NULL if memory ran out (then nothing changed but
 * page tables).  The last fallible step of an activation. */
void *space_utcb_alloc(struct space *s, word_t location);
/* The UTCB of a thread of s that is deleted (what space_utcb_alloc gave it). */
void space_utcb_free(struct space *s, void *utcb);
/* Empty the UTCB area before the foreign bit changes (no thread of s is active): UTCB
 * pages left by deleted threads, or the program's mappings there.  Cannot fail. */
void space_clear_utcb_area(struct space *s);
void space_add_thread(struct space *s, struct tcb *t);
void space_remove_thread(struct space *s, struct tcb *t);
/* Recompute ipc_slow after the redirector changed. */
void space_update_ipc_slow(struct space *s);

#endif
