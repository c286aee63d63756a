/* Intrusive doubly-linked lists: a head pointer and, in each node, the two link fields named
 * by the caller (a node can be on several lists through different fields).  Two shapes:
 * lists that end in NULL (LIST_*: a space's threads, every thread), and rings, whose last
 * node links back to the first (RING_*: the ready queues of sched.c and the send queues of
 * ipc.c, which take from the head and append at the tail, head->prev). */
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

/* Append node n to the ring `head` (n is the whole ring if it was empty). */
#define RING_APPEND(head, n, next, prev)        \
    do {                                        \
        if (!(head)) {                          \
            (n)->next = (n)->prev = (n);        \
            (head) = (n);                       \
        } else {                                \
            (n)->next = (head);                 \
            (n)->prev = (head)->prev;           \
            (head)->prev->next = (n);           \
            (head)->prev = (n);                 \
        }                                       \
    } while (0)

/* Take node n, which is on the ring `head`, off it (the head moves on if n was the head;
 * NULL if n was alone); n's links become NULL, the mark of a node on no ring. */
#define RING_REMOVE(head, n, next, prev)        \
    do {                                        \
        if ((n)->next == (n)) {                 \
            (head) = NULL;                      \
        } else {                                \
            (n)->prev->next = (n)->next;        \
            (n)->next->prev = (n)->prev;        \
            if ((head) == (n))                  \
                (head) = (n)->next;             \
        }                                       \
        (n)->next = (n)->prev = NULL;           \
    } while (0)

#endif
