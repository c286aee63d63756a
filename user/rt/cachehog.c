/* The cache-hostile Linux load of docs/cache-partitioning.md: writes one word of every
 * 64-byte line of a buffer larger than the modelled L2, again and again, for ever (the
 * real-time task ends the run).  A Linux program for lx; never run on the host.
 *   cachehog [KiB]     (default 1024) */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    size_t bytes = (argc > 1 ? strtoul(argv[1], NULL, 0) : 1024) << 10;
    volatile unsigned long *buf = malloc(bytes);
    if (!buf)
        return 1;
    printf("cachehog: sweeping %zu KiB\n", bytes >> 10);
    fflush(stdout);
    for (unsigned long pass = 0;; pass++)
        for (size_t i = 0; i < bytes / sizeof *buf; i += 64 / sizeof *buf)
            buf[i] = pass;
}
