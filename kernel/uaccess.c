/* User memory through the page tables. */
#include "uaccess.h"
#include "space.h"
#include "lib.h"
#include <l4/types.h>

static void *resolve(struct space *s, word_t va, bool write, size_t *left)
{
    struct pt_ref ref;
    if (va >= L4_USER_AREA_END || !pt_find_leaf(s, va, &ref))
        return NULL;
    if (write && !(pte_rights(*ref.pte) & PTE_RIGHTS_W))
        return NULL;
    *ref.pte = pte_touch(*ref.pte, write);
    size_t off = va - ref.va;
    *left = level_size(ref.level) - off;
    return (char *)phys_to_virt(pte_frame(*ref.pte, ref.level)) + off;
}

/* Copy n bytes between va in s and buf, in the direction `write` says. */
static bool ucopy(struct space *s, word_t va, char *buf, size_t n, bool write)
{
    while (n) {
        size_t left;
        char *p = resolve(s, va, write, &left);
        if (!p)
            return false;
        size_t k = MIN(n, left);
        if (write)
            memcpy(p, buf, k);
        else
            memcpy(buf, p, k);
        buf += k;
        va += k;
        n -= k;
    }
    return true;
}

bool uread(struct space *s, word_t va, void *buf, size_t n)
{
    return ucopy(s, va, buf, n, false);
}

bool uwrite(struct space *s, word_t va, const void *buf, size_t n)
{
    return ucopy(s, va, (char *)buf, n, true);     /* ucopy only reads buf when writing */
}

long ustrncpy(struct space *s, word_t va, char *buf, size_t max)
{
    size_t i = 0;
    while (i + 1 < max) {
        size_t left;
        const char *p = resolve(s, va + i, false, &left);
        if (!p) {
            buf[i] = 0;
            return -1;
        }
        for (; left && i + 1 < max; left--, i++) {
            buf[i] = *p++;
            if (!buf[i])
                return (long)i;
        }
    }
    buf[i] = 0;
    return (long)i;
}
