/* The kernel log through syslog(2) (klogctl) and /dev/kmsg: each action's answer and
 * errors, records written to /dev/kmsg read back by both.  The log's older contents (a
 * kernel's boot messages) differ between kernels, so the program first clears or drains
 * what is there and prints only its own records, without their sequence numbers and
 * timestamps (a timestamp's width is fixed, so the formatted sizes are the same). */
#include <fcntl.h>
#include <sys/klog.h>
#include <poll.h>
#include <sys/syscall.h>
#include "corpus.h"

static char buf[1 << 19];

/* Lines of syslog text that are ours ("corpus:" after the "<N>[ s.us] " prefix). */
static void show_syslog_text(const char *what, const char *p, long n)
{
    printf("%s:\n", what);
    for (const char *e = p + n; p < e;) {
        const char *nl = memchr(p, '\n', (size_t)(e - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(e - p);
        const char *text = memchr(p, ']', len);
        if (text && text + 2 <= p + len && memmem(text, (size_t)(p + len - text), "corpus:", 7)) {
            int prio = atoi(p + 1);
            printf("  <%d> %.*s\n", prio, (int)(p + len - text - 2), text + 2);
        }
        p += len + (nl ? 1 : 0);
    }
}

/* The records of /dev/kmsg from f's place that are ours: "prio,flag;text". */
static void show_kmsg(const char *what, int f)
{
    printf("%s:\n", what);
    for (;;) {
        long n = read(f, buf, sizeof buf - 1);
        if (n < 0) {
            if (errno != EAGAIN)
                printf("  read: -1 %s\n", errname(errno));
            if (errno == EPIPE)
                continue;
            break;
        }
        buf[n] = 0;
        char *semi = strchr(buf, ';'), *comma = strchr(buf, ',');
        if (!semi || !comma || !strstr(semi + 1, "corpus:"))
            continue;
        char *flag = semi - 1;
        printf("  %d,%c;%s", atoi(buf), *flag, semi + 1);
    }
}

static void kmsg_write(int f, const char *s)
{
    long r = write(f, s, strlen(s));
    printf("write \"%.*s\": %s\n", (int)strcspn(s, "\n"), s,
           r == (long)strlen(s) ? "all" : r < 0 ? errname(errno) : "part");
}

int main(void)
{
    corpus_init();
    /* the plain actions */
    SHOW("SIZE_BUFFER", klogctl(10, NULL, 0));
    SHOW("OPEN", klogctl(1, NULL, 0));
    SHOW("CLOSE", klogctl(0, NULL, 0));
    SHOW("type 11", klogctl(11, NULL, 0));
    SHOW("type -1", klogctl(-1, NULL, 0));
    SHOW("READ_ALL NULL", klogctl(3, NULL, 10));
    SHOW("READ_ALL len -1", klogctl(3, buf, -1));
    SHOW("READ_ALL len 0", klogctl(3, buf, 0));
    SHOW("READ_ALL kernel pointer", klogctl(3, (char *)0xffff800000000000ul, 100));
    SHOW("READ NULL", klogctl(2, NULL, 10));
    SHOW("READ len -5", klogctl(2, buf, -5));
    SHOW("READ len 0", klogctl(2, buf, 0));
    SHOW("READ_CLEAR NULL", klogctl(4, NULL, 10));
    SHOW("CONSOLE_LEVEL 0", klogctl(8, NULL, 0));
    SHOW("CONSOLE_LEVEL 9", klogctl(8, NULL, 9));

    /* the levels as /proc/sys/kernel/printk shows them */
    SHOW("CONSOLE_LEVEL 6", klogctl(8, NULL, 6));
    int pf = open("/proc/sys/kernel/printk", O_RDONLY);
    long n = pread(pf, buf, 100, 0);
    printf("printk: %.*s", (int)(n > 0 ? n : 0), buf);
    SHOW("CONSOLE_OFF", klogctl(6, NULL, 0));
    n = pread(pf, buf, 100, 0);
    printf("printk: %.*s", (int)(n > 0 ? n : 0), buf);
    SHOW("CONSOLE_ON", klogctl(7, NULL, 0));
    n = pread(pf, buf, 100, 0);
    printf("printk: %.*s", (int)(n > 0 ? n : 0), buf);
    SHOW("CONSOLE_ON again", klogctl(7, NULL, 0));
    close(pf);
    /* Linux echoes records below the console's level to the console, which the comparison
     * would see: the level goes to its minimum (1) for the rest, and no record is of level 0. */
    SHOW("CONSOLE_OFF", klogctl(6, NULL, 0));

    /* drain READ's records: then nothing is unread */
    while (klogctl(9, NULL, 0) > 0)
        klogctl(2, buf, sizeof buf);
    SHOW("SIZE_UNREAD after draining", klogctl(9, NULL, 0));
    SHOW("CLEAR", klogctl(5, NULL, 0));

    /* records by /dev/kmsg */
    int w = open("/dev/kmsg", O_WRONLY);
    int r = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
    printf("open /dev/kmsg: %s %s\n", w >= 0 ? "ok" : errname(errno), r >= 0 ? "ok" : "");
    SHOW("lseek SEEK_END", lseek(r, 0, SEEK_END));
    SHOW("lseek 1 SEEK_SET", lseek(r, 1, SEEK_SET));
    SHOW("lseek SEEK_CUR", lseek(r, 0, SEEK_CUR));
    SHOW("lseek whence 7", lseek(r, 0, 7));
    kmsg_write(w, "<3>corpus: an error\n");
    kmsg_write(w, "corpus: default level");
    kmsg_write(w, "<30>corpus: daemon info");
    kmsg_write(w, "<1>corpus: back\\slash and\ttab\n");
    kmsg_write(w, "<9999>corpus: big prefix");
    kmsg_write(w, "<x>corpus: not a prefix");
    SHOW("write 1025 bytes", write(w, buf, 1025));
    SHOW("write bad pointer", syscall(SYS_write, w, 8L, 10L));
    SHOW("SIZE_UNREAD", klogctl(9, NULL, 0));
    SHOW("READ_ALL bad pointer", klogctl(3, (char *)8, 100));
    show_kmsg("/dev/kmsg from the end", r);
    struct pollfd pfd = { r, POLLIN, 0 };
    SHOW("poll at the end", poll(&pfd, 1, 0));
    printf("revents %#x\n", pfd.revents);
    SHOW("read at the end", read(r, buf, 100));
    SHOW("lseek SEEK_DATA", lseek(r, 0, SEEK_DATA));
    SHOW("read into 10 bytes", read(r, buf, 10));
    show_kmsg("/dev/kmsg from the clear", r);
    SHOW("lseek SEEK_SET", lseek(r, 0, SEEK_SET));
    SHOW("read from the first (ok if > 0)", read(r, buf, sizeof buf) > 0);
    SHOW("read on the write-only file", read(w, buf, 100));

    n = klogctl(3, buf, sizeof buf);
    show_syslog_text("READ_ALL", buf, n);
    long all = n;
    n = klogctl(3, buf, 40);
    printf("READ_ALL into 40 bytes: %s\n", n <= 40 ? "at most 40" : "more");
    /* READ gives the unread records, a record cut where the buffer ends; the rest next */
    long unread = klogctl(9, NULL, 0);
    printf("SIZE_UNREAD = READ_ALL's size: %s\n", unread == all ? "yes" : "no");
    n = unread > 30 ? klogctl(2, buf, 30) : 0;     /* READ waits while nothing is unread */
    printf("READ 30: %ld\n", n);
    SHOW("SIZE_UNREAD less 30", klogctl(9, NULL, 0) == unread - 30);
    long m = klogctl(9, NULL, 0) > 0 ? klogctl(2, buf + 30, sizeof buf - 30) : 0;
    show_syslog_text("READ the rest", buf, n + m);
    SHOW("SIZE_UNREAD", klogctl(9, NULL, 0));
    n = klogctl(4, buf, sizeof buf);
    show_syslog_text("READ_CLEAR", buf, n);
    SHOW("READ_ALL after READ_CLEAR", klogctl(3, buf, sizeof buf));
    /* a record with its newline closes the open one ("<x>...", written without): Linux shows
     * a record without a newline only once the next is stored, and the next case should not
     * find this one's half-done */
    kmsg_write(w, "<7>corpus: the end\n");
    close(w);
    close(r);
    /* the boot's level again (4, "quiet"), or the next cases' kernel messages would show */
    SHOW("CONSOLE_LEVEL 4", klogctl(8, NULL, 4));
    return 0;
}
