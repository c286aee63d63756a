/* libl4: finding and reading the kernel interface page (contract §2). */
#ifndef LIBL4_KIP_H
#define LIBL4_KIP_H

#include <stddef.h>
#include <l4/types.h>
#include <l4/kip.h>
#include <l4/thread.h>

/* KIP address of this address space, set by l4lib_init().  Threads that run the same
 * image in another address space (whose KIP area may lie elsewhere) must not use it:
 * they call l4_kernel_interface() instead. */
extern void *l4_kip_base;

/* KernelInterface: the `lock; nop` trap (bytes F0 90).  Returns the KIP address (RAX);
 * ApiVersion (RCX), ApiFlags (RDX) and KernelId (RSI) are stored where non-NULL.
 * The kernel preserves every other register (§2.1, §4.2). */
static inline void *l4_kernel_interface(l4_word_t *api_version, l4_word_t *api_flags,
                                        l4_word_t *kernel_id)
{
    void *kip;
    l4_word_t ver, flags, id;
    __asm__ volatile(".byte 0xf0, 0x90      /* lock; nop: KernelInterface */"
                     : "=a"(kip), "=c"(ver), "=d"(flags), "=S"(id) : : "cc");
    if (api_version) *api_version = ver;
    if (api_flags)   *api_flags = flags;
    if (kernel_id)   *kernel_id = id;
    return kip;
}

/* The KIP of this space (cached after the first trap). */
static inline void *l4_kip(void)
{
    if (__builtin_expect(l4_kip_base == NULL, 0))
        l4_kip_base = l4_kernel_interface(NULL, NULL, NULL);
    return l4_kip_base;
}

static inline l4_word_t l4_kip_get(unsigned off) { return l4_kip_word(l4_kip(), off); }
static inline const void *l4_kip_ptr(l4_word_t off) { return (const char *)l4_kip() + off; }

static inline bool l4_kip_valid(const void *kip)
{
    return *(const volatile uint32_t *)kip == L4_KIP_MAGIC;
}

/* --- version words (§2.3, §2.4) ------------------------------------------------------ */
static inline l4_word_t l4_kip_api_version(void) { return l4_kip_get(L4_KIP_OFF_API_VERSION); }
static inline l4_word_t l4_kip_api_flags(void)   { return l4_kip_get(L4_KIP_OFF_API_FLAGS); }

/* Kernel descriptor: word 0 KernelId, 1 KernelGenDate, 2 KernelVer, 3 Supplier, then the
 * version string and the feature strings. */
static inline const l4_word_t *l4_kip_kernel_desc(void)
{
    return (const l4_word_t *)l4_kip_ptr(l4_kip_get(L4_KIP_OFF_KERNEL_VER_PTR));
}
static inline l4_word_t l4_kip_kernel_id(void)       { return l4_kip_kernel_desc()[0]; }
static inline unsigned  l4_kip_kernel_id_id(void)    { return (unsigned)(l4_kip_kernel_id() >> 24) & 0xFF; }
static inline unsigned  l4_kip_kernel_id_subid(void) { return (unsigned)(l4_kip_kernel_id() >> 16) & 0xFF; }
static inline l4_word_t l4_kip_kernel_gen_date(void) { return l4_kip_kernel_desc()[1]; }
static inline l4_word_t l4_kip_kernel_version(void)  { return l4_kip_kernel_desc()[2]; }
/* Supplier: four ASCII characters, space padded, not NUL terminated. */
static inline const char *l4_kip_kernel_supplier(void) { return (const char *)&l4_kip_kernel_desc()[3]; }
static inline const char *l4_kip_version_string(void)  { return (const char *)&l4_kip_kernel_desc()[4]; }
/* Feature string i (0-based), or NULL past the end of the list. */
const char *l4_kip_feature(unsigned i);
/* Correct feature test (libl4/Pistachio's answers yes for any name once the list is non-empty). */
bool l4_kip_has_feature(const char *name);

/* --- thread info (§1.1, §2.3) -------------------------------------------------------- */
static inline l4_word_t l4_kip_thread_info(void) { return l4_kip_get(L4_KIP_OFF_THREAD_INFO); }
static inline unsigned  l4_kip_thread_bits(void)  { return l4_threadinfo_bits(l4_kip_thread_info()); }
static inline unsigned  l4_kip_system_base(void)  { return l4_threadinfo_system_base(l4_kip_thread_info()); }
static inline unsigned  l4_kip_user_base(void)    { return l4_threadinfo_user_base(l4_kip_thread_info()); }

