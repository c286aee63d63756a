/* /dev/l4chan: channels of native L4 IPC between two Linux processes (docs/linux/l4chan.md). */
#ifndef LX_L4CHAN_H
#define LX_L4CHAN_H

struct process;

void l4chan_register(void);                 /* the character device (fs/dev) */
/* p exits or execs: its ends leave their channels, and the partners lose it. */
void l4chan_process_leave(struct process *p);

#endif
