/* The root task: loads boot modules as tasks, pages them, serves the task service. */
#ifndef ROOT_H
#define ROOT_H

#include <libl4.h>

#define MAX_REGIONS  16             /* per loaded task */
#define MAX_DATA     16             /* data modules */

/* Root's own memory: blocks from sigma0 mapped at ROOT_HEAP (root_alloc), at most
 * ROOT_HEAP_SIZE (less with the option pool=N on root's command line, N MiB): as much as a
 * guest has, so that a task's heap= (lx's page pool) can be larger than 1 GiB.  Above the
 * UTCB and KIP areas, below the physical window (its bitmap, MAX_PAGES / 8 bytes of bss, is
 * 512 KiB). */
#define ROOT_HEAP       0x10000000000ul
#define ROOT_HEAP_SIZE  (16ul << 30)

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

/* A task root loaded or created.  Records come from root's pool and go back to it with the
 * task's last thread (task_release). */
struct task {
    bool trusted;                       /* may use the root service */
    l4_word_t tid;                      /* first thread */
    l4_word_t creator;                  /* for service-created tasks: who may delete them */
    struct region *regions;             /* MAX_REGIONS, made with the first (loaded tasks) */
    unsigned nregions;
    struct thread_rec *threads;         /* root's records of its threads */
    unsigned nthreads;
    char name[64];
    uint64_t colours;                   /* colours of every page root gives it (colours=MASK) */
};

/* A thread root created, found from its id in O(1) (threads.c). */
struct thread_rec {
    l4_word_t tid;
    struct task *task;                  /* the task the thread belongs to */
    l4_word_t creator;                  /* who may delete it */
    struct thread_rec *next, *prev;     /* in task->threads */
};

/* A boot module that is a file, not a program (its command line has the word `data`). */
struct data_module {
    l4_word_t name[2];                  /* 16 bytes, NUL-padded, as service names */
    l4_word_t start, size;              /* page-aligned in root's space (its window or heap) */
};

/* memory.c */
void *root_alloc(l4_word_t size);           /* page-aligned, zeroed; NULL if out of memory */
void *root_alloc_page(void);
/* A page whose colour (pagemap.h) is in `colours`; ~0: any page. */
void *root_alloc_coloured_page(uint64_t colours);
void root_free(void *p, l4_word_t size);    /* back to root's pool */
l4_word_t root_pages_used(void);            /* pages handed out */
l4_word_t root_pages_taken(void);           /* pages taken from sigma0 (never returned) */
void root_pool_limit(l4_word_t bytes);      /* at most this much from sigma0 (from boot) */

/* records.c: small records of one size, in pages that go back to the pool when empty */
struct record_page;
struct record_cache {
    unsigned size;                          /* at least 64 bytes: 63 records a page at most */
    struct record_page *open;               /* pages with a free slot */
};
#define RECORD_SIZE(bytes)  ((bytes) < 64 ? 64u : (unsigned)(((bytes) + 15) & ~15ul))
#define RECORD_CACHE(type)  { .size = RECORD_SIZE(sizeof(type)) }
void *record_alloc(struct record_cache *c);     /* zeroed; NULL if out of memory */
void record_free(struct record_cache *c, void *r);

/* tasks.c: task records */
struct task *new_task(void);                /* NULL if out of memory */
struct region *add_region(struct task *t, l4_word_t start, l4_word_t end,
                          l4_word_t backing, unsigned rights, bool owned);
void task_release(struct task *t);          /* frees its memory and its record */
l4_word_t task_count(void);

/* loader.c */
l4_word_t phys_map(l4_word_t start, l4_word_t size);   /* where it is in our space; 0: refused */
struct task *load_module(l4_word_t phys, l4_word_t size, const char *cmdline);
void name_of_path(char *out, size_t n, const char *cmdline);
bool cmdline_has_word(const char *cmdline, const char *word);
l4_word_t cmdline_option(const char *cmdline, const char *key, l4_word_t dflt);

/* data.c */
bool data_add(l4_word_t phys, l4_word_t size, const char *cmdline);
const struct data_module *data_find(l4_word_t a, l4_word_t b);

/* threads.c: thread ids and root's records of its threads */
l4_word_t new_thread_id(void);              /* 0: none left, or out of memory */
void free_thread_id(l4_word_t tid);
bool register_thread(l4_word_t tid, struct task *t, l4_word_t creator);    /* false: no memory */
void forget_thread(struct thread_rec *r);   /* the record and the number go */
struct thread_rec *rec_of(l4_word_t tid);
struct task *task_of_thread(l4_word_t tid);
l4_word_t thread_records(void);
l4_word_t thread_table_pages(void);         /* the number table's pages (kept) */

/* service.c: the request being served */
l4_word_t arg(unsigned i);                  /* MRi, or 0 beyond the request's u */
l4_word_t global(l4_word_t id);             /* a local id names nothing here: 0 */

/* create.c: ROOT_TASK_CREATE for `creator`; an L4 error code, 0 and *tid on success */
l4_word_t task_create(l4_word_t creator, l4_word_t *tid);

/* data.c: ROOT_DATA_MAP */
l4_word_t data_map(struct task *t, l4_word_t a, l4_word_t b, l4_word_t addr, l4_word_t *size);

/* pager.c, service.c */
bool serve_fault(l4_word_t from, l4_word_t tag);       /* true: a reply is composed */
bool serve_request(l4_word_t from, l4_word_t tag);
/* pager.c: ROOT_PAGE_IN (and a fault): a reply mapping t's page at addr, or false and *err */
bool serve_page_in(struct task *t, l4_word_t addr, unsigned access, l4_word_t *err);
/* pager.c: root's page behind `page` of region r, taken on first use for a region without
 * backing (of t's colours); 0: out of memory */
l4_word_t region_page(const struct task *t, struct region *r, l4_word_t page);

#endif
