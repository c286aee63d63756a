/* Kernel invariants, checked in the debug build only. */
#ifndef INVARIANTS_H
#define INVARIANTS_H

struct tcb;

#ifdef CONFIG_INVARIANTS
void invariants_check(const char *where);
void invariants_paint_stack(struct tcb *t);
unsigned long invariants_deepest_stack(void);
#else
static inline void invariants_check(const char *where) { (void)where; }
static inline void invariants_paint_stack(struct tcb *t) { (void)t; }
#endif

#endif
