/* A KEY=NUMBER option of the task's command line (the start record's), for the tasks of
 * docs/cache-partitioning.md. */
#ifndef RT_OPTION_H
#define RT_OPTION_H

#include <libl4.h>
#include <stdlib.h>
#include <string.h>

static inline l4_word_t rt_option(const char *key, l4_word_t dflt)
{
    const char *line = l4_task_cmdline();
    size_t n = strlen(key);
    for (const char *p = line; (p = strstr(p, key)); p++)
        if ((p == line || p[-1] == ' ') && p[n] == '=')
            return strtoul(p + n + 1, NULL, 0);
    return dflt;
}

#endif
