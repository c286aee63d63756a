/* hello: the smallest Linux test program for the lx personality.  One write(2) to stdout and an
 * exit status: "hello" alone exits 0, "hello N" exits with status N (so a harness can check that
 * the status reaches the parent).  Built static against glibc and musl (build.mk). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    static const char msg[] = "hello, world\n";

    if (write(1, msg, strlen(msg)) != (ssize_t)strlen(msg))
        return 1;
    return argc > 1 ? atoi(argv[1]) : 0;
}
