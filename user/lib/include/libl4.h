/* libl4: everything a native Pecan program needs (contract-level definitions from
 * include/l4/ and the user-level library). */
#ifndef LIBL4_H
#define LIBL4_H

#include <l4/types.h>
#include <l4/thread.h>
#include <l4/fpage.h>
#include <l4/time.h>
#include <l4/message.h>
#include <l4/utcb.h>
#include <l4/kip.h>
#include <l4/pecan.h>

#include <libl4/kip.h>
#include <libl4/utcb.h>
#include <libl4/syscall.h>
#include <libl4/ipc.h>
#include <libl4/sigma0.h>
#include <libl4/kdebug.h>
#include <libl4/task.h>
#include <libl4/serial.h>

#endif
