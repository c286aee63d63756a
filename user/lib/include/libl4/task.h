/* Tasks started by the root task: the start record, and the root task's service protocol
 * (docs/root-task.md). */
#ifndef LIBL4_TASK_H
#define LIBL4_TASK_H

#include <l4/types.h>

/* The root task starts a boot module with RSP pointing at this record (crt0 keeps it). */
#define L4_TASK_START_MAGIC 0x314E43504B534154ull       /* "TASKPCN1" */
#define L4_TASK_CMDLINE_MAX 256

struct l4_task_start {
    l4_word_t magic;
    l4_word_t root;                     /* the root task's service thread */
    l4_word_t heap_base, heap_size;     /* anonymous memory the root task pages on demand */
    char cmdline[L4_TASK_CMDLINE_MAX];  /* the module's command line (path and arguments) */
};

/* NULL when the program was not started by the root task (e.g. it is the root task). */
const struct l4_task_start *l4_task_start(void);
const char *l4_task_cmdline(void);

/* --- the root task's service (labels of a Call to l4_task_start()->root) --------------------
 * Replies carry the result in MR1 (a thread id, a size, or 0) and an L4 error code in MR2.
 * Argument words beyond the request's u read as 0.  Thread ids in requests are global ids.
 * Only tasks the root task started from boot modules (trusted servers) may use it, except
 * ROOT_NAME_LOOKUP, which any task may use; tasks created through the service are not
 * trusted.  A thread or task can be deleted only by its creator.  docs/root-task.md has the
 * exact protocol. */
#define ROOT_TASK_CREATE    0x7201  /* MR1 pager (not nil), MR2 priority, MR3 flags
                                     * (ROOT_TASK_*), MR4 KIP area and MR5 UTCB area (fpages;
                                     * 0: the defaults below), MR6 exception handler (0: none;
                                     * needs MR8), MR7 redirector (0: none), MR8 IP and MR9 SP
                                     * (IP 0: the thread waits for its start message from the
                                     * pager; else the root task starts it) -> MR1 the new
                                     * space's only thread, its UTCB at the UTCB area's base */
#define ROOT_TASK_FOREIGN   0x1     /* the foreign system-call ABI (docs/linux-abi.md) */
#define ROOT_TASK_CONFINED  0x2     /* the pager is the redirector (MR7 0 or the pager) */
#define ROOT_THREAD_CREATE  0x7202  /* MR1 a thread of the target space (the caller's or one
                                     * it created), MR2 pager, MR3 UTCB location (in a foreign
                                     * task any in its area, the same for every thread), MR4
                                     * priority -> MR1 thread id (waiting for its start
                                     * message) */
#define ROOT_THREAD_DELETE  0x7203  /* MR1 thread (the last thread of a space ends the space) */
#define ROOT_IRQ_ATTACH     0x7204  /* MR1 interrupt line, MR2 handler thread (the caller's
                                     * space): associate; MR2 = 0: detach */
#define ROOT_NAME_REGISTER  0x7205  /* MR1, MR2 a name (16 bytes, NUL-padded), MR3 thread:
                                     * publish a service (trusted tasks only; a name
                                     * belongs to the task that published it first) */
#define ROOT_NAME_LOOKUP    0x7206  /* MR1, MR2 a name -> MR1 its thread; the reply waits
                                     * until the name is registered (any task may look up) */
#define ROOT_TASK_DELETE    0x7207  /* MR1 any thread of a task the caller created: all its
                                     * threads, its space and what the root task held for it */
#define ROOT_DATA_MAP       0x7208  /* MR1, MR2 a data module's name, MR3 address (page-
                                     * aligned) or 0 -> MR1 its size; with an address, the
                                     * module appears there read-only (paged by the root task) */
#define ROOT_MEMORY_INFO    0x7209  /* -> MR1 root's pages in use, MR3 pages it took from
                                     * sigma0, MR4 tasks, MR5 thread records, MR6 the pages
                                     * of MR1 its thread-number table keeps */
#define ROOT_TASK_CHANNEL   0x720A  /* MR1 a thread of a foreign task the caller created, MR2
                                     * L4_SPACE_CTL_CHAN_* bits, MR3 the partner: a thread
                                     * of a task the caller created or of its own (anythread
                                     * with REVOKE: all) -> that task's channel set changed
                                     * (docs/linux-abi.md §9) */

/* Areas of a foreign task when MR4/MR5 are 0: the KIP below 64 KiB, where Linux never maps
 * anything (mmap_min_addr), page 0 left empty.  A foreign task's UTCBs are the kernel's and
 * not in its address space (docs/linux-abi.md, section 2.1): its UTCB area only names the
 * locations, takes no addresses, and serves any number of threads.  Other tasks: KIP
 * 0xBFF00000, UTCB area 0xBF000000 (256 KiB, 256 UTCBs). */
#define ROOT_FOREIGN_KIP_AREA   (0x1000ul | (12ul << 4))        /* fpage 0x1000, 4 KiB */
#define ROOT_FOREIGN_UTCB_AREA  (0x8000ul | (15ul << 4))        /* fpage 0x8000, 32 KiB */

/* Client side (task.c): the root task's service thread from the start record. */
l4_word_t l4_root_call(l4_word_t label, l4_word_t a, l4_word_t b, l4_word_t c, l4_word_t d,
                       l4_word_t *error);
/* The same with n argument words (n <= 16). */
l4_word_t l4_root_call_n(l4_word_t label, unsigned n, const l4_word_t *words, l4_word_t *error);
l4_word_t l4_name_lookup(const char *name);     /* waits until it is registered */
bool l4_name_register(const char *name, l4_word_t thread);

struct l4_task_params {
    l4_word_t pager, priority, flags;
    l4_word_t kip_area, utcb_area;      /* fpages; 0: the defaults */
    l4_word_t exception_handler;        /* 0: none (a foreign thread's exceptions go to its pager) */
    l4_word_t redirector;               /* 0: none */
    l4_word_t ip, sp;                   /* ip 0: the pager sends the start message */
};
l4_word_t l4_task_create(const struct l4_task_params *p, l4_word_t *error);
/* A data module's size (addr 0), or map it read-only at addr; 0 with *error set on failure. */
l4_word_t l4_data_map(const char *name, l4_word_t addr, l4_word_t *error);

#endif
