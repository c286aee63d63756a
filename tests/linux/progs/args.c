/* execve's argument and environment limits (issue 13 item 4): the strings together may take
 * a quarter of RLIMIT_STACK, at most 6 MiB (3/4 of _STK_LIM) and at least 128 KiB (ARG_MAX),
 * less one pointer per string; each string at most 128 KiB with its NUL (MAX_ARG_STRLEN).
 * The path execve is given counts too.  Each case execs this program again with exactly the
 * limit's bytes and with one byte more, and the child reports what arrived (counts, bytes and
 * a checksum of every string), so a string lost, cut or moved shows. */
#include <stdint.h>
#include <sys/resource.h>
#include "corpus.h"

#define CHILD_ENV "ARGS_CHILD=1"
#define STRLEN_MAX (128u << 10)

extern char **environ;

static const char *self;

static int proc_matches(const char *path, const char *from, size_t n);
static void child_title(char **argv, int argc);

static void child_report(int argc, char **argv)
{
    size_t bytes = 0, envc = 0;
    uint32_t sum = 0;
    for (int i = 1; i < argc; i++) {               /* argv[0] is the path: its length only */
        for (const char *s = argv[i]; *s; s++)
            sum = sum * 31 + (unsigned char)*s;
        bytes += strlen(argv[i]) + 1;
    }
    for (char **e = environ; *e; e++, envc++) {
        for (const char *s = *e; *s; s++)
            sum = sum * 31 + (unsigned char)*s;
        bytes += strlen(*e) + 1;
    }
    printf("  child: argc %d, envc %zu, %zu bytes after argv[0], checksum %08x\n", argc, envc,
           bytes, sum);
    /* /proc/self/cmdline and environ: the strings as they lie in memory, every byte. */
    size_t argbytes = 0, envbytes = 0;
    for (int i = 0; i < argc; i++)
        argbytes += strlen(argv[i]) + 1;
    for (char **e = environ; *e; e++)
        envbytes += strlen(*e) + 1;
    printf("  /proc/self/cmdline: %s, environ: %s\n",
           proc_matches("/proc/self/cmdline", argv[0], argbytes) ? "the arguments" : "differs",
           proc_matches("/proc/self/environ", environ[0], envbytes) ? "the environment" : "differs");
}

/* Does the file hold exactly the n bytes at from (read in odd-sized pieces)? */
static int proc_matches(const char *path, const char *from, size_t n)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t at = 0, k;
    char buf[3000];
    int same = 1;
    while ((k = fread(buf, 1, sizeof buf, f)) > 0) {
        if (at + k > n || memcmp(buf, from + at, k))
            same = 0;
        at += k;
    }
    fclose(f);
    return same && at == n;
}

/* setproctitle's way: the NUL after the last argument overwritten, cmdline runs on into the
 * environment up to its first NUL. */
static void child_title(char **argv, int argc)
{
    char *end = argv[argc - 1] + strlen(argv[argc - 1]);
    *end = '+';
    char buf[256];
    FILE *f = fopen("/proc/self/cmdline", "r");
    size_t k = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (f)
        fclose(f);
    for (size_t i = 0; i < k; i++)
        if (!buf[i])
            buf[i] = '|';
    printf("  cmdline after the end was overwritten: %.*s\n", (int)k, buf);
}

/* A string of n bytes (the NUL not counted), its letters depending on seed. */
static char *filled(size_t n, unsigned seed)
{
    char *s = malloc(n + 1);
    if (!s) {
        printf("malloc failed\n");
        exit(1);
    }
    for (size_t i = 0; i < n; i++)
        s[i] = (char)('a' + (i * 7 + seed) % 26);
    s[n] = 0;
    return s;
}

/* fork, set RLIMIT_STACK (0: leave it), execve(self, argv, envp); prints the error or lets
 * the child report; the status if it is not exit 0. */
static void run(const char *what, char **argv, char **envp, rlim_t stack)
{
    printf("%s:\n", what);
    pid_t pid = fork();
    if (pid == 0) {
        if (stack) {
            struct rlimit rl = { stack, RLIM_INFINITY };
            if (setrlimit(RLIMIT_STACK, &rl))
                printf("  setrlimit: %s\n", errname(errno));
        }
        execve(self, argv, envp);
        printf("  execve: -1 %s\n", errname(errno));
        _exit(0);
    }
    int st;
    if (waitpid(pid, &st, 0) != pid)
        printf("  waitpid: %s\n", errname(errno));
    else if (!WIFEXITED(st) || WEXITSTATUS(st))
        show_status("  child", st);
}

static void free_vec(char **v, int from)
{
    for (int i = from; v[i]; i++)
        free(v[i]);
    free(v);
}

