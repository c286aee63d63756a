/* The memory model of one process (mm.c; docs/linux-server.md §4, docs/linux/memory.md):
 * its regions (what may be where, with which rights and backing; a tree, vma.h) and its
 * pages (which of lx's pages backs which user page). */
#ifndef LX_MM_MM_H
#define LX_MM_MM_H

#include "mm/page.h"
#include "mm/vma.h"
#include <libl4.h>
#include <stdbool.h>
#include <stdint.h>

#define LX_USER_END    0x7FFFFFFFF000ul /* Linux's TASK_SIZE on x86-64 (4-level paging) */
#define LX_MMAP_MIN    0x10000ul        /* mmap_min_addr: the KIP and UTCBs live below */

#define PROT_READ   1
#define PROT_WRITE  2
#define PROT_EXEC   4

/* vm.max_map_count (65530, writable in /proc/sys): regions of one process */
extern int vm_max_map_count;
#define LX_MAX_MAP_COUNT ((unsigned long)vm_max_map_count)

struct mm {
    struct vma_tree regions;        /* disjoint, by address (vma.c) */
    unsigned long nregions;         /* Linux's map_count */
    l4_word_t *pgd;                 /* four-level table: user page -> lx's page */
    l4_word_t brk_start, brk;       /* the heap: [brk_start, page-up(brk)) is a region */
    l4_word_t mmap_top;             /* mmap without a hint searches down from here */
    l4_word_t arg_start, arg_end;   /* argv's strings on the initial stack (/proc cmdline) */
    l4_word_t env_start, env_end;   /* envp's (/proc environ) */
    l4_word_t auxv_start, auxv_end; /* the auxiliary vector on the initial stack (cores) */
    unsigned long pages;            /* pages held (leaves of the table) */
    unsigned long tables;           /* nodes of the table */
    unsigned users;                 /* references (mm_ref.c): threads, CLONE_VM */
    void *aio;                      /* its AIO contexts (fs/aio; NULL: none): a fork's child has none */
};

/* struct mm's lifetime (mm_ref.c): a new, empty model with one reference (NULL: no memory);
 * another reference; one less: the last frees everything, with the pages revoked first if the
 * address space lives on (execve), straight back to the pool if it is gone (exit). */
struct mm *mm_new(void);
struct mm *mm_copy(struct mm *src, int *err);   /* fork: mm_fork into a new one; NULL, *err */
void mm_get(struct mm *mm);
void mm_put(struct mm *mm, bool space_lives);
/* Set by fs/aio: the last reference of a model with AIO contexts goes (Linux's exit_aio). */
extern void (*mm_aio_exit)(struct mm *mm);
bool mm_init(struct mm *mm);
void mm_destroy(struct mm *mm);     /* every page back to the pool (the space is gone) */
void mm_release(struct mm *mm);     /* the same while the space lives on: pages revoked */
/* dst (uninitialised) becomes a copy-on-write copy of src: 0 or -ENOMEM (dst empty). */
int mm_fork(struct mm *dst, struct mm *src);
struct region *mm_find(struct mm *mm, l4_word_t addr);
static inline struct region *mm_first(struct mm *mm) { return vma_first(&mm->regions); }
/* Map [start, end) as a new region, replacing whatever was there (MAP_FIXED). */
int mm_map(struct mm *mm, l4_word_t start, l4_word_t end, unsigned prot, l4_word_t fdata,
           l4_word_t fstart, l4_word_t fend);
int mm_unmap(struct mm *mm, l4_word_t start, l4_word_t end);
/* brk growing: anonymous memory at [start, end), joined only to the region below. */
int mm_brk(struct mm *mm, l4_word_t start, l4_word_t end);
int mm_protect(struct mm *mm, l4_word_t start, l4_word_t end, unsigned prot);
/* A free gap of len bytes, searched down from mm->mmap_top; 0 if none. */
l4_word_t mm_find_gap(struct mm *mm, l4_word_t len);
/* Is no page of [start, end) in a region? */
bool mm_range_free(struct mm *mm, l4_word_t start, l4_word_t end);
/* lx's page behind user page `addr` of a region, allocated and filled on first touch;
 * NULL with *err (if err): -ENOMEM when memory is exhausted, -ENOSPC when the mount of the
 * file a shared mapping maps has no room (Linux: SIGBUS), -EFAULT past the file's end. */
void *mm_page(struct mm *mm, struct region *r, l4_word_t addr, int *err);
/* The same for writing: a page this process alone holds (a copy if it was shared; with
 * revoke_old the shared one is also taken out of the process's space). */
void *mm_page_write(struct mm *mm, struct region *r, l4_word_t addr, bool revoke_old,
                    int *err);
/* lx's page behind user page `addr` if the process has it now, else NULL (nothing is made:
 * a core dump skips pages never touched, as Linux's get_dump_page). */
void *mm_page_present(struct mm *mm, l4_word_t addr);
/* May the page be mapped with write rights now (the region allows it, nobody shares it)? */
bool mm_page_writable(const struct region *r, const void *page);
/* Called before a region's reference to the file it maps goes (unmap, exit, exec): SysV
 * shared memory counts its attachments so (ipc/shm.c sets it; NULL: nobody listens). */
struct inode;
extern void (*mm_file_unmapped)(struct inode *i);
/* Set by l4chan: a native window of mm was unmapped (in part or whole). */
extern void (*mm_window_unmapped)(struct mm *mm);
/* --- mm.c: file mappings, mremap, madvise (issue 8 item 2; docs/linux/memory.md) --- */
#define MM_FILE_END (~0ul)          /* fend of a file mapping: the file's own end decides */
/* Map a region built from tmpl (start, end, prot and backing), replacing whatever was in
 * [start, end) (MAP_FIXED); takes a reference to tmpl->file. */
int mm_map_region(struct mm *mm, const struct region *tmpl);
/* Is addr's page of r wholly past the end of the file it maps (a fault there is SIGBUS)? */
bool mm_past_eof(const struct region *r, l4_word_t addr);
/* mremap: 0 with *result the new address, or -errno; flags MREMAP_MAYMOVE/FIXED. */
long mm_remap(struct mm *mm, l4_word_t old, l4_word_t old_len, l4_word_t new_len,
              unsigned flags, l4_word_t new_addr);
/* madvise(MADV_DONTNEED): the private pages of [start, end) go (they refill from their
 * backing, zero for anonymous memory); -ENOMEM if part of the range is unmapped. */
int mm_discard(struct mm *mm, l4_word_t start, l4_word_t end);
/* Is every page of [start, end) in some region? */
bool mm_range_mapped(struct mm *mm, l4_word_t start, l4_word_t end);
/* mincore: does the process have addr's page of r (or, for a file mapping, the file)? */
bool mm_resident(struct mm *mm, const struct region *r, l4_word_t addr);
/* Overcommit as Linux's heuristic: may one request of len bytes be promised at all? */
bool mm_may_commit(l4_word_t len);

#endif
