/* A static glibc program for lx's system test, built only where the host has a static
 * glibc (libc.a): glibc's start-up (TLS through arch_prctl, brk and mmap for malloc, uname,
 * the auxiliary vector) and stdio on top of lx. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static __thread int tls_counter = 5;
static const void *volatile bad_pointer = (const void *)16;

int main(int argc, char **argv)
{
    printf("hello from glibc, argc %d, argv[1] %s\n", argc, argc > 1 ? argv[1] : "-");
    char *big = malloc(1 << 20);            /* more than brk's steps: mmap */
    char *small = malloc(100);
    if (!big || !small)
        return 1;
    memset(big, 'x', 1 << 20);
    strcpy(small, "malloc works");
    printf("%s, %c\n", small, big[(1 << 20) - 1]);
    tls_counter++;
    printf("tls %d\n", tls_counter);
    errno = 0;
    long r = write(1, bad_pointer, 5);
    printf("write(bad pointer): %ld errno %d (%s)\n", r, errno, strerror(errno));
    printf("pid %d\n", (int)getpid());
    free(big);
    free(small);
    return 7;
}
