/* Linux's error numbers (asm-generic/errno-base.h, errno.h), each once: handlers return
 * -E..., which the process sees in RAX. */
#ifndef LX_LIB_ERRNO_H
#define LX_LIB_ERRNO_H

#define EPERM         1
#define ENOENT        2
#define ESRCH         3
#define EINTR         4
#define EIO           5
#define ENXIO         6
#define E2BIG         7
#define ENOEXEC       8
#define EBADF         9
#define ECHILD       10
#define EAGAIN       11
#define ENOMEM       12
#define EACCES       13
#define EFAULT       14
#define EBUSY        16
#define EEXIST       17
#define EXDEV        18
#define ENODEV       19
#define ENOTDIR      20
#define EISDIR       21
#define EINVAL       22
#define ENFILE       23
#define EMFILE       24
#define ENOTTY       25
#define EFBIG        27
#define ENOSPC       28
#define ESPIPE       29
#define EROFS        30
#define EMLINK       31
#define EPIPE        32
#define ERANGE       34
#define ENOMSG       42
#define EIDRM        43
#define EDEADLK      35
#define ENAMETOOLONG 36
#define ENOLCK       37
#define ENOSYS       38
#define ENOTEMPTY    39
#define ELOOP        40
#define ENODATA      61
#define ENOPKG       65
#define EOVERFLOW    75
#define EOPNOTSUPP   95
#define ETIMEDOUT    110
#define ECANCELED    125

/* Linux's internal codes for an interrupted call (include/linux/errno.h), never seen by a
 * process: the signal layer turns them into EINTR or a restart. */
#define ERESTARTSYS    512          /* restart if the handler has SA_RESTART (or none ran) */
#define ERESTARTNOINTR 513          /* always restart */
#define ERESTARTNOHAND 514          /* restart only if no handler ran */
#define ERESTART_RESTARTBLOCK 516   /* restart_syscall(2) only if no handler ran: the thread's
                                       restart block says how to go on (park/park.h) */

#endif
