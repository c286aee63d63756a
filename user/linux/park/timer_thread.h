/* The timer thread (timer_thread.c): it makes lx's deadlines fire, so that the main thread's
 * receive loop never waits with a timeout (issue 13 item 7). */
#ifndef LX_PARK_TIMER_THREAD_H
#define LX_PARK_TIMER_THREAD_H

#include <libl4.h>
#include <stdbool.h>

void timer_thread_init(void);       /* lx's start, before the first process */
/* A message from the timer thread?  (Its tick: lx_work is set; no reply now.) */
bool timer_thread_message(l4_word_t from, l4_word_t tag);
void timer_thread_work(void);       /* the loop's work: fire what is due after a tick */
/* The loop's work is done: answer the tick with the next deadline, or tell the thread an
 * earlier one; clobbers the MRs. */
void timer_thread_answer(void);

#endif
