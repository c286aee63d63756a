/* The serial console driver's protocol (user/drivers/serial, docs/drivers.md).  The driver
 * publishes itself under the name "serial" (l4_name_lookup). */
#ifndef LIBL4_SERIAL_H
#define LIBL4_SERIAL_H

#include <l4/types.h>

#define SERIAL_WRITE  0x5301    /* MR1 byte count n (<= SERIAL_MAX), MR2.. the bytes -> empty */
#define SERIAL_READ   0x5302    /* MR1 at most n bytes -> MR1 count, MR2.. the bytes; the
                                 * reply waits until input is there; a count of 0 means
                                 * "nothing yet, ask again" (the driver made room for other
                                 * readers) */
#define SERIAL_WRITE_RAW 0x5303 /* as SERIAL_WRITE, the bytes unchanged (no "\n" -> "\r\n":
                                 * a tty's line discipline does its own output processing) */
#define SERIAL_MAX    (8 * 60)  /* bytes per message: 60 words after the count */

/* Client helpers (serial.c in libl4). */
/* The protocol's byte message in the MRs: MR0 = label (u = 1 + words), MR1 = n, MR2.. the
 * bytes (at most SERIAL_MAX; more are cut). */
void serial_put_bytes(l4_word_t label, const char *buf, unsigned n);
bool serial_write(l4_word_t driver, const char *buf, unsigned n);
bool serial_write_raw(l4_word_t driver, const char *buf, unsigned n);  /* SERIAL_WRITE_RAW */
unsigned serial_read(l4_word_t driver, char *buf, unsigned max);

#endif
