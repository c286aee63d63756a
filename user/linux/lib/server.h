/* lx as an L4 server: what its own threads (the console's input thread, and the layers
 * that make tasks with lx as their pager) need to know of it. */
#ifndef LX_LIB_SERVER_H
#define LX_LIB_SERVER_H

#include <libl4.h>

extern l4_word_t lx_self;           /* lx's main thread, the receive loop's (main.c) */

#endif
