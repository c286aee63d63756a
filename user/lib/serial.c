/* Client helpers for the serial driver's protocol (libl4/serial.h). */
#include <libl4.h>
#include <libl4/serial.h>
#include <string.h>

void serial_put_bytes(l4_word_t label, const char *buf, unsigned n)
{
    if (n > SERIAL_MAX)
        n = SERIAL_MAX;
    unsigned words = (n + 7) / 8;
    l4_word_t w[SERIAL_MAX / 8] = { 0 };
    memcpy(w, buf, n);
    l4_set_mr(0, l4_tag_make(label, 1 + words, 0));
    l4_set_mr(1, n);
    for (unsigned i = 0; i < words; i++)
        l4_set_mr(2 + i, w[i]);
}

static bool write_as(l4_word_t driver, l4_word_t label, const char *buf, unsigned n)
{
    while (n) {
        unsigned k = n > SERIAL_MAX ? SERIAL_MAX : n;
        serial_put_bytes(label, buf, k);
        if (l4_ipc_failed(l4_call(driver)))
            return false;
        buf += k;
        n -= k;
    }
    return true;
}

bool serial_write(l4_word_t driver, const char *buf, unsigned n)
{
    return write_as(driver, SERIAL_WRITE, buf, n);
}

bool serial_write_raw(l4_word_t driver, const char *buf, unsigned n)
{
    return write_as(driver, SERIAL_WRITE_RAW, buf, n);
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
    l4_word_t w[SERIAL_MAX / 8];
    for (unsigned i = 0; i < (n + 7) / 8; i++)
        w[i] = l4_mr(2 + i);
    memcpy(buf, w, n);
    return n;
}
