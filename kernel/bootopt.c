/* Kernel command-line options: space-separated words "key" or "key=value". */
#include "boot.h"
#include "lib.h"

bool boot_option(const char *key, const char **value)
{
    size_t n = strlen(key);
    const char *s = boot_params.cmdline;
    while (*s) {
        while (*s == ' ')
            s++;
        if (!strncmp(s, key, n) && (s[n] == '=' || s[n] == ' ' || s[n] == 0)) {
            if (value)
                *value = s[n] == '=' ? s + n + 1 : s + n;
            return true;
        }
        while (*s && *s != ' ')
            s++;
    }
    return false;
}
