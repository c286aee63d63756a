/* syscalls/sys_cred.c: identity, groups, capabilities (included by handlers.h) */
#ifndef LX_SYSCALLS_CRED_HANDLERS_H
#define LX_SYSCALLS_CRED_HANDLERS_H

struct thread;
struct sysargs;

long sys_getuid(struct thread *, const struct sysargs *);
long sys_getgid(struct thread *, const struct sysargs *);
long sys_geteuid(struct thread *, const struct sysargs *);
long sys_getegid(struct thread *, const struct sysargs *);
long sys_setuid(struct thread *, const struct sysargs *);
long sys_setgid(struct thread *, const struct sysargs *);
long sys_setreuid(struct thread *, const struct sysargs *);
long sys_setregid(struct thread *, const struct sysargs *);
long sys_setresuid(struct thread *, const struct sysargs *);
long sys_setresgid(struct thread *, const struct sysargs *);
long sys_getresuid(struct thread *, const struct sysargs *);
long sys_getresgid(struct thread *, const struct sysargs *);
long sys_setfsuid(struct thread *, const struct sysargs *);
long sys_setfsgid(struct thread *, const struct sysargs *);
long sys_getgroups(struct thread *, const struct sysargs *);
long sys_setgroups(struct thread *, const struct sysargs *);
long sys_capget(struct thread *, const struct sysargs *);
long sys_capset(struct thread *, const struct sysargs *);

#endif
