/* libl4: KIP feature strings (contract §2.4). */
#include <libl4/kip.h>
#include <string.h>

const char *l4_kip_feature(unsigned i)
{
    const char *s = l4_kip_version_string();
    s += strlen(s) + 1;                 /* the list follows the version string */
    for (; *s != '\0'; s += strlen(s) + 1) {
        if (i-- == 0)
            return s;
    }
    return NULL;                        /* an empty string ends the list */
}

bool l4_kip_has_feature(const char *name)
{
    const char *f;
    for (unsigned i = 0; (f = l4_kip_feature(i)) != NULL; i++) {
        if (strcmp(f, name) == 0)
            return true;
    }
    return false;
}
