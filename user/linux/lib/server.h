/* lx as an L4 server: what its own threads (the console's input thread, the timer thread, and
 * the layers that make tasks with lx as their pager) need to know of it. */
#ifndef LX_LIB_SERVER_H
#define LX_LIB_SERVER_H

#include <libl4.h>
#include <stdbool.h>

extern l4_word_t lx_self;           /* lx's main thread, the receive loop's (main.c) */
/* The receive loop has work besides answering the message (woken calls, signals to take to
 * threads it does not hold, ended processes to free, deadlines): one test per message. */
extern bool lx_work;
/* A thread of lx's own (server.c): UTCB slot utcb, priority prio, running fn on the stack
 * below stack_top; its global id, or 0 with *err. */
l4_word_t lx_thread_start(l4_word_t utcb, l4_word_t prio, void *stack_top, void (*fn)(void),
                          l4_word_t *err);

#endif
