/* In-system test: what the kernel gives a root task at boot (issue 2): KIP layout and values,
 * KernelInterface, UTCB and ids, memory descriptors against the RAM QEMU was given (module
 * argument mem=<MiB>), boot information, SystemClock against an independent timer (PIT). */
#include "testlib.h"
#include "cmdline.h"
#include "../sigma0/regions.h"
#include <string.h>

extern char _start[], _end[];

TEST(kip_magic_and_version)
{
    const uint8_t *k = l4_kip();
    CHECK(k[0] == 'L' && k[1] == '4' && k[2] == 0xE6 && k[3] == 'K');
    CHECK_EQ(*(const uint32_t *)(k + 4), 0);
    CHECK_EQ(l4_kip_api_version(), 0x84050000);
    CHECK_EQ(l4_kip_api_flags(), 0x4);
    CHECK_EQ(l4_kip_kernel_id(), 0x06010000);
    CHECK(!memcmp(l4_kip_kernel_supplier(), "PECN", 4));
    CHECK(strstr(l4_kip_version_string(), "Pecan") != NULL);
    CHECK(l4_kip_feature(0) == NULL, "feature list must be empty (contract §2.4)");
}

TEST(kernel_interface_registers)
{
    /* lock; nop returns KIP, ApiVersion, ApiFlags, KernelId and preserves everything else. */
    register l4_word_t rax __asm__("rax") = 0x1111;
    register l4_word_t rcx __asm__("rcx") = 0x2222;
    register l4_word_t rdx __asm__("rdx") = 0x3333;
    register l4_word_t rsi __asm__("rsi") = 0x4444;
    register l4_word_t rdi __asm__("rdi") = 0x5555;
    register l4_word_t r8 __asm__("r8") = 0x6666;
    register l4_word_t r9 __asm__("r9") = 0x7777;
    register l4_word_t r10 __asm__("r10") = 0x8888;
    register l4_word_t r11 __asm__("r11") = 0x9999;
    register l4_word_t rbx __asm__("rbx") = 0xAAAA;
    __asm__ volatile(".byte 0xF0, 0x90"
                     : "+r"(rax), "+r"(rcx), "+r"(rdx), "+r"(rsi), "+r"(rdi), "+r"(r8),
                       "+r"(r9), "+r"(r10), "+r"(r11), "+r"(rbx) :: "memory");
    CHECK_EQ(rax, (l4_word_t)l4_kip());
    CHECK_EQ(rcx, 0x84050000);
    CHECK_EQ(rdx, 0x4);
    CHECK_EQ(rsi, 0x06010000);
    CHECK_EQ(rdi, 0x5555);
    CHECK_EQ(r8, 0x6666);
    CHECK_EQ(r9, 0x7777);
    CHECK_EQ(r10, 0x8888);
    CHECK_EQ(r11, 0x9999);
    CHECK_EQ(rbx, 0xAAAA);
}

TEST(kip_fixed_fields)
{
    CHECK_EQ((l4_word_t)l4_kip(), 0xBFF00000);
    CHECK_EQ(l4_kip_utcb_area_info(), 0x000C2801);
    CHECK_EQ(l4_kip_area_info() & 0x3F, 12);
    CHECK_EQ(l4_kip_thread_bits(), 18);
    CHECK(l4_kip_system_base() >= 16, "system base %u", l4_kip_system_base());
    CHECK_EQ(l4_kip_user_base(), l4_kip_system_base() + 32);
    CHECK_EQ(l4_kip_processors(), 1);
    CHECK_EQ(l4_kip_proc_desc_log2(), 5);
    CHECK_EQ(l4_kip_page_info() & ~7ul, (1ul << 12) | (1ul << 21));   /* 4 KiB and 2 MiB only */
    CHECK_EQ(l4_kip_page_info() & 7, 7);
    CHECK(l4_kip_internal_freq(0) > 0, "processor descriptor: TSC frequency");
    CHECK_EQ(l4_kip_read_precision(), 1);
    CHECK(l4_kip_schedule_precision() > 0);
    /* Everything the KIP points to lies inside the KIP area. */
    l4_word_t kip = (l4_word_t)l4_kip();
    CHECK(l4_kip_get(L4_KIP_OFF_KERNEL_VER_PTR) < 4096);
    CHECK(l4_kip_get(L4_KIP_OFF_PROC_DESC_PTR) + 32 <= 4096);
    l4_word_t mi = l4_kip_memory_info();
    CHECK((mi >> 32) + 16 * (mi & 0xFFFFFFFF) <= 4096);
    (void)kip;
}

