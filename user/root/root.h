/* The root task: loads boot modules as tasks, pages them, serves the task service. */
#ifndef ROOT_H
#define ROOT_H

#include <libl4.h>

#define MAX_TASKS    32
#define MAX_REGIONS  16

/* Root's own memory: blocks from sigma0 mapped at ROOT_HEAP (root_alloc). */
#define ROOT_HEAP    0x40000000ul

/* Where a loaded task's stack, start record and heap go (docs/root-task.md). */
#define TASK_STACK_TOP   0x7FFF0000ul       /* the start record is the page above it */
#define TASK_STACK_SIZE  (256ul << 10)
#define TASK_HEAP_BASE   0x100000000ul
#define TASK_KIP_AREA    0xBFF00000ul
#define TASK_UTCB_AREA   0xBF000000ul
#define TASK_UTCB_LOG2   18

/* A piece of a task's address space backed by root's memory at `backing` (0: anonymous,
 * backed page by page on first touch). */
struct region {
    l4_word_t start, end;
    l4_word_t backing;
    uint8_t *anon;                      /* anonymous: per-page backing addresses, lazily */
    unsigned rights;
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

/* memory.c */
void *root_alloc(l4_word_t size);           /* page-aligned, zeroed; NULL if out of memory */
void *root_alloc_page(void);

/* loader.c */
struct task *load_module(l4_word_t start, l4_word_t size, const char *cmdline);
struct task *task_of(l4_word_t tid);

/* threads.c */
l4_word_t new_thread_id(void);
void free_thread_id(l4_word_t tid);

/* service.c: which task a thread belongs to (root's records) */
bool register_thread(l4_word_t tid, struct task *t, l4_word_t creator);    /* false: table full */
struct task *task_of_thread(l4_word_t tid);

/* pager.c, service.c */
bool serve_fault(l4_word_t from, l4_word_t tag);       /* true: a reply is composed */
bool serve_request(l4_word_t from, l4_word_t tag);

#endif
