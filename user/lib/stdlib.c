/* Minimal libc: abort() and the assert() failure path. */
#include <stdlib.h>
#include <stdio.h>
#include <assert.h>
#include <libl4/kdebug.h>
#include <libl4/ipc.h>

void abort(void)
{
    L4_KDB_ENTER("abort() called");
    l4_sleep_forever();
}

void l4lib_assert_fail(const char *expr, const char *file, int line, const char *func)
{
    char msg[256];
    snprintf(msg, sizeof msg, "%s:%d: %s: assertion '%s' failed", file, line, func, expr);
    l4_kdb_enter(msg);
    l4_sleep_forever();
}