/* --- UTCB and KIP areas -------------------------------------------------------------- */
static inline l4_word_t l4_kip_utcb_area_info(void) { return l4_kip_get(L4_KIP_OFF_UTCB_INFO); }
/* UTCB size in bytes: m * 2^a. */
static inline l4_word_t l4_kip_utcb_size(void)
{
    l4_word_t i = l4_kip_utcb_area_info();
    return (i & 0x3FF) << ((i >> 10) & 0x3F);
}
static inline unsigned l4_kip_utcb_align_log2(void) { return (unsigned)(l4_kip_utcb_area_info() >> 10) & 0x3F; }
static inline unsigned l4_kip_utcb_area_log2(void)  { return (unsigned)(l4_kip_utcb_area_info() >> 16) & 0x3F; }
static inline l4_word_t l4_kip_area_info(void)      { return l4_kip_get(L4_KIP_OFF_KIP_AREA_INFO); }
static inline unsigned l4_kip_area_log2(void)       { return (unsigned)l4_kip_area_info() & 0x3F; }

/* --- page info ----------------------------------------------------------------------- */
static inline l4_word_t l4_kip_page_info(void)      { return l4_kip_get(L4_KIP_OFF_PAGE_INFO); }
static inline unsigned  l4_kip_page_rights(void)    { return (unsigned)l4_kip_page_info() & 7; }
/* Bit n set <=> 2^n bytes is a hardware page size. */
static inline l4_word_t l4_kip_page_size_mask(void) { return l4_kip_page_info() & ~0x3FFull; }

/* --- processors ---------------------------------------------------------------------- */
struct l4_proc_desc {
    l4_word_t external_freq;    /* kHz */
    l4_word_t internal_freq;    /* kHz (TSC rate) */
    l4_word_t reserved[2];
};

static inline l4_word_t l4_kip_processor_info(void) { return l4_kip_get(L4_KIP_OFF_PROCESSOR_INFO); }
static inline unsigned  l4_kip_processors(void)     { return (unsigned)(l4_kip_processor_info() & 0xFFFF) + 1; }
static inline unsigned  l4_kip_proc_desc_log2(void) { return (unsigned)(l4_kip_processor_info() >> 60); }
static inline const struct l4_proc_desc *l4_kip_proc_desc(unsigned cpu)
{
    return (const struct l4_proc_desc *)l4_kip_ptr(l4_kip_get(L4_KIP_OFF_PROC_DESC_PTR) +
                                                   ((l4_word_t)cpu << l4_kip_proc_desc_log2()));
}
static inline l4_word_t l4_kip_internal_freq(unsigned cpu) { return l4_kip_proc_desc(cpu)->internal_freq; }
static inline l4_word_t l4_kip_external_freq(unsigned cpu) { return l4_kip_proc_desc(cpu)->external_freq; }

/* --- memory descriptors (§2.6) ------------------------------------------------------- */
static inline l4_word_t l4_kip_memory_info(void)   { return l4_kip_get(L4_KIP_OFF_MEMORY_INFO); }
static inline unsigned  l4_kip_memdesc_count(void) { return (unsigned)(l4_kip_memory_info() & 0xFFFFFFFFull); }
static inline const struct l4_memdesc *l4_kip_memdescs(void)
{
    return (const struct l4_memdesc *)l4_kip_ptr(l4_kip_memory_info() >> 32);
}
static inline const struct l4_memdesc *l4_kip_memdesc(unsigned i) { return &l4_kip_memdescs()[i]; }

/* --- boot info, clock ---------------------------------------------------------------- */
static inline l4_word_t l4_kip_boot_info(void)  { return l4_kip_get(L4_KIP_OFF_BOOT_INFO); }
static inline l4_word_t l4_kip_clock_info(void) { return l4_kip_get(L4_KIP_OFF_CLOCK_INFO); }
static inline unsigned  l4_kip_read_precision(void)     { return (unsigned)l4_kip_clock_info() & 0xFFFF; }
static inline unsigned  l4_kip_schedule_precision(void) { return (unsigned)(l4_kip_clock_info() >> 16) & 0xFFFF; }

/* --- initial servers (KIP 0x40 sigma0, 0x60 sigma1, 0x80 root task) ------------------ */
struct l4_kip_server { l4_word_t sp, ip, low, high; };
static inline const struct l4_kip_server *l4_kip_sigma0(void) { return (const struct l4_kip_server *)l4_kip_ptr(L4_KIP_OFF_SIGMA0); }
static inline const struct l4_kip_server *l4_kip_sigma1(void) { return (const struct l4_kip_server *)l4_kip_ptr(L4_KIP_OFF_SIGMA1); }
static inline const struct l4_kip_server *l4_kip_root(void)   { return (const struct l4_kip_server *)l4_kip_ptr(L4_KIP_OFF_ROOT); }

/* --- well-known threads (§1.1) ------------------------------------------------------- */
static inline l4_word_t l4_sigma0_tid(void)   { return l4_global_id(l4_kip_user_base(), 1); }
static inline l4_word_t l4_sigma1_tid(void)   { return l4_global_id(l4_kip_user_base() + 1, 1); }
static inline l4_word_t l4_roottask_tid(void) { return l4_global_id(l4_kip_user_base() + 2, 1); }
static inline l4_word_t l4_irq_tid(unsigned irq) { return l4_global_id(irq, 1); }

#endif
