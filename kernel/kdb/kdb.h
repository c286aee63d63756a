/* The kernel debugger on the serial console. */
#ifndef KDB_H
#define KDB_H

#include "types.h"

struct frame;
void kdb_init(void);
/* Enter the debugger: interactive, or in batch mode (kernel option "kdb=batch", used by the
 * tests) print the state and end the QEMU run with a failure status. */
void kdb_enter(const char *reason, struct frame *f);
bool kdb_batch(void);

#endif
