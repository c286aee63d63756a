/* The socket calls (sys_socket.c), for the table. */
#ifndef LX_SYSCALLS_SYS_SOCKET_H
#define LX_SYSCALLS_SYS_SOCKET_H

#include "park/park.h"

struct thread;

long sys_socket(struct thread *, const struct sysargs *);
long sys_connect(struct thread *, const struct sysargs *);
long sys_accept(struct thread *, const struct sysargs *);
long sys_sendto(struct thread *, const struct sysargs *);
long sys_recvfrom(struct thread *, const struct sysargs *);
long sys_sendmsg(struct thread *, const struct sysargs *);
long sys_recvmsg(struct thread *, const struct sysargs *);
long sys_shutdown(struct thread *, const struct sysargs *);
long sys_bind(struct thread *, const struct sysargs *);
long sys_listen(struct thread *, const struct sysargs *);
long sys_getsockname(struct thread *, const struct sysargs *);
long sys_getpeername(struct thread *, const struct sysargs *);
long sys_socketpair(struct thread *, const struct sysargs *);
long sys_setsockopt(struct thread *, const struct sysargs *);
long sys_getsockopt(struct thread *, const struct sysargs *);
long sys_accept4(struct thread *, const struct sysargs *);
long sys_recvmmsg(struct thread *, const struct sysargs *);
long sys_sendmmsg(struct thread *, const struct sysargs *);

#endif