TEST(kip_syscall_addresses)
{
    static const unsigned offs[] = {
        L4_KIP_OFF_SPACE_CONTROL, L4_KIP_OFF_THREAD_CONTROL, L4_KIP_OFF_PROC_CONTROL,
        L4_KIP_OFF_MEMORY_CONTROL, L4_KIP_OFF_IPC, L4_KIP_OFF_LIPC, L4_KIP_OFF_UNMAP,
        L4_KIP_OFF_EXREGS, L4_KIP_OFF_SYSTEM_CLOCK, L4_KIP_OFF_THREAD_SWITCH, L4_KIP_OFF_SCHEDULE,
    };
    l4_word_t page = l4_kip_get(L4_KIP_OFF_IPC) & ~0xFFFul;
    for (unsigned i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
        l4_word_t a = l4_kip_get(offs[i]);
        CHECK(a >= 0xFFFF800000000000ul, "entry %x at %lx is not in the kernel half", offs[i], a);
        CHECK((a & ~0xFFFul) == page, "all entries in one page");
    }
    for (unsigned off = 0x220; off < 0x240; off += 8)
        CHECK_EQ(l4_kip_get(off), 0);
    /* The stubs are readable and executable from user mode, but not writable. */
    volatile const uint8_t *stub = (const uint8_t *)l4_kip_get(L4_KIP_OFF_IPC);
    CHECK(stub[0] == 0x0F && stub[1] == 0x05, "a syscall instruction");
}

/* The effective physical memory map, with later descriptors overriding earlier ones. */
static l4_word_t ram_of_kind(enum region_kind kind)
{
    regions_init();
    for (unsigned i = 0; i < l4_kip_memdesc_count(); i++) {
        const struct l4_memdesc *d = l4_kip_memdesc(i);
        if (l4_memdesc_virtual(d))
            continue;
        unsigned t = l4_memdesc_type(d);
        enum region_kind k = t == L4_MEMDESC_CONVENTIONAL ? R_CONV : t == L4_MEMDESC_SHARED ? R_SHARED :
                             t == L4_MEMDESC_RESERVED ? R_RESERVED : R_NONCONV;
        /* Mark RAM-ness: owner 1 = RAM (conventional, or memory the kernel/loader took). */
        regions_set(l4_memdesc_low(d), l4_memdesc_high(d), k, t == L4_MEMDESC_ARCH || t == L4_MEMDESC_SHARED ? 0 : 1);
    }
    l4_word_t sum = 0;
    for (unsigned i = 0; i < nregions; i++)
        if (regions[i].kind == kind && regions[i].owner == 1 && regions[i].last < (1ull << 40))
            sum += regions[i].last - regions[i].first + 1;
    return sum;
}

TEST(kip_memory_matches_qemu)
{
    l4_word_t mib = cmdline_value("mem", 0);
    CHECK(mib != 0, "the harness passes mem=<MiB>");
    l4_word_t conv = ram_of_kind(R_CONV), reserved = ram_of_kind(R_RESERVED),
              loader = ram_of_kind(R_NONCONV);
    l4_word_t total = conv + reserved + loader;
    test_note("conventional %lu KiB, kernel %lu KiB, loader %lu KiB", conv >> 10, reserved >> 10, loader >> 10);
    /* QEMU keeps some RAM for the BIOS and ACPI; the rest is described. */
    CHECK(total <= (mib << 20) && total >= (mib << 20) - (3ul << 20), "RAM described %lu KiB, QEMU has %lu MiB",
          total >> 10, mib);
    CHECK(reserved > 0, "the kernel's own memory is described as reserved");
    CHECK(conv >= (mib << 20) / 2);
}

TEST(kip_memory_descriptor_order)
{
    unsigned n = l4_kip_memdesc_count();
    CHECK(n >= 6);
    const struct l4_memdesc *first = l4_kip_memdesc(0), *last = l4_kip_memdesc(n - 1);
    CHECK_EQ(l4_memdesc_type(first), L4_MEMDESC_SHARED);
    CHECK_EQ(l4_memdesc_low(first), 0);
    CHECK_EQ(l4_memdesc_high(first), ~0ul);
    CHECK(l4_memdesc_virtual(last));
    CHECK_EQ(l4_memdesc_type(last), L4_MEMDESC_CONVENTIONAL);
    CHECK_EQ(l4_memdesc_high(last), 0x00007FFFFFFFFFFFul);
    /* Kernel memory stays out of 15..64 MiB, where X.2 programs expect their RAM. */
    for (unsigned i = 0; i < n; i++) {
        const struct l4_memdesc *d = l4_kip_memdesc(i);
        if (l4_memdesc_type(d) == L4_MEMDESC_RESERVED && !l4_memdesc_virtual(d))
            CHECK(l4_memdesc_high(d) < (15ul << 20) || l4_memdesc_low(d) >= (64ul << 20),
                  "reserved %lx-%lx", l4_memdesc_low(d), l4_memdesc_high(d));
    }
}

