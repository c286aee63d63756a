/* Agents: threads in their own address spaces that perform memory operations on command, so
 * that a test can build and inspect mapping chains between spaces.  Every agent has the test
 * program's image mapped (see testutil) and the test's main thread as its pager.  Addresses in
 * the probe region that are not mapped fault to the main thread, whose agent_pager maps a
 * "marker" page there, so a read of an unmapped probe address returns AGENT_MARKER. */
#ifndef AGENT_H
#define AGENT_H

#include <libl4.h>

#define PROBE_BASE    0x60000000ul      /* where agents receive mappings */
#define AGENT_MARKER  0x4D41524B45520000ul

enum agent_cmd {
    AG_READ = 1,        /* (addr) -> value */
    AG_WRITE,           /* (addr, value) -> 0, or a write fault recorded by the pager */
    AG_ACCEPT,          /* (from, window) : wait for a map/grant message from `from`; reply to main after */
    AG_MAP_TO,          /* (to, sndbase, fpage, grant) : send a map or grant item */
    AG_UNMAP,           /* (fpage, flush) -> status fpage */
    AG_INB,             /* (port) -> value */
    AG_INL,             /* (port) -> value (a 32-bit in, possibly misaligned) */
};

l4_word_t agent_start(void);
l4_word_t agent_call(l4_word_t agent, enum agent_cmd cmd, l4_word_t a, l4_word_t b, l4_word_t c,
                     l4_word_t d);
/* The main thread's pager loop while an agent command runs: serves image faults (testutil),
 * maps the marker page for probe faults (counting write faults), until the agent replies. */
extern unsigned agent_write_faults, agent_read_faults;
/* Have `from` send a mapping to `to` (both agents, or from = main: 0). */
l4_word_t agent_map(l4_word_t from, l4_word_t to, l4_word_t sndbase, l4_word_t fpage,
                    l4_word_t window, bool grant);

#endif
