/* Intrusive doubly-linked lists ending in NULL: a head pointer and, in each node, the two
 * link fields named by the caller (a node can be on several lists through different
 * fields).  The circular ready and send queues (sched.c, ipc.c) are another shape. */
#ifndef LIST_H
#define LIST_H

/* Put node n at the front of the list `head`. */
#define LIST_PUSH(head, n, next, prev)          \
    do {                                        \
        (n)->prev = NULL;                       \
        (n)->next = (head);                     \
        if ((n)->next)                          \
            (n)->next->prev = (n);              \
        (head) = (n);                           \
    } while (0)

/* Take node n out of the list `head` (its own links are left as they were). */
#define LIST_UNLINK(head, n, next, prev)        \
    do {                                        \
        if ((n)->prev)                          \
            (n)->prev->next = (n)->next;        \
        else                                    \
            (head) = (n)->next;                 \
        if ((n)->next)                          \
            (n)->next->prev = (n)->prev;        \
    } while (0)

#endif
