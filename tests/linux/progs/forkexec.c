/* The fork/exec stress test: rounds of forks that exec this program again (which forks in
 * turn, a tree), and plain fork/exit storms, every status checked and counted.  At most 8
 * processes of the test live at once (lx has 32 slots). */
#include <sys/wait.h>
#include "corpus.h"

#define ROUNDS 30
#define WIDTH 6

int main(int argc, char **argv)
{
    corpus_init();
    if (argc == 3) {
        /* An exec'd child: fork a grandchild once if depth allows, exit with a known code. */
        int depth = atoi(argv[2]);
        int code = atoi(argv[1]) & 0x7f;
        if (depth > 0) {
            pid_t pid = fork();
            if (pid == 0) {
                char d[16];
                snprintf(d, sizeof d, "%d", depth - 1);
                execl(argv[0], argv[0], argv[1], d, (char *)NULL);
                _exit(126);
            }
            int st;
            if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != code)
                return 125;
        }
        return code;
    }

    int bad = 0, done = 0;
    for (int round = 0; round < ROUNDS; round++) {
        pid_t pids[WIDTH];
        for (int i = 0; i < WIDTH; i++) {
            int code = (round * WIDTH + i) % 100;
            pids[i] = fork();
            if (pids[i] == 0) {
                if (i % 2) {
                    char c[16];
                    snprintf(c, sizeof c, "%d", code);
                    execl(argv[0], argv[0], c, i % 3 ? "1" : "0", (char *)NULL);
                    _exit(126);
                }
                _exit(code);
            }
            if (pids[i] < 0) {
                printf("fork failed in round %d: %s\n", round, errname(errno));
                return 1;
            }
        }
        /* Reap in the reverse order of creation. */
        for (int i = WIDTH - 1; i >= 0; i--) {
            int st;
            int code = (round * WIDTH + i) % 100;
            if (waitpid(pids[i], &st, 0) != pids[i] || !WIFEXITED(st) ||
                WEXITSTATUS(st) != code) {
                bad++;
                printf("round %d child %d: status %#x\n", round, i, st);
            }
            done++;
        }
    }
    printf("%d children checked, %d wrong\n", done, bad);
    int st;
    printf("no children left: %s\n", wait(&st) < 0 ? errname(errno) : "one was left");
    return bad != 0;
}
