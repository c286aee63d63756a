/* Reading and writing user memory through the page tables (the kernel never dereferences user
 * addresses, so it cannot fault on them, and SMAP stays on without exceptions). */
#ifndef UACCESS_H
#define UACCESS_H

#include "types.h"

struct space;
/* Copy n bytes from va in s; false if any byte is not mapped readable. */
bool uread(struct space *s, word_t va, void *buf, size_t n);
bool uwrite(struct space *s, word_t va, const void *buf, size_t n);
/* Copy a NUL-terminated string (at most max - 1 bytes); returns its length, or -1 if it runs
 * into unmapped memory (buf then holds what was readable). */
long ustrncpy(struct space *s, word_t va, char *buf, size_t max);

#endif
