/* Linux's native AIO (fs/aio/aio.c; docs/linux/aio.md): io_setup, io_submit, io_getevents,
 * io_pgetevents, io_cancel, io_destroy.  A context's completion ring is mapped into the
 * process as Linux maps it (struct aio_ring, then the io_events), and its id is the ring's
 * address; the contexts belong to the memory model (Linux's mm->ioctx_table), so a fork child
 * has none and the last reference to the model ends them. */
#ifndef LX_FS_AIO_AIO_H
#define LX_FS_AIO_AIO_H

#include "park/park.h"

struct mm;

long sys_io_setup(struct thread *t, const struct sysargs *a);
long sys_io_destroy(struct thread *t, const struct sysargs *a);
long sys_io_submit(struct thread *t, const struct sysargs *a);
long sys_io_getevents(struct thread *t, const struct sysargs *a);
long sys_io_pgetevents(struct thread *t, const struct sysargs *a);
long sys_io_cancel(struct thread *t, const struct sysargs *a);
/* The end of lx's run (every process has ended): the rings' internal tmpfs goes. */
void aio_shutdown(void);

#endif
