/* Client helpers for the serial driver's protocol (libl4/serial.h). */
#include <libl4.h>
#include <libl4/serial.h>
#include <string.h>

bool serial_write(l4_word_t driver, const char *buf, unsigned n)
{
    while (n) {
        unsigned k = n > SERIAL_MAX ? SERIAL_MAX : n;
        unsigned words = (k + 7) / 8;
        l4_word_t w[60] = { 0 };
        memcpy(w, buf, k);
        l4_set_mr(0, l4_tag_make(SERIAL_WRITE, 1 + words, 0));
        l4_set_mr(1, k);
        for (unsigned i = 0; i < words; i++)
            l4_set_mr(2 + i, w[i]);
        if (l4_ipc_failed(l4_call(driver)))
            return false;
        buf += k;
        n -= k;
    }
    return true;
}

unsigned serial_read(l4_word_t driver, char *buf, unsigned max)
{
    if (max > SERIAL_MAX)
        max = SERIAL_MAX;
    l4_set_mr(0, l4_tag_make(SERIAL_READ, 1, 0));
    l4_set_mr(1, max);
    if (l4_ipc_failed(l4_call(driver)))
        return 0;
    unsigned n = (unsigned)l4_mr(1);
    if (n > max)
        n = max;
    l4_word_t w[60];
    for (unsigned i = 0; i < (n + 7) / 8; i++)
        w[i] = l4_mr(2 + i);
    memcpy(buf, w, n);
    return n;
}
