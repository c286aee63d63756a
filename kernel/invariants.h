/* Kernel invariants, checked in the debug build only. */
#ifndef INVARIANTS_H
#define INVARIANTS_H

#ifdef CONFIG_INVARIANTS
void invariants_check(const char *where);
#else
static inline void invariants_check(const char *where) { (void)where; }
#endif

#endif
