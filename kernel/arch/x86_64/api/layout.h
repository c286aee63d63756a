/* The virtual address map (see docs/architecture.md).
 *
 *   0x0000000000000000 .. 0x00007FFFFFFFFFFF  user area (per space)
 *   0xFFFF800000000000  PML4 256  physmap: all physical memory, 1:1, kernel only
 *   0xFFFFC00000000000  PML4 384  TCB array: thread number << 13, 8 KiB each
 *   0xFFFFFE8000000000  PML4 509  TSS window: the TSS page, then this space's I/O bitmap
 *   0xFFFFFF0000000000  PML4 510  user-visible kernel pages: system-call stubs, %gs page
 *   0xFFFFFFFF80000000  PML4 511  kernel image (text, rodata, data, bss)
 *
 * Only PML4 entries 256..511 are kernel.  All but 509 are identical in every space: every
 * space's PML4 copies them from the kernel's at creation and they are never changed later.
 * Entry 509 is per space so that the TSS's I/O permission bitmap follows the address space
 * without any work at switch time (spaces without I/O ports share one deny-all window).
 *
 * Part of the interface header (api/arch.h): generic code may use these addresses; the
 * PML4 slot numbers are private to the page-table code (paging.h).
 */
#ifndef LAYOUT_H
#define LAYOUT_H

#define PAGE_BITS           12
#define PAGE_SIZE           4096ul
#define SUPERPAGE_BITS      21
#define SUPERPAGE_SIZE      (1ul << 21)
#define HUGEPAGE_BITS       30

#define PHYSMAP_BASE        0xFFFF800000000000ul
#define PHYSMAP_MAX         (512ul << 30)
#define L4_USER_AREA_END_K  0x0000800000000000ul
#define TCB_AREA_BASE       0xFFFFC00000000000ul
#define TCB_BITS            13
#define TCB_AREA_SIZE       (CONFIG_MAX_THREADS << TCB_BITS)
#define USER_KPAGES_BASE    0xFFFFFF0000000000ul
#define SYSCALL_PAGE_USER   (USER_KPAGES_BASE)
#define GS_PAGE_USER        (USER_KPAGES_BASE + 0x1000)
#define KERNEL_VMA_BASE     0xFFFFFFFF80000000ul
#define IOWIN_BASE          0xFFFFFE8000000000ul
#endif
