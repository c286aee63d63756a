/* A small interactive shell for `make run`: it talks to the user through the serial driver
 * (IPC to a user-level driver fed by IRQ 4) and shows a few things about the system. */
#include <libl4.h>
#include <libl4/serial.h>
#include <stdio.h>
#include <string.h>
#include <stdarg.h>

static l4_word_t serial;

static void say(const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    serial_write(serial, buf, n < (int)sizeof(buf) ? (unsigned)n : sizeof(buf) - 1);
}

static unsigned read_line(char *buf, unsigned max)
{
    unsigned n = 0;
    for (;;) {
        char c[64];
        unsigned k = serial_read(serial, c, sizeof(c));
        for (unsigned i = 0; i < k; i++) {
            if (c[i] == '\r' || c[i] == '\n') {
                say("\n");
                buf[n] = 0;
                return n;
            }
            if ((c[i] == 8 || c[i] == 127) && n) {
                n--;
                say("\b \b");
            } else if (c[i] >= ' ' && n + 1 < max) {
                buf[n++] = c[i];
                serial_write(serial, &c[i], 1);
            }
        }
    }
}

static inline uint64_t tsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

static void cmd_kip(void)
{
    say("kernel:  %s (id %lx, supplier %.4s)\n", l4_kip_version_string(), l4_kip_kernel_id(),
        l4_kip_kernel_supplier());
    say("api:     version %lx, flags %lx, KIP at %p\n", l4_kip_api_version(), l4_kip_api_flags(), l4_kip());
    say("threads: %u bits, system base %u, user base %u\n", l4_kip_thread_bits(),
        l4_kip_system_base(), l4_kip_user_base());
    say("clock:   %lu us, TSC %lu kHz, tick %u us\n", l4_system_clock(), l4_kip_internal_freq(0),
        l4_kip_schedule_precision());
    l4_word_t conv = 0;
    for (unsigned i = 0; i < l4_kip_memdesc_count(); i++) {
        const struct l4_memdesc *d = l4_kip_memdesc(i);
        if (l4_memdesc_type(d) == L4_MEMDESC_CONVENTIONAL && !l4_memdesc_virtual(d))
            conv += l4_memdesc_high(d) - l4_memdesc_low(d) + 1;
    }
    say("memory:  %u descriptors, about %lu MiB conventional\n", l4_kip_memdesc_count(), conv >> 20);
}

/* Rough TSC figures (TCG wall time); `make bench` has the real measurements. */
static void cmd_ipc(void)
{
    uint64_t t0 = tsc();
    for (int i = 0; i < 1000; i++)
        l4_system_clock();
    uint64_t t1 = tsc();
    say("SystemClock: %lu TSC ticks per call\n", (t1 - t0) / 1000);
    t0 = tsc();
    for (int i = 0; i < 1000; i++)
        l4_thread_switch(l4_my_global_id());
    t1 = tsc();
    say("null system call (ThreadSwitch to self): %lu TSC ticks\n", (t1 - t0) / 1000);
    /* An empty write (count 0) is a plain call/reply round trip to the driver's space. */
    t0 = tsc();
    for (int i = 0; i < 1000; i++) {
        l4_set_mr(0, l4_tag_make(SERIAL_WRITE, 1, 0));
        l4_set_mr(1, 0);
        l4_call(serial);
    }
    t1 = tsc();
    say("IPC round trip to the serial driver: %lu TSC ticks\n", (t1 - t0) / 1000);
    say("(run `make bench` for the real measurements)\n");
}

static inline void outl_port(uint16_t port, uint32_t v) { __asm__ volatile("outl %0, %1" :: "a"(v), "Nd"(port)); }

int main(void)
{
    serial = l4_name_lookup("serial");
    say("\nPecan demo shell.  Type 'help'.\n");
    char line[128];
    for (;;) {
        say("pecan> ");
        read_line(line, sizeof(line));
        if (!strcmp(line, "help"))
            say("commands: help, kip, clock, echo <text>, ipc, exit\n");
        else if (!strcmp(line, "kip"))
            cmd_kip();
        else if (!strcmp(line, "clock"))
            say("%lu us since boot\n", l4_system_clock());
        else if (!strcmp(line, "echo") || !strncmp(line, "echo ", 5))
            say("%s\n", line[4] ? line + 5 : "");
        else if (!strcmp(line, "ipc"))
            cmd_ipc();
        else if (!strcmp(line, "exit")) {
            say("bye\n");
            outl_port(0xF4, 0);             /* QEMU's isa-debug-exit: ends the run */
        } else if (line[0])
            say("unknown command '%s'; try help\n", line);
    }
}
