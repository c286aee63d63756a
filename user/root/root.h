/* The root task: loads boot modules as tasks, pages them, serves the task service. */
#ifndef ROOT_H
#define ROOT_H

#include <libl4.h>

#define MAX_TASKS    1024           /* as many as thread numbers (threads.c); a 4 MiB kernel
                                       pool holds about 100 spaces */
#define MAX_REGIONS  16
#define MAX_DATA     16             /* data modules */

/* Root's own memory: blocks from sigma0 mapped at ROOT_HEAP (root_alloc), at most
 * ROOT_HEAP_SIZE. */
#define ROOT_HEAP       0x40000000ul
#define ROOT_HEAP_SIZE  (1ul << 30)

/* Boot-loader memory (modules, boot information) at ROOT_PHYS_WINDOW + its physical address
 * (phys_map); the window covers the kernel's physmap (512 GiB). */
#define ROOT_PHYS_WINDOW       0x100000000000ul
#define ROOT_PHYS_WINDOW_SIZE  (512ul << 30)

/* Where a loaded task's stack, start record and heap go (docs/root-task.md). */
#define TASK_STACK_TOP   0x7FFF0000ul       /* the start record is the page above it */
#define TASK_STACK_SIZE  (256ul << 10)
#define TASK_HEAP_BASE   0x100000000ul
#define TASK_KIP_AREA    0xBFF00000ul
#define TASK_UTCB_AREA   0xBF000000ul
#define TASK_UTCB_LOG2   18

/* A piece of a task's address space backed by root's memory at `backing` (0: anonymous,
 * backed page by page on first touch).  `owned`: the backing is root_alloc'd for this task
 * and goes back to the pool with it (a data module's pages do not). */
struct region {
    l4_word_t start, end;
    l4_word_t backing;
    uint32_t *anon;                     /* anonymous: per-page backing, lazily (pager.c) */
    unsigned rights;
    bool owned;
};

struct task {
    bool used, trusted;                 /* trusted: may use the root service */
    l4_word_t tid;                      /* first thread */
    l4_word_t creator;                  /* for service-created tasks: who may delete them */
    struct region regions[MAX_REGIONS];
    unsigned nregions;
    char name[64];
};

extern struct task tasks[MAX_TASKS];

/* A boot module that is a file, not a program (its command line has the word `data`). */
struct data_module {
    l4_word_t name[2];                  /* 16 bytes, NUL-padded, as service names */
    l4_word_t start, size;              /* page-aligned in root's space (its window or heap) */
};

/* memory.c */
void *root_alloc(l4_word_t size);           /* page-aligned, zeroed; NULL if out of memory */
void *root_alloc_page(void);
void root_free(void *p, l4_word_t size);    /* back to root's pool */
l4_word_t root_pages_used(void);            /* pages handed out */
l4_word_t root_pages_taken(void);           /* pages taken from sigma0 (never returned) */

/* loader.c */
l4_word_t phys_map(l4_word_t start, l4_word_t size);   /* where it is in our space; 0: refused */
struct task *load_module(l4_word_t phys, l4_word_t size, const char *cmdline);
struct task *task_of(l4_word_t tid);
struct region *add_region(struct task *t, l4_word_t start, l4_word_t end,
                          l4_word_t backing, unsigned rights, bool owned);
void task_release(struct task *t);          /* frees its memory and its slot */
void name_of_path(char *out, size_t n, const char *cmdline);
bool cmdline_has_word(const char *cmdline, const char *word);

/* data.c */
bool data_add(l4_word_t phys, l4_word_t size, const char *cmdline);
const struct data_module *data_find(l4_word_t a, l4_word_t b);

/* threads.c */
l4_word_t new_thread_id(void);
void free_thread_id(l4_word_t tid);

/* service.c: which task a thread belongs to (root's records) */
bool register_thread(l4_word_t tid, struct task *t, l4_word_t creator);    /* false: table full */
struct task *task_of_thread(l4_word_t tid);

/* service.c: the request being served */
l4_word_t arg(unsigned i);                  /* MRi, or 0 beyond the request's u */
l4_word_t global(l4_word_t id);             /* a local id names nothing here: 0 */

/* create.c: ROOT_TASK_CREATE for `creator`; an L4 error code, 0 and *tid on success */
l4_word_t task_create(l4_word_t creator, l4_word_t *tid);
struct task *new_task(void);

/* data.c: ROOT_DATA_MAP */
l4_word_t data_map(struct task *t, l4_word_t a, l4_word_t b, l4_word_t addr, l4_word_t *size);

/* pager.c, service.c */
bool serve_fault(l4_word_t from, l4_word_t tag);       /* true: a reply is composed */
bool serve_request(l4_word_t from, l4_word_t tag);

#endif
