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

#endif