TEST(kip_initial_servers)
{
    const struct l4_kip_server *root = l4_kip_root(), *s0 = l4_kip_sigma0(), *s1 = l4_kip_sigma1();
    CHECK_EQ(root->ip, (l4_word_t)_start);
    CHECK(root->low <= (l4_word_t)_start && root->high >= (l4_word_t)_end - 4096,
          "root image %lx-%lx", root->low, root->high);
    CHECK(s0->ip != 0 && s0->low < s0->high);
    CHECK(s1->ip == 0 && s1->low == 0 && s1->high == 0);
}

TEST(utcb_and_thread_ids)
{
    CHECK_EQ(l4_my_local_id(), 0xBF000200);
    CHECK_EQ((l4_word_t)l4_utcb(), 0xBF000200);
    CHECK_EQ(l4_my_global_id(), l4_global_id(l4_kip_user_base() + 2, 1));
    CHECK_EQ(l4_pager(), l4_global_id(l4_kip_user_base(), 1));
    CHECK_EQ(l4_exception_handler(), 0);
    CHECK_EQ(l4_processor_no(), 0);
    /* ExchangeRegisters converts between the two forms. */
    CHECK_EQ(l4_global_id_of(l4_my_local_id()), l4_my_global_id());
    CHECK_EQ(l4_local_id_of(l4_my_global_id()), l4_my_local_id());
}

TEST(boot_info_records)
{
    l4_word_t bi = l4_kip_boot_info();
    CHECK(bi != 0);
    /* The boot info lies in boot-loader memory; sigma0 hands it to us by address. */
    l4_word_t page = l4_sigma0_get_page(l4_sigma0_tid(), l4_fpage_log2(bi & ~0xFFFul, 12) | L4_RWX,
                                        l4_fpage_log2(bi & ~0xFFFul, 12));
    CHECK(!l4_is_nil_fpage(page), "sigma0 gives us the boot information page");
    const struct l4_bootinfo *h = (const struct l4_bootinfo *)bi;
    CHECK_EQ(h->magic, L4_BOOTINFO_MAGIC);
    CHECK_EQ(h->version, 1);
    CHECK(h->num_entries >= 2);
    const struct l4_bootrec *r = (const struct l4_bootrec *)(bi + h->first_entry);
    CHECK_EQ(r->type, L4_BOOTREC_MODULE);
    const struct l4_bootrec_module *m = (const void *)r;
    CHECK(strstr((const char *)m + m->cmdline_offset, "test_boot") != NULL, "first record: this root task");
    bool multiboot = false;
    for (unsigned i = 0; i < h->num_entries; i++) {
        multiboot |= r->type == L4_BOOTREC_MULTIBOOT;
        r = (const struct l4_bootrec *)((const char *)r + r->offset_next);
    }
    CHECK(multiboot);
}

TEST(system_clock_monotonic)
{
    l4_word_t prev = l4_system_clock();
    for (int i = 0; i < 20000; i++) {
        l4_word_t now = l4_system_clock();
        CHECK(now >= prev, "clock went back from %lu to %lu", prev, now);
        prev = now;
    }
    CHECK(prev > 0);
}

static inline uint8_t inb_port(uint16_t p) { uint8_t v; __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(p)); return v; }
static inline void outb_port(uint16_t p, uint8_t v) { __asm__ volatile("outb %0, %1" :: "a"(v), "Nd"(p)); }

/* Elapsed guest time by the PIT (channel 2 counting down at 1.193182 MHz): independent of
 * the TSC the kernel's clock runs on. */
static void pit_wait(unsigned ticks)
{
    outb_port(0x61, (inb_port(0x61) & ~0x02) | 0x01);
    outb_port(0x43, 0xB0);
    outb_port(0x42, ticks & 0xFF);
    outb_port(0x42, ticks >> 8);
    uint8_t g = inb_port(0x61);
    outb_port(0x61, g & ~1);
    outb_port(0x61, g | 1);
    while (!(inb_port(0x61) & 0x20))
        ;
}

TEST(system_clock_matches_pit)
{
    pit_wait(100);                              /* the first port faults are served here */
    l4_word_t t0 = l4_system_clock();
    for (int i = 0; i < 4; i++)
        pit_wait(23864);                        /* 4 x 20 ms */
    l4_word_t dt = l4_system_clock() - t0;
    test_note("80 ms by the PIT took %lu us by SystemClock", dt);
    CHECK(dt >= 79000 && dt <= 81000, "SystemClock advanced %lu us for 80000 us", dt);
}

TEST(receive_timeout_duration)
{
    l4_word_t t0 = l4_system_clock();
    l4_word_t tag = l4_receive_timeout(l4_my_global_id(), l4_period_from_us(30000));
    l4_word_t dt = l4_system_clock() - t0;
    CHECK(l4_ipc_failed(tag));
    CHECK_EQ(l4_ipc_last_error(), L4_IPC_TIMEOUT);
    CHECK(dt >= 30000 && dt < 30000 + 3 * l4_kip_schedule_precision() + 2000,
          "a 30 ms receive timeout took %lu us", dt);
}

int main(void)
{
    cmdline_init();
    tests_run("boot");
}
