/* Directories: mkdir, rmdir, chdir/fchdir/getcwd, getdents through readdir (names sorted
 * here: the order of a directory listing is the file system's business), errors. */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include "corpus.h"

static int cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void list(const char *path)
{
    DIR *d = opendir(path);
    if (!d) {
        printf("opendir %s: %s\n", path, errname(errno));
        return;
    }
    char *names[64];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 64) {
        char t = e->d_type == DT_DIR ? 'd' : e->d_type == DT_REG ? 'f' :
                 e->d_type == DT_LNK ? 'l' : '?';
        names[n] = malloc(strlen(e->d_name) + 3);
        sprintf(names[n++], "%s%c%c", e->d_name, ' ', t);
    }
    closedir(d);
    qsort(names, n, sizeof names[0], cmp);
    printf("%s:", path);
    for (int i = 0; i < n; i++) {
        printf(" %s", names[i]);
        free(names[i]);
    }
    printf("\n");
}

static void cwd(void)
{
    char buf[256];
    if (getcwd(buf, sizeof buf))
        printf("cwd: %s\n", strrchr(buf, '/'));
    else
        printf("getcwd: %s\n", errname(errno));
}

int main(void)
{
    corpus_init();
    SHOW("mkdir d", mkdir("d", 0755));
    SHOW("mkdir d again", mkdir("d", 0755));
    SHOW("mkdir missing/x", mkdir("missing/x", 0755));
    SHOW("mkdir d/e", mkdir("d/e", 0700));
    int fd = open("d/f", O_CREAT | O_WRONLY, 0644);
    close(fd);
    SHOW("symlink d/l", symlink("f", "d/l"));
    list("d");
    SHOW("rmdir d (not empty)", rmdir("d"));
    SHOW("rmdir d/f (a file)", rmdir("d/f"));
    SHOW("unlink d/e (a dir)", unlink("d/e"));
    SHOW("rmdir missing", rmdir("missing"));
    SHOW("rmdir d/e/.", rmdir("d/e/."));
    SHOW("mkdir d/f/x", mkdir("d/f/x", 0755));
    struct stat st;
    stat("d/e", &st);
    printf("d/e mode %o nlink %ld\n", (unsigned)st.st_mode, (long)st.st_nlink);

    SHOW("chdir d", chdir("d"));
    cwd();
    SHOW("chdir f (a file)", chdir("f"));
    SHOW("chdir missing", chdir("missing"));
    SHOW("chdir ..", chdir(".."));
    cwd();
    int dfd = open("d", O_RDONLY | O_DIRECTORY);
    SHOW("fchdir", fchdir(dfd));
    cwd();
    SHOW("fchdir bad fd", fchdir(99));
    int ffd = open("f", O_RDONLY);
    SHOW("fchdir a file", fchdir(ffd));
    close(ffd);
    SHOW("openat dfd f", openat(dfd, "f", O_RDONLY) >= 0 ? 0 : -1);
    SHOW("mkdirat dfd g", mkdirat(dfd, "g", 0755));
    SHOW("unlinkat dfd g AT_REMOVEDIR", unlinkat(dfd, "g", AT_REMOVEDIR));
    SHOW("unlinkat dfd e no flag", unlinkat(dfd, "e", 0));
    close(dfd);
    SHOW("chdir ..", chdir(".."));

    SHOW("rename d/e d/e/x (into itself)", rename("d/e", "d/e/x"));
    SHOW("mkdir d/h", mkdir("d/h", 0755));
    fd = open("d/h/x", O_CREAT | O_WRONLY, 0644);
    close(fd);
    SHOW("rename d/e over non-empty d/h", rename("d/e", "d/h"));
    SHOW("rename d/f over dir d/e", rename("d/f", "d/e"));
    SHOW("rename d/e over file d/f", rename("d/e", "d/f"));
    SHOW("rename d/e d/i", rename("d/e", "d/i"));
    list("d");

    SHOW("mkdir gone", mkdir("gone", 0755));
    SHOW("chdir gone", chdir("gone"));
    SHOW("rmdir own cwd", rmdir("../gone"));
    char buf[256];
    printf("getcwd of removed dir: %s\n", getcwd(buf, sizeof buf) ? "ok" : errname(errno));
    SHOW("create in removed dir", open("x", O_CREAT | O_WRONLY, 0644));
    SHOW("chdir ..", chdir(".."));
    list(".");
    list("missing");
    return 0;
}
