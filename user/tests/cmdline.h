/* The root task's own command line, from the boot information (first module record). */
#ifndef CMDLINE_H
#define CMDLINE_H

#include <libl4.h>

void cmdline_init(void);
const char *cmdline(void);
/* The value of word "key=value" as a number, or dflt. */
l4_word_t cmdline_value(const char *key, l4_word_t dflt);
bool cmdline_flag(const char *word);

#endif
