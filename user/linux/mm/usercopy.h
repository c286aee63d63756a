/* The one checked path to process memory (usercopy.c): every pointer a process passes is
 * checked against its memory model; a bad one is -EFAULT, never a fault of lx. */
#ifndef LX_MM_USERCOPY_H
#define LX_MM_USERCOPY_H

#include "mm/mm.h"
#include <libl4.h>
#include <stdbool.h>
#include <stddef.h>

/* Linux's access_ok: could [addr, addr + n) be user memory at all (below TASK_SIZE, no
 * wrap)?  Every call that moves bytes checks its whole range first, before any byte moves. */
static inline bool access_ok(l4_word_t addr, size_t n)
{
    return n <= LX_USER_END && addr <= LX_USER_END - n;
}

int copy_from_user(struct mm *mm, void *dst, l4_word_t src, size_t n);    /* 0 or -EFAULT */
int copy_to_user(struct mm *mm, l4_word_t dst, const void *src, size_t n);
/* A NUL-terminated string of at most max bytes (with the NUL): its length, -EFAULT, or
 * -ENAMETOOLONG when the first max bytes hold no NUL. */
long strncpy_from_user(struct mm *mm, char *dst, l4_word_t src, size_t max);
/* Linux's strnlen_user: the length of the string at src with its NUL; 0 if it is not
 * readable up to its NUL; more than max when its first max bytes hold no NUL. */
long strnlen_user(struct mm *mm, l4_word_t src, size_t max);

#endif
