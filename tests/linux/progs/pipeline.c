/* A many-process pipeline: 24 processes in a row, each reading numbers from its stdin pipe,
 * adding one and writing them on; the first writes 0..999, the parent sums what comes out of
 * the last.  Exercises pipe, dup2, close, fork, wait, and end of file along the chain. */
#include <sys/wait.h>
#include "corpus.h"

#define STAGES 24
#define COUNT 1000

static void stage(int in, int out)
{
    FILE *fi = fdopen(in, "r"), *fo = fdopen(out, "w");
    long v;
    while (fscanf(fi, "%ld", &v) == 1)
        fprintf(fo, "%ld\n", v + 1);
    fclose(fo);
    _exit(0);
}

int main(void)
{
    corpus_init();
    int first[2];
    if (pipe(first) < 0) {
        printf("pipe: %s\n", errname(errno));
        return 1;
    }
    int in = first[0];
    pid_t pids[STAGES];
    for (int i = 0; i < STAGES; i++) {
        int p[2];
        if (pipe(p) < 0) {
            printf("pipe %d: %s\n", i, errname(errno));
            return 1;
        }
        pids[i] = fork();
        if (pids[i] == 0) {
            close(p[0]);
            close(first[1]);
            stage(in, p[1]);
        }
        close(in);
        close(p[1]);
        in = p[0];
    }
    FILE *fo = fdopen(first[1], "w");
    for (int i = 0; i < COUNT; i++)
        fprintf(fo, "%d\n", i);
    fclose(fo);
    FILE *fi = fdopen(in, "r");
    long v, sum = 0, n = 0;
    while (fscanf(fi, "%ld", &v) == 1) {
        sum += v;
        n++;
    }
    printf("%ld numbers, sum %ld (expected %d)\n", n, sum, COUNT * (COUNT - 1) / 2 + COUNT * STAGES);
    int ok = 0;
    for (int i = 0; i < STAGES; i++) {
        int st;
        ok += waitpid(pids[i], &st, 0) == pids[i] && WIFEXITED(st) && WEXITSTATUS(st) == 0;
    }
    printf("%d of %d stages exited 0\n", ok, STAGES);
    return 0;
}
