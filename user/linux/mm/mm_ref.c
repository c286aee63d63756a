/* The lifetime of a struct mm: made empty (with the signal page) by mm_new, shared by
 * reference count (the threads of a process; CLONE_VM), freed with its last reference. */
#include "mm/mm.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"

_Static_assert(sizeof(struct mm) <= 4096, "struct mm comes from kmalloc");

void (*mm_aio_exit)(struct mm *mm);

struct mm *mm_new(void)
{
    struct mm *mm = kmalloc(sizeof(struct mm));
    if (!mm)
        return NULL;
    if (!mm_init(mm)) {
        mm_destroy(mm);
        kfree(mm);
        return NULL;
    }
    mm->users = 1;
    return mm;
}

struct mm *mm_copy(struct mm *src, int *err)
{
    struct mm *mm = kmalloc(sizeof(struct mm));
    *err = mm ? mm_fork(mm, src) : -ENOMEM;
    if (*err) {
        if (mm)
            kfree(mm);
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
    if (mm->aio && mm_aio_exit)
        mm_aio_exit(mm);
    if (space_lives)
        mm_release(mm);
    else
        mm_destroy(mm);
    kfree(mm);
}
