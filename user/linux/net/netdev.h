/* The network devices' ioctls on any socket (netdev.c): lo, the only interface. */
#ifndef LX_NET_NETDEV_H
#define LX_NET_NETDEV_H

#include "task/thread.h"

/* An SIOC*IF* request about an interface: the answer, or -ENOTTY (not one of them). */
long netdev_ioctl(struct thread *t, unsigned cmd, l4_word_t arg);

#endif
