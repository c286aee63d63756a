/* The multiboot (version 1) header that QEMU -kernel and GRUB look for in the image's first
 * 8 KiB (kernel.ld puts .multiboot first): the a.out kludge loads the flat image at its
 * physical addresses and enters the ISA's boot_entry32 (arch/x86_64/boot.S). */

#define MB_MAGIC   0x1BADB002
/* Page-aligned modules, a memory map, the a.out kludge. */
#define MB_FLAGS   ((1 << 0) | (1 << 1) | (1 << 16))

    .section .multiboot, "a"
    .align 4
multiboot_header:
    .long MB_MAGIC
    .long MB_FLAGS
    .long -(MB_MAGIC + MB_FLAGS)
    .long multiboot_header                      /* header_addr (physical) */
    .long _image_phys_start                     /* load_addr */
    .long _load_end_phys                        /* load_end_addr */
    .long _bss_end_phys                         /* bss_end_addr */
    .long boot_entry32                          /* entry_addr */
