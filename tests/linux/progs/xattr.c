/* Extended attributes on tmpfs (the trusted.* namespace, which root may use on Linux 6.1's
 * tmpfs) and where a file system keeps none (proc): set, get, list, remove, with their
 * flags and errors (ENODATA, EEXIST, ERANGE, E2BIG, EOPNOTSUPP, EINVAL, EFAULT).  user.*
 * on tmpfs came with Linux 6.6: lx has it, the 6.1 reference not, so it is not compared. */
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include "corpus.h"

static void get(const char *what, const char *path, const char *name, size_t size)
{
    char buf[256];
    ssize_t n = getxattr(path, name, size ? buf : NULL, size);
    if (n < 0)
        printf("%s: -1 %s\n", what, errname(errno));
    else if (!size)
        printf("%s: size %zd\n", what, n);
    else
        printf("%s: %zd [%.*s]\n", what, n, (int)n, buf);
}

static void list(const char *what, const char *path)
{
    char buf[512];
    ssize_t n = listxattr(path, buf, sizeof buf);
    if (n < 0) {
        printf("%s: -1 %s\n", what, errname(errno));
        return;
    }
    printf("%s: %zd", what, n);
    /* The order of the names is the file system's: print them sorted. */
    const char *names[32];
    int k = 0;
    for (ssize_t o = 0; o < n && k < 32; o += strlen(buf + o) + 1)
        names[k++] = buf + o;
    for (int i = 0; i < k; i++)
        for (int j = i + 1; j < k; j++)
            if (strcmp(names[j], names[i]) < 0) {
                const char *s = names[i];
                names[i] = names[j];
                names[j] = s;
            }
    for (int i = 0; i < k; i++)
        printf(" %s", names[i]);
    printf("\n");
}

int main(void)
{
    corpus_init();
    close(open("f", O_CREAT | O_WRONLY, 0644));
    mkdir("d", 0755);
    symlink("f", "l");

    get("get missing", "f", "trusted.a", 64);
    list("list empty", "f");
    SHOW("set trusted.a", setxattr("f", "trusted.a", "alpha", 5, 0));
    get("get trusted.a", "f", "trusted.a", 64);
    get("get trusted.a size", "f", "trusted.a", 0);
    get("get trusted.a too small", "f", "trusted.a", 3);
    SHOW("set XATTR_CREATE existing", setxattr("f", "trusted.a", "x", 1, XATTR_CREATE));
    SHOW("set XATTR_REPLACE missing", setxattr("f", "trusted.b", "x", 1, XATTR_REPLACE));
    SHOW("set XATTR_REPLACE existing", setxattr("f", "trusted.a", "beta", 4, XATTR_REPLACE));
    get("get after replace", "f", "trusted.a", 64);
    SHOW("set both flags", setxattr("f", "trusted.c", "x", 1, XATTR_CREATE | XATTR_REPLACE));
    SHOW("set bad flags", setxattr("f", "trusted.c", "x", 1, 4));
    SHOW("set an empty value", setxattr("f", "trusted.empty", "", 0, 0));
    get("get the empty value", "f", "trusted.empty", 64);
    SHOW("set trusted.b", setxattr("f", "trusted.b", "gamma", 5, 0));
    list("list", "f");
    char small[8];
    SHOW("list too small", listxattr("f", small, sizeof small));
    SHOW("list size", listxattr("f", NULL, 0));

    /* Names and sizes. */
    char longname[300];
    memset(longname, 'n', sizeof longname);
    memcpy(longname, "trusted.", 8);
    longname[299] = 0;
    SHOW("set a 299-byte name", setxattr("f", longname, "x", 1, 0));
    longname[255] = 0;
    SHOW("set a 255-byte name", setxattr("f", longname, "x", 1, 0));
    SHOW("remove it", removexattr("f", longname));
    SHOW("set an empty name", setxattr("f", "", "x", 1, 0));
    static char big[65537];
    SHOW("set a 65537-byte value", setxattr("f", "trusted.big", big, sizeof big, 0));
    void *volatile bad = (void *)8;
    SHOW("set a bad value pointer", setxattr("f", "trusted.x", bad, 4, 0));
    SHOW("get a bad name pointer", getxattr("f", (char *)bad, NULL, 0));
    SHOW("set an unknown namespace", setxattr("f", "other.a", "x", 1, 0));
    SHOW("get an unknown namespace", getxattr("f", "other.a", NULL, 0));
    SHOW("get a name without a namespace", getxattr("f", "plain", NULL, 0));
    SHOW("get system.posix_acl_access", getxattr("f", "system.posix_acl_access", NULL, 0));

    /* remove */
    SHOW("remove trusted.a", removexattr("f", "trusted.a"));
    SHOW("remove it again", removexattr("f", "trusted.a"));
    list("list after remove", "f");

    /* Directories, symlinks (l*: the link itself), fds, missing files. */
    SHOW("set on a directory", setxattr("d", "trusted.d", "dir", 3, 0));
    get("get on a directory", "d", "trusted.d", 64);
    get("get through a symlink", "l", "trusted.b", 64);
    char buf[64];
    SHOW("lgetxattr on the link", lgetxattr("l", "trusted.b", buf, sizeof buf));
    SHOW("lsetxattr on the link", lsetxattr("l", "trusted.l", "link", 4, 0));
    SHOW("lgetxattr it", lgetxattr("l", "trusted.l", buf, sizeof buf));
    SHOW("llistxattr", llistxattr("l", buf, sizeof buf));
    SHOW("lremovexattr", lremovexattr("l", "trusted.l"));
    int fd = open("f", O_RDONLY);
    SHOW("fgetxattr", fgetxattr(fd, "trusted.b", buf, sizeof buf));
    SHOW("fsetxattr on a read-only fd", fsetxattr(fd, "trusted.f", "fd", 2, 0));
    SHOW("flistxattr", flistxattr(fd, buf, sizeof buf));
    SHOW("fremovexattr", fremovexattr(fd, "trusted.f"));
    SHOW("fgetxattr bad fd", fgetxattr(99, "trusted.b", buf, sizeof buf));
    SHOW("getxattr missing file", getxattr("missing", "trusted.b", buf, sizeof buf));
    SHOW("setxattr missing file", setxattr("missing", "trusted.b", "x", 1, 0));

    /* A file system that keeps none: proc. */
    SHOW("getxattr on proc", getxattr("/proc/self/stat", "trusted.b", buf, sizeof buf));
    SHOW("setxattr on proc", setxattr("/proc/self/stat", "trusted.b", "x", 1, 0));
    SHOW("listxattr on proc", listxattr("/proc/self/stat", buf, sizeof buf));
    SHOW("removexattr on proc", removexattr("/proc/self/stat", "trusted.b"));

    /* The attributes go with the file. */
    SHOW("unlink f", unlink("f"));
    SHOW("fgetxattr of the unlinked file", fgetxattr(fd, "trusted.b", buf, sizeof buf));
    return 0;
}
