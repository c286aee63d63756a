/* I/O ports as fpages (contract §6.7): per-space permissions derived by map and grant. */
#ifndef IOSPACE_H
#define IOSPACE_H

#include "types.h"

struct space;

/* sigma0 owns every port. */
bool iospace_init_sigma0(struct space *s);
/* Map (or grant) the ports of I/O fpage `fp` that src holds to dst.  False: out of memory. */
bool iospace_map(struct space *src, struct space *dst, word_t fp, bool grant);
/* Unmap: revoke the ports of `fp` from everything derived from s (and from s if own). */
void iospace_unmap(struct space *s, word_t fp, bool own);
bool iospace_has(struct space *s, unsigned port, unsigned count);
void iospace_destroy(struct space *s);
/* Port nodes alive in the whole system / held by s (tests, kernel debugger). */
word_t iospace_node_count(void);
word_t iospace_space_nodes(const struct space *s);
/* The invariants of s's nodes (top of iospace.c), with the bitmap against the nodes if
 * `bitmap`: NULL, or what is broken. */
const char *iospace_check(const struct space *s, bool bitmap);

#endif