/* n argument strings (after argv[0] = self) whose bytes with their NULs, the path's and the
 * environment's come to the limit for stack, plus extra; the environment is env alone. */
static void at_limit(const char *what, rlim_t stack, int n, long extra)
{
    size_t limit = stack / 4;
    if (limit > (6u << 20))
        limit = 6u << 20;
    if (limit < STRLEN_MAX)
        limit = STRLEN_MAX;
    char *envp[] = { CHILD_ENV, NULL };
    size_t ptrs = (size_t)(1 + n + 1) * sizeof(char *);
    size_t fixed = strlen(self) + 1 + (strlen(self) + 1) + sizeof CHILD_ENV;   /* path, argv[0] */
    size_t rest = limit - ptrs - fixed + (size_t)extra;  /* the n strings with their NULs */
    char **argv = calloc((size_t)n + 2, sizeof *argv);
    argv[0] = (char *)self;
    for (int i = 0; i < n; i++)
        argv[1 + i] = filled(rest / n - 1 + ((size_t)i < rest % n), (unsigned)i);
    run(what, argv, envp, stack);
    free_vec(argv, 1);
}

int main(int argc, char **argv)
{
    corpus_init();
    const char *e = getenv("ARGS_CHILD");
    if (e && !strcmp(e, "1")) {
        child_report(argc, argv);
        return 0;
    }
    if (e && !strcmp(e, "title")) {
        child_title(argv, argc);
        return 0;
    }
    self = argv[0];
    char *envp[] = { CHILD_ENV, NULL };

    /* One string: 128 KiB with its NUL fits, one byte more is E2BIG (argument or environment). */
    for (int more = 0; more <= 1; more++) {
        char *s = filled(STRLEN_MAX - 1 + more, 1);
        char *av[] = { (char *)self, s, NULL };
        char *ev[] = { CHILD_ENV, s, NULL };
        char label[64];
        snprintf(label, sizeof label, "an argument of %u bytes", STRLEN_MAX + more);
        run(label, av, envp, 0);
        snprintf(label, sizeof label, "an environment string of %u bytes", STRLEN_MAX + more);
        run(label, (char *[]){ (char *)self, NULL }, ev, 0);
        free(s);
    }

    /* 1 MiB of arguments (the old 256 KiB limit of lx), 1 MiB of environment. */
    {
        char **av = calloc(10, sizeof *av), **ev = calloc(10, sizeof *ev);
        av[0] = (char *)self;
        ev[0] = strdup(CHILD_ENV);
        for (int i = 0; i < 8; i++) {
            av[1 + i] = filled(STRLEN_MAX - 1, (unsigned)i);
            ev[1 + i] = filled(STRLEN_MAX - 1, (unsigned)i + 100);
        }
        run("8 arguments of 128 KiB", av, envp, 0);
        run("8 environment strings of 128 KiB", (char *[]){ (char *)self, NULL }, ev, 0);
        free_vec(av, 1);
        free_vec(ev, 0);
    }

    /* 100,000 short arguments: the count is bounded by the bytes only. */
    {
        int n = 100000;
        char **av = calloc((size_t)n + 2, sizeof *av);
        av[0] = (char *)self;
        for (int i = 0; i < n; i++)
            av[1 + i] = i % 2 ? "y" : "x";
        run("100,000 one-letter arguments", av, envp, 0);
        free(av);
    }

    /* The limit itself, for RLIMIT_STACK 8 MiB (2 MiB), 1 MiB (256 KiB), 512 KiB (the floor,
     * 128 KiB) and 100 MiB (6 MiB): exactly the limit, then one byte more. */
    static const struct { const char *name; rlim_t stack; int n; } limits[] = {
        { "8 MiB", 8u << 20, 20 },
        { "1 MiB", 1u << 20, 4 },
        { "512 KiB", 512u << 10, 2 },
        { "100 MiB", 100u << 20, 60 },
    };
    for (unsigned i = 0; i < sizeof limits / sizeof limits[0]; i++)
        for (int more = 0; more <= 1; more++) {
            char label[96];
            snprintf(label, sizeof label, "RLIMIT_STACK %s, the strings at the limit%s",
                     limits[i].name, more ? " + 1" : "");
            at_limit(label, limits[i].stack, limits[i].n, more);
        }

    run("setproctitle", (char *[]){ (char *)self, "one", "two", NULL },
        (char *[]){ "ARGS_CHILD=title", "NEXT=x", NULL }, 0);

    /* Bad pointers: the vector, a string in it, the environment's vector. */
    run("argv not user memory", (char **)8, envp, 0);
    run("argv[1] not user memory", (char *[]){ (char *)self, (char *)8, NULL }, envp, 0);
    run("envp not user memory", (char *[]){ (char *)self, NULL }, (char **)-4096L, 0);
    return 0;
}
