/* A test's probe of lx's own pages under kernel-memory exhaustion (oom_probe.c). */
#ifndef LX_MM_OOM_PROBE_H
#define LX_MM_OOM_PROBE_H

#include <libl4.h>

/* `oomprobe=OFFSET` on lx's command line: at the first refusal of a process's page by the
 * kernel, lx touches a page of each kind of its own (oom_probe.c).  0: off. */
extern l4_word_t oom_probe_offset;
void oom_probe(void);

#endif
