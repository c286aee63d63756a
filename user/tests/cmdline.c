/* The root task's command line: the boot information lists the root task's module first. */
#include "cmdline.h"
#include <string.h>
#include <stdlib.h>

static char line[256];

void cmdline_init(void)
{
    l4_word_t bi = l4_kip_boot_info();
    if (!bi)
        return;
    /* The page is boot-loader memory: ask sigma0 for it (identity-mapped). */
    l4_sigma0_get_page(l4_sigma0_tid(), l4_fpage_log2(bi & ~0xFFFul, 12) | L4_RWX,
                       l4_fpage_log2(bi & ~0xFFFul, 12));
    const struct l4_bootinfo *h = (const struct l4_bootinfo *)bi;
    if (h->magic != L4_BOOTINFO_MAGIC || !h->num_entries)
        return;
    const struct l4_bootrec *r = (const struct l4_bootrec *)(bi + h->first_entry);
    if (r->type != L4_BOOTREC_MODULE)
        return;
    const struct l4_bootrec_module *m = (const void *)r;
    if (m->cmdline_offset)
        strncpy(line, (const char *)m + m->cmdline_offset, sizeof(line) - 1);
}

const char *cmdline(void)
{
    return line;
}

static const char *find_word(const char *w)
{
    size_t n = strlen(w);
    for (const char *p = line; (p = strstr(p, w)); p += n)
        if ((p == line || p[-1] == ' ') && (p[n] == '=' || p[n] == ' ' || p[n] == 0))
            return p;
    return NULL;
}

l4_word_t cmdline_value(const char *key, l4_word_t dflt)
{
    const char *p = find_word(key);
    if (!p || p[strlen(key)] != '=')
        return dflt;
    return strtoul(p + strlen(key) + 1, NULL, 0);
}

bool cmdline_flag(const char *word)
{
    return find_word(word) != NULL;
}
