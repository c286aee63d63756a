/* lx's own threads besides the main one (the console's input thread, the timer thread): made
 * in lx's space through the root task, with lx's pager, started at fn on their own stack. */
#include "lib/server.h"

l4_word_t lx_thread_start(l4_word_t utcb, l4_word_t prio, void *stack_top, void (*fn)(void),
                          l4_word_t *err)
{
    l4_word_t t = l4_root_call(ROOT_THREAD_CREATE, lx_self, l4_pager(), utcb, prio, err);
    if (!t || *err)
        return 0;
    l4_start_sp_ip(t, (l4_word_t)stack_top - 8, (l4_word_t)fn);
    return t;
}
