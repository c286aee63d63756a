/* The regions of a process (its mappings, Linux's VMAs) in address order: an AVL tree whose
 * nodes are the regions themselves (vma.c, docs/linux/memory.md §1).  Lookup by address,
 * insertion and removal cost O(log n); in-order steps are O(1) amortised; the highest free
 * gap of a given size below a bound (mmap without a hint) is O(log n), found through a
 * summary each node keeps of its subtree.
 *
 * Self-contained (no lx or L4 header) so that tests/host can compile vma.c alone. */
#ifndef LX_VMA_H
#define LX_VMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct inode;

struct region {
    uint64_t start, end;            /* [start, end), page-aligned: the tree's key */
    /* Backing: bytes of the region at [fstart, fend) come from lx's address
     * fdata + (addr - fstart) (an ELF image in memory), or from the tmpfs file `file` at
     * offset foff + (addr - fstart) (mmap of a file); the rest is zero (bss, anonymous
     * memory).  fdata 0 and file NULL: anonymous, and fstart is where Linux's vm_pgoff
     * would put page 0 (0 for memory never moved by mremap; regions join only if it is
     * the same).  The window is absolute, so a split keeps it; a file region holds a
     * reference to its inode. */
    uint64_t fdata, fstart, fend;
    struct inode *file;
    uint64_t foff;
    unsigned prot;                  /* PROT_* */
    uint32_t anon;                  /* Linux's anon_vma: 0 until a private page of it is
                                       first written, then an identity that splits keep;
                                       regions with two different ones never join */
    bool shared;                    /* MAP_SHARED: anonymous, fork shares it, never copies;
                                       of a file, the file's own pages (writes reach it) */
    bool bus_past_eof;              /* mmap of a file: a page wholly past its end: SIGBUS */
    bool no_write;                  /* MAP_SHARED of a file not open for writing: mprotect
                                       to PROT_WRITE is EACCES */
    bool accounted;                 /* Linux's VM_ACCOUNT: private memory that was promised
                                       (writable at mmap, or made so); it stays after
                                       mprotect takes the write right away */
    bool noreserve;                 /* MAP_NORESERVE (VM_NORESERVE): never promised */
    bool native_window;             /* /dev/l4chan's window (docs/linux/l4chan.md): only
                                       native IPC maps here; lx never does (faults: SIGSEGV) */
    /* --- the tree (vma.c): valid while the region is in one; a copy is no member --- */
    struct region *left, *right, *parent;
    uint64_t sub_start, sub_end;    /* the lowest start and highest end in its subtree */
    uint64_t sub_gap;               /* the largest gap between two regions of its subtree */
    int height;                     /* of its subtree: 1 for a leaf */
};

struct vma_tree {
    struct region *root;
};

/* The region that contains addr, or NULL. */
struct region *vma_find(const struct vma_tree *t, uint64_t addr);
/* The first region that ends above addr (the one containing it, else the next), or NULL. */
struct region *vma_from(const struct vma_tree *t, uint64_t addr);
struct region *vma_first(const struct vma_tree *t);
struct region *vma_last(const struct vma_tree *t);
struct region *vma_next(const struct region *r);
struct region *vma_prev(const struct region *r);
/* Put r (disjoint from every region of t) into t. */
void vma_insert(struct vma_tree *t, struct region *r);
void vma_remove(struct vma_tree *t, struct region *r);
/* Empty t in O(n), handing each region to gone (its links no longer valid). */
void vma_drain(struct vma_tree *t, void (*gone)(struct region *r));
/* r's start or end moved without passing a neighbour: the summaries above it are redone. */
void vma_resized(struct vma_tree *t, struct region *r);
/* The highest a with [a, a + len) inside [lo, hi) and no region in it: true and *at, or
 * false if there is none (len 0: none). */
bool vma_gap_down(const struct vma_tree *t, uint64_t lo, uint64_t hi, uint64_t len,
                  uint64_t *at);

#endif
