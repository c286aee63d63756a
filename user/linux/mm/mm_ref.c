/* The lifetime of a struct mm: made empty (with the signal page) by mm_new, shared by
 * reference count (the threads of a process; CLONE_VM), freed with its last reference.
 * struct mm holds its regions in place, more than a page: it comes from a run of pages. */
#include "mm/mm.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"

#define MM_PAGES ((sizeof(struct mm) + LX_PAGE - 1) / LX_PAGE)
_Static_assert(MM_PAGES <= PAGE_RUN_MAX, "struct mm fits a run of pages");

static struct mm *mm_alloc(void)
{
    return sizeof(struct mm) <= LX_PAGE ? kmalloc(sizeof(struct mm))
                                        : page_alloc_run((unsigned)MM_PAGES);
}

static void mm_free(struct mm *mm)
{
    if (sizeof(struct mm) <= LX_PAGE)
        kfree(mm);
    else
        page_free_run(mm, (unsigned)MM_PAGES);
}

struct mm *mm_new(void)
{
    struct mm *mm = mm_alloc();
    if (!mm)
        return NULL;
    if (!mm_init(mm)) {
        mm_destroy(mm);
        mm_free(mm);
        return NULL;
    }
    mm->users = 1;
    return mm;
}

struct mm *mm_copy(struct mm *src, int *err)
{
    struct mm *mm = mm_alloc();
    *err = mm ? mm_fork(mm, src) : -ENOMEM;
    if (*err) {
        if (mm)
            mm_free(mm);
        return NULL;
    }
    mm->users = 1;
    return mm;
}

void mm_get(struct mm *mm)
{
    mm->users++;
}

void mm_put(struct mm *mm, bool space_lives)
{
    if (--mm->users)
        return;
    if (space_lives)
        mm_release(mm);
    else
        mm_destroy(mm);
    mm_free(mm);
}
