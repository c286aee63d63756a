/* The multi-user mix's compile job (user.sh): a small C program compiled with gcc -O1 and
 * run; it sorts, hashes and formats so that the compiler has some work and the output
 * checks the run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct item {
    unsigned key;
    char name[24];
};

static int by_key(const void *a, const void *b)
{
    const struct item *x = a, *y = b;
    return (x->key > y->key) - (x->key < y->key);
}

static unsigned hash(const char *s)
{
    unsigned h = 2166136261u;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 16777619u;
    return h;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100;
    if (n <= 0 || n > 100000)
        return 2;
    struct item *v = calloc((size_t)n, sizeof *v);
    if (!v)
        return 1;
    unsigned seed = 12345;
    for (int i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        v[i].key = seed >> 8;
        snprintf(v[i].name, sizeof v[i].name, "item-%d", i);
    }
    qsort(v, (size_t)n, sizeof *v, by_key);
    unsigned h = 0;
    for (int i = 0; i < n; i++)
        h = h * 31 + hash(v[i].name) + v[i].key;
    printf("job %d items, first %s, last %s, hash %08x\n", n, v[0].name, v[n - 1].name, h);
    free(v);
    return 0;
}
