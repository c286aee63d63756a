/* Intrusive doubly linked lists: a struct list is both a list's head and a node's link (in
 * the object that is on the list).  A node that is on no list points at itself, so removal
 * is idempotent and "is it on a list?" is one compare. */
#ifndef LX_LIB_LIST_H
#define LX_LIB_LIST_H

#include <stdbool.h>
#include <stddef.h>

struct list {
    struct list *next, *prev;
};

#define container_of(p, type, member) ((type *)((char *)(p) - offsetof(type, member)))
#define LIST_INIT(name) { &(name), &(name) }

static inline void list_init(struct list *l)
{
    l->next = l->prev = l;
}

static inline bool list_empty(const struct list *l)
{
    return l->next == l;
}

/* n is on some list (a node initialised with list_init, or removed, is on none). */
static inline bool list_linked(const struct list *n)
{
    return n->next != n;
}

static inline void list_insert(struct list *n, struct list *prev, struct list *next)
{
    n->prev = prev;
    n->next = next;
    prev->next = n;
    next->prev = n;
}

static inline void list_add_tail(struct list *head, struct list *n)
{
    list_insert(n, head->prev, head);
}

static inline void list_add_head(struct list *head, struct list *n)
{
    list_insert(n, head, head->next);
}

static inline void list_del(struct list *n)
{
    n->prev->next = n->next;
    n->next->prev = n->prev;
    list_init(n);
}

#define list_entry(p, type, member) container_of(p, type, member)
#define list_first(head, type, member) \
    (list_empty(head) ? (type *)NULL : list_entry((head)->next, type, member))

/* Each entry of head; e may not be removed in the body (list_each_safe may). */
#define list_each(e, head, member)                                                        \
    for (e = list_entry((head)->next, __typeof__(*e), member); &e->member != (head);      \
         e = list_entry(e->member.next, __typeof__(*e), member))
#define list_each_safe(e, n, head, member)                                                \
    for (e = list_entry((head)->next, __typeof__(*e), member),                            \
         n = list_entry(e->member.next, __typeof__(*e), member);                          \
         &e->member != (head);                                                            \
         e = n, n = list_entry(n->member.next, __typeof__(*e), member))

#endif
